// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The text of a configuration file (mantissa-cli train --config): a JSON
// object of a RunConfig (run_config.h), or a run log whose first line is the
// header `train --log` writes, its "config" object being the configuration.
// Parsed as all outside JSON is (io/json_text.h: depth limit, no key twice),
// so a problem is a ConfigError naming the line and the field, never
// nlohmann's exception text:
//   line 3, column 12: number out of range "1e999"
//   duplicate key "steps"
//   line 1: JSON nested 200002 levels deep, over the limit of 64
//   "header" must be true (a run log's header line), got 1
//   lr: expected a number

#include <mantissa/train/run_config.h>

#include <nlohmann/json.hpp>

#include <string_view>

namespace mantissa::train {

// A configuration file's fields as written (their keys say what the file
// sets) and the configuration they give over RunConfig's defaults.
struct ConfigText {
  nlohmann::json fields;
  RunConfig config;
};

ConfigText configFromText(std::string_view text);
RunConfig runConfigFromText(std::string_view text);

} // namespace mantissa::train
