// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The model families Mantissa trains, each one ModelKind: how its spec is
// recognised and checked, whether it reads images or tokens, whether it takes
// a per-op precision policy, how its network (and its FP64 shadow reference)
// is built, and how big its tensors will be. Session, the configuration's
// checks, the CLI and the GUI ask a spec's kind for these traits instead of
// naming models.
//
// A model file defines `const ModelKind mantissa::model::kind_<name>` and
// registers it with one line in core/src/model/CMakeLists.txt:
//   mantissa_model(<name> <file>.cpp)
// (the line adds the file to the build and the kind to modelKinds()).

#include <mantissa/amp/recipe.h>
#include <mantissa/model/network.h>
#include <mantissa/model/shadow_reference.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace mantissa::data {
struct Dataset;
}
namespace mantissa::amp {
class Policy;
}

namespace mantissa::model {

enum class ModelInput { Images, Tokens };

// What a model is built for: its spec and batch, the recipe (and, for a
// model that takes one, the per-op policy) it runs, and the data's shape.
struct ModelBuild {
  std::string spec;
  int batch = 1;
  int gradAccumulation = 1;
  const amp::Recipe* recipe = nullptr;
  const amp::Policy* policy = nullptr;   // the policy the model runs (models that take one)
  std::string batchnorm;                 // BatchNorm statistics: "", "fp32", "bf16", "fp16"
  const data::Dataset* images = nullptr; // image models: the training set (shape, pixel statistics)
  int vocabulary = 0;                    // token models: the distinct tokens
};

// A model's tensors in FP32 values, counted before anything is allocated
// (train/memory_budget.h turns them into bytes).
struct ModelSizes {
  std::uint64_t params = 0;       // weights (every parameter once)
  std::uint64_t gradBuffers = 0;  // gradient buffers beside the parameters' gradients
  std::uint64_t activations = 0;  // forward buffers
  std::uint64_t evaluationPerBatch = 0; // one fixed evaluation batch (token models)
};

// Saturating arithmetic for sizes: a product past 2^64 stays "too much".
inline std::uint64_t sizeMul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
inline std::uint64_t sizeAdd(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

// A spec the GUI's model choice offers: its label, spec and one line.
struct ModelOffer {
  const char* label;
  const char* spec;
  const char* tip;
};

struct ModelKind {
  const char* name = "";        // "mlp", "cnn", "gpt"
  const char* prefix = "";      // a spec starts with it: "mlp:", "cnn:", "gpt:"
  const char* title = "";       // for messages and the GUI: "MLP", "CNN", "GPT"
  const char* noun = "";        // for messages: "an MLP", "a CNN", "a GPT"
  const char* description = ""; // one line for the GUI's model choice
  ModelInput input = ModelInput::Images;
  // Specs the GUI offers for this family's data, with one line each.
  std::span<const ModelOffer> offered;
  // The preset whose first run holds this family's defaults (a GPT's:
  // shakespeare-char), or "" for RunConfig's own.
  const char* defaultsPreset = "";
  // Takes a per-op precision policy (RunConfig::policy) besides recipes.
  bool takesPolicy = false;
  // Accumulates gradients over micro-batches (RunConfig::gradAccumulation > 1).
  bool accumulates = true;
  // Matches specs besides those starting with the prefix (the bare "gpt");
  // nullptr: the prefix alone decides (specMatches).
  bool (*matches)(std::string_view spec) = nullptr;
  // Throws std::invalid_argument naming what is wrong with the spec.
  void (*parse)(std::string_view spec) = nullptr;
  // Token models: the tokens of one window (the context).
  int (*context)(std::string_view spec) = nullptr;
  // Models that take a policy: throws std::invalid_argument when the policy
  // names what the model does not have (a block past its last).
  void (*checkPolicy)(std::string_view spec, const amp::Policy& policy) = nullptr;
  // The network; throws std::invalid_argument when the spec does not fit the
  // data's shape (naming the spec and the data).
  std::unique_ptr<Network> (*build)(const ModelBuild& build) = nullptr;
  // The model's tensors in FP32 values; nullptr when the family does not count them.
  ModelSizes (*sizes)(const ModelBuild& build) = nullptr;
  // The FP64 shadow reference of a network of this kind; nullptr when the
  // family has none (--shadow fp64 is then refused naming the model).
  std::unique_ptr<ShadowReference> (*fp64Reference)(const Network& network) = nullptr;
};

// The spec is of this family: it starts with the prefix, or the family's
// own matches() accepts it.
bool specMatches(const ModelKind& kind, std::string_view spec);

// Every registered family, in the order of the CMake registration lines.
std::span<const ModelKind* const> modelKinds();
// The family of `spec`: the one that matches it, else the MLP (whose parser
// then names the spec's problem).
const ModelKind& modelKind(std::string_view spec);
// The family named `name` ("gpt"), or nullptr.
const ModelKind* findModelKind(std::string_view name);

bool readsTokens(std::string_view spec);
// The first registered family that reads text (the GUI's and CLI's model for text data).
const ModelKind& textModelKind();

// For messages: the families that take a policy, "GPT models (gpt:...)", and
// those that read tokens, "a GPT" (joined with " or ").
std::string policyModels();
std::string tokenModels();

} // namespace mantissa::model
