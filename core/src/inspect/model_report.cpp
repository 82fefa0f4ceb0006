// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/inspect/model_report.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace mantissa::inspect {
namespace {

constexpr double kUnderflowShare = 0.01;
constexpr std::size_t kNamesInVerdict = 5;

std::string names(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < kNamesInVerdict; ++i)
    s += (i ? ", " : "") + v[i];
  return v.size() > kNamesInVerdict ? s + ", ..." : s;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string dB(double v) {
  if (std::isinf(v))
    return "exact";
  char b[32];
  std::snprintf(b, sizeof b, "%.1f dB", v);
  return b;
}

std::string num(double v, const char* f = "%.6g") {
  char b[48];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string keepHint(Target t, std::size_t n) {
  const std::string them = n == 1 ? "it" : "them";
  switch (t) {
  case Target::Fp16: return " (keep " + them + " in BF16)";
  case Target::Bf16: return " (keep " + them + " in FP32)";
  case Target::Fp8E4M3:
  case Target::Fp8E5M2: return " (give " + them + " a scale: FP8 block-128 or MXFP8)";
  default: return " (those blocks decode as NaN)";
  }
}

// JSON numbers cannot be inf or NaN: those become strings.
nlohmann::ordered_json jnum(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

std::string htmlEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
    case '<': o += "&lt;"; break;
    case '>': o += "&gt;"; break;
    case '&': o += "&amp;"; break;
    case '"': o += "&quot;"; break;
    default: o += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
    }
  }
  return o;
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos && !s.empty() &&
      s.find_first_of("=+-@") != 0)
    return s;
  std::string o = "\"";
  if (!s.empty() && std::string("=+-@").find(s[0]) != std::string::npos)
    o += '\''; // not a formula in a spreadsheet
  for (char c : s)
    o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

bool endsWith(const std::string& s, std::string_view tail) { return s.ends_with(tail); }

} // namespace

std::string shapeText(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::vector<FormatVerdict> verdicts(const ModelFile& model, const std::vector<TensorStats>& stats) {
  std::vector<FormatVerdict> out;
  for (Target t : kTargets) {
    FormatVerdict v;
    v.target = t;
    for (const TensorStats& s : stats) {
      if (!s.scanned)
        continue;
      const std::string& name = model.tensors()[s.index].name;
      const TargetStats& ts = s.at(t);
      if (targetIsBlock(t) ? ts.poisonedBlocks > 0 : ts.overflow > 0)
        v.overflowing.push_back(name);
      const std::uint64_t nonZero = s.finite - s.zeros;
      if (nonZero > 0 && double(ts.lostToZero) > kUnderflowShare * double(nonZero))
        v.underflowing.push_back(name);
      const double q = ts.sqnrDb();
      if (!std::isnan(q) && (!v.lowestSqnrDb || q < *v.lowestSqnrDb)) {
        v.lowestSqnrDb = q;
        v.lowestSqnrTensor = name;
      }
    }
    const std::string fmt(targetDisplayName(t));
    std::string text;
    if (!v.overflowing.empty())
      text = plural(v.overflowing.size(), "tensor ", "tensors ") +
             (targetIsBlock(t) ? (v.overflowing.size() == 1 ? "holds Inf or NaN" : "hold Inf or NaN")
                               : (v.overflowing.size() == 1 ? "overflows" : "overflow")) +
             ": " + names(v.overflowing) + keepHint(t, v.overflowing.size());
    else
      text = targetIsBlock(t) ? "no tensor holds Inf or NaN" : "no tensor overflows";
    if (!v.underflowing.empty())
      text += "; " + plural(v.underflowing.size(), "tensor loses", "tensors lose") +
              " over 1% of its non-zero values to zero: " + names(v.underflowing);
    if (v.lowestSqnrDb)
      text += "; lowest SQNR " + dB(*v.lowestSqnrDb) + " (" + v.lowestSqnrTensor + ")";
    v.text = fmt + ": " + text + ".";
    out.push_back(std::move(v));
  }
  return out;
}

std::string_view scaleKindName(ScaleKind kind) {
  switch (kind) {
  case ScaleKind::Block128: return "block-128";
  case ScaleKind::PerTensor: return "per-tensor";
  case ScaleKind::PerRow: return "per-row";
  case ScaleKind::Mx32: return "mx-e8m0-32";
  case ScaleKind::Nvfp4: return "nvfp4-e4m3-16";
  case ScaleKind::InputScale: return "input-scale";
  case ScaleKind::Orphan: return "orphan";
  }
  return "orphan";
}

std::vector<ScalePairing> pairScales(const ModelFile& model) {
  const auto& ts = model.tensors();
  std::map<std::string, std::size_t> byName;
  for (std::size_t i = 0; i < ts.size(); ++i)
    byName.emplace(ts[i].name, i);
  auto find = [&](const std::string& n) -> std::optional<std::size_t> {
    const auto it = byName.find(n);
    return it == byName.end() ? std::nullopt : std::optional<std::size_t>(it->second);
  };
  std::vector<ScalePairing> out;
  std::vector<bool> paired(ts.size(), false);
  auto rowsCols = [](const ModelTensor& t, std::uint64_t& r, std::uint64_t& c) {
    c = t.shape.empty() ? 1 : t.shape.back();
    r = c ? t.elements / c : 0;
  };
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const std::string& n = ts[i].name;
    if (endsWith(n, ".weight_scale_inv")) {
      ScalePairing p;
      p.scale = i;
      p.kind = ScaleKind::Block128;
      if (auto w = find(n.substr(0, n.size() - 10))) {
        p.tensor = *w;
        std::uint64_t r, c;
        rowsCols(ts[*w], r, c);
        const std::vector<std::uint64_t> want{(r + 127) / 128, (c + 127) / 128};
        if (ts[i].shape != want)
          p.note = "scale shape " + shapeText(ts[i].shape) + ", expected " + shapeText(want);
        paired[*w] = true;
      } else {
        p.tensor = i;
        p.kind = ScaleKind::Orphan;
        p.note = "a scale with no weight '" + n.substr(0, n.size() - 10) + "'";
      }
      paired[i] = true;
      out.push_back(p);
    } else if (endsWith(n, ".weight_scale")) {
      const std::string wn = n.substr(0, n.size() - 6);
      ScalePairing p;
      p.scale = i;
      paired[i] = true;
      if (auto g = find(n + "_2")) {
        p.globalScale = *g;
        paired[*g] = true;
      }
      if (auto w = find(wn)) {
        p.tensor = *w;
        paired[*w] = true;
        const ModelTensor& wt = ts[*w];
        // A packed F4/U8 NVFP4 weight holds two values per byte.
        const std::uint64_t values =
            (wt.dtype == "U8" || wt.dtype == "I8") && ts[i].dtype != "F32" ? wt.elements * 2 : wt.elements;
        std::uint64_t r, c;
        rowsCols(wt, r, c);
        // A scale per n values along each row: the weight's shape with its
        // last dimension (in values) divided by n, rounded up.
        auto alongRows = [&](std::uint64_t per) {
          std::vector<std::uint64_t> want = wt.shape.empty() ? std::vector<std::uint64_t>{1} : wt.shape;
          const std::uint64_t cols = values / std::max<std::uint64_t>(r, 1);
          want.back() = (cols + per - 1) / per;
          if (ts[i].shape != want)
            p.note = "scale '" + n + "' of shape " + shapeText(ts[i].shape) + " for '" + wn + "' of " +
                     shapeText(wt.shape) + ": expected " + shapeText(want);
        };
        if (ts[i].elements == 1)
          p.kind = ScaleKind::PerTensor;
        else if (ts[i].dtype == "F8_E8M0" && ts[i].elements * 32 >= values && ts[i].elements * 32 < values + 32 * r) {
          p.kind = ScaleKind::Mx32;
          alongRows(32);
        } else if (ts[i].dtype == "F8_E4M3" && ts[i].elements * 16 >= values &&
                   ts[i].elements * 16 < values + 16 * r) {
          p.kind = ScaleKind::Nvfp4;
          alongRows(16);
        } else if (ts[i].elements == r)
          p.kind = ScaleKind::PerRow;
        else {
          p.kind = ScaleKind::PerTensor;
          p.note = "scale '" + n + "' of " + std::to_string(ts[i].elements) + " values for '" + wn + "' of " +
                   shapeText(wt.shape) + ": layout not recognised";
        }
      } else {
        p.tensor = i;
        p.kind = ScaleKind::Orphan;
        p.note = "a scale with no weight '" + wn + "'";
      }
      out.push_back(p);
    } else if (endsWith(n, ".input_scale")) {
      ScalePairing p;
      p.tensor = i;
      p.scale = i;
      p.kind = ScaleKind::InputScale;
      paired[i] = true;
      // An activation scale belongs to a layer with a weight.
      const std::string wn = n.substr(0, n.size() - 11) + "weight";
      if (!find(wn)) {
        p.kind = ScaleKind::Orphan;
        p.note = "an input scale with no weight '" + wn + "'";
      }
      out.push_back(p);
    } else if (endsWith(n, "_scales") &&
               (find(n.substr(0, n.size() - 7) + "_blocks") || ts[i].dtype == "U8" || ts[i].dtype == "F8_E8M0")) {
      const std::string bn = n.substr(0, n.size() - 7) + "_blocks";
      ScalePairing p;
      p.scale = i;
      p.kind = ScaleKind::Mx32;
      paired[i] = true;
      if (auto b = find(bn)) {
        // [..., groups, 16] bytes of E2M1 pairs with [..., groups] E8M0 scales.
        const ModelTensor& bt = ts[*b];
        p.tensor = *b;
        paired[*b] = true;
        std::vector<std::uint64_t> want(bt.shape.begin(), bt.shape.end() - (bt.shape.empty() ? 0 : 1));
        if (bt.dtype != "U8" || bt.shape.size() < 2 || bt.shape.back() != 16)
          p.note = "'" + bn + "' (" + bt.dtype + " " + shapeText(bt.shape) +
                   ") is not U8 groups of 16 bytes [..., groups, 16]";
        else if (ts[i].shape != want)
          p.note = "scale '" + n + "' of shape " + shapeText(ts[i].shape) + " for '" + bn + "' of " +
                   shapeText(bt.shape) + ": expected " + shapeText(want);
      } else {
        p.tensor = i;
        p.kind = ScaleKind::Orphan;
        p.note = "a scale with no weight '" + bn + "'";
      }
      out.push_back(p);
    }
  }
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const std::string& n = ts[i].name;
    // Packed values, or a global scale, with nothing to pair them.
    const bool blocks = endsWith(n, "_blocks") && ts[i].dtype == "U8";
    if (!paired[i] && (blocks || endsWith(n, ".weight_scale_2"))) {
      ScalePairing p;
      p.tensor = i;
      p.kind = ScaleKind::Orphan;
      p.note = blocks ? "packed values with no scale tensor '" + n.substr(0, n.size() - 7) + "_scales'"
                      : "a global scale with no scale tensor '" + n.substr(0, n.size() - 2) + "'";
      paired[i] = true;
      out.push_back(p);
    }
  }
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const bool lowSafetensors = model.format() != ModelFormat::Gguf && ts[i].lowPrecision;
    if (lowSafetensors && !paired[i] && ts[i].elements > 1) {
      ScalePairing p;
      p.tensor = i;
      p.kind = ScaleKind::Orphan;
      p.note = ts[i].dtype + " values with no scale tensor";
      out.push_back(p);
    }
  }
  return out;
}

std::string reportJson(const ModelFile& model, const std::vector<TensorStats>& stats) {
  nlohmann::ordered_json j;
  j["file"] = model.path().string();
  j["format"] = std::string(modelFormatName(model.format()));
  j["bytes"] = model.fileBytes();
  auto& vs = j["verdicts"] = nlohmann::ordered_json::array();
  for (const FormatVerdict& v : verdicts(model, stats))
    vs.push_back({{"format", std::string(targetName(v.target))},
                  {"overflowing", v.overflowing},
                  {"underflowing", v.underflowing},
                  {"lowest_sqnr_db", v.lowestSqnrDb ? jnum(*v.lowestSqnrDb) : nullptr},
                  {"lowest_sqnr_tensor", v.lowestSqnrTensor},
                  {"text", v.text}});
  auto& sc = j["scales"] = nlohmann::ordered_json::array();
  for (const ScalePairing& p : pairScales(model)) {
    nlohmann::ordered_json row{{"tensor", model.tensors()[p.tensor].name},
                               {"kind", std::string(scaleKindName(p.kind))}};
    if (p.scale) row["scale"] = model.tensors()[*p.scale].name;
    if (p.globalScale) row["global_scale"] = model.tensors()[*p.globalScale].name;
    if (!p.note.empty()) row["note"] = p.note;
    sc.push_back(std::move(row));
  }
  auto& tj = j["tensors"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < model.tensors().size(); ++i) {
    const ModelTensor& t = model.tensors()[i];
    nlohmann::ordered_json row{{"name", t.name},     {"layer", layerOf(t.name)},
                               {"dtype", t.dtype},   {"shape", t.shape},
                               {"bytes", t.bytes},   {"decoded", t.decoded}};
    if (i < stats.size() && stats[i].scanned) {
      const TensorStats& s = stats[i];
      row["min"] = jnum(s.min);
      row["max"] = jnum(s.max);
      row["absmax"] = jnum(s.absmax);
      row["zeros"] = s.zeros;
      row["nan"] = s.nan;
      row["pos_inf"] = s.posInf;
      row["neg_inf"] = s.negInf;
      row["rms"] = jnum(s.rms());
      row["outlier_ratio"] = jnum(s.outlierRatio());
      auto& h = row["exponent_histogram"] = nlohmann::ordered_json::object();
      for (int e = telemetry::ExponentHistogram::kMinExponent; e <= telemetry::ExponentHistogram::kMaxExponent; ++e)
        if (s.hist.count(e))
          h[std::to_string(e)] = s.hist.count(e);
      auto& fj = row["formats"] = nlohmann::ordered_json::object();
      for (Target tg : kTargets) {
        const TargetStats& ts = s.at(tg);
        nlohmann::ordered_json f{{"overflow", ts.overflow},
                                 {"lost_to_zero", ts.lostToZero},
                                 {"subnormal", ts.subnormal},
                                 {"overflow_fraction", jnum(s.fraction(ts.overflow))},
                                 {"lost_to_zero_fraction", jnum(s.fraction(ts.lostToZero))},
                                 {"subnormal_fraction", jnum(s.fraction(ts.subnormal))},
                                 {"sqnr_db", jnum(ts.sqnrDb())}};
        if (targetIsBlock(tg)) {
          f["blocks"] = ts.blocks;
          f["clipped_blocks"] = ts.clippedBlocks;
          f["nonfinite_blocks"] = ts.poisonedBlocks;
        }
        fj[std::string(targetName(tg))] = std::move(f);
      }
    }
    tj.push_back(std::move(row));
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string reportCsv(const ModelFile& model, const std::vector<TensorStats>& stats) {
  std::ostringstream o;
  o << "name,layer,dtype,shape,bytes,min,max,absmax,zeros,nan,inf,rms,outlier_ratio";
  for (Target t : kTargets) {
    const std::string n(targetName(t));
    o << ',' << n << "_overflow," << n << "_lost_to_zero," << n << "_subnormal," << n << "_sqnr_db";
    if (targetIsBlock(t))
      o << ',' << n << "_clipped_blocks";
  }
  o << "\n";
  for (std::size_t i = 0; i < model.tensors().size(); ++i) {
    const ModelTensor& t = model.tensors()[i];
    o << csvField(t.name) << ',' << csvField(layerOf(t.name)) << ',' << t.dtype << ','
      << csvField(shapeText(t.shape)) << ',' << t.bytes;
    if (i >= stats.size() || !stats[i].scanned) {
      o << "\n";
      continue;
    }
    const TensorStats& s = stats[i];
    o << ',' << num(s.min) << ',' << num(s.max) << ',' << num(s.absmax) << ',' << s.zeros << ','
      << s.nan << ',' << (s.posInf + s.negInf) << ',' << num(s.rms()) << ',' << num(s.outlierRatio());
    for (Target tg : kTargets) {
      const TargetStats& ts = s.at(tg);
      o << ',' << ts.overflow << ',' << ts.lostToZero << ',' << ts.subnormal << ','
        << num(ts.sqnrDb(), "%.3f");
      if (targetIsBlock(tg))
        o << ',' << ts.clippedBlocks;
    }
    o << "\n";
  }
  return o.str();
}

std::string reportHtml(const ModelFile& model, const std::vector<TensorStats>& stats) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Model report: "
    << htmlEscape(model.path().filename().string()) << "</title>\n<style>"
       "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;font-size:13px}"
       "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td.n,th.n{text-align:left}"
       "tr.layer td{background:#eef;font-weight:bold;text-align:left}.bad{color:#b00}"
       "</style></head><body>\n";
  o << "<h1>" << htmlEscape(model.path().filename().string()) << "</h1>\n<p>"
    << htmlEscape(std::string(modelFormatName(model.format()))) << ", "
    << model.tensors().size() << " tensors, " << model.fileBytes() << " bytes</p>\n";
  o << "<h2>Verdicts</h2>\n<ul>\n";
  for (const FormatVerdict& v : verdicts(model, stats))
    o << "<li" << (v.overflowing.empty() ? "" : " class=\"bad\"") << ">" << htmlEscape(v.text) << "</li>\n";
  o << "</ul>\n";
  const auto pairs = pairScales(model);
  if (!pairs.empty()) {
    o << "<h2>Scales</h2>\n<table><tr><th class=n>tensor</th><th class=n>scale</th><th class=n>layout</th><th class=n>note</th></tr>\n";
    for (const ScalePairing& p : pairs)
      o << "<tr" << (p.kind == ScaleKind::Orphan ? " class=\"bad\"" : "") << "><td class=n>"
        << htmlEscape(model.tensors()[p.tensor].name) << "</td><td class=n>"
        << (p.scale ? htmlEscape(model.tensors()[*p.scale].name) : "") << "</td><td class=n>"
        << scaleKindName(p.kind) << "</td><td class=n>" << htmlEscape(p.note) << "</td></tr>\n";
    o << "</table>\n";
  }
  o << "<h2>Tensors</h2>\n<table><tr><th class=n>name</th><th class=n>dtype</th><th class=n>shape</th>"
       "<th>absmax</th><th>zeros</th><th>NaN/inf</th><th>absmax/RMS</th>";
  for (Target t : kTargets)
    o << "<th>" << targetDisplayName(t) << "<br>SQNR</th>";
  o << "</tr>\n";
  std::string layer = "\x01";
  for (std::size_t i = 0; i < model.tensors().size(); ++i) {
    const ModelTensor& t = model.tensors()[i];
    if (const std::string l = layerOf(t.name); l != layer) {
      layer = l;
      o << "<tr class=layer><td colspan=" << 7 + kTargetCount << ">" << htmlEscape(l.empty() ? "(other)" : l)
        << "</td></tr>\n";
    }
    o << "<tr><td class=n>" << htmlEscape(t.name) << "</td><td class=n>" << htmlEscape(t.dtype)
      << "</td><td class=n>" << shapeText(t.shape) << "</td>";
    if (i >= stats.size() || !stats[i].scanned) {
      o << "<td colspan=" << 4 + kTargetCount << " class=n>not decoded</td></tr>\n";
      continue;
    }
    const TensorStats& s = stats[i];
    o << "<td>" << num(s.absmax, "%.4g") << "</td><td>" << s.zeros << "</td><td>" << s.nonFinite()
      << "</td><td>" << num(s.outlierRatio(), "%.1f") << "</td>";
    for (Target tg : kTargets) {
      const TargetStats& ts = s.at(tg);
      const bool bad = targetIsBlock(tg) ? ts.poisonedBlocks > 0 : ts.overflow > 0;
      o << "<td" << (bad ? " class=\"bad\"" : "") << ">" << dB(ts.sqnrDb()) << "</td>";
    }
    o << "</tr>\n";
  }
  o << "</table>\n</body></html>\n";
  return o.str();
}

} // namespace mantissa::inspect
