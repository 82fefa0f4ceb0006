// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/telemetry/frame.h>
#include <mantissa/numeric/format_spec.h>
#include <mantissa/telemetry/tensor_scan.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <string>

namespace mantissa::telemetry {
namespace {

using nlohmann::json;

constexpr std::int64_t kMaxFrameStep = std::int64_t{1} << 62;
constexpr std::int64_t kMaxFrameLayer = 4096;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw TelemetryJsonError("telemetry frame: " + where + ": " + what);
}

const json& field(const json& obj, const char* key, const std::string& where) {
  if (!obj.is_object())
    fail(where, "expected an object");
  const auto it = obj.find(key);
  if (it == obj.end())
    fail(where, std::string("missing \"") + key + "\"");
  return *it;
}

std::uint64_t readCount(const json& j, const std::string& where) {
  if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<std::int64_t>() >= 0))
    fail(where, "expected a non-negative integer, got " + j.dump());
  return j.get<std::uint64_t>();
}

double readNumberOrNull(const json& j, const std::string& where) {
  if (j.is_null())
    return std::numeric_limits<double>::quiet_NaN();
  if (!j.is_number())
    fail(where, "expected a number or null, got " + j.dump());
  return j.get<double>();
}

json castToJson(const CastFractions& f) {
  return json::array({f.toZero, f.toSubnormal, f.overflow, f.nonzeroLostToZero});
}

CastFractions castFromJson(const json& j, const std::string& where) {
  if (!j.is_array() || j.size() != 4)
    fail(where, "expected [to_zero, to_subnormal, overflow, nonzero_lost_to_zero]");
  CastFractions f;
  double* out[4] = {&f.toZero, &f.toSubnormal, &f.overflow, &f.nonzeroLostToZero};
  for (std::size_t i = 0; i < 4; ++i) {
    if (!j[i].is_number() || j[i].get<double>() < 0.0 || j[i].get<double>() > 1.0)
      fail(where + "[" + std::to_string(i) + "]",
           "expected a fraction in [0, 1], got " + j[i].dump());
    *out[i] = j[i].get<double>();
  }
  return f;
}

json tensorToJson(const TensorTelemetry& t, const std::vector<std::string>& formats) {
  const ExponentHistogram& h = t.hist;
  json j = {{"layer", t.layer},
            {"class", tensorClassName(t.cls)},
            {"scaled", t.scaled},
            {"loss_scale", t.lossScale}};
  const auto lo = h.lowestExponent();
  json counts = json::array();
  if (lo) {
    for (int e = *lo; e <= *h.highestExponent(); ++e)
      counts.push_back(h.count(e));
  }
  j["lo"] = lo ? json(*lo) : json(nullptr);
  j["counts"] = std::move(counts);
  j["zeros"] = h.zeros;
  j["pos_inf"] = h.posInf;
  j["neg_inf"] = h.negInf;
  j["nan"] = h.nan;
  j["total"] = h.total;
  json cast = json::object();
  for (std::size_t k = 0; k < kCastTargetCount; ++k)
    cast[std::string(castTargetName(kCastTargets[k]))] = castToJson(t.fractions[k]);
  for (std::size_t k = 0; k < formats.size() && k < t.formatFractions.size(); ++k)
    cast[formats[k]] = castToJson(t.formatFractions[k]);
  j["cast"] = std::move(cast);
  if (t.bits)
    j["bits"] = *t.bits;
  return j;
}

TensorTelemetry tensorFromJson(const json& j, const std::string& where,
                               const std::vector<std::string>& formats) {
  TensorTelemetry t;
  const json& layer = field(j, "layer", where);
  if (!layer.is_number_integer() || layer.get<std::int64_t>() < 0 ||
      layer.get<std::int64_t>() > kMaxFrameLayer)
    fail(where + ".layer", "expected a layer index in [0, 4096], got " + layer.dump());
  t.layer = layer.get<int>();
  const json& cls = field(j, "class", where);
  const auto parsed = cls.is_string() ? parseTensorClass(cls.get<std::string>()) : std::nullopt;
  if (!parsed)
    fail(where + ".class", "unknown tensor class " + cls.dump() +
                               " (weights, activations, activation_grads, weight_grads, updates)");
  t.cls = *parsed;
  const json& scaled = field(j, "scaled", where);
  if (!scaled.is_boolean())
    fail(where + ".scaled", "expected true or false, got " + scaled.dump());
  t.scaled = scaled.get<bool>();
  t.lossScale = readNumberOrNull(field(j, "loss_scale", where), where + ".loss_scale");
  if (!(t.lossScale > 0.0))
    fail(where + ".loss_scale", "expected a positive number");

  ExponentHistogram& h = t.hist;
  const json& lo = field(j, "lo", where);
  const json& counts = field(j, "counts", where);
  if (!counts.is_array())
    fail(where + ".counts", "expected an array of counts");
  constexpr std::int64_t kBins =
      ExponentHistogram::kMaxExponent - ExponentHistogram::kMinExponent + 1;
  if (counts.size() > static_cast<std::size_t>(kBins))
    fail(where + ".counts", std::to_string(counts.size()) + " bins, more than the " +
                                std::to_string(kBins) + " FP32 binades [-149, 127]");
  // lo is range-checked on its own before any arithmetic, so first + size
  // cannot overflow (an unsigned lo above INT64_MAX is not an int64 either).
  if (!lo.is_null() &&
      (!lo.is_number_integer() || (lo.is_number_unsigned() && lo.get<std::uint64_t>() > 1000) ||
       lo.get<std::int64_t>() < ExponentHistogram::kMinExponent ||
       lo.get<std::int64_t>() > ExponentHistogram::kMaxExponent))
    fail(where + ".lo", "expected null or the lowest binade's exponent in [-149, 127], got " +
                            lo.dump());
  if (!counts.empty()) {
    if (lo.is_null())
      fail(where + ".lo", "expected the lowest binade's exponent, got null");
    const std::int64_t first = lo.get<std::int64_t>();
    const std::int64_t last = first + static_cast<std::int64_t>(counts.size()) - 1;
    if (last > ExponentHistogram::kMaxExponent)
      fail(where + ".counts", std::to_string(counts.size()) + " bins starting at " +
                                  std::to_string(first) + " leave the FP32 binades [-149, 127]");
    for (std::size_t i = 0; i < counts.size(); ++i)
      h.bins.at(static_cast<std::size_t>(
          ExponentHistogram::index(static_cast<int>(first) + static_cast<int>(i)))) =
          readCount(counts[i], where + ".counts[" + std::to_string(i) + "]");
  }
  h.zeros = readCount(field(j, "zeros", where), where + ".zeros");
  h.posInf = readCount(field(j, "pos_inf", where), where + ".pos_inf");
  h.negInf = readCount(field(j, "neg_inf", where), where + ".neg_inf");
  h.nan = readCount(field(j, "nan", where), where + ".nan");
  h.total = readCount(field(j, "total", where), where + ".total");
  // Summed with an overflow check: counts of 2^63, 2^63 and 5 must not pass as 5.
  std::uint64_t sum = 0;
  bool wrapped = false;
  const auto add = [&](std::uint64_t v) { wrapped |= __builtin_add_overflow(sum, v, &sum); };
  for (const std::uint64_t c : h.bins)
    add(c);
  for (const std::uint64_t c : {h.zeros, h.posInf, h.negInf, h.nan})
    add(c);
  if (wrapped)
    fail(where + ".total", "the bins and special counters add up to more than 2^64 - 1");
  if (sum != h.total)
    fail(where + ".total", "is " + std::to_string(h.total) +
                               " but the bins and special counters add up to " +
                               std::to_string(sum));

  const json& cast = field(j, "cast", where);
  for (std::size_t k = 0; k < kCastTargetCount; ++k) {
    const std::string name(castTargetName(kCastTargets[k]));
    t.fractions[k] =
        castFromJson(field(cast, name.c_str(), where + ".cast"), where + ".cast." + name);
  }
  for (const std::string& name : formats)
    t.formatFractions.push_back(
        castFromJson(field(cast, name.c_str(), where + ".cast"), where + ".cast." + name));
  if (const auto it = j.find("bits"); it != j.end())
    t.bits = readCount(*it, where + ".bits");
  return t;
}

} // namespace

const TensorTelemetry* TelemetryFrame::find(int layer, TensorClass cls, bool scaled) const {
  for (const auto& t : tensors) {
    if (t.layer == layer && t.cls == cls && t.scaled == scaled)
      return &t;
  }
  return nullptr;
}

json toJson(const TelemetryFrame& frame) {
  json tensors = json::array();
  for (const auto& t : frame.tensors)
    tensors.push_back(tensorToJson(t, frame.castFormats));
  json swamped = json::array();
  for (double s : frame.swamped)
    swamped.push_back(std::isnan(s) ? json(nullptr) : json(s));
  json out = {{"step", frame.step},
              {"telemetry_ms", frame.telemetryMs},
              {"tensors", std::move(tensors)},
              {"swamped", std::move(swamped)}};
  if (!frame.castFormats.empty())
    out["cast_formats"] = frame.castFormats;
  return out;
}

TelemetryFrame fromJson(const json& j) {
  TelemetryFrame frame;
  const json& step = field(j, "step", "frame");
  if (!step.is_number_integer())
    fail("step", "expected an integer, got " + step.dump());
  if ((step.is_number_unsigned() && step.get<std::uint64_t>() > std::uint64_t(kMaxFrameStep)) ||
      step.get<std::int64_t>() < 0 || step.get<std::int64_t>() > kMaxFrameStep)
    fail("step", "expected a step index in [0, 2^62], got " + step.dump());
  frame.step = step.get<std::int64_t>();
  if (const auto it = j.find("telemetry_ms"); it != j.end())
    frame.telemetryMs = readNumberOrNull(*it, "telemetry_ms");
  if (const auto it = j.find("cast_formats"); it != j.end()) {
    if (!it->is_array() || it->size() > kMaxCastFormats)
      fail("cast_formats", "expected an array of at most " + std::to_string(kMaxCastFormats) +
                               " format names");
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& name = (*it)[i];
      if (!name.is_string() || name.get<std::string>().empty() ||
          name.get<std::string>().size() > numeric::kMaxSpecLength)
        fail("cast_formats[" + std::to_string(i) + "]", "expected a format name, got " +
                                                            name.dump().substr(0, 80));
      for (const CastTarget t : kCastTargets)
        if (name.get<std::string>() == castTargetName(t))
          fail("cast_formats[" + std::to_string(i) + "]",
               name.dump() + " is one of the four built-in targets");
      frame.castFormats.push_back(name.get<std::string>());
    }
  }
  const json& tensors = field(j, "tensors", "frame");
  if (!tensors.is_array())
    fail("tensors", "expected an array");
  for (std::size_t i = 0; i < tensors.size(); ++i)
    frame.tensors.push_back(
        tensorFromJson(tensors[i], "tensors[" + std::to_string(i) + "]", frame.castFormats));
  const json& swamped = field(j, "swamped", "frame");
  if (!swamped.is_array())
    fail("swamped", "expected an array of fractions (null where a layer was not observed)");
  for (std::size_t i = 0; i < swamped.size(); ++i)
    frame.swamped.push_back(readNumberOrNull(swamped[i], "swamped[" + std::to_string(i) + "]"));
  return frame;
}

} // namespace mantissa::telemetry
