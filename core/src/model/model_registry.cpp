// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The table of model families. model_kinds.inc is written by CMake from the
// mantissa_model(...) lines of core/src/model/CMakeLists.txt: one
// MANTISSA_MODEL(name) per registered family.
#include <mantissa/model/model_registry.h>

#include <array>

namespace mantissa::model {

#define MANTISSA_MODEL(name) extern const ModelKind kind_##name;
#include "model_kinds.inc"
#undef MANTISSA_MODEL

namespace {

#define MANTISSA_MODEL(name) &kind_##name,
constexpr std::array kKinds{
#include "model_kinds.inc"
};
#undef MANTISSA_MODEL

} // namespace

std::span<const ModelKind* const> modelKinds() {
  return kKinds;
}

const ModelKind* findModelKind(std::string_view name) {
  for (const ModelKind* k : kKinds)
    if (name == k->name)
      return k;
  return nullptr;
}

bool specMatches(const ModelKind& kind, std::string_view spec) {
  return spec.starts_with(kind.prefix) || (kind.matches && kind.matches(spec));
}

const ModelKind& modelKind(std::string_view spec) {
  for (const ModelKind* k : kKinds)
    if (specMatches(*k, spec))
      return *k;
  return *findModelKind("mlp");
}

bool readsTokens(std::string_view spec) {
  return modelKind(spec).input == ModelInput::Tokens;
}

const ModelKind& textModelKind() {
  for (const ModelKind* k : kKinds)
    if (k->input == ModelInput::Tokens)
      return *k;
  return *kKinds.front();
}

std::string policyModels() {
  std::string out;
  for (const ModelKind* k : kKinds)
    if (k->takesPolicy)
      out += (out.empty() ? "" : " or ") + std::string(k->title) + " models (" + k->name + ":...)";
  return out;
}

std::string tokenModels() {
  std::string out;
  for (const ModelKind* k : kKinds)
    if (k->input == ModelInput::Tokens)
      out += (out.empty() ? "" : " or ") + std::string(k->noun);
  return out;
}

} // namespace mantissa::model
