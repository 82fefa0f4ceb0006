// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// train --config FILE: a JSON object of a run configuration, or a run log
// (JSON Lines) whose first line is the header written by --log. A file that
// names a GPT (or a text) trains one, from a GPT's defaults.

#include <mantissa/train/run_config.h>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace mantissa::cli {

struct ConfigFile {
  std::string path;
  nlohmann::json fields;    // the configuration object as written (its keys say what it sets)
  train::RunConfig config;  // the same, over RunConfig's defaults
  bool sets(const char* key) const { return fields.contains(key); }
};

// Prints "mantissa-cli train: --config PATH: ..." and returns nullopt when the
// file holds neither a configuration nor a run log (quiet: prints nothing).
std::optional<ConfigFile> readConfigFile(const std::string& path, bool quiet = false);

// The preset holding a configuration's defaults (model_registry.h): its
// model's family's, or for text data (shakespeare, or a file that holds
// text) the text model's; "" for RunConfig's own.
std::string configDefaultsPreset(const train::RunConfig& config, bool setsModel, bool setsData);

// Whether a --data value names text: shakespeare, a file holding UTF-8 text
// (any suffix, any letter case), or a missing path ending in .txt.
bool namesText(const std::string& data);

} // namespace mantissa::cli
