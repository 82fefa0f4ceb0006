// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/nn/tied_head.h>

namespace mantissa::nn {

using kernels::MatmulShape;
using kernels::Trans;

TiedHead::TiedHead(int rows, int channels, int vocabulary, DType inputs)
    : m_forward(MatmulShape{rows, vocabulary, channels, Trans::No, Trans::Yes}, inputs),
      m_backwardData(MatmulShape{rows, channels, vocabulary}, inputs),
      m_backwardWeights(MatmulShape{vocabulary, channels, rows, Trans::Yes, Trans::No}, inputs,
                        DType::F32, /*accumulate=*/true) {}

void TiedHead::forward(const Tensor& x, const Tensor& wte, Tensor& logits) {
  m_forward.execute(x, wte, logits);
}

void TiedHead::backwardData(const Tensor& dlogits, const Tensor& wte, Tensor& dx) {
  m_backwardData.execute(dlogits, wte, dx);
}

void TiedHead::backwardWeights(const Tensor& dlogits, const Tensor& x, Tensor& dwte) {
  m_backwardWeights.execute(dlogits, x, dwte);
}

} // namespace mantissa::nn
