// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Block quantizers: blocks worked by hand from the OCP MX v1.0 rules (shared
// scale 2^(floor(log2 amax) - emax_elem), clamping, E8M0 range, NaN), the
// nvfp4 two-level scales, DeepSeek-style FP8 blocks, and properties on
// seeded random tensors.
#include <mantissa/numeric/block_quant.h>
#include <mantissa/numeric/format_spec.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <vector>

namespace {

using namespace mantissa::numeric;

std::vector<double> padded(std::vector<double> v, std::size_t n) {
  v.resize(n, 0.0);
  return v;
}

QuantizeOptions rounding(ScaleRounding r) {
  QuantizeOptions o;
  o.scaleRounding = r;
  return o;
}

TEST(BlockQuant, SchemeNamesAndShapes) {
  EXPECT_EQ(allSchemes().size(), 9u);
  for (BlockScheme s : allSchemes())
    EXPECT_EQ(parseSchemeName(schemeInfo(s).name), s);
  EXPECT_EQ(schemeInfo(BlockScheme::Mxfp4).blockSize, 32);
  EXPECT_EQ(schemeInfo(BlockScheme::Nvfp4).blockSize, 16);
  EXPECT_EQ(schemeInfo(BlockScheme::Mxint8).element, FormatId::Int8);
  EXPECT_FALSE(parseSchemeName("mxfp5").has_value());
  EXPECT_EQ(parseScaleRoundingName("rceil"), ScaleRounding::RCeil);
  EXPECT_FALSE(parseScaleRoundingName("round").has_value());
}

TEST(BlockQuant, Mxfp4HandWorkedBlockFloorAndCeil) {
  // amax 7: floor(log2 7) = 2, E2M1's emax is 2, so X = 2^0 and the elements
  // are the values themselves: 7 clamps to 6; 1.3 is nearer 1.5 than 1;
  // -0.2 and 0.1 are below half of 0.5 and are lost.
  const auto v = padded({7.0, 1.3, -0.2, 0.1}, 32);
  const QuantizedTensor f = quantize(v, BlockScheme::Mxfp4);
  ASSERT_EQ(f.blocks.size(), 1u);
  EXPECT_EQ(f.blocks[0].scaleBits, 0x7fu); // 2^0
  EXPECT_EQ(f.blocks[0].scaleExponent, 0);
  EXPECT_TRUE(f.blocks[0].maxClipped);
  EXPECT_EQ(f.elementBits[0], 0x7u);
  EXPECT_EQ(f.elementBits[1], 0x3u);
  EXPECT_EQ(f.elementBits[2], 0x8u); // -0
  EXPECT_EQ(f.elementBits[3], 0x0u);
  EXPECT_EQ(f.dequantized[0], 6.0);
  EXPECT_EQ(f.dequantized[1], 1.5);
  EXPECT_EQ(f.flags[0], kSaturated);
  EXPECT_EQ(f.flags[2], kLostToZero);
  EXPECT_EQ(f.flags[3], kLostToZero);
  EXPECT_EQ(f.flags[4], 0);

  // ceil: ceil(log2 7) - 2 = 1, X = 2: 3.5 ties between 3 (0b101) and 4
  // (0b110) and goes to the even code; 0.65 -> 0.5; -0.1 and 0.05 are lost.
  const QuantizedTensor c = quantize(v, BlockScheme::Mxfp4, rounding(ScaleRounding::Ceil));
  EXPECT_EQ(c.blocks[0].scaleBits, 0x80u);
  EXPECT_FALSE(c.blocks[0].maxClipped);
  EXPECT_EQ(c.elementBits[0], 0x6u);
  EXPECT_EQ(c.dequantized[0], 8.0);
  EXPECT_EQ(c.elementBits[1], 0x1u);
  EXPECT_EQ(c.dequantized[1], 1.0);
  EXPECT_EQ(c.flags[0], 0);
  // rceil: the smallest X with 7 / X <= 6 is 2 as well.
  EXPECT_EQ(quantize(v, BlockScheme::Mxfp4, rounding(ScaleRounding::RCeil)).blocks[0].scaleBits, 0x80u);

  // Statistics over the same block, from the numbers above.
  const QuantStats s = quantStats(v, f);
  EXPECT_EQ(s.count, 32u);
  EXPECT_DOUBLE_EQ(s.fractionSaturated, 1.0 / 32);
  EXPECT_DOUBLE_EQ(s.fractionLostToZero, 2.0 / 32);
  EXPECT_EQ(s.fractionSubnormal, 0.0);
  const double signal = 49 + 1.69 + 0.04 + 0.01, noise = 1 + 0.04 + 0.04 + 0.01;
  EXPECT_NEAR(s.sqnrDb, 10 * std::log10(signal / noise), 1e-9);
  EXPECT_EQ(s.blocksMaxClipped, 1u);
  // Under ceil, 0.65 / ... : 1.3 / 2 = 0.65 -> 0.5 is E2M1's subnormal.
  EXPECT_DOUBLE_EQ(quantStats(v, c).fractionSubnormal, 1.0 / 32);
}

TEST(BlockQuant, Mxfp8E4M3ClipsTheTopEighthOfABinadeUnderFloor) {
  // amax 500: floor(log2 500) = 8 = E4M3's emax, so X = 1 and 500 > 448
  // clamps to 448 (0x7e). ceil: X = 2, 250 rounds to 256 (binade 128..256
  // has spacing 16; 250 is nearer 256): 1.000 x 2^8 = 0x78, back to 512.
  const auto v = padded({500.0, -3.0, 0.001}, 32);
  const QuantizedTensor f = quantize(v, BlockScheme::Mxfp8E4M3);
  EXPECT_EQ(f.blocks[0].scaleBits, 127u);
  EXPECT_EQ(f.elementBits[0], 0x7eu);
  EXPECT_EQ(f.elementBits[1], 0xc4u); // -3 = -1.1 x 2^1: 1 1000 100
  EXPECT_EQ(f.dequantized[1], -3.0);
  // 0.001 is 0.512 x 2^-9, E4M3's smallest subnormal: rounds to 1 x 2^-9.
  EXPECT_EQ(f.elementBits[2], 0x01u);
  EXPECT_EQ(f.flags[2], kSubnormal);
  EXPECT_TRUE(f.blocks[0].maxClipped);
  const QuantizedTensor c = quantize(v, BlockScheme::Mxfp8E4M3, rounding(ScaleRounding::Ceil));
  EXPECT_EQ(c.blocks[0].scaleBits, 128u);
  EXPECT_EQ(c.elementBits[0], 0x78u);
  EXPECT_EQ(c.dequantized[0], 512.0);
  EXPECT_FALSE(c.blocks[0].maxClipped);
  // E5M2: emax 15, so X = 2^(8-15) = 2^-7: 500 x 128 = 64000 -> 65536 would
  // be past 57344? No: 64000 lies in [32768, 65536) with spacing 8192, and
  // rounds to 65536, above max 57344: clamped.
  const QuantizedTensor e5 = quantize(v, BlockScheme::Mxfp8E5M2);
  EXPECT_EQ(e5.blocks[0].scaleBits, 120u);
  EXPECT_EQ(e5.elementBits[0], 0x7bu);
  EXPECT_EQ(e5.dequantized[0], 57344.0 / 128);
}

TEST(BlockQuant, Mxfp6BothElementFormats) {
  // E2M3 (emax 2, max 7.5): amax 30 -> floor(log2 30) = 4, X = 4: 30 / 4 =
  // 7.5 exactly; 1.1 / 4 = 0.275 -> nearest multiple of 1/8 is 0.25.
  const auto v = padded({30.0, 1.1}, 32);
  const QuantizedTensor a = quantize(v, BlockScheme::Mxfp6E2M3);
  EXPECT_EQ(a.blocks[0].scaleExponent, 2);
  EXPECT_EQ(a.elementBits[0], 0x1fu);
  EXPECT_EQ(a.dequantized[0], 30.0);
  EXPECT_EQ(a.dequantized[1], 1.0);
  // E3M2 (emax 4, max 28): X = 2^0: 30 clamps to 28; 1.1 -> 1.0 (spacing 0.25).
  const QuantizedTensor b = quantize(v, BlockScheme::Mxfp6E3M2);
  EXPECT_EQ(b.blocks[0].scaleExponent, 0);
  EXPECT_EQ(b.dequantized[0], 28.0);
  EXPECT_EQ(b.dequantized[1], 1.0);
  EXPECT_TRUE(b.blocks[0].maxClipped);
}

TEST(BlockQuant, Mxint8ElementsAreSymmetric) {
  // amax 1.999: emax 0, X = 1; -1.999 x 64 = -127.94 -> -128, kept to -127.
  const auto v = padded({1.5, -1.999, 0.004}, 32);
  const QuantizedTensor q = quantize(v, BlockScheme::Mxint8);
  EXPECT_EQ(q.blocks[0].scaleBits, 127u);
  EXPECT_EQ(q.elementBits[0], 0x60u); // 96 / 64
  EXPECT_EQ(q.elementBits[1], 0x81u); // -127
  EXPECT_EQ(q.dequantized[1], -127.0 / 64);
  EXPECT_EQ(q.flags[1], kSaturated);
  EXPECT_EQ(q.elementBits[2], 0x00u); // 0.256 -> 0
  EXPECT_EQ(q.flags[2], kLostToZero);
  // amax 3: X = 2, 3 / 2 = 1.5 -> 96.
  const QuantizedTensor r = quantize(padded({3.0}, 32), BlockScheme::Mxint8);
  EXPECT_EQ(r.blocks[0].scaleBits, 128u);
  EXPECT_EQ(r.elementBits[0], 0x60u);
  EXPECT_EQ(r.dequantized[0], 3.0);
}

TEST(BlockQuant, ScaleExponentsOutsideE8M0) {
  // amax 2^-140: -140 - 8 is below -127, so X = 2^-127 (code 0) and the
  // value, 2^-13 of X, is below E4M3's smallest subnormal 2^-9: lost.
  const QuantizedTensor lo = quantize(padded({std::ldexp(1.0, -140)}, 32), BlockScheme::Mxfp8E4M3);
  EXPECT_EQ(lo.blocks[0].scaleBits, 0x00u);
  EXPECT_EQ(lo.dequantized[0], 0.0);
  EXPECT_EQ(lo.flags[0], kLostToZero);
  // amax 2^200: 200 - 8 is above 127: the NaN scale, and the block is NaN.
  const QuantizedTensor hi = quantize(padded({std::ldexp(1.0, 200), 1.0}, 32), BlockScheme::Mxfp8E4M3);
  EXPECT_EQ(hi.blocks[0].scaleBits, 0xffu);
  EXPECT_TRUE(std::isnan(hi.dequantized[1]));
}

TEST(BlockQuant, ZeroNanAndInfBlocks) {
  std::vector<double> v(96, 0.0);
  for (std::size_t i = 32; i < 64; ++i)
    v[i] = std::numeric_limits<double>::quiet_NaN();
  v[64] = std::numeric_limits<double>::infinity();
  v[65] = 1.0;
  for (BlockScheme s : {BlockScheme::Mxfp8E4M3, BlockScheme::Mxfp4, BlockScheme::Mxint8}) {
    const QuantizedTensor q = quantize(v, s);
    ASSERT_EQ(q.blocks.size(), 3u);
    // Zero block: the smallest scale, zero elements, nothing lost.
    EXPECT_EQ(q.blocks[0].scaleBits, 0x00u);
    for (std::size_t i = 0; i < 32; ++i) {
      EXPECT_EQ(q.dequantized[i], 0.0);
      EXPECT_EQ(q.flags[i], 0);
    }
    // All-NaN block and a block holding an Inf: the NaN scale.
    EXPECT_EQ(q.blocks[1].scaleBits, 0xffu);
    EXPECT_EQ(q.blocks[2].scaleBits, 0xffu);
    for (std::size_t i = 32; i < 96; ++i)
      EXPECT_TRUE(std::isnan(q.dequantized[i])) << i;
    const QuantStats st = quantStats(v, q);
    EXPECT_EQ(st.nonFinite, 33u);
    EXPECT_EQ(st.count, 63u);
  }
}

TEST(BlockQuant, Nvfp4TwoLevelScales) {
  // Tensor amax 2688 = 448 x 6: encode scale 1, decode 1 (0x3f800000).
  // Block 0 (amax 2688): scale 2688 / 6 = 448, E4M3 0x7e; 2688 -> 6.
  // Block 1 (amax 12): scale 2 (0x40); 12 -> 6, 3 -> 1.5, 1 -> 0.5, 0.4 -> 0.
  // Block 2 (amax 10): 10 / 6 = 1.667 rounds to E4M3 1.625 (0x3d), below
  // 1.667, so 10 / 1.625 = 6.15, which rounds to 6 (E2M1's step there is 2,
  // so only values from 7 up would be clamped): 9.75.
  std::vector<double> v(48, 0.0);
  v[0] = 2688;
  v[16] = 12;
  v[17] = 3;
  v[18] = 1;
  v[19] = 0.4;
  v[32] = 10;
  const QuantizedTensor q = quantize(v, BlockScheme::Nvfp4);
  ASSERT_EQ(q.blocks.size(), 3u);
  EXPECT_EQ(q.tensorScaleBits, 0x3f800000u);
  EXPECT_EQ(q.blocks[0].scaleBits, 0x7eu);
  EXPECT_EQ(q.elementBits[0], 0x7u);
  EXPECT_EQ(q.dequantized[0], 2688.0);
  EXPECT_EQ(q.blocks[1].scaleBits, 0x40u);
  EXPECT_EQ(q.dequantized[16], 12.0);
  EXPECT_EQ(q.dequantized[17], 3.0);
  EXPECT_EQ(q.dequantized[18], 1.0);
  EXPECT_EQ(q.dequantized[19], 0.0);
  EXPECT_EQ(q.flags[19], kLostToZero);
  EXPECT_EQ(q.blocks[2].scaleBits, 0x3du);
  EXPECT_EQ(q.dequantized[32], 6 * 1.625);
  EXPECT_EQ(q.flags[32], 0);
  EXPECT_FALSE(q.blocks[2].maxClipped);
  // A tensor amax of 1344 gives encode 2 and decode 0.5.
  v[0] = 1344;
  const QuantizedTensor h = quantize(v, BlockScheme::Nvfp4);
  EXPECT_EQ(h.tensorScale, 0.5);
  EXPECT_EQ(h.dequantized[0], 1344.0);
}

TEST(BlockQuant, Fp8BlockTilesAndWeightBlocks) {
  std::mt19937 rng(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> v(256 * 256);
  for (double& x : v)
    x = normal(rng);
  v[5] = 40.0; // an outlier in row 0's first tile and the first weight block
  QuantizeOptions act;
  act.cols = 256;
  const QuantizedTensor a = quantize(v, BlockScheme::Fp8Block, act);
  EXPECT_EQ(a.blocks.size(), 512u); // 256 rows x 2 tiles
  EXPECT_EQ(a.blocks[0].cols, 128u);
  EXPECT_EQ(a.blocks[0].scale, static_cast<double>(40.0f / 448.0f));
  EXPECT_EQ(a.blockOf[128], 1u);
  EXPECT_EQ(a.blockOf[256], 2u);
  EXPECT_EQ(a.elementBits[5], 0x7eu); // the tile's maximum is 448
  QuantizeOptions w = act;
  w.weightBlocks = true;
  const QuantizedTensor b = quantize(v, BlockScheme::Fp8Block, w);
  EXPECT_EQ(b.blocks.size(), 4u);
  EXPECT_EQ(b.blocks[0].rows, 128u);
  EXPECT_EQ(b.blockOf[127 * 256 + 127], 0u);
  EXPECT_EQ(b.blockOf[128 * 256], 2u);
  // Tiles see the outlier only in row 0; the weight block spreads it over
  // 128 rows, so the tiles keep more signal.
  EXPECT_GT(quantStats(v, a).sqnrDb, quantStats(v, b).sqnrDb);
  const QuantizedTensor t = quantize(v, BlockScheme::Fp8Tensor, act);
  EXPECT_EQ(t.blocks.size(), 1u);
  EXPECT_GT(quantStats(v, b).sqnrDb, quantStats(v, t).sqnrDb - 1e-9);
  EXPECT_THROW(quantize(std::vector<double>(10, 1.0), BlockScheme::Fp8Block, act), std::invalid_argument);
  // Beyond FP32's range an FP32-scaled scheme sees an infinity: NaN block.
  const std::vector<double> huge{1e300, 1.0, 2.0};
  const QuantizedTensor h = quantize(huge, BlockScheme::Fp8Tensor);
  EXPECT_TRUE(std::isnan(h.blocks[0].scale));
  EXPECT_EQ(h.flags[0], kNotFinite);
  EXPECT_EQ(quantStats(huge, h).nonFinite, 1u);
  // MX scales reach 2^127 and beyond FP32: 1e30 is an ordinary block there.
  EXPECT_EQ(quantize(padded({1e30}, 32), BlockScheme::Mxfp8E4M3).dequantized[0],
            std::ldexp(1.625, 99)); // 1.578 x 2^99: 403.9 x 2^91 -> 416 x 2^91
}

TEST(BlockQuant, CeilAndRceilNeverClipFloorDoes) {
  std::mt19937 rng(11);
  std::lognormal_distribution<double> mag(0.0, 2.0);
  std::vector<double> v(32 * 400);
  for (double& x : v)
    x = (rng() & 1 ? 1 : -1) * mag(rng);
  for (BlockScheme s : {BlockScheme::Mxfp8E4M3, BlockScheme::Mxfp8E5M2, BlockScheme::Mxfp6E2M3,
                        BlockScheme::Mxfp6E3M2, BlockScheme::Mxfp4, BlockScheme::Mxint8}) {
    SCOPED_TRACE(std::string(schemeInfo(s).name));
    const QuantStats floor = quantStats(v, quantize(v, s));
    EXPECT_GT(floor.blocksMaxClipped, 0u);
    for (ScaleRounding r : {ScaleRounding::Ceil, ScaleRounding::RCeil}) {
      const QuantizedTensor q = quantize(v, s, rounding(r));
      const QuantStats st = quantStats(v, q);
      EXPECT_EQ(st.blocksMaxClipped, 0u);
      EXPECT_EQ(st.fractionSaturated, 0.0);
      // Each block's maximum survives to within half an element step.
      for (const QuantBlock& b : q.blocks) {
        std::size_t at = b.col;
        for (std::size_t i = b.col; i < b.col + b.count; ++i)
          if (std::fabs(v[i]) == b.amax)
            at = i;
        const FloatFormat& ef = formatInfo(schemeInfo(s).element);
        const double step = ulp(ef, q.elementBits[at]) * b.scale;
        EXPECT_LE(std::fabs(q.dequantized[at] - v[at]), step / 2);
      }
      // rceil's scale is never larger than ceil's.
    }
    const QuantizedTensor c = quantize(v, s, rounding(ScaleRounding::Ceil));
    const QuantizedTensor rc = quantize(v, s, rounding(ScaleRounding::RCeil));
    for (std::size_t b = 0; b < c.blocks.size(); ++b)
      EXPECT_LE(rc.blocks[b].scaleExponent, c.blocks[b].scaleExponent);
  }
}

TEST(BlockQuant, ScaleExponentRoundingModes) {
  // E2M1: emax 2, one mantissa bit.
  EXPECT_EQ(mxScaleExponent(7.9, FormatId::Fp4E2M1, ScaleRounding::Floor), 0);
  EXPECT_EQ(mxScaleExponent(7.9, FormatId::Fp4E2M1, ScaleRounding::Ceil), 1);
  // even: 7.9 = 1.975 x 4 rounds to 2.0 x 4 = 8 with one mantissa bit: 3 - 2.
  EXPECT_EQ(mxScaleExponent(7.9, FormatId::Fp4E2M1, ScaleRounding::Even), 1);
  // 6.9 = 1.725 x 4 rounds to 1.5 x 4: floor.
  EXPECT_EQ(mxScaleExponent(6.9, FormatId::Fp4E2M1, ScaleRounding::Even), 0);
  // rceil: 6 x 2^0 >= 6 but 6 x 2^0 < 6.1.
  EXPECT_EQ(mxScaleExponent(6.0, FormatId::Fp4E2M1, ScaleRounding::RCeil), 0);
  EXPECT_EQ(mxScaleExponent(6.1, FormatId::Fp4E2M1, ScaleRounding::RCeil), 1);
  // Powers of two: ceil equals floor.
  EXPECT_EQ(mxScaleExponent(4.0, FormatId::Fp4E2M1, ScaleRounding::Ceil), 0);
  EXPECT_EQ(mxScaleExponent(256.0, FormatId::Fp8E4M3, ScaleRounding::Floor), 0);
  EXPECT_EQ(mxScaleExponent(1.0, FormatId::Int8, ScaleRounding::Floor), 0);
}

TEST(BlockQuant, WhatIfRanksSchemesOnTheSameValues) {
  std::mt19937 rng(5);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> v(32 * 64);
  for (double& x : v)
    x = normal(rng);
  const auto rows = whatIf(v);
  ASSERT_EQ(rows.size(), allSchemes().size());
  std::map<BlockScheme, double> sqnr;
  for (const auto& r : rows) {
    EXPECT_EQ(r.stats.count, v.size());
    // Each row is what quantize + quantStats give for that scheme alone.
    EXPECT_EQ(r.stats.sqnrDb, quantStats(v, quantize(v, r.scheme)).sqnrDb);
    sqnr[r.scheme] = r.stats.sqnrDb;
  }
  // Within a block the mantissa bits decide: MXINT8 (6 fraction bits) >
  // E4M3 and E2M3 (3) > E5M2 and E3M2 (2) > E2M1 (1).
  for (BlockScheme three : {BlockScheme::Mxfp8E4M3, BlockScheme::Mxfp6E2M3}) {
    EXPECT_GT(sqnr[BlockScheme::Mxint8], sqnr[three]);
    for (BlockScheme two : {BlockScheme::Mxfp8E5M2, BlockScheme::Mxfp6E3M2})
      EXPECT_GT(sqnr[three], sqnr[two] + 3.0);
  }
  EXPECT_GT(sqnr[BlockScheme::Mxfp6E3M2], sqnr[BlockScheme::Mxfp4] + 3.0);
  // A uniform quantizer's SQNR is about 6 dB per bit: FP4's sits near 3 bits' worth.
  EXPECT_GT(sqnr[BlockScheme::Mxfp4], 10.0);
  EXPECT_LT(sqnr[BlockScheme::Mxfp4], 25.0);
}

TEST(BlockQuant, ElementErrorIsWithinHalfAStepAwayFromSaturation) {
  std::mt19937 rng(3);
  std::normal_distribution<double> normal(0.0, 3.0);
  std::vector<double> v(32 * 50);
  for (double& x : v)
    x = normal(rng);
  for (BlockScheme s : allSchemes()) {
    SCOPED_TRACE(std::string(schemeInfo(s).name));
    const QuantizedTensor q = quantize(v, s);
    const FloatFormat& ef = formatInfo(schemeInfo(s).element);
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (q.flags[i] & kSaturated)
        continue;
      const double scale = q.blocks[q.blockOf[i]].scale * q.tensorScale;
      // Nearest-even: the stored value is within half a step of v (the
      // FP32-scaled schemes round v / scale in FP32 first: a little slack).
      const double step = ulp(ef, q.elementBits[i]) * scale;
      EXPECT_LE(std::fabs(q.dequantized[i] - v[i]), step / 2 * (1 + 1e-6) + 1e-300) << i;
    }
  }
}

} // namespace

#include <mantissa/numeric/value_list.h>

namespace {

using namespace mantissa::numeric;

TEST(ValueList, SeparatorsCommentsAndSyntax) {
  const ValueListResult r = parseValueList("1, 2;3\t0x1p-3 # four\n\n-inf nan\r\n1e-400 0.1");
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.values.size(), 8u);
  EXPECT_EQ(r.values[3], 0.125);
  EXPECT_TRUE(std::isinf(r.values[4]) && r.values[4] < 0);
  EXPECT_TRUE(std::isnan(r.values[5]));
  EXPECT_EQ(r.values[6], 0.0); // below half of double's smallest subnormal
  EXPECT_EQ(r.values[7], 0.1);
  EXPECT_TRUE(parseValueList("").values.empty());
  EXPECT_TRUE(parseValueList("  # only a comment").error.empty());
}

TEST(ValueList, ErrorsNameLineAndColumn) {
  const ValueListResult bad = parseValueList("1 2\n  3 4.5.6 7\n");
  EXPECT_TRUE(bad.values.empty());
  EXPECT_EQ(bad.line, 2u);
  EXPECT_EQ(bad.column, 5u);
  EXPECT_EQ(bad.error.rfind("line 2, column 5: '4.5.6' is not a number", 0), 0u) << bad.error;
  ValueListLimits small;
  small.maxValues = 3;
  EXPECT_NE(parseValueList("1 2 3 4", small).error.find("more than 3 values"), std::string::npos);
  EXPECT_TRUE(parseValueList("1 2 3", small).error.empty());
  small.maxTokenLength = 4;
  EXPECT_NE(parseValueList("1 12345", small).error.find("longer than 4 characters"), std::string::npos);
  const ValueListResult control = parseValueList(std::string("1\x01x"));
  EXPECT_NE(control.error.find("'1?x'"), std::string::npos) << control.error;
}

} // namespace

namespace {

// MXFP8 with E4M3FNUZ elements (max 240 = 1.875 x 2^7, so emax 7): a block
// of amax 240 gets the scale 2^(7 - 7) = 1; 0.3 lies between 0.28125 and
// 0.3125 (1.001b and 1.010b x 2^-2) and is nearer 0.3125; -0 is stored as
// +0 (0x00: E4M3FNUZ's 0x80 is its NaN).
TEST(BlockQuantFormats, MxWithAnFnuzElement) {
  using namespace mantissa::numeric;
  const std::vector<double> values{240.0, 1.0, -0.0, 0.3};
  const QuantizedTensor q = quantize(values, BlockScheme::Mxfp8E4M3, formatInfo(FormatId::Fp8E4M3Fnuz),
                                     formatInfo(FormatId::E8M0));
  ASSERT_EQ(q.blocks.size(), 1u);
  EXPECT_EQ(q.blocks[0].scaleExponent, 0);
  EXPECT_EQ(q.dequantized, (std::vector<double>{240.0, 1.0, 0.0, 0.3125}));
  EXPECT_EQ(q.elementBits[0], 0x7fu);
  EXPECT_EQ(q.elementBits[2], 0x00u);
  // The same values under OCP E4M3 (emax 8): the scale is 2^(7 - 8).
  EXPECT_EQ(quantize(values, BlockScheme::Mxfp8E4M3).blocks[0].scaleExponent, -1);
  // A spec-defined element wider than 16 bits is refused.
  const FloatFormat wide = *parseFormatSpec("e8m10:bias=100").format;
  EXPECT_THROW(quantize(values, BlockScheme::Mxfp8E4M3, wide, formatInfo(FormatId::E8M0)), std::invalid_argument);
  EXPECT_THROW(quantize(values, BlockScheme::Mxfp8E4M3, formatInfo(FormatId::Fp8E3M4), formatInfo(FormatId::Fp16)),
               std::invalid_argument);
}

// NVFP4 with UE4M3 block scales: a block scale is positive, so it stores
// the same values as E4M3 scales.
TEST(BlockQuantFormats, Nvfp4WithUe4m3Scales) {
  using namespace mantissa::numeric;
  std::vector<double> values;
  for (int i = 0; i < 64; ++i)
    values.push_back(std::ldexp(1.0 + i / 64.0, (i % 11) - 5) * (i % 3 == 0 ? -1 : 1));
  const QuantizedTensor ue = quantize(values, BlockScheme::Nvfp4, formatInfo(FormatId::Fp4E2M1),
                                      formatInfo(FormatId::Ue4m3));
  const QuantizedTensor e4 = quantize(values, BlockScheme::Nvfp4);
  EXPECT_EQ(ue.dequantized, e4.dequantized);
  EXPECT_EQ(ue.tensorScale, e4.tensorScale);
}

} // namespace
