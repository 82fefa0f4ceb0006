// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/amp/scaling.h>

#include <mantissa/numeric/block_quant.h>
#include <mantissa/numeric/format_spec.h>
#include <mantissa/tensor/run_state.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace mantissa::amp {
namespace {

using numeric::FormatId;

constexpr std::array kSchemes{MatmulScaling::Fp8Delayed, MatmulScaling::Fp8Current,
                              MatmulScaling::Fp8Block, MatmulScaling::Mxfp8, MatmulScaling::Nvfp4};

struct Mini {
  int mbits;
  int emin; // exponent of the smallest normal
  float max;
  bool subnormals = true;
  bool negativeZero = true;
};

Mini miniOf(const numeric::FloatFormat& f) {
  if (const std::string e = elementFormatError(f, MatmulScaling::Unscaled); !e.empty())
    throw std::invalid_argument("roundElement: " + e);
  return {f.mantissaBits, f.minNormalExponent(), static_cast<float>(f.maxFinite()), f.subnormals,
          f.hasNegativeZero()};
}

Mini mini(FormatId f) {
  switch (f) {
  case FormatId::Fp8E4M3:
    return {3, -6, 448.0f};
  case FormatId::Fp8E5M2:
    return {2, -14, 57344.0f};
  case FormatId::Fp4E2M1:
    return {1, 0, 6.0f};
  default:
    return miniOf(numeric::formatInfo(f));
  }
}

float pow2(int k) { // 2^k for k in [-126, 127], exact
  return std::bit_cast<float>(static_cast<std::uint32_t>(k + 127) << 23);
}

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

constexpr float kNanF = std::numeric_limits<float>::quiet_NaN();

// Round to nearest integer, ties to even, for 0 <= r < 2^22 (the default
// rounding mode of the addition does it).
inline float nearestInteger(float r) {
  constexpr float b = 12582912.0f; // 1.5 x 2^23
  return (r + b) - b;
}

inline ElementRounding roundWith(const Mini& m, float x, bool stochastic, std::uint32_t random) {
  const float a = std::fabs(x);
  if (std::isnan(a))
    return {x, false, false};
  if (!(a > 0.0f) || std::isinf(a) || double(a) >= 2.0 * double(m.max)) {
    if (std::isinf(a) || a > 0.0f)
      return {std::copysign(m.max, x), true, false};
    return {m.negativeZero ? x : 0.0f, false, false}; // zero (fnuz: no -0)
  }
  int e = static_cast<int>(std::bit_cast<std::uint32_t>(a) >> 23) - 127;
  float v = 0.0f;
  const float minNormal = pow2(m.emin);
  if (!m.subnormals && a < minNormal) {
    // Below the min normal the only values are 0 and the min normal; a tie goes
    // to 0 (the even code).
    const float half = 0.5f * minNormal;
    bool up = a > half;
    if (stochastic)
      up = double(random) < double(a / minNormal) * 4294967296.0;
    v = up ? minNormal : 0.0f;
  } else {
    e = std::max(e, m.emin);
    const float r = a * pow2(m.mbits - e); // exact, < 2^(mbits + 1)
    float n = nearestInteger(r);
    if (stochastic) {
      const float fl = n > r ? n - 1.0f : n;
      n = fl + (double(random) < double(r - fl) * 4294967296.0 ? 1.0f : 0.0f);
    }
    v = n * pow2(e - m.mbits);
  }
  const bool saturated = v > m.max;
  if (saturated)
    v = m.max;
  const bool subnormal = v != 0.0f && v < minNormal;
  if (v == 0.0f && !m.negativeZero)
    return {0.0f, false, false};
  return {std::copysign(v, x), saturated, subnormal};
}

Mini miniOf(const OperandRequest& rq) {
  return rq.format ? miniOf(*rq.format) : mini(rq.element);
}

std::string formatName(const OperandRequest& rq) {
  return rq.format ? rq.format->name : std::string(numeric::formatInfo(rq.element).name);
}

// Running statistics of one operand.
struct Tally {
  std::int64_t count = 0, saturated = 0, lost = 0, subnormal = 0;
  double signal = 0.0, noise = 0.0;
  void add(float v, float q, const ElementRounding& r) {
    ++count;
    saturated += r.saturated ? 1 : 0;
    lost += (v != 0.0f && r.value == 0.0f) ? 1 : 0;
    subnormal += r.subnormal ? 1 : 0;
    const double d = double(v) - double(q);
    signal += double(v) * double(v);
    noise += d * d;
  }
  void finish(telemetry::ScaledTensorStats& s) const {
    s.count = count;
    if (count > 0) {
      s.fractionSaturated = double(saturated) / double(count);
      s.fractionLostToZero = double(lost) / double(count);
      s.fractionSubnormal = double(subnormal) / double(count);
    }
    s.sqnrDb = signal == 0.0   ? std::numeric_limits<double>::quiet_NaN()
               : noise == 0.0 ? std::numeric_limits<double>::infinity()
                              : 10.0 * std::log10(signal / noise);
  }
};

float finiteAmax(std::span<const float> in) {
  float amax = 0.0f;
  for (const float v : in)
    if (std::isfinite(v))
      amax = std::max(amax, std::fabs(v));
  return amax;
}

std::uint32_t randomBits(std::uint64_t seed, std::size_t index) {
  return static_cast<std::uint32_t>(splitmix(seed ^ splitmix(index)) >> 32);
}

telemetry::ScaledTensorStats perTensor(std::span<const float> in, std::span<float> out,
                                       const OperandRequest& rq) {
  const Mini m = miniOf(rq);
  const float amax = finiteAmax(in);
  float scale = rq.scheme == MatmulScaling::Unscaled ? 1.0f : rq.scale;
  if (rq.scheme == MatmulScaling::Fp8Current) {
    scale = 1.0f;
    if (amax > 0.0f && std::isfinite(amax)) {
      scale = (m.max * std::ldexp(1.0f, -rq.margin)) / amax;
      if (std::isinf(scale))
        scale = std::numeric_limits<float>::max();
    }
  }
  const float scaleInv = 1.0f / scale;
  Tally tally;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const float v = in[i];
    if (!std::isfinite(v)) {
      out[i] = kNanF;
      continue;
    }
    const ElementRounding r = roundWith(m, v * scale, rq.stochastic,
                                        rq.stochastic ? randomBits(rq.seed, i) : 0u);
    const float q = r.value * scaleInv;
    tally.add(v, q, r);
    out[i] = q;
  }
  telemetry::ScaledTensorStats s;
  s.format = formatName(rq);
  s.scale = s.scaleMin = s.scaleMax = scale;
  s.amax = s.amaxHistory = amax;
  s.blocks = 1;
  tally.finish(s);
  return s;
}

struct Block {
  int r0, c0, h, w;
};

// Scratch reused across calls (the training thread quantizes every step).
thread_local std::vector<Block> tlBlocks;
thread_local std::vector<double> tlScales;
thread_local std::vector<float> tlTransposed, tlTransposedOut;

const std::vector<Block>& blocksOf(const OperandRequest& rq, int size) {
  std::vector<Block>& blocks = tlBlocks;
  blocks.clear();
  if (rq.weightBlocks) {
    for (int r = 0; r < rq.rows; r += size)
      for (int c = 0; c < rq.cols; c += size)
        blocks.push_back({r, c, std::min(size, rq.rows - r), std::min(size, rq.cols - c)});
  } else if (rq.axis == BlockAxis::Rows) {
    for (int r = 0; r < rq.rows; ++r)
      for (int c = 0; c < rq.cols; c += size)
        blocks.push_back({r, c, 1, std::min(size, rq.cols - c)});
  } else {
    for (int c = 0; c < rq.cols; ++c)
      for (int r = 0; r < rq.rows; r += size)
        blocks.push_back({r, c, std::min(size, rq.rows - r), 1});
  }
  return blocks;
}

telemetry::ScaledTensorStats blockScaled(std::span<const float> in, std::span<float> out,
                                         const OperandRequest& rq) {
  const int size = rq.scheme == MatmulScaling::Fp8Block ? 128
                   : rq.scheme == MatmulScaling::Mxfp8  ? 32
                                                        : 16;
  const std::size_t cols = static_cast<std::size_t>(rq.cols);
  const Mini em = miniOf(rq);
  const BlockScale blockScale = effectiveBlockScale(rq.scheme, rq.blockScale);
  const bool ue4m3Scale = rq.scheme != MatmulScaling::Fp8Block && blockScale == BlockScale::Ue4m3;
  const int elementEmax = rq.format ? rq.format->maxFiniteExponent()
                                    : numeric::formatInfo(rq.element).maxFiniteExponent();
  auto each = [&](const Block& b, auto&& fn) {
    for (int r = b.r0; r < b.r0 + b.h; ++r)
      for (int c = b.c0; c < b.c0 + b.w; ++c)
        fn(static_cast<std::size_t>(r) * cols + static_cast<std::size_t>(c));
  };
  const float tensorAmax = finiteAmax(in);
  // nvfp4's tensor scale (FP32): encode = 448 x 6 / amax (any UE4M3 block scale:
  // 448 x the element's max / amax).
  float encode = 1.0f;
  if (ue4m3Scale) {
    const float s = 448.0f * em.max / tensorAmax;
    encode = tensorAmax > 0.0f && std::isfinite(s) && s > 0.0f ? s : 1.0f;
  }
  const double tensorDecode = double(1.0f / encode);
  Tally tally;
  std::vector<double>& scales = tlScales;
  scales.clear();
  std::int64_t clipped = 0;
  const std::vector<Block>& blocks = blocksOf(rq, size);
  for (const Block& b : blocks) {
    bool nonFinite = false;
    float amax = 0.0f;
    each(b, [&](std::size_t i) {
      if (!std::isfinite(in[i]))
        nonFinite = true;
      else
        amax = std::max(amax, std::fabs(in[i]));
    });
    auto nanBlock = [&] { each(b, [&](std::size_t i) { out[i] = kNanF; }); };
    if (nonFinite) {
      nanBlock();
      continue;
    }
    bool maxClipped = false;
    auto element = [&](std::size_t i, float x, double decode) {
      const float v = in[i];
      const ElementRounding r =
          roundWith(em, x, rq.stochastic, rq.stochastic ? randomBits(rq.seed, i) : 0u);
      const float q = static_cast<float>(double(r.value) * decode);
      if (r.saturated && std::fabs(v) == amax)
        maxClipped = true;
      tally.add(v, q, r);
      out[i] = q;
    };
    if (rq.scheme != MatmulScaling::Fp8Block && !ue4m3Scale) { // E8M0: OCP MX's rule
      int e = amax > 0.0f ? std::ilogb(amax) - elementEmax : std::numeric_limits<int>::min() / 2;
      e = std::max(e, -127);
      if (e > 127) {
        nanBlock();
        continue;
      }
      const double decode = std::ldexp(1.0, e), encodeMx = std::ldexp(1.0, -e);
      each(b, [&](std::size_t i) {
        element(i, static_cast<float>(double(in[i]) * encodeMx), decode); // exact
      });
      if (amax > 0.0f) // an all-zero block has no scale worth showing
        scales.push_back(std::ldexp(1.0, -e));
    } else if (ue4m3Scale) {
      const float s = amax / em.max * encode;
      const float blockDecode = roundElement(s, FormatId::Fp8E4M3).value;
      const float multiplier = blockDecode > 0.0f ? encode / blockDecode : 0.0f;
      const double decode = double(blockDecode) * tensorDecode;
      each(b, [&](std::size_t i) { element(i, in[i] * multiplier, decode); });
      if (amax > 0.0f) // an all-zero block has no scale worth showing
        scales.push_back(multiplier);
    } else { // fp8-block
      const float s = amax > 0.0f ? amax / em.max : 1.0f;
      const float blockDecode = s > 0.0f ? s : std::numeric_limits<float>::denorm_min();
      each(b, [&](std::size_t i) { element(i, in[i] / blockDecode, double(blockDecode)); });
      if (amax > 0.0f) // an all-zero block has no scale worth showing
        scales.push_back(1.0 / double(blockDecode));
    }
    clipped += maxClipped ? 1 : 0;
  }
  telemetry::ScaledTensorStats s;
  s.format = formatName(rq);
  s.amax = s.amaxHistory = tensorAmax;
  s.blocks = static_cast<std::int64_t>(blocks.size());
  s.blocksClipped = clipped;
  if (!scales.empty()) {
    const auto [lo, hi] = std::minmax_element(scales.begin(), scales.end());
    s.scaleMin = *lo;
    s.scaleMax = *hi;
    auto mid = scales.begin() + static_cast<std::ptrdiff_t>(scales.size() / 2);
    std::nth_element(scales.begin(), mid, scales.end());
    s.scale = *mid;
  }
  tally.finish(s);
  return s;
}

} // namespace

std::string_view matmulScalingName(MatmulScaling scaling) {
  switch (scaling) {
  case MatmulScaling::None:
    return "none";
  case MatmulScaling::Fp8Delayed:
    return "fp8-delayed";
  case MatmulScaling::Fp8Current:
    return "fp8-current";
  case MatmulScaling::Fp8Block:
    return "fp8-block";
  case MatmulScaling::Mxfp8:
    return "mxfp8";
  case MatmulScaling::Nvfp4:
    return "nvfp4";
  case MatmulScaling::Unscaled:
    return "unscaled";
  }
  return "none";
}

std::optional<MatmulScaling> parseMatmulScaling(std::string_view name) {
  for (const MatmulScaling s : kSchemes)
    if (matmulScalingName(s) == name)
      return s;
  return std::nullopt;
}

std::span<const MatmulScaling> matmulScalings() { return kSchemes; }

std::string_view amaxComputeName(AmaxCompute compute) {
  return compute == AmaxCompute::Max ? "max" : "most-recent";
}

std::string_view blockScaleName(BlockScale scale) {
  switch (scale) {
  case BlockScale::E8m0: return "e8m0";
  case BlockScale::Ue4m3: return "ue4m3";
  case BlockScale::Default: break;
  }
  return "default";
}

BlockScale effectiveBlockScale(MatmulScaling scheme, BlockScale scale) {
  if (scale != BlockScale::Default)
    return scale;
  return scheme == MatmulScaling::Nvfp4 ? BlockScale::Ue4m3 : BlockScale::E8m0;
}

std::string elementFormatError(const numeric::FloatFormat& f, MatmulScaling scheme) {
  using numeric::Layout;
  const std::string name = f.name;
  if (f.layout != Layout::SignExponentMantissa)
    return name + " is not a sign/exponent/mantissa float: a matmul operand needs one";
  if (!f.hasSign())
    return name + " has no sign bit: a matmul operand needs one";
  if (f.totalBits() > numeric::kMaxTensorFormatBits)
    return name + " has " + std::to_string(f.totalBits()) + " bits; a tensor's element format has at most " +
           std::to_string(numeric::kMaxTensorFormatBits);
  const bool fp8 = scheme == MatmulScaling::Fp8Delayed || scheme == MatmulScaling::Fp8Current ||
                   scheme == MatmulScaling::Fp8Block;
  if (fp8 && f.totalBits() != 8)
    return name + " has " + std::to_string(f.totalBits()) + " bits; " +
           std::string(matmulScalingName(scheme)) + " takes an 8-bit element format";
  if (f.minNormalExponent() - f.mantissaBits < -126 || f.maxFiniteExponent() > 125)
    return name + ": its values (bias " + std::to_string(f.bias()) +
           ") must lie inside FP32's normal range, 2^-126 to 2^125";
  if (!(f.maxFinite() > 0.0))
    return name + " has no positive finite value";
  return {};
}

numeric::FloatFormat operandElement(const ScalingOptions& o, telemetry::ScaledRole role) {
  const bool grad = role == telemetry::ScaledRole::GradOutput && !o.gradElement.empty();
  const std::string& spec = grad ? o.gradElement : o.element;
  if (spec.empty())
    return numeric::formatInfo(operandFormat(o.scheme, role));
  const char* field = grad ? "grad-element" : "element";
  const numeric::FormatParse p = numeric::parseFormatSpec(spec);
  if (!p.format)
    throw std::invalid_argument(std::string(field) + ": " + p.error);
  if (const std::string e = elementFormatError(*p.format, o.scheme); !e.empty())
    throw std::invalid_argument(std::string(field) + ": " + e);
  return *p.format;
}

numeric::FormatId operandFormat(MatmulScaling scheme, telemetry::ScaledRole role) {
  if (scheme == MatmulScaling::Nvfp4)
    return FormatId::Fp4E2M1;
  const bool hybrid = scheme == MatmulScaling::Fp8Delayed || scheme == MatmulScaling::Fp8Current;
  return hybrid && role == telemetry::ScaledRole::GradOutput ? FormatId::Fp8E5M2
                                                             : FormatId::Fp8E4M3;
}

DelayedScale::DelayedScale(float fp8Max, int historyLength, AmaxCompute compute, int margin)
    : m_history(static_cast<std::size_t>(std::max(1, historyLength)), 0.0f), m_compute(compute),
      m_scaledMax(fp8Max * std::ldexp(1.0f, -margin)) {}

void DelayedScale::visitState(RunStateVisitor& v, std::string_view prefix) {
  v.floats(stateName(prefix, "amax_history"), m_history);
  v.value(stateName(prefix, "next"), m_next);
  v.value(stateName(prefix, "filled"), m_filled);
  v.value(stateName(prefix, "scale"), m_scale);
  v.value(stateName(prefix, "history_amax"), m_historyAmax);
  if (m_next >= m_history.size() || m_filled < 0 || m_filled > std::int64_t(m_history.size()))
    throw std::invalid_argument(std::string(prefix) + ": amax history position outside its " +
                                std::to_string(m_history.size()) + " entries");
}

void DelayedScale::update(float amax) {
  m_history[m_next] = amax;
  m_next = (m_next + 1) % m_history.size();
  m_filled = std::min<std::int64_t>(m_filled + 1, static_cast<std::int64_t>(m_history.size()));
  float a = amax;
  if (m_compute == AmaxCompute::Max) {
    a = 0.0f;
    for (std::int64_t k = 0; k < m_filled; ++k)
      a = std::fmax(a, m_history[static_cast<std::size_t>(k)]);
  }
  m_historyAmax = a;
  if (std::isfinite(a) && a > 0.0f)
    m_scale = m_scaledMax / a;
}

ElementRounding roundElement(float x, numeric::FormatId element,
                             std::optional<std::uint32_t> random) {
  return roundWith(mini(element), x, random.has_value(), random.value_or(0u));
}

ElementRounding roundElement(float x, const numeric::FloatFormat& element,
                             std::optional<std::uint32_t> random) {
  return roundWith(miniOf(element), x, random.has_value(), random.value_or(0u));
}

telemetry::ScaledTensorStats quantizeOperand(std::span<const float> in, std::span<float> out,
                                             const OperandRequest& rq) {
  if (in.size() != out.size() ||
      in.size() != static_cast<std::size_t>(rq.rows) * static_cast<std::size_t>(rq.cols))
    throw std::invalid_argument("quantizeOperand: " + std::to_string(in.size()) +
                                " values for a " + std::to_string(rq.rows) + " x " +
                                std::to_string(rq.cols) + " operand");
  if (rq.axis == BlockAxis::Columns && !rq.weightBlocks && rq.scheme != MatmulScaling::Fp8Delayed &&
      rq.scheme != MatmulScaling::Fp8Current && rq.scheme != MatmulScaling::Unscaled) {
    // Blocks down the columns: quantize the transpose along its rows.
    const std::size_t R = static_cast<std::size_t>(rq.rows), C = static_cast<std::size_t>(rq.cols);
    std::vector<float>& t = tlTransposed;
    std::vector<float>& q = tlTransposedOut;
    t.resize(in.size());
    q.resize(in.size());
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t c = 0; c < C; ++c)
        t[c * R + r] = in[r * C + c];
    OperandRequest tr = rq;
    tr.rows = rq.cols;
    tr.cols = rq.rows;
    tr.axis = BlockAxis::Rows;
    const telemetry::ScaledTensorStats s = blockScaled(t, q, tr);
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t c = 0; c < C; ++c)
        out[r * C + c] = q[c * R + r];
    return s;
  }
  switch (rq.scheme) {
  case MatmulScaling::Fp8Delayed:
  case MatmulScaling::Fp8Current:
  case MatmulScaling::Unscaled:
    return perTensor(in, out, rq);
  case MatmulScaling::Fp8Block:
  case MatmulScaling::Mxfp8:
  case MatmulScaling::Nvfp4:
    return blockScaled(in, out, rq);
  case MatmulScaling::None:
    break;
  }
  throw std::invalid_argument("quantizeOperand: no scaling recipe given");
}

} // namespace mantissa::amp
