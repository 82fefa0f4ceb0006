// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The index of a sharded safetensors model (model.safetensors.index.json, as
// Hugging Face writes it):
//   {"metadata": {"total_size": 123}, "weight_map": {"TENSOR": "SHARD", ...}}
// Each SHARD must be a plain file name: it is opened beside the index, so a
// name with a '/' or '\', "." or "..", a NUL or nothing at all is refused
// ("../../etc/passwd" names a file outside the model's folder). "metadata"
// may hold anything; every other key is refused. The text is parsed by
// json_text.h (nesting limited to 64, keys unique) and limited to 64 MiB.

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mantissa::io {

class SafetensorsIndexError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

inline constexpr std::uint64_t kSafetensorsIndexMaxBytes = 64ull << 20;

struct SafetensorsIndex {
  std::vector<std::pair<std::string, std::string>> weightMap; // tensor -> shard, sorted by tensor
  std::vector<std::string> shards;                            // distinct, sorted
};

// `what` names the index in messages. Throws SafetensorsIndexError.
SafetensorsIndex parseSafetensorsIndex(std::string_view json, const std::string& what);

// Reads the file (a regular file of at most kSafetensorsIndexMaxBytes) and parses it.
SafetensorsIndex readSafetensorsIndex(const std::filesystem::path& path);

} // namespace mantissa::io
