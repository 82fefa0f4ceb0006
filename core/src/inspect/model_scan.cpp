// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/inspect/model_scan.h>

#include <mantissa/telemetry/tensor_scan.h>

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace mantissa::inspect {
namespace {

constexpr std::uint64_t kSlice = 1u << 16; // values per slice: a multiple of every block (128)

// A target's element format for rounding: `mbits` fraction bits, smallest
// normal exponent `emin`, largest finite `max`. `bitsPath` rounds with the
// FP32 bit pattern alone, valid when emin is FP32's (bf16).
struct Fmt {
  int mbits;
  int emin;
  float max;
  float minNormal;
  float up, down; // 2^(mbits - emin) and its inverse (the subnormal grid)
  bool bitsPath;
};

constexpr Fmt fmt(int mbits, int emin, float max, bool bitsPath = false) {
  const int k = mbits - emin;
  float up = 1.0f;
  for (int i = 0; i < (bitsPath ? 0 : k); ++i)
    up *= 2.0f;
  float minNormal = 1.0f;
  for (int i = 0; i < (emin < 0 ? -emin : emin); ++i)
    minNormal = emin < 0 ? minNormal / 2.0f : minNormal * 2.0f;
  return {mbits, emin, max, minNormal, up, 1.0f / up, bitsPath};
}

constexpr Fmt kFp16 = fmt(10, -14, 65504.0f);
constexpr Fmt kBf16 = fmt(7, -126, 3.38953139e38f, true);
constexpr Fmt kE4M3 = fmt(3, -6, 448.0f);
constexpr Fmt kE5M2 = fmt(2, -14, 57344.0f);
constexpr Fmt kE2M3 = fmt(3, 0, 7.5f);
constexpr Fmt kE2M1 = fmt(1, 0, 6.0f);

// The kernels are built twice, for AVX2 and for any x86-64, and chosen when
// the program loads.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define MANTISSA_SCAN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MANTISSA_SCAN_CLONES
#endif
// Everything a kernel calls is inlined into it, so it is built for its target too.
#define MANTISSA_SCAN_INLINE [[gnu::always_inline]] inline

// |x| (finite, >= 0) rounded to nearest, ties to even, with an unbounded
// exponent: normal binades keep mbits fraction bits (a carry may step into
// the next binade); below minNormal the grid is 2^(emin - mbits), rounded by
// the add-and-subtract of 2^23 (exact for s < 2^23, ties to even in the
// default rounding mode). Both are computed and one is selected, so loops
// over it vectorise.
MANTISSA_SCAN_INLINE float roundMag(float a, const Fmt& f) {
  const int sh = 23 - f.mbits;
  std::uint32_t b = std::bit_cast<std::uint32_t>(a);
  b += (1u << (sh - 1)) - 1u + ((b >> sh) & 1u);
  b &= ~((1u << sh) - 1u);
  const float normal = std::bit_cast<float>(b);
  if (f.bitsPath)
    return normal;
  const float s = a * f.up;
  const float sub = ((s + 8388608.0f) - 8388608.0f) * f.down;
  return a >= f.minNormal ? normal : sub;
}

// floor(log2 a) for a finite a > 0 (FP32 subnormals included).
MANTISSA_SCAN_INLINE int floorLog2(float a) {
  const std::uint32_t b = std::bit_cast<std::uint32_t>(a);
  const int e = int(b >> 23);
  return e ? e - 127 : (31 - std::countl_zero(b)) - 149;
}

MANTISSA_SCAN_INLINE float pow2f(int e) { // e in [-126, 127]; 2^-127 as a subnormal
  return e >= -126 ? std::bit_cast<float>(std::uint32_t(e + 127) << 23)
                   : std::ldexp(1.0f, e);
}

// The loops below are `omp simd` reductions: the sums of squares add in
// another order than a plain loop (a difference of rounding only, far below
// what SQNR shows); the counts are exact.

MANTISSA_SCAN_CLONES
void elementwise(std::span<const float> x, TargetStats& t, const Fmt& f, bool daz) {
  double sig = 0.0, noise = 0.0;
  const float* p = x.data();
  const std::size_t n = x.size();
  constexpr float kMax = std::numeric_limits<float>::max();
  constexpr float kMinNormal = 1.17549435e-38f;
#pragma omp simd reduction(+ : sig, noise)
  for (std::size_t i = 0; i < n; ++i) {
    const float a = std::fabs(p[i]);
    const bool finite = a <= kMax;
    float q = daz && a < kMinNormal ? 0.0f : roundMag(a, f);
    q = q > f.max ? f.max : q;
    const double d = finite ? double(a) - double(q) : 0.0;
    sig += finite ? double(a) * double(a) : 0.0;
    noise += d * d;
  }
  t.signal += sig;
  t.noise += noise;
}

// Largest |x| of a block; false when it holds Inf or NaN.
MANTISSA_SCAN_INLINE bool blockAmax(std::span<const float> x, float& amax) {
  float m = 0.0f;
  int bad = 0;
  const float* p = x.data();
  const std::size_t n = x.size();
#pragma omp simd reduction(max : m) reduction(| : bad)
  for (std::size_t i = 0; i < n; ++i) {
    const float a = std::fabs(p[i]);
    bad |= !(a <= std::numeric_limits<float>::max());
    m = a > m ? a : m;
  }
  amax = m;
  return bad == 0;
}

// A block's counts and sums. The element loops are `omp simd` reductions in
// FP32 over at most 128 values; the values are first multiplied by a power
// of two that brings the block's maximum to [1, 2) (exact), so squares
// neither underflow nor overflow, and the sums are scaled back in double.
// Their relative error is below 128 x 2^-24 (far below what SQNR shows);
// the counts are exact.
struct BlockSums {
  unsigned sat = 0, lost = 0, sub = 0, clipped = 0;
  float sig = 0.0f, noise = 0.0f;
};

MANTISSA_SCAN_INLINE void addBlock(TargetStats& t, const BlockSums& o, double unscale) {
  t.overflow += o.sat;
  t.lostToZero += o.lost;
  t.subnormal += o.sub;
  t.signal += double(o.sig) * unscale;
  t.noise += double(o.noise) * unscale;
  t.clippedBlocks += o.clipped != 0;
}

// Elements of a block: |v| x pre (or |v| / pre when Divide) rounded to f
// (saturating), decoded as q x post; the squares of |v| x norm and of the
// error x norm.
template <bool Divide>
MANTISSA_SCAN_INLINE BlockSums blockElements(std::span<const float> x, float pre, float post, float norm,
                               float amax, const Fmt& f) {
  unsigned sat = 0, lost = 0, sub = 0, clipped = 0;
  float sig = 0.0f, noise = 0.0f;
  const float* p = x.data();
  const std::size_t n = x.size();
  const float postNorm = post * norm;
#pragma omp simd reduction(+ : sat, lost, sub, clipped, sig, noise)
  for (std::size_t i = 0; i < n; ++i) {
    const float a = std::fabs(p[i]);
    float q = roundMag(Divide ? a / pre : a * pre, f);
    const bool s = q > f.max;
    q = s ? f.max : q;
    sat += s ? 1u : 0u;
    clipped += (s && a == amax) ? 1u : 0u;
    lost += (a != 0.0f && q == 0.0f) ? 1u : 0u;
    sub += (q > 0.0f && q < f.minNormal) ? 1u : 0u;
    const float an = a * norm;
    const float d = an - q * postNorm;
    sig += an * an;
    noise += d * d;
  }
  return {sat, lost, sub, clipped, sig, noise};
}

// 2^k with k = -floor(log2 amax) kept within FP32's normal powers (0 for a
// zero block), and 2^-2k, which scales the sums of squares back.
MANTISSA_SCAN_INLINE float normOf(float amax, double& unscale) {
  const int k = std::clamp(amax > 0.0f ? -floorLog2(amax) : 0, -126, 127);
  unscale = std::ldexp(1.0, -2 * k);
  return pow2f(k);
}

// MX: E8M0 scale X = 2^(floor(log2 amax) - emax), clamped at -127; element
// |v| / X rounded to f, saturating; value q X.
MANTISSA_SCAN_INLINE void mxBlock(std::span<const float> x, TargetStats& t, const Fmt& f, int emax) {
  ++t.blocks;
  float amax;
  if (!blockAmax(x, amax)) {
    ++t.poisonedBlocks;
    return;
  }
  int e = amax > 0.0f ? floorLog2(amax) - emax : -127;
  e = std::max(e, -127);
  double unscale;
  const float norm = normOf(amax, unscale);
  addBlock(t, blockElements<false>(x, pow2f(-e), pow2f(e), norm, amax, f), unscale);
}

// nvfp4: E4M3 block scale of amax / 6 x encode (saturating), E2M1 elements
// of v x encode / blockScale, value q x blockScale x decode.
MANTISSA_SCAN_INLINE void nvfp4Block(std::span<const float> x, TargetStats& t, float encode, float decode) {
  ++t.blocks;
  float amax;
  if (!blockAmax(x, amax)) {
    ++t.poisonedBlocks;
    return;
  }
  float bd = roundMag(amax / 6.0f * encode, kE4M3);
  bd = bd > 448.0f ? 448.0f : bd;
  const float mult = bd > 0.0f ? encode / bd : 0.0f;
  double unscale;
  const float norm = normOf(amax, unscale);
  addBlock(t, blockElements<false>(x, mult, bd * decode, norm, amax, kE2M1), unscale);
}

// fp8-block: FP32 scale amax / 448, E4M3 elements of v / scale (a division,
// as numeric::quantize: v x (1 / scale) can round differently).
MANTISSA_SCAN_INLINE void fp8Block(std::span<const float> x, TargetStats& t) {
  ++t.blocks;
  float amax;
  if (!blockAmax(x, amax)) {
    ++t.poisonedBlocks;
    return;
  }
  const float s0 = amax > 0.0f ? amax / 448.0f : 1.0f;
  const float bd = s0 > 0.0f ? s0 : std::numeric_limits<float>::denorm_min();
  double unscale;
  const float norm = normOf(amax, unscale);
  addBlock(t, blockElements<true>(x, bd, bd, norm, amax, kE4M3), unscale);
}

struct TensorContext {
  std::uint64_t rowLength = 1;
  float encode = 1.0f, decode = 1.0f; // nvfp4's tensor scales
};

float nvfp4Encode(float absmax) {
  const float s = 448.0f * 6.0f / absmax;
  return absmax > 0.0f && std::isfinite(s) && s > 0.0f ? s : 1.0f;
}

// A segment: values of one row starting at a multiple of 128 from the row's start.
MANTISSA_SCAN_CLONES
void scanSegment(std::span<const float> x, const TensorContext& c, TensorStats& s) {
  using enum Target;
  auto& T = s.targets;
  const std::size_t n = x.size();
  for (std::size_t i = 0; i < n; i += 32) {
    const auto blk = x.subspan(i, std::min<std::size_t>(32, n - i));
    mxBlock(blk, T[std::size_t(Mxfp8)], kE4M3, 8);
    mxBlock(blk, T[std::size_t(Mxfp6)], kE2M3, 2);
    mxBlock(blk, T[std::size_t(Mxfp4)], kE2M1, 2);
  }
  for (std::size_t i = 0; i < n; i += 16)
    nvfp4Block(x.subspan(i, std::min<std::size_t>(16, n - i)), T[std::size_t(Nvfp4)], c.encode, c.decode);
  for (std::size_t i = 0; i < n; i += 128)
    fp8Block(x.subspan(i, std::min<std::size_t>(128, n - i)), T[std::size_t(Fp8Block)]);
}

// Values of whole segments (slices never cut a block).
void scanSlice(std::span<const float> x, std::uint64_t firstColumn, const TensorContext& c,
               TensorStats& s) {
  telemetry::TensorScan ts;
  telemetry::scanInto(x, ts);
  s.hist += ts.hist;
  // The elementwise casts' counts from the thresholds (cast_fractions.h).
  for (int k = 0; k < telemetry::kCastTargetCount; ++k) {
    TargetStats& t = s.targets[std::size_t(k)]; // Fp16, Bf16, Fp8E4M3, Fp8E5M2 = kCastTargets
    const std::uint64_t inf = ts.hist.posInf + ts.hist.negInf;
    t.overflow += ts.hist.total - ts.hist.nan - ts.below[3 * k + 2] - inf;
    t.lostToZero += ts.below[3 * k] - ts.hist.zeros;
    t.subnormal += ts.below[3 * k + 1] - ts.below[3 * k];
  }
  elementwise(x, s.targets[0], kFp16, false);
  elementwise(x, s.targets[1], kBf16, true);
  elementwise(x, s.targets[2], kE4M3, false);
  elementwise(x, s.targets[3], kE5M2, false);
  float mn = std::numeric_limits<float>::infinity(), mx = -mn, am = 0.0f;
  double sq = 0.0;
  for (float v : x) {
    if (!(std::fabs(v) <= std::numeric_limits<float>::max()))
      continue;
    mn = std::min(mn, v);
    mx = std::max(mx, v);
    am = std::max(am, std::fabs(v));
    sq += double(v) * double(v);
  }
  if (mn <= mx) {
    if (s.finite == 0 && s.count == 0) {
      s.min = mn;
      s.max = mx;
    } else {
      s.min = std::min(s.min, double(mn));
      s.max = std::max(s.max, double(mx));
    }
  }
  s.absmax = std::max(s.absmax, double(am));
  s.sumSquares += sq;
  s.count += x.size();
  s.finite += x.size() - ts.hist.nan - ts.hist.posInf - ts.hist.negInf;
  s.zeros += ts.hist.zeros;
  s.nan += ts.hist.nan;
  s.posInf += ts.hist.posInf;
  s.negInf += ts.hist.negInf;
  // Cut into row segments.
  std::size_t i = 0;
  std::uint64_t col = firstColumn;
  while (i < x.size()) {
    const std::size_t n = std::min<std::uint64_t>(x.size() - i, c.rowLength - col);
    scanSegment(x.subspan(i, n), c, s);
    i += n;
    col = 0;
  }
}

void merge(TensorStats& into, const TensorStats& from) {
  if (from.count == 0)
    return;
  const bool hadFinite = into.finite > 0, hasFinite = from.finite > 0;
  if (hasFinite) {
    into.min = hadFinite ? std::min(into.min, from.min) : from.min;
    into.max = hadFinite ? std::max(into.max, from.max) : from.max;
  }
  into.absmax = std::max(into.absmax, from.absmax);
  into.count += from.count;
  into.finite += from.finite;
  into.zeros += from.zeros;
  into.nan += from.nan;
  into.posInf += from.posInf;
  into.negInf += from.negInf;
  into.sumSquares += from.sumSquares;
  into.hist += from.hist;
  for (std::size_t k = 0; k < into.targets.size(); ++k)
    into.targets[k] += from.targets[k];
}

// The slices of a tensor: whole rows when a row fits in kSlice, else pieces of rows.
struct Slicing {
  std::uint64_t elements, rowLength, rowsPerSlice, piecesPerRow, count;
  Slicing(std::uint64_t e, std::uint64_t r) : elements(e), rowLength(std::max<std::uint64_t>(r, 1)) {
    if (rowLength <= kSlice) {
      rowsPerSlice = kSlice / rowLength;
      piecesPerRow = 0;
      const std::uint64_t per = rowsPerSlice * rowLength;
      count = (elements + per - 1) / per;
    } else {
      rowsPerSlice = 0;
      piecesPerRow = (rowLength + kSlice - 1) / kSlice;
      count = elements / rowLength * piecesPerRow;
    }
  }
  // first value, count, column of the first value
  void at(std::uint64_t k, std::uint64_t& first, std::uint64_t& n, std::uint64_t& col) const {
    if (piecesPerRow == 0) {
      first = k * rowsPerSlice * rowLength;
      n = std::min(rowsPerSlice * rowLength, elements - first);
      col = 0;
    } else {
      const std::uint64_t row = k / piecesPerRow, piece = k % piecesPerRow;
      col = piece * kSlice;
      first = row * rowLength + col;
      n = std::min(kSlice, rowLength - col);
    }
  }
};

template <typename Fn>
void forSlices(const ModelFile& model, const ModelTensor& t, const std::atomic<bool>* cancel,
               Fn&& fn) {
  const Slicing sl(t.elements, t.rowLength);
  const auto raw = model.raw(t);
  const bool direct = t.dtype == "F32" &&
                      reinterpret_cast<std::uintptr_t>(raw.data()) % alignof(float) == 0;
  const auto* f32 = reinterpret_cast<const float*>(raw.data());
#pragma omp parallel
  {
    std::vector<float> buf(direct ? 0 : kSlice);
    const int thread = omp_get_thread_num();
#pragma omp for schedule(dynamic, 2)
    for (std::int64_t k = 0; k < std::int64_t(sl.count); ++k) {
      if (cancel && cancel->load(std::memory_order_relaxed))
        continue;
      std::uint64_t first, n, col;
      sl.at(std::uint64_t(k), first, n, col);
      std::span<const float> x;
      if (direct) {
        x = {f32 + first, n};
      } else {
        model.decode(t, first, std::span<float>(buf.data(), n));
        x = {buf.data(), n};
      }
      fn(thread, x, col);
    }
  }
}

} // namespace

std::string_view targetName(Target t) {
  static constexpr std::array<std::string_view, kTargetCount> k{
      "fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "mxfp8", "mxfp6", "mxfp4", "nvfp4", "fp8-block"};
  return k[std::size_t(t)];
}

std::string_view targetDisplayName(Target t) {
  static constexpr std::array<std::string_view, kTargetCount> k{
      "FP16", "BF16", "FP8 E4M3", "FP8 E5M2", "MXFP8", "MXFP6", "MXFP4", "NVFP4", "FP8 block-128"};
  return k[std::size_t(t)];
}

bool targetIsBlock(Target t) { return targetBlockSize(t) > 0; }

int targetBlockSize(Target t) {
  switch (t) {
  case Target::Mxfp8: case Target::Mxfp6: case Target::Mxfp4: return 32;
  case Target::Nvfp4: return 16;
  case Target::Fp8Block: return 128;
  default: return 0;
  }
}

double TargetStats::sqnrDb() const {
  if (signal == 0.0)
    return std::numeric_limits<double>::quiet_NaN();
  if (noise == 0.0)
    return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal / noise);
}

TargetStats& TargetStats::operator+=(const TargetStats& o) {
  overflow += o.overflow;
  lostToZero += o.lostToZero;
  subnormal += o.subnormal;
  signal += o.signal;
  noise += o.noise;
  blocks += o.blocks;
  clippedBlocks += o.clippedBlocks;
  poisonedBlocks += o.poisonedBlocks;
  return *this;
}

double TensorStats::rms() const {
  return finite ? std::sqrt(sumSquares / double(finite)) : 0.0;
}

double TensorStats::outlierRatio() const {
  const double r = rms();
  return r > 0.0 ? absmax / r : 0.0;
}

TensorStats scanValues(std::span<const float> values, std::uint64_t rowLength) {
  TensorStats s;
  TensorContext c;
  c.rowLength = std::max<std::uint64_t>(rowLength, 1);
  float am = 0.0f;
  for (float v : values)
    if (std::fabs(v) <= std::numeric_limits<float>::max())
      am = std::max(am, std::fabs(v));
  c.encode = nvfp4Encode(am);
  c.decode = 1.0f / c.encode;
  const Slicing sl(values.size(), c.rowLength);
  for (std::uint64_t k = 0; k < sl.count; ++k) {
    std::uint64_t first, n, col;
    sl.at(k, first, n, col);
    TensorStats part;
    scanSlice(values.subspan(first, n), col, c, part);
    merge(s, part);
  }
  s.scanned = true;
  return s;
}

TensorStats scanTensor(const ModelFile& model, std::size_t index, const std::atomic<bool>* cancel) {
  const ModelTensor& t = model.tensors().at(index);
  TensorStats s;
  s.index = index;
  if (!t.decoded || t.elements == 0) {
    s.scanned = t.decoded;
    return s;
  }
  const int threads = omp_get_max_threads();
  // nvfp4's tensor scale: the finite absmax first.
  std::vector<float> amax(std::size_t(threads), 0.0f);
  forSlices(model, t, cancel, [&](int th, std::span<const float> x, std::uint64_t) {
    float a = amax[std::size_t(th)];
    for (float v : x) {
      const float m = std::fabs(v);
      a = m <= std::numeric_limits<float>::max() && m > a ? m : a;
    }
    amax[std::size_t(th)] = a;
  });
  TensorContext c;
  c.rowLength = t.rowLength;
  c.encode = nvfp4Encode(*std::max_element(amax.begin(), amax.end()));
  c.decode = 1.0f / c.encode;
  std::vector<TensorStats> parts(static_cast<std::size_t>(threads));
  forSlices(model, t, cancel, [&](int th, std::span<const float> x, std::uint64_t col) {
    TensorStats part;
    scanSlice(x, col, c, part);
    merge(parts[std::size_t(th)], part);
  });
  for (const TensorStats& p : parts)
    merge(s, p);
  s.scanned = !(cancel && cancel->load());
  return s;
}

std::vector<TensorStats> scanModel(const ModelFile& model,
                                   const std::function<void(const ScanProgress&)>& progress,
                                   const std::atomic<bool>* cancel) {
  const auto& tensors = model.tensors();
  ScanProgress p;
  p.tensorsTotal = tensors.size();
  for (const ModelTensor& t : tensors)
    p.bytesTotal += t.decoded ? t.bytes : 0;
  std::vector<TensorStats> out;
  out.reserve(tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (cancel && cancel->load()) {
      TensorStats s;
      s.index = i;
      out.push_back(s);
      continue;
    }
    out.push_back(scanTensor(model, i, cancel));
    p.tensorsDone = i + 1;
    p.bytesDone += tensors[i].decoded ? tensors[i].bytes : 0;
    if (progress)
      progress(p);
  }
  return out;
}

} // namespace mantissa::inspect
