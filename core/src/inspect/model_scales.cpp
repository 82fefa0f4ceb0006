// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/inspect/model_scales.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>

namespace mantissa::inspect {
namespace {

std::vector<float> readAll(const ModelFile& model, const ModelTensor& t) {
  std::vector<float> v(t.elements);
  model.decode(t, 0, v);
  return v;
}

bool packedBytes(const ModelTensor& t) { return !t.decoded && (t.dtype == "U8" || t.dtype == "I8"); }

// E2M1 (OCP MX FP4: bias 1, no Inf or NaN), by its four bits.
constexpr float kE2m1[16] = {0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f,
                             -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};

// E8M0 (OCP MX scale): 2^(byte - 127), 0xFF NaN.
float e8m0(std::uint8_t b) {
  return b == 0xFF ? std::numeric_limits<float>::quiet_NaN() : std::ldexp(1.0f, int(b) - 127);
}

// Weight values [first, first + dst.size()): decoded, or E2M1 nibbles of a
// packed byte tensor (the first value in the low nibble).
void readValues(const ModelFile& model, const ModelTensor& w, std::uint64_t first, std::span<float> dst) {
  if (!packedBytes(w)) {
    model.decode(w, first, dst);
    return;
  }
  const std::span<const std::byte> raw = model.raw(w);
  for (std::size_t i = 0; i < dst.size(); ++i) {
    const std::uint64_t k = first + i;
    const unsigned byte = std::to_integer<unsigned>(raw[std::size_t(k / 2)]);
    dst[i] = kE2m1[(k % 2 ? byte >> 4 : byte) & 15u];
  }
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
  // GPT-OSS stores its E8M0 scales as U8.
  const bool byteScales = p.kind == ScaleKind::Mx32 && packedBytes(s);
  if (!s.decoded && !byteScales) {
    g.error = "scale tensor '" + s.name + "' (" + s.dtype + ") is not decoded";
    return g;
  }
  g.weightCols = std::max<std::uint64_t>(w.rowLength, 1);
  // GPT-OSS "X_blocks" [..., groups, 16]: a row is its groups of 16 bytes.
  if (byteScales && w.shape.size() >= 2 && w.shape.back() == 16 && s.shape.size() + 1 == w.shape.size())
    g.weightCols = std::max<std::uint64_t>(w.shape[w.shape.size() - 2] * 16, 1);
  g.weightRows = w.elements / g.weightCols;
  // A weight of packed nibbles holds two values per byte.
  const bool packed = packedBytes(w);
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
  if (byteScales) {
    const std::span<const std::byte> raw = model.raw(s);
    g.scale.resize(std::size_t(s.elements));
    for (std::size_t k = 0; k < g.scale.size(); ++k)
      g.scale[k] = e8m0(std::to_integer<std::uint8_t>(raw[k]));
  } else {
    const std::vector<float> sv = readAll(model, s);
    g.scale.assign(sv.begin(), sv.end());
  }
  if (p.globalScale) {
    const ModelTensor& gs = ts.at(*p.globalScale);
    if (!gs.decoded || gs.elements != 1) {
      g.error = "global scale '" + gs.name + "' is not one decoded value";
      return g;
    }
    g.globalScale = readAll(model, gs)[0];
  }
  // Packed bytes hold E2M1 pairs for the MX and NVFP4 layouts only.
  g.dequantizable = w.decoded || (packed && (p.kind == ScaleKind::Mx32 || p.kind == ScaleKind::Nvfp4));
  return g;
}

void dequantize(const ModelFile& model, const ScalePairing& p, const ScaleGrid& g, std::uint64_t first,
                std::span<double> dst) {
  if (!g.ok() || !g.dequantizable)
    throw std::invalid_argument("dequantize: " + (g.ok() ? std::string("the weight is not decoded") : g.error));
  const ModelTensor& w = model.tensors().at(p.tensor);
  const std::uint64_t values = g.weightRows * g.weightCols;
  if (first > values || dst.size() > values - first)
    throw std::invalid_argument("dequantize: values past the end of '" + w.name + "'");
  std::vector<float> v(dst.size());
  readValues(model, w, first, v);
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
  case ScaleKind::Mx32:
    q.scheme = w.dtype == "F8_E4M3"   ? BlockScheme::Mxfp8E4M3
               : w.dtype == "F8_E5M2" ? BlockScheme::Mxfp8E5M2
               : w.dtype == "F6_E2M3" ? BlockScheme::Mxfp6E2M3
               : w.dtype == "F6_E3M2" ? BlockScheme::Mxfp6E3M2
                                      : BlockScheme::Mxfp4;
    break;
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
    readValues(model, w, r * g.weightCols, row);
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
