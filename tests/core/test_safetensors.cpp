// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The safetensors reader and writer against files assembled by hand here,
// byte by byte from the format's definition (8-byte little-endian length,
// JSON header, C-order little-endian data), never by the writer under test.
// Every hostile file is refused with a message naming the tensor or field.
#include <mantissa/build_flags.h>
#include <mantissa/io/safetensors.h>
#include <mantissa/io/safetensors_format.h>

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace mantissa::io;

// --- the independent writer: a tiny struct packer -------------------------

std::string le64(std::uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i)
    s[std::size_t(i)] = char((v >> (8 * i)) & 0xff);
  return s;
}
std::string le32(std::uint32_t v) {
  std::string s(4, '\0');
  for (int i = 0; i < 4; ++i)
    s[std::size_t(i)] = char((v >> (8 * i)) & 0xff);
  return s;
}
std::string f32(float v) { return le32(std::bit_cast<std::uint32_t>(v)); }
std::string le16(std::uint16_t v) { return {char(v & 0xff), char(v >> 8)}; }

// A file: the length of `header` as written (no padding added), then the data.
std::string file(const std::string& header, const std::string& data) {
  return le64(header.size()) + header + data;
}

std::span<const std::byte> bytesOf(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

SafetensorsHeader parse(const std::string& bytes) { return parseSafetensors(bytesOf(bytes), "'t.safetensors'"); }

// parse() refuses `bytes` with a message containing each of `parts`.
void expectRefused(const std::string& bytes, std::initializer_list<std::string> parts) {
  try {
    parse(bytes);
    ADD_FAILURE() << "accepted";
  } catch (const SafetensorsError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("'t.safetensors': ", 0), 0u) << m;
    for (const auto& p : parts)
      EXPECT_NE(m.find(p), std::string::npos) << "missing \"" << p << "\" in: " << m;
  }
}

class TempDir {
public:
  TempDir() {
    std::random_device rd;
    m_path = fs::temp_directory_path() / ("mantissa-st-" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(m_path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(m_path, ec);
  }
  fs::path write(const std::string& name, const std::string& bytes) const {
    const auto p = m_path / name;
    std::ofstream(p, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
    return p;
  }
  const fs::path& path() const { return m_path; }

private:
  fs::path m_path;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary | std::ios::ate);
  std::string s(std::size_t(in.tellg()), '\0');
  in.seekg(0).read(s.data(), std::streamsize(s.size()));
  return s;
}

// --- reading files written by hand ----------------------------------------

TEST(Safetensors, ReadsAHandWrittenFile) {
  // w: F32 [2, 2] = 1, -2, 0.5, 3e38; b: BF16 [3] = 1.0 (0x3F80), -0.0 (0x8000), 2.0 (0x4000).
  const std::string data = f32(1.0f) + f32(-2.0f) + f32(0.5f) + f32(3e38f) + le16(0x3F80) +
                           le16(0x8000) + le16(0x4000);
  const std::string header =
      R"({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}, )"
      R"("__metadata__": {"format": "pt", "config": "{\"steps\": 3}"}, )"
      R"("b": {"shape": [3], "data_offsets": [16, 22], "dtype": "BF16"}})";
  const std::string bytes = file(header, data);
  const SafetensorsHeader h = parse(bytes);
  EXPECT_EQ(h.dataOffset, 8 + header.size());
  EXPECT_EQ(h.dataBytes, 22u);
  ASSERT_EQ(h.tensors.size(), 2u);
  EXPECT_EQ(h.tensors[0].name, "w");
  EXPECT_EQ(h.tensors[0].dtype, SafetensorsDType::F32);
  EXPECT_EQ(h.tensors[0].shape, (std::vector<std::uint64_t>{2, 2}));
  EXPECT_EQ(h.tensors[0].begin, 0u);
  EXPECT_EQ(h.tensors[0].end, 16u);
  EXPECT_EQ(h.tensors[1].name, "b");
  EXPECT_EQ(h.tensors[1].dtype, SafetensorsDType::BF16);
  EXPECT_EQ(h.tensors[1].bytes(), 6u);
  ASSERT_EQ(h.metadata.size(), 2u);
  EXPECT_EQ(*h.metadataValue("config"), "{\"steps\": 3}");
  EXPECT_EQ(*h.metadataValue("format"), "pt");
  EXPECT_EQ(h.metadataValue("absent"), nullptr);

  // The same file from disk, and its data.
  TempDir dir;
  SafetensorsReader reader(dir.write("w.safetensors", bytes));
  ASSERT_EQ(reader.header().tensors.size(), 2u);
  const auto w = reader.read(*reader.header().find("w"));
  ASSERT_EQ(w.size(), 16u);
  float v[4];
  std::memcpy(v, w.data(), 16);
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[1], -2.0f);
  EXPECT_EQ(v[2], 0.5f);
  EXPECT_EQ(v[3], 3e38f);
  const auto b = reader.read(*reader.header().find("b"));
  ASSERT_EQ(b.size(), 6u);
  EXPECT_EQ(std::to_integer<int>(b[0]), 0x80);
  EXPECT_EQ(std::to_integer<int>(b[1]), 0x3F);
  EXPECT_EQ(std::to_integer<int>(b[3]), 0x80);
}

TEST(Safetensors, AnEmptyFileOfTensorsAndScalarsAndEmptyTensorsRead) {
  EXPECT_TRUE(parse(file("{}", "")).tensors.empty());
  // A scalar (shape []) is one element; a zero dimension is no bytes, anywhere in the buffer.
  const auto h = parse(file(R"({"s":{"dtype":"F64","shape":[],"data_offsets":[0,8]},)"
                            R"("e":{"dtype":"F32","shape":[0,5],"data_offsets":[8,8]}})",
                            std::string(8, '\0')));
  ASSERT_EQ(h.tensors.size(), 2u);
  EXPECT_EQ(h.find("s")->bytes(), 8u);
  EXPECT_EQ(h.find("e")->bytes(), 0u);
}

TEST(Safetensors, EveryDTypeOfTheFormatHasItsBitWidth) {
  const std::vector<std::pair<std::string, int>> table = {
      {"BOOL", 8},     {"U8", 8},           {"I8", 8},           {"I16", 16},      {"U16", 16},
      {"I32", 32},     {"U32", 32},         {"I64", 64},         {"U64", 64},      {"F16", 16},
      {"BF16", 16},    {"F32", 32},         {"F64", 64},         {"F8_E4M3", 8},   {"F8_E5M2", 8},
      {"F8_E8M0", 8},  {"F8_E4M3FNUZ", 8},  {"F8_E5M2FNUZ", 8},  {"F6_E2M3", 6},   {"F6_E3M2", 6},
      {"F4", 4}};
  for (const auto& [name, bits] : table) {
    const auto dtype = safetensorsDTypeFromName(name);
    ASSERT_TRUE(dtype) << name;
    EXPECT_EQ(safetensorsDTypeName(*dtype), name);
    EXPECT_EQ(safetensorsDTypeBits(*dtype), bits) << name;
    // 8 elements fill `bits` bytes, in a file.
    const std::string header = R"({"x":{"dtype":")" + name + R"(","shape":[2,4],"data_offsets":[0,)" +
                               std::to_string(bits) + "]}}";
    EXPECT_EQ(parse(file(header, std::string(std::size_t(bits), '\x5a'))).tensors.at(0).bytes(),
              std::uint64_t(bits))
        << name;
  }
  EXPECT_FALSE(safetensorsDTypeFromName("f32"));
  EXPECT_FALSE(safetensorsDTypeFromName("FP8"));
}

TEST(Safetensors, SubByteTypesPackAndMustEndOnAByte) {
  // F4: 2 elements a byte; F6: 4 elements in 3 bytes.
  EXPECT_EQ(parse(file(R"({"q":{"dtype":"F4","shape":[3,2],"data_offsets":[0,3]}})", "abc"))
                .tensors[0].bytes(), 3u);
  EXPECT_EQ(parse(file(R"({"q":{"dtype":"F6_E2M3","shape":[4],"data_offsets":[0,3]}})", "abc"))
                .tensors[0].bytes(), 3u);
  expectRefused(file(R"({"q":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})", "ab"),
                {"tensor \"q\"", "12 bits, not a whole number of bytes"});
  expectRefused(file(R"({"q":{"dtype":"F6_E3M2","shape":[2],"data_offsets":[0,2]}})", "ab"),
                {"tensor \"q\"", "not a whole number of bytes"});
}

TEST(Safetensors, NanAndInfinityLoadBitForBit) {
  const std::uint32_t quietNan = 0x7FC00000u, payloadNan = 0xFFA5A5A5u, inf = 0x7F800000u;
  const std::string data = le32(quietNan) + le32(payloadNan) + le32(inf);
  TempDir dir;
  SafetensorsReader reader(
      dir.write("nan.safetensors", file(R"({"n":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}})", data)));
  const auto got = reader.read(reader.header().tensors.at(0));
  std::uint32_t bits[3];
  std::memcpy(bits, got.data(), 12);
  EXPECT_EQ(bits[0], quietNan);
  EXPECT_EQ(bits[1], payloadNan);
  EXPECT_EQ(bits[2], inf);
  EXPECT_TRUE(std::isnan(std::bit_cast<float>(bits[1])));
}

// --- writing ----------------------------------------------------------------

TEST(Safetensors, TheWriterProducesTheFormatsBytes) {
  const std::string a = f32(1.0f) + f32(-2.0f);
  const std::string b = std::string("\x01\x02\x03", 3);
  const std::vector<SafetensorsEntry> entries = {
      {"a", SafetensorsDType::F32, {2}, bytesOf(a)},
      {"layers.0.b", SafetensorsDType::U8, {1, 3}, bytesOf(b)},
  };
  const std::string got = safetensorsBytes(entries, {{"version", "1"}, {"config", "{\"a\": \"\\n\"}"}});
  // Metadata first with sorted keys, tensors in the given order, data packed,
  // header padded with spaces to a multiple of 8.
  std::string header = R"({"__metadata__":{"config":"{\"a\": \"\\n\"}","version":"1"},)"
                       R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                       R"("layers.0.b":{"dtype":"U8","shape":[1,3],"data_offsets":[8,11]}})";
  header.append((8 - header.size() % 8) % 8, ' ');
  ASSERT_EQ(header.size() % 8, 0u);
  EXPECT_EQ(got, le64(header.size()) + header + a + b);
}

TEST(Safetensors, WrittenFilesReadBackForEveryDType) {
  TempDir dir;
  std::vector<std::string> store;
  std::vector<SafetensorsEntry> entries;
  std::mt19937 rng(7);
  for (int d = 0; d <= int(SafetensorsDType::F4); ++d) {
    // Shape [2, 4]: 8 elements fill as many bytes as the type has bits.
    std::string data(std::size_t(safetensorsDTypeBits(SafetensorsDType(d))), '\0');
    for (auto& c : data)
      c = char(rng());
    store.push_back(std::move(data));
  }
  for (int d = 0; d <= int(SafetensorsDType::F4); ++d)
    entries.push_back({"t." + std::string(safetensorsDTypeName(SafetensorsDType(d))),
                       SafetensorsDType(d), {2, 4}, bytesOf(store[std::size_t(d)])});
  const auto path = dir.path() / "all.safetensors";
  writeSafetensors(path, entries, {{"k", "v"}});
  SafetensorsReader reader(path);
  ASSERT_EQ(reader.header().tensors.size(), entries.size());
  for (const auto& e : entries) {
    const auto* t = reader.header().find(e.name);
    ASSERT_NE(t, nullptr) << e.name;
    EXPECT_EQ(t->dtype, e.dtype);
    EXPECT_EQ(t->shape, e.shape);
    const auto got = reader.read(*t);
    ASSERT_EQ(got.size(), e.data.size());
    EXPECT_EQ(std::memcmp(got.data(), e.data.data(), got.size()), 0) << e.name;
  }
  EXPECT_EQ(*reader.header().metadataValue("k"), "v");
  // The header length the file states is a multiple of 8.
  EXPECT_EQ(reader.header().dataOffset % 8, 0u);
}

TEST(Safetensors, TheWriterRefusesBadTensorsAndLeavesTheFileAsItWas) {
  TempDir dir;
  const auto path = dir.write("keep.safetensors", "old");
  const std::string four = f32(1.0f);
  const auto refused = [&](std::vector<SafetensorsEntry> entries, const std::string& part,
                           std::vector<std::pair<std::string, std::string>> metadata = {}) {
    try {
      writeSafetensors(path, entries, metadata);
      ADD_FAILURE() << "written: " << part;
    } catch (const SafetensorsError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("keep.safetensors"), std::string::npos) << e.what();
    }
    EXPECT_EQ(slurp(path), "old");
  };
  refused({{"w", SafetensorsDType::F32, {2}, bytesOf(four)}}, "tensor \"w\": shape [2] of F32 is 8 bytes, the data 4");
  refused({{"w", SafetensorsDType::F32, {1}, bytesOf(four)}, {"w", SafetensorsDType::F32, {1}, bytesOf(four)}},
          "tensor \"w\": the name is given twice");
  refused({{"__metadata__", SafetensorsDType::F32, {1}, bytesOf(four)}}, "metadata key");
  refused({{"w\xff", SafetensorsDType::F32, {1}, bytesOf(four)}}, "not valid UTF-8");
  refused({}, "key \"k\" given twice", {{"k", "1"}, {"k", "2"}});
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1)
      << "no temporary file is left behind";
}

// --- hostile files ----------------------------------------------------------

const std::string kGood = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                          R"("b":{"dtype":"U8","shape":[4],"data_offsets":[8,12]}})";
const std::string kGoodData(12, '\x11');

TEST(SafetensorsHostile, TruncatedFiles) {
  const std::string whole = file(kGood, kGoodData);
  ASSERT_NO_THROW(parse(whole));
  expectRefused(whole.substr(0, 5), {"5 bytes, too short for the 8-byte header length"});
  expectRefused(whole.substr(0, 8 + 10), {"header length", "runs past the end of the file (18 bytes"});
  // Cut in the data: the last tensor's range runs past the end.
  expectRefused(whole.substr(0, whole.size() - 3),
                {"tensor \"b\"", "\"data_offsets\" end at 12, past the end of the data (9 bytes)"});
  // A byte too many belongs to no tensor.
  expectRefused(whole + "x", {"cover 12 bytes of data, but the file holds 13", "1 bytes belong to no tensor"});
}

TEST(SafetensorsHostile, HeaderLengthPastTheEndOrOverTheLimit) {
  expectRefused(le64(1000) + "{}", {"header length 1000 runs past the end of the file (10 bytes"});
  expectRefused(le64(UINT64_MAX) + "{}", {"header length 18446744073709551615 is over the limit of 100 MB"});
  expectRefused(le64(100'000'001) + "{}", {"over the limit of 100 MB"});
}

TEST(SafetensorsHostile, BadJson) {
  expectRefused(file(R"({"a":{"dtype":"F32",)", ""), {"header: not valid JSON: the text ends before"});
  expectRefused(file(R"({"a" "b"})", ""), {"header: not valid JSON at header byte "});
  expectRefused(file("[]", ""), {"header: expected a JSON object, got an array"});
  expectRefused(file("{} {}", ""), {"not valid JSON"});
  expectRefused(file(std::string("{}\0\0", 4), ""), {"header byte 2: a NUL byte"});
  expectRefused(file(R"({"a":[[[[[[[[[[]]]]]]]]]]})", ""), {"tensor \"a\": expected an object, got an array"});
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[[1]],"data_offsets":[0,4]}})", ""),
                {"tensor \"a\": \"shape\" must hold non-negative integers, got an array"});
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", ""),
                {"tensor \"a\"", "got a negative number"});
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})", ""),
                {"tensor \"a\"", "got a number that is not a 64-bit integer"});
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4,4]}})", ""),
                {"tensor \"a\"", "\"data_offsets\" has more than 2 numbers"});
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4]}})", ""),
                {"tensor \"a\"", "\"data_offsets\" has 1 numbers, expected 2"});
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[1]}})", ""), {"tensor \"a\": no \"data_offsets\" field"});
  expectRefused(file(R"({"a":{"dtype":"F32","dtype":"F16","shape":[1],"data_offsets":[0,4]}})", ""),
                {"tensor \"a\": duplicate key \"dtype\""});
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"extra":1}})", ""),
                {"tensor \"a\": unknown field \"extra\""});
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                     R"("a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", std::string(8, '\0')),
                {"header: duplicate key \"a\""});
  expectRefused(file(R"({"__metadata__":{"k":1}})", ""), {"\"__metadata__\": \"k\" must be a string, got a number"});
  expectRefused(file(R"({"__metadata__":{"k":"1","k":"2"}})", ""), {"\"__metadata__\": duplicate key \"k\""});
  expectRefused(file(R"({"__metadata__":"x"})", ""), {"\"__metadata__\" must be an object of strings"});
  expectRefused(file(R"({"a":{"dtype":32,"shape":[1],"data_offsets":[0,4]}})", ""),
                {"tensor \"a\": \"dtype\" must be a string, got a number"});
  expectRefused(file("{\"\xff\":{}}", ""), {"not valid JSON"});
}

TEST(SafetensorsHostile, OverlappingOffsets) {
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                     R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", std::string(8, '\0')),
                {"tensor \"b\": \"data_offsets\" [4, 8] overlap tensor \"a\" [0, 8]"});
  // The same range twice.
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                     R"("b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", std::string(4, '\0')),
                {"overlap tensor \"a\""});
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}})", std::string(4, '\0')),
                {"tensor \"a\": \"data_offsets\" [4, 0] end before they begin"});
}

TEST(SafetensorsHostile, GapsBetweenOrBeforeTensors) {
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                     R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})", std::string(12, '\0')),
                {"tensor \"b\": \"data_offsets\" begin at 8, leaving a gap of 4 bytes after tensor \"a\""});
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", std::string(8, '\0')),
                {"tensor \"a\"", "gap of 4 bytes after the start of the data"});
}

TEST(SafetensorsHostile, ShapeProductOverflowAndSizeMismatch) {
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", ""),
                {"tensor \"a\": shape [4294967296, 4294967296] has more elements than 2^64"});
  // 2^62 elements fit, their 2^67 bits do not.
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[4611686018427387904],"data_offsets":[0,0]}})", ""),
                {"tensor \"a\"", "holds more than 2^64 bits"});
  // 2^33 * 2^31 wraps to 0 in 64 bits, which a zero-byte range would match.
  expectRefused(file(R"({"a":{"dtype":"U8","shape":[8589934592,2147483648],"data_offsets":[0,0]}})", ""),
                {"more elements than 2^64"});
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", std::string(8, '\0')),
                {"tensor \"a\": shape [3] of F32 is 12 bytes, but \"data_offsets\" [0, 8] hold 8"});
  expectRefused(file(R"({"a":{"dtype":"F32","shape":[18446744073709551616],"data_offsets":[0,8]}})", ""),
                {"tensor \"a\"", "got a number that is not a 64-bit integer"});
}

TEST(SafetensorsHostile, UnknownDType) {
  expectRefused(file(R"({"w":{"dtype":"F128","shape":[1],"data_offsets":[0,16]}})", std::string(16, '\0')),
                {"tensor \"w\": unknown dtype \"F128\""});
}

TEST(SafetensorsHostile, NotARegularFile) {
  TempDir dir;
  try {
    SafetensorsReader reader(dir.path());
    ADD_FAILURE() << "a directory was read";
  } catch (const SafetensorsError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(SafetensorsReader(dir.path() / "absent.safetensors"), SafetensorsError);
}

// A million tiny tensors: read, in memory bounded by a small multiple of
// the header (no JSON tree, one record per tensor).
TEST(SafetensorsHostile, AMillionTensors) {
  constexpr int n = 1'000'000;
  TempDir dir;
  fs::path path;
  std::uint64_t size = 0;
  {
    std::string header = "{";
    header.reserve(std::size_t(n) * 64);
    char name[16];
    for (int i = 0; i < n; ++i) {
      std::snprintf(name, sizeof name, "t%07d", i);
      header += std::string(i ? "," : "") + "\"" + name + "\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[" +
                std::to_string(i) + "," + std::to_string(i + 1) + "]}";
    }
    header += "}";
    const std::string bytes = file(header, std::string(std::size_t(n), '\x7f'));
    size = bytes.size();
    path = dir.write("million.safetensors", bytes);
  }
  // In a child process, so that the peak resident set is the read's alone.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      SafetensorsReader reader(path);
      const auto& t = reader.header().tensors;
      const bool ok = t.size() == std::size_t(n) && t.front().name == "t0000000" &&
                      t.back().name == "t0999999" && t.back().begin == std::uint64_t(n - 1) &&
                      reader.header().dataBytes == std::uint64_t(n);
      _exit(ok ? 0 : 1);
    } catch (...) {
      _exit(2);
    }
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  const long long peak = static_cast<long long>(u.ru_maxrss) * 1024;
  RecordProperty("peak_resident_mib", int(peak >> 20));
  RecordProperty("file_mib", int(size >> 20));
  // ASan's shadow and quarantine change the resident set
  if (!mantissa::builtWithSanitizer()) {
    EXPECT_LT(peak, 4 * static_cast<long long>(size) + (64ll << 20))
        << "peak " << (peak >> 20) << " MiB for a file of " << (size >> 20) << " MiB";
  }
}

} // namespace

namespace {

// F8_E4M3FNUZ and F8_E5M2FNUZ bytes written by hand, read as their formats
// (ml_dtypes' float8_e4m3fnuz / float8_e5m2fnuz: bias 8 and 16, 0x80 the one
// NaN, no -0), then written back through the encoder and byte-compared.
TEST(SafetensorsFormats, FnuzTensorsReadAndWriteAsTheirFormats) {
  // e4m3fnuz: 0x40 = 1.0, 0x7f = 240 (max), 0x80 = NaN, 0x01 = 2^-10, 0xc0 = -1.0.
  // e5m2fnuz: 0x40 = 1.0, 0x7f = 57344 (max), 0x01 = 2^-17, 0x80 = NaN.
  const std::string e4 = "\x40\x7f\x80\x01\xc0", e5 = "\x40\x7f\x01\x80";
  const std::string header =
      R"({"a": {"dtype": "F8_E4M3FNUZ", "shape": [5], "data_offsets": [0, 5]}, )"
      R"("b": {"dtype": "F8_E5M2FNUZ", "shape": [4], "data_offsets": [5, 9]}})";
  const std::string bytes = file(header, e4 + e5);
  const SafetensorsHeader h = parse(bytes);
  ASSERT_EQ(safetensorsDTypeFormat(h.tensors[0].dtype), mantissa::numeric::FormatId::Fp8E4M3Fnuz);
  ASSERT_EQ(safetensorsDTypeFormat(h.tensors[1].dtype), mantissa::numeric::FormatId::Fp8E5M2Fnuz);
  const auto a = decodeSafetensorsElements(h.tensors[0].dtype, bytesOf(e4));
  EXPECT_EQ(a[0], 1.0);
  EXPECT_EQ(a[1], 240.0);
  EXPECT_TRUE(std::isnan(a[2]));
  EXPECT_EQ(a[3], std::ldexp(1.0, -10));
  EXPECT_EQ(a[4], -1.0);
  const auto b = decodeSafetensorsElements(h.tensors[1].dtype, bytesOf(e5));
  EXPECT_EQ(b[0], 1.0);
  EXPECT_EQ(b[1], 57344.0);
  EXPECT_EQ(b[2], std::ldexp(1.0, -17));
  EXPECT_TRUE(std::isnan(b[3]));

  // Written back: the same bytes; -0 is stored as +0 (there is no -0).
  const auto aBytes = encodeSafetensorsElements(SafetensorsDType::F8E4M3Fnuz, a);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(aBytes.data()), aBytes.size()), e4);
  const double minusZero[] = {-0.0};
  EXPECT_EQ(std::to_integer<int>(encodeSafetensorsElements(SafetensorsDType::F8E4M3Fnuz, minusZero)[0]), 0);
  TempDir dir;
  const std::vector<SafetensorsEntry> entries{{"a", SafetensorsDType::F8E4M3Fnuz, {5}, aBytes}};
  writeSafetensors(dir.path() / "fnuz.safetensors", entries, {});
  SafetensorsReader reader(dir.path() / "fnuz.safetensors");
  EXPECT_EQ(reader.header().tensors[0].dtype, SafetensorsDType::F8E4M3Fnuz);
  EXPECT_EQ(decodeSafetensorsElements(SafetensorsDType::F8E4M3Fnuz, reader.read(reader.header().tensors[0]))[1],
            240.0);
  EXPECT_EQ(safetensorsDTypeOf(mantissa::numeric::FormatId::Fp8E5M2Fnuz), SafetensorsDType::F8E5M2Fnuz);
  EXPECT_FALSE(safetensorsDTypeOf(mantissa::numeric::FormatId::Fp8E3M4));
  EXPECT_THROW(decodeSafetensorsElements(SafetensorsDType::F4, bytesOf("\x12")), SafetensorsError);
}

} // namespace
