// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The CNN spec grammar (cnn.h) and the layout of a spec on an input.
#include <mantissa/model/cnn.h>

#include "reference64.h"
#include <mantissa/data/dataset.h>
#include <mantissa/model/model_registry.h>

#include <algorithm>

#include <stdexcept>

namespace mantissa::model {

namespace {

[[noreturn]] void fail(std::string_view spec, const std::string& problem) {
  // The spec is outside input: quote at most 80 of its characters.
  std::string shown(spec.substr(0, 80));
  if (spec.size() > 80)
    shown += "...";
  for (char& c : shown)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F)
      c = '?';
  throw std::invalid_argument("model \"" + shown + "\": " + problem);
}

// A decimal number in [1, max] at the start of `s` (no sign, no leading zero);
// advances `s`. Returns 0 when there is none.
int number(std::string_view spec, std::string_view& s, int max, const char* what) {
  std::size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9')
    ++n;
  if (n == 0)
    fail(spec, std::string("expected the number of ") + what + " in \"" + std::string(s.substr(0, 12)) +
                   "\"");
  if (s[0] == '0')
    fail(spec, std::string(what) + " must be a number from 1 to " + std::to_string(max) +
                   " without leading zeros");
  std::int64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    v = v * 10 + (s[i] - '0');
    if (v > max)
      fail(spec, std::string(what) + " " + std::string(s.substr(0, std::min<std::size_t>(n, 12))) +
                     (n > 12 ? "..." : "") + " exceeds " + std::to_string(max));
  }
  s.remove_prefix(n);
  return static_cast<int>(v);
}

constexpr std::string_view kGrammar =
    "expected cnn:lenet, cnn:lenet-bn or layers such as cnn:c32k5-p2-c64k5-p2-f128 "
    "(cNkK[b] convolution of N channels, kernel K = 3 or 5, b = BatchNorm; p2 = 2x2 pooling; "
    "fN = fully connected)";

} // namespace

bool isCnnSpec(std::string_view spec) { return spec.substr(0, 4) == "cnn:"; }

std::string CnnSpec::toString() const {
  std::string s = "cnn:";
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const auto& b = blocks[i];
    if (i > 0)
      s += "-";
    if (b.conv) {
      s += "c" + std::to_string(b.out) + "k" + std::to_string(b.kernel) + (b.batchNorm ? "b" : "");
      if (b.pool)
        s += "-p2";
    } else {
      s += "f" + std::to_string(b.out);
    }
  }
  return s;
}

CnnSpec parseCnnSpec(std::string_view spec) {
  if (!isCnnSpec(spec))
    fail(spec, "a CNN spec starts with \"cnn:\"");
  std::string_view s = spec.substr(4);
  if (s == "lenet")
    s = "c32k5-p2-c64k5-p2-f128";
  else if (s == "lenet-bn")
    s = "c32k5b-p2-c64k5b-p2-f128";
  if (s.empty())
    fail(spec, std::string(kGrammar));
  CnnSpec out;
  bool first = true;
  while (true) {
    if (!first) {
      if (s.empty())
        break;
      if (s[0] != '-')
        fail(spec, "expected \"-\" between layers before \"" + std::string(s.substr(0, 12)) + "\"");
      s.remove_prefix(1);
    }
    if (s.empty())
      fail(spec, "a layer is missing after the last \"-\"");
    const char kind = s[0];
    if (kind == 'c') {
      if (!out.blocks.empty() && !out.blocks.back().conv)
        fail(spec, "every convolution must come before the fully connected layers");
      s.remove_prefix(1);
      CnnBlock b;
      b.conv = true;
      b.out = number(spec, s, kMaxCnnChannels, "channels");
      if (s.empty() || s[0] != 'k')
        fail(spec, "a convolution needs its kernel size: c" + std::to_string(b.out) + "k3 or c" +
                       std::to_string(b.out) + "k5");
      s.remove_prefix(1);
      b.kernel = number(spec, s, 9, "kernel size");
      if (b.kernel != 3 && b.kernel != 5)
        fail(spec, "kernel size " + std::to_string(b.kernel) + ": only 3 and 5 are supported");
      if (!s.empty() && s[0] == 'b') {
        b.batchNorm = true;
        s.remove_prefix(1);
      }
      out.blocks.push_back(b);
    } else if (kind == 'p') {
      if (first)
        fail(spec, "the first layer must be a convolution (cNkK)");
      s.remove_prefix(1);
      if (s.empty() || s[0] != '2' || (s.size() > 1 && s[1] >= '0' && s[1] <= '9'))
        fail(spec, "only 2x2 pooling is supported: p2");
      s.remove_prefix(1);
      if (!out.blocks.back().conv)
        fail(spec, "pooling (p2) must follow a convolution");
      if (out.blocks.back().pool)
        fail(spec, "one pooling (p2) per convolution");
      out.blocks.back().pool = true;
    } else if (kind == 'f') {
      if (first)
        fail(spec, "the first layer must be a convolution (cNkK)");
      s.remove_prefix(1);
      CnnBlock b;
      b.conv = false;
      b.out = number(spec, s, kMaxCnnUnits, "units");
      out.blocks.push_back(b);
    } else {
      fail(spec, "unknown layer \"" + std::string(s.substr(0, 12)) + "\": " + std::string(kGrammar));
    }
    if (out.blocks.size() >= static_cast<std::size_t>(kMaxCnnBlocks))
      fail(spec, "more than " + std::to_string(kMaxCnnBlocks - 1) +
                     " layers before the classifier");
    first = false;
  }
  return out;
}

std::vector<CnnLayer> cnnLayout(const CnnSpec& spec, int features, int imageHeight,
                                int imageWidth, int classes) {
  const std::string name = spec.toString();
  if (imageHeight <= 0 || imageWidth <= 0)
    fail(name, "needs image data (such as mnist, fashion or an IDX image file); the data's " +
                   std::to_string(features) + " features have no image shape");
  const std::int64_t plane = std::int64_t{imageHeight} * imageWidth;
  if (features <= 0 || features % plane != 0)
    fail(name, "the data's " + std::to_string(features) + " features are not whole " +
                   std::to_string(imageHeight) + "x" + std::to_string(imageWidth) + " images");
  if (classes < 1)
    fail(name, "the data has no classes");
  std::vector<CnnLayer> layers;
  int c = static_cast<int>(features / plane), h = imageHeight, w = imageWidth;
  std::int64_t params = 0;
  for (std::size_t i = 0; i <= spec.blocks.size(); ++i) {
    CnnLayer l;
    l.block = i < spec.blocks.size() ? spec.blocks[i] : CnnBlock{false, classes, 0, false, false};
    const std::string which = "layer " + std::to_string(i);
    if (l.block.conv) {
      l.cin = c;
      l.h = h;
      l.w = w;
      l.cout = l.block.out;
      l.ho = h;
      l.wo = w;
      if (l.block.pool) {
        if (h % 2 != 0 || w % 2 != 0 || h < 2 || w < 2)
          fail(name, which + ": 2x2 pooling needs an even image size, the input there is " +
                         std::to_string(h) + "x" + std::to_string(w));
        l.ho = h / 2;
        l.wo = w / 2;
      }
      if (std::int64_t{l.cout} * h * w > kMaxCnnActivation)
        fail(name, which + ": " + std::to_string(l.cout) + " channels of " + std::to_string(h) +
                       "x" + std::to_string(w) + " exceed " + std::to_string(kMaxCnnActivation) +
                       " values per sample");
      params += std::int64_t{l.cout} * l.cin * l.block.kernel * l.block.kernel + l.cout;
      c = l.cout;
      h = l.ho;
      w = l.wo;
    } else {
      const std::int64_t in = std::int64_t{c} * h * w;
      if (in > kMaxCnnUnits * std::int64_t{64})
        fail(name, which + ": " + std::to_string(in) + " inputs to a fully connected layer");
      l.cin = static_cast<int>(in);
      l.h = l.w = 1;
      l.cout = l.block.out;
      l.ho = l.wo = 1;
      params += in * l.cout + l.cout;
      c = l.cout;
      h = w = 1;
    }
    if (params > kMaxCnnParameters)
      fail(name, "more than " + std::to_string(kMaxCnnParameters) + " parameters");
    layers.push_back(l);
  }
  return layers;
}

namespace {

std::vector<CnnLayer> layoutFor(const ModelBuild& b, const CnnSpec& spec) {
  const data::Dataset& train = *b.images;
  try {
    return cnnLayout(spec, train.features, train.imageHeight, train.imageWidth, train.classes);
  } catch (const std::invalid_argument& e) {
    // Quote the spec as the user wrote it (cnn:lenet, not its expansion).
    std::string what = e.what();
    if (const auto colon = what.find("\": "); colon != std::string::npos)
      what = "model \"" + b.spec + what.substr(colon);
    throw std::invalid_argument(what + " (" + train.name + ")");
  }
}

std::unique_ptr<Network> buildCnn(const ModelBuild& b) {
  const auto spec = parseCnnSpec(b.spec);
  auto layout = layoutFor(b, spec);
  const DType stats = b.batchnorm == "bf16"   ? DType::BF16
                      : b.batchnorm == "fp16" ? DType::F16
                      : b.batchnorm == "fp32" ? DType::F32
                                              : b.recipe->reductions;
  auto cnn = std::make_unique<Cnn>(spec, std::move(layout), b.batch, *b.recipe,
                                   b.gradAccumulation, stats);
  const auto pixels = data::valueStats(*b.images);
  cnn->setInputStandardization(static_cast<float>(pixels.mean), static_cast<float>(pixels.std));
  return cnn;
}

ModelSizes cnnSizes(const ModelBuild& b) {
  const auto layout = cnnLayout(parseCnnSpec(b.spec), b.images->features, b.images->imageHeight,
                                b.images->imageWidth, b.images->classes);
  const std::uint64_t B = std::uint64_t(std::max(b.batch, 0));
  std::uint64_t params = 0, acts = 0, grads = 0;
  for (std::size_t l = 0; l < layout.size(); ++l) {
    const auto& L = layout[l];
    const std::uint64_t in = std::uint64_t(L.inValues()), out = std::uint64_t(L.outValues());
    const std::uint64_t w =
        L.block.conv ? sizeMul(std::uint64_t(L.cout),
                               sizeMul(std::uint64_t(L.cin),
                                       std::uint64_t(L.block.kernel) * L.block.kernel))
                     : sizeMul(std::uint64_t(L.cin), std::uint64_t(L.cout));
    const std::uint64_t pre =
        L.block.conv ? sizeMul(std::uint64_t(L.cout), sizeMul(std::uint64_t(L.h), std::uint64_t(L.w)))
                     : std::uint64_t(L.cout);
    params = sizeAdd(params, sizeAdd(w, std::uint64_t(L.cout)));
    acts = sizeAdd(acts, sizeMul(B, pre));   // pre
    grads = sizeAdd(grads, sizeMul(B, pre)); // dpre
    if (l + 1 < layout.size())
      acts = sizeAdd(acts, sizeMul(B, out)); // post
    if (l > 0)
      grads = sizeAdd(grads, sizeMul(B, in)); // dIn
    if (L.block.batchNorm) {
      params = sizeAdd(params, 2 * std::uint64_t(L.cout)); // scale and shift
      acts = sizeAdd(acts, sizeMul(B, pre));               // out
      grads = sizeAdd(grads, sizeMul(B, pre));             // dout
    }
    if (L.block.pool)
      acts = sizeAdd(acts, sizeMul(B, out)); // argmax
  }
  acts = sizeAdd(acts, sizeMul(2, sizeMul(B, std::uint64_t(layout.front().inValues())))); // x, standardized
  return {params, grads, acts, 0};
}

constexpr ModelOffer kCnnOffers[] = {
    {"cnn:lenet", "cnn:lenet",
     "conv 5×5 32, ReLU, pool, conv 5×5 64, ReLU, pool, fc 128, ReLU, fc to the classes"},
    {"cnn:lenet-bn", "cnn:lenet-bn", "cnn:lenet with BatchNorm after each convolution"}};

} // namespace

extern const ModelKind kind_cnn;
const ModelKind kind_cnn{
    .name = "cnn",
    .prefix = "cnn:",
    .title = "CNN",
    .noun = "a CNN",
    .description = "a convolutional network on images: cnn:lenet, cnn:lenet-bn, cnn:c32k5-p2-c64k5-p2-f128",
    .input = ModelInput::Images,
    .offered = kCnnOffers,
    .parse = [](std::string_view s) { parseCnnSpec(s); },
    .build = buildCnn,
    .sizes = cnnSizes,
    .fp64Reference =
        [](const Network& n) -> std::unique_ptr<ShadowReference> {
      return ref64::makeCnnReference(dynamic_cast<const Cnn&>(n));
    },
};

} // namespace mantissa::model
