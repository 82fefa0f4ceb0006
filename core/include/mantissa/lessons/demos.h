// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The lessons' live demonstrations. Every number here is computed
// on the spot by the numeric core (formatInfo, codec encode/ulp, the fast
// conversions), the loss scaler, the telemetry cast counts, the trainer or
// the matmul bench: nothing is a stored answer. Each demo runs in seconds.
//
// Legend: w = weight, u = update, S = loss scale, g = gradient.

#include <mantissa/numeric/block_quant.h>
#include <mantissa/numeric/format.h>
#include <mantissa/train/run_diff.h>
#include <mantissa/train/shadow.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mantissa::lessons {

// --- Lesson 1: anatomy of a float ------------------------------------------

struct FormatRow {
  std::string name; // "FP16"
  int bits, exponentBits, mantissaBits, bias;
  double maxFinite, minNormal, minSubnormal, epsilon;
};
// One row per explorer format (fp32, tf32, fp16, bf16, fp8-e4m3, fp8-e5m2), from formatInfo.
std::vector<FormatRow> formatTable();

// ULP (gap to the next value) of the format's nearest value to `at`; NaN when
// `at` rounds past the format's max finite (out of range).
double ulpAt(numeric::FormatId format, double at);
struct UlpRow {
  std::string name;
  double at1, at1000, at65504; // ULP at 1, 1000, 65504
};
std::vector<UlpRow> ulpRuler();

// --- Lesson 2: update swamping and its fixes --------------------------------

// w(step) for `steps` applications of w = round(w + u), sampled every `every`
// steps (step 0 included, the last step included). Rounding: nearest even.
struct Trajectory {
  std::string name;          // "FP32", "BF16", "FP16", "BF16 + FP32 master", ...
  std::vector<double> steps; // [samples]
  std::vector<double> w;     // [samples]
};
Trajectory swampTrajectory(numeric::FormatId format, double w0, double u, int steps, int every);

// The demo of the issue: w = 1.0, u = -1e-4, 10,000 steps in FP32, BF16, FP16.
struct SwampingDemo {
  std::vector<Trajectory> runs; // FP32, BF16, FP16
};
SwampingDemo swampingDemo(int steps = 10000, int every = 50);

// An update u is lost on w when |u| < ULP(w)/2, i.e. w/|u| > 2/epsilon:
// returns log2(2/epsilon) (11 for FP16, 8 for BF16), derived from formatInfo.
int swampRatioLog2(numeric::FormatId format);

// Fixes, each a trajectory of the same w = 1, u = -1e-4 problem in BF16:
//   master  FP32 master weight updated in FP32; the BF16 copy = round(master)
//   kahan   BF16 weight plus a BF16 compensation term (Kahan summation)
Trajectory masterCopyFix(double w0, double u, int steps, int every);
Trajectory kahanFix(double w0, double u, int steps, int every);

// 1.0 + n x u in BF16 (the issue: n = 1000, u = 0.001) with nearest-even and
// with stochastic rounding (codec Rounding::Stochastic, mt19937 seeded by `seed`).
struct StochasticDemo {
  Trajectory nearest;
  Trajectory stochastic;
  double exact; // w0 + n*u in double
};
StochasticDemo stochasticRoundingDemo(double w0 = 1.0, double u = 0.001, int n = 1000,
                                      std::uint32_t seed = 1);

// --- Lesson 3: loss scaling --------------------------------------------------

// g and g*S cast to FP16 (nearest even) and g*S back in FP32 divided by S.
struct ScalingExample {
  double g, scale;
  double gInFp16;        // 0 or a subnormal: what FP16 keeps of g
  bool gIsSubnormal;     // FP16's class for g
  double scaledInFp16;   // FP16 value of g*S
  bool scaledIsNormal;   // FP16's class for g*S
  double recovered;      // FP16(g*S) / S computed in FP32
  double relativeError;  // |recovered - g| / g
};
ScalingExample scalingExample(double g = 2e-7, double scale = 1024);

// A real FP16 run's weight gradients (the underflow preset's scaled fp16-mixed
// run, `steps` steps, at the preset's small loss) cast to FP16 under each scale:
// the share of non-zero gradients lost to zero and those overflowing.
struct RecoveryRow {
  double scale;
  double lostToZero; // fraction of non-zero gradients that become zero
  double overflow;   // fraction that overflow
};
struct RecoveryDemo {
  std::uint64_t values = 0;       // gradient values examined
  std::vector<RecoveryRow> rows;  // one per requested scale
  std::vector<double> log2Bins;   // [bins] binade of |g| (floor(log2|g|)), for the histogram
  std::vector<double> binCounts;  // [bins] values in each binade
  double fp16MinSubnormalLog2 = 0; // -24: left of it is lost
};
RecoveryDemo recoveryDemo(const std::vector<double>& scales = {1.0, 8.0, 32768.0}, int steps = 3);

// The dynamic scaler (amp::LossScaler, PyTorch rules, growth every
// `growthInterval` finite steps) driven by hand with a script of overflows.
struct ScalerStep {
  std::int64_t step;
  bool overflow;
  double scaleBefore, scaleAfter;
  bool skipped, backedOff, grew;
};
std::vector<ScalerStep> scalerWalk(const std::vector<bool>& overflows, double initScale = 65536,
                                   int growthInterval = 3);

// --- Lesson 4: BF16 needs no scaler ------------------------------------------

// A short run of the bf16-no-scaler preset (bf16-mixed, small loss).
struct Bf16RunDemo {
  std::vector<double> steps, loss, scale; // [steps]
  std::int64_t skipped = 0;
  bool hasScaler = false;
};
Bf16RunDemo bf16RunDemo(int steps = 30);

// --- Lesson 5: what must stay in FP32 ----------------------------------------

// Sum of n uniform(0,1) values (mt19937 seeded) with a BF16, FP16 and FP32
// accumulator; the double sum is the reference.
struct AccumulationDemo {
  std::vector<Trajectory> runs; // BF16, FP16, FP32 running sums
  double exact = 0;             // double sum of the same values
};
AccumulationDemo accumulationDemo(int n = 10000, std::uint32_t seed = 1, int every = 50);

// Softmax and layer norm of the same seeded vector with every operation
// rounded to FP32, BF16, FP16; error against a double reference.
struct OpError {
  std::string format;
  double softmaxMaxRelError;
  double layerNormMaxAbsError;
};
struct SoftmaxLayerNormDemo {
  int length = 0;
  std::vector<OpError> rows; // FP32, BF16, FP16
};
SoftmaxLayerNormDemo softmaxLayerNormDemo(int length = 256, std::uint32_t seed = 1);

// --- FP8 and microscaling: accumulation precision in a dot product -----------

// Dot products of length K of FP8 E4M3 vectors (uniform(0,1) values rounded
// to E4M3, mt19937 seeded, new vectors per K and trial; every product is
// exact), summed in order by an accumulator rounded after every addition:
// FP32, BF16 and FP16 (nearest even); a limited accumulator with
// `accumulatorBits` significant bits and FP32's exponent range that
// truncates (rounds toward zero), as a fixed-width adder drops the bits it
// shifts out; and the same limited accumulator whose partial sum is added
// into an FP32 total every `promoteEvery` products. Each error is the largest
// |sum - exact| / |exact| over the trials, `exact` the double sum.
struct DotAccumulationRow {
  int k = 0;
  double fp32 = 0, bf16 = 0, fp16 = 0, limited = 0, promoted = 0;
};
struct DotAccumulationDemo {
  int accumulatorBits = 0;
  int promoteEvery = 0;
  int trials = 0;
  std::vector<DotAccumulationRow> rows; // K = 16, 32, ..., maxK
};
DotAccumulationDemo dotAccumulationDemo(int accumulatorBits = 14, int promoteEvery = 128, int trials = 16,
                                        std::uint32_t seed = 1, int maxK = 16384);

// --- FP8 and microscaling: every block scheme on a run's real tensors --------

// A short fp32 MLP run on MNIST (784-128-10, batch 64, `steps` steps, seed 1);
// then its first layer's weights W and weight gradients dW (the last step's),
// each transposed to [outputs, inputs] so that blocks run along the inputs (the
// product's K), quantized with every block scheme (numeric::whatIf, MX scale
// rounding floor, fp8-block's 128 x 128 blocks), and the gradients again
// with every MX scale rounding for mxfp8-e4m3 and mxfp4.
struct Fp8SchemeRow {
  std::string scheme; // "mxfp4"
  numeric::QuantStats weights, gradients;
};
struct Fp8RoundingRow {
  std::string scheme, rounding; // "mxfp4", "floor"
  numeric::QuantStats gradients;
};
struct Fp8SchemesDemo {
  int steps = 0;
  std::size_t rows = 0, cols = 0;       // the matrix quantized: [outputs, inputs]
  std::vector<Fp8SchemeRow> schemes;    // numeric::allSchemes() order
  std::vector<Fp8RoundingRow> rounding; // mxfp8-e4m3 then mxfp4, each floor, ceil, even, rceil
};
Fp8SchemesDemo fp8SchemesDemo(int steps = 40);

// --- FP8 and microscaling: three 8-bit formats on the same gradients ---------

// The same run and layer as fp8SchemesDemo: its weight gradients dW (the last
// step's, FP32) rounded to fp8-e4m3 (bias 7, max 448), fp8-e4m3fnuz (bias 8,
// max 240: the bias moves the range one binade down) and fp8-e3m4 (bias 3,
// max 15.5: a mantissa bit more, four binades less), each by the training
// element rounding (amp::roundElement: nearest even, saturating), twice:
//   cast    as is, scale 1: what the format's own range keeps;
//   scaled  per tensor as fp8-current: s = max / amax (FP32), q = E(g s) x (1/s).
// Per variant: SQNR 10 log10(sum g^2 / sum (g - q)^2) (in double), the
// fraction of non-zero g whose q is 0, and of elements E that are subnormal.
struct Fp8VariantStats {
  float scale = 1.0f;
  double sqnrDb = 0, lostToZero = 0, subnormal = 0;
};
struct Fp8VariantRow {
  std::string format;                    // "fp8-e4m3fnuz"
  double maxFinite = 0, minSubnormal = 0; // from the format
  double binades = 0;                    // log2(maxFinite / minSubnormal)
  Fp8VariantStats cast, scaled;
};
struct Fp8VariantsDemo {
  int steps = 0;
  std::vector<float> gradients;   // dW as [outputs, inputs], the values every row rounds
  std::vector<Fp8VariantRow> rows; // fp8-e4m3, fp8-e4m3fnuz, fp8-e3m4
};
Fp8VariantsDemo fp8VariantsDemo(int steps = 40);

// --- Lesson 6: speed ----------------------------------------------------------

struct SpeedRow {
  std::string dtype;          // "f32", "bf16", "f16"
  std::int64_t size;          // square M = N = K
  double gflops, cv;
  bool emulated;
  std::string implementation;
};
std::vector<SpeedRow> speedDemo(std::int64_t size = 256);

// --- Lesson 7: attention and the FP32 islands ---------------------------------

// One small GPT (2 layers, 4 heads, embd 64, ctx 32, batch 4; parameters
// U(-0.5, 0.5) so that attention scores reach the tens) on one fixed Tiny
// Shakespeare batch: its loss under FP32, then under policies that move one
// op class to 16 bits (amp::parsePolicy strings), each a forward pass.
struct IslandRow {
  std::string change;    // "softmax in FP16, no max subtraction"
  std::string label;     // the same, short enough for a bar's label: "no max"
  std::string policy;    // "fp32,softmax=fp16,softmax-max=off"
  double loss = 0;       // may be inf or NaN
  double deviation = 0;  // |loss - FP32 loss|; NaN when the loss is not finite
  std::string nonFinite; // first op with a non-finite value ("layer 0 attention softmax"), or ""
};
struct IslandsDemo {
  double fp32Loss = 0;
  std::vector<IslandRow> rows;
};
IslandsDemo fp32IslandsDemo();

// --- Lesson 9: where precision matters ----------------------------------------

// A tiny bf16-mixed GPT (1 layer, 2 heads, embd 32, ctx 32, batch 4, AdamW,
// Tiny Shakespeare, seed 1) trained `steps` steps; the last one runs the
// shadow pass against an FP32 copy (Session::requestShadow): every tensor of
// its forward and backward pass against the reference's.
struct ErrorMapDemo {
  std::string model;          // "gpt:layers=1,heads=2,embd=32,ctx=32"
  std::string recipe;         // "bf16-mixed"
  int steps = 0;
  std::vector<double> loss;   // [steps]
  train::ShadowFrame frame;   // the last step's
  std::string sentence;       // describeShadowFrame(frame)
};
ErrorMapDemo errorMapDemo(int steps = 6);

// Two short runs of the underflow preset's setup (MNIST, MLP 784-256-256-10,
// the loss 2^-14 x the mean cross-entropy, seed 1), fp16-mixed with its
// scaler and fp16-mixed-noscale, telemetry at every step; both logs built as
// the live run writes them (run_log_rows.h) and compared by train::diffRuns.
struct ScalerDiffDemo {
  int steps = 0;
  double initialScale = 0;            // the scaled run's loss scale at step 0
  std::vector<double> stepX;          // [steps]
  std::vector<double> lossScaled, lossUnscaled; // [steps]
  train::RunDiff diff;                // diff.rows.front(): where the runs part
  // At the first difference's step, over every weight-gradient tensor (the
  // values the optimizer reads): values that are zero, and all values.
  std::uint64_t zerosScaled = 0, zerosUnscaled = 0, gradValues = 0;
};
ScalerDiffDemo scalerDiffDemo(int steps = 20);

} // namespace mantissa::lessons
