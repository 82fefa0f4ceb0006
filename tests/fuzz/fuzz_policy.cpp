// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The --policy parser on hostile text: amp::parsePolicy. Either PolicyError
// whose message starts with the quoted spec, or a policy whose canonical spec
// parses back to the same policy, whose table has one row per class plus
// loss scaling, and whose promote-every is in range and only set with a
// 16-bit accumulator.

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
    if (policyTable(p).size() != kOpClassCount + 1)
      std::abort();
    if (p.promoteEvery < 0 || p.promoteEvery > kMaxPromoteEvery ||
        (p.promoteEvery > 0 && p[OpClass::MatmulAccumulation] == mantissa::DType::F32))
      std::abort();
  } catch (const PolicyError& e) {
    const std::string_view message(e.what());
    if (message.substr(0, 8) != "policy \"")
      std::abort();
  }
  return 0;
}
