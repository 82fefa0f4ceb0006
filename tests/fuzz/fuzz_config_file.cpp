// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// A --config file's text (train::runConfigFromText: a RunConfig object, or a
// run log whose header holds one), parsed by io::parseJsonText. Every refusal
// is a ConfigError with a message in the program's words, never nlohmann's
// text ("[json.exception..."); nesting past the limit or a key given twice
// is refused. An accepted configuration survives toJson -> fromJson.

#include <mantissa/io/json_text.h>
#include <mantissa/train/run_config.h>
#include <mantissa/train/run_config_file.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa::train;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const RunConfig config = runConfigFromText(text);
    if (mantissa::io::jsonNestingDepth(text.substr(0, text.find('\n'))) >
            mantissa::io::kMaxJsonDepth &&
        mantissa::io::jsonNestingDepth(text) > mantissa::io::kMaxJsonDepth)
      std::abort(); // accepted past the depth limit
    const nlohmann::json again = toJson(config);
    if (toJson(runConfigFromJson(again)) != again)
      std::abort(); // the round trip lost something
  } catch (const ConfigError& e) {
    const std::string_view what = e.what();
    // nlohmann's text, unless the message only quotes input that holds it
    if (what.empty() || (what.find("json.exception") != std::string_view::npos &&
                         text.find("json.exception") == std::string_view::npos))
      std::abort();
  }
  return 0;
}
