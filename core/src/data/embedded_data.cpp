// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "data/embedded_data.h"

#include <array>

// Start/end symbols defined in the generated embedded_data.S: one pair per file,
// named mantissa_data_<file name as a C identifier>_{start,end}. The list below
// must match MANTISSA_EMBEDDED_DATA in core/src/data/CMakeLists.txt.
#define MANTISSA_EMBEDDED(id)                                                                      \
  extern "C" const std::uint8_t mantissa_data_##id##_start[];                                      \
  extern "C" const std::uint8_t mantissa_data_##id##_end[];
MANTISSA_EMBEDDED(mnist_10k_train_images_idx3_ubyte_gz)
MANTISSA_EMBEDDED(mnist_10k_train_labels_idx1_ubyte_gz)
MANTISSA_EMBEDDED(mnist_10k_test_images_idx3_ubyte_gz)
MANTISSA_EMBEDDED(mnist_10k_test_labels_idx1_ubyte_gz)
MANTISSA_EMBEDDED(fashion_12k_train_images_idx3_ubyte_gz)
MANTISSA_EMBEDDED(fashion_12k_train_labels_idx1_ubyte_gz)
MANTISSA_EMBEDDED(fashion_12k_test_images_idx3_ubyte_gz)
MANTISSA_EMBEDDED(fashion_12k_test_labels_idx1_ubyte_gz)
MANTISSA_EMBEDDED(tinyshakespeare_txt)
MANTISSA_EMBEDDED(README_md)
#undef MANTISSA_EMBEDDED

namespace mantissa::data::detail {
namespace {

struct Entry {
  std::string_view fileName;
  const std::uint8_t* start;
  const std::uint8_t* end;
};

#define MANTISSA_ENTRY(file, id) Entry{file, mantissa_data_##id##_start, mantissa_data_##id##_end}
const std::array kEntries = {
    MANTISSA_ENTRY("mnist-10k-train-images-idx3-ubyte.gz", mnist_10k_train_images_idx3_ubyte_gz),
    MANTISSA_ENTRY("mnist-10k-train-labels-idx1-ubyte.gz", mnist_10k_train_labels_idx1_ubyte_gz),
    MANTISSA_ENTRY("mnist-10k-test-images-idx3-ubyte.gz", mnist_10k_test_images_idx3_ubyte_gz),
    MANTISSA_ENTRY("mnist-10k-test-labels-idx1-ubyte.gz", mnist_10k_test_labels_idx1_ubyte_gz),
    MANTISSA_ENTRY("fashion-12k-train-images-idx3-ubyte.gz", fashion_12k_train_images_idx3_ubyte_gz),
    MANTISSA_ENTRY("fashion-12k-train-labels-idx1-ubyte.gz", fashion_12k_train_labels_idx1_ubyte_gz),
    MANTISSA_ENTRY("fashion-12k-test-images-idx3-ubyte.gz", fashion_12k_test_images_idx3_ubyte_gz),
    MANTISSA_ENTRY("fashion-12k-test-labels-idx1-ubyte.gz", fashion_12k_test_labels_idx1_ubyte_gz),
    MANTISSA_ENTRY("tinyshakespeare.txt", tinyshakespeare_txt),
    MANTISSA_ENTRY("README.md", README_md),
};
#undef MANTISSA_ENTRY

} // namespace

std::span<const std::uint8_t> embeddedFile(std::string_view fileName) {
  for (const Entry& e : kEntries) {
    if (e.fileName == fileName)
      return {e.start, e.end};
  }
  return {};
}

} // namespace mantissa::data::detail
