// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Named tensors in the safetensors format (the one PyTorch's ecosystem uses
// for weights). A file is
//   [8 bytes]  N, the header's length, unsigned little-endian
//   [N bytes]  UTF-8 JSON: {"NAME": {"dtype": "F32", "shape": [2, 3],
//              "data_offsets": [BEGIN, END]}, ..., "__metadata__": {"k": "v"}}
//              (the writer pads it with spaces to a multiple of 8 bytes)
//   [rest]     the data buffer: each tensor's elements in C order,
//              little-endian, at [BEGIN, END) of the buffer
// Sub-byte types (F6_*, F4) pack their elements with no padding between
// them; a tensor must fill a whole number of bytes.
//
// The reader trusts nothing before it has checked all of it, and each
// refusal names the file and the field or tensor:
//  - N against the file's size and the limit of 100 MB;
//  - the JSON (no NUL byte, no key twice, nothing but the fields above, no
//    nesting past them: the structure is fixed, so the depth is 3);
//  - each dtype among the format's names, each shape's element count and
//    bit size without overflow, shape x dtype = END - BEGIN;
//  - the ranges, in offset order, start at 0, neither overlap nor leave a
//    gap, and end at the end of the file;
//  - "__metadata__" maps strings to strings.
// Memory is linear in N: the JSON is read as a stream of events into one
// record per tensor (no JSON tree), and the data is read only on request.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mantissa::io {

class SafetensorsError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Every element type the format defines, by its name in the header.
enum class SafetensorsDType : std::uint8_t {
  Bool,        // BOOL: 1 byte, 0 or 1
  U8, I8, U16, I16, U32, I32, U64, I64,
  F16,         // IEEE binary16
  BF16,        // bfloat16
  F32, F64,
  F8E4M3,      // F8_E4M3: OCP E4M3 (no infinities)
  F8E5M2,      // F8_E5M2: OCP E5M2
  F8E8M0,      // F8_E8M0: OCP MX scale, a power of two
  F8E4M3Fnuz,  // F8_E4M3FNUZ
  F8E5M2Fnuz,  // F8_E5M2FNUZ
  F6E2M3,      // F6_E2M3: 6 bits, packed
  F6E3M2,      // F6_E3M2: 6 bits, packed
  F4,          // F4: OCP E2M1, 4 bits, packed
};

inline constexpr std::uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;

// A shape as messages and listings show it: "[2, 3]", "[]" for a scalar.
std::string safetensorsShapeText(const std::vector<std::uint64_t>& shape);
std::string_view safetensorsDTypeName(SafetensorsDType dtype);
std::optional<SafetensorsDType> safetensorsDTypeFromName(std::string_view name);
int safetensorsDTypeBits(SafetensorsDType dtype); // bits per element: 4, 6, 8, 16, 32 or 64

// One tensor of a header, as read and checked.
struct SafetensorsTensor {
  std::string name;
  SafetensorsDType dtype = SafetensorsDType::F32;
  std::vector<std::uint64_t> shape; // C order; [] is a scalar
  std::uint64_t begin = 0, end = 0; // [begin, end) of the data buffer
  std::uint64_t bytes() const { return end - begin; }
};

// A checked header: tensors in the order of their data, metadata sorted by key.
struct SafetensorsHeader {
  std::vector<SafetensorsTensor> tensors;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::uint64_t dataOffset = 0; // where the data buffer starts in the file: 8 + N
  std::uint64_t dataBytes = 0;  // the buffer's length, which the tensors cover exactly

  const SafetensorsTensor* find(std::string_view name) const;       // nullptr when absent
  const std::string* metadataValue(std::string_view key) const;     // nullptr when absent
};

// A whole file in memory (the fuzz target's and the tests' way in). `what`
// names it in messages ("'run.safetensors'"). Throws SafetensorsError.
SafetensorsHeader parseSafetensors(std::span<const std::byte> file, const std::string& what);

// The header's JSON alone, checked against a data buffer of `dataBytes`.
SafetensorsHeader parseSafetensorsHeader(std::string_view json, std::uint64_t dataBytes,
                                         const std::string& what);

// A file on disk: opened as a regular file (a FIFO or device is refused),
// the header read and checked at construction; tensor data read on request.
class SafetensorsReader {
public:
  explicit SafetensorsReader(const std::filesystem::path& path); // throws SafetensorsError
  ~SafetensorsReader();
  SafetensorsReader(SafetensorsReader&&) noexcept;
  SafetensorsReader& operator=(SafetensorsReader&&) noexcept;

  const SafetensorsHeader& header() const { return m_header; }
  // The tensor's bytes as stored (little-endian, packed); throws
  // SafetensorsError when the file changed under the reader.
  std::vector<std::byte> read(const SafetensorsTensor& tensor) const;

private:
  class File;
  std::unique_ptr<File> m_file;
  SafetensorsHeader m_header;
};

// A tensor to write: its bytes must be exactly shape x dtype.
struct SafetensorsEntry {
  std::string name;
  SafetensorsDType dtype = SafetensorsDType::F32;
  std::vector<std::uint64_t> shape;
  std::span<const std::byte> data;
};

// The file's bytes: tensors stored in the given order. Throws
// SafetensorsError (naming the tensor) for a size that does not match its
// shape, a name given twice, or the name "__metadata__".
std::string safetensorsBytes(std::span<const SafetensorsEntry> tensors,
                             const std::vector<std::pair<std::string, std::string>>& metadata);

// Writes them to `path` atomically (io::AtomicFileWriter): a reader sees
// the old file or the whole new one. Throws SafetensorsError or AtomicFileError.
void writeSafetensors(const std::filesystem::path& path, std::span<const SafetensorsEntry> tensors,
                      const std::vector<std::pair<std::string, std::string>>& metadata);

} // namespace mantissa::io
