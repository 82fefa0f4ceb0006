// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Run-configuration files (presets, saved runs): JSON text -> runConfigFromJson
// -> validate(). Bad JSON is nlohmann's parse error; a bad document must be a
// ConfigError naming the key (never a raw nlohmann type_error or out_of_range).
// A configuration that validates survives toJson -> fromJson unchanged.

#include <mantissa/train/run_config.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa::train;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded())
    return 0;
  try {
    const RunConfig config = runConfigFromJson(json);
    config.validate();
    const nlohmann::json again = toJson(config);
    if (toJson(runConfigFromJson(again)) != again)
      std::abort(); // the round trip lost something
  } catch (const ConfigError& e) {
    if (std::string_view(e.what()).empty())
      std::abort();
  }
  return 0;
}
