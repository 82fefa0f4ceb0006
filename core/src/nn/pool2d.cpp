// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/nn/pool2d.h>

#include <cmath>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <cstddef>
#include <stdexcept>
#include <string>

namespace mantissa::nn {
namespace {

void checkShape(const char* who, std::size_t inSize, std::size_t outSize, std::size_t argmaxSize,
                int B, int C, int H, int W) {
  if (B <= 0 || C <= 0 || H <= 0 || W <= 0)
    throw std::invalid_argument(std::string(who) + ": sizes B=" + std::to_string(B) +
                                " C=" + std::to_string(C) + " H=" + std::to_string(H) +
                                " W=" + std::to_string(W) + " must be positive");
  if (H % 2 != 0 || W % 2 != 0)
    throw std::invalid_argument(std::string(who) + ": a " + std::to_string(H) + "x" +
                                std::to_string(W) +
                                " image cannot be pooled 2x2: height and width must be even");
  const std::size_t planes = std::size_t(B) * std::size_t(C);
  const std::size_t in = planes * std::size_t(H) * std::size_t(W);
  const std::size_t out = in / 4;
  if (inSize != in || outSize != out || argmaxSize != out)
    throw std::invalid_argument(std::string(who) + ": input " + std::to_string(inSize) +
                                ", output " + std::to_string(outSize) + " and argmax " +
                                std::to_string(argmaxSize) + " values, expected " +
                                std::to_string(in) + ", " + std::to_string(out) + " and " +
                                std::to_string(out));
}

// The kernels work on one output row at a time: the windows over input rows
// r0 and r1 = r0 + W, r0 starting at position top0 of its plane. A later
// candidate c replaces the current maximum m when !(c <= m) and m is not NaN:
// c > m, or c is NaN while m is not. So the first NaN wins, else the first
// maximum. With `relu` every candidate is first replaced by relu(c) =
// c > 0 ? c : +0 (NaN -> +0), exactly activationForward(Relu).
//
// The plain versions, branch-free, built for AVX2 and baseline x86-64 (the
// loader picks one); on CPUs with AVX-512 the AVX-512 versions below run, 16
// outputs at a time with masked tails, so short rows (LeNet's 14 and 7) stay
// vectorised.
// Not under ASan or TSan: the loader runs the clones' resolver before the
// sanitizer's runtime is set up (under TSan the instrumented resolver crashes).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&                            \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define MANTISSA_POOL_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MANTISSA_POOL_CLONES
#endif

inline float reluOf(float v) { return v > 0.0f ? v : 0.0f; }

MANTISSA_POOL_CLONES void rowForwardPlain(const float* __restrict r0, const float* __restrict r1,
                                          float* __restrict o, std::int32_t* __restrict a, int Wo,
                                          std::int32_t top0, std::int32_t W, bool relu) {
  for (int j = 0; j < Wo; ++j) {
    const std::int32_t top = top0 + 2 * j;
    float c0 = r0[2 * j], c1 = r0[2 * j + 1], c2 = r1[2 * j], c3 = r1[2 * j + 1];
    if (relu) {
      c0 = reluOf(c0);
      c1 = reluOf(c1);
      c2 = reluOf(c2);
      c3 = reluOf(c3);
    }
    float m = c0;
    std::int32_t k = top;
    bool t = !(c1 <= m) && m == m;
    m = t ? c1 : m;
    k = t ? top + 1 : k;
    t = !(c2 <= m) && m == m;
    m = t ? c2 : m;
    k = t ? top + W : k;
    t = !(c3 <= m) && m == m;
    m = t ? c3 : m;
    k = t ? top + W + 1 : k;
    o[j] = m;
    a[j] = k;
  }
}

// Every position of each window written: dout at the argmax (where x > 0
// with `relu`, x the forward input) and +0 elsewhere. Returns the number of
// argmax values outside their window.
MANTISSA_POOL_CLONES int rowBackwardPlain(float* __restrict r0, float* __restrict r1,
                                          const float* __restrict d,
                                          const std::int32_t* __restrict a,
                                          const float* __restrict x0, const float* __restrict x1,
                                          int Wo, std::int32_t top0, std::int32_t W, bool relu) {
  int outside = 0;
  for (int j = 0; j < Wo; ++j) {
    const std::int32_t rel = a[j] - (top0 + 2 * j);
    const float g = d[j];
    bool h0 = rel == 0, h1 = rel == 1, h2 = rel == W, h3 = rel == W + 1;
    outside += !(h0 | h1 | h2 | h3);
    if (relu) {
      h0 = h0 && x0[2 * j] > 0.0f;
      h1 = h1 && x0[2 * j + 1] > 0.0f;
      h2 = h2 && x1[2 * j] > 0.0f;
      h3 = h3 && x1[2 * j + 1] > 0.0f;
    }
    r0[2 * j] = h0 ? g : 0.0f;
    r0[2 * j + 1] = h1 ? g : 0.0f;
    r1[2 * j] = h2 ? g : 0.0f;
    r1[2 * j + 1] = h3 ? g : 0.0f;
  }
  return outside;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MANTISSA_POOL_AVX512 1

struct Chunk { // 16 outputs from input column 2*j0: masks for the tail
  __mmask16 lo, hi, out;
};

[[gnu::target("avx512f")]] inline Chunk chunkAt(int j0, int Wo) {
  const int nout = Wo - j0 < 16 ? Wo - j0 : 16;
  const int nin = 2 * nout;
  Chunk c;
  c.lo = nin >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << nin) - 1u);
  c.hi = nin <= 16 ? __mmask16(0) : nin >= 32 ? __mmask16(0xFFFF) : __mmask16((1u << (nin - 16)) - 1u);
  c.out = nout >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << nout) - 1u);
  return c;
}

// The even and odd columns of 32 values from r (masked).
[[gnu::target("avx512f")]] inline void loadPairs(const float* r, const Chunk& c, __m512& even,
                                                 __m512& odd) {
  const __m512i evenIdx =
      _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i oddIdx =
      _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  const __m512 lo = _mm512_maskz_loadu_ps(c.lo, r);
  const __m512 hi = _mm512_maskz_loadu_ps(c.hi, r + 16);
  even = _mm512_permutex2var_ps(lo, evenIdx, hi);
  odd = _mm512_permutex2var_ps(lo, oddIdx, hi);
}

[[gnu::target("avx512f")]] inline __m512 relu512(__m512 v) {
  return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GT_OQ), v);
}

// The candidate replaces the maximum m (its position k) per the rule above.
[[gnu::target("avx512f")]] inline void take512(__m512& m, __m512i& k, __m512 cand, __m512i top,
                                               std::int32_t off) {
  const __mmask16 t =
      _mm512_cmp_ps_mask(cand, m, _CMP_NLE_UQ) & _mm512_cmp_ps_mask(m, m, _CMP_ORD_Q);
  m = _mm512_mask_mov_ps(m, t, cand);
  k = _mm512_mask_mov_epi32(k, t, _mm512_add_epi32(top, _mm512_set1_epi32(off)));
}

template <bool Relu>
[[gnu::target("avx512f")]] void rowForward512(const float* r0, const float* r1, float* o,
                                              std::int32_t* a, int Wo, std::int32_t top0,
                                              std::int32_t W) {
  const __m512i twoLane =
      _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  for (int j0 = 0; j0 < Wo; j0 += 16) {
    const Chunk c = chunkAt(j0, Wo);
    __m512 tl, tr, bl, br;
    loadPairs(r0 + 2 * j0, c, tl, tr);
    loadPairs(r1 + 2 * j0, c, bl, br);
    if constexpr (Relu) {
      tl = relu512(tl);
      tr = relu512(tr);
      bl = relu512(bl);
      br = relu512(br);
    }
    const __m512i top = _mm512_add_epi32(_mm512_set1_epi32(top0 + 2 * j0), twoLane);
    __m512 m = tl;
    __m512i k = top;
    take512(m, k, tr, top, 1);
    take512(m, k, bl, top, W);
    take512(m, k, br, top, W + 1);
    _mm512_mask_storeu_ps(o + j0, c.out, m);
    _mm512_mask_storeu_epi32(a + j0, c.out, k);
  }
}

template <bool Relu>
[[gnu::target("avx512f")]] int rowBackward512(float* r0, float* r1, const float* d,
                                              const std::int32_t* a, const float* x0,
                                              const float* x1, int Wo, std::int32_t top0,
                                              std::int32_t W) {
  const __m512i twoLane =
      _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i interLo =
      _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i interHi =
      _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  int outside = 0;
  for (int j0 = 0; j0 < Wo; j0 += 16) {
    const Chunk c = chunkAt(j0, Wo);
    const __m512i top = _mm512_add_epi32(_mm512_set1_epi32(top0 + 2 * j0), twoLane);
    const __m512 g = _mm512_maskz_loadu_ps(c.out, d + j0);
    const __m512i rel = _mm512_sub_epi32(_mm512_maskz_loadu_epi32(c.out, a + j0), top);
    __mmask16 h0 = _mm512_cmpeq_epi32_mask(rel, _mm512_setzero_si512());
    __mmask16 h1 = _mm512_cmpeq_epi32_mask(rel, _mm512_set1_epi32(1));
    __mmask16 h2 = _mm512_cmpeq_epi32_mask(rel, _mm512_set1_epi32(W));
    __mmask16 h3 = _mm512_cmpeq_epi32_mask(rel, _mm512_set1_epi32(W + 1));
    outside += __builtin_popcount(unsigned(c.out & ~(h0 | h1 | h2 | h3)));
    if constexpr (Relu) {
      __m512 tl, tr, bl, br;
      loadPairs(x0 + 2 * j0, c, tl, tr);
      loadPairs(x1 + 2 * j0, c, bl, br);
      const __m512 z = _mm512_setzero_ps();
      h0 &= _mm512_cmp_ps_mask(tl, z, _CMP_GT_OQ);
      h1 &= _mm512_cmp_ps_mask(tr, z, _CMP_GT_OQ);
      h2 &= _mm512_cmp_ps_mask(bl, z, _CMP_GT_OQ);
      h3 &= _mm512_cmp_ps_mask(br, z, _CMP_GT_OQ);
    }
    const __m512 vtl = _mm512_maskz_mov_ps(h0, g), vtr = _mm512_maskz_mov_ps(h1, g);
    const __m512 vbl = _mm512_maskz_mov_ps(h2, g), vbr = _mm512_maskz_mov_ps(h3, g);
    _mm512_mask_storeu_ps(r0 + 2 * j0, c.lo, _mm512_permutex2var_ps(vtl, interLo, vtr));
    _mm512_mask_storeu_ps(r0 + 2 * j0 + 16, c.hi, _mm512_permutex2var_ps(vtl, interHi, vtr));
    _mm512_mask_storeu_ps(r1 + 2 * j0, c.lo, _mm512_permutex2var_ps(vbl, interLo, vbr));
    _mm512_mask_storeu_ps(r1 + 2 * j0 + 16, c.hi, _mm512_permutex2var_ps(vbl, interHi, vbr));
  }
  return outside;
}
#endif

bool useAvx512() {
#ifdef MANTISSA_POOL_AVX512
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
#else
  return false;
#endif
}

template <bool Relu>
void forwardPlanes(std::span<float> out, std::span<std::int32_t> argmax, std::span<const float> in,
                   int B, int C, int H, int W) {
  const std::size_t planes = std::size_t(B) * std::size_t(C);
  const int Ho = H / 2, Wo = W / 2;
  const std::size_t planeIn = std::size_t(H) * std::size_t(W);
  const std::size_t planeOut = std::size_t(Ho) * std::size_t(Wo);
  const bool wide = useAvx512();
  for (std::size_t q = 0; q < planes; ++q) {
    const float* x = in.data() + q * planeIn;
    float* o = out.data() + q * planeOut;
    std::int32_t* a = argmax.data() + q * planeOut;
    for (int i = 0; i < Ho; ++i) {
      const float* r0 = x + std::size_t(2 * i) * std::size_t(W);
      float* orow = o + std::size_t(i) * std::size_t(Wo);
      std::int32_t* arow = a + std::size_t(i) * std::size_t(Wo);
#ifdef MANTISSA_POOL_AVX512
      if (wide) {
        rowForward512<Relu>(r0, r0 + W, orow, arow, Wo, 2 * i * W, W);
        continue;
      }
#endif
      rowForwardPlain(r0, r0 + W, orow, arow, Wo, 2 * i * W, W, Relu);
    }
  }
  (void)wide;
}

template <bool Relu>
void backwardPlanes(std::span<float> din, std::span<const float> dout,
                    std::span<const std::int32_t> argmax, const float* x, int B, int C, int H,
                    int W) {
  const std::size_t planes = std::size_t(B) * std::size_t(C);
  const std::size_t planeIn = std::size_t(H) * std::size_t(W);
  const std::size_t planeOut = planeIn / 4;
  const int Ho = H / 2, Wo = W / 2;
  const bool wide = useAvx512();
  for (std::size_t q = 0; q < planes; ++q) {
    float* dx = din.data() + q * planeIn;
    const float* xq = Relu ? x + q * planeIn : nullptr;
    const float* d = dout.data() + q * planeOut;
    const std::int32_t* a = argmax.data() + q * planeOut;
    for (int i = 0; i < Ho; ++i) {
      const std::size_t r = std::size_t(2 * i) * std::size_t(W);
      const float* x0 = Relu ? xq + r : nullptr;
      const float* x1 = Relu ? xq + r + std::size_t(W) : nullptr;
      const std::size_t o = std::size_t(i) * std::size_t(Wo);
      int outside;
#ifdef MANTISSA_POOL_AVX512
      if (wide)
        outside = rowBackward512<Relu>(dx + r, dx + r + W, d + o, a + o, x0, x1, Wo, 2 * i * W, W);
      else
#endif
        outside = rowBackwardPlain(dx + r, dx + r + W, d + o, a + o, x0, x1, Wo, 2 * i * W, W, Relu);
      if (outside != 0)
        for (int j = 0; j < Wo; ++j) {
          const std::int32_t rel = a[o + std::size_t(j)] - (2 * i * W + 2 * j);
          if (rel != 0 && rel != 1 && rel != W && rel != W + 1)
            throw std::invalid_argument("maxPool2dBackward: argmax " +
                                        std::to_string(a[o + std::size_t(j)]) +
                                        " lies outside its 2x2 window");
        }
    }
  }
  (void)wide;
}

} // namespace

void maxPool2dForward(std::span<float> out, std::span<std::int32_t> argmax,
                      std::span<const float> in, int B, int C, int H, int W) {
  checkShape("maxPool2dForward", in.size(), out.size(), argmax.size(), B, C, H, W);
  forwardPlanes<false>(out, argmax, in, B, C, H, W);
}

void reluMaxPool2dForward(std::span<float> out, std::span<std::int32_t> argmax,
                          std::span<const float> in, int B, int C, int H, int W) {
  checkShape("reluMaxPool2dForward", in.size(), out.size(), argmax.size(), B, C, H, W);
  forwardPlanes<true>(out, argmax, in, B, C, H, W);
}

void maxPool2dBackward(std::span<float> din, std::span<const float> dout,
                       std::span<const std::int32_t> argmax, int B, int C, int H, int W) {
  checkShape("maxPool2dBackward", din.size(), dout.size(), argmax.size(), B, C, H, W);
  backwardPlanes<false>(din, dout, argmax, nullptr, B, C, H, W);
}

void maxPool2dReluBackward(std::span<float> din, std::span<const float> dout,
                           std::span<const std::int32_t> argmax, std::span<const float> x, int B,
                           int C, int H, int W) {
  checkShape("maxPool2dReluBackward", din.size(), dout.size(), argmax.size(), B, C, H, W);
  if (x.size() != din.size())
    throw std::invalid_argument("maxPool2dReluBackward: x has " + std::to_string(x.size()) +
                                " values, din " + std::to_string(din.size()));
  backwardPlanes<true>(din, dout, argmax, x.data(), B, C, H, W);
}

bool maxPool2dAvx512() { return useAvx512(); }

} // namespace mantissa::nn
