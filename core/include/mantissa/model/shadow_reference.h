// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The tensors a shadow pass (train/shadow.h) compares, and the reference it
// compares them with.
//
// A run's model lists, by name, every tensor of its last forward and
// backward pass that an op wrote (Network::shadowTensors): activations and
// product outputs in forward order, then gradients in backward order. A
// reference is a second copy of the same model in FP32 or FP64 that runs
// the same batch from the same weights and files the same names, so that
// each tensor can be set against the value exact arithmetic (or FP32) gives.
//
// Names, the same for the run and every reference:
//   per-layer models (MLP, CNN), layer l:
//     "layer<l> output"           the product plus bias (LayerActs::pre)
//     "layer<l> activation"       the block's output (LayerActs::post; hidden layers)
//     "layer<l> output gradient"  the gradient of the product's output (LayerActs::dpre)
//     "<parameter> gradient"      every parameter's gradient ("layer0.W gradient",
//                                 "layer1.bn.gamma gradient")
//   GPT:
//     "embedding output", "h<l>.ln1 input", "h<l>.qkv output",
//     "h<l>.attention probs", "h<l>.attention output", "h<l>.attproj output",
//     "h<l>.ln2 input", "h<l>.fc output", "h<l>.gelu output",
//     "h<l>.fcproj output", "lnf input", "logits", and
//     "<parameter> gradient" ("h0.qkv.w gradient", "wte gradient")

#include <mantissa/tensor/dtype.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::model {

struct Parameter;

// One tensor of the run's last pass, as the op stored it.
struct ShadowTensor {
  std::string name;
  bool backward = false;     // written by backward
  DType format = DType::F32; // the precision the op stored it in: its ULPs are counted in it
  bool scaled = false;       // backward's values times the step's backward scale (loss scale
                             // x loss multiplier / micro-batches): divided by it before comparing
  std::span<const float> values;
};

// What a reference needs of the run: its batch and its weights.
struct ShadowBatch {
  std::span<const float> inputs;        // images [B, F]; empty for a model that reads tokens
  std::span<const std::int32_t> tokens; // GPT: [B*T]; empty otherwise
  std::span<const std::int32_t> labels; // [B] or [B*T]
  std::span<const Parameter> parameters; // the run's parameters (Network::parameters())
};

class ShadowReference {
public:
  virtual ~ShadowReference() = default;
  // Forward and backward of the unscaled mean loss on `batch`, from the
  // values of `batch.parameters` (matched by name). Throws
  // std::invalid_argument naming a parameter the reference lacks or whose
  // size differs.
  virtual void run(const ShadowBatch& batch) = 0;
  // Tensor `name` of the last run(), in double; empty when the reference has no such tensor.
  virtual std::span<const double> tensor(std::string_view name) const = 0;
  // The same as the FP32 values a reference in FP32 holds (compared without
  // a copy in double); empty for a reference in FP64.
  virtual std::span<const float> tensorF32(std::string_view) const { return {}; }
  // "FP32" or "FP64".
  virtual std::string precision() const = 0;
};

} // namespace mantissa::model

namespace mantissa::model {

class Network;

// The FP32 reference: `copy`, the run's model built again under the fp32
// recipe (same spec, batch and input standardization), run on the run's
// batch and weights.
std::unique_ptr<ShadowReference> makeFp32Reference(std::unique_ptr<Network> copy);
// The FP64 reference of `model` (an Mlp, a Cnn or a GptNetwork): the same
// architecture written in double (model/reference64.cpp). Throws
// std::invalid_argument for a model it does not mirror.
std::unique_ptr<ShadowReference> makeFp64Reference(const Network& model);

} // namespace mantissa::model
