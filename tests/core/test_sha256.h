// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// SHA-256 (FIPS 180-4) for the tests: checks shipped files against the sums
// published in resources/data/README.md. Written from the standard; verified
// against its "abc" example in test_data_builtin.cpp.

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace mantissa::testing {

inline std::string sha256Hex(const std::vector<std::uint8_t>& message) {
  static constexpr std::array<std::uint32_t, 64> k = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  std::array<std::uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  // Padding: 0x80, zeros to 56 mod 64, then the bit length big-endian.
  std::vector<std::uint8_t> m = message;
  const std::uint64_t bits = static_cast<std::uint64_t>(message.size()) * 8;
  m.push_back(0x80);
  while (m.size() % 64 != 56)
    m.push_back(0);
  for (int i = 7; i >= 0; --i)
    m.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));

  const auto rotr = [](std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (std::size_t block = 0; block < m.size(); block += 64) {
    std::array<std::uint32_t, 64> w{};
    for (int t = 0; t < 16; ++t) {
      const std::size_t at = block + 4 * static_cast<std::size_t>(t);
      w[t] = std::uint32_t{m[at]} << 24 | std::uint32_t{m[at + 1]} << 16 |
             std::uint32_t{m[at + 2]} << 8 | m[at + 3];
    }
    for (int t = 16; t < 64; ++t) {
      const std::uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
      const std::uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    auto [a, b, c, d, e, f, g, hh] = h;
    for (int t = 0; t < 64; ++t) {
      const std::uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                               k[static_cast<std::size_t>(t)] + w[static_cast<std::size_t>(t)];
      const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    const std::array<std::uint32_t, 8> add = {a, b, c, d, e, f, g, hh};
    for (int i = 0; i < 8; ++i)
      h[static_cast<std::size_t>(i)] += add[static_cast<std::size_t>(i)];
  }
  std::string hex;
  for (std::uint32_t v : h) {
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", v);
    hex += buf;
  }
  return hex;
}

} // namespace mantissa::testing
