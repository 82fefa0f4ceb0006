// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// FP16 GEMM with FP16 accumulation promoted to FP32 every N_C products
// (fp16_gemm.h): the exact FP16 FMA, the plain-loop reference, the portable
// 32-lane emulation, and the blocked driver (packing, cache blocking,
// OpenMP) shared by the portable and the AVX512_FP16 microkernels.
#include "fp16_gemm_microkernel.h"
#include "matmul_operands.h"

#include <mantissa/kernels/fp16_gemm.h>
#include <mantissa/numeric/cpu_features.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace mantissa::kernels {

// ---------------------------------------------------------------------------
// Process-wide N_C and names
// ---------------------------------------------------------------------------

namespace {

std::atomic<int> g_promoteEvery{kDefaultFp16PromoteEvery};
constexpr int kMaxPromoteEvery = 65536;

void checkPromoteEvery(const char* who, int promoteEvery) {
  if (promoteEvery < 0 || promoteEvery > kMaxPromoteEvery)
    throw std::invalid_argument(std::string(who) + ": N_C " + std::to_string(promoteEvery) +
                                " is not 0 (never) or 1.." + std::to_string(kMaxPromoteEvery));
}

} // namespace

std::string fp16PromoteName(int promoteEvery) {
  return promoteEvery == kFp16NeverPromote ? "never" : std::to_string(promoteEvery);
}

std::optional<int> parseFp16PromoteEvery(std::string_view text) {
  if (text == "never")
    return kFp16NeverPromote;
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1 || value > kMaxPromoteEvery)
    return std::nullopt;
  return value;
}

void setFp16PromoteEvery(int promoteEvery) {
  checkPromoteEvery("setFp16PromoteEvery", promoteEvery);
  g_promoteEvery.store(promoteEvery);
}

int fp16PromoteEvery() {
  return g_promoteEvery.load();
}

std::string_view fp16GemmIsaName(Fp16GemmIsa isa) {
  return isa == Fp16GemmIsa::Avx512Fp16 ? "AVX512_FP16" : "portable";
}

bool fp16GemmHardwareAvailable() {
  const auto& f = numeric::cpuFeatures();
  return f.avx512fp16 && f.avx512bw && fp16gemm::avx512Fp16MicroKernel() != nullptr;
}

// ---------------------------------------------------------------------------
// The exact FP16 FMA
// ---------------------------------------------------------------------------
//
// fma16(a, b, c) = RN16(a*b + c), computed in double:
//
// 1. p = a*b is exact in double: FP16 significands have 11 bits, so the
//    product has at most 22, and its magnitude is 0 or lies in
//    [2^-48, 2^32].
// 2. s = RN53(p + c), and the TwoSum error e = (p + c) - s is exact
//    (Knuth's TwoSum; nothing overflows below 2^33). |e| <= ulp53(s) / 2.
// 3. s is a normal double (p + c is 0 or at least 2^-48 in magnitude, being
//    a sum of multiples of 2^-48). Rounding |s| to FP16 keeps the top
//    bits of its 53-bit significand down to the FP16 ulp there,
//    2^max(E-10, -24) for |s| in [2^E, 2^(E+1)): it drops d >= 42 bits,
//    leaving q and a remainder r against half = 2^(d-1).
// 4. Rounding s decides as rounding p + c would, with e breaking ties:
//    - r != half: the midpoint between the two FP16 candidates is an
//      integer number of ulp53(s) away from s, so at least one, while p + c
//      is within half an ulp53 of s: both lie on the same side of it. (When
//      s is a power of two and e points below it, p + c is within half an
//      ulp53 below a value that is on the FP16 grid of both binades; it
//      rounds to s as well.)
//    - r == half: s is a midpoint. p + c is exactly it when e = 0 (ties to
//      even), else above it in magnitude when e has the sign of s (round
//      away from zero), below it otherwise (round towards zero).
// 5. q = 2048 carries into the next binade by plain addition of the
//    encodings; at 2^16 and above the encoding reaches 0x7C00: infinity.
//    (So 65520, the midpoint above 65504, goes to infinity by ties to even,
//    and a hair below it to 65504.)
//
// tests/core/test_fp16_gemm.cpp checks fma16 against exact integer
// arithmetic (sums on the 2^-48 grid in 128 bits).

namespace {

// All 65536 FP16 values as floats (exact), built once.
const std::array<float, 65536>& halfTable() {
  static const std::array<float, 65536> table = [] {
    std::array<float, 65536> t{};
    for (std::uint32_t h = 0; h < 65536; ++h) {
      const std::uint32_t sign = (h & 0x8000u) << 16;
      const std::uint32_t exponent = (h >> 10) & 0x1Fu;
      const std::uint32_t mantissa = h & 0x3FFu;
      float v;
      if (exponent == 0) {
        v = std::ldexp(static_cast<float>(mantissa), -24);
      } else if (exponent == 31) {
        v = mantissa == 0 ? INFINITY : NAN;
      } else {
        v = std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
      }
      std::uint32_t bits = std::bit_cast<std::uint32_t>(v) | sign;
      if (exponent == 31 && mantissa != 0)
        bits = sign | 0x7FC00000u | (mantissa << 13); // quiet NaN, payload kept
      t[h] = std::bit_cast<float>(bits);
    }
    return t;
  }();
  return table;
}

const float* const g_half = halfTable().data();

inline double halfToDouble(std::uint16_t h) {
  return static_cast<double>(g_half[h]);
}

constexpr std::uint16_t kHalfNan = 0x7E00;
constexpr std::uint16_t kHalfInf = 0x7C00;

// RN16(s + e) for a finite double s and its exact error term e (step 3-5).
inline std::uint16_t roundToHalf(double s, double e) {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(s);
  const std::uint16_t sign = (bits >> 63) != 0 ? 0x8000 : 0;
  const std::uint64_t mag = bits & 0x7FFF'FFFF'FFFF'FFFFull;
  if (mag == 0)
    return sign;
  const int exponent = static_cast<int>(mag >> 52) - 1023;
  if (exponent >= 16)
    return sign | kHalfInf;
  if (exponent < -25) // below half the smallest subnormal, 2^-25
    return sign;
  const int ulp = std::max(exponent - 10, -24);
  const int drop = 52 - exponent + ulp; // 42 .. 53
  const std::uint64_t significand = (mag & 0x000F'FFFF'FFFF'FFFFull) | (1ull << 52);
  std::uint64_t q = significand >> drop;
  const std::uint64_t r = significand & ((1ull << drop) - 1);
  const std::uint64_t half = 1ull << (drop - 1);
  bool up = r > half;
  if (r == half) {
    if (e == 0)
      up = (q & 1) != 0;
    else
      up = (e > 0) == (sign == 0);
  }
  q += up;
  const std::uint64_t encoded = static_cast<std::uint64_t>(ulp + 24) * 1024 + q;
  return sign | static_cast<std::uint16_t>(std::min<std::uint64_t>(encoded, kHalfInf));
}

inline std::uint16_t fma16(std::uint16_t a, std::uint16_t b, std::uint16_t c) {
  const double da = halfToDouble(a), db = halfToDouble(b), dc = halfToDouble(c);
  const double p = da * db; // exact
  const double s = p + dc;
  if (!std::isfinite(s)) // an operand was inf or NaN
    return std::isnan(s) ? kHalfNan : (std::signbit(s) ? 0x8000 | kHalfInf : kHalfInf);
  const double t = s - p; // TwoSum
  const double e = (p - (s - t)) + (dc - t);
  return roundToHalf(s, e);
}

} // namespace

std::uint16_t fp16Fma(std::uint16_t a, std::uint16_t b, std::uint16_t c) noexcept {
  return fma16(a, b, c);
}

// ---------------------------------------------------------------------------
// The definition in plain loops
// ---------------------------------------------------------------------------

namespace {

// Element (i, k) of op(A) and (k, j) of op(B) in their stored layouts.
struct Strides {
  std::ptrdiff_t aRow, aK, bK, bCol;
};
Strides stridesOf(const MatmulShape& s) {
  Strides st{};
  if (s.transSrc == Trans::No)
    st.aRow = s.k, st.aK = 1;
  else
    st.aRow = 1, st.aK = s.m;
  if (s.transWeights == Trans::No)
    st.bK = s.n, st.bCol = 1;
  else
    st.bK = 1, st.bCol = s.k;
  return st;
}

} // namespace

void fp16GemmReference(const MatmulShape& shape, const std::uint16_t* a, const std::uint16_t* b,
                       float* c, int promoteEvery, bool accumulate) {
  detail::checkShape("fp16GemmReference", shape);
  checkPromoteEvery("fp16GemmReference", promoteEvery);
  const Strides st = stridesOf(shape);
  const std::int64_t chunk = promoteEvery == kFp16NeverPromote ? shape.k : promoteEvery;
  for (std::int64_t i = 0; i < shape.m; ++i)
    for (std::int64_t j = 0; j < shape.n; ++j) {
      float sum = accumulate ? c[i * shape.n + j] : 0.0f;
      std::uint16_t h = 0; // +0
      for (std::int64_t k = 0; k < shape.k; ++k) {
        h = fma16(a[i * st.aRow + k * st.aK], b[k * st.bK + j * st.bCol], h);
        if ((k + 1) % chunk == 0 || k + 1 == shape.k) {
          sum = sum + g_half[h];
          h = 0;
        }
      }
      c[i * shape.n + j] = sum;
    }
}

// ---------------------------------------------------------------------------
// Portable vector ops: 32 FP16 lanes, each FMA exact (fma16)
// ---------------------------------------------------------------------------

namespace {

struct PortableOps {
  struct Reg {
    std::uint16_t lane[fp16gemm::kLanes];
  };
  static Reg zero() { return Reg{}; }
  static Reg load(const std::uint16_t* p) {
    Reg r;
    std::memcpy(r.lane, p, sizeof r.lane);
    return r;
  }
  static void store(std::uint16_t* p, const Reg& r) { std::memcpy(p, r.lane, sizeof r.lane); }
  static Reg fma(std::uint16_t a, const Reg& b, const Reg& acc) {
    Reg r;
    for (int i = 0; i < fp16gemm::kLanes; ++i)
      r.lane[i] = fma16(a, b.lane[i], acc.lane[i]);
    return r;
  }
  static void addTo(float* c, const Reg& h) {
    for (int i = 0; i < fp16gemm::kLanes; ++i)
      c[i] = c[i] + g_half[h.lane[i]];
  }
};

} // namespace

// ---------------------------------------------------------------------------
// The blocked driver
// ---------------------------------------------------------------------------

namespace {

using fp16gemm::kMr;
using fp16gemm::kNr;

constexpr std::int64_t kKcTarget = 256; // K block: B micro-panel 256 x 64 FP16 = 32 KB (L1)
constexpr std::int64_t kMc = 128;       // rows per L2 block: 128 x 256 FP16 = 64 KB

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

} // namespace

struct Fp16Gemm::Impl {
  MatmulShape shape;
  int promoteEvery = kDefaultFp16PromoteEvery;
  Fp16GemmIsa isa = Fp16GemmIsa::Portable;
  fp16gemm::MicroKernel kernel = nullptr;
  std::int64_t chunk = 0; // N_C, or K for never
  std::int64_t kc = 0;    // K block
  std::int64_t mPanels = 0, nPanels = 0;
  std::vector<std::uint16_t> packedA; // mPanels x kc x kMr
  std::vector<std::uint16_t> packedB; // nPanels x kc x kNr
  std::vector<std::uint16_t> carry;   // [M,N] FP16 partials, when a chunk spans K blocks

  void packA(const std::uint16_t* a, std::int64_t k0, std::int64_t kc, std::int64_t panel);
  void packB(const std::uint16_t* b, std::int64_t k0, std::int64_t kc, std::int64_t panel);
  void run(const std::uint16_t* a, const std::uint16_t* b, float* c, bool accumulate);
};

void Fp16Gemm::Impl::packA(const std::uint16_t* a, std::int64_t k0, std::int64_t kcNow,
                           std::int64_t panel) {
  const Strides st = stridesOf(shape);
  std::uint16_t* dst = packedA.data() + panel * kc * kMr;
  const std::int64_t i0 = panel * kMr;
  for (std::int64_t t = 0; t < kcNow; ++t)
    for (int r = 0; r < kMr; ++r) {
      const std::int64_t i = i0 + r;
      dst[t * kMr + r] = i < shape.m ? a[i * st.aRow + (k0 + t) * st.aK] : std::uint16_t(0);
    }
}

void Fp16Gemm::Impl::packB(const std::uint16_t* b, std::int64_t k0, std::int64_t kcNow,
                           std::int64_t panel) {
  const Strides st = stridesOf(shape);
  std::uint16_t* dst = packedB.data() + panel * kc * kNr;
  const std::int64_t j0 = panel * kNr;
  const int valid = static_cast<int>(std::min<std::int64_t>(kNr, shape.n - j0));
  for (std::int64_t t = 0; t < kcNow; ++t) {
    const std::uint16_t* row = b + (k0 + t) * st.bK + j0 * st.bCol;
    std::uint16_t* out = dst + t * kNr;
    if (st.bCol == 1) {
      std::memcpy(out, row, sizeof(std::uint16_t) * static_cast<std::size_t>(valid));
    } else {
      for (int j = 0; j < valid; ++j)
        out[j] = row[j * st.bCol];
    }
    std::fill(out + valid, out + kNr, std::uint16_t(0));
  }
}

void Fp16Gemm::Impl::run(const std::uint16_t* a, const std::uint16_t* b, float* c, bool accumulate) {
  const std::int64_t m = shape.m, n = shape.n, k = shape.k;
  const std::int64_t mBlocks = ceilDiv(m, kMc);
  const std::int64_t panelsPerBlock = kMc / kMr;
  // Small products stay on the calling thread (a team costs more than they do).
  const bool parallel = m * n * std::min(k, kc) >= (std::int64_t{1} << 16);
  for (std::int64_t k0 = 0; k0 < k; k0 += kc) {
    const std::int64_t kcNow = std::min(kc, k - k0);
    const bool loadC = accumulate || k0 > 0;
#pragma omp parallel if (parallel)
    {
#pragma omp for schedule(static)
      for (std::int64_t p = 0; p < nPanels; ++p)
        packB(b, k0, kcNow, p);
#pragma omp for schedule(static)
      for (std::int64_t p = 0; p < mPanels; ++p)
        packA(a, k0, kcNow, p);
      // Tiles: (L2 block of rows) x (B micro-panel); within one, the B
      // micro-panel stays in L1 while the block's A micro-panels pass by.
#pragma omp for collapse(2) schedule(static)
      for (std::int64_t ib = 0; ib < mBlocks; ++ib)
        for (std::int64_t jp = 0; jp < nPanels; ++jp) {
          fp16gemm::MicroTile t;
          t.kc = static_cast<int>(kcNow);
          t.b = packedB.data() + jp * kc * kNr;
          t.k0 = k0;
          t.k = k;
          t.chunk = chunk;
          t.loadC = loadC;
          t.ldc = n;
          t.ldcarry = n;
          const std::int64_t j0 = jp * kNr;
          t.nr = static_cast<int>(std::min<std::int64_t>(kNr, n - j0));
          const std::int64_t pEnd = std::min(mPanels, (ib + 1) * panelsPerBlock);
          for (std::int64_t ip = ib * panelsPerBlock; ip < pEnd; ++ip) {
            const std::int64_t i0 = ip * kMr;
            t.a = packedA.data() + ip * kc * kMr;
            t.mr = static_cast<int>(std::min<std::int64_t>(kMr, m - i0));
            t.c = c + i0 * n + j0;
            t.carry = carry.empty() ? nullptr : carry.data() + i0 * n + j0;
            kernel(t);
          }
        }
    }
  }
}

Fp16Gemm::Fp16Gemm(MatmulShape shape, int promoteEvery, Fp16GemmIsa isa)
    : m_impl(std::make_unique<Impl>()) {
  detail::checkShape("Fp16Gemm", shape);
  checkPromoteEvery("Fp16Gemm", promoteEvery);
  Impl& p = *m_impl;
  p.shape = shape;
  p.promoteEvery = promoteEvery;
  p.isa = isa;
  if (isa == Fp16GemmIsa::Avx512Fp16) {
    if (!fp16GemmHardwareAvailable())
      throw std::runtime_error(numeric::cpuFeatures().avx512fp16
                                   ? "Fp16Gemm: this build has no AVX512_FP16 kernel"
                                   : "Fp16Gemm: this CPU has no AVX512_FP16");
    p.kernel = fp16gemm::avx512Fp16MicroKernel();
  } else {
    p.kernel = &fp16gemm::microKernel<PortableOps>;
  }
  p.chunk = promoteEvery == kFp16NeverPromote ? shape.k : promoteEvery;
  // K blocks hold whole chunks where a chunk fits in one: no carried sums.
  p.kc = p.chunk <= kKcTarget ? p.chunk * (kKcTarget / p.chunk) : kKcTarget;
  p.kc = std::min(p.kc, shape.k);
  p.mPanels = ceilDiv(shape.m, kMr);
  p.nPanels = ceilDiv(shape.n, kNr);
  p.packedA.assign(static_cast<std::size_t>(p.mPanels * p.kc * kMr), 0);
  p.packedB.assign(static_cast<std::size_t>(p.nPanels * p.kc * kNr), 0);
  if (p.chunk > p.kc && shape.k > p.kc)
    p.carry.assign(static_cast<std::size_t>(shape.m * shape.n), 0);
}

Fp16Gemm::~Fp16Gemm() = default;
Fp16Gemm::Fp16Gemm(Fp16Gemm&&) noexcept = default;
Fp16Gemm& Fp16Gemm::operator=(Fp16Gemm&&) noexcept = default;

void Fp16Gemm::execute(const std::uint16_t* a, const std::uint16_t* b, float* c, bool accumulate) {
  m_impl->run(a, b, c, accumulate);
}

const MatmulShape& Fp16Gemm::shape() const {
  return m_impl->shape;
}
int Fp16Gemm::promoteEvery() const {
  return m_impl->promoteEvery;
}
Fp16GemmIsa Fp16Gemm::isa() const {
  return m_impl->isa;
}

std::string Fp16Gemm::label() const {
  const Impl& p = *m_impl;
  std::string s = p.isa == Fp16GemmIsa::Avx512Fp16 ? "FP16 GEMM (AVX512_FP16 vfmadd231ph)"
                                                    : "FP16 GEMM (portable exact emulation)";
  if (p.promoteEvery == kFp16NeverPromote)
    return s + ": pure FP16 accumulation";
  if (p.promoteEvery == 1)
    return s + ": every FP16 product added in FP32 (N_C = 1)";
  return s + ": FP16 accumulation promoted to FP32 every " + std::to_string(p.promoteEvery) +
         " products";
}

} // namespace mantissa::kernels
