// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/telemetry/frame.h>
#include <mantissa/telemetry/scaling.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <string>

namespace mantissa::telemetry {
namespace {

using nlohmann::json;

constexpr std::int64_t kMaxStep = std::int64_t{1} << 62;
constexpr std::size_t kMaxName = 128;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw TelemetryJsonError("scaling." + where + ": " + what);
}

const json& field(const json& obj, const char* key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end())
    fail(where, std::string("missing \"") + key + "\"");
  return *it;
}

json number(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

double numberOrNull(const json& obj, const char* key, const std::string& where) {
  const json& j = field(obj, key, where);
  if (j.is_null())
    return std::numeric_limits<double>::quiet_NaN();
  if (!j.is_number())
    fail(where + "." + key, "must be a number or null, got " + j.dump());
  return j.get<double>();
}

double fraction(const json& obj, const char* key, const std::string& where) {
  const json& j = field(obj, key, where);
  if (!j.is_number() || !(j.get<double>() >= 0.0 && j.get<double>() <= 1.0))
    fail(where + "." + key, "must be a number in [0, 1], got " + j.dump());
  return j.get<double>();
}

std::int64_t count(const json& obj, const char* key, const std::string& where,
                   std::int64_t max = std::numeric_limits<std::int64_t>::max()) {
  const json& j = field(obj, key, where);
  if (!j.is_number_integer() || (j.is_number_unsigned() && j.get<std::uint64_t>() >
                                                               static_cast<std::uint64_t>(max)) ||
      j.get<std::int64_t>() < 0 || j.get<std::int64_t>() > max)
    fail(where + "." + key,
         "must be a whole number from 0 to " + std::to_string(max) + ", got " + j.dump());
  return j.get<std::int64_t>();
}

std::string text(const json& obj, const char* key, const std::string& where) {
  const json& j = field(obj, key, where);
  if (!j.is_string() || j.get_ref<const std::string&>().empty() ||
      j.get_ref<const std::string&>().size() > kMaxName)
    fail(where + "." + key,
         "must be a non-empty string of at most " + std::to_string(kMaxName) + " bytes");
  return j.get<std::string>();
}

} // namespace

std::string_view scaledRoleKey(ScaledRole role) {
  switch (role) {
  case ScaledRole::Input:
    return "x";
  case ScaledRole::Weight:
    return "w";
  case ScaledRole::GradOutput:
    return "dy";
  }
  return "?";
}

std::optional<ScaledRole> parseScaledRole(std::string_view key) {
  for (const ScaledRole r : {ScaledRole::Input, ScaledRole::Weight, ScaledRole::GradOutput})
    if (scaledRoleKey(r) == key)
      return r;
  return std::nullopt;
}

const ScaledTensorStats* ScalingFrame::find(std::string_view name) const {
  for (const auto& t : tensors)
    if (t.name == name)
      return &t;
  return nullptr;
}

json toJson(const ScalingFrame& frame) {
  json tensors = json::array();
  for (const auto& t : frame.tensors)
    tensors.push_back({{"name", t.name},
                       {"role", scaledRoleKey(t.role)},
                       {"format", t.format},
                       {"scale", number(t.scale)},
                       {"scale_min", number(t.scaleMin)},
                       {"scale_max", number(t.scaleMax)},
                       {"amax", number(t.amax)},
                       {"amax_history", number(t.amaxHistory)},
                       {"history", t.history},
                       {"count", t.count},
                       {"saturated", t.fractionSaturated},
                       {"lost_to_zero", t.fractionLostToZero},
                       {"subnormal", t.fractionSubnormal},
                       {"sqnr_db", number(t.sqnrDb)},
                       {"blocks", t.blocks},
                       {"blocks_clipped", t.blocksClipped}});
  return {{"step", frame.step}, {"tensors", std::move(tensors)}};
}

ScalingFrame scalingFromJson(const json& j) {
  if (!j.is_object())
    fail("frame", "must be an object");
  ScalingFrame frame;
  frame.step = count(j, "step", "step", kMaxStep);
  const json& tensors = field(j, "tensors", "tensors");
  if (!tensors.is_array())
    fail("tensors", "must be an array");
  if (tensors.size() > kMaxScaledTensors)
    fail("tensors", std::to_string(tensors.size()) + " entries, more than the limit of " +
                        std::to_string(kMaxScaledTensors));
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const std::string where = "tensors[" + std::to_string(i) + "]";
    const json& o = tensors[i];
    if (!o.is_object())
      fail(where, "must be an object");
    ScaledTensorStats t;
    t.name = text(o, "name", where);
    const std::string role = text(o, "role", where);
    const auto r = parseScaledRole(role);
    if (!r)
      fail(where + ".role", "must be \"x\", \"w\" or \"dy\", got \"" + role + "\"");
    t.role = *r;
    t.format = text(o, "format", where);
    t.scale = numberOrNull(o, "scale", where);
    t.scaleMin = numberOrNull(o, "scale_min", where);
    t.scaleMax = numberOrNull(o, "scale_max", where);
    t.amax = numberOrNull(o, "amax", where);
    t.amaxHistory = numberOrNull(o, "amax_history", where);
    t.history = count(o, "history", where);
    t.count = count(o, "count", where);
    t.fractionSaturated = fraction(o, "saturated", where);
    t.fractionLostToZero = fraction(o, "lost_to_zero", where);
    t.fractionSubnormal = fraction(o, "subnormal", where);
    t.sqnrDb = numberOrNull(o, "sqnr_db", where);
    t.blocks = count(o, "blocks", where);
    t.blocksClipped = count(o, "blocks_clipped", where, t.blocks);
    frame.tensors.push_back(std::move(t));
  }
  return frame;
}

} // namespace mantissa::telemetry
