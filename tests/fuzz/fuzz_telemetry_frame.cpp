// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Telemetry frames as the GUI reads them back from a saved run's JSONL log:
// JSON text -> telemetry::fromJson. A bad frame must be a TelemetryJsonError
// naming the field (never a raw nlohmann exception); an accepted frame
// survives toJson -> fromJson -> toJson unchanged.

#include <mantissa/telemetry/frame.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa::telemetry;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded())
    return 0;
  try {
    const nlohmann::json once = toJson(fromJson(json));
    if (toJson(fromJson(once)) != once)
      std::abort(); // the round trip changed the frame
  } catch (const TelemetryJsonError& e) {
    if (std::string_view(e.what()).empty())
      std::abort();
  }
  return 0;
}
