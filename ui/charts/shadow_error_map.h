// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "chart_export.h"
#include "chart_style.h"

#include <mantissa/train/shadow.h>

#include <QString>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace mantissa::ui {

// Where a run loses accuracy, tensor by tensor (train/shadow.h): one row per
// tensor the shadow pass compared (forward's in the order they were written,
// then backward's, as in the frames), one column per shadow step, colour =
// log10 of the tensor's error against the reference (||a - r|| / ||r||) on
// viridis. An error of exactly 0 takes the colour below the bar's bottom
// ("0 (exact)"), an infinite one a colour of its own ("inf"); both have a
// legend swatch under the colour bar. The bar spans at least 1e-8 .. 1 (so
// that runs compare by colour) and widens to the errors shown. Each cell's
// tooltip gives every statistic of its tensor; the cell of the first tensor
// over the threshold is outlined in each column, and the latest frame's is
// named under the title. A list too long for its rows' labels labels every
// k-th row (the tooltips name each); the widget asks for a height that keeps
// rows at least half a label high, so a scroll area around it scrolls a GPT's
// long list. Same for every model.
class ShadowErrorMap : public QWidget, public ExportableChart {
  Q_OBJECT
public:
  explicit ShadowErrorMap(QWidget* parent = nullptr);

  // Frames in increasing step order (others are dropped).
  void setFrames(std::vector<std::shared_ptr<const train::ShadowFrame>> frames);
  void setSubject(const QString& run); // the run's name, in the title
  void setChartStyle(const ChartStyle& style);

  int rowCount() const { return static_cast<int>(m_rows.size()); }
  int columnCount() const { return static_cast<int>(m_frames.size()); }
  QString tensorOfRow(int row) const;
  bool rowIsBackward(int row) const;
  std::int64_t stepOfColumn(int column) const;
  // The tensor of `row` at `column`; nullptr where that frame lacks it.
  const train::ShadowError* cell(int row, int column) const;
  QRgb cellColour(int row, int column) const; // 0 (transparent) where cell() is null
  static QRgb zeroColour();     // an error of exactly 0
  static QRgb infiniteColour(); // an infinite error (a non-finite value where the reference is finite)
  // The colour bar: 10^first .. 10^last.
  int firstDecade() const { return m_firstDecade; }
  int lastDecade() const { return m_lastDecade; }
  // The colour of a finite positive error.
  QRgb colourOfError(double error) const;
  QString cellToolTip(int row, int column) const;
  // "Shadow FP64, step 40: first tensor over 1% error: h0.attention probs
  // (tensor error 3.2e+00)"; or that none is over it. "" without frames.
  static QString firstOverSentence(const train::ShadowFrame& frame);
  QString latestSentence() const;
  // What the view says without frames: how to turn the shadow pass on.
  static QString emptyText();
  // The legend entries under the colour bar, as drawn ("0 (exact)", "inf").
  QStringList legendTexts() const;

  // Geometry on screen, for tests and tooltips.
  QRectF plotRect() const;
  QRectF cellRect(int row, int column) const;
  // Rows between labelled rows (1: every row is named).
  int rowLabelEvery() const;

  QString title() const override;
  void render(QPainter& painter, const QRectF& target, const ExportStyle& style) const override;
  QString csv() const override;
  QJsonDocument json() const override;

  QSize sizeHint() const override { return {640, 420}; }
  QSize minimumSizeHint() const override;

protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

private:
  struct Row {
    QString name;
    bool backward = false;
  };
  struct Layout {
    QRectF title;
    QRectF subtitle;
    QRectF plot;
    QRectF colourBar; // the gradient, 10^first at its bottom
    QRectF zeroSwatch;
    QRectF infSwatch;
    double labelLeft = 0.0; // where the row labels start
    QRectF figure;
    double margin = 0.0;
  };
  Layout layoutFor(const QRectF& target, const ChartStyle& style) const;
  void paintFigure(QPainter& painter, const QRectF& target, const ChartStyle& style) const;
  void paintEmpty(QPainter& painter, const QRectF& target, const ChartStyle& style) const;
  void paintRows(QPainter& painter, const Layout& layout, const ChartStyle& style) const;
  void paintColourBar(QPainter& painter, const Layout& layout, const ChartStyle& style) const;
  static int labelEvery(double rowHeight, double labelHeight);
  double barPosition(double error) const; // 0 at the bar's bottom, 1 at its top
  void rebuild();

  std::vector<std::shared_ptr<const train::ShadowFrame>> m_frames;
  std::vector<Row> m_rows;
  std::vector<std::vector<int>> m_index; // [column][row]: index into the frame's tensors, -1 none
  int m_firstDecade = -8;
  int m_lastDecade = 0;
  QString m_subject;
  ChartStyle m_style;
};

} // namespace mantissa::ui
