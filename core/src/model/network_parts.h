// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Small pieces every model::Network implementation uses. Private to core.

#include <mantissa/model/network.h>
#include <mantissa/tensor/tensor.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mantissa::model::detail {

// The shadow tensors (model/shadow_reference.h) of a model filed per layer:
// each layer's product output and activation in forward order, then, last
// layer first as backward writes them, each layer's output gradient and its
// parameters' gradients.
inline void perLayerShadowTensors(const Network& net, DType activations, DType gradients,
                                  std::vector<ShadowTensor>& out) {
  out.clear();
  const int n = net.layers();
  const auto& acts = net.acts();
  for (int l = 0; l < n; ++l) {
    const std::string name = "layer" + std::to_string(l);
    out.push_back({name + " output", false, activations, false, acts[l].pre.f32()});
    if (l + 1 < n)
      out.push_back({name + " activation", false, activations, false, acts[l].post.f32()});
  }
  // parameters() only gathers pointers to the model's tensors.
  const auto params = const_cast<Network&>(net).parameters();
  for (int l = n - 1; l >= 0; --l) {
    const std::string name = "layer" + std::to_string(l);
    out.push_back({name + " output gradient", true, gradients, true, acts[l].dpre.f32()});
    for (const Parameter& p : params)
      if (p.name.starts_with(name + "."))
        out.push_back({p.name + " gradient", true, gradients, true, std::as_const(*p.grad).f32()});
  }
}

// No inf or NaN in an FP32 tensor (16-bit and empty tensors count as finite).
inline bool allFinite(const Tensor& t) {
  if (t.size() == 0 || t.dtype() != DType::F32)
    return true;
  for (float v : t.f32())
    if (!std::isfinite(v))
      return false;
  return true;
}

// enter() .. leave() around one product.
class InParallelSection {
public:
  explicit InParallelSection(ParallelSections* sections) : m_sections(sections) {
    if (m_sections != nullptr)
      m_sections->enter();
  }
  ~InParallelSection() {
    if (m_sections != nullptr)
      m_sections->leave();
  }
  InParallelSection(const InParallelSection&) = delete;
  InParallelSection& operator=(const InParallelSection&) = delete;

private:
  ParallelSections* m_sections;
};

// Bytes a Tensor holds as allocated: padded to Tensor::kAlignment.
inline std::size_t allocated(const Tensor& t) {
  return t.size() > 0
             ? (t.bytes() + Tensor::kAlignment - 1) / Tensor::kAlignment * Tensor::kAlignment
             : std::size_t{0};
}

// Whether the optimizer casts the working copies of a layered model (MLP,
// CNN): only when every layer's products take a full 16-bit copy of W.
inline bool optimizerCastsWorking(const std::vector<LayerParams>& params) {
  bool all = !params.empty();
  for (const auto& p : params)
    all &= p.wLow.dtype() != DType::F32 && p.wLow.size() == p.w.size();
  return all;
}

// Layer l's W and b as "layer<l>.W" and "layer<l>.b", named in PyTorch as
// "<torchModule>.weight" and ".bias" with the weight's PyTorch shape.
inline void appendLayerParameters(std::vector<Parameter>& out, int l, LayerParams& p,
                                  LayerGrads& g, bool castWorking, const std::string& torchModule,
                                  std::vector<std::uint64_t> torchWeightShape, bool transposed) {
  const std::string name = "layer" + std::to_string(l);
  out.push_back({.name = name + ".W", .value = &p.w, .grad = &g.w,
                 .working = castWorking ? &p.wLow : nullptr, .optimizerCasts = castWorking,
                 .decay = true,
                 .torchName = torchModule + ".weight", .torchShape = std::move(torchWeightShape),
                 .transposed = transposed});
  out.push_back({.name = name + ".b", .value = &p.b, .grad = &g.b, .working = nullptr,
                 .decay = true, .torchName = torchModule + ".bias",
                 .torchShape = {std::uint64_t(p.b.size())}, .transposed = false});
}

} // namespace mantissa::model::detail
