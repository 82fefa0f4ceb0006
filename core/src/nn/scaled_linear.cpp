// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/nn/scaled_linear.h>

#include <mantissa/tensor/run_state.h>

namespace mantissa::nn {

using amp::BlockAxis;
using amp::MatmulScaling;
using telemetry::ScaledRole;

namespace {

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t x = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

} // namespace

OperandQuantizer::OperandQuantizer(std::string name, ScaledRole role,
                                   const amp::ScalingOptions& options)
    : m_name(std::move(name)), m_role(role), m_options(options),
      m_element(amp::operandElement(options, role)) {
  if (options.scheme == MatmulScaling::Fp8Delayed)
    m_delayed.emplace(static_cast<float>(m_element.maxFinite()), options.historyLength,
                      options.amaxCompute, options.margin);
}

void OperandQuantizer::quantize(const Tensor& in, Tensor& out, BlockAxis axis, bool weightBlocks,
                                std::uint64_t seed, bool record) {
  amp::OperandRequest rq;
  rq.scheme = m_options.scheme;
  if (m_element.id != numeric::FormatId::Custom)
    rq.element = m_element.id;
  else
    rq.format = m_element;
  rq.blockScale = m_options.blockScale;
  rq.rows = static_cast<int>(in.rows());
  rq.cols = static_cast<int>(in.cols());
  rq.axis = axis;
  rq.weightBlocks = weightBlocks;
  rq.margin = m_options.margin;
  rq.stochastic = m_role == ScaledRole::GradOutput && m_options.scheme == MatmulScaling::Nvfp4;
  rq.seed = seed;
  if (m_delayed)
    rq.scale = m_delayed->scale();
  telemetry::ScaledTensorStats s = amp::quantizeOperand(in.f32(), out.f32(), rq);
  if (m_delayed) {
    // The history behind the scale just used, then this amax into it.
    s.amaxHistory = m_delayed->historyAmax();
    s.history = m_delayed->filled();
    m_delayed->update(static_cast<float>(s.amax));
  }
  if (record) {
    s.name = m_name;
    s.role = m_role;
    m_stats = std::move(s);
  }
}

void OperandQuantizer::visitState(RunStateVisitor& v) {
  if (m_delayed)
    m_delayed->visitState(v, m_name);
}

void ScaledLinear::visitState(RunStateVisitor& v) {
  v.value(stateName(m_name, "seed"), m_seed);
  v.value(stateName(m_name, "calls"), m_calls);
  m_x.visitState(v);
  m_w.visitState(v);
  m_dy.visitState(v);
}

ScaledLinear::ScaledLinear(std::string name, int batch, int in, int out,
                           const amp::ScalingOptions& options, std::uint64_t site,
                           std::uint64_t seed)
    : m_name(name), m_options(options), m_site(site), m_seed(seed),
      m_linear(batch, in, out, DType::F32), m_x(name + ".x", ScaledRole::Input, options),
      m_w(name + ".w", ScaledRole::Weight, options),
      m_dy(name + ".dy", ScaledRole::GradOutput, options) {
  m_xq = Tensor(DType::F32, batch, in);
  m_wq = Tensor(DType::F32, in, out);
  m_dyq = Tensor(DType::F32, batch, out);
  if (!perTensor()) {
    m_xqT = Tensor(DType::F32, batch, in);
    m_dyqT = Tensor(DType::F32, batch, out);
    if (options.scheme != MatmulScaling::Fp8Block)
      m_wqT = Tensor(DType::F32, in, out);
  }
}

bool ScaledLinear::perTensor() const {
  return m_options.scheme == MatmulScaling::Fp8Delayed ||
         m_options.scheme == MatmulScaling::Fp8Current;
}

void ScaledLinear::quantize(Operand& op, const Tensor& in, Tensor& out, BlockAxis axis,
                            bool record) {
  op.quantize(in, out, axis,
              op.role() == ScaledRole::Weight && m_options.scheme == MatmulScaling::Fp8Block,
              mix(mix(m_seed, m_site), m_calls++), record);
}

void ScaledLinear::forward(const Tensor& x, const Tensor& w, Tensor& y) {
  // Y = X W reduces over I: X along its rows, W down its columns.
  quantize(m_x, x, m_xq, BlockAxis::Rows, true);
  quantize(m_w, w, m_wq, BlockAxis::Columns, true);
  m_linear.forwardMatmul(m_xq, m_wq, y);
  m_dyReady = false;
}

void ScaledLinear::quantizeGradient(const Tensor& dy) {
  if (m_dyReady)
    return;
  quantize(m_dy, dy, m_dyq, BlockAxis::Rows, true);
  m_dyReady = true;
}

void ScaledLinear::backwardWeights(const Tensor& x, const Tensor& dy, Tensor& dw) {
  // dW = X^T dY reduces over the batch: both down their columns.
  if (perTensor()) {
    quantizeGradient(dy);
    m_linear.backwardWeights(m_xq, m_dyq, dw);
    return;
  }
  quantize(m_x, x, m_xqT, BlockAxis::Columns, false);
  quantize(m_dy, dy, m_dyqT, BlockAxis::Columns, true); // replaced by the dX copy when there is one
  m_linear.backwardWeights(m_xqT, m_dyqT, dw);
}

void ScaledLinear::backwardData(const Tensor& dy, const Tensor& w, Tensor& dx) {
  // dX = dY W^T reduces over O: dY along its rows, W along its rows.
  quantizeGradient(dy);
  if (perTensor() || m_options.scheme == MatmulScaling::Fp8Block) {
    m_linear.backwardData(m_dyq, m_wq, dx);
    return;
  }
  quantize(m_w, w, m_wqT, BlockAxis::Rows, false);
  m_linear.backwardData(m_dyq, m_wqT, dx);
}

std::vector<telemetry::ScaledTensorStats> ScaledLinear::lastStats() const {
  std::vector<telemetry::ScaledTensorStats> out;
  for (const Operand* op : {&m_x, &m_w, &m_dy})
    if (op->stats())
      out.push_back(*op->stats());
  return out;
}

} // namespace mantissa::nn
