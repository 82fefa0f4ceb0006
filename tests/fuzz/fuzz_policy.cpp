// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The --policy parser on hostile text: amp::parsePolicy. Either PolicyError
// whose message starts with the quoted spec, or a policy whose canonical spec
// parses back to the same policy, whose table has one row per class plus
// loss scaling, and whose promote-every is in range and only set with a
// 16-bit accumulator; a matmul scaling recipe (matmul-inputs=fp8-delayed, ...)
// comes with BF16 other products, an FP32 accumulator and its options in range;
// per-layer rows (h0.fc.matmul-inputs=...) likewise, one table row each; and
// the canonical spec in a policy file reads back unchanged.

#include <mantissa/amp/policy.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa::amp;
  const std::string_view spec(reinterpret_cast<const char*>(data), size);
  try {
    const Policy p = parsePolicy(spec);
    if (parsePolicy(p.toSpec()) != p)
      std::abort();
    std::size_t layerRows = 0;
    for (const LayerPolicy& l : p.layers) {
      layerRows += (l.matmulInputs ? 1 : 0) + (l.softmax ? 1 : 0);
      // A per-layer scaled layer has BF16 inputs noted and an FP32 accumulator.
      if (l.scaling.scheme != MatmulScaling::None &&
          (l.matmulInputs != mantissa::DType::BF16 ||
           p[OpClass::MatmulAccumulation] != mantissa::DType::F32))
        std::abort();
    }
    if (policyTable(p).size() != kOpClassCount + 1 + layerRows)
      std::abort();
    // A policy file holding the canonical spec reads back as it.
    if (policySpecFromFile("# policy\n" + p.toSpec() + "\n") != p.toSpec())
      std::abort();
    if (p.promoteEvery < 0 || p.promoteEvery > kMaxPromoteEvery ||
        (p.promoteEvery > 0 && p[OpClass::MatmulAccumulation] == mantissa::DType::F32))
      std::abort();
    const ScalingOptions& sc = p.scaling;
    if (sc.historyLength < 1 || sc.historyLength > kMaxAmaxHistory || sc.margin < 0 ||
        sc.margin > kMaxScalingMargin)
      std::abort();
    if (sc.scheme != MatmulScaling::None &&
        (p[OpClass::MatmulInputs] != mantissa::DType::BF16 ||
         p[OpClass::MatmulAccumulation] != mantissa::DType::F32))
      std::abort();
  } catch (const PolicyError& e) {
    const std::string_view message(e.what());
    if (message.substr(0, 8) != "policy \"")
      std::abort();
  }
  return 0;
}
