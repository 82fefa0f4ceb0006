// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/io/gguf.h>

#include <mantissa/numeric/convert.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace mantissa::io {
namespace {

// ggml's type table (ggml.h's enum ggml_type): id, name, block, bytes.
constexpr std::array<GgufTypeInfo, 32> kTypes{{
    {0, "F32", 1, 4, true},        {1, "F16", 1, 2, true},        {2, "Q4_0", 32, 18, false},
    {3, "Q4_1", 32, 20, false},    {6, "Q5_0", 32, 22, false},    {7, "Q5_1", 32, 24, false},
    {8, "Q8_0", 32, 34, true},     {9, "Q8_1", 32, 36, false},    {10, "Q2_K", 256, 84, false},
    {11, "Q3_K", 256, 110, false}, {12, "Q4_K", 256, 144, false}, {13, "Q5_K", 256, 176, false},
    {14, "Q6_K", 256, 210, false}, {15, "Q8_K", 256, 292, false}, {16, "IQ2_XXS", 256, 66, false},
    {17, "IQ2_XS", 256, 74, false},{18, "IQ3_XXS", 256, 98, false},{19, "IQ1_S", 256, 50, false},
    {20, "IQ4_NL", 32, 18, false}, {21, "IQ3_S", 256, 110, false},{22, "IQ2_S", 256, 82, false},
    {23, "IQ4_XS", 256, 136, false},{24, "I8", 1, 1, false},      {25, "I16", 1, 2, false},
    {26, "I32", 1, 4, false},      {27, "I64", 1, 8, false},      {28, "F64", 1, 8, false},
    {29, "IQ1_M", 256, 56, false}, {30, "BF16", 1, 2, true},      {34, "TQ1_0", 256, 54, false},
    {35, "TQ2_0", 256, 66, false}, {39, "MXFP4", 32, 17, true},
}};

// A cursor over the header: every read checks the bytes left first.
class Cursor {
public:
  Cursor(std::span<const std::byte> b, const std::string& what) : m_b(b), m_what(what) {}

  std::uint64_t pos() const { return m_pos; }
  std::uint64_t left() const { return m_b.size() - m_pos; }
  [[noreturn]] void fail(const std::string& msg) const {
    throw GgufError(m_what + ": " + msg + " (at byte " + std::to_string(m_pos) + ")");
  }
  void need(std::uint64_t n, const std::string& field) const {
    if (n > left())
      fail(field + " needs " + std::to_string(n) + " bytes, but the file ends " +
           std::to_string(left()) + " bytes later");
  }
  template <typename T> T read(const std::string& field) {
    need(sizeof(T), field);
    T v;
    std::memcpy(&v, m_b.data() + m_pos, sizeof(T)); // the format and x86 are little-endian
    m_pos += sizeof(T);
    return v;
  }
  std::string string(const std::string& field, std::uint64_t limit) {
    const auto n = read<std::uint64_t>(field + "'s length");
    if (n > limit)
      fail(field + " is " + std::to_string(n) + " bytes long, over the limit of " +
           std::to_string(limit));
    need(n, field);
    std::string s(reinterpret_cast<const char*>(m_b.data() + m_pos), n);
    m_pos += n;
    return s;
  }
  void skip(std::uint64_t n, const std::string& field) {
    need(n, field);
    m_pos += n;
  }

private:
  std::span<const std::byte> m_b;
  const std::string& m_what;
  std::uint64_t m_pos = 0;
};

std::uint64_t scalarBytes(GgufValueType t) {
  switch (t) {
  case GgufValueType::U8: case GgufValueType::I8: case GgufValueType::Bool: return 1;
  case GgufValueType::U16: case GgufValueType::I16: return 2;
  case GgufValueType::U32: case GgufValueType::I32: case GgufValueType::F32: return 4;
  case GgufValueType::U64: case GgufValueType::I64: case GgufValueType::F64: return 8;
  case GgufValueType::String: return 8; // at least its length
  case GgufValueType::Array: return 12; // at least its type and count
  }
  return 0;
}

GgufValueType valueType(Cursor& c, const std::string& field) {
  const auto t = c.read<std::uint32_t>(field);
  if (t > 12)
    c.fail(field + " is " + std::to_string(t) + ", not a GGUF value type (0 to 12)");
  return static_cast<GgufValueType>(t);
}

// Reads one value of type t; `keep` says whether its text is wanted.
GgufValue readValue(Cursor& c, GgufValueType t, const std::string& field, int depth, bool keep) {
  GgufValue v;
  v.type = t;
  auto num = [&](auto x) {
    if (keep)
      v.text = std::to_string(x);
    if constexpr (std::is_integral_v<decltype(x)>)
      if (x >= 0)
        v.unsignedValue = static_cast<std::uint64_t>(x);
  };
  switch (t) {
  case GgufValueType::U8: num(c.read<std::uint8_t>(field)); break;
  case GgufValueType::I8: num(c.read<std::int8_t>(field)); break;
  case GgufValueType::U16: num(c.read<std::uint16_t>(field)); break;
  case GgufValueType::I16: num(c.read<std::int16_t>(field)); break;
  case GgufValueType::U32: num(c.read<std::uint32_t>(field)); break;
  case GgufValueType::I32: num(c.read<std::int32_t>(field)); break;
  case GgufValueType::U64: num(c.read<std::uint64_t>(field)); break;
  case GgufValueType::I64: num(c.read<std::int64_t>(field)); break;
  case GgufValueType::F32: if (keep) v.text = std::to_string(c.read<float>(field)); else c.skip(4, field); break;
  case GgufValueType::F64: if (keep) v.text = std::to_string(c.read<double>(field)); else c.skip(8, field); break;
  case GgufValueType::Bool: {
    const auto b = c.read<std::uint8_t>(field);
    if (b > 1)
      c.fail(field + " is a bool of value " + std::to_string(b) + " (0 or 1)");
    v.text = b ? "true" : "false";
    v.unsignedValue = b;
    break;
  }
  case GgufValueType::String:
    if (keep)
      v.text = c.string(field, std::numeric_limits<std::uint64_t>::max());
    else
      c.skip(c.read<std::uint64_t>(field + "'s length"), field);
    break;
  case GgufValueType::Array: {
    if (depth >= kGgufMaxArrayDepth)
      c.fail(field + ": arrays nested deeper than " + std::to_string(kGgufMaxArrayDepth));
    v.elementType = valueType(c, field + "'s element type");
    v.count = c.read<std::uint64_t>(field + "'s count");
    // Each element needs at least scalarBytes: refuse a count the file cannot hold.
    if (v.count > c.left() / scalarBytes(v.elementType))
      c.fail(field + " holds " + std::to_string(v.count) + " elements of " +
             std::string(ggufValueTypeName(v.elementType)) + ", more than the " +
             std::to_string(c.left()) + " bytes left in the file can hold");
    if (v.elementType != GgufValueType::String && v.elementType != GgufValueType::Array) {
      const std::uint64_t n = std::min<std::uint64_t>(v.count, kGgufArrayPreview);
      std::string text = "[";
      for (std::uint64_t i = 0; i < n; ++i)
        text += (i ? ", " : "") + readValue(c, v.elementType, field, depth + 1, true).text;
      c.skip((v.count - n) * scalarBytes(v.elementType), field);
      v.text = text + (v.count > n ? ", ...]" : "]");
      break;
    }
    std::string text = "[";
    for (std::uint64_t i = 0; i < v.count; ++i) {
      const bool show = i < kGgufArrayPreview;
      GgufValue e = readValue(c, v.elementType, field + "[" + std::to_string(i) + "]", depth + 1,
                              show);
      if (show)
        text += (i ? ", " : "") + (e.type == GgufValueType::String ? "\"" + e.text.substr(0, 64) + "\"" : e.text);
    }
    v.text = text + (v.count > kGgufArrayPreview ? ", ...]" : "]");
    break;
  }
  }
  return v;
}

bool mulOverflows(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
  return __builtin_mul_overflow(a, b, &out);
}

} // namespace

std::string_view ggufValueTypeName(GgufValueType type) {
  static constexpr std::array<std::string_view, 13> kNames{
      "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"};
  const auto i = static_cast<std::size_t>(type);
  return i < kNames.size() ? kNames[i] : "?";
}

const GgufTypeInfo* ggufTypeInfo(std::uint32_t id) {
  for (const GgufTypeInfo& t : kTypes)
    if (t.id == id)
      return &t;
  return nullptr;
}

const GgufValue* GgufHeader::find(std::string_view key) const {
  for (const GgufKeyValue& kv : metadata)
    if (kv.key == key)
      return &kv.value;
  return nullptr;
}

GgufHeader parseGguf(std::span<const std::byte> file, const std::string& what) {
  Cursor c(file, what);
  GgufHeader h;
  if (file.size() < 4 || std::memcmp(file.data(), "GGUF", 4) != 0)
    c.fail("not a GGUF file (the first 4 bytes are not \"GGUF\")");
  c.skip(4, "magic");
  h.version = c.read<std::uint32_t>("version");
  if (h.version != 3)
    c.fail("GGUF version " + std::to_string(h.version) + " (this reader reads version 3)");
  const auto tensorCount = c.read<std::uint64_t>("tensor count");
  const auto kvCount = c.read<std::uint64_t>("key-value count");
  // A key-value pair takes at least 13 bytes, a tensor info at least 24.
  if (kvCount > c.left() / 13)
    c.fail("key-value count " + std::to_string(kvCount) + " is more than the " +
           std::to_string(c.left()) + " bytes left in the file can hold");
  h.metadata.reserve(kvCount);
  for (std::uint64_t i = 0; i < kvCount; ++i) {
    const std::string where = "key-value pair " + std::to_string(i);
    GgufKeyValue kv;
    kv.key = c.string(where + "'s key", kGgufMaxNameBytes);
    const std::string field = "value of '" + kv.key.substr(0, 200) + "'";
    kv.value = readValue(c, valueType(c, field + "'s type"), field, 0, true);
    h.metadata.push_back(std::move(kv));
  }
  if (const GgufValue* a = h.find("general.alignment")) {
    if (a->type != GgufValueType::U32 || !a->unsignedValue || *a->unsignedValue == 0 ||
        !std::has_single_bit(*a->unsignedValue))
      c.fail("general.alignment must be a u32 power of two, not " +
             std::string(ggufValueTypeName(a->type)) + " " + a->text);
    h.alignment = *a->unsignedValue;
  }
  if (tensorCount > c.left() / 24)
    c.fail("tensor count " + std::to_string(tensorCount) + " is more than the " +
           std::to_string(c.left()) + " bytes left in the file can hold");
  h.tensors.reserve(tensorCount);
  for (std::uint64_t i = 0; i < tensorCount; ++i) {
    GgufTensor t;
    t.name = c.string("tensor " + std::to_string(i) + "'s name", kGgufMaxNameBytes);
    const std::string who = "tensor " + std::to_string(i) + " '" + t.name.substr(0, 200) + "'";
    const auto nDims = c.read<std::uint32_t>(who + "'s dimension count");
    if (nDims > kGgufMaxDims)
      c.fail(who + " has " + std::to_string(nDims) + " dimensions, more than ggml's " +
             std::to_string(kGgufMaxDims));
    t.elements = 1;
    for (std::uint32_t d = 0; d < nDims; ++d) {
      t.dims.push_back(c.read<std::uint64_t>(who + "'s dimension " + std::to_string(d)));
      if (t.dims.back() > std::uint64_t(std::numeric_limits<std::int64_t>::max()) ||
          mulOverflows(t.elements, t.dims.back(), t.elements))
        c.fail(who + "'s element count overflows 64 bits");
    }
    t.type = c.read<std::uint32_t>(who + "'s type");
    const GgufTypeInfo* info = ggufTypeInfo(t.type);
    if (!info)
      c.fail(who + " has type " + std::to_string(t.type) + ", not a ggml type");
    const std::uint64_t rowLength = t.dims.empty() ? 1 : t.dims[0];
    if (rowLength % info->blockElements != 0)
      c.fail(who + ": its rows of " + std::to_string(rowLength) + " values are not whole " +
             std::string(info->name) + " blocks of " + std::to_string(info->blockElements));
    if (mulOverflows(t.elements / info->blockElements, info->blockBytes, t.bytes))
      c.fail(who + "'s size in bytes overflows 64 bits");
    t.offset = c.read<std::uint64_t>(who + "'s offset");
    if (t.offset % h.alignment != 0)
      c.fail(who + "'s offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
             std::to_string(h.alignment));
    h.tensors.push_back(std::move(t));
  }
  h.dataOffset = (c.pos() + h.alignment - 1) / h.alignment * h.alignment;
  const std::uint64_t size = file.size();
  const std::uint64_t dataBytes = h.dataOffset <= size ? size - h.dataOffset : 0;
  if (!h.tensors.empty() && h.dataOffset > size)
    throw GgufError(what + ": the data section would start at byte " + std::to_string(h.dataOffset) +
                    ", past the end of the file (" + std::to_string(size) + " bytes)");
  for (std::size_t i = 0; i < h.tensors.size(); ++i) {
    const GgufTensor& t = h.tensors[i];
    if (t.offset > dataBytes || t.bytes > dataBytes - t.offset)
      throw GgufError(what + ": tensor " + std::to_string(i) + " '" + t.name.substr(0, 200) +
                      "' lies at bytes [" + std::to_string(t.offset) + ", +" +
                      std::to_string(t.bytes) + ") of a data section of only " +
                      std::to_string(dataBytes) + " bytes");
  }
  return h;
}

void decodeGguf(std::uint32_t type, std::span<const std::byte> src, std::uint64_t first,
                std::span<float> dst) {
  const auto* b = reinterpret_cast<const unsigned char*>(src.data());
  const std::size_t n = dst.size();
  auto u16 = [&](std::uint64_t at) {
    return static_cast<std::uint16_t>(b[at] | (b[at + 1] << 8));
  };
  switch (type) {
  case 0: std::memcpy(dst.data(), b + first * 4, n * 4); return;
  case 1:
    numeric::convertF16ToF32({reinterpret_cast<const numeric::F16Bits*>(b + first * 2), n}, dst);
    return;
  case 30:
    for (std::size_t i = 0; i < n; ++i)
      dst[i] = std::bit_cast<float>(std::uint32_t(u16((first + i) * 2)) << 16);
    return;
  case 8: // block_q8_0: F16 d, int8 qs[32]; value j = qs[j] x d
    for (std::size_t i = 0; i < n; i += 32) {
      const std::uint64_t at = (first + i) / 32 * 34;
      const float d = numeric::f16ToF32(u16(at));
      for (std::size_t j = 0; j < 32 && i + j < n; ++j)
        dst[i + j] = static_cast<float>(static_cast<std::int8_t>(b[at + 2 + j])) * d;
    }
    return;
  case 39: { // block_mxfp4: E8M0 e, qs[16]; value j < 16 is qs[j]'s low nibble, j + 16 its high one
    static constexpr std::array<float, 16> kE2M1{0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f,
                                                 -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};
    for (std::size_t i = 0; i < n; i += 32) {
      const std::uint64_t at = (first + i) / 32 * 17;
      // E8M0 (OCP MX): 2^(e - 127); 0xFF is NaN.
      const float x = b[at] == 0xFF ? std::numeric_limits<float>::quiet_NaN()
                                    : static_cast<float>(std::ldexp(1.0, int(b[at]) - 127));
      for (std::size_t j = 0; j < 16; ++j) {
        if (i + j < n) dst[i + j] = kE2M1[b[at + 1 + j] & 0xF] * x;
        if (i + j + 16 < n) dst[i + j + 16] = kE2M1[b[at + 1 + j] >> 4] * x;
      }
    }
    return;
  }
  default: break;
  }
  const GgufTypeInfo* info = ggufTypeInfo(type);
  throw GgufError("GGUF type " + std::string(info ? info->name : std::to_string(type)) +
                  " is not decoded");
}

} // namespace mantissa::io
