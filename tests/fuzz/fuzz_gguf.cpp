// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The GGUF reader on hostile bytes: io::parseGguf over the whole input as
// one file. Either GgufError with a message, or a header whose every tensor
// lies inside the data section at an aligned offset, with a known type and
// whole blocks; then the first values of each decoded tensor are decoded
// and scanned (the inspector's path through a file).

#include <mantissa/inspect/model_scan.h>
#include <mantissa/io/gguf.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa;
  const std::span<const std::byte> file(reinterpret_cast<const std::byte*>(data), size);
  io::GgufHeader h;
  try {
    h = io::parseGguf(file, "'fuzz.gguf'");
  } catch (const io::GgufError& e) {
    if (!*e.what())
      std::abort();
    return 0;
  }
  if (h.alignment == 0 || !std::has_single_bit(h.alignment) || h.dataOffset % h.alignment != 0)
    std::abort();
  for (const io::GgufTensor& t : h.tensors) {
    const io::GgufTypeInfo* info = io::ggufTypeInfo(t.type);
    if (!info || t.offset % h.alignment != 0 || t.dims.size() > 4)
      std::abort();
    if (h.dataOffset + t.offset + t.bytes > size || h.dataOffset + t.offset < h.dataOffset)
      std::abort();
    if (t.elements / info->blockElements * info->blockBytes != t.bytes)
      std::abort();
    if (!info->decoded || t.elements == 0)
      continue;
    const std::uint64_t n = std::min<std::uint64_t>(t.elements, 4096) / info->blockElements * info->blockElements;
    std::vector<float> values(n);
    io::decodeGguf(t.type, file.subspan(h.dataOffset + t.offset, t.bytes), 0, values);
    const auto s = inspect::scanValues(values, t.dims.empty() ? 1 : std::min<std::uint64_t>(t.dims[0], 4096));
    if (s.count != n)
      std::abort();
  }
  return 0;
}
