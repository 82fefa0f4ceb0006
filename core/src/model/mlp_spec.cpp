// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// MLP spec parsing, the tensor plan and small functions of mlp.h.
#include <mantissa/model/mlp.h>

#include "network_parts.h"
#include "reference64.h"
#include <mantissa/data/dataset.h>
#include <mantissa/model/model_registry.h>
#include <mantissa/numeric/convert.h>
#include <mantissa/tensor/run_state.h>

#include <charconv>
#include <stdexcept>

#include <mantissa/io/excerpt.h>

namespace mantissa::model {

using detail::allFinite;
using detail::allocated;
using detail::InParallelSection;

namespace {

[[noreturn]] void fail(std::string_view spec, const std::string& problem) {
  throw std::invalid_argument("model spec '" + io::excerpt(spec) + "': " + problem +
                              " (expected e.g. mlp:784-256-256-10 or mlp:784-256-10:gelu)");
}

} // namespace

std::string MlpSpec::toString() const {
  std::string s = "mlp:";
  for (std::size_t i = 0; i < widths.size(); ++i)
    s += (i ? "-" : "") + std::to_string(widths[i]);
  return s + ":" + std::string(nn::activationName(activation));
}

MlpSpec parseMlpSpec(std::string_view spec) {
  constexpr std::string_view kPrefix = "mlp:";
  if (!spec.starts_with(kPrefix))
    fail(spec, "must start with 'mlp:'");
  std::string_view rest = spec.substr(kPrefix.size());
  MlpSpec result;
  if (const auto colon = rest.find(':'); colon != std::string_view::npos) {
    const std::string_view name = rest.substr(colon + 1);
    const auto activation = nn::parseActivation(name);
    if (!activation)
      fail(spec, "unknown activation '" + io::excerpt(name) + "' (relu, gelu, tanh, sigmoid)");
    result.activation = *activation;
    rest = rest.substr(0, colon);
  }
  while (!rest.empty() || result.widths.empty()) {
    const auto dash = rest.find('-');
    const std::string_view item = rest.substr(0, dash);
    int width = 0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), width);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size())
      fail(spec, "'" + io::excerpt(item) + "' is not a layer width");
    if (width < 1 || width > 65536)
      fail(spec, "width " + std::to_string(width) + " is outside [1, 65536]");
    if (result.widths.size() > static_cast<std::size_t>(kMaxMlpLayers))
      fail(spec, "more than " + std::to_string(kMaxMlpLayers) + " layers");
    result.widths.push_back(width);
    if (dash == std::string_view::npos)
      break;
    rest = rest.substr(dash + 1);
    if (rest.empty())
      fail(spec, "trailing '-'");
  }
  if (result.widths.size() < 2)
    fail(spec, "needs at least an input and an output width");
  if (result.widths.back() < 2)
    fail(spec, "the output layer needs at least 2 classes");
  std::uint64_t params = 0;
  for (std::size_t l = 0; l + 1 < result.widths.size(); ++l)
    params += std::uint64_t(result.widths[l] + 1) * std::uint64_t(result.widths[l + 1]);
  if (params > kMaxMlpParameters)
    fail(spec, std::to_string(params) + " parameters, over the limit of " +
                   std::to_string(kMaxMlpParameters) + " (2^27)");
  return result;
}

std::string_view tensorRoleName(TensorRole role) {
  switch (role) {
  case TensorRole::Weights:
    return "weights";
  case TensorRole::MasterWeights:
    return "master weights";
  case TensorRole::Activations:
    return "activations";
  case TensorRole::Gradients:
    return "gradients";
  case TensorRole::OptimizerState:
    return "optimizer state";
  }
  return "?";
}

std::size_t bytesFor(std::span<const PlanRow> rows, TensorRole role) {
  std::size_t total = 0;
  for (const auto& r : rows)
    if (r.role == role)
      total += r.bytes();
  return total;
}

void roundTo(DType dtype, std::span<float> values) {
  if (dtype == DType::BF16)
    numeric::roundTripBf16(values);
  else if (dtype == DType::F16)
    numeric::roundTripF16(values);
}

std::vector<Parameter> Mlp::parameters() {
  std::vector<Parameter> out;
  const bool cast = detail::optimizerCastsWorking(m_params);
  for (int l = 0; l < layers(); ++l) {
    const auto in = std::uint64_t(m_spec.widths[l]), outs = std::uint64_t(m_spec.widths[l + 1]);
    detail::appendLayerParameters(out, l, m_params[l], m_grads[l], cast,
                                  "layers." + std::to_string(l), {outs, in}, true);
  }
  return out;
}

void Mlp::visitState(RunStateVisitor& v) {
  for (auto& s : m_scaled)
    s.visitState(v);
}

std::vector<LayerInfo> Mlp::layerInfo() const {
  std::vector<LayerInfo> info;
  for (int l = 0; l < layers(); ++l)
    info.push_back({"linear " + std::to_string(m_spec.widths[l]) + "→" +
                        std::to_string(m_spec.widths[l + 1]),
                    m_spec.widths[l], m_spec.widths[l + 1]});
  return info;
}

std::vector<nn::MatmulUse> Mlp::matmulUses() const {
  std::vector<nn::MatmulUse> uses;
  for (int l = 0; l < layers(); ++l)
    for (auto& u : m_linear[std::size_t(l)].uses(l, true))
      if (l > 0 || u.product != "dX") // layer 0 needs no gradient of its input
        uses.push_back(std::move(u));
  return uses;
}

std::int64_t Mlp::parameterCount() const {
  std::int64_t n = 0;
  for (const auto& p : m_params)
    n += p.w.size() + p.b.size();
  return n;
}

namespace {
} // namespace

std::map<std::string, std::size_t> Mlp::allocatedBytes() const {
  std::map<std::string, std::size_t> b{{"weights", 0},     {"master weights", 0},
                                       {"activations", 0}, {"gradients", 0},
                                       {"matmul FP32 copies", 0}, {"oneDNN scratchpad", 0}};
  const std::string params = m_recipe.masterWeights ? "master weights" : "weights";
  for (const auto& p : m_params) {
    b[params] += allocated(p.w) + allocated(p.b);
    b["weights"] += allocated(p.wLow); // 16-bit working copy
  }
  for (const auto& a : m_acts) {
    b["activations"] += allocated(a.in) + allocated(a.pre) + allocated(a.preBf16) + allocated(a.post);
    b["gradients"] += allocated(a.dpre) + allocated(a.dpreLow) + allocated(a.dIn) +
                      allocated(a.dInBf16);
  }
  for (const auto& g : m_grads)
    b["gradients"] += allocated(g.w) + allocated(g.b) + allocated(g.wStep) + allocated(g.bStep) +
                      allocated(g.wBf16);
  b["activations"] += allocated(m_x) + allocated(m_probs);
  for (const auto& l : m_linear) {
    b["matmul FP32 copies"] += l.fp32TwinBytes();
    b["oneDNN scratchpad"] += l.scratchpadBytes();
  }
  return b;
}

// Bytes at the recipe's precision: what an implementation storing each tensor
// natively holds. (Where this emulation keeps FP32 values rounded to BF16/FP16,
// the table still states the recipe's format, which is the point of the table.)
std::vector<PlanRow> Mlp::plan() const {
  std::vector<PlanRow> rows;
  const auto& r = m_recipe;
  const std::int64_t batch = m_batch;
  for (int l = 0; l < layers(); ++l) {
    const std::int64_t in = m_spec.widths[l], out = m_spec.widths[l + 1];
    const std::string p = "layer" + std::to_string(l) + ".";
    if (r.masterWeights) {
      rows.push_back({p + "W (master)", TensorRole::MasterWeights, DType::F32, in, out});
      rows.push_back({p + "b (master)", TensorRole::MasterWeights, DType::F32, 1, out});
    }
    rows.push_back({p + "W", TensorRole::Weights, r.weights, in, out});
    rows.push_back({p + "b", TensorRole::Weights, r.weights, 1, out});
    rows.push_back({p + "in", TensorRole::Activations, r.matmulInputs, batch, in});
    rows.push_back({p + "pre", TensorRole::Activations, r.activations, batch, out});
    if (l + 1 < layers())
      rows.push_back({p + "post", TensorRole::Activations, r.activations, batch, out});
    rows.push_back({p + "dW", TensorRole::Gradients, r.gradients, in, out});
    rows.push_back({p + "db", TensorRole::Gradients, r.gradients, 1, out});
    rows.push_back({p + "dpre", TensorRole::Gradients, r.gradients, batch, out});
    if (l > 0)
      rows.push_back({p + "dIn", TensorRole::Gradients, r.gradients, batch, in});
  }
  rows.push_back({"probs", TensorRole::Activations, r.loss, batch, m_spec.widths.back()});
  return rows;
}

namespace {

std::unique_ptr<Network> buildMlp(const ModelBuild& b) {
  const auto spec = parseMlpSpec(b.spec);
  const data::Dataset& train = *b.images;
  if (spec.widths.front() != train.features)
    throw std::invalid_argument("model: input width " + std::to_string(spec.widths.front()) +
                                " does not match the data's " + std::to_string(train.features) +
                                " features (" + train.name + ")");
  if (spec.widths.back() != train.classes)
    throw std::invalid_argument("model: output width " + std::to_string(spec.widths.back()) +
                                " does not match the data's " + std::to_string(train.classes) +
                                " classes (" + train.name + ")");
  return std::make_unique<Mlp>(spec, b.batch, *b.recipe, b.gradAccumulation);
}

ModelSizes mlpSizes(const ModelBuild& b) {
  const auto spec = parseMlpSpec(b.spec);
  const std::uint64_t B = std::uint64_t(std::max(b.batch, 0));
  ModelSizes s;
  for (std::size_t l = 0; l + 1 < spec.widths.size(); ++l) {
    const std::uint64_t in = std::uint64_t(spec.widths[l]), out = std::uint64_t(spec.widths[l + 1]);
    s.params = sizeAdd(s.params, sizeAdd(sizeMul(in, out), out));
    s.activations = sizeAdd(s.activations, sizeMul(2, sizeMul(B, out))); // pre, post
    s.gradBuffers = sizeAdd(s.gradBuffers, sizeMul(B, out));             // dpre
    if (l > 0)
      s.gradBuffers = sizeAdd(s.gradBuffers, sizeMul(B, in)); // dIn
  }
  s.activations = sizeAdd(s.activations, sizeMul(B, std::uint64_t(spec.widths.front()))); // x
  return s;
}

constexpr ModelOffer kMlpOffers[] = {{"mlp:784-256-256-10:relu", "mlp:784-256-256-10:relu", ""}};

} // namespace

extern const ModelKind kind_mlp;
const ModelKind kind_mlp{
    .name = "mlp",
    .prefix = "mlp:",
    .title = "MLP",
    .noun = "an MLP",
    .description = "a multilayer perceptron on images: mlp:784-256-256-10:relu",
    .input = ModelInput::Images,
    .offered = kMlpOffers,
    .parse = [](std::string_view s) { parseMlpSpec(s); },
    .build = buildMlp,
    .sizes = mlpSizes,
    .fp64Reference =
        [](const Network& n) -> std::unique_ptr<ShadowReference> {
      return ref64::makeMlpReference(dynamic_cast<const Mlp&>(n));
    },
};

} // namespace mantissa::model
