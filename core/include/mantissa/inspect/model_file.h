// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A model file opened for inspection: a safetensors file, a sharded
// safetensors model (its model.safetensors.index.json, shards beside it) or
// a GGUF v3 file. Every file is memory-mapped and its header checked by the
// format's reader (io/safetensors.h, io/safetensors_index.h, io/gguf.h);
// opening reads the headers only, never tensor data.
//
// A tensor is decoded to FP32 on request, a slice at a time:
//   safetensors F32, F16, BF16, F64 (rounded to FP32, nearest), F8_E4M3,
//   F8_E5M2, F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ, F6_E2M3, F6_E3M2 and F4
//   (sub-byte values packed as a little-endian bit stream: the first F4 in
//   the low nibble, an F6 in bits [6i, 6i + 6)); integer and BOOL tensors
//   are listed, not decoded (the question of a float format does not apply);
//   GGUF F32, F16, BF16, Q8_0 and MXFP4; other GGUF types are listed as not
//   decoded.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mantissa::io {
class MappedFile;
}

namespace mantissa::inspect {

class ModelFileError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

enum class ModelFormat : std::uint8_t { Safetensors, ShardedSafetensors, Gguf };
std::string_view modelFormatName(ModelFormat format); // "safetensors", "sharded safetensors", "gguf"

struct ModelTensor {
  std::string name;
  std::string dtype;                // as the file names it: "BF16", "F8_E4M3", "Q8_0", "MXFP4"
  std::vector<std::uint64_t> shape; // as the file states it (GGUF: ne[0], the innermost, first)
  std::uint64_t elements = 0;
  std::uint64_t bytes = 0;
  std::uint64_t rowLength = 1;      // values per row (the innermost dimension): blocks run along rows
  std::size_t shard = 0;            // index into ModelFile::files()
  std::uint64_t offset = 0;         // of its first byte in that file
  bool decoded = false;             // decode() can read it as FP32
  bool lowPrecision = false;        // an 8-bit-or-narrower float (F8_*, F6_*, F4, Q8_0, MXFP4)
  std::uint32_t code = 0;           // the reader's dtype: SafetensorsDType or ggml type id
};

// "model.layers.3.mlp.up_proj.weight" -> "model.layers.3", "blk.7.attn_q.weight"
// -> "blk.7": the name up to its first all-digit component; "" when there is none.
std::string layerOf(const std::string& tensorName);

class ModelFile {
public:
  // Opens `path`: "*.index.json" as a sharded model, a file starting with
  // "GGUF" as GGUF, anything else as safetensors. Throws ModelFileError with
  // the reader's message (which names the file and the field or tensor).
  static ModelFile open(const std::filesystem::path& path);
  ~ModelFile();
  ModelFile(ModelFile&&) noexcept;
  ModelFile& operator=(ModelFile&&) noexcept;

  ModelFormat format() const { return m_format; }
  const std::filesystem::path& path() const { return m_path; }
  const std::vector<ModelTensor>& tensors() const { return m_tensors; }
  const std::vector<std::pair<std::string, std::string>>& metadata() const { return m_metadata; }
  std::vector<std::filesystem::path> files() const;
  std::uint64_t fileBytes() const; // all files together

  // Values [first, first + dst.size()) of a decoded tensor, as FP32. `first`
  // must be a multiple of 32 for GGUF's block types. Touches only those bytes.
  void decode(const ModelTensor& tensor, std::uint64_t first, std::span<float> dst) const;
  // The tensor's bytes as stored (the mapping; no copy).
  std::span<const std::byte> raw(const ModelTensor& tensor) const;

private:
  ModelFile() = default;
  ModelFormat m_format = ModelFormat::Safetensors;
  std::filesystem::path m_path;
  std::vector<std::unique_ptr<io::MappedFile>> m_files;
  std::vector<ModelTensor> m_tensors;
  std::vector<std::pair<std::string, std::string>> m_metadata;
};

} // namespace mantissa::inspect
