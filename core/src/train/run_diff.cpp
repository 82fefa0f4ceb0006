// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/run_diff.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace mantissa::train {

namespace {

using nlohmann::json;
using telemetry::TensorClass;
using telemetry::TensorTelemetry;

std::string number(double v) {
  if (std::isnan(v))
    return "null";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string count(std::uint64_t v) { return std::to_string(v); }

// The layers' names of a header, or empty.
std::vector<std::string> layerNames(const RunLog& log) {
  std::vector<std::string> names;
  if (!log.header.is_object())
    return names;
  const auto it = log.header.find("layers");
  if (it == log.header.end() || !it->is_array())
    return names;
  for (const json& n : *it)
    names.push_back(n.is_string() ? n.get<std::string>() : std::string());
  return names;
}

DiffPass passOf(TensorClass cls) {
  switch (cls) {
  case TensorClass::Weights:
  case TensorClass::Activations:
    return DiffPass::Forward;
  case TensorClass::ActivationGrads:
  case TensorClass::WeightGrads:
    return DiffPass::Backward;
  case TensorClass::Updates:
    return DiffPass::Update;
  }
  return DiffPass::Forward;
}

// Within a pass: forward and update layer 0 up, backward last layer first.
int orderOf(TensorClass cls, int layer, bool scaled, int layers) {
  int base = 0;
  switch (cls) {
  case TensorClass::Weights: base = 2 * layer; break;
  case TensorClass::Activations: base = 2 * layer + 1; break;
  case TensorClass::ActivationGrads: base = 2 * (layers - 1 - layer); break;
  case TensorClass::WeightGrads: base = 2 * (layers - 1 - layer) + 1; break;
  case TensorClass::Updates: base = 2 * layer; break;
  }
  return 2 * base + (scaled ? 1 : 0);
}

struct Key {
  std::string name; // layer name, or "layer N"
  TensorClass cls;
  bool scaled;
  bool operator<(const Key& o) const {
    return std::tie(name, cls, scaled) < std::tie(o.name, o.cls, o.scaled);
  }
};

class Differ {
public:
  Differ(const RunLog& a, const RunLog& b, const RunDiffOptions& options)
      : m_a(a), m_b(b), m_options(options) {
    m_diff.nameA = a.source.empty() ? a.name() : a.source;
    m_diff.nameB = b.source.empty() ? b.name() : b.source;
    m_namesA = layerNames(a);
    m_namesB = layerNames(b);
    m_byName = !m_namesA.empty() && !m_namesB.empty();
    if (!m_byName && (!m_namesA.empty() || !m_namesB.empty()))
      note("only " + std::string(m_namesA.empty() ? "B" : "A") +
           "'s header names its layers: tensors are aligned by layer index and class");
    for (const auto& f : a.frames)
      for (const auto& t : f.tensors)
        m_layers = std::max(m_layers, t.layer + 1);
  }

  RunDiff run() {
    compareConfigs();
    compareSteps();
    compareFrames();
    compareEvals();
    std::stable_sort(m_diff.rows.begin(), m_diff.rows.end(),
                     [](const RunDiffRow& x, const RunDiffRow& y) {
                       return std::tie(x.step, x.pass, x.order) < std::tie(y.step, y.pass, y.order);
                     });
    return std::move(m_diff);
  }

private:
  void note(std::string text) { m_diff.notes.push_back(std::move(text)); }

  bool sameNumber(double x, double y, double& ulps) const {
    const std::uint64_t d = ulpDistance(x, y);
    ulps = d == std::numeric_limits<std::uint64_t>::max() ? std::numeric_limits<double>::infinity()
                                                          : static_cast<double>(d);
    return d <= m_options.toleranceUlps;
  }

  std::string nameOf(const std::vector<std::string>& names, int layer) const {
    if (m_byName && layer >= 0 && static_cast<std::size_t>(layer) < names.size() &&
        !names[static_cast<std::size_t>(layer)].empty())
      return names[static_cast<std::size_t>(layer)];
    return "layer " + std::to_string(layer);
  }

  Key keyOf(const TensorTelemetry& t, const std::vector<std::string>& names) const {
    return {nameOf(names, t.layer), t.cls, t.scaled};
  }

  static std::string label(const Key& k) {
    std::string s = k.name + " " + std::string(telemetry::tensorClassName(k.cls));
    if (k.scaled)
      s += " (scaled)";
    return s;
  }

  void compareConfigs() {
    if (!m_a.config || !m_b.config)
      return;
    const json ca = toJson(*m_a.config), cb = toJson(*m_b.config);
    std::string differs;
    for (auto it = ca.begin(); it != ca.end(); ++it) {
      const auto other = cb.find(it.key());
      if (other == cb.end() || *other != it.value())
        differs += (differs.empty() ? "" : ", ") + it.key() + " " + it.value().dump() + " vs " +
                   (other == cb.end() ? std::string("absent") : other->dump());
    }
    if (!differs.empty())
      note("the runs' configurations differ: " + differs);
  }

  void compareSteps() {
    const auto& sa = m_a.steps;
    const auto& sb = m_b.steps;
    std::size_t i = 0, j = 0;
    bool lossDiffers = false;
    std::int64_t firstOnlyOne = -1;
    std::string onlyIn;
    while (i < sa.size() || j < sb.size()) {
      if (j == sb.size() || (i < sa.size() && sa[i].step < sb[j].step)) {
        if (firstOnlyOne < 0) {
          firstOnlyOne = sa[i].step;
          onlyIn = "A";
        }
        ++i;
        continue;
      }
      if (i == sa.size() || sb[j].step < sa[i].step) {
        if (firstOnlyOne < 0) {
          firstOnlyOne = sb[j].step;
          onlyIn = "B";
        }
        ++j;
        continue;
      }
      ++m_diff.stepsCompared;
      double ulps = 0.0;
      if (!lossDiffers && !sameNumber(sa[i].loss, sb[j].loss, ulps)) {
        lossDiffers = true;
        RunDiffRow r;
        r.step = sa[i].step;
        r.pass = DiffPass::Loss;
        r.tensor = "loss";
        r.measure = "loss";
        r.a = sa[i].loss;
        r.b = sb[j].loss;
        r.ulps = ulps;
        r.detail = "loss " + number(r.a) + " vs " + number(r.b) + " (" + number(ulps) + " ULPs)";
        m_diff.rows.push_back(std::move(r));
      }
      ++i;
      ++j;
    }
    if (firstOnlyOne >= 0) {
      RunDiffRow r;
      r.step = firstOnlyOne;
      r.pass = DiffPass::Forward;
      r.order = -1;
      r.tensor = "steps";
      r.measure = "run length";
      r.a = sa.empty() ? std::numeric_limits<double>::quiet_NaN() : double(sa.back().step + 1);
      r.b = sb.empty() ? std::numeric_limits<double>::quiet_NaN() : double(sb.back().step + 1);
      r.detail = "step " + std::to_string(firstOnlyOne) + " is logged by " + onlyIn + " only";
      m_diff.rows.push_back(std::move(r));
    }
  }

  struct Seen {
    bool differs = false;
  };

  void compareFrames() {
    const auto& fa = m_a.frames;
    const auto& fb = m_b.frames;
    if (fa.empty() || fb.empty()) {
      if (!fa.empty() || !fb.empty())
        note(std::string(fa.empty() ? "A" : "B") +
             " has no telemetry frames: only losses are compared");
      else
        note("neither log has telemetry frames: only losses are compared");
      return;
    }
    std::size_t i = 0, j = 0, onlyA = 0, onlyB = 0;
    std::map<Key, Seen> seen;
    std::vector<bool> swampedDiffers;
    std::set<Key> onlyOne;
    bool bitsMissingA = false, bitsMissingB = false;
    std::map<Key, const TensorTelemetry*> inB;
    while (i < fa.size() && j < fb.size()) {
      if (fa[i].step < fb[j].step) {
        ++onlyA, ++i;
        continue;
      }
      if (fb[j].step < fa[i].step) {
        ++onlyB, ++j;
        continue;
      }
      const auto& A = fa[i++];
      const auto& B = fb[j++];
      ++m_diff.framesCompared;
      inB.clear();
      for (const auto& t : B.tensors)
        inB.emplace(keyOf(t, m_namesB), &t);
      for (const auto& ta : A.tensors) {
        const Key k = keyOf(ta, m_namesA);
        const auto it = inB.find(k);
        if (it == inB.end()) {
          onlyOne.insert(k);
          continue;
        }
        const TensorTelemetry& tb = *it->second;
        inB.erase(it);
        ++m_diff.tensorsCompared;
        bitsMissingA |= !ta.bits.has_value();
        bitsMissingB |= !tb.bits.has_value();
        Seen& s = seen[k];
        if (s.differs)
          continue;
        compareTensor(A.step, k, ta, tb, s);
      }
      for (const auto& [k, t] : inB)
        onlyOne.insert(k);
      compareSwamped(A, B, swampedDiffers);
    }
    onlyA += fa.size() - i;
    onlyB += fb.size() - j;
    if (onlyA + onlyB != 0)
      note(std::to_string(onlyA) + " telemetry frames of A and " + std::to_string(onlyB) +
           " of B have no frame of the same step in the other log (different telemetry "
           "cadence or length): not compared");
    if (!onlyOne.empty()) {
      std::string names;
      std::size_t shown = 0;
      for (const auto& k : onlyOne)
        if (shown++ < 5)
          names += (names.empty() ? "" : ", ") + label(k);
      note(std::to_string(onlyOne.size()) + " tensors are in one log's frames only (" + names +
           (onlyOne.size() > 5 ? ", ..." : "") + "): not compared");
    }
    for (const auto& [missing, who] : {std::pair{bitsMissingA, "A"}, std::pair{bitsMissingB, "B"}})
      if (missing)
        note(std::string(who) +
             "'s telemetry does not record bit sums (a log written before they were, or "
             "another trainer's): a change that moves no value to another binade and no "
             "count is not seen");
  }

  void compareTensor(std::int64_t step, const Key& k, const TensorTelemetry& ta,
                     const TensorTelemetry& tb, Seen& s) {
    const auto& ha = ta.hist;
    const auto& hb = tb.hist;
    std::string measure, detail;
    double va = 0.0, vb = 0.0, ulpsShown = 0.0;
    std::optional<std::uint64_t> ca, cb;
    const auto differs = [&](const std::string& what, double x, double y, const std::string& text,
                             double ulps = 0.0) {
      if (measure.empty()) {
        measure = what;
        va = x;
        vb = y;
        ulpsShown = ulps;
      }
      detail += (detail.empty() ? "" : "; ") + text;
    };
    const double emd = exponentEmd(ha, hb);
    if (emd != 0.0)
      differs("histogram", std::numeric_limits<double>::quiet_NaN(),
              std::numeric_limits<double>::quiet_NaN(), "histogram EMD " + number(emd) + " binades");
    const std::pair<const char*, std::uint64_t telemetry::ExponentHistogram::*> counters[] = {
        {"zeros", &telemetry::ExponentHistogram::zeros},
        {"pos_inf", &telemetry::ExponentHistogram::posInf},
        {"neg_inf", &telemetry::ExponentHistogram::negInf},
        {"nan", &telemetry::ExponentHistogram::nan},
        {"total", &telemetry::ExponentHistogram::total}};
    for (const auto& [name, member] : counters)
      if (ha.*member != hb.*member) {
        if (measure.empty())
          ca = ha.*member, cb = hb.*member;
        differs(name, double(ha.*member), double(hb.*member),
                std::string(name) + " " + count(ha.*member) + " vs " + count(hb.*member));
      }
    for (std::size_t c = 0; c < telemetry::kCastTargetCount; ++c) {
      const auto& fa = ta.fractions[c];
      const auto& fb = tb.fractions[c];
      const std::pair<const char*, double telemetry::CastFractions::*> fields[] = {
          {"to_zero", &telemetry::CastFractions::toZero},
          {"to_subnormal", &telemetry::CastFractions::toSubnormal},
          {"overflow", &telemetry::CastFractions::overflow},
          {"nonzero_lost_to_zero", &telemetry::CastFractions::nonzeroLostToZero}};
      for (const auto& [name, member] : fields) {
        double ulps = 0.0;
        if (!sameNumber(fa.*member, fb.*member, ulps)) {
          const std::string what = "cast " +
                                   std::string(telemetry::castTargetName(telemetry::kCastTargets[c])) +
                                   " " + name;
          differs(what, fa.*member, fb.*member,
                  what + " " + number(fa.*member) + " vs " + number(fb.*member), ulps);
        }
      }
    }
    if (ta.bits && tb.bits && *ta.bits != *tb.bits) {
      if (measure.empty())
        ca = ta.bits, cb = tb.bits;
      differs("bits", double(*ta.bits), double(*tb.bits),
              "bits " + count(*ta.bits) + " vs " + count(*tb.bits));
    }
    if (measure.empty())
      return;
    s.differs = true;
    RunDiffRow r;
    r.step = step;
    r.pass = passOf(k.cls);
    r.tensor = label(k);
    r.layer = ta.layer;
    r.order = orderOf(k.cls, ta.layer, k.scaled, m_layers);
    r.measure = measure;
    r.a = va;
    r.b = vb;
    r.countA = ca;
    r.countB = cb;
    r.ulps = ulpsShown;
    r.emd = emd;
    r.detail = detail;
    m_diff.rows.push_back(std::move(r));
  }

  void compareSwamped(const telemetry::TelemetryFrame& A, const telemetry::TelemetryFrame& B,
                      std::vector<bool>& done) {
    const std::size_t n = std::min(A.swamped.size(), B.swamped.size());
    if (done.size() < n)
      done.resize(n, false);
    for (std::size_t l = 0; l < n; ++l) {
      double ulps = 0.0;
      if (done[l] || sameNumber(A.swamped[l], B.swamped[l], ulps))
        continue;
      done[l] = true;
      RunDiffRow r;
      r.step = A.step;
      r.pass = DiffPass::Update;
      r.layer = static_cast<int>(l);
      r.tensor = nameOf(m_namesA, r.layer) + " swamped";
      r.order = orderOf(TensorClass::Updates, r.layer, false, m_layers) + 1;
      r.measure = "swamped";
      r.a = A.swamped[l];
      r.b = B.swamped[l];
      r.ulps = ulps;
      r.detail = "swamped fraction " + number(r.a) + " vs " + number(r.b);
      m_diff.rows.push_back(std::move(r));
    }
  }

  void compareEvals() {
    const auto& ea = m_a.evals;
    const auto& eb = m_b.evals;
    std::size_t i = 0, j = 0;
    const bool gpt = std::any_of(ea.begin(), ea.end(), [](const RunEvalRow& e) {
      return e.raw.is_object() && e.raw.contains("val_loss");
    });
    struct Field {
      const char* name;
      double RunEvalRow::*member;
      bool done = false;
    };
    Field fields[] = {{gpt ? "val_loss" : "test_loss", &RunEvalRow::testLoss},
                      {"test_accuracy", &RunEvalRow::testAccuracy},
                      {"train_loss", &RunEvalRow::trainLoss}};
    int order = 0;
    while (i < ea.size() && j < eb.size()) {
      if (ea[i].step < eb[j].step) {
        ++i;
        continue;
      }
      if (eb[j].step < ea[i].step) {
        ++j;
        continue;
      }
      for (Field& f : fields) {
        double ulps = 0.0;
        const double x = ea[i].*f.member, y = eb[j].*f.member;
        if (f.done || sameNumber(x, y, ulps))
          continue;
        f.done = true;
        RunDiffRow r;
        r.step = std::max<std::int64_t>(0, ea[i].step - 1); // evaluated after step - 1
        r.pass = DiffPass::Eval;
        r.order = order++;
        r.tensor = f.name;
        r.measure = f.name;
        r.a = x;
        r.b = y;
        r.ulps = ulps;
        r.detail = std::string(f.name) + " " + number(x) + " vs " + number(y) + " (" +
                   number(ulps) + " ULPs) after " + std::to_string(ea[i].step) + " steps";
        m_diff.rows.push_back(std::move(r));
      }
      ++i;
      ++j;
    }
  }

  const RunLog& m_a;
  const RunLog& m_b;
  RunDiffOptions m_options;
  RunDiff m_diff;
  std::vector<std::string> m_namesA, m_namesB;
  bool m_byName = false;
  int m_layers = 0;
};

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos)
    return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"')
      out += '"';
    out += c;
  }
  return out + "\"";
}

json jsonNumber(double v) { return std::isfinite(v) ? json(v) : json(); }

} // namespace

const char* diffPassName(DiffPass pass) {
  switch (pass) {
  case DiffPass::Forward: return "forward";
  case DiffPass::Loss: return "loss";
  case DiffPass::Backward: return "backward";
  case DiffPass::Update: return "update";
  case DiffPass::Eval: return "eval";
  }
  return "forward";
}

std::uint64_t ulpDistance(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<std::uint64_t>::max();
  // Doubles ordered as integers: negative ones mirrored below zero (+0 and -0 meet).
  const auto ordered = [](double x) {
    const auto bits = std::bit_cast<std::int64_t>(x);
    return bits < 0 ? std::numeric_limits<std::int64_t>::min() - bits : bits;
  };
  const std::int64_t x = ordered(a), y = ordered(b);
  return x > y ? static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y)
               : static_cast<std::uint64_t>(y) - static_cast<std::uint64_t>(x);
}

double exponentEmd(const telemetry::ExponentHistogram& a, const telemetry::ExponentHistogram& b) {
  const std::uint64_t na = a.finiteNonZero(), nb = b.finiteNonZero();
  if (na == 0 && nb == 0)
    return 0.0;
  if (na == 0 || nb == 0)
    return std::numeric_limits<double>::infinity();
  if (a.bins == b.bins)
    return 0.0;
  // Exact integer CDFs, cross-multiplied: |ca/na - cb/nb| = |ca nb - cb na| / (na nb).
  double sum = 0.0;
  __extension__ using U128 = unsigned __int128; // counts up to 2^64 times counts up to 2^64
  U128 ca = 0, cb = 0;
  for (std::size_t i = 0; i + 1 < a.bins.size(); ++i) {
    ca += a.bins[i];
    cb += b.bins[i];
    const U128 x = ca * nb, y = cb * na;
    sum += static_cast<double>(x > y ? x - y : y - x);
  }
  return sum / (static_cast<double>(na) * static_cast<double>(nb));
}

RunDiff diffRuns(const RunLog& a, const RunLog& b, const RunDiffOptions& options) {
  return Differ(a, b, options).run();
}

std::string runDiffCsv(const RunDiff& diff) {
  std::string out = "step,pass,tensor,layer,measure,a,b,ulps,emd,detail\n";
  for (const auto& r : diff.rows) {
    out += std::to_string(r.step) + "," + diffPassName(r.pass) + "," + csvField(r.tensor) + "," +
           (r.layer >= 0 ? std::to_string(r.layer) : std::string()) + "," + csvField(r.measure) +
           "," + (r.countA ? std::to_string(*r.countA) : std::isnan(r.a) ? std::string() : number(r.a)) +
           "," + (r.countB ? std::to_string(*r.countB) : std::isnan(r.b) ? std::string() : number(r.b)) +
           "," + number(r.ulps) + "," +
           number(r.emd) + "," + csvField(r.detail) + "\n";
  }
  return out;
}

json runDiffJson(const RunDiff& diff) {
  json rows = json::array();
  for (const auto& r : diff.rows)
    rows.push_back({{"step", r.step},
                    {"pass", diffPassName(r.pass)},
                    {"tensor", r.tensor},
                    {"layer", r.layer >= 0 ? json(r.layer) : json()},
                    {"measure", r.measure},
                    {"a", r.countA ? json(*r.countA) : jsonNumber(r.a)},
                    {"b", r.countB ? json(*r.countB) : jsonNumber(r.b)},
                    {"ulps", jsonNumber(r.ulps)},
                    {"emd", jsonNumber(r.emd)},
                    {"detail", r.detail}});
  return {{"a", diff.nameA},
          {"b", diff.nameB},
          {"differ", diff.differ()},
          {"first", diff.rows.empty() ? json() : rows.front()},
          {"rows", rows},
          {"notes", diff.notes},
          {"steps_compared", diff.stepsCompared},
          {"frames_compared", diff.framesCompared},
          {"tensors_compared", diff.tensorsCompared}};
}

} // namespace mantissa::train
