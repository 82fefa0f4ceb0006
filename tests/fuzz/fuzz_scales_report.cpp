// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// What `mantissa-cli scales` and `report` (and the GUI's Open Run) take from
// a run log after train::loadRunLog has accepted it: the header's and the
// summary's fields the readers use have the types they read them as (so no
// later get<bool>() can throw), loss scales and accuracies lie in their
// ranges, and every scaled tensor's name, written as a CSV field, reads back
// as exactly one field equal to the name (no name forges a row). A refused
// log is a RunLogError naming the file, never nlohmann's exception text.

#include <mantissa/telemetry/csv_writer.h>
#include <mantissa/train/run_log.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include <unistd.h>

namespace {

using nlohmann::json;

// One RFC 4180 field at the start of `text`; nullopt when it is malformed.
// `rest` gets what follows the field.
std::optional<std::string> readCsvField(std::string_view text, std::string_view& rest) {
  std::string field;
  if (!text.empty() && text[0] == '"') {
    std::size_t i = 1;
    for (;; ++i) {
      if (i >= text.size())
        return std::nullopt;
      if (text[i] == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
          continue;
        }
        break;
      }
      field += text[i];
    }
    rest = text.substr(i + 1);
    return field;
  }
  const std::size_t end = text.find_first_of(",\r\n\"");
  if (end != std::string_view::npos && text[end] == '"')
    return std::nullopt; // a quote inside an unquoted field
  field = std::string(text.substr(0, end));
  rest = end == std::string_view::npos ? std::string_view() : text.substr(end);
  return field;
}

void checkType(const json& object, const char* key, bool (json::*is)() const noexcept) {
  if (object.is_object())
    if (const auto it = object.find(key); it != object.end() && !((*it).*is)())
      std::abort(); // a field the readers read typed passed with another type
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa;
  const std::filesystem::path dir =
      std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
  const std::filesystem::path file =
      dir / ("mantissa-fuzz-scales-report-" + std::to_string(::getpid()) + ".jsonl");
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const train::RunLog log = train::loadRunLog(file);
    for (const char* key : {"matmul_emulated", "conv_emulated"})
      checkType(log.header, key, &json::is_boolean);
    for (const char* key : {"machine", "config"})
      checkType(log.header, key, &json::is_object);
    for (const char* key : {"stopped_early", "diverged"})
      checkType(log.summary, key, &json::is_boolean);
    for (const char* key : {"steps", "skipped_steps"})
      checkType(log.summary, key, &json::is_number_integer);
    checkType(log.summary, "divergence", &json::is_object);
    (void)log.name();
    for (const auto& row : log.steps) {
      if (!(row.lossScale >= train::kMinLoggedLossScale &&
            row.lossScale <= train::kMaxLoggedLossScale) &&
          row.lossScale != 0.0 && !std::isnan(row.lossScale))
        std::abort();
      if (row.trainAccuracy < 0.0 || row.trainAccuracy > 1.0)
        std::abort();
    }
    for (const auto& e : log.evals)
      if (e.testAccuracy < 0.0 || e.testAccuracy > 1.0)
        std::abort();
    for (const auto& frame : log.scaling)
      for (const auto& t : frame.tensors) {
        const std::string line = telemetry::formatCsvField(t.name) + ",next";
        std::string_view rest;
        const auto field = readCsvField(line, rest);
        if (!field || *field != t.name || rest != ",next")
          std::abort(); // the name split or forged a row
      }
  } catch (const train::RunLogError& e) {
    const std::string_view what = e.what();
    // names the file; nlohmann's text only where the message quotes input
    // that holds it
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    if (what.find(file.filename().string()) == std::string_view::npos ||
        (what.find("json.exception") != std::string_view::npos &&
         input.find("json.exception") == std::string_view::npos))
      std::abort();
  }
  std::filesystem::remove(file);
  return 0;
}
