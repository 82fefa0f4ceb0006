// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/inspect/model_scales.h>

#include <stdexcept>

namespace mantissa::inspect {
namespace {

std::vector<float> readAll(const ModelFile& model, const ModelTensor& t) {
  std::vector<float> v(t.elements);
  model.decode(t, 0, v);
  return v;
}

} // namespace

ScaleGrid scaleGrid(const ModelFile& model, const ScalePairing& p) {
  ScaleGrid g;
  const auto& ts = model.tensors();
  if (p.kind == ScaleKind::Orphan || p.kind == ScaleKind::InputScale || !p.scale) {
    g.error = std::string(scaleKindName(p.kind)) + ": no scales over a weight";
    return g;
  }
  if (!p.note.empty()) {
    g.error = p.note;
    return g;
  }
  const ModelTensor& w = ts.at(p.tensor);
  const ModelTensor& s = ts.at(*p.scale);
  if (!s.decoded) {
    g.error = "scale tensor '" + s.name + "' (" + s.dtype + ") is not decoded";
    return g;
  }
  g.weightCols = std::max<std::uint64_t>(w.rowLength, 1);
  g.weightRows = w.elements / g.weightCols;
  // A weight of packed nibbles holds two values per byte.
  const bool packed = !w.decoded && (w.dtype == "U8" || w.dtype == "I8");
  if (packed)
    g.weightCols *= 2;
  const std::uint64_t R = g.weightRows, C = g.weightCols;
  auto along = [&](std::uint64_t n) {
    g.rows = R;
    g.cols = (C + n - 1) / n;
    g.blockCols = n;
  };
  switch (p.kind) {
  case ScaleKind::Block128:
    g.rows = (R + 127) / 128;
    g.cols = (C + 127) / 128;
    g.blockRows = g.blockCols = 128;
    break;
  case ScaleKind::PerTensor:
    g.rows = g.cols = 1;
    g.blockRows = std::max<std::uint64_t>(R, 1);
    g.blockCols = std::max<std::uint64_t>(C, 1);
    break;
  case ScaleKind::PerRow:
    g.rows = R;
    g.cols = 1;
    g.blockCols = std::max<std::uint64_t>(C, 1);
    break;
  case ScaleKind::Mx32: along(32); break;
  case ScaleKind::Nvfp4: along(16); break;
  default: break;
  }
  if (g.rows * g.cols != s.elements) {
    g.error = "scale tensor '" + s.name + "' holds " + std::to_string(s.elements) + " values, the " +
              std::to_string(g.rows) + " x " + std::to_string(g.cols) + " blocks of '" + w.name +
              "' need " + std::to_string(g.rows * g.cols);
    return g;
  }
  const std::vector<float> sv = readAll(model, s);
  g.scale.assign(sv.begin(), sv.end());
  if (p.globalScale) {
    const ModelTensor& gs = ts.at(*p.globalScale);
    if (!gs.decoded || gs.elements != 1) {
      g.error = "global scale '" + gs.name + "' is not one decoded value";
      return g;
    }
    g.globalScale = readAll(model, gs)[0];
  }
  g.dequantizable = w.decoded && !packed;
  return g;
}

void dequantize(const ModelFile& model, const ScalePairing& p, const ScaleGrid& g, std::uint64_t first,
                std::span<double> dst) {
  if (!g.ok() || !g.dequantizable)
    throw std::invalid_argument("dequantize: " + (g.ok() ? std::string("the weight is not decoded") : g.error));
  const ModelTensor& w = model.tensors().at(p.tensor);
  if (first > w.elements || dst.size() > w.elements - first)
    throw std::invalid_argument("dequantize: values past the end of '" + w.name + "'");
  std::vector<float> v(dst.size());
  model.decode(w, first, v);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint64_t k = first + i;
    dst[i] = double(v[i]) * g.scaleAt(k / g.weightCols, k % g.weightCols) * g.globalScale;
  }
}

telemetry::ExponentHistogram scaleHistogram(const ScaleGrid& g) {
  std::vector<float> v(g.scale.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = float(g.scale[i] * g.globalScale);
  telemetry::ExponentHistogram h;
  telemetry::accumulate(v, h);
  return h;
}

} // namespace mantissa::inspect
