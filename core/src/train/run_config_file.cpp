// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/run_config_file.h>

#include <mantissa/io/json_fields.h>
#include <mantissa/io/json_text.h>

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

namespace mantissa::train {

ConfigText configFromText(std::string_view text) {
  nlohmann::json j;
  std::string where; // "line 1: " when the configuration is a run log's header
  try {
    j = io::parseJsonText(text);
  } catch (const io::JsonTextError& whole) {
    if (whole.kind() != io::JsonTextError::Kind::Syntax)
      throw ConfigError(whole.what());
    // Not one JSON value: perhaps a run log, whose first line is the header.
    try {
      j = io::parseJsonText(text.substr(0, text.find('\n')));
      where = "line 1: ";
    } catch (const io::JsonTextError& first) {
      if (first.kind() != io::JsonTextError::Kind::Syntax)
        throw ConfigError("line 1: " + first.detail());
      throw ConfigError(std::string("not a JSON configuration or a run log (") + whole.what() +
                        ")");
    }
  }
  if (j.is_object() && j.contains("header")) {
    if (j["header"] != true)
      throw ConfigError(where + "\"header\" must be true (a run log's header line), got " +
                        io::shownValue(j["header"]));
    if (!j.contains("config") || !j["config"].is_object())
      throw ConfigError(where + "this run log's header holds no \"config\" object");
    j = nlohmann::json(std::move(j["config"]));
  } else if (j.is_object() && (j.contains("step") || j.contains("eval") || j.contains("summary"))) {
    throw ConfigError("a run log must start with its header line (written by train --log)");
  }
  if (!j.is_object())
    throw ConfigError(where + "not a run configuration (a JSON object such as "
                              "{\"recipe\": \"bf16-mixed\"}, or a log of train --log)");
  try {
    RunConfig config = runConfigFromJson(j);
    return {std::move(j), std::move(config)};
  } catch (const ConfigError& e) {
    throw ConfigError(where + e.what());
  }
}

RunConfig runConfigFromText(std::string_view text) { return configFromText(text).config; }

} // namespace mantissa::train
