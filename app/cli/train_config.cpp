// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "train_config.h"

#include "args.h"

#include <mantissa/data/file_kind.h>
#include <mantissa/data/text.h>
#include <mantissa/model/gpt.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace mantissa::cli {

std::optional<ConfigFile> readConfigFile(const std::string& path, bool quiet) {
  std::ostringstream sink;
  std::ostream& err = quiet ? static_cast<std::ostream&>(sink) : std::cerr;
  std::ifstream in(path);
  if (!in) {
    err << "mantissa-cli train: --config: cannot open '" << path << "': " << std::strerror(errno)
        << "\n";
    return std::nullopt;
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // Not one JSON value: perhaps a run log, whose first line is the header.
    const std::string first = text.substr(0, text.find('\n'));
    try {
      j = nlohmann::json::parse(first);
    } catch (const nlohmann::json::parse_error&) {
      err << "mantissa-cli train: --config " << path
          << ": not a JSON configuration or a run log (JSON syntax error at byte " << e.byte
          << ")\n";
      return std::nullopt;
    }
  }
  if (j.is_object() && j.value("header", false)) {
    if (!j.contains("config") || !j["config"].is_object()) {
      err << "mantissa-cli train: --config " << path
          << ": this run log's header holds no \"config\" object\n";
      return std::nullopt;
    }
    j = j["config"];
  } else if (j.is_object() && (j.contains("step") || j.contains("eval") || j.contains("summary"))) {
    err << "mantissa-cli train: --config " << path
        << ": a run log must start with its header line (written by train --log)\n";
    return std::nullopt;
  }
  try {
    ConfigFile file{path, j, train::runConfigFromJson(j)};
    return file;
  } catch (const nlohmann::json::exception&) {
    err << "mantissa-cli train: --config " << path
        << ": not a run configuration (a JSON object such as {\"recipe\": \"bf16-mixed\"}, "
           "or a log of train --log)\n";
  } catch (const train::ConfigError& e) {
    err << "mantissa-cli train: --config " << path << ": " << e.what() << "\n";
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

bool configWantsGpt(const train::RunConfig& config, bool setsModel, bool setsData) {
  return (setsModel && model::isGptSpec(config.model)) || (setsData && namesText(config.data));
}

} // namespace mantissa::cli
