// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// JSONL run logs as the GUI and `report` open them: train::loadRunLog on a
// temporary file holding the input. A bad log must be a RunLogError naming
// the file (never a raw nlohmann or std exception); an accepted log written
// back with runLogText() loads again to the same text. The header's
// "matmuls" (every product's path, as the GUI's op table reads them) read
// without throwing, and each entry read writes back to an entry that reads
// the same. A log compared with itself (mantissa-cli diff) differs nowhere.

#include <mantissa/train/run_diff.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/run_log_rows.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

namespace {

std::filesystem::path scratch(int which) {
  const std::filesystem::path dir =
      std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
  return dir / ("mantissa-fuzz-run-log-" + std::to_string(::getpid()) + "-" +
                std::to_string(which) + ".jsonl");
}

void writeFile(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa::train;
  const std::filesystem::path first = scratch(0);
  writeFile(first, std::string_view(reinterpret_cast<const char*>(data), size));
  try {
    const RunLog log = loadRunLog(first);
    const std::string text = runLogText(log);
    const std::filesystem::path second = scratch(1);
    writeFile(second, text);
    if (runLogText(loadRunLog(second)) != text)
      std::abort(); // written back, the log reads differently
    if (diffRuns(log, log).differ())
      std::abort(); // a log differs from itself
    if (log.header.is_object() && log.header.contains("matmuls"))
      for (const auto& use : matmulUsesFromJson(log.header["matmuls"])) {
        const auto again = matmulUseFromJson(matmulUseJson(use));
        if (!again || matmulUseJson(*again) != matmulUseJson(use))
          std::abort(); // an entry read back differs
      }
  } catch (const RunLogError& e) {
    if (std::string_view(e.what()).find(first.filename().string()) == std::string_view::npos)
      std::abort(); // the message must name the file
  }
  return 0;
}
