// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// One weight followed step by step, as the Train page's watch shows it: its
// master value, the bits its working copy holds, the gradient the optimizer
// used and whether the update was swamped (lost to rounding). Models filed
// per layer only (a GPT files its tensors by name: no layer weights to watch).

#include <mantissa/telemetry/histogram.h>
#include <mantissa/tensor/dtype.h>

#include <cstdint>
#include <optional>

namespace mantissa::model {
class Network;
}

namespace mantissa::train {

class Session;
struct StepReport;

struct WatchSample {
  int layer = 0;
  std::int64_t index = 0;          // flat index into the layer's W [I, O]
  float master = 0.0f;             // FP32 value of W (master copy, or the only copy)
  DType working = DType::F32;      // precision the forward pass reads it in
  std::uint32_t workingBits = 0;   // its bit pattern in `working`
  float gradient = 0.0f;           // dW at that index as the optimizer used it
  bool hasMaster = true;           // false: no FP32 master copy (bf16-pure recipes)
  bool swamped = false;            // gradient non-zero, step applied, weight unchanged
  std::int64_t swampedSoFar = 0;   // swamped steps since this index was picked
};

// The first finite, non-zero value of layer `layer`'s weights (cls Weights)
// or weight gradients (WeightGrads) whose binade, floor(log2 |x|), is
// `exponent`; -1 when there is none or the layer does not exist.
std::int64_t findInBinade(const model::Network& net, int layer, telemetry::TensorClass cls,
                          int exponent);

class WeightWatch {
public:
  // The watched weight after `report`'s step, or nullopt when the model has
  // no such layer or index. Swamped: the step was applied, the gradient is
  // finite and non-zero, and the weight's FP32 bits are those of the
  // previous sample of the same weight.
  std::optional<WatchSample> sample(const Session& session, const StepReport& report, int layer,
                                    std::int64_t index);
  // Forget the previous sample (a new run or a new weight).
  void reset() { m_previous.reset(); }

private:
  std::optional<WatchSample> m_previous;
};

} // namespace mantissa::train
