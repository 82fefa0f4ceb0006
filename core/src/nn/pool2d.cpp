// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/nn/pool2d.h>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace mantissa::nn {
namespace {

void checkShape(const char* who, std::size_t inSize, std::size_t outSize, std::size_t argmaxSize,
                int B, int C, int H, int W) {
  if (B <= 0 || C <= 0 || H <= 0 || W <= 0)
    throw std::invalid_argument(std::string(who) + ": sizes B=" + std::to_string(B) +
                                " C=" + std::to_string(C) + " H=" + std::to_string(H) +
                                " W=" + std::to_string(W) + " must be positive");
  if (H % 2 != 0 || W % 2 != 0)
    throw std::invalid_argument(std::string(who) + ": a " + std::to_string(H) + "x" +
                                std::to_string(W) +
                                " image cannot be pooled 2x2: height and width must be even");
  const std::size_t planes = std::size_t(B) * std::size_t(C);
  const std::size_t in = planes * std::size_t(H) * std::size_t(W);
  const std::size_t out = in / 4;
  if (inSize != in || outSize != out || argmaxSize != out)
    throw std::invalid_argument(std::string(who) + ": input " + std::to_string(inSize) +
                                ", output " + std::to_string(outSize) + " and argmax " +
                                std::to_string(argmaxSize) + " values, expected " +
                                std::to_string(in) + ", " + std::to_string(out) + " and " +
                                std::to_string(out));
}

} // namespace

void maxPool2dForward(std::span<float> out, std::span<std::int32_t> argmax,
                      std::span<const float> in, int B, int C, int H, int W) {
  checkShape("maxPool2dForward", in.size(), out.size(), argmax.size(), B, C, H, W);
  const std::size_t planes = std::size_t(B) * std::size_t(C);
  const int Ho = H / 2, Wo = W / 2;
  const std::size_t planeIn = std::size_t(H) * std::size_t(W);
  const std::size_t planeOut = std::size_t(Ho) * std::size_t(Wo);
  for (std::size_t q = 0; q < planes; ++q) {
    const float* x = in.data() + q * planeIn;
    float* o = out.data() + q * planeOut;
    std::int32_t* a = argmax.data() + q * planeOut;
    for (int i = 0; i < Ho; ++i)
      for (int j = 0; j < Wo; ++j) {
        const std::int32_t top = 2 * i * W + 2 * j;
        const std::int32_t window[4] = {top, top + 1, top + W, top + W + 1};
        std::int32_t best = window[0];
        for (int t = 1; t < 4 && !std::isnan(x[best]); ++t)
          if (x[window[t]] > x[best] || std::isnan(x[window[t]]))
            best = window[t];
        o[std::size_t(i) * std::size_t(Wo) + std::size_t(j)] = x[best];
        a[std::size_t(i) * std::size_t(Wo) + std::size_t(j)] = best;
      }
  }
}

void maxPool2dBackward(std::span<float> din, std::span<const float> dout,
                       std::span<const std::int32_t> argmax, int B, int C, int H, int W) {
  checkShape("maxPool2dBackward", din.size(), dout.size(), argmax.size(), B, C, H, W);
  const std::size_t planes = std::size_t(B) * std::size_t(C);
  const std::size_t planeIn = std::size_t(H) * std::size_t(W);
  const std::size_t planeOut = planeIn / 4;
  const int Wo = W / 2;
  for (std::size_t q = 0; q < planes; ++q) {
    float* dx = din.data() + q * planeIn;
    const float* d = dout.data() + q * planeOut;
    const std::int32_t* a = argmax.data() + q * planeOut;
    for (std::size_t o = 0; o < planeOut; ++o) {
      // The window of output o, all four written: the argmax gets dout, the rest 0.
      const int i = int(o) / Wo, j = int(o) % Wo;
      const std::int32_t top = 2 * i * W + 2 * j;
      const std::int32_t window[4] = {top, top + 1, top + W, top + W + 1};
      bool found = false;
      for (std::int32_t pos : window) {
        const bool hit = pos == a[o];
        found = found || hit;
        dx[pos] = hit ? d[o] : 0.0f;
      }
      if (!found)
        throw std::invalid_argument("maxPool2dBackward: argmax " + std::to_string(a[o]) +
                                    " lies outside its 2x2 window");
    }
  }
}

} // namespace mantissa::nn
