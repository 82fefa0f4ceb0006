// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "chart_export.h"
#include "chart_style.h"
#include "format_regions.h"

#include <mantissa/numeric/format.h>
#include <mantissa/telemetry/histogram.h>

#include <QFontMetricsF>
#include <QImage>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace mantissa::ui {

// The exponent histogram over time: one row per recorded step (time runs
// down), one column per binade, colour = count on a log scale (viridis, empty
// cells left blank). Clicking or dragging moves a cursor to a recorded step and
// emits stepSelected(); Up/Down step through the rows. Custom painted: the
// QImage is rebuilt only when the columns or the colour scale change; a live
// row that fits them colours one more scanline.
class HistogramHeatmap : public QWidget, public ExportableChart {
  Q_OBJECT
public:
  explicit HistogramHeatmap(QWidget* parent = nullptr);

  // steps[i] is the training step of histograms[i]; steps must increase.
  // shifts[i] (empty: all 0) moves the FP16 limits of row i by that many
  // binades: -log2(loss scale) when a row holds the unscaled values of a
  // loss-scaled step, so the limits stay where the stored values meet them.
  // A NaN shift: the row's limits are not known (an FP8 operand's scale not
  // at hand), and none are drawn on it.
  // Returns false (and keeps the old data) if the sizes differ or steps do not increase.
  bool setHistory(const std::vector<std::int64_t>& steps,
                  const std::vector<telemetry::ExponentHistogram>& histograms,
                  const std::vector<double>& shifts = {});
  // Live: one more row (step must be larger than the last).
  bool appendRow(std::int64_t step, const telemetry::ExponentHistogram& histogram,
                 double shift = 0.0);
  void setSubject(const QString& subject);
  // The format whose limits are drawn: the one the run holds these values in
  // (amp::tensorFormat; any format, a custom spec's included), its lines
  // moved by operandShift binades (-log2 of an FP8 / MX element format's
  // scale). nullopt: the run does not say; FP16's limits are drawn, labelled
  // "as it would be in FP16".
  void setRunFormat(std::optional<numeric::FormatId> format, double operandShift = 0.0);
  void setRunFormat(const numeric::FloatFormat& format, double operandShift = 0.0);
  // FormatId::Custom for a format from a spec.
  std::optional<numeric::FormatId> runFormat() const;
  // A format the user chose to see instead (any format, a spec's included):
  // its limits are drawn, labelled "if E3M4: → 0", moved as the rows are;
  // nullopt: the run's again.
  void setOverlayFormat(const std::optional<numeric::FloatFormat>& format);
  const std::optional<numeric::FloatFormat>& overlayFormat() const { return m_overlay; }
  // The limits drawn: the user's format, else the run's, else FP16.
  numeric::FormatId limitsFormat() const;
  numeric::FloatFormat limitsFloatFormat() const;
  // The region names as drawn ("BF16 → 0 (casts flush subnormals)", ...).
  QStringList regionLabelTexts() const;
  // What the rows are, appended to the title ("scaled values, as stored"); "" for none.
  void setValuesNote(const QString& note);
  double regionShiftOfRow(int row) const { return m_shifts.at(static_cast<std::size_t>(row)); }
  const telemetry::ExponentHistogram& rowHistogram(int row) const {
    return m_rows.at(static_cast<std::size_t>(row));
  }
  void setChartStyle(const ChartStyle& style);

  int rowCount() const { return static_cast<int>(m_steps.size()); }
  std::int64_t stepOfRow(int row) const { return m_steps.at(static_cast<std::size_t>(row)); }
  int firstExponent() const { return m_firstExponent; } // leftmost column
  int lastExponent() const { return m_lastExponent; }   // rightmost column
  std::optional<std::int64_t> selectedStep() const;
  // Selects the recorded step nearest to step; emits stepSelected if it changed.
  void selectStep(std::int64_t step);

  // Geometry on screen, for tests and tooltips.
  QRectF plotRect() const;
  // Where the x-axis title is drawn (word-wrapped, centred) and its text.
  QRectF xTitleRect() const;
  static QString xTitle();
  static QString colourBarTitle();
  // The colour bar's title as drawn: one line, two, or a short one on a short bar.
  QString colourBarTitleShown() const;
  // Binades between labelled x ticks (wider apart on a narrow plot).
  int xTickEvery() const;
  // Where the region names ("BF16 → 0", "→ 0 as it would be in FP16", ...) are drawn.
  std::vector<QRectF> regionLabelRects() const;
  int rowAt(const QPointF& position) const; // -1 outside the plot
  // Where the selected step's label ("step 180") is drawn; empty without a selection.
  QRectF selectedStepLabelRect() const;
  const QImage& image() const { return m_image; }

  QString title() const override;
  void render(QPainter& painter, const QRectF& target, const ExportStyle& style) const override;
  QString csv() const override;
  QJsonDocument json() const override;

  QSize sizeHint() const override { return {640, 360}; }

signals:
  void stepSelected(std::int64_t step);

protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

private:
  struct Layout {
    QRectF title;
    QRectF plot;
    QRectF colourBar;
    QRectF xTitle;          // below the tick labels, as wide as the figure allows
    QString colourBarTitle; // on one line, or broken before "(" to fit the bar's height
  };
  Layout layoutFor(const QRectF& target, const ChartStyle& style) const;
  void paintFigure(QPainter& painter, const QRectF& target, const ChartStyle& style) const;
  void paintAxes(QPainter& painter, const Layout& layout, const ChartStyle& style) const;
  void paintColourBar(QPainter& painter, const Layout& layout, const ChartStyle& style) const;
  std::vector<std::pair<QString, QRectF>> regionLabels(const Layout& layout, const ChartStyle& style) const;
  std::vector<FormatRegion> limits() const; // of limitsFormat(), moved by the operand shift
  std::optional<std::pair<double, double>> alwaysShown() const;
  QRectF stepLabelRect(const Layout& layout, const ChartStyle& style) const;
  static int tickEvery(double plotWidth, int columns, const QFontMetricsF& labels);
  void rebuildImage();
  bool appendImageRow();
  void fillImageRow(QImage& image, int row) const;
  void selectRow(int row);
  void showCellTip(const QPointF& position, const QPoint& globalPos);

  std::vector<std::int64_t> m_steps;
  std::vector<telemetry::ExponentHistogram> m_rows;
  std::vector<double> m_shifts; // [row]: binades the format limits move by
  std::optional<numeric::FloatFormat> m_runFormat;
  std::optional<numeric::FloatFormat> m_overlay;
  double m_operandShift = 0.0;
  QString m_valuesNote;
  // Binades between the values and the format's limits beyond which the
  // limits do not widen the columns.
  static constexpr double kLimitsReach = 24.0;
  bool m_limitsShown = false; // the columns reach the format's limits
  int m_firstExponent = -40;
  int m_lastExponent = 8;
  std::uint64_t m_maxCount = 0;
  QImage m_image; // (lastExponent - firstExponent + 1) x rows, ARGB32
  int m_selectedRow = -1;
  QString m_subject;
  ChartStyle m_style;
};

} // namespace mantissa::ui
