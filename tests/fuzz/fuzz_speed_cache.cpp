// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The speed caches in the user's cache directory: isa_probe.json (the ISA
// probe's remembered result) and matmul_paths.json (auto's remembered
// choices). A bad probe document must be std::invalid_argument with a
// message; an accepted one survives probeToJson -> probeFromJson unchanged.
// A damaged choices file is ignored (never an exception, never a crash).

#include <mantissa/bench/isa_probe.h>
#include <mantissa/kernels/matmul_path.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  static const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                            ("mantissa-fuzz-choices-" + std::to_string(::getpid()));
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  try {
    mantissa::kernels::clearMatmulChoices();
    mantissa::kernels::setMatmulChoiceCache(file); // reads it; damage is ignored
    mantissa::kernels::setMatmulChoiceCache({});
  } catch (...) {
    std::abort(); // a cache file must never throw
  }

  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded())
    return 0;
  try {
    const auto probe = mantissa::bench::probeFromJson(json);
    const nlohmann::json again = mantissa::bench::probeToJson(probe);
    if (mantissa::bench::probeToJson(mantissa::bench::probeFromJson(again)) != again)
      std::abort(); // the round trip lost something
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).empty())
      std::abort();
  }
  return 0;
}
