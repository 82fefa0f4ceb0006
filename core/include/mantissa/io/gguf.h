// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// GGUF v3, the file format of ggml and llama.cpp, little-endian:
//   u32 magic "GGUF", u32 version (3), u64 tensor count, u64 key-value count
//   key-value pairs: string key, u32 value type, value
//     (string = u64 length + bytes; array = u32 element type, u64 count,
//     elements; the other types are fixed-width scalars)
//   tensor infos: string name, u32 dimension count (<= 4), u64 per dimension
//     (ne[0] first: the innermost, contiguous one), u32 ggml type, u64 offset
//     relative to the data section
//   padding to `general.alignment` (a u32, default 32), then the data section.
// Every count, length and offset is checked against the bytes left before it
// is used, so a count of 2^60 is refused without allocating; refusals name
// the field or the tensor and its index. Nesting of arrays is limited to 8,
// names and keys to 64 KiB. Array values are kept as their count and the
// first few elements' text (a tokenizer's 150000 strings cost nothing).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::io {

class GgufError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

inline constexpr std::uint64_t kGgufMaxNameBytes = 65536;
inline constexpr int kGgufMaxDims = 4;
inline constexpr int kGgufMaxArrayDepth = 8;
inline constexpr std::size_t kGgufArrayPreview = 8; // elements kept as text

enum class GgufValueType : std::uint32_t {
  U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, Bool = 7, String = 8,
  Array = 9, U64 = 10, I64 = 11, F64 = 12,
};
std::string_view ggufValueTypeName(GgufValueType type); // "u32", "string", "array", ...

struct GgufValue {
  GgufValueType type = GgufValueType::U8;
  std::string text;             // scalars and strings as text (strings raw); arrays: a preview
  std::optional<std::uint64_t> unsignedValue; // integer scalars >= 0 and bool
  GgufValueType elementType = GgufValueType::U8; // arrays only
  std::uint64_t count = 0;      // arrays only: elements
};

struct GgufKeyValue {
  std::string key;
  GgufValue value;
};

// ggml's tensor types: the ones this reader decodes and the names of the rest.
struct GgufTypeInfo {
  std::uint32_t id;
  std::string_view name;        // "F32", "Q8_0", "MXFP4", "Q4_K", ...
  std::uint32_t blockElements;  // values per block (1 for plain types)
  std::uint32_t blockBytes;     // bytes per block
  bool decoded;                 // F32, F16, BF16, Q8_0, MXFP4
};
// nullptr for an id ggml does not define.
const GgufTypeInfo* ggufTypeInfo(std::uint32_t id);

struct GgufTensor {
  std::string name;
  std::uint32_t type = 0;            // ggml type id (ggufTypeInfo(type) is non-null)
  std::vector<std::uint64_t> dims;   // ne[0] first (innermost)
  std::uint64_t elements = 0;
  std::uint64_t offset = 0;          // relative to GgufHeader::dataOffset
  std::uint64_t bytes = 0;
};

struct GgufHeader {
  std::uint32_t version = 0;
  std::vector<GgufKeyValue> metadata; // in file order
  std::vector<GgufTensor> tensors;    // in file order
  std::uint64_t alignment = 32;
  std::uint64_t dataOffset = 0;       // where the data section starts in the file

  const GgufValue* find(std::string_view key) const;
};

// Parses and checks the header of `file` (the whole file: tensor ranges are
// checked against its size; the data is not read). `what` names it in
// messages. Throws GgufError.
GgufHeader parseGguf(std::span<const std::byte> file, const std::string& what);

// Decodes `count` values of a decoded type starting at value `first` (a
// multiple of the type's block) from the tensor's bytes into dst, as FP32
// (F16/BF16 exactly; Q8_0 d x q with d an F16; MXFP4 E2M1 x 2^(e-127)).
// Throws GgufError for a type that is not decoded.
void decodeGguf(std::uint32_t type, std::span<const std::byte> tensorBytes, std::uint64_t first,
                std::span<float> dst);

} // namespace mantissa::io
