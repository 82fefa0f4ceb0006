// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/nn/linear.h>

namespace mantissa::nn {

using kernels::MatmulShape;
using kernels::Trans;

Linear::Linear(int batch, int in, int out, DType inputs)
    : m_batch(batch), m_in(in), m_out(out), m_inputs(inputs),
      m_forward(MatmulShape{batch, out, in}, inputs),
      m_backwardData(MatmulShape{batch, in, out, Trans::No, Trans::Yes}, inputs),
      m_backwardWeights(MatmulShape{in, out, batch, Trans::Yes, Trans::No}, inputs) {}

void Linear::forwardMatmul(const Tensor& x, const Tensor& w, Tensor& y) {
  m_forward.execute(x, w, y);
}

void Linear::backwardData(const Tensor& dy, const Tensor& w, Tensor& dx) {
  m_backwardData.execute(dy, w, dx);
}

void Linear::backwardWeights(const Tensor& x, const Tensor& dy, Tensor& dw) {
  m_backwardWeights.execute(x, dy, dw);
}

} // namespace mantissa::nn
