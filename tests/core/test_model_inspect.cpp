// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The model inspector against files assembled here byte by byte: GGUF v3
// from its definition (a tiny writer below), safetensors and sharded
// indexes from theirs. The scan's counts are held to a plain double loop
// written here (round to nearest even on a double grid), the block schemes
// to numeric::quantize(), and every hostile file is refused with a message
// naming the field or tensor.
#include <mantissa/inspect/model_file.h>
#include <mantissa/inspect/model_report.h>
#include <mantissa/inspect/model_scales.h>
#include <mantissa/inspect/model_scan.h>
#include <mantissa/io/gguf.h>
#include <mantissa/io/safetensors_index.h>
#include <mantissa/numeric/block_quant.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace mantissa;
using namespace mantissa::inspect;

// --- little-endian packing ---------------------------------------------------

template <typename T> std::string le(T v) {
  std::string s(sizeof(T), '\0');
  std::memcpy(s.data(), &v, sizeof(T)); // x86 is little-endian, as both formats
  return s;
}
std::string gstr(const std::string& s) { return le<std::uint64_t>(s.size()) + s; }

std::span<const std::byte> bytesOf(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

// A GGUF v3 file: header, key-value pairs (already packed), tensor infos,
// padding to `alignment`, then the data.
struct GgufTensorSpec {
  std::string name;
  std::vector<std::uint64_t> dims;
  std::uint32_t type;
  std::uint64_t offset;
};
std::string gguf(const std::vector<std::string>& kvs, const std::vector<GgufTensorSpec>& tensors,
                 const std::string& data, std::size_t alignment = 32) {
  std::string b = "GGUF" + le<std::uint32_t>(3) + le<std::uint64_t>(tensors.size()) +
                  le<std::uint64_t>(kvs.size());
  for (const auto& kv : kvs)
    b += kv;
  for (const auto& t : tensors) {
    b += gstr(t.name) + le<std::uint32_t>(std::uint32_t(t.dims.size()));
    for (auto d : t.dims)
      b += le<std::uint64_t>(d);
    b += le<std::uint32_t>(t.type) + le<std::uint64_t>(t.offset);
  }
  b += std::string((alignment - b.size() % alignment) % alignment, '\0');
  return b + data;
}
std::string kvU32(const std::string& k, std::uint32_t v) { return gstr(k) + le<std::uint32_t>(4) + le(v); }
std::string kvStr(const std::string& k, const std::string& v) { return gstr(k) + le<std::uint32_t>(8) + gstr(v); }

fs::path tempDir() {
  const fs::path d = fs::temp_directory_path() /
                     ("mantissa-inspect-" + std::to_string(::getpid()) + "-" +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::create_directories(d);
  return d;
}
fs::path writeFile(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  return p;
}

// A safetensors file: JSON header (padded with spaces to 8) and data.
std::string safetensors(const std::string& header, const std::string& data) {
  std::string h = header + std::string((8 - header.size() % 8) % 8, ' ');
  return le<std::uint64_t>(h.size()) + h + data;
}

void expectGgufRefused(const std::string& bytes, std::initializer_list<std::string> parts) {
  try {
    io::parseGguf(bytesOf(bytes), "'m.gguf'");
    ADD_FAILURE() << "accepted";
  } catch (const io::GgufError& e) {
    for (const auto& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what() << " lacks " << p;
  }
}

// --- the plain double reference ----------------------------------------------

// a >= 0 rounded to nearest even on the grid of a format with `mbits`
// fraction bits and smallest normal exponent `emin` (exponent unbounded above).
double roundRef(double a, int mbits, int emin) {
  if (a == 0.0)
    return 0.0;
  int e;
  std::frexp(a, &e); // a = m 2^e, m in [0.5, 1)
  const double ulp = std::ldexp(1.0, std::max(e - 1, emin) - mbits);
  return std::nearbyint(a / ulp) * ulp;
}

struct CastRef {
  std::uint64_t overflow = 0, lost = 0, subnormal = 0;
  double signal = 0.0, noise = 0.0;
};
CastRef castRef(const std::vector<float>& x, int mbits, int emin, double max, bool daz) {
  CastRef r;
  for (float v : x) {
    const double a = std::fabs(double(v));
    if (!std::isfinite(a))
      continue;
    double q = daz && a < std::ldexp(1.0, -126) ? 0.0 : roundRef(a, mbits, emin);
    if (q > max) {
      ++r.overflow;
      q = max;
    }
    r.lost += a != 0.0 && q == 0.0;
    r.subnormal += q > 0.0 && q < std::ldexp(1.0, emin);
    r.signal += a * a;
    r.noise += (a - q) * (a - q);
  }
  return r;
}

// 32 x 128 values: small Gaussians, one outlier block, and the planted
// values of each format's edges.
std::vector<float> planted(bool specials) {
  std::mt19937 rng(7);
  std::normal_distribution<float> g(0.0f, 0.02f);
  std::vector<float> x(32 * 128);
  for (float& v : x)
    v = g(rng);
  for (int i = 0; i < 32; ++i)
    x[5 * 128 + 32 + std::size_t(i)] *= 1000.0f; // one outlier block
  const float p[] = {65504.0f, 65520.0f, 65519.0f, 448.0f, 464.0f, 465.0f, -0.0f, 0.0f,
                     std::ldexp(1.0f, -20), std::ldexp(1.0f, -25), std::ldexp(1.0f, -24),
                     std::ldexp(1.5f, -25), 1e-40f, -1e-45f, std::ldexp(1.0f, -9), std::ldexp(1.0f, -10),
                     57344.0f, 61440.0f, 3.0e38f, -3.4e38f};
  std::size_t at = 64 * 3;
  for (float v : p)
    x[at++] = v;
  if (specials) {
    x[1000] = std::numeric_limits<float>::quiet_NaN();
    x[1001] = std::numeric_limits<float>::infinity();
    x[2001] = -std::numeric_limits<float>::infinity();
  }
  return x;
}

// SQNR in dB: the casts' sums are in double (1e-9 dB), the block schemes'
// in FP32 per block (their relative error below 128 x 2^-24: 1e-3 dB).
void expectSqnr(double got, double want, double tolerance = 1e-9) {
  if (std::isinf(want))
    EXPECT_EQ(got, want);
  else
    EXPECT_NEAR(got, want, tolerance);
}

void expectCastsMatch(const TensorStats& s, const std::vector<float>& x) {
  struct Row { Target t; int mbits, emin; double max; bool daz; };
  const Row rows[] = {{Target::Fp16, 10, -14, 65504.0, false},
                      {Target::Bf16, 7, -126, std::ldexp(255.0, 120), true},
                      {Target::Fp8E4M3, 3, -6, 448.0, false},
                      {Target::Fp8E5M2, 2, -14, 57344.0, false}};
  for (const Row& r : rows) {
    const CastRef ref = castRef(x, r.mbits, r.emin, r.max, r.daz);
    const TargetStats& t = s.at(r.t);
    SCOPED_TRACE(std::string(targetName(r.t)));
    EXPECT_EQ(t.overflow, ref.overflow);
    EXPECT_EQ(t.lostToZero, ref.lost);
    EXPECT_EQ(t.subnormal, ref.subnormal);
    expectSqnr(t.sqnrDb(), 10 * std::log10(ref.signal / ref.noise));
  }
}

// --- GGUF ----------------------------------------------------------------------

TEST(Gguf, ReadsEveryValueTypeAndDecodesF32F16Bf16Q8MxFp4) {
  std::vector<std::string> kv;
  kv.push_back(gstr("u8") + le<std::uint32_t>(0) + le<std::uint8_t>(200));
  kv.push_back(gstr("i8") + le<std::uint32_t>(1) + le<std::int8_t>(-5));
  kv.push_back(gstr("u16") + le<std::uint32_t>(2) + le<std::uint16_t>(60000));
  kv.push_back(gstr("i16") + le<std::uint32_t>(3) + le<std::int16_t>(-300));
  kv.push_back(kvU32("u32", 123456));
  kv.push_back(gstr("i32") + le<std::uint32_t>(5) + le<std::int32_t>(-7));
  kv.push_back(gstr("f32") + le<std::uint32_t>(6) + le<float>(1.5f));
  kv.push_back(gstr("bool") + le<std::uint32_t>(7) + le<std::uint8_t>(1));
  kv.push_back(kvStr("general.name", "tiny"));
  kv.push_back(gstr("u64") + le<std::uint32_t>(10) + le<std::uint64_t>(1ull << 40));
  kv.push_back(gstr("i64") + le<std::uint32_t>(11) + le<std::int64_t>(-9));
  kv.push_back(gstr("f64") + le<std::uint32_t>(12) + le<double>(0.25));
  kv.push_back(gstr("ints") + le<std::uint32_t>(9) + le<std::uint32_t>(5) + le<std::uint64_t>(3) +
               le<std::int32_t>(1) + le<std::int32_t>(2) + le<std::int32_t>(3));
  kv.push_back(gstr("tokens") + le<std::uint32_t>(9) + le<std::uint32_t>(8) + le<std::uint64_t>(2) +
               gstr("a") + gstr("bc"));
  kv.push_back(gstr("nested") + le<std::uint32_t>(9) + le<std::uint32_t>(9) + le<std::uint64_t>(1) +
               le<std::uint32_t>(0) + le<std::uint64_t>(2) + le<std::uint8_t>(1) + le<std::uint8_t>(2));
  // Data: F32 [1, -2], F16 [1.5, 65504], BF16 [-3, 2^-130], Q8_0 one block,
  // MXFP4 one block, Q4_K (listed, not decoded). Offsets aligned to 32.
  std::string data;
  auto pad = [&] { data += std::string((32 - data.size() % 32) % 32, '\0'); };
  std::vector<GgufTensorSpec> ts;
  ts.push_back({"a.f32", {2}, 0, data.size()});
  data += le<float>(1.0f) + le<float>(-2.0f);
  pad();
  ts.push_back({"a.f16", {2}, 1, data.size()});
  data += le<std::uint16_t>(0x3e00) + le<std::uint16_t>(0x7bff);
  pad();
  ts.push_back({"a.bf16", {2}, 30, data.size()});
  data += le<std::uint16_t>(0xc040) + le<std::uint16_t>(0x0008); // -3, 2^-130 (subnormal)
  pad();
  ts.push_back({"blk.0.q8", {32}, 8, data.size()});
  data += le<std::uint16_t>(0x3800); // d = 0.5
  for (int j = 0; j < 32; ++j)
    data += char(std::int8_t(j - 16));
  pad();
  ts.push_back({"blk.0.mx", {32}, 39, data.size()});
  data += char(127 + 2); // scale 2^2
  for (int j = 0; j < 16; ++j)
    data += char((j & 0xF) | ((15 - j) << 4)); // low nibble -> value j, high -> value j + 16
  pad();
  ts.push_back({"blk.1.k", {256}, 12, data.size()});
  data += std::string(144, '\x11');
  const std::string file = gguf(kv, ts, data);

  const io::GgufHeader h = io::parseGguf(bytesOf(file), "'m.gguf'");
  EXPECT_EQ(h.alignment, 32u);
  ASSERT_EQ(h.metadata.size(), kv.size());
  EXPECT_EQ(h.find("u8")->text, "200");
  EXPECT_EQ(h.find("i8")->text, "-5");
  EXPECT_EQ(h.find("u16")->text, "60000");
  EXPECT_EQ(h.find("i16")->text, "-300");
  EXPECT_EQ(*h.find("u32")->unsignedValue, 123456u);
  EXPECT_EQ(h.find("bool")->text, "true");
  EXPECT_EQ(h.find("general.name")->text, "tiny");
  EXPECT_EQ(*h.find("u64")->unsignedValue, 1ull << 40);
  EXPECT_EQ(h.find("i64")->text, "-9");
  EXPECT_EQ(h.find("ints")->text, "[1, 2, 3]");
  EXPECT_EQ(h.find("ints")->count, 3u);
  EXPECT_EQ(h.find("tokens")->text, "[\"a\", \"bc\"]");
  EXPECT_EQ(h.find("nested")->text, "[[1, 2]]");
  ASSERT_EQ(h.tensors.size(), 6u);
  EXPECT_EQ(h.tensors[3].bytes, 34u);
  EXPECT_EQ(h.tensors[4].bytes, 17u);
  EXPECT_EQ(h.tensors[5].bytes, 144u);

  const fs::path p = writeFile(tempDir() / "m.gguf", file);
  const ModelFile m = ModelFile::open(p);
  EXPECT_EQ(m.format(), ModelFormat::Gguf);
  auto values = [&](std::size_t i) {
    std::vector<float> v(m.tensors()[i].elements);
    m.decode(m.tensors()[i], 0, v);
    return v;
  };
  EXPECT_EQ(values(0), (std::vector<float>{1.0f, -2.0f}));
  EXPECT_EQ(values(1), (std::vector<float>{1.5f, 65504.0f}));
  EXPECT_EQ(values(2), (std::vector<float>{-3.0f, std::ldexp(1.0f, -130)}));
  const auto q8 = values(3);
  for (int j = 0; j < 32; ++j)
    EXPECT_EQ(q8[std::size_t(j)], float(j - 16) * 0.5f) << j;
  const float e2m1[16] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6};
  const auto mx = values(4);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(mx[std::size_t(j)], e2m1[j] * 4.0f) << j;
    EXPECT_EQ(mx[std::size_t(j) + 16], e2m1[15 - j] * 4.0f) << j;
  }
  EXPECT_FALSE(m.tensors()[5].decoded);
  EXPECT_EQ(m.tensors()[5].dtype, "Q4_K");
  const auto stats = scanModel(m);
  EXPECT_FALSE(stats[5].scanned);
  EXPECT_TRUE(stats[4].scanned);
  EXPECT_EQ(stats[4].absmax, 24.0);
  EXPECT_EQ(layerOf("blk.0.q8"), "blk.0");
  EXPECT_EQ(layerOf("model.layers.12.mlp.up_proj.weight"), "model.layers.12");
  EXPECT_EQ(layerOf("lm_head.weight"), "");
}

TEST(Gguf, HonoursGeneralAlignment) {
  std::vector<GgufTensorSpec> ts{{"w", {4}, 0, 64}};
  const std::string data = std::string(64, '\0') + le(1.0f) + le(2.0f) + le(3.0f) + le(4.0f);
  const std::string file = gguf({kvU32("general.alignment", 64)}, ts, data, 64);
  const io::GgufHeader h = io::parseGguf(bytesOf(file), "'m.gguf'");
  EXPECT_EQ(h.alignment, 64u);
  EXPECT_EQ(h.dataOffset % 64, 0u);
  expectGgufRefused(gguf({kvU32("general.alignment", 48)}, ts, data, 64), {"general.alignment", "power of two"});
  expectGgufRefused(gguf({}, {{"w", {4}, 0, 40}}, data), {"'w'", "offset 40", "alignment 32"});
}

TEST(Gguf, RefusesCountsLengthsAndOffsetsOutsideTheFile) {
  const std::string head = "GGUF" + le<std::uint32_t>(3);
  expectGgufRefused("GGUG", {"not a GGUF file"});
  expectGgufRefused("GGUF" + le<std::uint32_t>(2) + std::string(16, '\0'), {"version 2"});
  expectGgufRefused(head + le<std::uint64_t>(1ull << 60) + le<std::uint64_t>(0), {"tensor count"});
  expectGgufRefused(head + le<std::uint64_t>(0) + le<std::uint64_t>(1ull << 61), {"key-value count"});
  expectGgufRefused(head + le<std::uint64_t>(0) + le<std::uint64_t>(1) + le<std::uint64_t>(1ull << 62) + std::string(16, 'k'),
                    {"key-value pair 0's key", "limit"});
  expectGgufRefused(head + le<std::uint64_t>(0) + le<std::uint64_t>(1) + gstr("k") + le<std::uint32_t>(8) +
                        le<std::uint64_t>(1000) + "short",
                    {"value of 'k'", "needs 1000 bytes"});
  expectGgufRefused(head + le<std::uint64_t>(0) + le<std::uint64_t>(1) + gstr("k") + le<std::uint32_t>(9) +
                        le<std::uint32_t>(10) + le<std::uint64_t>(1ull << 59) + std::string(20, '\0'),
                    {"value of 'k'", "elements of u64"});
  expectGgufRefused(head + le<std::uint64_t>(0) + le<std::uint64_t>(1) + gstr("k") + le<std::uint32_t>(13),
                    {"not a GGUF value type"});
  // A name of 64 KiB + 1 bytes.
  expectGgufRefused(gguf({}, {{std::string(65537, 'n'), {1}, 0, 0}}, std::string(32, '\0')),
                    {"tensor 0's name", "65537 bytes long"});
  expectGgufRefused(gguf({}, {{"big", {1ull << 32, 1ull << 32, 16}, 0, 0}}, ""),
                    {"'big'", "element count overflows"});
  expectGgufRefused(gguf({}, {{"w", {1, 1, 1, 1, 1}, 0, 0}}, ""), {"'w'", "5 dimensions"});
  expectGgufRefused(gguf({}, {{"w", {8}, 77, 0}}, ""), {"'w'", "type 77"});
  expectGgufRefused(gguf({}, {{"w", {33}, 8, 0}}, std::string(64, '\0')), {"'w'", "Q8_0 blocks of 32"});
  expectGgufRefused(gguf({}, {{"w", {64}, 0, 0}}, std::string(16, '\0')), {"tensor 0 'w'", "data section of only 16"});
  expectGgufRefused(gguf({}, {{"w", {4}, 0, 1ull << 62}}, std::string(16, '\0')), {"tensor 0 'w'"});
  // Array nesting past the limit.
  std::string deep = gstr("k") + le<std::uint32_t>(9);
  for (int i = 0; i < 12; ++i)
    deep += le<std::uint32_t>(9) + le<std::uint64_t>(1);
  expectGgufRefused(head + le<std::uint64_t>(0) + le<std::uint64_t>(1) + deep + std::string(64, '\0'),
                    {"nested deeper than 8"});
}

// --- sharded safetensors ---------------------------------------------------------

TEST(SafetensorsIndex, OpensShardsBesideTheIndexAndRefusesPathsOutOfIt) {
  const fs::path d = tempDir();
  writeFile(d / "s1.safetensors",
            safetensors(R"({"a.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", le(1.0f) + le(-4.0f)));
  writeFile(d / "s2.safetensors",
            safetensors(R"({"b.weight":{"dtype":"BF16","shape":[1],"data_offsets":[0,2]}})", le<std::uint16_t>(0x4000)));
  writeFile(d / "model.safetensors.index.json",
            R"({"metadata":{"total_size":10},"weight_map":{"a.weight":"s1.safetensors","b.weight":"s2.safetensors"}})");
  const ModelFile m = ModelFile::open(d / "model.safetensors.index.json");
  EXPECT_EQ(m.format(), ModelFormat::ShardedSafetensors);
  ASSERT_EQ(m.tensors().size(), 2u);
  const auto stats = scanModel(m);
  EXPECT_EQ(stats[0].absmax, 4.0);
  EXPECT_EQ(stats[1].absmax, 2.0);

  for (const std::string shard : {"../../etc/passwd", "/etc/passwd", "..", "a\\b.safetensors", ""}) {
    nlohmann::json j{{"weight_map", {{"a.weight", shard}}}};
    try {
      io::parseSafetensorsIndex(j.dump(), "index 'x'");
      ADD_FAILURE() << shard << " accepted";
    } catch (const io::SafetensorsIndexError& e) {
      EXPECT_NE(std::string(e.what()).find("weight_map[\"a.weight\"]"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("beside the index"), std::string::npos) << e.what();
    }
  }
  writeFile(d / "bad.index.json", R"({"weight_map":{"a.weight":"s2.safetensors"}})");
  EXPECT_THROW(ModelFile::open(d / "bad.index.json"), ModelFileError);
  writeFile(d / "nested.index.json", std::string(100000, '[') + std::string(100000, ']'));
  try {
    ModelFile::open(d / "nested.index.json");
    ADD_FAILURE() << "accepted";
  } catch (const ModelFileError& e) {
    EXPECT_NE(std::string(e.what()).find("nested"), std::string::npos) << e.what();
  }
  fs::remove_all(d);
}

TEST(ModelFile, RefusesHostileSafetensors) {
  const fs::path d = tempDir();
  // A header of 100 MB of nested JSON: refused by the reader's depth rule
  // without building a tree.
  std::string nested = std::string(50'000'000, '[') + std::string(50'000'000 - 8, ']');
  writeFile(d / "nested.safetensors", le<std::uint64_t>(nested.size()) + nested);
  nested.clear();
  nested.shrink_to_fit();
  EXPECT_THROW(ModelFile::open(d / "nested.safetensors"), ModelFileError);
  writeFile(d / "overflow.safetensors",
            safetensors(R"({"w":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,4]}})", "abcd"));
  try {
    ModelFile::open(d / "overflow.safetensors");
    ADD_FAILURE() << "accepted";
  } catch (const ModelFileError& e) {
    EXPECT_NE(std::string(e.what()).find("\"w\""), std::string::npos) << e.what();
  }
  EXPECT_THROW(ModelFile::open(d / "absent.safetensors"), ModelFileError);
  EXPECT_THROW(ModelFile::open("/dev/null"), ModelFileError);
  fs::remove_all(d);
}

// --- the scan ------------------------------------------------------------------------

TEST(ModelScan, CastCountsEqualAPlainDoubleLoopCountForCount) {
  const std::vector<float> x = planted(true);
  const TensorStats s = scanValues(x, 128);
  EXPECT_EQ(s.count, x.size());
  EXPECT_EQ(s.nan, 1u);
  EXPECT_EQ(s.posInf, 1u);
  EXPECT_EQ(s.negInf, 1u);
  std::uint64_t zeros = 0, finite = 0;
  double mn = INFINITY, mx = -INFINITY, am = 0.0, sq = 0.0;
  for (float v : x) {
    if (!std::isfinite(v))
      continue;
    ++finite;
    zeros += v == 0.0f;
    mn = std::min(mn, double(v));
    mx = std::max(mx, double(v));
    am = std::max(am, std::fabs(double(v)));
    sq += double(v) * double(v);
  }
  EXPECT_EQ(s.finite, finite);
  EXPECT_EQ(s.zeros, zeros);
  EXPECT_EQ(s.min, mn);
  EXPECT_EQ(s.max, mx);
  EXPECT_EQ(s.absmax, am);
  EXPECT_NEAR(s.outlierRatio(), am / std::sqrt(sq / double(finite)), 1e-9);
  expectCastsMatch(s, x);
  // FP16 overflows at 65520 (the tie between 65504 and 65536 goes to the even
  // 65536), 3e38 and -3.4e38; 65519 rounds down to 65504.
  EXPECT_EQ(s.at(Target::Fp16).overflow, 3u);
  // E4M3: 464 is the tie that goes down to 448; 465 and everything above overflow.
  EXPECT_GT(s.at(Target::Fp8E4M3).overflow, 0u);
  // The exponent histogram: every finite non-zero value in its binade.
  for (int e = telemetry::ExponentHistogram::kMinExponent; e <= telemetry::ExponentHistogram::kMaxExponent; ++e) {
    std::uint64_t n = 0;
    for (float v : x)
      if (std::isfinite(v) && v != 0.0f) {
        int ex;
        std::frexp(double(v), &ex);
        n += ex - 1 == e;
      }
    ASSERT_EQ(s.hist.count(e), n) << e;
  }
  // Blocks holding NaN or Inf: poisoned in every block scheme.
  // NaN and +inf share the block of values 992..1023; -inf is in another.
  EXPECT_EQ(s.at(Target::Mxfp4).poisonedBlocks, 2u);
  EXPECT_EQ(s.at(Target::Nvfp4).poisonedBlocks, 2u);
}

TEST(ModelScan, BlockSchemesEqualNumericQuantize) {
  for (std::uint64_t cols : {128u, 100u, 4096u}) {
    std::vector<float> x = planted(false);
    x.resize(x.size() / cols * cols);
    const TensorStats s = scanValues(x, cols);
    const std::vector<double> xd(x.begin(), x.end());
    const std::pair<Target, numeric::BlockScheme> rows[] = {
        {Target::Mxfp8, numeric::BlockScheme::Mxfp8E4M3}, {Target::Mxfp6, numeric::BlockScheme::Mxfp6E2M3},
        {Target::Mxfp4, numeric::BlockScheme::Mxfp4},     {Target::Nvfp4, numeric::BlockScheme::Nvfp4},
        {Target::Fp8Block, numeric::BlockScheme::Fp8Block}};
    for (const auto& [t, scheme] : rows) {
      SCOPED_TRACE(std::string(targetName(t)) + " cols " + std::to_string(cols));
      numeric::QuantizeOptions o;
      o.cols = cols;
      const numeric::QuantizedTensor q = numeric::quantize(xd, scheme, o);
      const numeric::QuantStats ref = numeric::quantStats(xd, q);
      std::uint64_t sat = 0, lost = 0, sub = 0;
      for (std::size_t i = 0; i < xd.size(); ++i) {
        sat += (q.flags[i] & numeric::kSaturated) != 0;
        lost += (q.flags[i] & numeric::kLostToZero) != 0;
        sub += (q.flags[i] & numeric::kSubnormal) != 0;
      }
      const TargetStats& ts = s.at(t);
      EXPECT_EQ(ts.blocks, ref.blocks);
      EXPECT_EQ(ts.clippedBlocks, ref.blocksMaxClipped);
      EXPECT_EQ(ts.overflow, sat);
      EXPECT_EQ(ts.lostToZero, lost);
      EXPECT_EQ(ts.subnormal, sub);
      expectSqnr(ts.sqnrDb(), ref.sqnrDb, 1e-3);
    }
  }
}

TEST(ModelScan, Fp8WeightBlocksOf128x128EqualNumericQuantize) {
  // 300 x 200: three block rows (the last of 44 rows), two block columns (the
  // last of 72), an outlier, the planted edges, and one block holding NaN.
  for (bool poison : {false, true}) {
    std::vector<float> x = planted(false);
    std::mt19937 rng(11);
    std::normal_distribution<float> g(0.0f, 0.5f);
    x.resize(300 * 200);
    for (std::size_t i = 32 * 128; i < x.size(); ++i)
      x[i] = g(rng);
    x[150 * 200 + 150] = 5000.0f; // block (1, 1)
    if (poison)
      x[260 * 200 + 10] = std::numeric_limits<float>::quiet_NaN(); // block (2, 0)
    const TensorStats s = scanValues(x, 200, true);
    const std::vector<double> xd(x.begin(), x.end());
    numeric::QuantizeOptions o;
    o.cols = 200;
    o.weightBlocks = true;
    const numeric::QuantizedTensor q = numeric::quantize(xd, numeric::BlockScheme::Fp8Block, o);
    ASSERT_EQ(q.blocks.size(), 6u);
    std::uint64_t sat = 0, lost = 0, sub = 0, clipped = 0, poisoned = 0;
    double signal = 0.0, noise = 0.0;
    for (const numeric::QuantBlock& b : q.blocks) {
      clipped += b.maxClipped;
      poisoned += std::isnan(b.amax);
    }
    for (std::size_t i = 0; i < xd.size(); ++i) {
      sat += (q.flags[i] & numeric::kSaturated) != 0;
      lost += (q.flags[i] & numeric::kLostToZero) != 0;
      sub += (q.flags[i] & numeric::kSubnormal) != 0;
      if (std::isnan(q.blocks[q.blockOf[i]].amax))
        continue;
      signal += xd[i] * xd[i];
      noise += (xd[i] - q.dequantized[i]) * (xd[i] - q.dequantized[i]);
    }
    const TargetStats& t = s.at(Target::Fp8Block);
    SCOPED_TRACE(poison ? "with a NaN block" : "finite");
    EXPECT_EQ(t.blocks, 6u);
    EXPECT_EQ(t.poisonedBlocks, poison ? 1u : 0u);
    EXPECT_EQ(poisoned, t.poisonedBlocks);
    EXPECT_EQ(t.clippedBlocks, clipped);
    EXPECT_EQ(t.overflow, sat);
    EXPECT_EQ(t.lostToZero, lost);
    EXPECT_EQ(t.subnormal, sub);
    EXPECT_GT(t.lostToZero, 0u);
    expectSqnr(t.sqnrDb(), 10 * std::log10(signal / noise), 1e-3);
    // 1 x 128 tiles differ: the outlier's block spreads its scale over 128 rows.
    const TensorStats tiles = scanValues(x, 200, false);
    EXPECT_EQ(tiles.at(Target::Fp8Block).blocks, 300u * 2u);
    EXPECT_GT(t.lostToZero, tiles.at(Target::Fp8Block).lostToZero);
  }
}

TEST(ModelScan, VectorKernelCountsEqualThePortableCodeCountForCount) {
  if (!modelScanUsesAvx512())
    GTEST_SKIP() << "this CPU has no AVX-512 F/BW/DQ/VL: only the portable code runs";
  // Rows of 4096 and of 300 (a short last tile), 128 x 128 blocks or tiles,
  // the planted edges, NaN and Inf, tiny and huge blocks.
  std::vector<float> x = planted(true);
  std::mt19937 rng(5);
  std::normal_distribution<float> g(0.0f, 1.0f);
  x.resize(600 * 4096 / 8 * 3);
  for (std::size_t i = 32 * 128; i < x.size(); ++i)
    x[i] = g(rng) * std::ldexp(1.0f, int(i / 4096 % 38) * 7 - 140);
  x[700000] = std::numeric_limits<float>::infinity();
  for (std::uint64_t cols : {4096u, 300u})
    for (bool weightBlocks : {false, true}) {
      SCOPED_TRACE("cols " + std::to_string(cols) + (weightBlocks ? " weight blocks" : " tiles"));
      const TensorStats v = scanValues(x, cols, weightBlocks);
      setPortableModelScan(true);
      const TensorStats p = scanValues(x, cols, weightBlocks);
      setPortableModelScan(false);
      EXPECT_EQ(v.hist, p.hist);
      EXPECT_EQ(v.min, p.min);
      EXPECT_EQ(v.max, p.max);
      EXPECT_EQ(v.absmax, p.absmax);
      EXPECT_NEAR(v.sumSquares, p.sumSquares, 1e-12 * p.sumSquares);
      for (Target t : kTargets) {
        SCOPED_TRACE(std::string(targetName(t)));
        EXPECT_EQ(v.at(t).overflow, p.at(t).overflow);
        EXPECT_EQ(v.at(t).lostToZero, p.at(t).lostToZero);
        EXPECT_EQ(v.at(t).subnormal, p.at(t).subnormal);
        EXPECT_EQ(v.at(t).blocks, p.at(t).blocks);
        EXPECT_EQ(v.at(t).clippedBlocks, p.at(t).clippedBlocks);
        EXPECT_EQ(v.at(t).poisonedBlocks, p.at(t).poisonedBlocks);
        expectSqnr(v.at(t).sqnrDb(), p.at(t).sqnrDb(), 1e-3);
      }
      expectCastsMatch(v, x);
    }
}

TEST(ModelScan, FileScanInSlicesOnTwoThreadsEqualsTheWholeTensorScan) {
  // Rows longer than a slice (200000) and many short rows (300 x 1000), F32 and BF16.
  std::mt19937 rng(3);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<float> a(200000), b(300 * 1000);
  for (float& v : a) v = g(rng);
  for (float& v : b) v = g(rng) * 1e-3f;
  a[123456] = 1e6f;
  std::string data, bf;
  for (float v : a) data += le(v);
  for (float v : b) bf += le<std::uint16_t>(std::uint16_t(std::bit_cast<std::uint32_t>(v) >> 16));
  const std::string header = R"({"a":{"dtype":"F32","shape":[200000],"data_offsets":[0,)" +
                             std::to_string(data.size()) + R"(]},"b":{"dtype":"BF16","shape":[300,1000],"data_offsets":[)" +
                             std::to_string(data.size()) + "," + std::to_string(data.size() + bf.size()) + "]}}";
  const fs::path p = writeFile(tempDir() / "m.safetensors", safetensors(header, data + bf));
  const ModelFile m = ModelFile::open(p);
  std::vector<float> bv(b.size());
  for (std::size_t i = 0; i < b.size(); ++i)
    bv[i] = std::bit_cast<float>(std::bit_cast<std::uint32_t>(b[i]) & 0xffff0000u);
  const std::vector<float>* want[] = {&a, &bv};
  const std::uint64_t rowLength[] = {200000, 1000};
  std::vector<ScanProgress> seen;
  const auto stats = scanModel(m, [&](const ScanProgress& pr) { seen.push_back(pr); });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen.back().bytesDone, seen.back().bytesTotal);
  for (int i = 0; i < 2; ++i) {
    // b is 2-D: fp8-block in 128 x 128 weight blocks.
    const TensorStats ref = scanValues(*want[i], rowLength[i], i == 1);
    const TensorStats& s = stats[std::size_t(i)];
    EXPECT_EQ(s.hist, ref.hist);
    EXPECT_EQ(s.absmax, ref.absmax);
    for (Target t : kTargets) {
      SCOPED_TRACE(std::string(targetName(t)));
      EXPECT_EQ(s.at(t).overflow, ref.at(t).overflow);
      EXPECT_EQ(s.at(t).lostToZero, ref.at(t).lostToZero);
      EXPECT_EQ(s.at(t).subnormal, ref.at(t).subnormal);
      EXPECT_EQ(s.at(t).blocks, ref.at(t).blocks);
      EXPECT_EQ(s.at(t).clippedBlocks, ref.at(t).clippedBlocks);
      expectSqnr(s.at(t).sqnrDb(), ref.at(t).sqnrDb(), 1e-3);
    }
  }
  // A cancelled scan leaves the tensors unscanned.
  std::atomic<bool> cancel{true};
  for (const TensorStats& s : scanModel(m, {}, &cancel))
    EXPECT_FALSE(s.scanned);
  fs::remove_all(p.parent_path());
}

// E4M3 (OCP FN: bias 7, no infinities, S.1111.111 NaN) decoded by hand.
double e4m3Ref(std::uint8_t b) {
  const int sign = b >> 7, e = (b >> 3) & 15, m = b & 7;
  if (e == 15 && m == 7)
    return std::numeric_limits<double>::quiet_NaN();
  const double mag = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, e - 7);
  return sign ? -mag : mag;
}

TEST(ModelScales, Block128WeightScaleInvDequantizesExactly) {
  // A 200 x 300 E4M3 weight: 2 x 3 blocks of 128 x 128 (short last row and
  // column of blocks), each with its own FP32 weight_scale_inv.
  const std::uint64_t R = 200, C = 300;
  std::string w;
  std::mt19937 rng(9);
  for (std::uint64_t i = 0; i < R * C; ++i) {
    std::uint8_t b = std::uint8_t(rng());
    if ((b & 0x7f) == 0x7f)
      b &= 0xfe; // no NaN
    w += char(b);
  }
  const float scales[6] = {0.5f, 1.0f / 3.0f, 1.25e-3f, 7.0f, std::ldexp(1.0f, -20), 3.0e-2f};
  std::string sc;
  for (float v : scales)
    sc += le(v);
  const std::string header = R"({"m.l.weight":{"dtype":"F8_E4M3","shape":[200,300],"data_offsets":[0,60000]},)"
                             R"("m.l.weight_scale_inv":{"dtype":"F32","shape":[2,3],"data_offsets":[60000,60024]},)"
                             R"("m.bad.weight":{"dtype":"F8_E4M3","shape":[2,2],"data_offsets":[60024,60028]},)"
                             R"("m.bad.weight_scale_inv":{"dtype":"F32","shape":[2,1],"data_offsets":[60028,60036]}})";
  const fs::path p = writeFile(tempDir() / "q.safetensors",
                               safetensors(header, w + sc + std::string("\x38\x40\x48\x50") + le(1.0f) + le(2.0f)));
  const ModelFile m = ModelFile::open(p);
  const auto pairs = pairScales(m);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].kind, ScaleKind::Block128);
  const ScaleGrid g = scaleGrid(m, pairs[0]);
  ASSERT_TRUE(g.ok()) << g.error;
  EXPECT_EQ(g.rows, 2u);
  EXPECT_EQ(g.cols, 3u);
  EXPECT_TRUE(g.dequantizable);
  std::vector<double> got(R * C);
  dequantize(m, pairs[0], g, 0, got);
  for (std::uint64_t r = 0; r < R; ++r)
    for (std::uint64_t c = 0; c < C; ++c) {
      const double want = e4m3Ref(std::uint8_t(w[r * C + c])) * double(scales[(r / 128) * 3 + c / 128]);
      ASSERT_EQ(got[r * C + c], want) << r << ", " << c;
    }
  // The blocks for the heat map: each block's largest dequantized |value|,
  // from the weight's scan and from reading the weight alike.
  const auto stats = scanModel(m);
  const numeric::QuantizedTensor fromScan = scaleBlocks(m, pairs[0], g, &stats[pairs[0].tensor]);
  const numeric::QuantizedTensor fromRead = scaleBlocks(m, pairs[0], g);
  ASSERT_EQ(fromScan.blocks.size(), 6u);
  ASSERT_EQ(fromRead.blocks.size(), 6u);
  for (std::size_t k = 0; k < 6; ++k) {
    double amax = 0.0;
    const std::uint64_t br = k / 3, bc = k % 3;
    for (std::uint64_t r = br * 128; r < std::min<std::uint64_t>(R, br * 128 + 128); ++r)
      for (std::uint64_t c = bc * 128; c < std::min<std::uint64_t>(C, bc * 128 + 128); ++c)
        amax = std::max(amax, std::fabs(got[r * C + c]));
    EXPECT_EQ(fromScan.blocks[k].amax, amax) << k;
    EXPECT_EQ(fromRead.blocks[k].amax, amax) << k;
    EXPECT_EQ(fromScan.blocks[k].scale, double(scales[k])) << k;
    EXPECT_EQ(fromScan.blocks[k].row, br * 128);
    EXPECT_EQ(fromScan.blocks[k].cols, bc == 2 ? 44u : 128u);
  }
  // A slice from the middle reads the same values.
  std::vector<double> part(500);
  dequantize(m, pairs[0], g, 127 * C + 250, part);
  for (std::size_t i = 0; i < part.size(); ++i)
    ASSERT_EQ(part[i], got[127 * C + 250 + i]) << i;
  // The scales' histogram: one per binade.
  const telemetry::ExponentHistogram h = scaleHistogram(g);
  EXPECT_EQ(h.total, 6u);
  EXPECT_EQ(h.count(-1), 1u);  // 0.5
  EXPECT_EQ(h.count(-2), 1u);  // 1/3
  EXPECT_EQ(h.count(-10), 1u); // 1.25e-3
  EXPECT_EQ(h.count(2), 1u);   // 7
  EXPECT_EQ(h.count(-20), 1u);
  EXPECT_EQ(h.count(-6), 1u);  // 0.03
  // A scale of the wrong shape: no grid, a message naming the shapes.
  EXPECT_FALSE(pairs[1].note.empty());
  const ScaleGrid bad = scaleGrid(m, pairs[1]);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.error.find("[2, 1]"), std::string::npos) << bad.error;
  EXPECT_THROW(dequantize(m, pairs[1], bad, 0, part), std::invalid_argument);
  fs::remove_all(p.parent_path());
}

// --- the other scale layouts ----------------------------------------------------
// Element formats decoded by hand from the OCP MX and OCP FP8 definitions.

// E2M1 (FP4): bias 1, no Inf or NaN; subnormal 0.5.
double e2m1Ref(unsigned b) {
  const int sign = (b >> 3) & 1, e = (b >> 1) & 3, m = b & 1;
  const double mag = e == 0 ? m * 0.5 : std::ldexp(1.0 + m / 2.0, e - 1);
  return sign ? -mag : mag;
}
// E2M3 (FP6): bias 1, no Inf or NaN.
double e2m3Ref(unsigned b) {
  const int sign = (b >> 5) & 1, e = (b >> 3) & 3, m = b & 7;
  const double mag = e == 0 ? std::ldexp(m / 8.0, 0) : std::ldexp(1.0 + m / 8.0, e - 1);
  return sign ? -mag : mag;
}
// E3M2 (FP6): bias 3, no Inf or NaN.
double e3m2Ref(unsigned b) {
  const int sign = (b >> 5) & 1, e = (b >> 2) & 7, m = b & 3;
  const double mag = e == 0 ? std::ldexp(m / 4.0, -2) : std::ldexp(1.0 + m / 4.0, e - 3);
  return sign ? -mag : mag;
}
// E8M0 (MX scale): 2^(e - 127), 0xFF NaN.
double e8m0Ref(unsigned e) {
  return e == 0xFF ? std::numeric_limits<double>::quiet_NaN() : std::ldexp(1.0, int(e) - 127);
}

// Equal bit for bit (-0 is not +0); any NaN equals any NaN.
::testing::AssertionResult sameBits(double got, double want) {
  if (std::isnan(want) ? std::isnan(got) : std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(want))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", want " << want;
}

// A safetensors file from its tensors, in order, offsets counted here.
struct StTensor {
  std::string name, dtype;
  std::vector<std::uint64_t> shape;
  std::string data;
};
std::string safetensorsOf(const std::vector<StTensor>& ts) {
  std::string header = "{", data;
  for (const StTensor& t : ts) {
    header += (header.size() > 1 ? "," : "") + ("\"" + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[");
    for (std::size_t d = 0; d < t.shape.size(); ++d)
      header += (d ? "," : "") + std::to_string(t.shape[d]);
    header += "],\"data_offsets\":[" + std::to_string(data.size()) + "," + std::to_string(data.size() + t.data.size()) + "]}";
    data += t.data;
  }
  return safetensors(header + "}", data);
}

// Codes of `bits` bits packed as a little-endian bit stream (code i in bits
// [bits*i, bits*i + bits)): how safetensors lays out F4 and F6.
std::string packBits(const std::vector<unsigned>& codes, int bits) {
  std::string out((codes.size() * std::size_t(bits) + 7) / 8, '\0');
  for (std::size_t i = 0; i < codes.size(); ++i)
    for (int k = 0; k < bits; ++k)
      if ((codes[i] >> k) & 1u) {
        const std::size_t bit = i * std::size_t(bits) + std::size_t(k);
        out[bit / 8] = char(std::uint8_t(out[bit / 8]) | (1u << (bit % 8)));
      }
  return out;
}

std::vector<unsigned> randomCodes(std::size_t n, int bits, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned> v(n);
  for (auto& c : v)
    c = unsigned(rng()) & ((1u << bits) - 1);
  return v;
}

const ScalePairing& pairingOf(const ModelFile& m, const std::vector<ScalePairing>& pairs, const std::string& name) {
  for (const ScalePairing& p : pairs)
    if (m.tensors()[p.tensor].name == name)
      return p;
  throw std::runtime_error("no pairing for " + name);
}

// The largest |value| per block of a row-major R x C dequantized weight
// (NaN when the block holds one).
std::vector<double> blockAmax(const std::vector<double>& v, std::uint64_t R, std::uint64_t C, std::uint64_t br,
                              std::uint64_t bc) {
  const std::uint64_t gc = (C + bc - 1) / bc;
  std::vector<double> a(((R + br - 1) / br) * gc, 0.0);
  for (std::uint64_t r = 0; r < R; ++r)
    for (std::uint64_t c = 0; c < C; ++c) {
      double& x = a[(r / br) * gc + c / bc];
      const double y = std::fabs(v[r * C + c]);
      x = std::isnan(x) || std::isnan(y) ? std::nan("") : std::max(x, y);
    }
  return a;
}

TEST(ModelScales, PerTensorAndPerRowWeightScaleDequantizeExactly) {
  // An E4M3 weight with one FP32 weight_scale (shape []) and an input_scale,
  // and one with a scale per row ([rows, 1], as channel-wise checkpoints store it).
  const std::uint64_t R = 5, C = 24;
  std::vector<unsigned> w = randomCodes(R * C, 8, 21);
  w[0] = 0x80; // -0
  w[1] = 0x7F; // NaN
  w[2] = 0x7E; // 448
  w[3] = 0x01; // the smallest subnormal
  std::string wb;
  for (unsigned b : w)
    wb += char(b);
  const float scale = 0.0123f, inputScale = 0.75f;
  const float rowScales[R] = {1.5f, 1.0f / 3.0f, 2.5e-5f, 1024.0f, 0.1f};
  std::string rs;
  for (float v : rowScales)
    rs += le(v);
  const fs::path p = writeFile(tempDir() / "t.safetensors",
                               safetensorsOf({{"l.t.weight", "F8_E4M3", {R, C}, wb},
                                              {"l.t.weight_scale", "F32", {}, le(scale)},
                                              {"l.t.input_scale", "F32", {}, le(inputScale)},
                                              {"l.r.weight", "F8_E4M3", {R, C}, wb},
                                              {"l.r.weight_scale", "F32", {R, 1}, rs}}));
  const ModelFile m = ModelFile::open(p);
  const auto pairs = pairScales(m);
  ASSERT_EQ(pairs.size(), 3u);
  const ScalePairing& t = pairingOf(m, pairs, "l.t.weight");
  EXPECT_EQ(t.kind, ScaleKind::PerTensor);
  ASSERT_TRUE(t.scale);
  EXPECT_EQ(m.tensors()[*t.scale].name, "l.t.weight_scale");
  EXPECT_TRUE(t.note.empty()) << t.note;
  const ScalePairing& in = pairingOf(m, pairs, "l.t.input_scale");
  EXPECT_EQ(in.kind, ScaleKind::InputScale);
  EXPECT_TRUE(in.note.empty()) << in.note;
  EXPECT_FALSE(scaleGrid(m, in).ok()); // an activation scale: no weight to dequantize
  const ScalePairing& r = pairingOf(m, pairs, "l.r.weight");
  EXPECT_EQ(r.kind, ScaleKind::PerRow);

  const ScaleGrid g = scaleGrid(m, t);
  ASSERT_TRUE(g.ok()) << g.error;
  ASSERT_TRUE(g.dequantizable);
  EXPECT_EQ(g.rows * g.cols, 1u);
  std::vector<double> got(R * C);
  dequantize(m, t, g, 0, got);
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_TRUE(sameBits(got[i], e4m3Ref(std::uint8_t(w[i])) * double(scale))) << i;
  EXPECT_TRUE(std::signbit(got[0]));

  const ScaleGrid gr = scaleGrid(m, r);
  ASSERT_TRUE(gr.ok()) << gr.error;
  EXPECT_EQ(gr.rows, R);
  EXPECT_EQ(gr.cols, 1u);
  dequantize(m, r, gr, 0, got);
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_TRUE(sameBits(got[i], e4m3Ref(std::uint8_t(w[i])) * double(rowScales[i / C]))) << i;
  const numeric::QuantizedTensor q = scaleBlocks(m, r, gr);
  ASSERT_EQ(q.blocks.size(), R);
  const std::vector<double> amax = blockAmax(got, R, C, 1, C);
  for (std::size_t k = 0; k < R; ++k)
    EXPECT_TRUE(sameBits(q.blocks[k].amax, amax[k])) << k;
  fs::remove_all(p.parent_path());
}

TEST(ModelScales, MxE8m0ScalesPer32DequantizeFp8Fp6Fp4Exactly) {
  // 3 x 80 weights (blocks of 32, 32 and a short 16 per row) in E4M3, E2M3,
  // E3M2 and E2M1, each with its own F8_E8M0 [3, 3] scales, among them
  // 2^-127 (byte 0), 2^127 (254), 1 (127) and NaN (0xFF).
  const std::uint64_t R = 3, C = 80;
  struct Case {
    std::string dtype;
    int bits;
    double (*ref)(unsigned);
    numeric::BlockScheme scheme;
  };
  const std::vector<Case> cases = {
      {"F8_E4M3", 8, [](unsigned b) { return e4m3Ref(std::uint8_t(b)); }, numeric::BlockScheme::Mxfp8E4M3},
      {"F6_E2M3", 6, e2m3Ref, numeric::BlockScheme::Mxfp6E2M3},
      {"F6_E3M2", 6, e3m2Ref, numeric::BlockScheme::Mxfp6E3M2},
      {"F4", 4, e2m1Ref, numeric::BlockScheme::Mxfp4},
  };
  std::vector<StTensor> file;
  std::vector<std::vector<unsigned>> codes, scales;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    codes.push_back(randomCodes(R * C, cases[k].bits, 31 + std::uint32_t(k)));
    if (cases[k].bits == 8)
      for (unsigned& c : codes.back())
        if ((c & 0x7f) == 0x7f)
          c &= 0xfe; // NaN only from the scale
    scales.push_back({0, 254, 127, 0xFF, 120, 131, 1, 100, 140});
    std::rotate(scales.back().begin(), scales.back().begin() + std::ptrdiff_t(k), scales.back().end());
    const std::string name = "mx." + std::to_string(k) + ".weight";
    file.push_back({name, cases[k].dtype, {R, C}, packBits(codes.back(), cases[k].bits)});
    file.push_back({name + "_scale", "F8_E8M0", {R, 3}, packBits(scales.back(), 8)});
  }
  const fs::path p = writeFile(tempDir() / "mx.safetensors", safetensorsOf(file));
  const ModelFile m = ModelFile::open(p);
  const auto pairs = pairScales(m);
  ASSERT_EQ(pairs.size(), cases.size());
  for (std::size_t k = 0; k < cases.size(); ++k) {
    SCOPED_TRACE(cases[k].dtype);
    const ScalePairing& pr = pairingOf(m, pairs, "mx." + std::to_string(k) + ".weight");
    EXPECT_EQ(pr.kind, ScaleKind::Mx32);
    EXPECT_TRUE(pr.note.empty()) << pr.note;
    const ScaleGrid g = scaleGrid(m, pr);
    ASSERT_TRUE(g.ok()) << g.error;
    ASSERT_TRUE(g.dequantizable);
    EXPECT_EQ(g.rows, R);
    EXPECT_EQ(g.cols, 3u);
    EXPECT_EQ(g.blockCols, 32u);
    for (std::size_t b = 0; b < 9; ++b)
      EXPECT_TRUE(sameBits(g.effectiveScale(b), e8m0Ref(scales[k][b]))) << b;
    std::vector<double> got(R * C);
    dequantize(m, pr, g, 0, got);
    for (std::uint64_t i = 0; i < R * C; ++i) {
      const double want = cases[k].ref(codes[k][i]) * e8m0Ref(scales[k][(i / C) * 3 + (i % C) / 32]);
      ASSERT_TRUE(sameBits(got[i], want)) << "value " << i;
    }
    // A slice starting mid-block reads the same values.
    std::vector<double> part(50);
    dequantize(m, pr, g, C + 7, part);
    for (std::size_t i = 0; i < part.size(); ++i)
      ASSERT_TRUE(sameBits(part[i], got[C + 7 + i])) << i;
    const numeric::QuantizedTensor q = scaleBlocks(m, pr, g);
    EXPECT_EQ(q.scheme, cases[k].scheme);
    ASSERT_EQ(q.blocks.size(), 9u);
    const std::vector<double> amax = blockAmax(got, R, C, 1, 32);
    for (std::size_t b = 0; b < 9; ++b) {
      EXPECT_TRUE(sameBits(q.blocks[b].amax, amax[b])) << b;
      EXPECT_EQ(q.blocks[b].cols, b % 3 == 2 ? 16u : 32u);
    }
  }
  fs::remove_all(p.parent_path());
}

TEST(ModelScales, Nvfp4E4m3Per16WithGlobalScaleDequantizesExactly) {
  // NVFP4 as NVIDIA ModelOpt exports it: weight (E2M1; here once as F4 and
  // once packed in U8, two values a byte, the first in the low nibble),
  // weight_scale (E4M3 per 16 along a row), weight_scale_2 (FP32 global),
  // input_scale (FP32). value = e2m1 x e4m3 x global.
  const std::uint64_t R = 4, C = 48;
  const std::vector<unsigned> w = randomCodes(R * C, 4, 41);
  const std::vector<unsigned> s = {0x38, 0x7E, 0x01, 0x22, 0x5B, 0x08, 0x41, 0x30, 0x66, 0x17, 0x3F, 0x70};
  const float global = 0.000713f, inputScale = 0.02f;
  const std::vector<StTensor> layer = {
      {"weight_scale", "F8_E4M3", {R, 3}, packBits(s, 8)},
      {"weight_scale_2", "F32", {}, le(global)},
      {"input_scale", "F32", {}, le(inputScale)},
  };
  std::vector<StTensor> file = {{"nv.f.weight", "F4", {R, C}, packBits(w, 4)},
                                {"nv.u.weight", "U8", {R, C / 2}, packBits(w, 4)}};
  for (const char* l : {"nv.f.", "nv.u."})
    for (StTensor t : layer) {
      t.name = l + t.name;
      file.push_back(t);
    }
  const fs::path p = writeFile(tempDir() / "nvfp4.safetensors", safetensorsOf(file));
  const ModelFile m = ModelFile::open(p);
  const auto pairs = pairScales(m);
  ASSERT_EQ(pairs.size(), 4u); // two weights, two input scales
  for (const char* name : {"nv.f.weight", "nv.u.weight"}) {
    SCOPED_TRACE(name);
    const ScalePairing& pr = pairingOf(m, pairs, name);
    EXPECT_EQ(pr.kind, ScaleKind::Nvfp4);
    EXPECT_TRUE(pr.note.empty()) << pr.note;
    ASSERT_TRUE(pr.globalScale);
    EXPECT_EQ(m.tensors()[*pr.globalScale].name, std::string(name) + "_scale_2");
    const ScaleGrid g = scaleGrid(m, pr);
    ASSERT_TRUE(g.ok()) << g.error;
    ASSERT_TRUE(g.dequantizable);
    EXPECT_EQ(g.rows, R);
    EXPECT_EQ(g.cols, 3u);
    EXPECT_EQ(g.weightCols, C);
    EXPECT_EQ(g.globalScale, double(global));
    std::vector<double> got(R * C);
    dequantize(m, pr, g, 0, got);
    for (std::uint64_t i = 0; i < R * C; ++i) {
      const double want = e2m1Ref(w[i]) * (e4m3Ref(std::uint8_t(s[(i / C) * 3 + (i % C) / 16])) * double(global));
      ASSERT_TRUE(sameBits(got[i], want)) << "value " << i;
    }
    std::vector<double> part(21);
    dequantize(m, pr, g, 2 * C + 5, part); // an odd first value: the high nibble
    for (std::size_t i = 0; i < part.size(); ++i)
      ASSERT_TRUE(sameBits(part[i], got[2 * C + 5 + i])) << i;
    EXPECT_THROW(dequantize(m, pr, g, R * C - 3, part), std::invalid_argument);
    const numeric::QuantizedTensor q = scaleBlocks(m, pr, g);
    EXPECT_EQ(q.scheme, numeric::BlockScheme::Nvfp4);
    ASSERT_EQ(q.blocks.size(), 12u);
    const std::vector<double> amax = blockAmax(got, R, C, 1, 16);
    for (std::size_t b = 0; b < 12; ++b)
      EXPECT_TRUE(sameBits(q.blocks[b].amax, amax[b])) << b;
  }
  const ScalePairing& in = pairingOf(m, pairs, "nv.f.input_scale");
  EXPECT_EQ(in.kind, ScaleKind::InputScale);
  fs::remove_all(p.parent_path());
}

TEST(ModelScales, GptOssPackedBlocksAndScalesDequantizeExactly) {
  // GPT-OSS's MXFP4 experts: "X_blocks" U8 [experts, rows, groups, 16] (32
  // E2M1 values per group, the first in the low nibble) and "X_scales" U8
  // [experts, rows, groups] holding E8M0 bytes. Here 2 x 3 rows of 2 groups.
  const std::uint64_t E = 2, Rw = 3, G = 2, R = E * Rw, C = G * 32;
  const std::vector<unsigned> w = randomCodes(R * C, 4, 51);
  std::vector<unsigned> s = {127, 0, 254, 0xFF, 126, 133, 90, 160, 127, 128, 1, 200};
  const fs::path p = writeFile(tempDir() / "oss.safetensors",
                               safetensorsOf({{"model.layers.0.mlp.experts.down_proj_blocks", "U8", {E, Rw, G, 16}, packBits(w, 4)},
                                              {"model.layers.0.mlp.experts.down_proj_scales", "U8", {E, Rw, G}, packBits(s, 8)}}));
  const ModelFile m = ModelFile::open(p);
  const auto pairs = pairScales(m);
  ASSERT_EQ(pairs.size(), 1u);
  const ScalePairing& pr = pairs[0];
  EXPECT_EQ(m.tensors()[pr.tensor].name, "model.layers.0.mlp.experts.down_proj_blocks");
  EXPECT_EQ(pr.kind, ScaleKind::Mx32);
  EXPECT_TRUE(pr.note.empty()) << pr.note;
  const ScaleGrid g = scaleGrid(m, pr);
  ASSERT_TRUE(g.ok()) << g.error;
  ASSERT_TRUE(g.dequantizable);
  EXPECT_EQ(g.weightRows, R);
  EXPECT_EQ(g.weightCols, C);
  EXPECT_EQ(g.rows, R);
  EXPECT_EQ(g.cols, G);
  std::vector<double> got(R * C);
  dequantize(m, pr, g, 0, got);
  for (std::uint64_t i = 0; i < R * C; ++i)
    ASSERT_TRUE(sameBits(got[i], e2m1Ref(w[i]) * e8m0Ref(s[i / 32]))) << "value " << i;
  const numeric::QuantizedTensor q = scaleBlocks(m, pr, g);
  EXPECT_EQ(q.scheme, numeric::BlockScheme::Mxfp4);
  ASSERT_EQ(q.blocks.size(), R * G);
  const std::vector<double> amax = blockAmax(got, R, C, 1, 32);
  for (std::size_t b = 0; b < q.blocks.size(); ++b)
    EXPECT_TRUE(sameBits(q.blocks[b].amax, amax[b])) << b;
  fs::remove_all(p.parent_path());
}

TEST(ModelScales, OrphansAndMismatchedScaleShapesAreFlaggedByName) {
  const std::string f32 = le(0.5f);
  const fs::path p = writeFile(
      tempDir() / "orphans.safetensors",
      safetensorsOf({// scales with no weight
                     {"o.a.weight_scale", "F32", {}, f32},
                     {"o.b.weight_scale_inv", "F32", {1, 1}, f32},
                     {"o.c.input_scale", "F32", {}, f32},
                     {"o.d.weight_scale_2", "F32", {}, f32},
                     {"o.e_scales", "U8", {2, 2}, std::string(4, '\x7f')},
                     // values with no scale
                     {"o.f_blocks", "U8", {2, 1, 16}, std::string(32, '\x11')},
                     {"o.g.weight", "F8_E4M3", {2, 4}, std::string(8, '\x38')},
                     // scales of the wrong shape: the right count, the wrong shape ...
                     {"mm.x.weight", "F4", {4, 64}, std::string(128, '\x22')},
                     {"mm.x.weight_scale", "F8_E8M0", {2, 4}, std::string(8, '\x7f')},
                     // ... a count no layout has ...
                     {"mm.y.weight", "F8_E4M3", {4, 32}, std::string(128, '\x38')},
                     {"mm.y.weight_scale", "F32", {3}, f32 + f32 + f32},
                     // ... and packed groups with scales of another shape.
                     {"mm.z_blocks", "U8", {2, 2, 16}, std::string(64, '\x11')},
                     {"mm.z_scales", "U8", {2, 3}, std::string(6, '\x7f')}}));
  const ModelFile m = ModelFile::open(p);
  const auto pairs = pairScales(m);
  const std::vector<std::pair<std::string, std::string>> orphans = {
      {"o.a.weight_scale", "'o.a.weight'"},    {"o.b.weight_scale_inv", "'o.b.weight'"},
      {"o.c.input_scale", "'o.c.weight'"},     {"o.d.weight_scale_2", "'o.d.weight_scale'"},
      {"o.e_scales", "'o.e_blocks'"},          {"o.f_blocks", "'o.f_scales'"},
      {"o.g.weight", "F8_E4M3 values with no scale tensor"}};
  for (const auto& [name, missing] : orphans) {
    SCOPED_TRACE(name);
    const ScalePairing& pr = pairingOf(m, pairs, name);
    EXPECT_EQ(pr.kind, ScaleKind::Orphan);
    EXPECT_NE(pr.note.find(missing), std::string::npos) << pr.note;
    EXPECT_FALSE(scaleGrid(m, pr).ok());
  }
  const std::vector<std::pair<std::string, std::vector<std::string>>> mismatched = {
      {"mm.x.weight", {"'mm.x.weight_scale'", "[2, 4]", "expected [4, 2]"}},
      {"mm.y.weight", {"'mm.y.weight_scale'", "'mm.y.weight'", "not recognised"}},
      {"mm.z_blocks", {"'mm.z_scales'", "[2, 3]", "expected [2, 2]"}}};
  for (const auto& [name, parts] : mismatched) {
    SCOPED_TRACE(name);
    const ScalePairing& pr = pairingOf(m, pairs, name);
    for (const std::string& part : parts)
      EXPECT_NE(pr.note.find(part), std::string::npos) << pr.note;
    const ScaleGrid g = scaleGrid(m, pr);
    EXPECT_FALSE(g.ok());
    EXPECT_EQ(g.error, pr.note);
    std::vector<double> dst(4);
    EXPECT_THROW(dequantize(m, pr, g, 0, dst), std::invalid_argument);
  }
  EXPECT_EQ(pairs.size(), orphans.size() + mismatched.size());
  fs::remove_all(p.parent_path());
}

TEST(ModelReport, VerdictsNameTheOverflowingTensorsAndScalesPairWithTheirWeights) {
  // w overflows FP16 (70000); q is E4M3 with a 128 x 128 scale; o is an orphan E4M3.
  std::string data = le(70000.0f) + le(1.0f);
  std::string header = R"({"lm_head.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                       R"("l.q.weight":{"dtype":"F8_E4M3","shape":[2,2],"data_offsets":[8,12]},)"
                       R"("l.q.weight_scale_inv":{"dtype":"F32","shape":[1,1],"data_offsets":[12,16]},)"
                       R"("l.o.weight":{"dtype":"F8_E4M3","shape":[2,2],"data_offsets":[16,20]}})";
  data += "\x38\x40\x48\x50" + le(0.5f) + "\x38\x40\x48\x50";
  const fs::path p = writeFile(tempDir() / "m.safetensors", safetensors(header, data));
  const ModelFile m = ModelFile::open(p);
  const auto stats = scanModel(m);
  const auto v = verdicts(m, stats);
  EXPECT_EQ(v[0].overflowing, std::vector<std::string>{"lm_head.weight"});
  EXPECT_NE(v[0].text.find("1 tensor overflows: lm_head.weight (keep it in BF16)"), std::string::npos) << v[0].text;
  EXPECT_TRUE(v[1].overflowing.empty());
  const auto pairs = pairScales(m);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(m.tensors()[pairs[0].tensor].name, "l.q.weight");
  EXPECT_EQ(pairs[0].kind, ScaleKind::Block128);
  EXPECT_TRUE(pairs[0].note.empty()) << pairs[0].note;
  EXPECT_EQ(m.tensors()[pairs[1].tensor].name, "l.o.weight");
  EXPECT_EQ(pairs[1].kind, ScaleKind::Orphan);
  const std::string csv = reportCsv(m, stats);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
  const auto json = nlohmann::json::parse(reportJson(m, stats));
  EXPECT_EQ(json["tensors"][0]["formats"]["fp16"]["overflow"], 1);
  EXPECT_NE(reportHtml(m, stats).find("lm_head.weight"), std::string::npos);
  fs::remove_all(p.parent_path());
}

} // namespace
