// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Every registered model family's spec parser on hostile text
// (model/model_registry.h): the input, after the first byte, follows each
// family's prefix. A parser either accepts the spec or throws
// std::invalid_argument; a spec the family accepts is that family's
// (modelKind finds it) and its sizes, on an image shape or a vocabulary the
// first byte picks, are counted or refused with std::invalid_argument.

#include <mantissa/data/dataset.h>
#include <mantissa/model/model_registry.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa;
  const std::uint8_t pick = size > 0 ? data[0] : 0;
  const std::string body(reinterpret_cast<const char*>(data) + (size > 0 ? 1 : 0),
                         size > 0 ? size - 1 : 0);
  data::Dataset shape;
  shape.name = "shape";
  shape.features = pick % 2 ? 784 : 2;
  shape.imageWidth = shape.imageHeight = pick % 2 ? 28 : 0;
  shape.classes = pick % 3 ? 10 : 3;
  for (const model::ModelKind* kind : model::modelKinds()) {
    const std::string spec = std::string(kind->prefix) + body;
    try {
      kind->parse(spec);
    } catch (const std::invalid_argument&) {
      continue;
    }
    if (&model::modelKind(spec) != kind)
      std::abort();
    if (!kind->sizes)
      continue;
    model::ModelBuild b;
    b.spec = spec;
    b.batch = 1 + pick % 64;
    b.images = &shape;
    b.vocabulary = 1 + pick;
    try {
      const model::ModelSizes s = kind->sizes(b);
      if (s.params == 0)
        std::abort();
    } catch (const std::invalid_argument&) {
    }
  }
  return 0;
}
