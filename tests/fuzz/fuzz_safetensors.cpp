// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The safetensors reader on hostile bytes: io::parseSafetensors over the
// whole input as one file. Either SafetensorsError with a message, or a
// header whose tensors tile the data buffer exactly, each range the size
// of its shape and dtype, no name twice; an accepted file written again by
// safetensorsBytes reads back to the same tensors, metadata and data.

#include <mantissa/io/safetensors.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace mantissa::io;

// The bytes shape x dtype fill; the header was accepted, so nothing overflows.
std::uint64_t sizeOf(const SafetensorsTensor& t) {
  std::uint64_t count = 1;
  for (const auto d : t.shape)
    count *= d;
  return count * std::uint64_t(safetensorsDTypeBits(t.dtype)) / 8;
}

void check(const SafetensorsHeader& h, std::size_t fileSize) {
  if (h.dataOffset < 8 || h.dataOffset + h.dataBytes != fileSize)
    std::abort();
  std::uint64_t at = 0;
  std::set<std::string_view> names;
  for (const auto& t : h.tensors) {
    if (t.begin != at || t.end < t.begin || sizeOf(t) != t.bytes())
      std::abort();
    if (!names.insert(t.name).second || t.name == "__metadata__")
      std::abort();
    at = t.end;
  }
  if (at != h.dataBytes)
    std::abort();
  for (std::size_t i = 1; i < h.metadata.size(); ++i)
    if (!(h.metadata[i - 1].first < h.metadata[i].first))
      std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> file(reinterpret_cast<const std::byte*>(data), size);
  SafetensorsHeader h;
  try {
    h = parseSafetensors(file, "'fuzz.safetensors'");
  } catch (const SafetensorsError& e) {
    if (std::string_view(e.what()).rfind("'fuzz.safetensors': ", 0) != 0)
      std::abort(); // every refusal names the file
    return 0;
  }
  check(h, size);

  // Written again: the same tensors, data and metadata.
  std::vector<SafetensorsEntry> entries;
  for (const auto& t : h.tensors)
    entries.push_back({t.name, t.dtype, t.shape, file.subspan(h.dataOffset + t.begin, t.bytes())});
  std::string again;
  try {
    again = safetensorsBytes(entries, h.metadata);
  } catch (const SafetensorsError&) {
    std::abort(); // whatever the reader accepts, the writer can write
  }
  const auto back = parseSafetensors(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(again.data()), again.size()), "again");
  if (back.dataOffset % 8 != 0 || back.tensors.size() != h.tensors.size() || back.metadata != h.metadata)
    std::abort();
  for (std::size_t i = 0; i < h.tensors.size(); ++i) {
    const auto& a = h.tensors[i];
    const auto& b = back.tensors[i];
    if (a.name != b.name || a.dtype != b.dtype || a.shape != b.shape || a.begin != b.begin ||
        a.end != b.end)
      std::abort();
    if (a.bytes() != 0 && std::memcmp(data + h.dataOffset + a.begin,
                                      again.data() + back.dataOffset + b.begin, a.bytes()) != 0)
      std::abort();
  }
  return 0;
}
