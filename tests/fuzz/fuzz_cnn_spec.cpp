// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The CNN model spec parser on hostile text: model::parseCnnSpec, then
// model::cnnLayout on an image shape the first byte picks. The parser either
// throws std::invalid_argument starting 'model "' or returns blocks inside the
// documented limits (convolutions first, kernel 3 or 5, pooling only after a
// convolution) whose toString() parses back to the same spec. The layout
// either throws the same kind of message or follows the image through every
// block (pooling halves an even size, fc layers take the flattened input)
// and ends in the classifier.

#include <mantissa/model/cnn.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

namespace {

bool isModelError(const std::invalid_argument& e) {
  return std::string_view(e.what()).substr(0, 7) == "model \"";
}

struct Shape {
  int channels, height, width;
};
constexpr std::array<Shape, 4> kShapes{{{1, 28, 28}, {3, 6, 6}, {1, 5, 7}, {2, 2, 0}}};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa::model;
  const Shape shape = size > 0 ? kShapes[data[0] % kShapes.size()] : kShapes[0];
  const std::string_view spec(reinterpret_cast<const char*>(data) + (size > 0 ? 1 : 0),
                              size > 0 ? size - 1 : 0);
  CnnSpec s;
  try {
    s = parseCnnSpec(spec);
  } catch (const std::invalid_argument& e) {
    if (!isModelError(e))
      std::abort();
    return 0;
  }
  if (s.blocks.empty() || !s.blocks.front().conv ||
      s.blocks.size() >= static_cast<std::size_t>(kMaxCnnBlocks))
    std::abort();
  bool fc = false;
  for (const auto& b : s.blocks) {
    if (b.conv) {
      if (fc || b.out < 1 || b.out > kMaxCnnChannels || (b.kernel != 3 && b.kernel != 5))
        std::abort();
    } else {
      fc = true;
      if (b.out < 1 || b.out > kMaxCnnUnits || b.pool || b.batchNorm || b.kernel != 0)
        std::abort();
    }
  }
  if (!(parseCnnSpec(s.toString()) == s))
    std::abort();
  try {
    const auto layout = cnnLayout(s, shape.channels * shape.height * shape.width, shape.height,
                                  shape.width, 10);
    if (layout.size() != s.blocks.size() + 1 || layout.back().block.conv ||
        layout.back().cout != 10 || layout.front().cin != shape.channels)
      std::abort();
    for (std::size_t i = 0; i < layout.size(); ++i) {
      const auto& l = layout[i];
      if (i > 0 && l.inValues() != layout[i - 1].outValues())
        std::abort();
      if (l.block.conv && (l.block.pool ? (l.h % 2 != 0 || l.ho * 2 != l.h || l.wo * 2 != l.w)
                                        : (l.ho != l.h || l.wo != l.w)))
        std::abort();
    }
  } catch (const std::invalid_argument& e) {
    if (!isModelError(e))
      std::abort();
  }
  return 0;
}
