// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/numeric/block_quant.h>
#include <mantissa/numeric/format_spec.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace mantissa::numeric {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

constexpr std::array kSchemes{
    SchemeInfo{BlockScheme::Mxfp8E4M3, "mxfp8-e4m3", FormatId::Fp8E4M3, FormatId::E8M0, 32,
               "OCP MX: FP8 E4M3 elements, one E8M0 scale per 32"},
    SchemeInfo{BlockScheme::Mxfp8E5M2, "mxfp8-e5m2", FormatId::Fp8E5M2, FormatId::E8M0, 32,
               "OCP MX: FP8 E5M2 elements, one E8M0 scale per 32"},
    SchemeInfo{BlockScheme::Mxfp6E2M3, "mxfp6-e2m3", FormatId::Fp6E2M3, FormatId::E8M0, 32,
               "OCP MX: FP6 E2M3 elements, one E8M0 scale per 32"},
    SchemeInfo{BlockScheme::Mxfp6E3M2, "mxfp6-e3m2", FormatId::Fp6E3M2, FormatId::E8M0, 32,
               "OCP MX: FP6 E3M2 elements, one E8M0 scale per 32"},
    SchemeInfo{BlockScheme::Mxfp4, "mxfp4", FormatId::Fp4E2M1, FormatId::E8M0, 32,
               "OCP MX: FP4 E2M1 elements, one E8M0 scale per 32"},
    SchemeInfo{BlockScheme::Mxint8, "mxint8", FormatId::Int8, FormatId::E8M0, 32,
               "OCP MX: INT8 elements (x 2^-6), one E8M0 scale per 32"},
    SchemeInfo{BlockScheme::Nvfp4, "nvfp4", FormatId::Fp4E2M1, FormatId::Fp8E4M3, 16,
               "FP4 E2M1 elements, one E4M3 scale per 16, one FP32 scale per tensor"},
    SchemeInfo{BlockScheme::Fp8Block, "fp8-block", FormatId::Fp8E4M3, FormatId::Fp32, 128,
               "FP8 E4M3, one FP32 scale per 1x128 tile (or 128x128 weight block)"},
    SchemeInfo{BlockScheme::Fp8Tensor, "fp8-tensor", FormatId::Fp8E4M3, FormatId::Fp32, 0,
               "FP8 E4M3, one FP32 scale for the whole tensor"},
};

constexpr std::array kSchemeIds{BlockScheme::Mxfp8E4M3, BlockScheme::Mxfp8E5M2, BlockScheme::Mxfp6E2M3,
                                BlockScheme::Mxfp6E3M2, BlockScheme::Mxfp4,     BlockScheme::Mxint8,
                                BlockScheme::Nvfp4,     BlockScheme::Fp8Block,  BlockScheme::Fp8Tensor};

// floor(log2 x) for finite x > 0, exact (subnormals included).
int floorLog2(double x) { return std::ilogb(x); }

bool isPowerOfTwo(double x) {
  int e = 0;
  return std::frexp(x, &e) == 0.5;
}

// x (a double) divided by 2^e, exactly: through ExactValue when the double
// division would round (results in double's subnormal range).
ExactValue scaledExact(double x, int e) {
  int ex = 0;
  const double m = std::frexp(std::fabs(x), &ex); // x = m 2^ex, m in [0.5, 1)
  const auto sig = static_cast<std::uint64_t>(std::ldexp(m, 53));
  return ExactValue::finite(std::signbit(x),
                            {static_cast<std::uint32_t>(sig), static_cast<std::uint32_t>(sig >> 32)},
                            ex - 53 - e, 2);
}

EncodeResult encodeScaled(const FloatFormat& f, double v, int e, const EncodeOptions& o) {
  const double scaled = std::ldexp(v, -e);
  if (std::ldexp(scaled, e) == v)
    return encode(f, scaled, o);
  return encode(f, scaledExact(v, e), o);
}

float f32(double v) { return static_cast<float>(v); }

struct Element {
  std::uint64_t bits = 0;
  double value = 0.0;
  bool saturated = false;
};

// One element: encode, then for MXINT8 keep to the symmetric range +-127/64.
Element finishElement(const FloatFormat& f, const EncodeResult& r) {
  Element e{r.bits, toDouble(f, r.bits), r.overflowed};
  if (f.layout == Layout::TwosComplement && r.bits == f.signMask()) {
    e.bits = f.signMask() | 1u; // -128 -> -127
    e.value = toDouble(f, e.bits);
    e.saturated = true;
  }
  return e;
}

int mxScaleExponentOf(double amax, const FloatFormat& f, ScaleRounding rounding);

} // namespace

std::span<const BlockScheme> allSchemes() { return kSchemeIds; }

const SchemeInfo& schemeInfo(BlockScheme scheme) { return kSchemes[static_cast<std::size_t>(scheme)]; }

std::optional<BlockScheme> parseSchemeName(std::string_view name) {
  for (const SchemeInfo& s : kSchemes)
    if (s.name == name)
      return s.scheme;
  if (name == "mxfp8")
    return BlockScheme::Mxfp8E4M3;
  if (name == "mxfp6")
    return BlockScheme::Mxfp6E2M3;
  return std::nullopt;
}

std::optional<ScaleRounding> parseScaleRoundingName(std::string_view name) {
  for (ScaleRounding r : {ScaleRounding::Floor, ScaleRounding::Ceil, ScaleRounding::Even, ScaleRounding::RCeil})
    if (scaleRoundingName(r) == name)
      return r;
  return std::nullopt;
}

std::string_view scaleRoundingName(ScaleRounding rounding) {
  switch (rounding) {
  case ScaleRounding::Floor: return "floor";
  case ScaleRounding::Ceil: return "ceil";
  case ScaleRounding::Even: return "even";
  case ScaleRounding::RCeil: return "rceil";
  }
  return "floor";
}

int mxScaleExponent(double amax, FormatId element, ScaleRounding rounding) {
  return mxScaleExponentOf(amax, formatInfo(element), rounding);
}

namespace {

int mxScaleExponentOf(double amax, const FloatFormat& f, ScaleRounding rounding) {
  const int emax = f.maxFiniteExponent();
  if (!(amax > 0.0))
    return std::numeric_limits<int>::min() / 2; // clamped to E8M0's minimum by the caller
  switch (rounding) {
  case ScaleRounding::Floor: return floorLog2(amax) - emax;
  case ScaleRounding::Ceil: return floorLog2(amax) + (isPowerOfTwo(amax) ? 0 : 1) - emax;
  case ScaleRounding::Even: {
    // amax to the element's mantissa width, half away from zero, then floor.
    const int e = floorLog2(amax);
    const double q = std::floor(std::ldexp(amax, f.mantissaBits - e) + 0.5);
    return floorLog2(std::ldexp(q, e - f.mantissaBits)) - emax;
  }
  case ScaleRounding::RCeil: {
    // The smallest e with amax <= max_elem x 2^e (exact: ldexp only).
    const double top = f.maxFinite();
    int e = floorLog2(amax) - floorLog2(top);
    while (std::ldexp(top, e) < amax)
      ++e;
    return e;
  }
  }
  return 0;
}

QuantizedTensor quantizeWith(std::span<const double> values, BlockScheme scheme, const FloatFormat& elem,
                             const FloatFormat& scaleFormat, const QuantizeOptions& o) {
  const SchemeInfo& info = schemeInfo(scheme);
  // The scale's rule: MX powers of two (E8M0), NVFP4's 8-bit float block
  // scale under an FP32 tensor scale, or one FP32 scale per block.
  const bool mx = scaleFormat.layout == Layout::UnsignedExponent;
  const bool floatScale8 = !mx && scaleFormat.totalBits() <= 8;
  const std::size_t n = values.size();
  QuantizedTensor q;
  q.scheme = scheme;
  q.cols = o.cols == 0 ? n : o.cols;
  if (q.cols != 0 && n % q.cols != 0)
    throw std::invalid_argument("quantize: " + std::to_string(n) + " values do not fill rows of " +
                                std::to_string(q.cols));
  q.rows = q.cols == 0 ? 0 : n / q.cols;
  q.blockOf.assign(n, 0);
  q.elementBits.assign(n, 0);
  q.elementValue.assign(n, 0.0);
  q.dequantized.assign(n, 0.0);
  q.flags.assign(n, 0);
  if (n == 0)
    return q;

  // The blocks: tiles along rows, 128 x 128 weight blocks, or the tensor.
  if (info.blockSize == 0) {
    q.blocks.push_back({0, 0, q.rows, q.cols, n});
  } else if (scheme == BlockScheme::Fp8Block && o.weightBlocks) {
    const std::size_t b = static_cast<std::size_t>(info.blockSize);
    for (std::size_t r = 0; r < q.rows; r += b)
      for (std::size_t c = 0; c < q.cols; c += b) {
        const std::size_t h = std::min(b, q.rows - r), w = std::min(b, q.cols - c);
        q.blocks.push_back({r, c, h, w, h * w});
      }
  } else {
    const std::size_t b = static_cast<std::size_t>(info.blockSize);
    for (std::size_t r = 0; r < q.rows; ++r)
      for (std::size_t c = 0; c < q.cols; c += b) {
        const std::size_t w = std::min(b, q.cols - c);
        q.blocks.push_back({r, c, 1, w, w});
      }
  }
  auto forEach = [&](const QuantBlock& blk, auto&& fn) {
    for (std::size_t r = blk.row; r < blk.row + blk.rows; ++r)
      for (std::size_t c = blk.col; c < blk.col + blk.cols; ++c)
        fn(r * q.cols + c);
  };

  // nvfp4's tensor scale, from the finite values' amax, in FP32.
  float encodeScale = 1.0f;
  if (floatScale8) {
    float amax = 0.0f;
    for (double v : values)
      if (std::isfinite(v))
        amax = std::max(amax, std::fabs(f32(v)));
    const float s = f32(scaleFormat.maxFinite()) * f32(elem.maxFinite()) / amax; // 448 x 6 for nvfp4
    encodeScale = amax > 0.0f && std::isfinite(s) && s > 0.0f ? s : 1.0f;
    const float decode = 1.0f / encodeScale;
    q.tensorScale = decode;
    q.tensorScaleBits = std::bit_cast<std::uint32_t>(decode);
  }

  std::mt19937_64 rng(o.seed);
  EncodeOptions eo;
  eo.rounding = o.elementRounding;
  eo.overflow = OverflowMode::Saturate;

  for (std::size_t bi = 0; bi < q.blocks.size(); ++bi) {
    QuantBlock& blk = q.blocks[bi];
    bool nonFinite = false;
    double amax = 0.0;
    forEach(blk, [&](std::size_t i) {
      q.blockOf[i] = static_cast<std::uint32_t>(bi);
      const double v = values[i];
      // The FP32-scaled schemes read their input as FP32: past FLT_MAX is Inf.
      if (!std::isfinite(v) || (!mx && !std::isfinite(f32(v)))) {
        nonFinite = true;
        q.flags[i] |= kNotFinite;
      } else {
        amax = std::max(amax, std::fabs(v));
      }
    });
    blk.amax = nonFinite ? kNan : amax;

    if (nonFinite) {
      // The scale format's NaN: the whole block reads as NaN.
      blk.scaleBits = scaleFormat.quietNanBits();
      blk.scale = kNan;
      forEach(blk, [&](std::size_t i) {
        (void)rng();
        q.elementValue[i] = q.dequantized[i] = kNan;
      });
      continue;
    }

    if (mx) {
      int e = mxScaleExponentOf(amax, elem, o.scaleRounding);
      e = std::max(e, -127);
      if (e > 127) {
        blk.scaleBits = 0xff;
        blk.scale = kNan;
        blk.scaleExponent = e;
        forEach(blk, [&](std::size_t i) {
          (void)rng();
          q.elementValue[i] = q.dequantized[i] = kNan;
        });
        continue;
      }
      blk.scaleExponent = e;
      blk.scaleBits = static_cast<std::uint64_t>(e + 127);
      blk.scale = std::ldexp(1.0, e);
      forEach(blk, [&](std::size_t i) {
        eo.random = static_cast<std::uint32_t>(rng());
        const Element el = finishElement(elem, encodeScaled(elem, values[i], e, eo));
        q.elementBits[i] = el.bits;
        q.elementValue[i] = el.value;
        q.dequantized[i] = std::ldexp(el.value, e);
        if (el.saturated) {
          q.flags[i] |= kSaturated;
          if (std::fabs(values[i]) == amax)
            blk.maxClipped = true;
        }
      });
    } else {
      // FP32-computed scales: nvfp4's E4M3 block scale, or amax / 448.
      float blockDecode = 1.0f, elementMultiplier = 1.0f;
      if (floatScale8) {
        const float s = f32(amax) / f32(elem.maxFinite()) * encodeScale;
        EncodeOptions so;
        so.overflow = OverflowMode::Saturate;
        blk.scaleBits = encode(scaleFormat, static_cast<double>(s), so).bits;
        blockDecode = static_cast<float>(toDouble(scaleFormat, blk.scaleBits));
        blk.scale = blockDecode;
        elementMultiplier = blockDecode > 0.0f ? encodeScale / blockDecode : 0.0f;
      } else {
        const float s = amax > 0.0 ? f32(amax) / f32(elem.maxFinite()) : 1.0f;
        blockDecode = s > 0.0f ? s : std::numeric_limits<float>::denorm_min();
        blk.scale = blockDecode;
        blk.scaleBits = std::bit_cast<std::uint32_t>(blockDecode);
      }
      forEach(blk, [&](std::size_t i) {
        eo.random = static_cast<std::uint32_t>(rng());
        const float x = floatScale8 ? f32(values[i]) * elementMultiplier
                                                     : f32(values[i]) / blockDecode;
        const Element el = finishElement(elem, encode(elem, static_cast<double>(x), eo));
        q.elementBits[i] = el.bits;
        q.elementValue[i] = el.value;
        q.dequantized[i] = el.value * blk.scale * q.tensorScale;
        if (el.saturated) {
          q.flags[i] |= kSaturated;
          if (std::fabs(values[i]) == amax)
            blk.maxClipped = true;
        }
      });
    }
    forEach(blk, [&](std::size_t i) {
      if (values[i] != 0.0 && q.elementValue[i] == 0.0)
        q.flags[i] |= kLostToZero;
      if (classify(elem, q.elementBits[i]) == FloatClass::Subnormal)
        q.flags[i] |= kSubnormal;
    });
  }
  return q;
}

} // namespace

QuantizedTensor quantize(std::span<const double> values, BlockScheme scheme, const QuantizeOptions& o) {
  const SchemeInfo& info = schemeInfo(scheme);
  return quantizeWith(values, scheme, formatInfo(info.element), formatInfo(info.scale), o);
}

QuantizedTensor quantize(std::span<const double> values, BlockScheme scheme, const FloatFormat& element,
                         const FloatFormat& scale, const QuantizeOptions& o) {
  if (const std::string error = tensorFormatError(element); !error.empty())
    throw std::invalid_argument("quantize: element " + error);
  if (element.totalBits() > kMaxTensorFormatBits)
    throw std::invalid_argument("quantize: element format " + element.name + " is wider than " +
                                std::to_string(kMaxTensorFormatBits) + " bits");
  const bool known = scale.layout == Layout::UnsignedExponent || scale.id == FormatId::Ue4m3 ||
                     scale.id == FormatId::Fp8E4M3 || scale.id == FormatId::Fp32;
  if (!known)
    throw std::invalid_argument("quantize: scale format " + scale.name +
                                " is not one of ue8m0, ue4m3, fp8-e4m3, fp32");
  return quantizeWith(values, scheme, element, scale, o);
}

QuantStats quantStats(std::span<const double> values, const QuantizedTensor& q) {
  QuantStats s;
  s.blocks = q.blocks.size();
  for (const QuantBlock& b : q.blocks)
    s.blocksMaxClipped += b.maxClipped ? 1 : 0;
  std::size_t saturated = 0, lost = 0, subnormal = 0;
  double signal = 0.0, noise = 0.0;
  for (std::size_t i = 0; i < values.size() && i < q.dequantized.size(); ++i) {
    if ((q.flags[i] & kNotFinite) != 0) {
      ++s.nonFinite;
      continue;
    }
    ++s.count;
    saturated += (q.flags[i] & kSaturated) ? 1 : 0;
    lost += (q.flags[i] & kLostToZero) ? 1 : 0;
    subnormal += (q.flags[i] & kSubnormal) ? 1 : 0;
    signal += values[i] * values[i];
    const double d = values[i] - q.dequantized[i];
    noise += d * d;
  }
  if (s.count > 0) {
    const double n = static_cast<double>(s.count);
    s.fractionSaturated = static_cast<double>(saturated) / n;
    s.fractionLostToZero = static_cast<double>(lost) / n;
    s.fractionSubnormal = static_cast<double>(subnormal) / n;
  }
  if (signal == 0.0)
    s.sqnrDb = kNan;
  else if (noise == 0.0)
    s.sqnrDb = std::numeric_limits<double>::infinity();
  else
    s.sqnrDb = 10.0 * std::log10(signal / noise);
  return s;
}

std::vector<SchemeStats> whatIf(std::span<const double> values, const QuantizeOptions& options) {
  std::vector<SchemeStats> rows;
  for (BlockScheme s : allSchemes()) {
    QuantizeOptions o = options;
    o.weightBlocks = options.weightBlocks && s == BlockScheme::Fp8Block;
    rows.push_back({s, quantStats(values, quantize(values, s, o))});
  }
  return rows;
}

} // namespace mantissa::numeric
