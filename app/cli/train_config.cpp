// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "train_config.h"

#include "args.h"

#include <mantissa/data/file_kind.h>
#include <mantissa/data/text.h>
#include <mantissa/io/regular_file.h>
#include <mantissa/model/model_registry.h>
#include <mantissa/train/run_config_file.h>
#include <mantissa/train/run_log.h>

#include <filesystem>
#include <iostream>
#include <sstream>
#include <utility>

namespace mantissa::cli {

std::optional<ConfigFile> readConfigFile(const std::string& path, bool quiet) {
  std::ostringstream sink;
  std::ostream& err = quiet ? static_cast<std::ostream&>(sink) : std::cerr;
  try {
    // Read as every outside file is: a regular file within the run log's
    // size limit, parsed with the depth limit and no key twice.
    auto text = train::configFromText(
        io::readRegularFile(path, train::kMaxRunLogBytes, "configuration"));
    return ConfigFile{path, std::move(text.fields), std::move(text.config)};
  } catch (const io::FileReadError& e) {
    err << "mantissa-cli train: --config: " << e.what() << "\n";
  } catch (const train::ConfigError& e) {
    err << "mantissa-cli train: --config " << quoteInput(path, 200) << ": " << e.what() << "\n";
  }
  return std::nullopt;
}

bool namesText(const std::string& data) {
  if (data::isBuiltinText(data))
    return true;
  switch (data::dataFileKind(data)) {
  case data::DataFileKind::Text:
    return true;
  case data::DataFileKind::Missing:
    return lowerCase(std::filesystem::path(data).extension().string()) == ".txt";
  default:
    return false;
  }
}

std::string configDefaultsPreset(const train::RunConfig& config, bool setsModel, bool setsData) {
  if (setsModel)
    return model::modelKind(config.model).defaultsPreset;
  return setsData && namesText(config.data) ? model::textModelKind().defaultsPreset : "";
}

} // namespace mantissa::cli
