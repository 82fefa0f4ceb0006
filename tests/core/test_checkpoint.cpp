// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// A trained model saved as safetensors, read back by a reader written here
// (the 8-byte length, the header through nlohmann's own parser, the data by
// offset), not by io::SafetensorsReader: every tensor holds the Session's
// FP32 weights bit for bit, under PyTorch's names and in torch.nn.Linear's
// [out, in] layout (transposed here, element by element), with the run's
// metadata.
#include <mantissa/config.h>
#include <mantissa/model/gpt_network.h>
#include <mantissa/train/checkpoint.h>
#include <mantissa/train/run_config.h>
#include <mantissa/train/session.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace mantissa;
namespace fs = std::filesystem;

struct Stored {
  nlohmann::json header;
  std::string data;
};

Stored readBack(const fs::path& p) {
  std::ifstream in(p, std::ios::binary | std::ios::ate);
  std::string bytes(std::size_t(in.tellg()), '\0');
  in.seekg(0).read(bytes.data(), std::streamsize(bytes.size()));
  EXPECT_GE(bytes.size(), 8u);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | std::uint8_t(bytes[std::size_t(i)]);
  EXPECT_EQ(n % 8, 0u) << "header padded to 8 bytes";
  return {nlohmann::json::parse(bytes.substr(8, n)), bytes.substr(8 + n)};
}

// The tensor `name` holds exactly `expected` as FP32, shape `shape`.
void expectTensor(const Stored& s, const std::string& name, const std::vector<std::uint64_t>& shape,
                  const std::vector<float>& expected) {
  ASSERT_TRUE(s.header.contains(name)) << name;
  const auto& t = s.header[name];
  EXPECT_EQ(t["dtype"], "F32") << name;
  EXPECT_EQ(t["shape"].get<std::vector<std::uint64_t>>(), shape) << name;
  const auto begin = t["data_offsets"][0].get<std::size_t>(), end = t["data_offsets"][1].get<std::size_t>();
  ASSERT_EQ(end - begin, expected.size() * 4) << name;
  EXPECT_EQ(std::memcmp(s.data.data() + begin, expected.data(), end - begin), 0) << name << " differs";
}

// The tensors PyTorch loads: all but __metadata__ and Mantissa's own state.
std::size_t torchTensors(const Stored& s) {
  std::size_t n = 0;
  for (const auto& [key, value] : s.header.items())
    n += key != "__metadata__" && key.rfind("mantissa.", 0) != 0;
  return n;
}

std::vector<float> values(const Tensor& t) {
  const float* v = t.data<float>();
  return {v, v + t.rows() * t.cols()};
}
// [rows, cols] -> [cols, rows]
std::vector<float> transposed(const Tensor& t) {
  const auto r = std::size_t(t.rows()), c = std::size_t(t.cols());
  const float* v = t.data<float>();
  std::vector<float> out(r * c);
  for (std::size_t i = 0; i < r; ++i)
    for (std::size_t j = 0; j < c; ++j)
      out[j * r + i] = v[i * c + j];
  return out;
}

fs::path tempFile(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("mantissa_checkpoint_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

TEST(Checkpoint, AnMlpsWeightsUnderLayerNamesTransposed) {
  train::RunConfig c;
  c.data = "spirals";
  c.model = "mlp:2-16-8-2";
  c.recipe = "bf16-mixed";
  c.batch = 16;
  c.steps = 5;
  c.evalEvery = 0;
  train::Session s(c);
  while (!s.finished())
    s.step();
  const auto path = tempFile("mlp.safetensors");
  train::saveCheckpoint(s, path);
  const Stored st = readBack(path);
  const auto& p = s.model().params();
  ASSERT_EQ(p.size(), 3u);
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> io = {{2, 16}, {16, 8}, {8, 2}};
  for (std::size_t l = 0; l < 3; ++l) {
    const std::string prefix = "layers." + std::to_string(l);
    expectTensor(st, prefix + ".weight", {io[l].second, io[l].first}, transposed(p[l].w));
    expectTensor(st, prefix + ".bias", {io[l].second}, values(p[l].b));
  }
  EXPECT_EQ(torchTensors(st), 6u);
  // The working copies the products read, BF16, as Mantissa holds them.
  for (std::size_t l = 0; l < 3; ++l) {
    const auto& t = st.header["mantissa.working.layer" + std::to_string(l) + ".W"];
    EXPECT_EQ(t["dtype"], "BF16");
    EXPECT_EQ(t["shape"].get<std::vector<std::uint64_t>>(),
              (std::vector<std::uint64_t>{io[l].first, io[l].second}));
    const auto begin = t["data_offsets"][0].get<std::size_t>();
    const float* w = p[l].w.data<float>();
    for (std::size_t i = 0; i < std::size_t(p[l].w.size()); ++i) {
      std::uint16_t bits;
      std::memcpy(&bits, st.data.data() + begin + 2 * i, 2);
      std::uint32_t f;
      std::memcpy(&f, &w[i], 4);
      // Nearest-even BF16 of the master weight (finite values).
      const std::uint32_t rounded = (f + 0x7FFFu + ((f >> 16) & 1u)) >> 16;
      ASSERT_EQ(bits, rounded) << "layer " << l << " value " << i;
    }
  }
  const auto& m = st.header["__metadata__"];
  EXPECT_EQ(m["format_version"], "1");
  EXPECT_EQ(m["format"], "mantissa");
  EXPECT_EQ(m["mantissa_version"], kVersion);
  EXPECT_EQ(m["step"], "5");
  EXPECT_FALSE(m.contains("vocabulary"));
  const auto config = nlohmann::json::parse(m["config"].get<std::string>());
  EXPECT_EQ(config["model"], "mlp:2-16-8-2");
  EXPECT_EQ(config["recipe"], "bf16-mixed");
}

TEST(Checkpoint, AGptsWeightsUnderNanoGptNames) {
  train::RunConfig c;
  c.data = "shakespeare";
  c.model = "gpt:layers=2,heads=2,embd=16,ctx=8";
  c.optimizer = "adamw";
  c.batch = 4;
  c.steps = 3;
  c.evalEvery = 0;
  c.evalBatches = 1;
  train::Session s(c);
  while (!s.finished())
    s.step();
  const auto path = tempFile("gpt.safetensors");
  train::saveCheckpoint(s, path);
  const Stored st = readBack(path);

  std::map<std::string, const Tensor*> p;
  for (const auto& param : model::gptOf(s.model())->gpt().params())
    p[param.name] = &param.value;
  const std::uint64_t V = 65, T = 8, C = 16;
  expectTensor(st, "transformer.wte.weight", {V, C}, values(*p.at("wte")));
  expectTensor(st, "transformer.wpe.weight", {T, C}, values(*p.at("wpe")));
  for (int l = 0; l < 2; ++l) {
    const std::string h = "h" + std::to_string(l) + ".";
    const std::string t = "transformer.h." + std::to_string(l) + ".";
    expectTensor(st, t + "ln_1.weight", {C}, values(*p.at(h + "ln1.w")));
    expectTensor(st, t + "ln_1.bias", {C}, values(*p.at(h + "ln1.b")));
    expectTensor(st, t + "attn.c_attn.weight", {3 * C, C}, transposed(*p.at(h + "qkv.w")));
    expectTensor(st, t + "attn.c_attn.bias", {3 * C}, values(*p.at(h + "qkv.b")));
    expectTensor(st, t + "attn.c_proj.weight", {C, C}, transposed(*p.at(h + "attproj.w")));
    expectTensor(st, t + "attn.c_proj.bias", {C}, values(*p.at(h + "attproj.b")));
    expectTensor(st, t + "ln_2.weight", {C}, values(*p.at(h + "ln2.w")));
    expectTensor(st, t + "ln_2.bias", {C}, values(*p.at(h + "ln2.b")));
    expectTensor(st, t + "mlp.c_fc.weight", {4 * C, C}, transposed(*p.at(h + "fc.w")));
    expectTensor(st, t + "mlp.c_fc.bias", {4 * C}, values(*p.at(h + "fc.b")));
    expectTensor(st, t + "mlp.c_proj.weight", {C, 4 * C}, transposed(*p.at(h + "fcproj.w")));
    expectTensor(st, t + "mlp.c_proj.bias", {C}, values(*p.at(h + "fcproj.b")));
  }
  expectTensor(st, "transformer.ln_f.weight", {C}, values(*p.at("lnf.w")));
  expectTensor(st, "transformer.ln_f.bias", {C}, values(*p.at("lnf.b")));
  EXPECT_EQ(torchTensors(st), 2 + 2 * 12 + 2u) << "no lm_head: it is wte, tied";
  // AdamW's moments for every parameter, and the step.
  for (const auto& param : model::gptOf(s.model())->gpt().params())
    for (const char* m : {".m", ".v"})
      EXPECT_TRUE(st.header.contains("mantissa.state.optimizer." + param.name + m)) << param.name << m;
  EXPECT_EQ(st.header["mantissa.state.step"]["dtype"], "I64");
  const auto& m = st.header["__metadata__"];
  // The vocabulary in token order, as UTF-8.
  std::string vocabulary;
  for (const char32_t ch : s.text().vocabulary) {
    ASSERT_LT(ch, 0x80u) << "Tiny Shakespeare is ASCII";
    vocabulary += char(ch);
  }
  EXPECT_EQ(m["vocabulary"], vocabulary);
  EXPECT_EQ(m["vocabulary"].get<std::string>().size(), V);
  EXPECT_EQ(nlohmann::json::parse(m["config"].get<std::string>())["model"], c.model);
  EXPECT_EQ(m["step"], "3");
}

} // namespace
