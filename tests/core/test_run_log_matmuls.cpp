// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The run log header names every product the model runs (each layer's
// forward, dX and dW), its shape, path, kernel and why; logs without that
// field still read.
#include <mantissa/kernels/matmul_path.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/run_log_rows.h>
#include <mantissa/train/session.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <unistd.h>

namespace {

using namespace mantissa;
using nlohmann::json;

train::RunConfig config(const std::string& recipe) {
  train::RunConfig c;
  c.data = "spirals";
  c.model = "mlp:2-48-40-2:relu";
  c.recipe = recipe;
  c.batch = 16;
  c.steps = 2;
  return c;
}

// Products of MLP 2-48-40-2 at batch 16, from the layer algebra:
// forward [B,O] = [B,I].[I,O]; dX [B,I] = [B,O].[O,I]; dW [I,O] = [I,B].[B,O].
struct Expected {
  int layer;
  const char* product;
  std::int64_t m, n, k;
};
const Expected kProducts[] = {{0, "forward", 16, 48, 2},  {0, "dW", 2, 48, 16},
                              {1, "forward", 16, 40, 48}, {1, "dX", 16, 48, 40},
                              {1, "dW", 48, 40, 16},      {2, "forward", 16, 2, 40},
                              {2, "dX", 16, 40, 2},       {2, "dW", 40, 2, 16}};

class RunLogMatmuls : public ::testing::Test {
protected:
  void TearDown() override { kernels::setMatmulPath(kernels::MatmulPath::Native); }
};

TEST_F(RunLogMatmuls, TheHeaderListsEveryProductWithItsShapePathAndKernel) {
  kernels::setMatmulPath(kernels::MatmulPath::Native);
  train::Session s(config("bf16-mixed"));
  const json h = train::runLogHeader(s);
  ASSERT_TRUE(h.contains("matmuls")) << h.dump();
  const json& m = h.at("matmuls");
  ASSERT_EQ(m.size(), std::size(kProducts)) << m.dump(1);
  std::set<std::string> seen;
  for (std::size_t i = 0; i < m.size(); ++i) {
    const auto& e = kProducts[i];
    const json& u = m[i];
    EXPECT_EQ(u.at("layer"), e.layer) << u.dump();
    EXPECT_EQ(u.at("product"), e.product) << u.dump();
    EXPECT_EQ(u.at("m"), e.m) << u.dump();
    EXPECT_EQ(u.at("n"), e.n) << u.dump();
    EXPECT_EQ(u.at("k"), e.k) << u.dump();
    EXPECT_EQ(u.at("inputs"), "bf16");
    EXPECT_FALSE(u.at("kernel").get<std::string>().empty()) << u.dump();
    const std::string path = u.at("path");
    // Native where oneDNN has a BF16 kernel; FP32 compute, with the reason, where it has not.
    if (kernels::bf16Support().onednnKernel.empty()) {
      EXPECT_EQ(path, "fp32-compute") << u.dump();
      EXPECT_NE(u.at("reason").get<std::string>().find("no native BF16"), std::string::npos);
    } else {
      EXPECT_EQ(path, "native") << u.dump();
      EXPECT_NE(u.at("reason").get<std::string>().find("forced"), std::string::npos) << u.dump();
    }
    // bf16-mixed stores activations and gradients in BF16: every result is rounded.
    EXPECT_NE(u.at("result").get<std::string>().find("BF16"), std::string::npos) << u.dump();
    seen.insert(std::to_string(e.layer) + e.product);
  }
  EXPECT_EQ(seen.size(), std::size(kProducts));
  // The first product's kernel stays where older readers look for it.
  EXPECT_EQ(h.at("matmul"), s.model().matmulImplementation());
}

TEST_F(RunLogMatmuls, ForcedFp32ComputeIsNamedPerProduct) {
  kernels::setMatmulPath(kernels::MatmulPath::Fp32Compute);
  train::Session s(config("bf16-mixed"));
  const json h = train::runLogHeader(s);
  ASSERT_EQ(h.at("matmuls").size(), std::size(kProducts));
  for (const json& u : h.at("matmuls")) {
    EXPECT_EQ(u.at("path"), "fp32-compute") << u.dump();
    EXPECT_EQ(u.at("reason"), "FP32 compute forced") << u.dump();
    EXPECT_NE(u.at("kernel").get<std::string>().find("FP32 compute"), std::string::npos);
  }
}

TEST_F(RunLogMatmuls, Fp32RunsHaveOnePathAndNoReason) {
  train::Session s(config("fp32"));
  const json header = train::runLogHeader(s); // the loop must not read a destroyed temporary
  ASSERT_FALSE(header.at("matmuls").empty());
  for (const json& u : header.at("matmuls")) {
    EXPECT_EQ(u.at("inputs"), "f32");
    EXPECT_EQ(u.at("path"), "native");
    EXPECT_EQ(u.at("reason"), "");
    EXPECT_EQ(u.at("result"), "FP32");
  }
}

TEST_F(RunLogMatmuls, EntriesReadBackAndBadOnesAreSkipped) {
  kernels::setMatmulPath(kernels::MatmulPath::Fp32Compute);
  train::Session s(config("bf16-mixed"));
  json m = train::runLogHeader(s).at("matmuls");
  const auto back = train::matmulUsesFromJson(m);
  ASSERT_EQ(back.size(), m.size());
  for (std::size_t i = 0; i < back.size(); ++i)
    EXPECT_EQ(train::matmulUseJson(back[i]), m[i]);
  // Not an object, an unknown product, a path that is a policy, a negative size.
  m.push_back(1);
  m.push_back({{"product", "sideways"}, {"path", "native"}, {"m", 1}, {"n", 1}, {"k", 1}});
  m.push_back({{"product", "dW"}, {"path", "auto"}, {"m", 1}, {"n", 1}, {"k", 1}});
  m.push_back({{"product", "dW"}, {"path", "native"}, {"m", -1}, {"n", 1}, {"k", 1}});
  EXPECT_EQ(train::matmulUsesFromJson(m).size(), back.size());
  EXPECT_TRUE(train::matmulUsesFromJson(json("text")).empty());
}

TEST_F(RunLogMatmuls, ALogWrittenWithoutTheFieldStillLoads) {
  // A header as logs had it before "matmuls": loads, and reads as no entries.
  const auto path = std::filesystem::temp_directory_path() /
                    ("mantissa-matmuls-" + std::to_string(::getpid()) + ".jsonl");
  std::ofstream(path) << R"({"config":{"data":"spirals","model":"mlp:2-16-3:relu","recipe":"bf16-mixed","steps":1},"header":true,"matmul":"brg:avx512_core_bf16","matmul_emulated":false})"
                      << "\n";
  const auto log = train::loadRunLog(path);
  std::filesystem::remove(path);
  EXPECT_EQ(log.header.at("matmul"), "brg:avx512_core_bf16");
  EXPECT_TRUE(train::matmulUsesFromJson(log.header.value("matmuls", json())).empty());
}

} // namespace
