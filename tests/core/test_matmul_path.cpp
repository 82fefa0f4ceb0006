// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The two honest paths of a 16-bit matmul (native BF16 kernel, FP32 compute
// on 16-bit storage): how far apart their results are (summation order only,
// measured against a product in double), where they differ on subnormals,
// and `auto` choosing, remembering and labelling a path.
#include "test_kernels_util.h"

#include <mantissa/kernels/matmul.h>
#include <mantissa/kernels/matmul_path.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace {

using namespace mantissa;
using kernels::Matmul;
using kernels::MatmulPath;
using kernels::MatmulShape;

bool hasNativeBf16Kernel() {
  return !Matmul(MatmulShape{8, 8, 8}, DType::BF16, DType::F32, false, MatmulPath::Native).emulated();
}

TEST(MatmulPath, BothPathsAreWithinFp32SummationErrorOfTheExactProduct) {
  const MatmulShape s{64, 96, 1024};
  const Tensor a = test::randomTensor(DType::BF16, s.m, s.k, 11);
  const Tensor b = test::randomTensor(DType::BF16, s.k, s.n, 12);
  Tensor native(DType::F32, s.m, s.n), fp32(DType::F32, s.m, s.n);
  Matmul(s, DType::BF16, DType::F32, false, MatmulPath::Native).execute(a, b, native);
  Matmul(s, DType::BF16, DType::F32, false, MatmulPath::Fp32Compute).execute(a, b, fp32);
  const auto exact = test::naiveMatmul(s, test::toF32(a), test::toF32(b), nullptr, 1);
  // Products of BF16 values are exact in FP32; what remains is the
  // summation: |error| <= gamma_K * sum |a||b|, gamma_K = K u / (1 - K u).
  const double u = std::ldexp(1.0, -24);
  const double gamma = double(s.k) * u / (1 - double(s.k) * u);
  double worstNative = 0, worstFp32 = 0, worstApart = 0;
  int differing = 0;
  for (std::int64_t i = 0; i < s.m * s.n; ++i) {
    const double scale = exact.abs[std::size_t(i)];
    const double e = exact.value[std::size_t(i)];
    const double n = native.f32()[std::size_t(i)], f = fp32.f32()[std::size_t(i)];
    worstNative = std::max(worstNative, std::abs(n - e) / scale);
    worstFp32 = std::max(worstFp32, std::abs(f - e) / scale);
    worstApart = std::max(worstApart, std::abs(n - f) / scale);
    differing += n != f;
  }
  EXPECT_LE(worstNative, gamma);
  EXPECT_LE(worstFp32, gamma);
  EXPECT_LE(worstApart, 2 * gamma);
  std::printf("K=%lld: worst |error| / sum|ab|: native %.3g, fp32-compute %.3g, apart %.3g "
              "(bound %.3g); %d of %lld results differ\n",
              static_cast<long long>(s.k), worstNative, worstFp32, worstApart, gamma, differing,
              static_cast<long long>(s.m * s.n));
}

TEST(MatmulPath, SubnormalInputsCountOnlyInFp32Compute) {
  // 2^-128 (BF16 bits 0x0020) is subnormal in BF16 and FP32; times 1, summed
  // K = 64 times, it is the normal 2^-122 exactly. The BF16 dot-product instruction reads
  // subnormal inputs as zero; FP32 FMAs (default MXCSR) keep them.
  const MatmulShape s{4, 4, 64};
  Tensor a(DType::BF16, s.m, s.k), b(DType::BF16, s.k, s.n);
  std::fill(a.u16().begin(), a.u16().end(), std::uint16_t(0x0020)); // 2^-128
  std::fill(b.u16().begin(), b.u16().end(), std::uint16_t(0x3F80)); // 1
  Tensor native(DType::F32, s.m, s.n), fp32(DType::F32, s.m, s.n);
  Matmul(s, DType::BF16, DType::F32, false, MatmulPath::Native).execute(a, b, native);
  Matmul(s, DType::BF16, DType::F32, false, MatmulPath::Fp32Compute).execute(a, b, fp32);
  const float expected = std::ldexp(1.0f, -122);
  for (float v : fp32.f32())
    EXPECT_EQ(v, expected);
  const bool native16 = kernels::bf16Support().native();
  for (float v : native.f32())
    EXPECT_EQ(v, native16 ? 0.0f : expected) << kernels::bf16Support().label;
}

TEST(MatmulPath, ForcedPathsRunWhatTheySay) {
  const MatmulShape s{32, 48, 64};
  Matmul fp32(s, DType::BF16, DType::F32, false, MatmulPath::Fp32Compute);
  EXPECT_TRUE(fp32.emulated());
  EXPECT_EQ(fp32.path(), MatmulPath::Fp32Compute);
  EXPECT_NE(fp32.implementation().find("FP32 compute"), std::string::npos) << fp32.implementation();
  Matmul native(s, DType::BF16, DType::F32, false, MatmulPath::Native);
  EXPECT_EQ(native.path() == MatmulPath::Native, hasNativeBf16Kernel());
  // FP16 has no oneDNN CPU matmul: FP32 compute whatever is asked, and said why.
  Matmul f16(s, DType::F16, DType::F32, false, MatmulPath::Native);
  EXPECT_TRUE(f16.emulated());
}

TEST(MatmulPath, AutoTimesBothRemembersAndSaysWhy) {
  if (!hasNativeBf16Kernel())
    GTEST_SKIP() << "oneDNN has no native BF16 matmul here: nothing to choose between";
  const auto file = std::filesystem::temp_directory_path() /
                    ("mantissa-matmul-paths-" + std::to_string(::getpid()) + ".json");
  std::filesystem::remove(file);
  kernels::clearMatmulChoices();
  kernels::setMatmulChoiceCache(file);
  const MatmulShape s{128, 256, 256};
  Matmul first(s, DType::BF16, DType::F32, false, MatmulPath::Auto);
  EXPECT_EQ(first.pathReason().rfind("auto: ", 0), 0u) << first.pathReason();
  EXPECT_EQ(first.pathReason().find("measured earlier"), std::string::npos);
  EXPECT_NE(first.implementation().find(first.pathReason()), std::string::npos);
  ASSERT_TRUE(std::filesystem::exists(file));

  // A later process (here: the choices forgotten, the file read again)
  // uses the remembered choice without timing.
  kernels::clearMatmulChoices();
  kernels::setMatmulChoiceCache(file);
  Matmul again(s, DType::BF16, DType::F32, false, MatmulPath::Auto);
  EXPECT_EQ(again.path(), first.path());
  EXPECT_NE(again.pathReason().find("measured earlier"), std::string::npos) << again.pathReason();

  // The chosen path gives the bits of that path forced.
  const Tensor a = test::randomTensor(DType::BF16, s.m, s.k, 3);
  const Tensor b = test::randomTensor(DType::BF16, s.k, s.n, 4);
  Tensor viaAuto(DType::F32, s.m, s.n), forced(DType::F32, s.m, s.n);
  again.execute(a, b, viaAuto);
  Matmul(s, DType::BF16, DType::F32, false, first.path()).execute(a, b, forced);
  EXPECT_TRUE(std::equal(viaAuto.f32().begin(), viaAuto.f32().end(), forced.f32().begin()));
  kernels::setMatmulChoiceCache({});
  kernels::clearMatmulChoices();
  std::filesystem::remove(file);
}

TEST(MatmulPath, NamesParseBack) {
  for (auto p : {MatmulPath::Auto, MatmulPath::Native, MatmulPath::Fp32Compute})
    EXPECT_EQ(kernels::parseMatmulPath(kernels::matmulPathName(p)), p);
  EXPECT_FALSE(kernels::parseMatmulPath("fast").has_value());
}

} // namespace
