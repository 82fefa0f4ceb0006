// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/inspect/model_scan.h>

#include <mantissa/telemetry/tensor_scan.h>

#include <omp.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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

// fp8-block's FP32 scale amax / 448 (1 for a zero block).
MANTISSA_SCAN_INLINE float fp8Scale(float amax) {
  const float s0 = amax > 0.0f ? amax / 448.0f : 1.0f;
  return s0 > 0.0f ? s0 : std::numeric_limits<float>::denorm_min();
}

// fp8-block: FP32 scale amax / 448, E4M3 elements of v / scale (a division,
// as numeric::quantize: v x (1 / scale) can round differently). With `cell`
// (a 128 x 128 weight block's amax, NaN when the block holds Inf or NaN) the
// values are one tile of that block: its elements are counted here, the
// block itself once per tensor (blockTotals).
MANTISSA_SCAN_INLINE void fp8Block(std::span<const float> x, TargetStats& t, const float* cell) {
  float amax;
  if (cell) {
    amax = *cell;
    if (std::isnan(amax))
      return;
  } else {
    ++t.blocks;
    if (!blockAmax(x, amax)) {
      ++t.poisonedBlocks;
      return;
    }
  }
  const float bd = fp8Scale(amax);
  double unscale;
  const float norm = normOf(amax, unscale);
  BlockSums b = blockElements<true>(x, bd, bd, norm, amax, kE4M3);
  if (cell)
    b.clipped = 0;
  addBlock(t, b, unscale);
}


struct TensorContext {
  std::uint64_t rowLength = 1;
  float encode = 1.0f, decode = 1.0f; // nvfp4's tensor scales
  // fp8-block's 128 x 128 weight blocks (null: 1 x 128 tiles): each block's
  // finite amax (NaN when it holds Inf or NaN), gridCols blocks per row.
  const float* fp8Grid = nullptr;
  std::uint64_t gridCols = 0;
};

float nvfp4Encode(float absmax) {
  const float s = 448.0f * 6.0f / absmax;
  return absmax > 0.0f && std::isfinite(s) && s > 0.0f ? s : 1.0f;
}

// A segment: values of one row starting at a multiple of 128 from the row's
// start; gridRow: the weight block of its first value (or null).
MANTISSA_SCAN_CLONES
void scanSegment(std::span<const float> x, const TensorContext& c, TensorStats& s, const float* gridRow) {
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
    fp8Block(x.subspan(i, std::min<std::size_t>(128, n - i)), T[std::size_t(Fp8Block)],
             gridRow ? gridRow + i / 128 : nullptr);
}

// --- the AVX-512 kernel ------------------------------------------------------
//
// One pass over 128 values (8 registers: one fp8 block, four MX blocks and
// eight nvfp4 blocks) computes every target's element counts, the sums of
// squared errors and the value statistics with the rules above, bit for
// bit: the same rounding by bit arithmetic, the same block scales (computed
// by the scalar code from the block maxima), the same comparisons. Only the
// sums add in another order (in double). A chunk holding Inf or NaN goes to
// the portable code.

std::atomic<bool> g_portable{false};

struct ValueSums {
  float mn = std::numeric_limits<float>::infinity(), mx = -std::numeric_limits<float>::infinity(), am = 0.0f;
  double sq = 0.0;
};

#if defined(__x86_64__)
// GCC 12's AVX-512 intrinsics start some results from _mm512_undefined_*(),
// which -Wuninitialized reports once inlined (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define MANTISSA_AVX512 [[gnu::target("avx512f,avx512bw,avx512dq,avx512vl")]]
#define MANTISSA_AVX512_INLINE [[gnu::target("avx512f,avx512bw,avx512dq,avx512vl"), gnu::always_inline]] inline

bool cpuHasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  return has;
}

// roundMag() on 16 lanes, as one add and one subtract: x + C with C =
// 2^(max(e, emin) + 23 - mbits) (e the binade of x) leaves the grid of x's
// binade (or of the subnormals) as the last place of C's binade, so the
// addition rounds x to it, ties to even; subtracting C is exact. The same
// value as roundMag(), for x below 2^(emax + 2): callers first clamp x there
// (anything that large saturates either way).
MANTISSA_AVX512_INLINE __m512 roundMag16(__m512 x, const Fmt& f) {
  const __m512i b = _mm512_castps_si512(x);
  if (f.bitsPath) {
    const int sh = 23 - f.mbits;
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(b, unsigned(sh)), _mm512_set1_epi32(1));
    __m512i r = _mm512_add_epi32(b, _mm512_add_epi32(odd, _mm512_set1_epi32(int((1u << (sh - 1)) - 1u))));
    r = _mm512_and_si512(r, _mm512_set1_epi32(int(~((1u << sh) - 1u))));
    return _mm512_castsi512_ps(r);
  }
  __m512i e = _mm512_and_si512(b, _mm512_set1_epi32(0x7f800000));
  e = _mm512_max_epi32(e, _mm512_set1_epi32((f.emin + 127) << 23));
  const __m512 c = _mm512_castsi512_ps(_mm512_add_epi32(e, _mm512_set1_epi32((23 - f.mbits) << 23)));
  return _mm512_sub_ps(_mm512_add_ps(x, c), c);
}

// The clamp before roundMag16: 2^(emax + 2), emax the exponent of f.max.
MANTISSA_AVX512_INLINE __m512 clampForRound(__m512 x, const Fmt& f) {
  return _mm512_min_ps(x, _mm512_set1_ps(std::bit_cast<float>(
                              (std::bit_cast<std::uint32_t>(f.max) & 0x7f800000u) + (2u << 23))));
}

MANTISSA_AVX512_INLINE __m512d lo8(__m512 v) { return _mm512_cvtps_pd(_mm512_castps512_ps256(v)); }
MANTISSA_AVX512_INLINE __m512d hi8(__m512 v) {
  return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}
MANTISSA_AVX512_INLINE __m512i inc(__m512i c, __mmask16 m) {
  return _mm512_mask_sub_epi32(c, m, c, _mm512_set1_epi32(-1));
}

// A block scheme's lane accumulators.
// The squared errors of a chunk add in FP32 (8 per lane: relative error
// below 2^-20, far below what SQNR shows), of the values times 2^k that
// brings the chunk's maximum to [1, 2) (so squares neither underflow nor
// overflow), and are scaled back into double once per chunk.
struct BlockAcc {
  __m512i sat, lost, sub;
  __m512 chunkNoise; // this chunk's, scaled by 2^2k
  double unscale;    // 2^-2k
  __m512d noise;
  std::uint64_t clipped, blocks;
};

// One register of a block: |v| x pre (or / pre) rounded to f, saturating,
// decoded as q x post; an = |v| x 2^k, norm = 2^k.
template <bool Divide>
MANTISSA_AVX512_INLINE void blockVec(__m512 a, __m512 an, __mmask16 nonZero, float pre, float post, float norm,
                                     const Fmt& f, BlockAcc& acc) {
  const __m512 vpre = _mm512_set1_ps(pre);
  const __m512 x = Divide ? _mm512_div_ps(a, vpre) : _mm512_mul_ps(a, vpre);
  __m512 q = roundMag16(clampForRound(x, f), f);
  const __m512 fmax = _mm512_set1_ps(f.max), zero = _mm512_setzero_ps();
  acc.sat = inc(acc.sat, _mm512_cmp_ps_mask(q, fmax, _CMP_GT_OQ));
  q = _mm512_min_ps(q, fmax);
  acc.lost = inc(acc.lost, _mm512_mask_cmp_ps_mask(nonZero, q, zero, _CMP_EQ_OQ));
  acc.sub = inc(acc.sub, _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(q, zero, _CMP_GT_OQ), q,
                                                  _mm512_set1_ps(f.minNormal), _CMP_LT_OQ));
  const __m512 d = _mm512_fnmadd_ps(q, _mm512_set1_ps(post * norm), an);
  acc.chunkNoise = _mm512_fmadd_ps(d, d, acc.chunkNoise);
}

// One MX block of 32 (two registers): E8M0 scale from its amax.
MANTISSA_AVX512_INLINE void mxVec(const __m512* a, const __m512* an, const __mmask16* nz, float amax, float norm,
                                  const Fmt& f, int emax, BlockAcc& b) {
  int e = amax > 0.0f ? floorLog2(amax) - emax : -127;
  e = std::max(e, -127);
  const float pre = pow2f(-e), post = pow2f(e);
  ++b.blocks;
  b.clipped += roundMag(amax * pre, f) > f.max;
  blockVec<false>(a[0], an[0], nz[0], pre, post, norm, f, b);
  blockVec<false>(a[1], an[1], nz[1], pre, post, norm, f, b);
}

struct ChunkAcc {
  __m512d castNoise[4];
  BlockAcc block[5]; // mxfp8, mxfp6, mxfp4, nvfp4, fp8-block
  __m512d sig;
  __m512 mn, mx, am;
};

constexpr float kFltMax = std::numeric_limits<float>::max();

// An elementwise cast's squared errors on one register.
// noSaturation: every |x| of the chunk is at most f.max, so none rounds past
// it and a - q is exact in FP32 (q is 0 or within a factor 2 of a:
// Sterbenz): one subtraction in FP32, then squared in double.
MANTISSA_AVX512_INLINE void castVec(__m512 a, __m512d al, __m512d ah, const Fmt& f, bool daz, bool noSaturation,
                                    __m512d& noise) {
  if (noSaturation) {
    __m512 q = roundMag16(a, f);
    if (daz)
      q = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(a, _mm512_set1_ps(1.17549435e-38f), _CMP_GE_OQ), q);
    const __m512 d = _mm512_sub_ps(a, q);
    const __m512d dl = lo8(d), dh = hi8(d);
    noise = _mm512_fmadd_pd(dl, dl, noise);
    noise = _mm512_fmadd_pd(dh, dh, noise);
    return;
  }
  __m512 q = roundMag16(f.bitsPath ? a : clampForRound(a, f), f);
  if (daz)
    q = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(a, _mm512_set1_ps(1.17549435e-38f), _CMP_GE_OQ), q);
  q = _mm512_min_ps(q, _mm512_set1_ps(f.max));
  const __m512d dl = _mm512_sub_pd(al, lo8(q)), dh = _mm512_sub_pd(ah, hi8(q));
  noise = _mm512_fmadd_pd(dl, dl, noise);
  noise = _mm512_fmadd_pd(dh, dh, noise);
}

// 128 values; false (nothing counted) when one is Inf or NaN.
// cell: the weight block's amax (or negative: the chunk is its own tile).
MANTISSA_AVX512_INLINE bool chunk128(const float* p, const TensorContext& c, float cell, ChunkAcc& acc) {
  __m512 v[8], a[8];
  const __m512 absMask = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
  __mmask16 finite = 0xffff;
  for (int j = 0; j < 8; ++j) {
    v[j] = _mm512_loadu_ps(p + 16 * j);
    a[j] = _mm512_and_ps(v[j], absMask);
    finite &= _mm512_cmp_ps_mask(a[j], _mm512_set1_ps(kFltMax), _CMP_LE_OQ);
  }
  if (finite != 0xffff)
    return false;
  float h[8];
  __mmask16 nz[8];
  float chunkMax = 0.0f;
  for (int j = 0; j < 8; ++j) {
    h[j] = _mm512_reduce_max_ps(a[j]);
    chunkMax = std::max(chunkMax, h[j]);
  }
  double unscale;
  const float norm = normOf(chunkMax, unscale);
  __m512 an[8];
  for (int j = 0; j < 8; ++j)
    an[j] = _mm512_mul_ps(a[j], _mm512_set1_ps(norm));
  for (BlockAcc& b : acc.block) {
    b.chunkNoise = _mm512_setzero_ps();
    b.unscale = unscale;
  }
  const bool fitsFp16 = chunkMax <= kFp16.max, fitsE4M3 = chunkMax <= kE4M3.max, fitsE5M2 = chunkMax <= kE5M2.max;
  for (int j = 0; j < 8; ++j) {
    acc.mn = _mm512_min_ps(acc.mn, v[j]);
    acc.mx = _mm512_max_ps(acc.mx, v[j]);
    acc.am = _mm512_max_ps(acc.am, a[j]);
    nz[j] = _mm512_cmp_ps_mask(a[j], _mm512_setzero_ps(), _CMP_NEQ_OQ);
    const __m512d al = lo8(a[j]), ah = hi8(a[j]);
    acc.sig = _mm512_fmadd_pd(al, al, acc.sig);
    acc.sig = _mm512_fmadd_pd(ah, ah, acc.sig);
    castVec(a[j], al, ah, kFp16, false, fitsFp16, acc.castNoise[0]);
    castVec(a[j], al, ah, kBf16, true, chunkMax <= kBf16.max, acc.castNoise[1]);
    castVec(a[j], al, ah, kE4M3, false, fitsE4M3, acc.castNoise[2]);
    castVec(a[j], al, ah, kE5M2, false, fitsE5M2, acc.castNoise[3]);
  }
  // MX: four blocks of 32, each format spelled out (its constants fold).
  for (int k = 0; k < 4; ++k) {
    const float amax = std::max(h[2 * k], h[2 * k + 1]);
    mxVec(a + 2 * k, an + 2 * k, nz + 2 * k, amax, norm, kE4M3, 8, acc.block[0]);
    mxVec(a + 2 * k, an + 2 * k, nz + 2 * k, amax, norm, kE2M3, 2, acc.block[1]);
    mxVec(a + 2 * k, an + 2 * k, nz + 2 * k, amax, norm, kE2M1, 2, acc.block[2]);
  }
  // nvfp4: eight blocks of 16.
  for (int j = 0; j < 8; ++j) {
    const float amax = h[j];
    float bd = roundMag(amax / 6.0f * c.encode, kE4M3);
    bd = bd > 448.0f ? 448.0f : bd;
    const float mult = bd > 0.0f ? c.encode / bd : 0.0f;
    BlockAcc& b = acc.block[3];
    ++b.blocks;
    b.clipped += roundMag(amax * mult, kE2M1) > kE2M1.max;
    blockVec<false>(a[j], an[j], nz[j], mult, bd * c.decode, norm, kE2M1, b);
  }
  // fp8-block: one tile of 128, or one of a weight block's.
  {
    float amax = cell;
    BlockAcc& b = acc.block[4];
    if (cell < 0.0f) {
      amax = h[0];
      for (int j = 1; j < 8; ++j)
        amax = std::max(amax, h[j]);
      ++b.blocks;
      b.clipped += roundMag(amax / fp8Scale(amax), kE4M3) > kE4M3.max;
    }
    const float bd = fp8Scale(amax);
    // A weight block's maximum may be far above this tile's: its own 2^k.
    double unscaleF = unscale;
    const float normF = amax > chunkMax ? normOf(amax, unscaleF) : norm;
    b.unscale = unscaleF;
    for (int j = 0; j < 8; ++j)
      blockVec<true>(a[j], normF == norm ? an[j] : _mm512_mul_ps(a[j], _mm512_set1_ps(normF)), nz[j], bd, bd,
                     normF, kE4M3, b);
  }
  for (BlockAcc& b : acc.block) {
    const __m512d back = _mm512_set1_pd(b.unscale);
    b.noise = _mm512_fmadd_pd(lo8(b.chunkNoise), back, b.noise);
    b.noise = _mm512_fmadd_pd(hi8(b.chunkNoise), back, b.noise);
  }
  return true;
}

MANTISSA_AVX512_INLINE std::uint64_t sumLanes(__m512i v) {
  return std::uint64_t(std::uint32_t(_mm512_reduce_add_epi32(v)));
}

// Whole chunks of 128 values at p (at most kSlice values: the lane counters
// stay far from overflow); the chunks holding Inf or NaN are left to `slow`.
template <typename Slow>
MANTISSA_AVX512 void chunksAvx512(const float* p, std::size_t chunks, const TensorContext& c, TensorStats& s,
                                  ValueSums& vs, const float* gridRow, Slow&& slow) {
  ChunkAcc acc;
  for (auto& n : acc.castNoise)
    n = _mm512_setzero_pd();
  for (BlockAcc& b : acc.block) {
    b.sat = b.lost = b.sub = _mm512_setzero_si512();
    b.noise = _mm512_setzero_pd();
    b.clipped = b.blocks = 0;
  }
  acc.sig = _mm512_setzero_pd();
  acc.mn = _mm512_set1_ps(std::numeric_limits<float>::infinity());
  acc.mx = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  acc.am = _mm512_setzero_ps();
  std::size_t fast = 0;
  for (std::size_t k = 0; k < chunks; ++k) {
    const float cell = gridRow ? gridRow[k] : -1.0f;
    if (!std::isnan(cell) && chunk128(p + 128 * k, c, cell, acc))
      ++fast;
    else
      slow(std::span<const float>(p + 128 * k, 128), gridRow ? gridRow + k : nullptr);
  }
  if (fast == 0)
    return;
  const double sig = _mm512_reduce_add_pd(acc.sig);
  for (int k = 0; k < 4; ++k) {
    TargetStats& t = s.targets[std::size_t(k)];
    t.signal += sig;
    t.noise += _mm512_reduce_add_pd(acc.castNoise[k]);
  }
  for (int k = 0; k < 5; ++k) {
    TargetStats& t = s.targets[std::size_t(4 + k)];
    const BlockAcc& b = acc.block[k];
    t.overflow += sumLanes(b.sat);
    t.lostToZero += sumLanes(b.lost);
    t.subnormal += sumLanes(b.sub);
    t.signal += sig;
    t.noise += _mm512_reduce_add_pd(b.noise);
    t.blocks += b.blocks;
    t.clippedBlocks += b.clipped;
  }
  vs.mn = std::min(vs.mn, _mm512_reduce_min_ps(acc.mn));
  vs.mx = std::max(vs.mx, _mm512_reduce_max_ps(acc.mx));
  vs.am = std::max(vs.am, _mm512_reduce_max_ps(acc.am));
  vs.sq += sig;
}

// The finite absmax of n values.
MANTISSA_AVX512 float finiteAbsmaxAvx512(const float* p, std::size_t n) {
  const __m512 absMask = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
  const __m512 lim = _mm512_set1_ps(kFltMax);
  __m512 m0 = _mm512_setzero_ps(), m1 = m0;
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 a0 = _mm512_and_ps(_mm512_loadu_ps(p + i), absMask);
    const __m512 a1 = _mm512_and_ps(_mm512_loadu_ps(p + i + 16), absMask);
    m0 = _mm512_mask_max_ps(m0, _mm512_cmp_ps_mask(a0, lim, _CMP_LE_OQ), m0, a0);
    m1 = _mm512_mask_max_ps(m1, _mm512_cmp_ps_mask(a1, lim, _CMP_LE_OQ), m1, a1);
  }
  float m = _mm512_reduce_max_ps(_mm512_max_ps(m0, m1));
  for (; i < n; ++i) {
    const float a = std::fabs(p[i]);
    m = a <= kFltMax && a > m ? a : m;
  }
  return m;
}
MANTISSA_AVX512 float chunkAmaxAvx512(const float* p) {
  const __m512 absMask = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
  __m512 m = _mm512_setzero_ps();
  __mmask16 finite = 0xffff;
  for (int j = 0; j < 8; ++j) {
    const __m512 a = _mm512_and_ps(_mm512_loadu_ps(p + 16 * j), absMask);
    finite &= _mm512_cmp_ps_mask(a, _mm512_set1_ps(kFltMax), _CMP_LE_OQ);
    m = _mm512_max_ps(m, a);
  }
  return finite == 0xffff ? _mm512_reduce_max_ps(m) : std::numeric_limits<float>::quiet_NaN();
}
#pragma GCC diagnostic pop
#else
bool cpuHasAvx512() { return false; }
#endif

bool useAvx512() { return cpuHasAvx512() && !g_portable.load(std::memory_order_relaxed); }

float finiteAbsmax(std::span<const float> x) {
#if defined(__x86_64__)
  if (useAvx512())
    return finiteAbsmaxAvx512(x.data(), x.size());
#endif
  float a = 0.0f;
  for (float v : x) {
    const float m = std::fabs(v);
    a = m <= std::numeric_limits<float>::max() && m > a ? m : a;
  }
  return a;
}

// The finite amax of up to 128 values; NaN when one is Inf or NaN.
float chunkAmax(std::span<const float> x) {
#if defined(__x86_64__)
  if (useAvx512() && x.size() == 128)
    return chunkAmaxAvx512(x.data());
#endif
  float m;
  return blockAmax(x, m) ? m : std::numeric_limits<float>::quiet_NaN();
}

// The portable code on a span of whole blocks of one row: the casts' sums,
// the value statistics, the block schemes.
void portableSpan(std::span<const float> x, const TensorContext& c, TensorStats& s, ValueSums& vs,
                  const float* gridRow) {
  elementwise(x, s.targets[0], kFp16, false);
  elementwise(x, s.targets[1], kBf16, true);
  elementwise(x, s.targets[2], kE4M3, false);
  elementwise(x, s.targets[3], kE5M2, false);
  for (float v : x) {
    if (!(std::fabs(v) <= std::numeric_limits<float>::max()))
      continue;
    vs.mn = std::min(vs.mn, v);
    vs.mx = std::max(vs.mx, v);
    vs.am = std::max(vs.am, std::fabs(v));
    vs.sq += double(v) * double(v);
  }
  scanSegment(x, c, s, gridRow);
}

// Values of whole segments (slices never cut a block).
// `first`: the index of x's first value in the tensor.
void scanSlice(std::span<const float> x, std::uint64_t first, const TensorContext& c,
               TensorStats& s) {
  const bool hadFinite = s.finite > 0;
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
  s.count += x.size();
  s.finite += x.size() - ts.hist.nan - ts.hist.posInf - ts.hist.negInf;
  s.zeros += ts.hist.zeros;
  s.nan += ts.hist.nan;
  s.posInf += ts.hist.posInf;
  s.negInf += ts.hist.negInf;
  // Cut into row segments; their whole chunks of 128 to the vector kernel.
  ValueSums vs;
  const bool vec = useAvx512();
  std::size_t i = 0;
  std::uint64_t row = first / c.rowLength, col = first % c.rowLength;
  while (i < x.size()) {
    const std::size_t n = std::min<std::uint64_t>(x.size() - i, c.rowLength - col);
    const auto seg = x.subspan(i, n);
    const float* gridRow = c.fp8Grid ? c.fp8Grid + row / 128 * c.gridCols + col / 128 : nullptr;
    std::size_t done = 0;
#if defined(__x86_64__)
    if (vec) {
      done = n / 128 * 128;
      chunksAvx512(seg.data(), n / 128, c, s, vs, gridRow,
                   [&](std::span<const float> chunk, const float* cell) { portableSpan(chunk, c, s, vs, cell); });
    }
#endif
    if (done < n)
      portableSpan(seg.subspan(done), c, s, vs, gridRow ? gridRow + done / 128 : nullptr);
    i += n;
    ++row;
    col = 0;
  }
  if (vs.mn <= vs.mx) {
    if (!hadFinite) {
      s.min = vs.mn;
      s.max = vs.mx;
    } else {
      s.min = std::min(s.min, double(vs.mn));
      s.max = std::max(s.max, double(vs.mx));
    }
  }
  s.absmax = std::max(s.absmax, double(vs.am));
  s.sumSquares += vs.sq;
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
      (void)col;
      std::span<const float> x;
      if (direct) {
        x = {f32 + first, n};
      } else {
        model.decode(t, first, std::span<float>(buf.data(), n));
        x = {buf.data(), n};
      }
      fn(thread, x, first);
    }
  }
}

// fp8-block's weight blocks: 128 x 128 over a 2-D tensor's rows and columns.
struct Fp8Grid {
  std::uint64_t rows = 0, cols = 0; // blocks
  std::vector<float> amax;          // finite amax per block, NaN when it holds Inf or NaN
  Fp8Grid() = default;
  Fp8Grid(std::uint64_t valueRows, std::uint64_t valueCols)
      : rows((valueRows + 127) / 128), cols((valueCols + 127) / 128), amax(rows * cols, 0.0f) {}
  // Adds the values x (x[0] is value `first` of the tensor, rowLength per row).
  void add(std::span<const float> x, std::uint64_t first, std::uint64_t rowLength) {
    std::size_t i = 0;
    std::uint64_t row = first / rowLength, col = first % rowLength;
    while (i < x.size()) {
      const std::size_t n = std::min<std::uint64_t>(x.size() - i, rowLength - col);
      float* cell = amax.data() + row / 128 * cols + col / 128;
      for (std::size_t j = 0; j < n; j += 128, ++cell) {
        const float m = chunkAmax(x.subspan(i + j, std::min<std::size_t>(128, n - j)));
        *cell = std::isnan(m) || std::isnan(*cell) ? std::numeric_limits<float>::quiet_NaN()
                                                   : std::max(*cell, m);
      }
      i += n;
      ++row;
      col = 0;
    }
  }
  void merge(const Fp8Grid& o) {
    for (std::size_t k = 0; k < amax.size(); ++k)
      amax[k] = std::isnan(amax[k]) || std::isnan(o.amax[k]) ? std::numeric_limits<float>::quiet_NaN()
                                                             : std::max(amax[k], o.amax[k]);
  }
  // The blocks' own counts: blocks, poisoned, clipped (an element at amax saturates).
  void blockTotals(TargetStats& t) const {
    for (float m : amax) {
      ++t.blocks;
      if (std::isnan(m))
        ++t.poisonedBlocks;
      else
        t.clippedBlocks += roundMag(m / fp8Scale(m), kE4M3) > kE4M3.max;
    }
  }
};

bool usesWeightBlocks(const ModelTensor& t) { return t.shape.size() == 2; }

} // namespace

void setPortableModelScan(bool portable) noexcept { g_portable.store(portable); }
bool modelScanUsesAvx512() noexcept { return useAvx512(); }

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

TensorStats scanValues(std::span<const float> values, std::uint64_t rowLength, bool weightBlocks) {
  TensorStats s;
  TensorContext c;
  c.rowLength = std::max<std::uint64_t>(rowLength, 1);
  c.encode = nvfp4Encode(finiteAbsmax(values));
  c.decode = 1.0f / c.encode;
  Fp8Grid grid;
  if (weightBlocks) {
    grid = Fp8Grid(values.size() / c.rowLength, c.rowLength);
    grid.add(values, 0, c.rowLength);
    c.fp8Grid = grid.amax.data();
    c.gridCols = grid.cols;
  }
  const Slicing sl(values.size(), c.rowLength);
  for (std::uint64_t k = 0; k < sl.count; ++k) {
    std::uint64_t first, n, col;
    sl.at(k, first, n, col);
    TensorStats part;
    scanSlice(values.subspan(first, n), first, c, part);
    merge(s, part);
  }
  if (weightBlocks) {
    grid.blockTotals(s.targets[std::size_t(Target::Fp8Block)]);
    s.weightBlockAmax = std::move(grid.amax);
    s.weightBlockCols = grid.cols;
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
  // nvfp4's tensor scale (the finite absmax) and fp8-block's weight blocks first.
  const bool weightBlocks = usesWeightBlocks(t);
  const std::uint64_t rowLength = std::max<std::uint64_t>(t.rowLength, 1);
  std::vector<float> amax(std::size_t(threads), 0.0f);
  std::vector<Fp8Grid> grids(weightBlocks ? std::size_t(threads) : 0,
                             weightBlocks ? Fp8Grid(t.elements / rowLength, rowLength) : Fp8Grid());
  forSlices(model, t, cancel, [&](int th, std::span<const float> x, std::uint64_t first) {
    amax[std::size_t(th)] = std::max(amax[std::size_t(th)], finiteAbsmax(x));
    if (weightBlocks)
      grids[std::size_t(th)].add(x, first, rowLength);
  });
  TensorContext c;
  c.rowLength = rowLength;
  c.encode = nvfp4Encode(*std::max_element(amax.begin(), amax.end()));
  c.decode = 1.0f / c.encode;
  if (weightBlocks) {
    for (std::size_t k = 1; k < grids.size(); ++k)
      grids[0].merge(grids[k]);
    c.fp8Grid = grids[0].amax.data();
    c.gridCols = grids[0].cols;
  }
  std::vector<TensorStats> parts(static_cast<std::size_t>(threads));
  forSlices(model, t, cancel, [&](int th, std::span<const float> x, std::uint64_t first) {
    TensorStats part;
    scanSlice(x, first, c, part);
    merge(parts[std::size_t(th)], part);
  });
  for (const TensorStats& p : parts)
    merge(s, p);
  if (weightBlocks) {
    grids[0].blockTotals(s.targets[std::size_t(Target::Fp8Block)]);
    s.weightBlockAmax = std::move(grids[0].amax);
    s.weightBlockCols = grids[0].cols;
  }
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
