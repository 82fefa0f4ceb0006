// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// A run log read as it grows (File > Follow Run): train::RunLogStream fed
// the input in pieces whose sizes come from the input's first byte. Pieces
// or whole, the outcome is the same (the same records, or the same error,
// which names the file); a stream that failed stays failed; and when the
// input ends with a newline, what the stream read equals what loadRunLog()
// reads from the same bytes in a file.

#include <mantissa/train/run_log.h>
#include <mantissa/train/run_log_stream.h>

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

using namespace mantissa::train;

struct Outcome {
  std::string text;  // runLogText of what was read
  std::string error; // "" when every complete line was a record
};

Outcome feedAll(std::string_view bytes, std::size_t piece) {
  RunLogStream stream("run.jsonl");
  Outcome out;
  for (std::size_t at = 0; at < bytes.size(); at += piece) {
    try {
      stream.feed(bytes.substr(at, piece));
    } catch (const RunLogError& e) {
      out.error = e.what();
      if (out.error.rfind("run.jsonl:", 0) != 0)
        std::abort(); // the message must name the file and line
      try {
        stream.feed("\n");
        std::abort(); // a failed stream must stay failed
      } catch (const RunLogError& again) {
        if (out.error != again.what())
          std::abort();
      }
      break;
    }
  }
  out.text = runLogText(stream.log());
  return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0)
    return 0;
  const std::size_t piece = 1 + data[0] % 17;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Outcome whole = feedAll(bytes, bytes.size() + 1);
  const Outcome pieces = feedAll(bytes, piece);
  if (whole.text != pieces.text || whole.error != pieces.error)
    std::abort(); // cutting the bytes differently changed what was read
  if (whole.error.empty() && !bytes.empty() && bytes.back() == '\n') {
    const std::filesystem::path dir =
        std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
    const std::filesystem::path file =
        dir / ("mantissa-fuzz-run-log-stream-" + std::to_string(::getpid()) + ".jsonl");
    {
      std::ofstream out(file, std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    std::optional<std::string> loaded;
    try {
      loaded = runLogText(loadRunLog(file));
    } catch (const RunLogError&) {
      // loadRunLog rejects a file with no record at all; the stream just waits.
    }
    std::filesystem::remove(file);
    if (loaded && *loaded != whole.text)
      std::abort(); // followed and opened, the same log reads differently
  }
  return 0;
}
