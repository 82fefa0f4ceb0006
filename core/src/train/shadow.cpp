// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/shadow.h>

#include <mantissa/io/json_fields.h>
#include <mantissa/model/op_times.h>
#include <mantissa/numeric/cpu_features.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <type_traits>
#include <bit>
#include <cstdint>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <limits>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <stdexcept>

namespace mantissa::train {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Significand bits (with the implicit one) and the smallest normal exponent.
struct UlpFormat {
  int precision;
  int minExponent;
};

UlpFormat ulpFormat(DType format) {
  switch (format) {
  case DType::BF16:
    return {8, -126};
  case DType::F16:
    return {11, -14};
  default:
    return {24, -126};
  }
}

// What one pass over every value sums up (the median is taken apart, from samples).
struct Sums {
  double signal = 0.0, noise = 0.0, maxRelative = 0.0, maxUlps = 0.0;
  std::int64_t flips = 0;
  std::int64_t lost = 0; // values non-finite on one side only, or unequal non-finite values
};

std::atomic<bool> g_portable{false}; // setPortableShadowKernel

nlohmann::json number(double v) {
  if (std::isfinite(v))
    return v;
  return v > 0 ? "inf" : "-inf";
}

} // namespace

void setPortableShadowKernel(bool portable) noexcept {
  g_portable.store(portable, std::memory_order_relaxed);
}

std::string_view shadowPrecisionKey(ShadowPrecision p) {
  switch (p) {
  case ShadowPrecision::F32:
    return "fp32";
  case ShadowPrecision::F64:
    return "fp64";
  default:
    return "off";
  }
}

std::optional<ShadowPrecision> parseShadowPrecision(std::string_view text) {
  if (text == "off" || text.empty())
    return ShadowPrecision::Off;
  if (text == "fp32")
    return ShadowPrecision::F32;
  if (text == "fp64")
    return ShadowPrecision::F64;
  return std::nullopt;
}

namespace {

// The plain loop: the definition of every sum, and the kernel of CPUs
// without AVX-512. A value equal to its reference adds its square to the
// signal and nothing else; a finite pair adds its error; a non-finite pair
// that is not the same value (the same infinity, or NaN on both sides) is
// lost, which makes the statistics infinite, and counts as a flip.
template <typename Reference>
Sums sumsPortable(const float* values, const Reference* reference, std::size_t n, double inv,
                  UlpFormat f) {
  constexpr double kMax = std::numeric_limits<double>::max();
  Sums s;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = static_cast<double>(values[i]) * inv;
    const double r = static_cast<double>(reference[i]);
    const bool finite = std::abs(a) <= kMax && std::abs(r) <= kMax;
    const bool same = a == r || (std::isnan(a) && std::isnan(r));
    if (!finite) {
      s.flips += !same;
      s.lost += !same;
      if (a == r)
        s.signal += r * r;
      continue;
    }
    const double d = std::abs(a - r);
    s.signal += r * r;
    s.noise += d * d;
    if (r != 0.0)
      s.maxRelative = std::max(s.maxRelative, d / std::abs(r));
    // One over the format's spacing at r: 2^(precision - 1 - max(exponent(r),
    // minExponent)), built from the exponent field (0 for zero and for
    // subnormal doubles, below any format's minExponent).
    const auto rBits = std::bit_cast<std::uint64_t>(r);
    const auto aBits = std::bit_cast<std::uint64_t>(a);
    const int field = std::max(static_cast<int>((rBits >> 52) & 0x7ff), f.minExponent + 1023);
    const double inverseUlp =
        std::bit_cast<double>(static_cast<std::uint64_t>(f.precision - 1 + 2046 - field) << 52);
    s.maxUlps = std::max(s.maxUlps, d * inverseUlp);
    // A flip: zero against non-zero, or two non-zeros whose sign or exponent differ.
    const bool aZero = a == 0.0, rZero = r == 0.0;
    s.flips += aZero != rZero || (!aZero && ((aBits ^ rBits) >> 52) != 0);
  }
  return s;
}

#if defined(__x86_64__)
// GCC 12's AVX-512 intrinsics start some results from _mm512_undefined_*(),
// which -Wuninitialized reports once inlined (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// The same sums, eight values a step in 512-bit registers. Lanes past the end
// load as zero against zero, which adds nothing to any sum.
template <typename Reference>
[[gnu::target("avx512f,avx512dq,avx512vl")]] Sums sumsAvx512(const float* values,
                                                   const Reference* reference, std::size_t n,
                                                   double inv, UlpFormat f) {
  const __m512d vinv = _mm512_set1_pd(inv);
  const __m512d absMask = _mm512_castsi512_pd(_mm512_set1_epi64(0x7fffffffffffffff));
  const __m512d largest = _mm512_set1_pd(std::numeric_limits<double>::max());
  const __m512d zero = _mm512_setzero_pd();
  const __m512i minField = _mm512_set1_epi64(f.minExponent + 1023);
  const __m512i ulpBias = _mm512_set1_epi64(f.precision - 1 + 2046);
  const __m512i fieldMask = _mm512_set1_epi64(0x7ff);
  __m512d signal = zero, noise = zero, maxRelative = zero, maxUlps = zero;
  std::int64_t flips = 0, lost = 0;
  for (std::size_t i = 0; i < n; i += 8) {
    const auto m = static_cast<__mmask8>(n - i >= 8 ? 0xff : (1u << (n - i)) - 1);
    const __m512d a = _mm512_mul_pd(_mm512_cvtps_pd(_mm256_maskz_loadu_ps(m, values + i)), vinv);
    __m512d r;
    if constexpr (std::is_same_v<Reference, float>)
      r = _mm512_cvtps_pd(_mm256_maskz_loadu_ps(m, reference + i));
    else
      r = _mm512_maskz_loadu_pd(m, reference + i);
    const __m512d absA = _mm512_and_pd(a, absMask), absR = _mm512_and_pd(r, absMask);
    const __mmask8 finite = _mm512_cmp_pd_mask(absA, largest, _CMP_LE_OQ) &
                            _mm512_cmp_pd_mask(absR, largest, _CMP_LE_OQ);
    const __mmask8 equal = _mm512_cmp_pd_mask(a, r, _CMP_EQ_OQ);
    const __mmask8 same = equal | (_mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q) &
                                   _mm512_cmp_pd_mask(r, r, _CMP_UNORD_Q));
    const __m512d d = _mm512_maskz_and_pd(finite, _mm512_sub_pd(a, r), absMask);
    signal = _mm512_mask_add_pd(signal, finite | equal, signal, _mm512_mul_pd(r, r));
    noise = _mm512_add_pd(noise, _mm512_mul_pd(d, d));
    const __mmask8 nonZeroR = _mm512_cmp_pd_mask(absR, zero, _CMP_GT_OQ);
    maxRelative = _mm512_max_pd(maxRelative, _mm512_maskz_div_pd(nonZeroR & finite, d, absR));
    const __m512i rBits = _mm512_castpd_si512(r), aBits = _mm512_castpd_si512(a);
    const __m512i field =
        _mm512_max_epi64(_mm512_and_si512(_mm512_srli_epi64(rBits, 52), fieldMask), minField);
    const __m512d inverseUlp =
        _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_sub_epi64(ulpBias, field), 52));
    maxUlps = _mm512_max_pd(maxUlps, _mm512_mul_pd(d, inverseUlp));
    const __mmask8 aZero = _mm512_cmp_pd_mask(a, zero, _CMP_EQ_OQ);
    const __mmask8 rZero = _mm512_cmp_pd_mask(r, zero, _CMP_EQ_OQ);
    const __m512i top = _mm512_srli_epi64(_mm512_xor_si512(aBits, rBits), 52);
    const __mmask8 flip = (aZero ^ rZero) | (~aZero & _mm512_test_epi64_mask(top, top));
    flips += std::popcount(static_cast<unsigned>((finite & flip) | (~finite & ~same & m)));
    lost += std::popcount(static_cast<unsigned>(~finite & ~same & m));
  }
  return {_mm512_reduce_add_pd(signal), _mm512_reduce_add_pd(noise),
          _mm512_reduce_max_pd(maxRelative), _mm512_reduce_max_pd(maxUlps), flips, lost};
}
#pragma GCC diagnostic pop
#endif

template <typename Reference>
Sums sums(const float* values, const Reference* reference, std::size_t n, double inv,
          UlpFormat f) {
#if defined(__x86_64__)
  static const bool avx512 = numeric::cpuFeatures().avx512f && __builtin_cpu_supports("avx512vl") &&
                             __builtin_cpu_supports("avx512dq");
  if (avx512 && !g_portable.load(std::memory_order_relaxed))
    return sumsAvx512(values, reference, n, inv, f);
#endif
  return sumsPortable(values, reference, n, inv, f);
}

template <typename Reference>
ShadowError measure(std::string_view tensor, std::span<const float> values,
                    std::span<const Reference> reference, DType format, double scale) {
  if (values.size() != reference.size())
    throw std::invalid_argument("shadow: tensor " + std::string(tensor) + " has " +
                                std::to_string(values.size()) + " values, its reference " +
                                std::to_string(reference.size()));
  if (!(scale > 0.0) || !std::isfinite(scale))
    throw std::invalid_argument("shadow: tensor " + std::string(tensor) +
                                ": the scale must be a positive finite number");
  ShadowError e;
  e.tensor = tensor;
  e.format = format;
  e.count = static_cast<std::int64_t>(values.size());
  const double inv = 1.0 / scale;
  const Sums s = sums(values.data(), reference.data(), values.size(), inv, ulpFormat(format));
  e.flips = s.flips;
  if (s.lost > 0) {
    e.maxRelative = e.medianRelative = e.tensorRelative = e.maxUlps = kInf;
    e.sqnrDb = -kInf;
    return e;
  }
  e.maxRelative = s.maxRelative;
  e.maxUlps = s.maxUlps;
  // The median over every value of tensors up to kMedianValues, else over
  // every k-th value (k = ceil(count / kMedianValues)), of the values whose
  // reference is not zero.
  const std::size_t stride = (values.size() + kMedianValues - 1) / kMedianValues;
  thread_local std::vector<double> relative;
  relative.clear();
  for (std::size_t i = 0; i < values.size(); i += stride) {
    const double a = static_cast<double>(values[i]) * inv;
    const double r = static_cast<double>(reference[i]);
    if (a == r) {
      if (r != 0.0)
        relative.push_back(0.0);
    } else if (r != 0.0 && std::isfinite(a) && std::isfinite(r)) {
      relative.push_back(std::abs(a - r) / std::abs(r));
    }
  }
  if (!relative.empty()) {
    const auto mid = relative.begin() + static_cast<std::ptrdiff_t>(relative.size() / 2);
    std::nth_element(relative.begin(), mid, relative.end());
    e.medianRelative = *mid;
    if (relative.size() % 2 == 0) // the mean of the two middle values
      e.medianRelative = 0.5 * (e.medianRelative + *std::max_element(relative.begin(), mid));
  }
  const double signal = s.signal, noise = s.noise;
  e.tensorRelative = noise == 0.0 ? 0.0 : signal == 0.0 ? kInf : std::sqrt(noise / signal);
  e.sqnrDb = noise == 0.0 ? kInf : signal == 0.0 ? -kInf : 10.0 * std::log10(signal / noise);
  return e;
}

} // namespace

ShadowError measureShadowError(std::string_view tensor, std::span<const float> values,
                               std::span<const double> reference, DType format, double scale) {
  return measure(tensor, values, reference, format, scale);
}

ShadowError measureShadowError(std::string_view tensor, std::span<const float> values,
                               std::span<const float> reference, DType format, double scale) {
  return measure(tensor, values, reference, format, scale);
}

namespace {

std::string shortNumber(double v) {
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char text[32];
  std::snprintf(text, sizeof text, "%.1e", v);
  return text;
}

std::string percent(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g%%", v * 100.0);
  return text;
}

} // namespace

std::string describeShadowFrame(const ShadowFrame& frame) {
  std::string s = "shadow " + std::string(shadowPrecisionKey(frame.reference)) + " at step " +
                  std::to_string(frame.step) + ": ";
  if (frame.tensors.empty())
    return s + "no tensor compared";
  if (frame.firstOver) {
    const ShadowError& e = frame.tensors[*frame.firstOver];
    s += "first tensor over " + percent(frame.threshold) + " error: " + e.tensor + " (" +
         (e.backward ? "backward" : "forward") + ", error " + shortNumber(e.tensorRelative);
    if (e.flips > 0)
      s += ", " + std::to_string(e.flips) + " of " + std::to_string(e.count) +
           " values flipped sign or binade";
    return s + ")";
  }
  const auto worst = std::max_element(frame.tensors.begin(), frame.tensors.end(),
                                      [](const ShadowError& a, const ShadowError& b) {
                                        return a.tensorRelative < b.tensorRelative;
                                      });
  if (worst->tensorRelative == 0.0)
    return s + "every tensor equals the reference's";
  return s + "every tensor within " + percent(frame.threshold) +
         " of the reference (largest error: " + worst->tensor + ", " +
         shortNumber(worst->tensorRelative) + ")";
}

nlohmann::json shadowFrameJson(const ShadowFrame& frame) {
  nlohmann::json tensors = nlohmann::json::array();
  for (const ShadowError& e : frame.tensors)
    tensors.push_back({{"tensor", e.tensor},
                       {"pass", e.backward ? "backward" : "forward"},
                       {"format", std::string(dtypeName(e.format))},
                       {"count", e.count},
                       {"max_rel", number(e.maxRelative)},
                       {"median_rel", number(e.medianRelative)},
                       {"tensor_rel", number(e.tensorRelative)},
                       {"max_ulps", number(e.maxUlps)},
                       {"sqnr_db", number(e.sqnrDb)},
                       {"flips", e.flips}});
  nlohmann::json j = {{"step", frame.step},
                      {"reference", std::string(shadowPrecisionKey(frame.reference))},
                      {"threshold", frame.threshold},
                      {"ms", frame.ms},
                      {"tensors", std::move(tensors)}};
  j["first_over"] = frame.firstOver ? nlohmann::json(*frame.firstOver) : nlohmann::json();
  return j;
}

namespace {

// A number, or "inf" / "-inf" where the statistic is infinite.
double statistic(const io::JsonFields& f, const nlohmann::json& object, const char* key,
                 bool negativeAllowed) {
  const auto it = object.find(key);
  if (it == object.end())
    f.fail(key, "is missing");
  if (it->is_string()) {
    const auto& s = it->get_ref<const std::string&>();
    if (s == "inf")
      return kInf;
    if (s == "-inf" && negativeAllowed)
      return -kInf;
    f.fail(key, "must be a number, \"inf\"" + std::string(negativeAllowed ? " or \"-inf\"" : "") +
                    ", got " + io::shownValue(*it));
  }
  const auto v = f.numberIn(key, negativeAllowed ? -1e300 : 0.0, 1e300, false);
  return *v;
}

} // namespace

ShadowFrame shadowFrameFromJson(const nlohmann::json& json) {
  if (!json.is_object())
    throw std::invalid_argument("shadow: must be an object, got " + io::shownValue(json));
  const io::JsonFields f(json, "", "shadow");
  ShadowFrame frame;
  try {
    const auto need = [&](auto v, const char* key) {
      if (!v)
        f.fail(key, "is missing");
      return *v;
    };
    frame.step = need(f.integer("step", 0, std::int64_t{1} << 62), "step");
    const auto reference = need(f.string("reference"), "reference");
    const auto p = parseShadowPrecision(reference);
    if (!p || *p == ShadowPrecision::Off || reference.empty())
      f.fail("reference", "must be \"fp32\" or \"fp64\", got " + io::shownValue(reference));
    frame.reference = *p;
    frame.threshold = need(f.numberIn("threshold", 0.0, 1e300, false), "threshold");
    frame.ms = need(f.numberIn("ms", 0.0, 1e12, false), "ms");
    const nlohmann::json* tensors = f.array("tensors");
    if (!tensors)
      f.fail("tensors", "is missing");
    if (tensors->size() > kMaxShadowTensors)
      f.fail("tensors", "holds " + std::to_string(tensors->size()) + " tensors, more than " +
                            std::to_string(kMaxShadowTensors));
    frame.tensors.reserve(tensors->size());
    for (std::size_t i = 0; i < tensors->size(); ++i) {
      const nlohmann::json& t = (*tensors)[i];
      if (!t.is_object())
        f.fail("tensors", "entry " + std::to_string(i) + " must be an object, got " +
                              io::shownValue(t));
      const io::JsonFields g(t, "", "shadow: tensors[" + std::to_string(i) + "]");
      ShadowError e;
      e.tensor = need(g.string("tensor"), "tensor");
      const auto pass = g.string("pass");
      if (!pass || (*pass != "forward" && *pass != "backward"))
        g.fail("pass", "must be \"forward\" or \"backward\"");
      e.backward = *pass == "backward";
      const auto format = g.string("format");
      std::optional<DType> dtype;
      for (const DType d : {DType::F32, DType::BF16, DType::F16})
        if (format && *format == dtypeName(d))
          dtype = d;
      if (!dtype)
        g.fail("format", "must be a dtype name (f32, bf16, f16)");
      e.format = *dtype;
      e.count = need(g.integer("count", 0, std::int64_t{1} << 62), "count");
      e.maxRelative = statistic(g, t, "max_rel", false);
      e.medianRelative = statistic(g, t, "median_rel", false);
      e.tensorRelative = statistic(g, t, "tensor_rel", false);
      e.maxUlps = statistic(g, t, "max_ulps", false);
      e.sqnrDb = statistic(g, t, "sqnr_db", true);
      e.flips = need(g.integer("flips", 0, e.count), "flips");
      frame.tensors.push_back(std::move(e));
    }
    const auto first = json.find("first_over");
    if (first != json.end() && !first->is_null()) {
      const auto i = f.integer("first_over", 0, static_cast<std::int64_t>(frame.tensors.size()) - 1);
      frame.firstOver = static_cast<std::size_t>(*i);
    }
  } catch (const io::JsonFieldError& e) {
    throw std::invalid_argument(e.what());
  }
  return frame;
}

ShadowPass::ShadowPass(ShadowPrecision precision,
                       std::unique_ptr<model::ShadowReference> reference, double threshold)
    : m_precision(precision), m_reference(std::move(reference)), m_threshold(threshold) {
  if (precision == ShadowPrecision::Off || !m_reference)
    throw std::invalid_argument("shadow: a shadow pass needs a reference in FP32 or FP64");
}

ShadowPass::~ShadowPass() = default;

void ShadowPass::forwardDone(std::int64_t step, model::Network& run) {
  const auto start = std::chrono::steady_clock::now();
  m_frame = std::make_shared<ShadowFrame>();
  m_frame->step = step;
  m_frame->reference = m_precision;
  m_frame->threshold = m_threshold;
  const auto params = run.parameters();
  m_reference->run({.inputs = run.inputs(),
                    .tokens = run.tokens(),
                    .labels = run.labels(),
                    .parameters = params});
  run.shadowTensors(m_tensors);
  compare(false, 1.0);
  m_frame->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
}

std::shared_ptr<const ShadowFrame> ShadowPass::backwardDone(model::Network& run,
                                                            double backwardScale, bool backwardRan) {
  if (!m_frame)
    throw std::logic_error("shadow: backwardDone() without forwardDone()");
  const auto start = std::chrono::steady_clock::now();
  if (backwardRan) {
    run.shadowTensors(m_tensors);
    compare(true, backwardScale);
  }
  m_frame->ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count();
  for (std::size_t i = 0; i < m_frame->tensors.size(); ++i)
    if (!(m_frame->tensors[i].tensorRelative <= m_threshold)) {
      m_frame->firstOver = i;
      break;
    }
  return std::exchange(m_frame, nullptr);
}

void ShadowPass::compare(bool backward, double scale) {
  if (!(scale > 0.0) || !std::isfinite(scale)) // checked here: nothing may throw in the team
    throw std::invalid_argument("shadow: the backward scale must be a positive finite number");
  std::vector<const model::ShadowTensor*> tensors;
  for (const model::ShadowTensor& t : m_tensors) {
    if (t.backward != backward)
      continue;
    const std::size_t held = m_reference->tensorF32(t.name).empty()
                                 ? m_reference->tensor(t.name).size()
                                 : m_reference->tensorF32(t.name).size();
    if (held != t.values.size())
      throw std::logic_error("shadow: the " + m_reference->precision() + " reference holds " +
                             std::to_string(held) + " values of " + t.name + ", the run " +
                             std::to_string(t.values.size()));
    tensors.push_back(&t);
  }
  // One tensor a task over the calling thread's OpenMP team (the cores are
  // the step's: nothing else runs during the comparison).
  const std::size_t first = m_frame->tensors.size();
  m_frame->tensors.resize(first + tensors.size());
  const auto n = static_cast<std::ptrdiff_t>(tensors.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const model::ShadowTensor& t = *tensors[static_cast<std::size_t>(i)];
    const auto f32 = m_reference->tensorF32(t.name);
    ShadowError e = f32.empty() ? measureShadowError(t.name, t.values, m_reference->tensor(t.name),
                                                     t.format, t.scaled ? scale : 1.0)
                                : measureShadowError(t.name, t.values, f32, t.format,
                                                     t.scaled ? scale : 1.0);
    e.backward = backward;
    m_frame->tensors[first + static_cast<std::size_t>(i)] = std::move(e);
  }
}

} // namespace mantissa::train
