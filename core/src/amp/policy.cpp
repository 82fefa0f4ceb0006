// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/amp/policy.h>
#include <mantissa/io/excerpt.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/numeric/format_spec.h>

#include <algorithm>
#include <charconv>
#include <optional>

namespace mantissa::amp {
namespace {

constexpr DType F32 = DType::F32;
constexpr DType BF16 = DType::BF16;
constexpr DType F16 = DType::F16;

constexpr std::array<OpClass, kOpClassCount> kClasses{
    OpClass::MatmulInputs, OpClass::MatmulAccumulation, OpClass::Activations, OpClass::Residual,
    OpClass::Softmax,      OpClass::NormStatistics,     OpClass::Gelu,        OpClass::Embedding,
    OpClass::Loss,         OpClass::Gradients,          OpClass::MasterWeights, OpClass::OptimizerState,
    OpClass::BatchNorm};

constexpr std::array<std::string_view, kOpClassCount> kKeys{
    "matmul-inputs", "matmul-accumulation", "activations", "residual",
    "softmax",       "norm-stats",          "gelu",        "embedding",
    "loss",          "gradients",           "master-weights", "optimizer-state",
    "batchnorm"};

constexpr std::array<std::string_view, kOpClassCount> kLabels{
    "matmul inputs", "matmul accumulation", "activations stored for backward", "residual stream",
    "softmax",       "LayerNorm/RMSNorm statistics", "GELU", "embedding",
    "loss",          "gradients",           "master weights", "optimizer state",
    "BatchNorm statistics"};

// Columns: matmul-inputs, accumulation, activations, residual, softmax,
// norm-stats, gelu, embedding, loss, gradients, master-weights, optimizer-state,
// batchnorm.
Policy make(std::string_view name, std::array<DType, kOpClassCount> table, bool scaling) {
  Policy p;
  p.name = std::string(name);
  p.table = table;
  p.lossScaling = scaling;
  return p;
}

const std::vector<PolicyPreset>& presets() {
  static const std::vector<PolicyPreset> list{
      {"fp32", "Everything in FP32: the reference.",
       make("fp32", {F32, F32, F32, F32, F32, F32, F32, F32, F32, F32, F32, F32, F32}, false)},
      {"autocast-cpu-bf16",
       "PyTorch's CPU autocast lists: linear and attention products take BF16 inputs and store "
       "BF16 outputs; cross-entropy is on the FP32 list; ops on neither list (GELU, LayerNorm, "
       "softmax) run on what they receive, with FP32 statistics and softmax inside the CPU "
       "kernels; parameters, their gradients and the optimizer stay FP32; no loss scaling.",
       make("autocast-cpu-bf16",
            {BF16, F32, BF16, F32, F32, F32, BF16, F32, F32, BF16, F32, F32, F32}, false)},
      {"autocast-cuda-fp16",
       "PyTorch's CUDA autocast lists with GradScaler: products in FP16 with FP32 accumulation; "
       "softmax, layer_norm and cross-entropy on the FP32 list; GELU on FP16 inputs; FP32 "
       "parameters and optimizer; dynamic loss scaling.",
       make("autocast-cuda-fp16",
            {F16, F32, F16, F32, F32, F32, F16, F32, F32, F16, F32, F32, F32}, true)},
      {"llm.c",
       "llm.c's mixed precision: BF16 parameters, activations and residual stream; FP32 "
       "LayerNorm statistics, softmax, loss, master weights and AdamW moments.",
       make("llm.c", {BF16, F32, BF16, BF16, F32, F32, BF16, BF16, F32, BF16, F32, F32, F32}, false)},
      {"all-bf16", "Every op in BF16, accumulation included: nothing kept in FP32.",
       make("all-bf16",
            {BF16, BF16, BF16, BF16, BF16, BF16, BF16, BF16, BF16, BF16, BF16, BF16, BF16}, false)},
      {"all-fp16", "Every op in FP16, accumulation included: nothing kept in FP32.",
       make("all-fp16", {F16, F16, F16, F16, F16, F16, F16, F16, F16, F16, F16, F16, F16}, false)},
  };
  return list;
}

// Outside input in a message: a bounded excerpt (a 120 KB spec is not echoed whole).
std::string quoted(std::string_view s) {
  return "\"" + io::excerpt(s) + "\"";
}

template <class Range> std::string joined(const Range& names) {
  std::string out;
  for (const auto& n : names)
    out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

// "; did you mean "x"?" when some candidate is within a third of the length.
template <class Range> std::string suggestion(std::string_view word, const Range& candidates) {
  std::string_view best;
  std::size_t bestDistance = std::string_view::npos;
  for (const auto& c : candidates) {
    const std::size_t d = editDistance(word, c);
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  if (best.empty() || bestDistance > std::max<std::size_t>(2, best.size() / 3))
    return "";
  return "; did you mean " + quoted(best) + "?";
}

[[noreturn]] void fail(std::string_view spec, const std::string& problem) {
  throw PolicyError("policy " + quoted(spec) + ": " + problem);
}

const std::array<std::string_view, 3> kPrecisions{"fp32", "bf16", "fp16"};

constexpr std::array<std::string_view, 4> kLinearLayers{"qkv", "attproj", "fc", "fcproj"};

// A per-layer key "hN.KEY" or "hN.LINEAR.KEY": the layer, its block and the key.
struct LayerKey {
  std::string_view layer; // "h1", "h1.fc"
  int block = 0;
  bool linear = false;    // one linear layer, not a whole block
  std::string_view key;   // "matmul-inputs", ...
};

// nullopt when `key` names no layer (no "hN." start); throws for a malformed one.
std::optional<LayerKey> layerKey(std::string_view spec, std::string_view key) {
  if (key.size() < 3 || key[0] != 'h' || key[1] < '0' || key[1] > '9')
    return std::nullopt;
  std::size_t i = 1;
  int block = 0;
  while (i < key.size() && key[i] >= '0' && key[i] <= '9') {
    block = block * 10 + (key[i] - '0');
    if (block >= 1 << 20)
      break;
    ++i;
  }
  if (i >= key.size() || key[i] != '.')
    return std::nullopt;
  if ((key[1] == '0' && i > 2) || block >= 1 << 20)
    fail(spec, "layer " + quoted(key.substr(0, i)) + ": a block is h0, h1, ... (no leading zeros)");
  LayerKey k;
  k.block = block;
  std::string_view rest = key.substr(i + 1);
  k.layer = key.substr(0, i);
  if (const std::size_t dot = rest.find('.'); dot != std::string_view::npos) {
    const std::string_view linear = rest.substr(0, dot);
    if (std::find(kLinearLayers.begin(), kLinearLayers.end(), linear) == kLinearLayers.end())
      fail(spec, "unknown layer " + quoted(key.substr(0, i + 1 + dot)) +
                     suggestion(linear, kLinearLayers) +
                     " (layers: hN, hN.qkv, hN.attproj, hN.fc, hN.fcproj)");
    k.layer = key.substr(0, i + 1 + dot);
    k.linear = true;
    rest = rest.substr(dot + 1);
  }
  k.key = rest;
  return k;
}

// Sort key of a layer name: block, then the block's own row, then its linear layers in order.
std::pair<int, int> layerOrder(std::string_view layer) {
  int block = 0;
  std::size_t i = 1;
  while (i < layer.size() && layer[i] >= '0' && layer[i] <= '9')
    block = block * 10 + (layer[i++] - '0');
  if (i >= layer.size())
    return {block, -1};
  const auto it = std::find(kLinearLayers.begin(), kLinearLayers.end(), layer.substr(i + 1));
  return {block, int(it - kLinearLayers.begin())};
}

} // namespace

std::span<const std::string_view> gptLinearLayers() {
  return kLinearLayers;
}

const LayerPolicy* Policy::layer(std::string_view layerName) const {
  for (const LayerPolicy& l : layers)
    if (l.layer == layerName)
      return &l;
  return nullptr;
}

LayerPolicy& Policy::layerRow(std::string_view layerName) {
  for (LayerPolicy& l : layers)
    if (l.layer == layerName)
      return l;
  const auto at = std::find_if(layers.begin(), layers.end(), [&](const LayerPolicy& l) {
    return layerOrder(layerName) < layerOrder(l.layer);
  });
  LayerPolicy row;
  row.layer = std::string(layerName);
  return *layers.insert(at, std::move(row));
}

LinearInputs Policy::linearInputs(int block, std::string_view linear) const {
  const std::string blockName = "h" + std::to_string(block);
  for (const std::string& rowName : {blockName + "." + std::string(linear), blockName})
    if (const LayerPolicy* l = layer(rowName); l && l->matmulInputs)
      return {*l->matmulInputs, l->scaling, true};
  return {(*this)[OpClass::MatmulInputs], scaling, false};
}

DType Policy::softmaxOf(int block) const {
  const LayerPolicy* l = layer("h" + std::to_string(block));
  return l && l->softmax ? *l->softmax : (*this)[OpClass::Softmax];
}

int Policy::blocksNamed() const {
  int n = 0;
  for (const LayerPolicy& l : layers)
    n = std::max(n, layerOrder(l.layer).first + 1);
  return n;
}

std::string_view opClassKey(OpClass c) {
  return kKeys[static_cast<std::size_t>(c)];
}
std::string_view opClassLabel(OpClass c) {
  return kLabels[static_cast<std::size_t>(c)];
}
std::span<const OpClass> opClasses() {
  return kClasses;
}

std::string_view precisionKey(DType dtype) {
  return dtype == F32 ? "fp32" : dtype == BF16 ? "bf16" : "fp16";
}

std::span<const PolicyPreset> policyPresets() {
  return presets();
}

std::vector<std::string> policyPresetNames() {
  std::vector<std::string> names;
  for (const auto& p : presets())
    names.emplace_back(p.name);
  return names;
}

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

namespace {

// A policy's starting point: a preset, or a recipe (policyForRecipe), named
// as the recipe.
std::optional<Policy> basePolicy(std::string_view name) {
  for (const auto& p : presets())
    if (p.name == name)
      return p.policy;
  if (const Recipe* r = findRecipe(name)) {
    Policy p = policyForRecipe(*r);
    p.name = std::string(name);
    return p;
  }
  return std::nullopt;
}

std::vector<std::string> recipeBaseNames() {
  std::vector<std::string> names;
  for (const Recipe& r : recipes())
    names.emplace_back(r.name);
  return names;
}

} // namespace

std::string Policy::toSpec() const {
  std::string spec = name;
  const std::optional<Policy> baseline = basePolicy(name);
  const Policy* base = baseline ? &*baseline : nullptr;
  for (const OpClass c : kClasses) {
    if (c == OpClass::MatmulInputs && scaling.scheme == MatmulScaling::Unscaled) {
      spec += ",matmul-inputs=" + scaling.element;
      continue;
    }
    if (c == OpClass::MatmulInputs && scaling.scheme != MatmulScaling::None) {
      spec += ",matmul-inputs=" + std::string(matmulScalingName(scaling.scheme));
      continue;
    }
    if (!base || (*base)[c] != (*this)[c])
      spec += "," + std::string(opClassKey(c)) + "=" + std::string(precisionKey((*this)[c]));
  }
  const ScalingOptions defaults;
  if (scaling.historyLength != defaults.historyLength)
    spec += ",fp8-history=" + std::to_string(scaling.historyLength);
  if (scaling.amaxCompute != defaults.amaxCompute)
    spec += ",fp8-amax=" + std::string(amaxComputeName(scaling.amaxCompute));
  if (scaling.margin != defaults.margin)
    spec += ",fp8-margin=" + std::to_string(scaling.margin);
  if (!scaling.element.empty() && scaling.scheme != MatmulScaling::Unscaled)
    spec += ",element=" + scaling.element;
  if (!scaling.gradElement.empty())
    spec += ",grad-element=" + scaling.gradElement;
  if (scaling.blockScale != BlockScale::Default)
    spec += ",block-scale=" + std::string(blockScaleName(scaling.blockScale));
  if (promoteEvery > 0)
    spec += ",promote-every=" + std::to_string(promoteEvery);
  if (!softmaxMax)
    spec += ",softmax-max=off";
  if (base && base->lossScaling != lossScaling)
    spec += std::string(",loss-scaling=") + (lossScaling ? "on" : "off");
  if (base ? base->update != update : update != UpdateRounding::Nearest)
    spec += ",update=" + std::string(updateRoundingKey(update));
  for (const LayerPolicy& l : layers) {
    if (l.matmulInputs) {
      spec += "," + l.layer + ".matmul-inputs=" +
              (l.scaling.scheme == MatmulScaling::Unscaled ? l.scaling.element
               : l.scaling.scheme != MatmulScaling::None
                   ? std::string(matmulScalingName(l.scaling.scheme))
                   : std::string(precisionKey(*l.matmulInputs)));
      if (l.scaling.scheme != MatmulScaling::Unscaled && l.scaling.scheme != MatmulScaling::None &&
          !l.scaling.element.empty())
        spec += "," + l.layer + ".element=" + l.scaling.element;
    }
    if (l.softmax)
      spec += "," + l.layer + ".softmax=" + std::string(precisionKey(*l.softmax));
  }
  return spec;
}

Policy parsePolicy(std::string_view spec) {
  if (spec.empty())
    throw PolicyError("policy \"\": empty; give a preset name: " + joined(policyPresetNames()));
  const std::size_t comma = spec.find(',');
  const std::string_view name = spec.substr(0, comma);
  const std::optional<Policy> base = basePolicy(name);
  if (!base) {
    std::vector<std::string> all = policyPresetNames();
    const std::vector<std::string> recipeList = recipeBaseNames();
    all.insert(all.end(), recipeList.begin(), recipeList.end());
    fail(spec, "unknown preset " + quoted(name) + suggestion(name, all) +
                   " (presets: " + joined(policyPresetNames()) + "; or a recipe: " +
                   joined(recipeList) + ")");
  }
  Policy policy = *base;
  std::vector<std::string_view> seen;
  std::string_view rest = comma == std::string_view::npos ? "" : spec.substr(comma + 1);
  if (comma != std::string_view::npos && rest.empty())
    fail(spec, "nothing after the last comma; expected class=precision");
  // Items; a format spec's own fields (bias=, special=, subnormals=, sign=)
  // after a value with a colon belong to that value: "element=e4m3:bias=8,special=fnuz".
  std::vector<std::string_view> items;
  while (!rest.empty()) {
    const std::size_t next = rest.find(',');
    const std::string_view item = rest.substr(0, next);
    rest = next == std::string_view::npos ? "" : rest.substr(next + 1);
    if (next != std::string_view::npos && rest.empty())
      fail(spec, "nothing after the last comma; expected class=precision");
    const std::string_view itemKey = item.substr(0, item.find('='));
    const bool formatField = itemKey == "bias" || itemKey == "special" ||
                             itemKey == "subnormals" || itemKey == "sign";
    if (formatField && !items.empty() &&
        items.back().substr(items.back().find('=') + 1).find(':') != std::string_view::npos) {
      // Extend the previous item over this one (both views into `spec`).
      items.back() = std::string_view(items.back().data(),
                                      static_cast<std::size_t>(item.data() + item.size() -
                                                               items.back().data()));
      continue;
    }
    items.push_back(item);
  }
  for (const std::string_view item : items) {
    const std::size_t eq = item.find('=');
    if (item.empty() || eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
      fail(spec, quoted(item) + " is not class=precision (e.g. softmax=fp16)");
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      fail(spec, quoted(key) + " is set twice");
    seen.push_back(key);
    if (key == "promote-every") {
      int n = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || end != value.data() + value.size() || n < 1 ||
          n > kMaxPromoteEvery)
        fail(spec, "promote-every must be a whole number of products from 1 to " +
                       std::to_string(kMaxPromoteEvery) + ", got " + quoted(value));
      policy.promoteEvery = n;
      continue;
    }
    if (key == "fp8-history" || key == "fp8-margin") {
      const bool history = key == "fp8-history";
      const int lo = history ? 1 : 0, hi = history ? kMaxAmaxHistory : kMaxScalingMargin;
      int n = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || end != value.data() + value.size() || n < lo || n > hi)
        fail(spec, std::string(key) + " must be a whole number from " + std::to_string(lo) +
                       " to " + std::to_string(hi) + ", got " + quoted(value));
      (history ? policy.scaling.historyLength : policy.scaling.margin) = n;
      continue;
    }
    if (key == "fp8-amax") {
      const std::array<std::string_view, 2> algos{"max", "most-recent"};
      if (value != algos[0] && value != algos[1])
        fail(spec, "fp8-amax is max or most-recent, got " + quoted(value) +
                       suggestion(value, algos));
      policy.scaling.amaxCompute = value == algos[0] ? AmaxCompute::Max : AmaxCompute::MostRecent;
      continue;
    }
    if (key == "softmax-max" || key == "loss-scaling") {
      if (value != "on" && value != "off")
        fail(spec, std::string(key) + " is on or off, got " + quoted(value) +
                       suggestion(value, std::array<std::string_view, 2>{"on", "off"}));
      (key == "softmax-max" ? policy.softmaxMax : policy.lossScaling) = value == "on";
      continue;
    }
    if (key == "update") {
      const std::array<std::string_view, 3> kinds{"nearest", "stochastic", "kahan"};
      const auto k = std::find(kinds.begin(), kinds.end(), value);
      if (k == kinds.end())
        fail(spec, "update is nearest, stochastic or kahan, got " + quoted(value) +
                       suggestion(value, kinds));
      policy.update = k == kinds.begin()       ? UpdateRounding::Nearest
                      : k == kinds.begin() + 1 ? UpdateRounding::Stochastic
                                               : UpdateRounding::Kahan;
      continue;
    }
    if (key == "element" || key == "grad-element") {
      const numeric::FormatParse f = numeric::parseFormatSpec(value);
      if (!f.format)
        fail(spec, std::string(key) + ": " + f.error);
      (key == "element" ? policy.scaling.element : policy.scaling.gradElement) = f.format->name;
      continue;
    }
    if (key == "block-scale") {
      const std::array<std::string_view, 3> scales{"e8m0", "ue8m0", "ue4m3"};
      if (std::find(scales.begin(), scales.end(), value) == scales.end())
        fail(spec, "block-scale is e8m0 or ue4m3, got " + quoted(value) +
                       suggestion(value, scales));
      policy.scaling.blockScale = value == "ue4m3" ? BlockScale::Ue4m3 : BlockScale::E8m0;
      continue;
    }
    if (const std::optional<LayerKey> lk = layerKey(spec, key)) {
      LayerPolicy& row = policy.layerRow(lk->layer);
      const std::string field = std::string(key);
      if (lk->key == "softmax") {
        if (lk->linear)
          fail(spec, field + ": the softmax is set per block (h" + std::to_string(lk->block) +
                         ".softmax)");
        const auto pit = std::find(kPrecisions.begin(), kPrecisions.end(), value);
        if (pit == kPrecisions.end())
          fail(spec, "unknown precision " + quoted(value) + " for " + field +
                         suggestion(value, kPrecisions) + " (precisions: fp32, bf16, fp16)");
        row.softmax = pit == kPrecisions.begin() ? F32 : pit == kPrecisions.begin() + 1 ? BF16 : F16;
        continue;
      }
      if (lk->key == "element") {
        const numeric::FormatParse f = numeric::parseFormatSpec(value);
        if (!f.format)
          fail(spec, field + ": " + f.error);
        row.scaling.element = f.format->name;
        continue;
      }
      if (lk->key != "matmul-inputs")
        fail(spec, "unknown per-layer key " + quoted(key) +
                       suggestion(lk->key, std::array<std::string_view, 3>{"matmul-inputs", "element",
                                                                           "softmax"}) +
                       " (per layer: matmul-inputs, element; per block also softmax)");
      if (const auto scheme = parseMatmulScaling(value)) {
        row.scaling.scheme = *scheme;
        row.matmulInputs = BF16;
        continue;
      }
      if (const auto pit = std::find(kPrecisions.begin(), kPrecisions.end(), value);
          pit != kPrecisions.end()) {
        row.matmulInputs = pit == kPrecisions.begin() ? F32 : pit == kPrecisions.begin() + 1 ? BF16 : F16;
        continue;
      }
      const numeric::FormatParse f = numeric::parseFormatSpec(value);
      if (!f.format)
        fail(spec, field + ": " + f.error + " (a precision fp32, bf16, fp16, a recipe such as "
                                            "fp8-current or mxfp8, or an element format)");
      if (f.format->id == numeric::FormatId::Fp32 || f.format->id == numeric::FormatId::Bf16 ||
          f.format->id == numeric::FormatId::Fp16) {
        row.matmulInputs = f.format->id == numeric::FormatId::Fp32   ? F32
                           : f.format->id == numeric::FormatId::Bf16 ? BF16
                                                                     : F16;
        continue;
      }
      if (const std::string e = elementFormatError(*f.format, MatmulScaling::Unscaled); !e.empty())
        fail(spec, field + ": " + e);
      row.scaling.scheme = MatmulScaling::Unscaled;
      row.scaling.element = f.format->name;
      row.matmulInputs = BF16;
      continue;
    }
    const auto it = std::find(kKeys.begin(), kKeys.end(), key);
    if (it == kKeys.end()) {
      std::vector<std::string_view> all(kKeys.begin(), kKeys.end());
      all.insert(all.end(), {"promote-every", "softmax-max", "loss-scaling", "update", "fp8-history",
                             "fp8-amax", "fp8-margin", "element", "grad-element", "block-scale"});
      fail(spec, "unknown op class " + quoted(key) + suggestion(key, all) +
                     " (classes: " + joined(all) + ")");
    }
    const bool inputs = kClasses[static_cast<std::size_t>(it - kKeys.begin())] ==
                        OpClass::MatmulInputs;
    if (inputs) {
      if (const auto scheme = parseMatmulScaling(value)) {
        policy.scaling.scheme = *scheme;
        policy[OpClass::MatmulInputs] = BF16;
        continue;
      }
    }
    const auto pit = std::find(kPrecisions.begin(), kPrecisions.end(), value);
    if (pit == kPrecisions.end() && inputs) {
      // Any element format: the linear layers' operands rounded to it, unscaled.
      const numeric::FormatParse f = numeric::parseFormatSpec(value);
      if (f.format && f.format->id != numeric::FormatId::Fp32 &&
          f.format->id != numeric::FormatId::Bf16 && f.format->id != numeric::FormatId::Fp16) {
        if (const std::string e = elementFormatError(*f.format, MatmulScaling::Unscaled);
            !e.empty())
          fail(spec, "matmul-inputs: " + e);
        policy.scaling.scheme = MatmulScaling::Unscaled;
        policy.scaling.element = f.format->name;
        policy[OpClass::MatmulInputs] = BF16;
        continue;
      }
      if (f.format) { // fp32, bf16, fp16 by another spelling
        policy[OpClass::MatmulInputs] = f.format->id == numeric::FormatId::Fp32   ? F32
                                        : f.format->id == numeric::FormatId::Bf16 ? BF16
                                                                                  : F16;
        continue;
      }
      if (value.find(':') != std::string_view::npos)
        fail(spec, "matmul-inputs: " + f.error);
    }
    if (pit == kPrecisions.end()) {
      std::vector<std::string_view> all(kPrecisions.begin(), kPrecisions.end());
      if (inputs)
        for (const MatmulScaling m : matmulScalings())
          all.push_back(matmulScalingName(m));
      fail(spec, "unknown precision " + quoted(value) + " for " + std::string(key) +
                     suggestion(value, all) + " (precisions: " + joined(all) +
                     (inputs ? "; or an element format such as e3m4 or e4m3:bias=8,special=fnuz"
                             : "") +
                     ")");
    }
    const DType dtype = pit == kPrecisions.begin() ? F32 : pit == kPrecisions.begin() + 1 ? BF16 : F16;
    policy[kClasses[static_cast<std::size_t>(it - kKeys.begin())]] = dtype;
  }
  const ScalingOptions defaults;
  const MatmulScaling scheme = policy.scaling.scheme;
  // A setting given that cannot apply is an error, even at its default value
  // (fp8-history=1024 without FP8 would otherwise be accepted and dropped).
  const auto given = [&](std::string_view key) {
    return std::find(seen.begin(), seen.end(), key) != seen.end();
  };
  if ((given("fp8-history") || given("fp8-amax") ||
       policy.scaling.historyLength != defaults.historyLength ||
       policy.scaling.amaxCompute != defaults.amaxCompute) &&
      scheme != MatmulScaling::Fp8Delayed)
    fail(spec, "fp8-history and fp8-amax tune delayed scaling: they need matmul-inputs=fp8-delayed");
  if ((given("fp8-margin") || policy.scaling.margin != defaults.margin) &&
      scheme != MatmulScaling::Fp8Delayed && scheme != MatmulScaling::Fp8Current)
    fail(spec, "fp8-margin needs matmul-inputs=fp8-delayed or fp8-current");
  if (given("element") && scheme == MatmulScaling::Unscaled)
    fail(spec, "element: matmul-inputs already names the element format");
  if ((given("element") || given("grad-element")) && scheme == MatmulScaling::None)
    fail(spec, "element and grad-element need matmul-inputs=fp8-delayed, fp8-current, fp8-block, "
               "mxfp8, nvfp4 or an element format");
  if (given("block-scale") && scheme != MatmulScaling::Mxfp8 && scheme != MatmulScaling::Nvfp4)
    fail(spec, "block-scale needs matmul-inputs=mxfp8 or nvfp4");
  if (scheme != MatmulScaling::None) {
    try { // the element formats against the recipe (fp8 recipes: 8 bits)
      (void)operandElement(policy.scaling, telemetry::ScaledRole::Input);
      (void)operandElement(policy.scaling, telemetry::ScaledRole::GradOutput);
    } catch (const std::invalid_argument& e) {
      fail(spec, e.what());
    }
  }
  if (scheme != MatmulScaling::None && policy[OpClass::MatmulAccumulation] != F32)
    fail(spec, "matmul-inputs=" + std::string(matmulScalingName(scheme)) +
                   " multiplies in FP32: it cannot take a 16-bit matmul-accumulation");
  if (policy.update != UpdateRounding::Nearest && policy[OpClass::MasterWeights] != BF16)
    fail(spec, "update=" + std::string(updateRoundingKey(policy.update)) +
                   " rounds BF16 master weights: it needs master-weights=bf16");
  if ((given("promote-every") || policy.promoteEvery > 0) &&
      policy[OpClass::MatmulAccumulation] == F32)
    fail(spec, "promote-every needs a 16-bit matmul-accumulation (e.g. matmul-accumulation=fp16)");
  for (const LayerPolicy& l : policy.layers) {
    const MatmulScaling s = l.scaling.scheme;
    if (given(l.layer + ".element") && s == MatmulScaling::Unscaled)
      fail(spec, l.layer + ".element: " + l.layer + ".matmul-inputs already names the element format");
    if (given(l.layer + ".element") && s == MatmulScaling::None)
      fail(spec, l.layer + ".element needs " + l.layer +
                     ".matmul-inputs=fp8-delayed, fp8-current, fp8-block, mxfp8 or nvfp4");
    if (s == MatmulScaling::None)
      continue;
    try {
      (void)operandElement(l.scaling, telemetry::ScaledRole::Input);
      (void)operandElement(l.scaling, telemetry::ScaledRole::GradOutput);
    } catch (const std::invalid_argument& e) {
      fail(spec, l.layer + "." + e.what());
    }
    if (policy[OpClass::MatmulAccumulation] != F32)
      fail(spec, l.layer + ".matmul-inputs=" +
                     (s == MatmulScaling::Unscaled ? l.scaling.element
                                                   : std::string(matmulScalingName(s))) +
                     " multiplies in FP32: it cannot take a 16-bit matmul-accumulation");
  }
  return policy;
}

std::string policySpecFromFile(std::string_view text) {
  std::string spec;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    line = line.substr(0, line.find('#'));
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (!line.empty() && blank(line.front()))
      line.remove_prefix(1);
    while (!line.empty() && blank(line.back()))
      line.remove_suffix(1);
    if (!line.empty())
      spec += (spec.empty() ? "" : ",") + std::string(line);
  }
  return spec;
}

std::vector<PolicyRow> policyTable(const Policy& policy) {
  std::vector<PolicyRow> rows;
  for (const OpClass c : kClasses) {
    std::string precision(precisionKey(policy[c]));
    if (c == OpClass::MatmulInputs && policy.scaling.scheme != MatmulScaling::None) {
      precision = std::string(matmulScalingName(policy.scaling.scheme)) + " (linear layers: " +
                  scalingPrecision(policy.scaling) + "; other products bf16)";
      if (policy.scaling.scheme == MatmulScaling::Fp8Delayed)
        precision += ", amax history " + std::to_string(policy.scaling.historyLength) + " (" +
                     std::string(amaxComputeName(policy.scaling.amaxCompute)) + ")";
      if (policy.scaling.margin != 0)
        precision += ", margin " + std::to_string(policy.scaling.margin);
    }
    if (c == OpClass::MatmulAccumulation && policy[c] != F32)
      precision += policy.promoteEvery > 0
                       ? ", promoted to fp32 every " + std::to_string(policy.promoteEvery) + " products"
                       : ", rounded after every addition";
    if (c == OpClass::Softmax && !policy.softmaxMax)
      precision += ", no max subtraction";
    rows.push_back({std::string(opClassLabel(c)), precision});
  }
  rows.push_back({"loss scaling", policy.lossScaling ? "dynamic" : "none"});
  for (const LayerPolicy& l : policy.layers) {
    if (l.matmulInputs)
      rows.push_back({l.layer + " matmul inputs",
                      l.scaling.scheme == MatmulScaling::None
                          ? std::string(precisionKey(*l.matmulInputs))
                          : l.scaling.scheme == MatmulScaling::Unscaled
                              ? l.scaling.element + " (unscaled)"
                              : std::string(matmulScalingName(l.scaling.scheme)) + " (" +
                                    scalingPrecision(l.scaling) + ")"});
    if (l.softmax)
      rows.push_back({l.layer + " softmax", std::string(precisionKey(*l.softmax))});
  }
  return rows;
}

std::string_view updateRoundingKey(UpdateRounding u) {
  return u == UpdateRounding::Stochastic ? "stochastic"
         : u == UpdateRounding::Kahan    ? "kahan"
                                         : "nearest";
}

Policy policyForRecipe(const Recipe& r) {
  Policy p = parsePolicy("fp32");
  p[OpClass::MatmulInputs] = r.matmulInputs;
  p[OpClass::MatmulAccumulation] = r.accumulation;
  p[OpClass::Activations] = r.activations;
  p[OpClass::Gelu] = r.activations;
  p[OpClass::Loss] = r.loss;
  p[OpClass::Gradients] = r.gradients;
  p[OpClass::MasterWeights] = r.masterWeights ? DType::F32 : r.weights;
  p[OpClass::OptimizerState] = r.optimizerState;
  p.lossScaling = r.lossScaling;
  p.scaling.scheme = r.scaling;
  p.update = r.updateRounding;
  return p;
}

} // namespace mantissa::amp
