// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Where a training step's time goes, by op kind (milliseconds). The model and
// the trainer add to it with ScopedTimer; the benchmark and the UI show it.

#include <chrono>

namespace mantissa::model {

struct OpTimes {
  double matmulForward = 0.0;  // forward products
  double matmulBackward = 0.0; // dX and dW products
  double conversion = 0.0;     // FP32 <-> BF16/FP16 casts and rounding on store
  double elementwise = 0.0;    // bias, activations, BatchNorm, pooling and their gradients
  double loss = 0.0;           // softmax cross-entropy forward and backward
  double optimizer = 0.0;      // unscale + check, clipping, update, weight casts
  double telemetry = 0.0;      // histograms and counters
  double data = 0.0;           // copying the next batch from the data set
  // Last, so that brace-initialised MLP times need not name them.
  double convForward = 0.0;    // forward convolutions
  double convBackward = 0.0;   // backward-data and backward-weights convolutions

  double total() const {
    return matmulForward + matmulBackward + convForward + convBackward + conversion + elementwise + loss + optimizer + telemetry +
           data;
  }
  OpTimes& operator+=(const OpTimes& o) {
    matmulForward += o.matmulForward;
    matmulBackward += o.matmulBackward;
    convForward += o.convForward;
    convBackward += o.convBackward;
    conversion += o.conversion;
    elementwise += o.elementwise;
    loss += o.loss;
    optimizer += o.optimizer;
    telemetry += o.telemetry;
    data += o.data;
    return *this;
  }
};

// Adds the scope's wall time, in ms, to `slot`.
class ScopedTimer {
public:
  explicit ScopedTimer(double& slot) : m_slot(slot), m_start(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    m_slot += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_start)
                  .count();
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

private:
  double& m_slot;
  std::chrono::steady_clock::time_point m_start;
};

} // namespace mantissa::model
