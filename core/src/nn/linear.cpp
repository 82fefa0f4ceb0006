// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/nn/linear.h>

namespace mantissa::nn {

using kernels::MatmulShape;
using kernels::Trans;

namespace {

std::string upper(DType d) {
  return d == DType::F32 ? "FP32" : d == DType::BF16 ? "BF16" : "FP16";
}

} // namespace

std::string pathDescription(const MatmulUse& use) {
  if (use.inputs == DType::F32)
    return "FP32";
  if (use.path == kernels::MatmulPath::Fp32Compute)
    return "FP32 compute on " + upper(use.inputs) + " data";
  return "native " + upper(use.inputs);
}

Linear::Linear(int batch, int in, int out, DType inputs, DType gradients, DType activations)
    : m_batch(batch), m_in(in), m_out(out), m_inputs(inputs), m_gradients(gradients),
      m_activations(activations),
      m_forward(MatmulShape{batch, out, in}, inputs),
      m_backwardData(MatmulShape{batch, in, out, Trans::No, Trans::Yes}, inputs),
      m_backwardWeights(MatmulShape{in, out, batch, Trans::Yes, Trans::No}, inputs) {
  if (activations == DType::BF16)
    m_forwardBf16 = m_forward.roundingToBf16(true);
  if (gradients == DType::BF16) {
    auto data = m_backwardData.roundingToBf16();
    auto weights = m_backwardWeights.roundingToBf16();
    if (data && weights) {
      m_backwardDataBf16 = std::move(data);
      m_backwardWeightsBf16 = std::move(weights);
    }
  }
}

void Linear::forwardMatmul(const Tensor& x, const Tensor& w, Tensor& y) {
  m_forward.execute(x, w, y);
}

void Linear::forwardToBf16(const Tensor& x, const Tensor& w, const Tensor& b, Tensor& y) {
  m_forwardBf16->execute(x, w, b, y);
}

void Linear::backwardData(const Tensor& dy, const Tensor& w, Tensor& dx) {
  m_backwardData.execute(dy, w, dx);
}

void Linear::backwardWeights(const Tensor& x, const Tensor& dy, Tensor& dw) {
  m_backwardWeights.execute(x, dy, dw);
}

void Linear::backwardDataToBf16(const Tensor& dy, const Tensor& w, Tensor& dx) {
  m_backwardDataBf16->execute(dy, w, dx);
}

void Linear::backwardWeightsToBf16(const Tensor& x, const Tensor& dy, Tensor& dw) {
  m_backwardWeightsBf16->execute(x, dy, dw);
}

std::size_t Linear::scratchpadBytes() const {
  std::size_t n = m_forward.scratchpadBytes() + m_backwardData.scratchpadBytes() +
                  m_backwardWeights.scratchpadBytes();
  if (m_forwardBf16)
    n += m_forwardBf16->scratchpadBytes();
  if (m_backwardDataBf16)
    n += m_backwardDataBf16->scratchpadBytes() + m_backwardWeightsBf16->scratchpadBytes();
  return n;
}

std::vector<MatmulUse> Linear::uses(int layer, bool dWRoundedAfterAtTimes) const {
  const std::string grad = upper(m_gradients);
  auto use = [&](const char* product, const kernels::Matmul& m, std::string result) {
    return MatmulUse{layer, product, m.shape(), m.path(), m_inputs, m.kernel(), m.pathReason(),
                     std::move(result)};
  };
  const std::string after =
      m_gradients == DType::F32 ? "FP32" : "FP32, then rounded to " + grad;
  const std::string inKernel = grad + ", rounded by the kernel";
  std::vector<MatmulUse> out;
  const std::string act = upper(m_activations);
  out.push_back(use("forward", m_forward,
                    m_forwardBf16                    ? act + ", bias added and rounded by the kernel"
                    : m_activations == DType::F32 ? "FP32"
                                                  : "FP32, bias added, then rounded to " + act));
  out.push_back(use("dX", m_backwardData, m_backwardDataBf16 ? inKernel : after));
  out.push_back(use("dW", m_backwardWeights,
                    !m_backwardWeightsBf16 ? after
                    : dWRoundedAfterAtTimes
                        ? inKernel + " (" + after + " on telemetry steps, to count underflow)"
                        : inKernel));
  return out;
}

} // namespace mantissa::nn
