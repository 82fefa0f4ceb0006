// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "chart_export.h"
#include "chart_style.h"

#include <mantissa/numeric/block_quant.h>

#include <QImage>
#include <QWidget>

#include <optional>
#include <vector>

namespace mantissa::ui {

// The block scales of one block-quantized matrix as a heat map: one cell per
// block (a 1 x 32 MX block, a 1 x 16 NVFP4 block, a 128 x 128 FP8 block),
// colour = log2 of the block's scale (times NVFP4's tensor scale), viridis.
// Blocks whose maximum was clipped (floor scale rounding) are drawn in the
// warning colour, and counted under the map. Hovering a cell tells its scale;
// clicking it emits blockClicked().
class BlockScaleMap : public QWidget, public ExportableChart {
  Q_OBJECT
public:
  explicit BlockScaleMap(QWidget* parent = nullptr);

  // `q` must come from quantize(): its blocks tile a rows x cols matrix.
  // rowTitle / colTitle name the matrix's dimensions ("output", "input (K)").
  void setQuantized(const numeric::QuantizedTensor& q, const QString& subject,
                    const QString& rowTitle, const QString& colTitle);
  void clear(const QString& message);
  void setChartStyle(const ChartStyle& style);
  void setMarkClipped(bool mark);
  bool markClipped() const { return m_markClipped; }

  bool hasData() const { return !m_blocks.empty(); }
  int gridRows() const { return m_gridRows; }
  int gridCols() const { return m_gridCols; }
  // The block at a grid cell (index into the QuantizedTensor's blocks), -1 if none.
  int blockAt(int gridRow, int gridCol) const;
  const numeric::QuantBlock& block(int index) const { return m_blocks.at(std::size_t(index)); }
  // log2 of the block's effective scale (block scale x tensor scale); NaN for a NaN scale.
  double log2Scale(int index) const;
  std::size_t blockCount() const { return m_blocks.size(); }
  std::size_t clippedCount() const { return m_clipped; }
  double colourMin() const { return m_lo; } // log2 scale at the bottom of the colour bar
  double colourMax() const { return m_hi; }
  // The colour a cell of this log2 scale is drawn in (unclipped).
  QRgb colourFor(double log2Scale) const;
  // The line under the map: "12 of 1,600 blocks clipped their maximum".
  QString countText() const;
  QString subject() const { return m_subject; }

  // Geometry on screen, for tests and tooltips.
  QRectF plotRect() const;
  QRectF cellRect(int gridRow, int gridCol) const;
  int blockAtPosition(const QPointF& position) const;
  const QImage& image() const { return m_image; }
  // The title, the horizontal axis's title and the count line that do not
  // fit their place in the widget as it is now (each wraps to the width it
  // has): empty when every one reads in full.
  QStringList cutTexts() const;

  QString title() const override;
  void render(QPainter& painter, const QRectF& target, const ExportStyle& style) const override;
  QString csv() const override;
  QJsonDocument json() const override;

  QSize sizeHint() const override { return {520, 420}; }
  QSize minimumSizeHint() const override { return {200, 110}; }

signals:
  void blockClicked(int index);

protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

private:
  struct Layout {
    QRectF title, plot, bar, xTitle, count;
  };
  QString xTitleText() const; // "input (K), 32 values per block"

  Layout layoutFor(const QRectF& target, const ChartStyle& style) const;
  void paintFigure(QPainter& painter, const QRectF& target, const ChartStyle& style) const;
  void rebuildImage();

  ChartStyle m_style;
  numeric::BlockScheme m_scheme = numeric::BlockScheme::Mxfp8E4M3;
  std::vector<numeric::QuantBlock> m_blocks;
  std::vector<int> m_grid; // [gridRows * gridCols]: block index or -1
  double m_tensorScale = 1.0;
  std::size_t m_rows = 0, m_cols = 0;
  int m_blockRows = 1, m_blockCols = 1;
  int m_gridRows = 0, m_gridCols = 0;
  std::size_t m_clipped = 0;
  double m_lo = 0.0, m_hi = 1.0;
  bool m_markClipped = true;
  QString m_subject, m_rowTitle, m_colTitle, m_message;
  QImage m_image; // one pixel per block
};

} // namespace mantissa::ui
