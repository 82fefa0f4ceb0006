// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/inspect/model_file.h>

#include <mantissa/io/gguf.h>
#include <mantissa/io/mapped_file.h>
#include <mantissa/io/regular_file.h>
#include <mantissa/io/safetensors.h>
#include <mantissa/io/safetensors_index.h>
#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/convert.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

namespace mantissa::inspect {
namespace {

using io::SafetensorsDType;
using Lut = std::array<float, 256>;

Lut lutOf(numeric::FormatId id) {
  Lut t{};
  const numeric::FloatFormat& f = numeric::formatInfo(id);
  const unsigned n = 1u << f.totalBits();
  for (unsigned b = 0; b < 256; ++b)
    t[b] = b < n ? static_cast<float>(numeric::toDouble(f, b)) : 0.0f;
  return t;
}

// The FNUZ 8-bit formats (no infinities, no -0; 0x80 is the one NaN):
// E4M3FNUZ bias 8, E5M2FNUZ bias 16; subnormals at exponent field 0.
Lut fnuzLut(int exponentBits, int bias) {
  Lut t{};
  const int mBits = 7 - exponentBits;
  for (unsigned b = 0; b < 256; ++b) {
    if (b == 0x80) {
      t[b] = std::numeric_limits<float>::quiet_NaN();
      continue;
    }
    const int e = int(b >> mBits) & ((1 << exponentBits) - 1);
    const int m = int(b) & ((1 << mBits) - 1);
    const double mag = e == 0 ? std::ldexp(m, 1 - bias - mBits)
                              : std::ldexp((1 << mBits) + m, e - bias - mBits);
    t[b] = static_cast<float>((b & 0x80) ? -mag : mag);
  }
  return t;
}

const Lut* lutFor(SafetensorsDType d) {
  static const Lut e4m3 = lutOf(numeric::FormatId::Fp8E4M3), e5m2 = lutOf(numeric::FormatId::Fp8E5M2),
                   e8m0 = lutOf(numeric::FormatId::E8M0), e2m3 = lutOf(numeric::FormatId::Fp6E2M3),
                   e3m2 = lutOf(numeric::FormatId::Fp6E3M2), e2m1 = lutOf(numeric::FormatId::Fp4E2M1),
                   e4m3fnuz = fnuzLut(4, 8), e5m2fnuz = fnuzLut(5, 16);
  switch (d) {
  case SafetensorsDType::F8E4M3: return &e4m3;
  case SafetensorsDType::F8E5M2: return &e5m2;
  case SafetensorsDType::F8E8M0: return &e8m0;
  case SafetensorsDType::F8E4M3Fnuz: return &e4m3fnuz;
  case SafetensorsDType::F8E5M2Fnuz: return &e5m2fnuz;
  case SafetensorsDType::F6E2M3: return &e2m3;
  case SafetensorsDType::F6E3M2: return &e3m2;
  case SafetensorsDType::F4: return &e2m1;
  default: return nullptr;
  }
}

bool floatDType(SafetensorsDType d) {
  switch (d) {
  case SafetensorsDType::F16: case SafetensorsDType::BF16: case SafetensorsDType::F32:
  case SafetensorsDType::F64: return true;
  default: return lutFor(d) != nullptr;
  }
}

void addSafetensors(const io::SafetensorsHeader& h, std::size_t shard, std::vector<ModelTensor>& out) {
  for (const io::SafetensorsTensor& t : h.tensors) {
    ModelTensor m;
    m.name = t.name;
    m.dtype = std::string(io::safetensorsDTypeName(t.dtype));
    m.shape = t.shape;
    m.elements = 1;
    for (std::uint64_t d : t.shape)
      m.elements *= d; // checked by the reader
    m.bytes = t.bytes();
    m.rowLength = t.shape.empty() ? 1 : t.shape.back();
    m.shard = shard;
    m.offset = h.dataOffset + t.begin;
    m.decoded = floatDType(t.dtype);
    m.lowPrecision = io::safetensorsDTypeBits(t.dtype) <= 8 && m.decoded;
    m.code = static_cast<std::uint32_t>(t.dtype);
    out.push_back(std::move(m));
  }
}

io::SafetensorsHeader readSafetensors(const io::MappedFile& f) {
  try {
    return io::parseSafetensors(f.bytes(), "'" + f.path().string() + "'");
  } catch (const io::SafetensorsError& e) {
    throw ModelFileError(e.what());
  }
}

} // namespace

std::string_view modelFormatName(ModelFormat format) {
  switch (format) {
  case ModelFormat::Safetensors: return "safetensors";
  case ModelFormat::ShardedSafetensors: return "sharded safetensors";
  case ModelFormat::Gguf: return "gguf";
  }
  return "safetensors";
}

std::string layerOf(const std::string& name) {
  std::size_t begin = 0;
  while (begin < name.size()) {
    std::size_t end = name.find('.', begin);
    if (end == std::string::npos)
      end = name.size();
    if (end > begin && name.find_first_not_of("0123456789", begin) >= end)
      return end == name.size() ? "" : name.substr(0, end);
    begin = end + 1;
  }
  return "";
}

ModelFile::~ModelFile() = default;
ModelFile::ModelFile(ModelFile&&) noexcept = default;
ModelFile& ModelFile::operator=(ModelFile&&) noexcept = default;

ModelFile ModelFile::open(const std::filesystem::path& path) {
  ModelFile m;
  m.m_path = path;
  const std::string fileName = path.filename().string();
  auto map = [&](const std::filesystem::path& p) {
    try {
      m.m_files.push_back(std::make_unique<io::MappedFile>(p, "model"));
    } catch (const io::FileReadError& e) {
      throw ModelFileError(e.what());
    }
    return m.m_files.size() - 1;
  };
  if (fileName.size() > 11 && fileName.ends_with(".index.json")) {
    m.m_format = ModelFormat::ShardedSafetensors;
    io::SafetensorsIndex index;
    try {
      index = io::readSafetensorsIndex(path);
    } catch (const io::SafetensorsIndexError& e) {
      throw ModelFileError(e.what());
    }
    std::map<std::string, std::size_t> shardOf; // tensor -> shard index
    for (const std::string& shard : index.shards) {
      const std::size_t i = map(path.parent_path() / shard);
      const io::SafetensorsHeader h = readSafetensors(*m.m_files[i]);
      for (const io::SafetensorsTensor& t : h.tensors)
        if (!shardOf.emplace(t.name, i).second)
          throw ModelFileError("'" + path.string() + "': tensor '" + t.name +
                               "' is in two shards");
      addSafetensors(h, i, m.m_tensors);
      if (m.m_metadata.empty())
        m.m_metadata = h.metadata;
    }
    for (const auto& [tensor, shard] : index.weightMap) {
      const auto it = shardOf.find(tensor);
      if (it == shardOf.end() || m.m_files[it->second]->path().filename() != shard)
        throw ModelFileError("'" + path.string() + "': weight_map names shard '" + shard +
                             "' for tensor '" + tensor + "', which that shard does not hold");
    }
    return m;
  }
  const std::size_t i = map(path);
  const auto bytes = m.m_files[i]->bytes();
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "GGUF", 4) == 0) {
    m.m_format = ModelFormat::Gguf;
    io::GgufHeader h;
    try {
      h = io::parseGguf(bytes, "'" + path.string() + "'");
    } catch (const io::GgufError& e) {
      throw ModelFileError(e.what());
    }
    for (const io::GgufKeyValue& kv : h.metadata)
      m.m_metadata.emplace_back(kv.key, kv.value.text.substr(0, 4096));
    for (const io::GgufTensor& t : h.tensors) {
      const io::GgufTypeInfo* info = io::ggufTypeInfo(t.type);
      ModelTensor mt;
      mt.name = t.name;
      mt.dtype = std::string(info->name);
      mt.shape = t.dims;
      mt.elements = t.elements;
      mt.bytes = t.bytes;
      mt.rowLength = t.dims.empty() ? 1 : t.dims[0];
      mt.offset = h.dataOffset + t.offset;
      mt.decoded = info->decoded;
      mt.lowPrecision = t.type == 8 || t.type == 39;
      mt.code = t.type;
      m.m_tensors.push_back(std::move(mt));
    }
    return m;
  }
  m.m_format = ModelFormat::Safetensors;
  const io::SafetensorsHeader h = readSafetensors(*m.m_files[i]);
  addSafetensors(h, i, m.m_tensors);
  m.m_metadata = h.metadata;
  return m;
}

std::vector<std::filesystem::path> ModelFile::files() const {
  std::vector<std::filesystem::path> out;
  for (const auto& f : m_files)
    out.push_back(f->path());
  return out;
}

std::uint64_t ModelFile::fileBytes() const {
  std::uint64_t n = 0;
  for (const auto& f : m_files)
    n += f->size();
  return n;
}

std::span<const std::byte> ModelFile::raw(const ModelTensor& t) const {
  return m_files.at(t.shard)->bytes().subspan(t.offset, t.bytes);
}

void ModelFile::decode(const ModelTensor& t, std::uint64_t first, std::span<float> dst) const {
  if (!t.decoded)
    throw ModelFileError("tensor '" + t.name + "' (" + t.dtype + ") is not decoded");
  if (first > t.elements || dst.size() > t.elements - first)
    throw ModelFileError("tensor '" + t.name + "': values past its end requested");
  const std::span<const std::byte> bytes = raw(t);
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t n = dst.size();
  if (m_format == ModelFormat::Gguf) {
    io::decodeGguf(t.code, bytes, first, dst);
    return;
  }
  const auto d = static_cast<SafetensorsDType>(t.code);
  switch (d) {
  case SafetensorsDType::F32: std::memcpy(dst.data(), b + first * 4, n * 4); return;
  case SafetensorsDType::F16: {
    // Unaligned storage is allowed by the format: copy through 16-bit words.
    std::vector<numeric::F16Bits> w(n);
    std::memcpy(w.data(), b + first * 2, n * 2);
    numeric::convertF16ToF32(w, dst);
    return;
  }
  case SafetensorsDType::BF16:
    for (std::size_t i = 0; i < n; ++i) {
      std::uint16_t w;
      std::memcpy(&w, b + (first + i) * 2, 2);
      dst[i] = std::bit_cast<float>(std::uint32_t(w) << 16);
    }
    return;
  case SafetensorsDType::F64:
    for (std::size_t i = 0; i < n; ++i) {
      double v;
      std::memcpy(&v, b + (first + i) * 8, 8);
      dst[i] = static_cast<float>(v);
    }
    return;
  default: break;
  }
  const Lut& lut = *lutFor(d);
  const int bits = io::safetensorsDTypeBits(d);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t bit = (first + i) * std::uint64_t(bits);
    const std::uint64_t at = bit / 8;
    unsigned v = b[at];
    if (at + 1 < bytes.size())
      v |= unsigned(b[at + 1]) << 8;
    dst[i] = lut[(v >> (bit % 8)) & ((1u << bits) - 1)];
  }
}

} // namespace mantissa::inspect
