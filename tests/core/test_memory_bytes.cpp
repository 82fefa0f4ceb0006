// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The bytes Mantissa reports per tensor class are the bytes it allocated:
// every Tensor's storage comes from the 64-byte aligned operator new[], which
// this test replaces to count what is live, and the model's report (without
// the oneDNN scratchpad, which oneDNN allocates itself) must equal the count
// its construction left live. Also: 16-bit working copies count 2 bytes a
// value, FP32 buffers holding rounded values 4.
#include <mantissa/amp/recipe.h>
#include <mantissa/amp/policy.h>
#include <mantissa/kernels/matmul_path.h>
#include <mantissa/model/gpt_network.h>
#include <mantissa/model/mlp.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <numeric>

namespace {
std::atomic<long long> g_liveAligned{0};

// Size stored in front of each block so delete[] knows what it frees.
void* allocAligned(std::size_t n, std::align_val_t al) {
  const std::size_t a = std::max<std::size_t>(static_cast<std::size_t>(al), sizeof(std::size_t));
  void* base = std::aligned_alloc(a, ((n + a + a - 1) / a) * a);
  if (!base)
    throw std::bad_alloc();
  *static_cast<std::size_t*>(base) = n;
  if (static_cast<std::size_t>(al) == 64)
    g_liveAligned += static_cast<long long>(n);
  return static_cast<char*>(base) + a;
}
void freeAligned(void* p, std::align_val_t al) noexcept {
  if (!p)
    return;
  const std::size_t a = std::max<std::size_t>(static_cast<std::size_t>(al), sizeof(std::size_t));
  void* base = static_cast<char*>(p) - a;
  if (static_cast<std::size_t>(al) == 64)
    g_liveAligned -= static_cast<long long>(*static_cast<std::size_t*>(base));
  std::free(base);
}
} // namespace

void* operator new[](std::size_t n, std::align_val_t al) { return allocAligned(n, al); }
void operator delete[](void* p, std::align_val_t al) noexcept { freeAligned(p, al); }
void operator delete[](void* p, std::size_t, std::align_val_t al) noexcept { freeAligned(p, al); }

namespace {

using namespace mantissa;

class MemoryBytes : public ::testing::TestWithParam<const char*> {};

TEST_P(MemoryBytes, ReportedTotalIsWhatTheModelAllocated) {
  const auto& recipe = amp::recipeByName(GetParam());
  const auto spec = model::parseMlpSpec("mlp:784-64-32-10");
  const long long before = g_liveAligned.load();
  model::Mlp m(spec, 32, recipe);
  const long long counted = g_liveAligned.load() - before;
  const auto bytes = m.allocatedBytes();
  std::size_t reported = 0;
  for (const auto& [name, n] : bytes)
    if (name != "oneDNN scratchpad")
      reported += n;
  EXPECT_EQ(static_cast<long long>(reported), counted) << GetParam();

  // FP32 storage of rounded weights counts 4 bytes a value, whatever the recipe.
  const std::size_t params = 784 * 64 + 64 * 32 + 32 * 10;
  const std::string fp32Class = recipe.masterWeights ? "master weights" : "weights";
  EXPECT_GE(bytes.at(fp32Class), 4 * params);
  // A 16-bit working copy adds 2 bytes a weight (padded to 64 per tensor).
  if (recipe.matmulInputs != DType::F32 && recipe.masterWeights) {
    EXPECT_GE(bytes.at("weights"), 2 * params);
  }
}

INSTANTIATE_TEST_SUITE_P(Recipes, MemoryBytes,
                         ::testing::Values("fp32", "bf16-mixed", "fp16-mixed", "bf16-pure"),
                         [](const auto& param) {
                           std::string s = param.param;
                           for (char& c : s)
                             if (c == '-')
                               c = '_';
                           return s;
                         });

TEST(MemoryBytes, Fp32ComputeCopiesAreCountedWhereTheyExist) {
  const auto spec = model::parseMlpSpec("mlp:784-64-10");
  kernels::setMatmulPath(kernels::MatmulPath::Fp32Compute);
  const long long before = g_liveAligned.load();
  model::Mlp m(spec, 32, amp::recipeByName("bf16-mixed"));
  const long long counted = g_liveAligned.load() - before;
  kernels::setMatmulPath(kernels::MatmulPath::Native);
  const auto bytes = m.allocatedBytes();
  EXPECT_GT(bytes.at("matmul FP32 copies"), 0u);
  std::size_t reported = 0;
  for (const auto& [name, n] : bytes)
    if (name != "oneDNN scratchpad")
      reported += n;
  EXPECT_EQ(static_cast<long long>(reported), counted);
}

// A GPT with BF16 products shares the forward tensors backward does not
// read between its blocks until asked to keep them: what keeping them
// allocates is what its report grows by, and the shared model reports less.
TEST(MemoryBytes, AGptsKeptForwardTensorsAreCountedWhenAllocated) {
  model::GptSpec spec;
  spec.layers = 2;
  spec.heads = 2;
  spec.embd = 32;
  spec.ctx = 32;
  model::GptNetwork m(spec, 65, 8, amp::parsePolicy("bf16-mixed"));
  ASSERT_FALSE(m.gpt().forwardTensorsKept());
  const auto total = [&] {
    std::size_t n = 0;
    for (const auto& [name, bytes] : m.allocatedBytes())
      if (name != "oneDNN scratchpad")
        n += bytes;
    return static_cast<long long>(n);
  };
  const long long sharedReport = total();
  const long long before = g_liveAligned.load();
  m.keepForwardTensors(true);
  const long long counted = g_liveAligned.load() - before;
  ASSERT_TRUE(m.gpt().forwardTensorsKept());
  EXPECT_GT(counted, 0);
  EXPECT_EQ(total() - sharedReport, counted);
  // Asking again, or to share them again, allocates nothing.
  m.keepForwardTensors(true);
  m.keepForwardTensors(false);
  EXPECT_EQ(g_liveAligned.load() - before, counted);
  EXPECT_TRUE(m.gpt().forwardTensorsKept());
}

} // namespace
