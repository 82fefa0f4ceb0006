// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/inspect/model_scales.h>

#include <algorithm>
#include <bit>
#include <cmath>
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

numeric::QuantizedTensor scaleBlocks(const ModelFile& model, const ScalePairing& p, const ScaleGrid& g,
                                     const TensorStats* weightStats, const std::atomic<bool>* cancel) {
  numeric::QuantizedTensor q;
  if (!g.ok())
    return q;
  const ModelTensor& w = model.tensors().at(p.tensor);
  using numeric::BlockScheme;
  switch (p.kind) {
  case ScaleKind::Block128: q.scheme = BlockScheme::Fp8Block; break;
  case ScaleKind::Mx32: q.scheme = w.dtype == "F8_E4M3" ? BlockScheme::Mxfp8E4M3 : BlockScheme::Mxfp4; break;
  case ScaleKind::Nvfp4: q.scheme = BlockScheme::Nvfp4; break;
  default: q.scheme = BlockScheme::Fp8Tensor; break;
  }
  q.rows = std::size_t(g.weightRows);
  q.cols = std::size_t(g.weightCols);
  q.tensorScale = g.globalScale;
  q.tensorScaleBits = std::bit_cast<std::uint32_t>(float(g.globalScale));
  q.blocks.reserve(g.scale.size());
  for (std::uint64_t r = 0; r < g.rows; ++r)
    for (std::uint64_t c = 0; c < g.cols; ++c) {
      numeric::QuantBlock b;
      b.row = std::size_t(r * g.blockRows);
      b.col = std::size_t(c * g.blockCols);
      b.rows = std::size_t(std::min(g.blockRows, g.weightRows - std::min(g.weightRows, r * g.blockRows)));
      b.cols = std::size_t(std::min(g.blockCols, g.weightCols - std::min(g.weightCols, c * g.blockCols)));
      b.count = b.rows * b.cols;
      b.scale = g.scale[std::size_t(r * g.cols + c)];
      b.scaleBits = std::bit_cast<std::uint32_t>(float(b.scale));
      q.blocks.push_back(b);
    }
  if (!g.dequantizable)
    return q;
  if (p.kind == ScaleKind::Block128 && weightStats && weightStats->weightBlockCols == g.cols &&
      weightStats->weightBlockAmax.size() == q.blocks.size()) {
    for (std::size_t k = 0; k < q.blocks.size(); ++k) {
      numeric::QuantBlock& b = q.blocks[k];
      b.amax = double(weightStats->weightBlockAmax[k]) * std::fabs(b.scale) * std::fabs(g.globalScale);
    }
    return q;
  }
  // The largest dequantized |value| per block, a row at a time.
  std::vector<float> row(std::size_t(g.weightCols));
  for (std::uint64_t r = 0; r < g.weightRows; ++r) {
    if (cancel && cancel->load(std::memory_order_relaxed))
      break;
    model.decode(w, r * g.weightCols, row);
    numeric::QuantBlock* blocks = q.blocks.data() + (r / g.blockRows) * g.cols;
    for (std::uint64_t c = 0; c < g.weightCols; ++c) {
      numeric::QuantBlock& b = blocks[c / g.blockCols];
      const double v = std::fabs(double(row[std::size_t(c)]) * b.scale * g.globalScale);
      b.amax = std::isnan(v) || std::isnan(b.amax) ? std::nan("") : std::max(b.amax, v);
    }
  }
  return q;
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
