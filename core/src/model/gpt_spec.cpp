// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// GPT spec parsing: "gpt:layers=4,heads=4,embd=128,ctx=64".
#include <mantissa/amp/policy.h>
#include <mantissa/model/gpt.h>
#include <mantissa/model/gpt_network.h>
#include <mantissa/model/model_registry.h>

#include "reference64.h"

#include <algorithm>

#include <array>
#include <charconv>
#include <stdexcept>

#include <mantissa/io/excerpt.h>

namespace mantissa::model {
namespace {

[[noreturn]] void fail(std::string_view spec, const std::string& problem) {
  throw std::invalid_argument("model spec '" + io::excerpt(spec) + "': " + problem +
                              " (expected e.g. gpt:layers=4,heads=4,embd=128,ctx=64)");
}

struct Field {
  std::string_view key;
  int GptSpec::*member;
  int max;
};

constexpr std::array<Field, 4> kFields{Field{"layers", &GptSpec::layers, kGptMaxLayers},
                                       Field{"heads", &GptSpec::heads, kGptMaxHeads},
                                       Field{"embd", &GptSpec::embd, kGptMaxEmbd},
                                       Field{"ctx", &GptSpec::ctx, kGptMaxCtx}};

} // namespace

bool isGptSpec(std::string_view spec) {
  return spec == "gpt" || spec.starts_with("gpt:");
}

GptSpec parseGptSpec(std::string_view spec) {
  if (!isGptSpec(spec))
    fail(spec, "must be 'gpt' or start with 'gpt:'");
  GptSpec result;
  if (spec == "gpt")
    return result;
  std::string_view rest = spec.substr(4);
  if (rest.empty())
    fail(spec, "nothing after 'gpt:'");
  std::array<bool, kFields.size()> seen{};
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0)
      fail(spec, "'" + io::excerpt(item) + "' is not key=value");
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    std::size_t index = kFields.size();
    for (std::size_t i = 0; i < kFields.size(); ++i)
      if (kFields[i].key == key)
        index = i;
    if (index == kFields.size()) {
      std::string hint;
      for (const Field& f : kFields)
        if (amp::editDistance(key, f.key) <= 2)
          hint = "; did you mean '" + std::string(f.key) + "'?";
      fail(spec, "unknown key '" + io::excerpt(key) + "'" + hint +
                     " (keys: layers, heads, embd, ctx)");
    }
    if (seen[index])
      fail(spec, "'" + io::excerpt(key) + "' is given twice");
    seen[index] = true;
    const Field& f = kFields[index];
    int n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (value.empty() || ec == std::errc::invalid_argument || end != value.data() + value.size())
      fail(spec, io::excerpt(key) + " '" + io::excerpt(value) + "' is not a whole number");
    if (ec == std::errc::result_out_of_range || n < 1 || n > f.max)
      fail(spec, io::excerpt(key) + " " + io::excerpt(value) + " is outside [1, " +
                     std::to_string(f.max) + "]");
    result.*(f.member) = n;
    if (comma == std::string_view::npos)
      break;
    rest = rest.substr(comma + 1);
    if (rest.empty())
      fail(spec, "trailing ','");
  }
  if (result.embd % result.heads != 0)
    fail(spec, "embd " + std::to_string(result.embd) + " is not divisible by heads " +
                   std::to_string(result.heads));
  return result;
}

namespace {

ModelSizes gptSizes(const ModelBuild& b) {
  const GptSpec spec = parseGptSpec(b.spec);
  const std::uint64_t B = std::uint64_t(std::max(b.batch, 0)), T = std::uint64_t(spec.ctx),
                      C = std::uint64_t(spec.embd), H = std::uint64_t(spec.heads),
                      L = std::uint64_t(spec.layers), V = std::uint64_t(std::max(b.vocabulary, 0));
  const std::uint64_t N = sizeMul(B, T);
  // Parameters (Gpt's constructor): wte, wpe, per block ln1, qkv, attproj,
  // ln2, fc, fcproj (weights and biases), lnf.
  const std::uint64_t perBlockParams = sizeAdd(sizeMul(12, sizeMul(C, C)), sizeMul(13, C));
  const std::uint64_t params =
      sizeAdd(sizeAdd(sizeMul(V, C), sizeMul(T, C)), sizeAdd(sizeMul(L, perBlockParams), 2 * C));
  const std::uint64_t NC = sizeMul(N, C), scores = sizeMul(sizeMul(B, H), sizeMul(T, T));
  // Per block: x, ln1, atty, attproj, r, ln2, fcproj (N x C), qkv (N x 3C),
  // fch and gelu (N x 4C), attention q, k, v (N x C) and probs.
  const std::uint64_t blockActs = sizeAdd(sizeMul(21, NC), scores);
  // Shared by the blocks: attention's scores and O (backward's dP and dO);
  // encoded, xL, lnf; logits and probabilities (N x V).
  const std::uint64_t activations = sizeAdd(
      sizeAdd(sizeAdd(sizeMul(L, blockActs), scores), sizeMul(4, NC)), sizeMul(2, sizeMul(N, V)));
  // Shared by the blocks: attention's dq, dk, dv, then dres, dln, datty,
  // dqkv, dfch, dgelu (14 N x C) and dlogits.
  const std::uint64_t gradBuffers = sizeAdd(sizeMul(3, NC), sizeAdd(sizeMul(14, NC), sizeMul(N, V)));
  // A fixed evaluation batch per split: B x T inputs and targets.
  return {params, gradBuffers, activations, sizeMul(2, sizeMul(2, N))};
}

void checkGptPolicy(std::string_view s, const amp::Policy& policy) {
  GptSpec spec;
  try {
    spec = parseGptSpec(s);
  } catch (const std::invalid_argument&) {
    return; // reported under "model"
  }
  // Per-layer rows name blocks the model must have.
  if (policy.blocksNamed() > spec.layers)
    throw std::invalid_argument("names block h" + std::to_string(policy.blocksNamed() - 1) +
                                " but the model has blocks h0 to h" +
                                std::to_string(spec.layers - 1));
}

constexpr ModelOffer kGptOffers[] = {
    {"GPT", "gpt:layers=4,heads=4,embd=128,ctx=64",
     "shakespeare-char: 4 layers, 4 heads, embedding 128, context 64"}};

} // namespace

extern const ModelKind kind_gpt;
const ModelKind kind_gpt{
    .name = "gpt",
    .prefix = "gpt:",
    .title = "GPT",
    .noun = "a GPT",
    .description = "a character-level GPT on text: gpt:layers=4,heads=4,embd=128,ctx=64",
    .input = ModelInput::Tokens,
    .offered = kGptOffers,
    .defaultsPreset = "shakespeare-char",
    .takesPolicy = true,
    .accumulates = false,
    .matches = isGptSpec,
    .parse = [](std::string_view s) { parseGptSpec(s); },
    .context = [](std::string_view s) { return parseGptSpec(s).ctx; },
    .checkPolicy = checkGptPolicy,
    .build = [](const ModelBuild& b) -> std::unique_ptr<Network> {
      return std::make_unique<GptNetwork>(parseGptSpec(b.spec), b.vocabulary, b.batch, *b.policy);
    },
    .sizes = gptSizes,
    .fp64Reference =
        [](const Network& n) -> std::unique_ptr<ShadowReference> {
      return ref64::makeGptReference(dynamic_cast<const GptNetwork&>(n));
    },
};

} // namespace mantissa::model
