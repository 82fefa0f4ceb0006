// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// `mantissa-cli model` on files packed by hand in this test: a safetensors
// model whose planted values overflow FP16 and E4M3, a 5 GB sparse file
// listed without reading its data, a sharded index naming a path outside
// its folder, and a GGUF file whose counts point past its end.
#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <bit>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

using mantissa::test::runCli;
namespace fs = std::filesystem;

std::string le(std::uint64_t v, int bytes) {
  std::string s(std::size_t(bytes), '\0');
  for (int i = 0; i < bytes; ++i)
    s[std::size_t(i)] = char((v >> (8 * i)) & 0xff);
  return s;
}
std::string f32(float v) { return le(std::bit_cast<std::uint32_t>(v), 4); }

fs::path dir() {
  const fs::path d = fs::temp_directory_path() / ("mantissa_cli_model_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}
fs::path write(const std::string& name, const std::string& bytes) {
  const fs::path p = dir() / name;
  std::ofstream(p, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  return p;
}
std::string safetensors(std::string header, const std::string& data) {
  header += std::string((8 - header.size() % 8) % 8, ' ');
  return le(header.size(), 8) + header + data;
}

// lm_head.weight: F32 [2, 4] = 1, 70000, 500, -2, 65520, 0.5, -0.25, 3: FP16
// overflows at 70000 and 65520 (the tie rounds to 65536), E4M3 at 70000,
// 500 and 65520. model.layers.0.w: BF16 [4], small.
fs::path sample() {
  const std::string w = f32(1) + f32(70000) + f32(500) + f32(-2) + f32(65520) + f32(0.5f) +
                        f32(-0.25f) + f32(3);
  const std::string b = le(0x3f80, 2) + le(0x3c00, 2) + le(0xbc00, 2) + le(0x0000, 2);
  return write("m.safetensors",
               safetensors(R"({"lm_head.weight":{"dtype":"F32","shape":[2,4],"data_offsets":[0,32]},)"
                           R"("model.layers.0.w":{"dtype":"BF16","shape":[4],"data_offsets":[32,40]}})",
                           w + b));
}

TEST(CliModel, ScansASafetensorsModelAndStatesAVerdictPerFormat) {
  const auto r = runCli({"model", sample().string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("FP16: 1 tensor overflows: lm_head.weight (keep it in BF16)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("BF16: no tensor overflows"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FP8 E4M3: 1 tensor overflows: lm_head.weight"), std::string::npos) << r.out;
  const auto j = runCli({"model", sample().string(), "--json"});
  ASSERT_EQ(j.exitCode, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  const auto& t = doc["tensors"][0];
  EXPECT_EQ(t["name"], "lm_head.weight");
  EXPECT_EQ(t["absmax"], 70000.0);
  EXPECT_EQ(t["formats"]["fp16"]["overflow"], 2);
  EXPECT_EQ(t["formats"]["fp8-e4m3"]["overflow"], 3);
  EXPECT_EQ(t["formats"]["bf16"]["overflow"], 0);
  EXPECT_EQ(doc["tensors"][1]["layer"], "model.layers.0");
  for (const std::string ext : {".csv", ".html", ".json"}) {
    const fs::path out = dir() / ("report" + ext);
    const auto w = runCli({"model", sample().string(), "--out", out.string()});
    ASSERT_EQ(w.exitCode, 0) << w.err;
    std::ifstream in(out);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    EXPECT_NE(text.find("lm_head.weight"), std::string::npos) << ext;
  }
  EXPECT_EQ(runCli({"model", sample().string(), "--out", (dir() / "r.txt").string()}).exitCode, 2);
}

TEST(CliModel, ListsTheHeaderOfA5GBFileWithoutReadingItsData) {
  const std::uint64_t bytes = 5ull << 30;
  const fs::path p = write("huge.safetensors",
                           safetensors(R"({"w":{"dtype":"F32","shape":[1342177280],"data_offsets":[0,)" +
                                           std::to_string(bytes) + "]}}",
                                       ""));
  fs::resize_file(p, fs::file_size(p) + bytes); // sparse: no block is written
  mantissa::test::CliLimits limits;
  limits.addressSpaceBytes = 16ll << 30; // the mapping reserves addresses, not memory
  limits.timeoutMs = 20000;
  const auto start = std::chrono::steady_clock::now();
  const auto r = mantissa::test::runCliLimited({"model", p.string(), "--list"}, limits);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("[1342177280]"), std::string::npos) << r.out;
  EXPECT_LT(r.peakResidentBytes, 200ll << 20);
  EXPECT_LT(seconds, 5.0);
  fs::remove(p);
}

TEST(CliModel, FlagsAnOrphanScaleAndAScaleOfTheWrongShapeByName) {
  // l.q.weight: E4M3 [2, 64] with E8M0 scales [4, 1] (the count of MX per-32
  // scales, not their shape [2, 2]); gone.weight_scale: a scale with no weight.
  const std::string q(128, '\x38'), sc(4, '\x7f');
  const fs::path p = write(
      "orphans.safetensors",
      safetensors(R"({"l.q.weight":{"dtype":"F8_E4M3","shape":[2,64],"data_offsets":[0,128]},)"
                  R"("l.q.weight_scale":{"dtype":"F8_E8M0","shape":[4,1],"data_offsets":[128,132]},)"
                  R"("gone.weight_scale":{"dtype":"F32","shape":[],"data_offsets":[132,136]}})",
                  q + sc + f32(0.5f)));
  const auto r = runCli({"model", p.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("gone.weight_scale: orphan"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("a scale with no weight 'gone.weight'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("l.q.weight: mx-e8m0-32 <- l.q.weight_scale (scale 'l.q.weight_scale' of shape [4, 1]"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("expected [2, 2]"), std::string::npos) << r.out;
  const auto j = runCli({"model", p.string(), "--json"});
  ASSERT_EQ(j.exitCode, 0) << j.err;
  const auto scales = nlohmann::json::parse(j.out)["scales"];
  ASSERT_EQ(scales.size(), 2u) << scales.dump();
  EXPECT_EQ(scales[0]["tensor"], "l.q.weight");
  EXPECT_NE(scales[0]["note"].get<std::string>().find("expected [2, 2]"), std::string::npos);
  EXPECT_EQ(scales[1]["tensor"], "gone.weight_scale");
  EXPECT_EQ(scales[1]["kind"], "orphan");
  fs::remove(p);
}

TEST(CliModel, RefusesAShardOutsideTheIndexFolderAndAGgufCountPastTheEnd) {
  const fs::path idx = write("evil.index.json", R"({"weight_map":{"w":"../../etc/passwd"}})");
  const auto r = runCli({"model", idx.string()});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("beside the index"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  const fs::path g = write("bad.gguf", "GGUF" + le(3, 4) + le(1ull << 40, 8) + le(0, 8));
  const auto gr = runCli({"model", g.string()});
  EXPECT_EQ(gr.exitCode, 1);
  EXPECT_NE(gr.err.find("tensor count"), std::string::npos) << gr.err;
}

} // namespace
