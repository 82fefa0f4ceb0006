// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/kernels/accumulation.h>
#include <mantissa/kernels/elementwise.h>
#include <mantissa/model/gpt.h>
#include <mantissa/nn/activation.h>
#include <mantissa/nn/embedding.h>
#include <mantissa/nn/norm.h>
#include <mantissa/nn/precision.h>
#include <mantissa/nn/residual.h>
#include <mantissa/nn/scaled_linear.h>
#include <mantissa/nn/softmax_xent.h>
#include <mantissa/tensor/run_state.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <initializer_list>
#include <random>
#include <stdexcept>

namespace mantissa::model {

using amp::OpClass;
using kernels::MatmulShape;
using kernels::Trans;

namespace {

Tensor f32(std::int64_t rows, std::int64_t cols) {
  return Tensor(DType::F32, rows, cols);
}

// Adds the scope's wall time (ms) to a slot.
class Timer {
public:
  explicit Timer(double& slot) : m_slot(slot), m_start(std::chrono::steady_clock::now()) {}
  ~Timer() {
    m_slot += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_start)
                  .count();
  }
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

private:
  double& m_slot;
  std::chrono::steady_clock::time_point m_start;
};

// A linear layer's three products, either through oneDNN (nn::Linear) or,
// with a 16-bit accumulator, through the emulated kernel on FP32 values that
// the caller has rounded to the input dtype.
struct LinearProducts {
  LinearProducts(int rowCount, int inCount, int outCount, DType inputs, const amp::Policy& policy)
      : rows(rowCount), in(inCount), out(outCount), linear(rowCount, inCount, outCount, inputs),
        accumulator(policy[OpClass::MatmulAccumulation]),
        promoteEvery(policy.promoteEvery) {}

  bool emulated() const { return accumulator != DType::F32; }
  // The products take the FP32 operands and convert them themselves (a
  // scaled layer, or a layer whose own policy row sets its input precision).
  bool ownOperands() const { return scaled.has_value() || roundTo.has_value(); }
  // A per-layer input precision: the FP32 operands rounded into scratch.
  void roundInputs(DType dtype) {
    roundTo = dtype;
    xr = f32(rows, in);
    wr = f32(in, out);
    dyr = f32(rows, out);
  }
  const Tensor& rounded(const Tensor& t, Tensor& scratch) const {
    if (*roundTo == DType::F32)
      return t;
    std::copy(t.f32().begin(), t.f32().end(), scratch.f32().begin());
    nn::roundSpan(*roundTo, scratch.f32());
    return scratch;
  }
  void forward(const Tensor& x, const Tensor& w, Tensor& y) {
    Timer t(*matmulMs);
    if (scaled) {
      scaled->forward(x, w, y);
      return;
    }
    const Tensor& xi = roundTo ? rounded(x, xr) : x;
    const Tensor& wi = roundTo ? rounded(w, wr) : w;
    if (emulated())
      kernels::matmulEmulatedAccumulation({rows, out, in}, xi.f32(), wi.f32(), y.f32(), accumulator,
                                          promoteEvery);
    else
      linear.forwardMatmul(xi, wi, y);
  }
  // After backwardWeights (whose dY, rounded, it reuses) with the same dY.
  void backwardData(const Tensor& dy, const Tensor& w, Tensor& dx) {
    Timer t(*matmulMs);
    if (scaled) {
      scaled->backwardData(dy, w, dx);
      return;
    }
    const Tensor& dyi = roundTo && *roundTo != DType::F32 ? dyr : dy;
    const Tensor& wi = roundTo ? rounded(w, wr) : w;
    if (emulated())
      kernels::matmulEmulatedAccumulation({rows, in, out, Trans::No, Trans::Yes}, dyi.f32(), wi.f32(),
                                          dx.f32(), accumulator, promoteEvery);
    else
      linear.backwardData(dyi, wi, dx);
  }
  void backwardWeights(const Tensor& x, const Tensor& dy, Tensor& dw) {
    Timer t(*matmulMs);
    if (scaled) {
      scaled->backwardWeights(x, dy, dw);
      return;
    }
    const Tensor& xi = roundTo ? rounded(x, xr) : x;
    const Tensor& dyi = roundTo ? rounded(dy, dyr) : dy;
    if (emulated())
      kernels::matmulEmulatedAccumulation({in, out, rows, Trans::Yes, Trans::No}, xi.f32(),
                                          dyi.f32(), dw.f32(), accumulator, promoteEvery);
    else
      linear.backwardWeights(xi, dyi, dw);
  }

  int rows, in, out;
  nn::Linear linear;
  DType accumulator;
  int promoteEvery;
  double* matmulMs = nullptr; // where product time is added
  // FP8 / microscaling (policy.scaling): operands given in FP32, quantized here.
  std::optional<nn::ScaledLinear> scaled;
  // A per-layer input precision (Policy::linearInputs): FP32 operands rounded here.
  std::optional<DType> roundTo;
  Tensor xr, wr, dyr;
};

// The dtype a linear layer's nn::Linear takes: FP32 when the layer converts its own operands.
DType linearType(const amp::Policy& p, int block, std::string_view name, DType lowType) {
  return p.linearInputs(block, name).own ? DType::F32 : lowType;
}

} // namespace

std::string_view gptOpName(GptOp op) {
  static constexpr std::array<std::string_view, kGptOpCount> kNames{
      "embedding", "layernorm", "qkv linear", "attention", "attn projection", "residual",
      "fc linear", "gelu", "fc projection", "head", "loss", "casts"};
  return kNames[static_cast<std::size_t>(op)];
}

double GptTimes::total() const {
  double t = 0;
  for (double v : ms)
    t += v;
  return t;
}

struct Gpt::Block {
  // Parameter indices into m_params.
  std::size_t ln1w, ln1b, qkvw, qkvb, apw, apb, ln2w, ln2b, fcw, fcb, fpw, fpb;
  Tensor x;                 // [N, C] block input (residual stream)
  Tensor ln1, ln1Low;       // [N, C]
  Tensor ln1Mean, ln1Rstd;  // [1, N]
  Tensor qkv;               // [N, 3C]
  Tensor atty, attyLow;     // [N, C]
  Tensor attproj;           // [N, C]
  Tensor r;                 // [N, C] x + attention branch
  Tensor ln2, ln2Low;       // [N, C]
  Tensor ln2Mean, ln2Rstd;  // [1, N]
  Tensor fch;               // [N, 4C] pre-GELU
  Tensor gelu, geluLow;     // [N, 4C]
  Tensor fcproj;            // [N, C]
  LinearProducts qkvOp, apOp, fcOp, fpOp;
  nn::CausalSelfAttention attention;

  // shared: the attention scratch of the blocks before (nullptr for the first).
  Block(int l, int N, int B, int T, int C, int H, DType lowType, DType inputs, const amp::Policy& p,
        std::shared_ptr<nn::AttentionScratch> shared)
      : qkvOp(N, C, 3 * C, linearType(p, l, "qkv", lowType), p),
        apOp(N, C, C, linearType(p, l, "attproj", lowType), p),
        fcOp(N, C, 4 * C, linearType(p, l, "fc", lowType), p),
        fpOp(N, 4 * C, C, linearType(p, l, "fcproj", lowType), p),
        attention(B, T, H, C, inputs, {p[OpClass::MatmulAccumulation], p.promoteEvery},
                  std::move(shared)) {}
};

struct Gpt::Impl {
  DType inputs;   // matmul input precision
  DType lowType;  // storage of the cast copies: inputs, or F32 holding rounded values
  bool lowNeeded; // inputs != F32
  // Every linear layer casts its operands (16-bit inputs, none scaled or
  // rounding its own): backward then reads the cast copies, not a block's
  // FP32 LayerNorm outputs, qkv, attention output, projections or GELU
  // output. Those can be shared by the blocks (the buffers below) unless
  // something reads them after forward: telemetry, the shadow pass.
  bool lean = false;
  bool kept = true;  // they are per block (Block::ln1, qkv, ...)
  Tensor sharedC;    // [N, C] ln1, atty, attproj, ln2, fcproj of the running block; datty
  Tensor shared3C;   // [N, 3C] qkv; dqkv
  Tensor shared4C;   // [N, 4C] gelu; dgelu
  // Likewise the casts of ln1, ln2 and gelu, which backward then computes
  // again from the kept x, r and fch (the same values).
  Tensor lowC;       // [N, C] input dtype
  Tensor low4C;      // [N, 4C] input dtype
  std::vector<Block> blocks;
  std::size_t wte, wpe, lnfw, lnfb;
  Tensor encoded;            // [N, C] x0
  Tensor xL;                 // [N, C] output of the last block
  Tensor lnf, lnfLow;        // [N, C]
  Tensor lnfMean, lnfRstd;   // [1, N]
  nn::TiedHead head;
  Tensor headScratch;        // [V, C] emulated accumulation: dwte product before adding
  // Backward scratch.
  Tensor dres;               // [N, C] gradient of the residual stream
  Tensor dln;                // [N, C]
  Tensor datty;              // [N, C]  (empty when sharedC serves)
  Tensor dqkv;               // [N, 3C] (empty when shared3C serves)
  Tensor dfch;               // [N, 4C]
  Tensor dgelu;              // [N, 4C] (empty when shared4C serves)
  Tensor dlogits;            // [N, V]
  Tensor dLowC, dLow3C, dLow4C, dLowV; // dY cast for the products
  std::vector<float> xentLoss; // [N] 16-bit loss: per-row terms

  Impl(int N, int C, int V, DType inputDtype, DType lowDtype)
      : inputs(inputDtype), lowType(lowDtype), lowNeeded(inputDtype != DType::F32),
        head(N, C, V, lowDtype) {}
};

std::string GptSpec::toString() const {
  return "gpt:layers=" + std::to_string(layers) + ",heads=" + std::to_string(heads) +
         ",embd=" + std::to_string(embd) + ",ctx=" + std::to_string(ctx);
}

Gpt::Gpt(const GptSpec& spec, int vocabulary, int batch, const amp::Policy& policy)
    : m_spec(spec), m_vocab(vocabulary), m_batch(batch), m_policy(policy) {
  const int B = batch, T = spec.ctx, C = spec.embd, H = spec.heads, L = spec.layers;
  const int V = vocabulary, N = B * T;
  if (B < 1 || T < 1 || C < 1 || H < 1 || L < 1 || V < 2 || C % H != 0)
    throw std::invalid_argument("Gpt: invalid shape " + spec.toString() + ", vocabulary " +
                                std::to_string(V) + ", batch " + std::to_string(B));
  if (policy.blocksNamed() > L)
    throw std::invalid_argument("Gpt: the policy names block h" +
                                std::to_string(policy.blocksNamed() - 1) + " but " +
                                spec.toString() + " has blocks h0 to h" + std::to_string(L - 1));
  const DType inputs = policy[OpClass::MatmulInputs];
  const bool acc16 = policy[OpClass::MatmulAccumulation] != DType::F32;
  const DType lowType = acc16 ? DType::F32 : inputs;
  m_impl = std::make_unique<Impl>(N, C, V, inputs, lowType);
  Impl& m = *m_impl;

  auto addParam = [&](std::string name, std::int64_t rows, std::int64_t cols, bool matrix) {
    GptParam p{std::move(name), f32(rows, cols), f32(rows, cols), Tensor(), matrix};
    if (m.lowNeeded && matrix)
      p.low = Tensor(lowType, rows, cols);
    m_params.push_back(std::move(p));
    return m_params.size() - 1;
  };
  auto low = [&](std::int64_t rows, std::int64_t cols) {
    return m.lowNeeded ? Tensor(lowType, rows, cols) : Tensor();
  };
  m.wte = addParam("wte", V, C, true);
  m.wpe = addParam("wpe", T, C, true);
  m.blocks.reserve(static_cast<std::size_t>(L));
  for (int l = 0; l < L; ++l) {
    m.blocks.emplace_back(l, N, B, T, C, H, lowType, inputs, policy,
                          l == 0 ? nullptr : m.blocks.front().attention.scratch());
    Block& b = m.blocks.back();
    const std::string p = "h" + std::to_string(l) + ".";
    b.ln1w = addParam(p + "ln1.w", 1, C, false);
    b.ln1b = addParam(p + "ln1.b", 1, C, false);
    b.qkvw = addParam(p + "qkv.w", C, 3 * C, true);
    b.qkvb = addParam(p + "qkv.b", 1, 3 * C, false);
    b.apw = addParam(p + "attproj.w", C, C, true);
    b.apb = addParam(p + "attproj.b", 1, C, false);
    b.ln2w = addParam(p + "ln2.w", 1, C, false);
    b.ln2b = addParam(p + "ln2.b", 1, C, false);
    b.fcw = addParam(p + "fc.w", C, 4 * C, true);
    b.fcb = addParam(p + "fc.b", 1, 4 * C, false);
    b.fpw = addParam(p + "fcproj.w", 4 * C, C, true);
    b.fpb = addParam(p + "fcproj.b", 1, C, false);
    b.x = f32(N, C);
    b.ln1Mean = f32(1, N);
    b.ln1Rstd = f32(1, N);
    b.attyLow = low(N, C);
    b.r = f32(N, C);
    b.ln2Mean = f32(1, N);
    b.ln2Rstd = f32(1, N);
    b.fch = f32(N, 4 * C);
    b.attention.setSoftmaxPrecision({policy.softmaxOf(l), policy.softmaxMax});
    b.attention.setMatmulClock(&m_times.matmulMs);
    for (LinearProducts* op : {&b.qkvOp, &b.apOp, &b.fcOp, &b.fpOp})
      op->matmulMs = &m_times.matmulMs;
    {
      const std::pair<LinearProducts*, const char*> ops[] = {
          {&b.qkvOp, "qkv"}, {&b.apOp, "attproj"}, {&b.fcOp, "fc"}, {&b.fpOp, "fcproj"}};
      std::uint64_t site = std::uint64_t(l) * 4;
      for (const auto& [op, name] : ops) {
        const amp::LinearInputs in = policy.linearInputs(l, name);
        if (in.scaling.scheme != amp::MatmulScaling::None)
          op->scaled.emplace(p + name, N, op->in, op->out, in.scaling, site);
        else if (in.own)
          op->roundInputs(in.dtype);
        ++site;
      }
    }
  }
  m.lean = m.lowNeeded;
  for (const Block& b : m.blocks)
    for (const LinearProducts* op : {&b.qkvOp, &b.apOp, &b.fcOp, &b.fpOp})
      m.lean = m.lean && !op->ownOperands();
  // Shared until something asks to keep them (keepForwardTensors).
  allocateForwardTensors(!m.lean);
  m.lnfw = addParam("lnf.w", 1, C, false);
  m.lnfb = addParam("lnf.b", 1, C, false);
  m.encoded = f32(N, C);
  m.xL = f32(N, C);
  m.lnf = f32(N, C);
  m.lnfLow = low(N, C);
  m.lnfMean = f32(1, N);
  m.lnfRstd = f32(1, N);
  if (acc16)
    m.headScratch = f32(V, C);
  m.dres = f32(N, C);
  m.dln = f32(N, C);
  m.dfch = f32(N, 4 * C);
  m.dlogits = f32(N, V);
  m.dLowC = low(N, C);
  m.dLow3C = low(N, 3 * C);
  m.dLow4C = low(N, 4 * C);
  m.dLowV = low(N, V);
  m.xentLoss.resize(static_cast<std::size_t>(N));
  m_tokens.assign(static_cast<std::size_t>(N), 0);
  m_targets.assign(static_cast<std::size_t>(N), 0);
  m_logits = f32(N, V);
  m_probs = f32(N, V);
}

Gpt::~Gpt() = default;

void Gpt::allocateForwardTensors(bool perBlock) {
  Impl& m = *m_impl;
  const std::int64_t N = std::int64_t(m_batch) * m_spec.ctx, C = m_spec.embd;
  for (Block& b : m.blocks)
    for (auto [t, cols] : {std::pair{&b.ln1, C}, {&b.qkv, 3 * C}, {&b.atty, C}, {&b.attproj, C},
                           {&b.ln2, C}, {&b.gelu, 4 * C}, {&b.fcproj, C}})
      *t = perBlock ? f32(N, cols) : Tensor();
  const auto low = [&](std::int64_t cols) {
    return perBlock && m.lowNeeded ? Tensor(m.lowType, N, cols) : Tensor();
  };
  for (Block& b : m.blocks) {
    b.ln1Low = low(C);
    b.ln2Low = low(C);
    b.geluLow = low(4 * C);
  }
  m.lowC = perBlock ? Tensor() : Tensor(m.lowType, N, C);
  m.low4C = perBlock ? Tensor() : Tensor(m.lowType, N, 4 * C);
  m.sharedC = perBlock ? Tensor() : f32(N, C);
  m.shared3C = perBlock ? Tensor() : f32(N, 3 * C);
  m.shared4C = perBlock ? Tensor() : f32(N, 4 * C);
  // Backward's gradients of the same shapes: in the shared buffers, idle
  // by then, when there are some.
  m.datty = perBlock ? f32(N, C) : Tensor();
  m.dqkv = perBlock ? f32(N, 3 * C) : Tensor();
  m.dgelu = perBlock ? f32(N, 4 * C) : Tensor();
  m.kept = perBlock;
}

void Gpt::keepForwardTensors(bool keep) {
  // Once allocated per block they stay (no allocation on later steps).
  if (keep && !m_impl->kept)
    allocateForwardTensors(true);
}

bool Gpt::forwardTensorsKept() const { return m_impl->kept; }

void Gpt::visitState(RunStateVisitor& v) {
  for (Block& b : m_impl->blocks)
    for (LinearProducts* op : {&b.qkvOp, &b.apOp, &b.fcOp, &b.fpOp})
      if (op->scaled)
        op->scaled->visitState(v);
}

void Gpt::initialize(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (Block& b : m_impl->blocks)
    for (LinearProducts* op : {&b.qkvOp, &b.apOp, &b.fcOp, &b.fpOp})
      if (op->scaled)
        op->scaled->setSeed(seed);
  const float residualStd = 0.02f / std::sqrt(2.0f * float(m_spec.layers));
  for (GptParam& p : m_params) {
    auto v = p.value.f32();
    const bool bias = p.name.ends_with(".b");
    const bool normWeight = p.name.ends_with("ln1.w") || p.name.ends_with("ln2.w") ||
                            p.name == "lnf.w";
    if (bias) {
      std::fill(v.begin(), v.end(), 0.0f);
    } else if (normWeight) {
      std::fill(v.begin(), v.end(), 1.0f);
    } else {
      const bool residual = p.name.ends_with("attproj.w") || p.name.ends_with("fcproj.w");
      std::normal_distribution<float> dist(0.0f, residual ? residualStd : 0.02f);
      for (float& x : v)
        x = dist(rng);
    }
  }
  refreshWorkingWeights();
}

void Gpt::refreshWorkingWeights() {
  Impl& m = *m_impl;
  if (!m.lowNeeded)
    return;
  for (GptParam& p : m_params) {
    if (p.low.size() == 0)
      continue;
    if (p.low.dtype() == DType::F32) {
      std::copy(p.value.f32().begin(), p.value.f32().end(), p.low.f32().begin());
      nn::roundSpan(m.inputs, p.low.f32());
    } else {
      p.low.convertFrom(p.value);
    }
  }
}

GptParam& Gpt::param(std::string_view name) {
  for (GptParam& p : m_params)
    if (p.name == name)
      return p;
  throw std::invalid_argument("Gpt: no parameter named " + std::string(name));
}

std::int64_t Gpt::parameterCount() const {
  std::int64_t n = 0;
  for (const GptParam& p : m_params)
    n += p.value.size();
  return n;
}

const Tensor& Gpt::attentionProbs(int layer) const {
  return m_impl->blocks.at(static_cast<std::size_t>(layer)).attention.probs();
}

std::string Gpt::matmulImplementation() const {
  return m_impl->blocks.front().qkvOp.emulated()
             ? std::string("emulated 16-bit accumulation (plain loops)")
             : m_impl->blocks.front().qkvOp.linear.implementation();
}

namespace {

// x cast (or rounded) into its low twin for a product.
void castInto(const Tensor& x, Tensor& low, DType inputs) {
  if (low.dtype() == DType::F32) {
    std::copy(x.f32().begin(), x.f32().end(), low.f32().begin());
    nn::roundSpan(inputs, low.f32());
  } else {
    low.convertFrom(x);
  }
}

// Cross-entropy with every intermediate rounded to `dtype`, sums rounded
// after each addition; probabilities rounded likewise.
double xentRounded(DType dtype, std::span<const float> logits, std::span<const std::int32_t> y,
                   int N, int V, std::span<float> probs) {
  float total = 0.0f;
  for (int n = 0; n < N; ++n) {
    const float* row = logits.data() + std::size_t(n) * V;
    float* p = probs.data() + std::size_t(n) * V;
    float maxValue = nn::roundScalar(dtype, row[0]);
    for (int v = 1; v < V; ++v)
      maxValue = std::fmax(maxValue, nn::roundScalar(dtype, row[v]));
    float sum = 0.0f;
    for (int v = 0; v < V; ++v) {
      p[v] = nn::roundScalar(dtype, std::exp(nn::roundScalar(dtype, nn::roundScalar(dtype, row[v]) - maxValue)));
      sum = nn::roundScalar(dtype, sum + p[v]);
    }
    for (int v = 0; v < V; ++v)
      p[v] = nn::roundScalar(dtype, p[v] / sum);
    const float label = nn::roundScalar(dtype, row[y[std::size_t(n)]]);
    const float rowLoss =
        nn::roundScalar(dtype, nn::roundScalar(dtype, std::log(sum)) - (label - maxValue));
    total = nn::roundScalar(dtype, total + rowLoss);
  }
  return double(nn::roundScalar(dtype, total / float(N)));
}

} // namespace

double Gpt::forward() {
  Impl& m = *m_impl;
  const int T = m_spec.ctx, C = m_spec.embd, V = m_vocab, N = m_batch * T;
  const amp::Policy& p = m_policy;
  const DType act = p[OpClass::Activations];
  const bool low = m.lowNeeded;
  m_times = GptTimes{};
  auto ms = [&](GptOp op) -> double& { return m_times.ms[static_cast<std::size_t>(op)]; };
  auto P = [&](std::size_t i) -> GptParam& { return m_params[i]; };
  auto W = [&](std::size_t i) -> const Tensor& { return low ? m_params[i].low : m_params[i].value; };
  // Per block, or shared by the blocks (Impl::lean).
  const bool kept = m.kept;
  auto C1 = [&](Tensor& t) -> Tensor& { return kept ? t : m.sharedC; };
  // Linear: cast the input, product, bias, round the output to the activation precision.
  auto linear = [&](GptOp op, LinearProducts& products, const Tensor& x, Tensor& xLow,
                    std::size_t w, std::size_t b, Tensor& y) {
    const bool cast = low && !products.ownOperands(); // these take FP32 operands
    if (cast) {
      Timer t(ms(GptOp::Casts));
      castInto(x, xLow, m.inputs);
    }
    Timer t(ms(op));
    products.forward(cast ? xLow : x, cast ? W(w) : P(w).value, y);
    kernels::addBias(y, P(b).value, kernels::kStepParallelMinValues);
    nn::roundSpan(act, y.f32());
  };
  auto layerNorm = [&](Tensor& out, Tensor& mean, Tensor& rstd, const Tensor& in, std::size_t w,
                       std::size_t b) {
    Timer t(ms(GptOp::LayerNorm));
    nn::layerNormForward(out.f32(), mean.f32(), rstd.f32(), in.f32(), P(w).value.f32(),
                         P(b).value.f32(), N, C, p[OpClass::NormStatistics]);
    nn::roundSpan(act, out.f32());
  };

  {
    Timer t(ms(GptOp::Embedding));
    nn::embeddingForward(m.encoded.f32(), m_tokens, P(m.wte).value.f32(), P(m.wpe).value.f32(), T, C);
    nn::roundSpan(p[OpClass::Embedding], m.encoded.f32());
  }
  const Tensor* x = &m.encoded;
  for (Block& b : m.blocks) {
    Tensor& ln1 = C1(b.ln1);
    Tensor& qkv = kept ? b.qkv : m.shared3C;
    Tensor& atty = C1(b.atty);
    Tensor& attproj = C1(b.attproj);
    Tensor& ln2 = C1(b.ln2);
    Tensor& gelu = kept ? b.gelu : m.shared4C;
    Tensor& fcproj = C1(b.fcproj);
    Tensor& ln1Low = kept ? b.ln1Low : m.lowC;
    Tensor& ln2Low = kept ? b.ln2Low : m.lowC;
    Tensor& geluLow = kept ? b.geluLow : m.low4C;
    {
      Timer t(ms(GptOp::Residual));
      std::copy(x->f32().begin(), x->f32().end(), b.x.f32().begin());
    }
    layerNorm(ln1, b.ln1Mean, b.ln1Rstd, b.x, b.ln1w, b.ln1b);
    linear(GptOp::QkvLinear, b.qkvOp, ln1, ln1Low, b.qkvw, b.qkvb, qkv);
    {
      Timer t(ms(GptOp::Attention));
      b.attention.forward(qkv.f32(), atty.f32());
      nn::roundSpan(act, atty.f32());
    }
    linear(GptOp::AttnProjection, b.apOp, atty, b.attyLow, b.apw, b.apb, attproj);
    {
      Timer t(ms(GptOp::Residual));
      nn::residualForward(b.r.f32(), b.x.f32(), attproj.f32(), p[OpClass::Residual]);
    }
    layerNorm(ln2, b.ln2Mean, b.ln2Rstd, b.r, b.ln2w, b.ln2b);
    linear(GptOp::FcLinear, b.fcOp, ln2, ln2Low, b.fcw, b.fcb, b.fch);
    {
      Timer t(ms(GptOp::Gelu));
      nn::activationForward(nn::Activation::Gelu, b.fch.f32(), gelu.f32());
      nn::roundSpan(p[OpClass::Gelu], gelu.f32());
    }
    linear(GptOp::FcProjection, b.fpOp, gelu, geluLow, b.fpw, b.fpb, fcproj);
    {
      // The next block's input: written into m.xL, copied into the next block's x.
      Timer t(ms(GptOp::Residual));
      nn::residualForward(m.xL.f32(), b.r.f32(), fcproj.f32(), p[OpClass::Residual]);
    }
    x = &m.xL;
  }
  layerNorm(m.lnf, m.lnfMean, m.lnfRstd, m.xL, m.lnfw, m.lnfb);
  const Tensor& wte = W(m.wte);
  if (low) {
    Timer t(ms(GptOp::Casts));
    castInto(m.lnf, m.lnfLow, m.inputs);
  }
  {
    Timer t(ms(GptOp::Head));
    Timer mm(m_times.matmulMs);
    if (m.blocks.front().qkvOp.emulated())
      kernels::matmulEmulatedAccumulation({N, V, C, Trans::No, Trans::Yes},
                                          (low ? m.lnfLow : m.lnf).f32(), wte.f32(),
                                          m_logits.f32(), p[OpClass::MatmulAccumulation],
                                          p.promoteEvery);
    else
      m.head.forward(low ? m.lnfLow : m.lnf, wte, m_logits);
  }
  Timer t(ms(GptOp::Loss));
  const DType lossType = p[OpClass::Loss];
  if (lossType == DType::F32)
    return nn::softmaxXentForward(m_logits.f32(), m_targets, N, V, m_probs.f32()).loss;
  return xentRounded(lossType, m_logits.f32(), m_targets, N, V, m_probs.f32());
}

void Gpt::backward(float scale) {
  Impl& m = *m_impl;
  const int T = m_spec.ctx, C = m_spec.embd, V = m_vocab, N = m_batch * T;
  const amp::Policy& p = m_policy;
  const DType grad = p[OpClass::Gradients];
  const bool low = m.lowNeeded;
  const bool acc16 = m.blocks.front().qkvOp.emulated();
  auto ms = [&](GptOp op) -> double& { return m_times.ms[static_cast<std::size_t>(op)]; };
  auto P = [&](std::size_t i) -> GptParam& { return m_params[i]; };
  auto W = [&](std::size_t i) -> const Tensor& { return low ? m_params[i].low : m_params[i].value; };

  {
    Timer t(ms(GptOp::Residual));
    for (GptParam& q : m_params)
      std::fill(q.grad.f32().begin(), q.grad.f32().end(), 0.0f);
  }
  // Loss and tied head.
  {
    Timer t(ms(GptOp::Loss));
    nn::softmaxXentBackward(m_probs.f32(), m_targets, N, V, scale, m.dlogits.f32());
    nn::roundSpan(grad, m.dlogits.f32());
  }
  if (low) {
    Timer t(ms(GptOp::Casts));
    castInto(m.dlogits, m.dLowV, m.inputs);
  }
  const Tensor& dlogits = low ? m.dLowV : m.dlogits;
  const Tensor& lnfIn = low ? m.lnfLow : m.lnf;
  {
    Timer t(ms(GptOp::Head));
    Timer mm(m_times.matmulMs);
    if (acc16) {
      const DType a = p[OpClass::MatmulAccumulation];
      kernels::matmulEmulatedAccumulation({N, C, V}, dlogits.f32(), W(m.wte).f32(), m.dln.f32(), a,
                                          p.promoteEvery);
      kernels::matmulEmulatedAccumulation({V, C, N, Trans::Yes, Trans::No}, dlogits.f32(),
                                          lnfIn.f32(), m.headScratch.f32(), a, p.promoteEvery);
      auto dw = P(m.wte).grad.f32();
      const auto add = m.headScratch.f32();
      for (std::size_t i = 0; i < dw.size(); ++i)
        dw[i] += add[i];
    } else {
      m.head.backwardData(dlogits, W(m.wte), m.dln);
      m.head.backwardWeights(dlogits, lnfIn, P(m.wte).grad);
    }
    nn::roundSpan(grad, m.dln.f32());
  }
  auto layerNormBackward = [&](const Tensor& in, std::size_t w, std::size_t b, const Tensor& mean,
                               const Tensor& rstd) {
    Timer t(ms(GptOp::LayerNorm));
    nn::layerNormBackward(m.dres.f32(), P(w).grad.f32(), P(b).grad.f32(), m.dln.f32(), in.f32(),
                          P(w).value.f32(), mean.f32(), rstd.f32(), N, C);
    nn::roundSpan(grad, m.dres.f32());
  };
  std::fill(m.dres.f32().begin(), m.dres.f32().end(), 0.0f);
  layerNormBackward(m.xL, m.lnfw, m.lnfb, m.lnfMean, m.lnfRstd);

  // A linear layer's backward: dW = x^T dY, db = sum dY, dX = dY W^T.
  auto linearBackward = [&](GptOp op, LinearProducts& products, const Tensor& dy, Tensor& dyLow,
                            const Tensor& x, const Tensor& xLow, std::size_t w, std::size_t b,
                            Tensor& dx) {
    const bool cast = low && !products.ownOperands(); // these take FP32 operands
    if (cast) {
      Timer t(ms(GptOp::Casts));
      castInto(dy, dyLow, m.inputs);
    }
    Timer t(ms(op));
    const Tensor& dyIn = cast ? dyLow : dy;
    products.backwardWeights(cast ? xLow : x, dyIn, P(w).grad);
    kernels::biasGradient(dy, P(b).grad, false, kernels::kStepParallelMinValues);
    products.backwardData(dyIn, cast ? W(w) : P(w).value, dx);
    nn::roundSpan(grad, P(w).grad.f32());
    nn::roundSpan(grad, P(b).grad.f32());
    nn::roundSpan(grad, dx.f32());
  };

  Tensor& datty = m.kept ? m.datty : m.sharedC;
  Tensor& dqkv = m.kept ? m.dqkv : m.shared3C;
  Tensor& dgelu = m.kept ? m.dgelu : m.shared4C;
  // Shared casts (Impl::lowC, low4C): forward's ops again, into the shared
  // FP32 buffer (idle at that point) and its cast.
  const DType act = p[OpClass::Activations];
  auto layerNormAgain = [&](Tensor& mean, Tensor& rstd, const Tensor& in, std::size_t w,
                            std::size_t b) -> const Tensor& {
    {
      Timer t(ms(GptOp::LayerNorm));
      nn::layerNormForward(m.sharedC.f32(), mean.f32(), rstd.f32(), in.f32(), P(w).value.f32(),
                           P(b).value.f32(), N, C, p[OpClass::NormStatistics]);
      nn::roundSpan(act, m.sharedC.f32());
    }
    Timer t(ms(GptOp::Casts));
    castInto(m.sharedC, m.lowC, m.inputs);
    return m.lowC;
  };
  for (auto it = m.blocks.rbegin(); it != m.blocks.rend(); ++it) {
    Block& b = *it;
    const Tensor* geluLow = &b.geluLow;
    if (!m.kept) {
      {
        Timer t(ms(GptOp::Gelu));
        nn::activationForward(nn::Activation::Gelu, b.fch.f32(), m.shared4C.f32());
        nn::roundSpan(p[OpClass::Gelu], m.shared4C.f32());
      }
      Timer t(ms(GptOp::Casts));
      castInto(m.shared4C, m.low4C, m.inputs);
      geluLow = &m.low4C;
    }
    // x_{l+1} = r + fcproj(gelu(fc(ln2(r)))): dres is the gradient of both r and fcproj.
    linearBackward(GptOp::FcProjection, b.fpOp, m.dres, m.dLowC, b.gelu, *geluLow, b.fpw,
                   b.fpb, dgelu);
    {
      Timer t(ms(GptOp::Gelu));
      nn::activationBackward(nn::Activation::Gelu, b.fch.f32(), b.gelu.f32(), dgelu.f32(),
                             m.dfch.f32());
      nn::roundSpan(grad, m.dfch.f32());
    }
    linearBackward(GptOp::FcLinear, b.fcOp, m.dfch, m.dLow4C, b.ln2,
                   m.kept ? b.ln2Low : layerNormAgain(b.ln2Mean, b.ln2Rstd, b.r, b.ln2w, b.ln2b),
                   b.fcw, b.fcb, m.dln);
    layerNormBackward(b.r, b.ln2w, b.ln2b, b.ln2Mean, b.ln2Rstd);
    // r = x + attproj(attention(qkv(ln1(x)))).
    linearBackward(GptOp::AttnProjection, b.apOp, m.dres, m.dLowC, b.atty, b.attyLow,
                   b.apw, b.apb, datty);
    {
      Timer t(ms(GptOp::Attention));
      b.attention.backward(datty.f32(), dqkv.f32());
      nn::roundSpan(grad, dqkv.f32());
    }
    // datty (in sharedC when shared) is done with.
    linearBackward(GptOp::QkvLinear, b.qkvOp, dqkv, m.dLow3C, b.ln1,
                   m.kept ? b.ln1Low : layerNormAgain(b.ln1Mean, b.ln1Rstd, b.x, b.ln1w, b.ln1b),
                   b.qkvw,
                   b.qkvb, m.dln);
    layerNormBackward(b.x, b.ln1w, b.ln1b, b.ln1Mean, b.ln1Rstd);
  }
  Timer t(ms(GptOp::Embedding));
  nn::embeddingBackward(P(m.wte).grad.f32(), P(m.wpe).grad.f32(), m.dres.f32(), m_tokens, T, C);
  nn::roundSpan(grad, P(m.wte).grad.f32());
  nn::roundSpan(grad, P(m.wpe).grad.f32());
  for (GptParam& q : m_params)
    if (!q.matrix)
      nn::roundSpan(grad, q.grad.f32());
}

std::vector<telemetry::ScaledTensorStats> Gpt::scalingStats() const {
  std::vector<telemetry::ScaledTensorStats> out;
  for (const Block& b : m_impl->blocks)
    for (const LinearProducts* op : {&b.qkvOp, &b.apOp, &b.fcOp, &b.fpOp})
      if (op->scaled)
        for (auto& s : op->scaled->lastStats())
          out.push_back(std::move(s));
  return out;
}

std::optional<std::string> Gpt::firstNonFinite() const {
  const Impl& m = *m_impl;
  if (!m.kept) {
    // The blocks shared their forward tensors: the forward runs again into
    // kept ones. The same values: the weights and tokens have not changed
    // (every caller asks before the optimizer's update), and nothing of a
    // lean model's forward carries state from one pass to the next.
    Gpt& self = const_cast<Gpt&>(*this);
    const GptTimes times = m_times;
    self.keepForwardTensors(true);
    self.forward();
    self.m_times = times;
    return firstNonFinite();
  }
  auto bad = [](const Tensor& t) {
    for (const float v : t.f32())
      if (!std::isfinite(v))
        return true;
    return false;
  };
  if (bad(m.encoded))
    return std::string("embedding");
  for (std::size_t l = 0; l < m.blocks.size(); ++l) {
    const Block& b = m.blocks[l];
    const std::string layer = "layer " + std::to_string(l) + " ";
    const std::pair<const Tensor*, const char*> ops[] = {
        {&b.ln1, "ln1"},           {&b.qkv, "qkv linear"},
        {&b.attention.probs(), "attention softmax"}, {&b.atty, "attention AV"},
        {&b.attproj, "attention projection"}, {&b.r, "residual add (attention)"},
        {&b.ln2, "ln2"},           {&b.fch, "fc linear"},
        {&b.gelu, "gelu"},         {&b.fcproj, "fc projection"}};
    for (const auto& [tensor, name] : ops)
      if (bad(*tensor))
        return layer + name;
  }
  if (bad(m.xL))
    return std::string("residual add (last block)");
  if (bad(m.lnf))
    return std::string("final layernorm");
  if (bad(m_logits))
    return std::string("tied head (logits)");
  if (bad(m_probs))
    return std::string("loss (softmax cross-entropy)");
  return std::nullopt;
}

Gpt::BufferBytes Gpt::bufferBytes() const {
  const Impl& m = *m_impl;
  BufferBytes b;
  const auto add = [](std::size_t& to, std::initializer_list<const Tensor*> tensors) {
    for (const Tensor* t : tensors)
      to += t->bytes();
  };
  for (const Block& k : m.blocks) {
    add(b.activations, {&k.x, &k.ln1, &k.ln1Low, &k.ln1Mean, &k.ln1Rstd, &k.qkv, &k.atty,
                        &k.attyLow, &k.attproj, &k.r, &k.ln2, &k.ln2Low, &k.ln2Mean, &k.ln2Rstd,
                        &k.fch, &k.gelu, &k.geluLow, &k.fcproj});
    b.activations += k.attention.bufferBytes().activations;
  }
  if (!m.blocks.empty()) { // the blocks share one attention scratch
    const auto a = m.blocks.front().attention.bufferBytes();
    b.activations += a.scratchActivations;
    b.gradients += a.scratchGradients;
  }
  add(b.activations, {&m.encoded, &m.xL, &m.lnf, &m.lnfLow, &m.lnfMean, &m.lnfRstd, &m.sharedC,
                      &m.shared3C, &m.shared4C, &m.lowC, &m.low4C});
  add(b.gradients, {&m.headScratch, &m.dres, &m.dln, &m.datty, &m.dqkv, &m.dfch, &m.dgelu,
                    &m.dlogits, &m.dLowC, &m.dLow3C, &m.dLow4C, &m.dLowV});
  return b;
}

namespace {

// A block's observed activations, in order, and the scaled product each is
// the X operand of ("" for none).
struct BlockActivation {
  const char* name;
  const char* product;
};
constexpr BlockActivation kBlockActivations[] = {{"ln1 input", ""},
                                                 {"attention probs", ""},
                                                 {"attention output", "attproj"},
                                                 {"ln2 input", ""},
                                                 {"gelu output", "fcproj"}};

} // namespace

std::vector<Gpt::Activation> Gpt::observedActivations() const {
  const Impl& m = *m_impl;
  std::vector<Activation> out;
  out.push_back({"embedding output", m.encoded.f32()});
  for (std::size_t l = 0; l < m.blocks.size(); ++l) {
    const Block& b = m.blocks[l];
    const std::string h = "h" + std::to_string(l) + ".";
    const std::span<const float> values[] = {b.x.f32(), b.attention.probs().f32(), b.atty.f32(),
                                             b.r.f32(), b.gelu.f32()};
    static_assert(std::size(values) == std::size(kBlockActivations));
    for (std::size_t i = 0; i < std::size(values); ++i)
      out.push_back({h + kBlockActivations[i].name, values[i]});
  }
  out.push_back({"lnf input", m.xL.f32()});
  out.push_back({"logits", m_logits.f32()});
  return out;
}

void Gpt::shadowTensors(std::vector<ShadowTensor>& out) const {
  const Impl& m = *m_impl;
  const amp::Policy& p = m_policy;
  const DType act = p[OpClass::Activations];
  const DType residual = p[OpClass::Residual];
  out.clear();
  out.push_back({"embedding output", false, p[OpClass::Embedding], false, m.encoded.f32()});
  for (std::size_t l = 0; l < m.blocks.size(); ++l) {
    const Block& b = m.blocks[l];
    const std::string h = "h" + std::to_string(l) + ".";
    const std::pair<const char*, std::pair<DType, const Tensor*>> tensors[] = {
        {"ln1 input", {l == 0 ? p[OpClass::Embedding] : residual, &b.x}},
        {"qkv output", {act, &b.qkv}},
        {"attention probs", {p.softmaxOf(int(l)), &b.attention.probs()}},
        {"attention output", {act, &b.atty}},
        {"attproj output", {act, &b.attproj}},
        {"ln2 input", {residual, &b.r}},
        {"fc output", {act, &b.fch}},
        {"gelu output", {p[OpClass::Gelu], &b.gelu}},
        {"fcproj output", {act, &b.fcproj}}};
    for (const auto& [name, t] : tensors)
      out.push_back({h + name, false, t.first, false, t.second->f32()});
  }
  out.push_back({"lnf input", false, residual, false, m.xL.f32()});
  out.push_back({"logits", false, p[OpClass::Loss], false, m_logits.f32()});
  // Backward writes the gradients from the head down to the embeddings.
  for (auto q = m_params.rbegin(); q != m_params.rend(); ++q)
    out.push_back({q->name + " gradient", true, p[OpClass::Gradients], true, q->grad.f32()});
}

std::optional<std::string> Gpt::productInputOf(std::string_view activation) {
  if (activation == "embedding output" || activation == "lnf input" || activation == "logits")
    return std::string();
  // "h<block>.<name>"
  if (activation.size() < 3 || activation[0] != 'h')
    return std::nullopt;
  const auto dot = activation.find('.');
  if (dot == std::string_view::npos || dot == 1)
    return std::nullopt;
  const std::string_view block = activation.substr(1, dot - 1);
  if (!std::all_of(block.begin(), block.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  for (const BlockActivation& a : kBlockActivations)
    if (activation.substr(dot + 1) == a.name)
      return *a.product ? "h" + std::string(block) + "." + a.product + ".x" : std::string();
  return std::nullopt;
}

std::vector<PlanRow> Gpt::plan() const {
  std::vector<PlanRow> rows;
  const DType master = m_policy[OpClass::MasterWeights];
  for (const GptParam& q : m_params) {
    rows.push_back({q.name, TensorRole::MasterWeights, master, q.value.rows(), q.value.cols()});
    if (q.low.size() > 0)
      rows.push_back({q.name + " (working)", TensorRole::Weights, m_policy[OpClass::MatmulInputs],
                      q.low.rows(), q.low.cols()});
    rows.push_back({q.name + ".grad", TensorRole::Gradients, m_policy[OpClass::Gradients],
                    q.grad.rows(), q.grad.cols()});
  }
  const std::int64_t N = std::int64_t(m_batch) * m_spec.ctx, C = m_spec.embd;
  const std::int64_t perBlock = N * C * 9 + N * 3 * C + N * 8 * C +
                                std::int64_t(m_batch) * m_spec.heads * m_spec.ctx * m_spec.ctx;
  rows.push_back({"activations", TensorRole::Activations, m_policy[OpClass::Activations],
                  perBlock * m_spec.layers + N * C * 3, 1});
  rows.push_back({"logits", TensorRole::Activations, m_policy[OpClass::Loss], N, m_vocab});
  return rows;
}

} // namespace mantissa::model
