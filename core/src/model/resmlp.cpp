// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// A residual MLP on images, "resmlp:784-256x2-10": an input projection to a
// width D, N residual blocks x <- x + W2·gelu(W1·LayerNorm(x) + b1) + b2
// (D -> D -> D), and a linear head to the classes. The products run in plain
// loops: operands rounded to the recipe's matmul input dtype, FP32
// accumulation, outputs rounded to its activation dtype, gradients to its
// gradient dtype. LayerNorm statistics are FP32.
//
// Its linear maps are the network's layers (model/network.h): layer 0 the
// projection, layers 1+2k and 2+2k block k's W1 and W2, the last the head.
#include <mantissa/model/model_registry.h>

#include <mantissa/data/dataset.h>
#include <mantissa/io/excerpt.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <random>
#include <stdexcept>

namespace mantissa::model {
namespace {

constexpr int kMaxWidth = 65536;
constexpr int kMaxBlocks = 64;
constexpr std::uint64_t kMaxParameters = std::uint64_t{1} << 27;
constexpr float kLnEps = 1e-5f;

struct ResMlpSpec {
  int in = 0, width = 0, blocks = 0, out = 0;
  std::string toString() const {
    return "resmlp:" + std::to_string(in) + "-" + std::to_string(width) + "x" +
           std::to_string(blocks) + "-" + std::to_string(out);
  }
};

[[noreturn]] void fail(std::string_view spec, const std::string& problem) {
  throw std::invalid_argument("model spec '" + io::excerpt(spec) + "': " + problem +
                              " (expected e.g. resmlp:784-256x2-10: input, width x blocks, classes)");
}

int number(std::string_view spec, std::string_view field, const char* what, int lo, int hi) {
  int v = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (field.empty() || ec != std::errc() || end != field.data() + field.size())
    fail(spec, std::string(what) + " '" + io::excerpt(field) + "' is not a whole number");
  if (v < lo || v > hi)
    fail(spec, std::string(what) + " " + std::to_string(v) + " is outside [" + std::to_string(lo) +
                   ", " + std::to_string(hi) + "]");
  return v;
}

ResMlpSpec parseSpec(std::string_view spec) {
  constexpr std::string_view kPrefix = "resmlp:";
  if (!spec.starts_with(kPrefix))
    fail(spec, "must start with 'resmlp:'");
  const std::string_view body = spec.substr(kPrefix.size());
  const auto d1 = body.find('-'), d2 = body.rfind('-');
  if (d1 == std::string_view::npos || d1 == d2)
    fail(spec, "needs three fields separated by '-'");
  const std::string_view mid = body.substr(d1 + 1, d2 - d1 - 1);
  const auto x = mid.find('x');
  if (x == std::string_view::npos)
    fail(spec, "the middle field is WIDTHxBLOCKS, got '" + io::excerpt(mid) + "'");
  ResMlpSpec s;
  s.in = number(spec, body.substr(0, d1), "input width", 1, kMaxWidth);
  s.width = number(spec, mid.substr(0, x), "width", 1, kMaxWidth);
  s.blocks = number(spec, mid.substr(x + 1), "blocks", 0, kMaxBlocks);
  s.out = number(spec, body.substr(d2 + 1), "classes", 2, kMaxWidth);
  const std::uint64_t D = std::uint64_t(s.width);
  const std::uint64_t params = std::uint64_t(s.in) * D + D + std::uint64_t(s.blocks) * (2 * D * D + 4 * D) +
                               D * std::uint64_t(s.out) + std::uint64_t(s.out);
  if (params > kMaxParameters)
    fail(spec, std::to_string(params) + " parameters exceed the limit of 2^27");
  return s;
}

// C[M,N] (+)= A[M,K]·B[K,N], row-major.
void matmul(const float* A, const float* B, float* C, int M, int K, int N) {
  for (int i = 0; i < M; ++i) {
    float* c = C + std::size_t(i) * N;
    std::fill(c, c + N, 0.0f);
    for (int k = 0; k < K; ++k) {
      const float a = A[std::size_t(i) * K + k];
      const float* b = B + std::size_t(k) * N;
      for (int j = 0; j < N; ++j)
        c[j] += a * b[j];
    }
  }
}
// C[K,N] = A[M,K]^T·B[M,N].
void matmulAtB(const float* A, const float* B, float* C, int M, int K, int N) {
  std::fill(C, C + std::size_t(K) * N, 0.0f);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      const float a = A[std::size_t(i) * K + k];
      const float* b = B + std::size_t(i) * N;
      float* c = C + std::size_t(k) * N;
      for (int j = 0; j < N; ++j)
        c[j] += a * b[j];
    }
}
// C[M,K] = B[M,N]·W[K,N]^T.
void matmulABt(const float* B, const float* W, float* C, int M, int K, int N) {
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      const float* b = B + std::size_t(i) * N;
      const float* w = W + std::size_t(k) * N;
      float s = 0.0f;
      for (int j = 0; j < N; ++j)
        s += b[j] * w[j];
      C[std::size_t(i) * K + k] = s;
    }
}

float gelu(float u) { // tanh approximation, as GPT-2
  const float c = 0.7978845608f;
  return 0.5f * u * (1.0f + std::tanh(c * (u + 0.044715f * u * u * u)));
}
float geluGrad(float u) {
  const float c = 0.7978845608f;
  const float t = std::tanh(c * (u + 0.044715f * u * u * u));
  return 0.5f * (1.0f + t) + 0.5f * u * (1.0f - t * t) * c * (1.0f + 3.0f * 0.044715f * u * u);
}

class ResMlp final : public Network {
public:
  ResMlp(const ResMlpSpec& spec, int batch, const amp::Recipe& recipe, int accumulation)
      : m_spec(spec), m_batch(batch), m_recipe(recipe), m_accumulation(accumulation) {
    const int L = 2 + 2 * spec.blocks, B = batch, D = spec.width;
    for (int l = 0; l < L; ++l) {
      const int in = l == 0 ? spec.in : D, out = l == L - 1 ? spec.out : D;
      m_in.push_back(in);
      m_out.push_back(out);
      m_params.push_back({Tensor(DType::F32, in, out), Tensor(DType::F32, 1, out), {}});
      m_grads.push_back({Tensor(DType::F32, in, out), Tensor(DType::F32, 1, out), {}, {}, {}});
      LayerActs a;
      a.pre = Tensor(DType::F32, B, out);
      a.dpre = Tensor(DType::F32, B, out);
      if (l > 0 && l < L - 1)
        a.post = Tensor(DType::F32, B, out); // gelu(u) for W1, the residual sum for W2
      m_acts.push_back(std::move(a));
      m_wq.emplace_back(std::size_t(in) * out);
    }
    for (int k = 0; k < spec.blocks; ++k) {
      m_gamma.emplace_back(DType::F32, 1, D);
      m_beta.emplace_back(DType::F32, 1, D);
      m_dgamma.emplace_back(DType::F32, 1, D);
      m_dbeta.emplace_back(DType::F32, 1, D);
      m_ln.emplace_back(DType::F32, B, D);
      m_mean.emplace_back(std::size_t(B));
      m_rstd.emplace_back(std::size_t(B));
    }
    m_x = Tensor(DType::F32, B, spec.in);
    m_labels.resize(std::size_t(B));
    m_probs = Tensor(DType::F32, B, spec.out);
    m_underflow.resize(std::size_t(L));
    const std::size_t maxIn = std::size_t(std::max(spec.in, D)) * std::size_t(B);
    m_aq.resize(maxIn);
    m_dq.resize(std::size_t(B) * std::size_t(std::max(D, spec.out)));
    m_dx.resize(std::size_t(B) * D);
    m_dtmp.resize(std::size_t(B) * D);
    m_wStep.resize(std::size_t(std::max(spec.in, D)) * std::size_t(std::max(D, spec.out)));
    m_bStep.resize(std::size_t(std::max(D, spec.out)));
  }

  void initialize(std::uint64_t seed, float gain) override {
    std::mt19937_64 rng(seed);
    for (std::size_t l = 0; l < m_params.size(); ++l) {
      const float bound = gain / std::sqrt(float(m_in[l]));
      std::uniform_real_distribution<float> u(-bound, bound);
      for (float& v : m_params[l].w.f32())
        v = u(rng);
      for (float& v : m_params[l].b.f32())
        v = u(rng);
      if (!m_recipe.masterWeights) {
        roundTo(m_recipe.weights, m_params[l].w.f32());
        roundTo(m_recipe.weights, m_params[l].b.f32());
      }
    }
    for (auto& g : m_gamma)
      std::fill(g.f32().begin(), g.f32().end(), 1.0f);
    for (auto& b : m_beta)
      std::fill(b.f32().begin(), b.f32().end(), 0.0f);
    OpTimes ignored;
    refreshWorkingWeights(ignored);
  }

  std::span<float> inputs() override { return m_x.f32(); }
  std::span<std::int32_t> labels() override { return m_labels; }

  nn::XentResult forward(OpTimes& times, int validRows) override {
    const int L = layers(), B = m_batch, D = m_spec.width;
    const DType act = m_recipe.activations;
    ScopedTimer t(times.matmulForward);
    linear(0, m_x.f32().data());
    roundTo(act, m_acts[0].pre.f32());
    for (int k = 0; k < m_spec.blocks; ++k) {
      const float* r = residual(k);
      layerNorm(k, r);
      auto& a1 = m_acts[1 + 2 * k];
      linear(1 + 2 * k, m_ln[k].f32().data());
      roundTo(act, a1.pre.f32());
      const auto u = a1.pre.f32();
      const auto g = a1.post.f32();
      for (std::size_t i = 0; i < u.size(); ++i)
        g[i] = gelu(u[i]);
      roundTo(act, g);
      auto& a2 = m_acts[2 + 2 * k];
      linear(2 + 2 * k, g.data());
      roundTo(act, a2.pre.f32());
      const auto v = a2.pre.f32();
      const auto out = a2.post.f32();
      for (std::size_t i = 0; i < std::size_t(B) * D; ++i)
        out[i] = r[i] + v[i];
      roundTo(act, out);
    }
    linear(L - 1, residual(m_spec.blocks));
    roundTo(act, m_acts[L - 1].pre.f32());
    return nn::softmaxXentForward(m_acts[L - 1].pre.f32(), m_labels, validRows > 0 ? validRows : B,
                                  m_spec.out, m_probs.f32());
  }

  void backward(float scale, bool accumulate, OpTimes& times,
                const std::function<void(int)>& layerDone) override {
    const int L = layers(), B = m_batch, D = m_spec.width;
    const DType grad = m_recipe.gradients;
    ScopedTimer t(times.matmulBackward);
    auto& head = m_acts[L - 1];
    nn::softmaxXentBackward(m_probs.f32(), m_labels, B, m_spec.out, scale, head.dpre.f32());
    roundTo(grad, head.dpre.f32());
    float* dx = m_dx.data(); // gradient of the residual stream
    linearBackward(L - 1, residual(m_spec.blocks), dx, accumulate);
    if (layerDone)
      layerDone(L - 1);
    for (int k = m_spec.blocks - 1; k >= 0; --k) {
      auto& a2 = m_acts[2 + 2 * k];
      auto& a1 = m_acts[1 + 2 * k];
      std::copy(dx, dx + std::size_t(B) * D, a2.dpre.f32().begin());
      float* dg = m_dtmp.data();
      linearBackward(2 + 2 * k, a1.post.f32().data(), dg, accumulate);
      if (layerDone)
        layerDone(2 + 2 * k);
      const auto u = a1.pre.f32();
      const auto du = a1.dpre.f32();
      for (std::size_t i = 0; i < du.size(); ++i)
        du[i] = dg[i] * geluGrad(u[i]);
      roundTo(grad, du);
      float* dn = m_dtmp.data();
      linearBackward(1 + 2 * k, m_ln[k].f32().data(), dn, accumulate);
      if (layerDone)
        layerDone(1 + 2 * k);
      layerNormBackward(k, dn, dx, accumulate); // adds to dx
      roundTo(grad, {dx, std::size_t(B) * D});
    }
    std::copy(dx, dx + std::size_t(B) * D, m_acts[0].dpre.f32().begin());
    linearBackward(0, m_x.f32().data(), nullptr, accumulate);
    if (layerDone)
      layerDone(0);
  }

  void refreshWorkingWeights(OpTimes& times) override {
    ScopedTimer t(times.conversion);
    for (std::size_t l = 0; l < m_params.size(); ++l) {
      const auto w = m_params[l].w.f32();
      std::copy(w.begin(), w.end(), m_wq[l].begin());
      roundTo(m_recipe.matmulInputs, m_wq[l]);
    }
  }

  void setMeasureUnderflow(bool on) override { m_measureUnderflow = on; }
  std::span<const GradUnderflow> underflow() const override { return m_underflow; }
  bool setParallelSections(ParallelSections*) override { return false; }

  std::optional<NonFiniteSite> firstNonFinite(bool backward) const override {
    const auto bad = [](const Tensor& t) {
      for (float v : t.f32())
        if (!std::isfinite(v))
          return true;
      return false;
    };
    const int L = layers();
    if (!backward) {
      for (int l = 0; l < L; ++l) {
        if (bad(m_acts[l].pre))
          return NonFiniteSite{l, false, "linear"};
        if (m_acts[l].post.size() && bad(m_acts[l].post))
          return NonFiniteSite{l, false, l % 2 == 1 ? "gelu" : "residual"};
      }
      if (bad(m_probs))
        return NonFiniteSite{L - 1, false, "softmax-xent"};
      return std::nullopt;
    }
    for (int l = L - 1; l >= 0; --l) {
      if (bad(m_acts[l].dpre))
        return NonFiniteSite{l, true, l == L - 1 ? "softmax-xent" : "linear dX"};
      if (bad(m_grads[l].w))
        return NonFiniteSite{l, true, "linear dW"};
    }
    return std::nullopt;
  }

  // Forward in the order it writes them (each block's LayerNorm output, its
  // W1 output and GELU, its W2 output and the residual sum), then backward's
  // output gradients and parameter gradients from the head down.
  void shadowTensors(std::vector<ShadowTensor>& out) const override {
    out.clear();
    const int L = layers();
    const DType act = m_recipe.activations, grad = m_recipe.gradients;
    const auto layer = [](int l) { return "layer" + std::to_string(l); };
    out.push_back({layer(0) + " output", false, act, false, m_acts[0].pre.f32()});
    for (int k = 0; k < m_spec.blocks; ++k) {
      out.push_back({"block" + std::to_string(k) + " LayerNorm output", false, act, false,
                     m_ln[std::size_t(k)].f32()});
      for (const int l : {1 + 2 * k, 2 + 2 * k}) {
        out.push_back({layer(l) + " output", false, act, false, m_acts[l].pre.f32()});
        out.push_back({layer(l) + (l % 2 ? " gelu" : " residual sum"), false, act, false,
                       m_acts[l].post.f32()});
      }
    }
    out.push_back({layer(L - 1) + " output", false, act, false, m_acts[L - 1].pre.f32()});
    for (int l = L - 1; l >= 0; --l) {
      out.push_back({layer(l) + " output gradient", true, grad, true, m_acts[l].dpre.f32()});
      out.push_back({layer(l) + ".W gradient", true, grad, true, m_grads[l].w.f32()});
      out.push_back({layer(l) + ".b gradient", true, grad, true, m_grads[l].b.f32()});
      if (l % 2 == 1 && l < L - 1) { // W1 of block k: its LayerNorm's parameters
        const std::size_t k = std::size_t(l / 2);
        out.push_back({"block" + std::to_string(k) + ".ln.gamma gradient", true, grad, true,
                       m_dgamma[k].f32()});
        out.push_back({"block" + std::to_string(k) + ".ln.beta gradient", true, grad, true,
                       m_dbeta[k].f32()});
      }
    }
  }

  int layers() const override { return int(m_params.size()); }
  int batch() const override { return m_batch; }
  std::string specString() const override { return m_spec.toString(); }
  std::vector<LayerInfo> layerInfo() const override {
    std::vector<LayerInfo> info;
    for (int l = 0; l < layers(); ++l) {
      const std::string what = l == 0              ? "projection"
                               : l == layers() - 1 ? "head"
                                                   : "block " + std::to_string((l - 1) / 2) +
                                                         (l % 2 ? " W1" : " W2");
      info.push_back({what + " " + std::to_string(m_in[l]) + "→" + std::to_string(m_out[l]),
                      m_in[l], m_out[l]});
    }
    return info;
  }
  std::vector<LayerParams>& params() override { return m_params; }
  const std::vector<LayerParams>& params() const override { return m_params; }
  std::vector<LayerGrads>& grads() override { return m_grads; }
  const std::vector<LayerGrads>& grads() const override { return m_grads; }
  const std::vector<LayerActs>& acts() const override { return m_acts; }

  std::vector<Parameter> parameters() override {
    std::vector<Parameter> out;
    for (int l = 0; l < layers(); ++l) {
      const std::string torch = "layers." + std::to_string(l);
      const auto in = std::uint64_t(m_in[l]), o = std::uint64_t(m_out[l]);
      out.push_back({"layer" + std::to_string(l) + ".W", &m_params[l].w, &m_grads[l].w, nullptr,
                     false, true, torch + ".weight", {o, in}, true});
      out.push_back({"layer" + std::to_string(l) + ".b", &m_params[l].b, &m_grads[l].b, nullptr,
                     false, false, torch + ".bias", {o}, false});
    }
    for (int k = 0; k < m_spec.blocks; ++k) {
      const std::string name = "block" + std::to_string(k) + ".ln.";
      const auto D = std::uint64_t(m_spec.width);
      out.push_back({name + "gamma", &m_gamma[k], &m_dgamma[k], nullptr, false, false,
                     "norms." + std::to_string(k) + ".weight", {D}, false});
      out.push_back({name + "beta", &m_beta[k], &m_dbeta[k], nullptr, false, false,
                     "norms." + std::to_string(k) + ".bias", {D}, false});
    }
    return out;
  }
  std::int64_t parameterCount() const override {
    std::int64_t n = 0;
    for (const auto& p : m_params)
      n += p.w.size() + p.b.size();
    return n + 2 * std::int64_t(m_spec.blocks) * m_spec.width;
  }

  std::string matmulImplementation() const override { return "reference loops"; }
  bool matmulEmulated() const override { return m_recipe.matmulInputs != DType::F32; }

  std::vector<PlanRow> plan() const override {
    std::vector<PlanRow> rows;
    for (int l = 0; l < layers(); ++l) {
      const std::string n = "layer" + std::to_string(l);
      rows.push_back({n + ".W", TensorRole::Weights, m_recipe.weights, m_in[l], m_out[l]});
      if (m_recipe.masterWeights)
        rows.push_back({n + ".W master", TensorRole::MasterWeights, DType::F32, m_in[l], m_out[l]});
      rows.push_back({n + ".dW", TensorRole::Gradients, m_recipe.gradients, m_in[l], m_out[l]});
      rows.push_back({n + ".pre", TensorRole::Activations, m_recipe.activations, m_batch, m_out[l]});
    }
    rows.push_back({"probs", TensorRole::Activations, m_recipe.loss, m_batch, m_spec.out});
    return rows;
  }
  std::map<std::string, std::size_t> allocatedBytes() const override {
    std::size_t w = 0, a = 0, g = 0;
    for (int l = 0; l < layers(); ++l) {
      w += m_params[l].w.bytes() + m_params[l].b.bytes() + m_wq[l].size() * sizeof(float);
      g += m_grads[l].w.bytes() + m_grads[l].b.bytes() + m_acts[l].dpre.bytes();
      a += m_acts[l].pre.bytes() + m_acts[l].post.bytes();
    }
    for (int k = 0; k < m_spec.blocks; ++k) {
      w += m_gamma[k].bytes() + m_beta[k].bytes();
      g += m_dgamma[k].bytes() + m_dbeta[k].bytes();
      a += m_ln[k].bytes();
    }
    a += m_x.bytes() + m_probs.bytes();
    return {{"weights", w}, {"activations", a}, {"gradients", g}};
  }

private:
  // The residual stream entering block k (k == blocks: entering the head).
  const float* residual(int k) const {
    return k == 0 ? m_acts[0].pre.f32().data() : m_acts[2 * k].post.f32().data();
  }

  // pre[B, out] = round(in)·W~ + b, FP32 accumulation.
  void linear(int l, const float* in) {
    const std::size_t n = std::size_t(m_batch) * std::size_t(m_in[l]);
    std::copy(in, in + n, m_aq.begin());
    roundTo(m_recipe.matmulInputs, {m_aq.data(), n});
    float* pre = m_acts[l].pre.f32().data();
    matmul(m_aq.data(), m_wq[l].data(), pre, m_batch, m_in[l], m_out[l]);
    const float* b = m_params[l].b.f32().data();
    for (int i = 0; i < m_batch; ++i)
      for (int j = 0; j < m_out[l]; ++j)
        pre[std::size_t(i) * m_out[l] + j] += b[j];
  }

  // From dpre of layer l: dW, db (added when accumulating) and, when dIn is
  // given, dIn = dpre·W~^T rounded to the gradient dtype.
  void linearBackward(int l, const float* in, float* dIn, bool accumulate) {
    const DType grad = m_recipe.gradients;
    const int B = m_batch, I = m_in[l], O = m_out[l];
    const std::size_t n = std::size_t(B) * I;
    std::copy(in, in + n, m_aq.begin());
    roundTo(m_recipe.matmulInputs, {m_aq.data(), n});
    const auto dpre = m_acts[l].dpre.f32();
    std::copy(dpre.begin(), dpre.end(), m_dq.begin());
    roundTo(m_recipe.matmulInputs, {m_dq.data(), dpre.size()});
    const std::span<float> dW(m_wStep.data(), std::size_t(I) * O);
    const std::span<float> db(m_bStep.data(), std::size_t(O));
    matmulAtB(m_aq.data(), m_dq.data(), dW.data(), B, I, O);
    std::fill(db.begin(), db.end(), 0.0f);
    for (int i = 0; i < B; ++i)
      for (int j = 0; j < O; ++j)
        db[j] += dpre[std::size_t(i) * O + j];
    if (m_measureUnderflow) {
      GradUnderflow u;
      for (float v : dW)
        if (v != 0.0f) {
          ++u.nonzero;
          float r = v;
          roundTo(grad, {&r, 1});
          u.lostToZero += r == 0.0f;
        }
      m_underflow[l] = u;
    }
    roundTo(grad, dW);
    roundTo(grad, db);
    auto gw = m_grads[l].w.f32();
    auto gb = m_grads[l].b.f32();
    for (std::size_t i = 0; i < gw.size(); ++i)
      gw[i] = accumulate ? gw[i] + dW[i] : dW[i];
    for (std::size_t i = 0; i < gb.size(); ++i)
      gb[i] = accumulate ? gb[i] + db[i] : db[i];
    if (dIn) {
      matmulABt(m_dq.data(), m_wq[l].data(), dIn, B, I, O);
      roundTo(grad, {dIn, n});
    }
  }

  void layerNorm(int k, const float* x) {
    const int B = m_batch, D = m_spec.width;
    float* y = m_ln[k].f32().data();
    const float* g = m_gamma[k].f32().data();
    const float* b = m_beta[k].f32().data();
    for (int i = 0; i < B; ++i) {
      const float* r = x + std::size_t(i) * D;
      float mean = 0.0f, var = 0.0f;
      for (int j = 0; j < D; ++j)
        mean += r[j];
      mean /= float(D);
      for (int j = 0; j < D; ++j)
        var += (r[j] - mean) * (r[j] - mean);
      const float rstd = 1.0f / std::sqrt(var / float(D) + kLnEps);
      m_mean[k][i] = mean;
      m_rstd[k][i] = rstd;
      for (int j = 0; j < D; ++j)
        y[std::size_t(i) * D + j] = (r[j] - mean) * rstd * g[j] + b[j];
    }
    roundTo(m_recipe.activations, m_ln[k].f32());
  }

  // dy: gradient of LayerNorm's output; adds its input's gradient to dx.
  void layerNormBackward(int k, const float* dy, float* dx, bool accumulate) {
    const int B = m_batch, D = m_spec.width;
    const float* x = residual(k);
    const float* g = m_gamma[k].f32().data();
    auto dg = m_dgamma[k].f32();
    auto db = m_dbeta[k].f32();
    std::vector<float> sg(std::size_t(D), 0.0f), sb(std::size_t(D), 0.0f);
    for (int i = 0; i < B; ++i) {
      const float mean = m_mean[k][i], rstd = m_rstd[k][i];
      const float* r = x + std::size_t(i) * D;
      const float* d = dy + std::size_t(i) * D;
      float sumD = 0.0f, sumDX = 0.0f;
      for (int j = 0; j < D; ++j) {
        const float xhat = (r[j] - mean) * rstd;
        const float dxhat = d[j] * g[j];
        sg[j] += d[j] * xhat;
        sb[j] += d[j];
        sumD += dxhat;
        sumDX += dxhat * xhat;
      }
      float* o = dx + std::size_t(i) * D;
      for (int j = 0; j < D; ++j) {
        const float xhat = (r[j] - mean) * rstd;
        o[j] += rstd * (d[j] * g[j] - sumD / float(D) - xhat * sumDX / float(D));
      }
    }
    roundTo(m_recipe.gradients, sg);
    roundTo(m_recipe.gradients, sb);
    for (int j = 0; j < D; ++j) {
      dg[j] = accumulate ? dg[j] + sg[j] : sg[j];
      db[j] = accumulate ? db[j] + sb[j] : sb[j];
    }
  }

  ResMlpSpec m_spec;
  int m_batch;
  const amp::Recipe& m_recipe;
  int m_accumulation;
  bool m_measureUnderflow = false;
  std::vector<int> m_in, m_out;
  std::vector<LayerParams> m_params;
  std::vector<LayerGrads> m_grads;
  std::vector<LayerActs> m_acts;
  std::vector<std::vector<float>> m_wq; // weights rounded to the matmul input dtype
  std::vector<Tensor> m_gamma, m_beta, m_dgamma, m_dbeta, m_ln;
  std::vector<std::vector<float>> m_mean, m_rstd;
  std::vector<GradUnderflow> m_underflow;
  Tensor m_x, m_probs;
  std::vector<std::int32_t> m_labels;
  std::vector<float> m_aq, m_dq, m_dx, m_dtmp, m_wStep, m_bStep;
};

std::unique_ptr<Network> buildResMlp(const ModelBuild& b) {
  const ResMlpSpec spec = parseSpec(b.spec);
  const data::Dataset& train = *b.images;
  if (spec.in != train.features || spec.out != train.classes)
    throw std::invalid_argument("model: '" + b.spec + "' maps " + std::to_string(spec.in) +
                                " inputs to " + std::to_string(spec.out) + " classes; the data " +
                                train.name + " has " + std::to_string(train.features) +
                                " features and " + std::to_string(train.classes) + " classes");
  if (b.recipe->scaling != amp::MatmulScaling::None)
    throw std::invalid_argument("recipe: '" + std::string(b.recipe->name) +
                                "' scales FP8 / microscaled operands, which a residual MLP ('" +
                                b.spec + "') does not run; choose fp32, bf16-mixed, fp16-mixed "
                                "or a 16-bit recipe");
  return std::make_unique<ResMlp>(spec, b.batch, *b.recipe, b.gradAccumulation);
}

ModelSizes resMlpSizes(const ModelBuild& b) {
  const ResMlpSpec s = parseSpec(b.spec);
  const std::uint64_t B = std::uint64_t(std::max(b.batch, 0)), D = std::uint64_t(s.width),
                      N = std::uint64_t(s.blocks);
  ModelSizes z;
  z.params = sizeAdd(sizeMul(std::uint64_t(s.in) + 1 + N * (2 * D + 4) + s.out, D), s.out);
  z.activations = sizeMul(B, std::uint64_t(s.in) + D * (1 + 4 * N) + 2 * std::uint64_t(s.out));
  z.gradBuffers = sizeMul(B, D * (2 + 2 * N) + std::uint64_t(s.out));
  return z;
}

constexpr ModelOffer kOffers[] = {{"resmlp:784-256x2-10", "resmlp:784-256x2-10",
                                   "A residual MLP: 784 inputs projected to 256, two residual "
                                   "blocks (LayerNorm, a GELU layer of 256, a layer back to 256, added to the input), 10 "
                                   "classes"}};

} // namespace

extern const ModelKind kind_resmlp;
const ModelKind kind_resmlp{
    .name = "resmlp",
    .prefix = "resmlp:",
    .title = "ResMLP",
    .noun = "a residual MLP",
    .description = "a residual MLP on images, resmlp:IN-WIDTHxBLOCKS-OUT (e.g. resmlp:784-256x2-10): "
                   "projection, blocks x + W2·gelu(W1·LayerNorm(x)), head",
    .input = ModelInput::Images,
    .offered = kOffers,
    .parse = [](std::string_view s) { parseSpec(s); },
    .build = buildResMlp,
    .sizes = resMlpSizes,
};

} // namespace mantissa::model
