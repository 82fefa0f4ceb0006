// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The IDX loader on hostile bytes: data::loadIdxBytes (the in-memory form of
// loadIdx, after gunzip). Input layout: byte 0 picks the class count (1..256),
// bytes 1-2 (big-endian) the length of the images file, the rest is images
// then labels. Either DataError with a message, or a consistent data set.

#include "fuzz_util.h"

#include <mantissa/data/idx_loader.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa::data;
  if (size < 3)
    return 0;
  const int classes = data[0] + 1;
  const std::size_t imagesLength = std::min<std::size_t>((std::size_t{data[1]} << 8) | data[2],
                                                         size - 3);
  const std::span<const std::uint8_t> rest(data + 3, size - 3);
  try {
    const Dataset set = loadIdxBytes(rest.first(imagesLength), "fuzz-images.idx3",
                                     rest.subspan(imagesLength), "fuzz-labels.idx1", classes);
    mantissa::fuzz::checkDataset(set);
    if (set.imageWidth == 0)
      std::abort(); // IDX samples are images
  } catch (const DataError& e) {
    if (std::string_view(e.what()).empty())
      std::abort();
  }
  return 0;
}
