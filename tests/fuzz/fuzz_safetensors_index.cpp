// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The sharded-model index reader on hostile text: either
// SafetensorsIndexError with a message, or a weight map whose every shard is
// a plain file name (no '/', '\', NUL, "." or ".."), sorted by tensor, and
// a shard list that is sorted, distinct and covers the map.

#include <mantissa/io/safetensors_index.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa::io;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  SafetensorsIndex index;
  try {
    index = parseSafetensorsIndex(text, "index 'fuzz.json'");
  } catch (const SafetensorsIndexError& e) {
    if (!*e.what())
      std::abort();
    return 0;
  }
  for (const auto& [tensor, shard] : index.weightMap) {
    if (shard.empty() || shard == "." || shard == ".." ||
        shard.find_first_of(std::string("/\\\0", 3)) != std::string::npos)
      std::abort();
    if (!std::binary_search(index.shards.begin(), index.shards.end(), shard))
      std::abort();
  }
  if (!std::is_sorted(index.weightMap.begin(), index.weightMap.end()) ||
      std::adjacent_find(index.shards.begin(), index.shards.end()) != index.shards.end() ||
      !std::is_sorted(index.shards.begin(), index.shards.end()))
    std::abort();
  return 0;
}
