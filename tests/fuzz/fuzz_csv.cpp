// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The CSV loader on hostile text: data::parseCsv (the in-memory form of
// loadCsv). Either DataError with a message, or a data set whose shape is
// consistent: x holds rows x features values, one label per row, each label
// below the class count, every feature finite.

#include "fuzz_util.h"

#include <mantissa/data/csv_loader.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa::data;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const Dataset set = parseCsv(text, "fuzz.csv");
    mantissa::fuzz::checkDataset(set);
  } catch (const DataError& e) {
    if (std::string_view(e.what()).empty())
      std::abort();
  }
  return 0;
}
