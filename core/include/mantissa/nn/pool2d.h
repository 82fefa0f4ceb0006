// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// 2x2 max pooling, stride 2, NCHW, FP32, as a forward/backward pair.
//
//   B batch, C channels, H x W input (both even), Ho = H/2, Wo = W/2
//   in     [B, C*H*W]     in[b, (c*H + h)*W + w]
//   out    [B, C*Ho*Wo]   out[b,c,i,j] = max of the window in[b,c, 2i..2i+1, 2j..2j+1]
//   argmax [B*C*Ho*Wo]    int32, same order as out: the position h*W + w of the
//                         chosen element within its (b, c) input plane
//
//   dout [B, C*Ho*Wo]  gradient of out
//   din  [B, C*H*W]    OVERWRITTEN: dout[b,c,i,j] at the argmax of window (i, j),
//                      0 at the other three positions. The windows do not
//                      overlap and cover the image, so every din element is
//                      written exactly once.
//
// Ties: the window is scanned in row-major order (top-left, top-right,
// bottom-left, bottom-right) and a later element replaces the current
// maximum only if it is strictly greater, so the FIRST maximum in that order
// wins and receives the whole gradient (+0 and -0 compare equal: the first
// wins). NaN: the first NaN of a window wins, so a NaN input is never hidden
// by pooling and its gradient goes to it.
//
// Odd H or W, a non-positive size, or a span whose size does not match the
// shape throws std::invalid_argument (a model must pad or crop to even sizes).

#include <cstdint>
#include <span>

namespace mantissa::nn {

void maxPool2dForward(std::span<float> out, std::span<std::int32_t> argmax,
                      std::span<const float> in, int B, int C, int H, int W);

void maxPool2dBackward(std::span<float> din, std::span<const float> dout,
                       std::span<const std::int32_t> argmax, int B, int C, int H, int W);

// ReLU and pooling in one pass, bit for bit the two ops in turn:
//   reluMaxPool2dForward:  out = maxPool2d(relu(in)), relu(v) = v > 0 ? v : +0
//                          (as activationForward(Relu); NaN becomes +0), the
//                          ties rule applied to the ReLU outputs.
//   maxPool2dReluBackward: din = dout at the argmax where x > 0, +0 elsewhere,
//                          x the forward input [B, C*H*W] (as maxPool2dBackward
//                          followed by activationBackward(Relu, x)).
void reluMaxPool2dForward(std::span<float> out, std::span<std::int32_t> argmax,
                          std::span<const float> in, int B, int C, int H, int W);
void maxPool2dReluBackward(std::span<float> din, std::span<const float> dout,
                           std::span<const std::int32_t> argmax, std::span<const float> x, int B,
                           int C, int H, int W);

// True when the pooling runs its AVX-512 kernels (probed at run time).
bool maxPool2dAvx512();

} // namespace mantissa::nn
