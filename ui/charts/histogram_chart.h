// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "chart_widget.h"
#include "format_regions.h"

#include <mantissa/telemetry/histogram.h>

#include <map>
#include <optional>
#include <utility>
#include <vector>

class QAreaSeries;
class QCheckBox;
class QGraphicsSimpleTextItem;
class QGraphicsTextItem;
class QLabel;
class QLineSeries;
class QValueAxis;

namespace mantissa::ui {

// One exponent histogram: x = log2 |value| (one bar per binade), counts on a
// linear or log y axis, shaded regions where FP16 / BF16 / FP8 flush to zero,
// go subnormal or overflow (each labelled, toggled per format), and the
// zero / inf / NaN counters beside the plot. The caller may supply the
// histogram of the loss-scaled values too; a toggle switches between them.
class HistogramChart : public ChartWidget {
  Q_OBJECT
public:
  explicit HistogramChart(QWidget* parent = nullptr);

  // scaled: the same values times lossScale (as stored during backward), or null.
  void setHistograms(const telemetry::ExponentHistogram& unscaled,
                     const telemetry::ExponentHistogram* scaled = nullptr, double lossScale = 1.0);
  // What is shown, for the title: "fc1 weight gradients", and what changes
  // with every frame: "step 1200". The detail is drawn beside the toggles, not
  // in the chart's title: a new title re-lays out the whole chart (axes
  // included), a cost paid on every live frame. title() and exports hold both.
  void setSubject(const QString& subject, const QString& detail = {});
  QString detailText() const; // as shown beside the toggles

  QString title() const override;
  void render(QPainter& painter, const QRectF& target, const ExportStyle& style) const override;

  // The format the run holds these values in (amp::tensorFormat): shaded by
  // default, labelled "BF16 → 0"; another format is shaded only when its box
  // is checked, labelled "→ 0 as it would be in FP16". operandShift moves the
  // run format's regions by that many binades: -log2(scale) for an FP8 / MX
  // element format, which meets the values times a scale. nullopt: the run
  // does not say; FP16 is shaded, as a format it would be in. A new format
  // resets the boxes; the same one keeps what the user checked.
  // shade false: the run format's limits are not known here (an FP8
  // operand whose scale is not at hand): nothing is shaded by default.
  // Any format: a named one or one from a spec string (a run whose policy
  // names a custom element format shades that format's regions).
  void setRunFormat(std::optional<numeric::FormatId> format, double operandShift = 0.0,
                    bool shade = true);
  void setRunFormat(const numeric::FloatFormat& format, double operandShift = 0.0, bool shade = true);
  // FormatId::Custom for a format from a spec (runFloatFormat() says which).
  std::optional<numeric::FormatId> runFormat() const;
  std::optional<numeric::FloatFormat> runFloatFormat() const { return m_runFormat; }
  // One more format the user chose to see (any format, a spec's included),
  // shaded as it would be: "if E3M4: → 0". It stays across new run formats
  // until replaced; nullopt removes it. A format that has a box checks it.
  void setOverlayFormat(const std::optional<numeric::FloatFormat>& format);
  const std::optional<numeric::FloatFormat>& overlayFormat() const { return m_overlay; }
  void setFormatVisible(numeric::FormatId format, bool visible);
  void setFormatVisible(const numeric::FloatFormat& format, bool visible);
  // The context menu's view actions: shading the formats that have no box in
  // the row of toggles (FP4 E2M1), checkable.
  void addViewActions(QMenu& menu) override;
  bool isFormatVisible(numeric::FormatId format) const;
  bool isFormatVisible(const numeric::FloatFormat& format) const;
  void setLogScale(bool on);
  bool logScale() const { return m_log; }
  // For a scaled run the chart shows, by default, the values as stored
  // (times the loss scale): those are what the 16-bit format holds, so the
  // shaded regions apply to them as they are. Unchecked, it shows the
  // unscaled values and moves every region by -log2(loss scale) binades.
  void setShowScaled(bool on);
  bool showScaled() const { return m_showScaled && m_hasScaled; }
  // The box's state, whether or not the current data has a scaled view.
  bool showScaledChecked() const { return m_showScaled; }
  // Binades the regions are moved by (0 unless unscaled values of a scaled run are shown).
  double regionShift() const;
  // Binades one format's regions are moved by: regionShift(), plus the run
  // format's operand shift.
  double regionShiftOf(numeric::FormatId format) const;
  double regionShiftOf(const numeric::FloatFormat& format) const;
  // What the bars are, as the title says it: "" for a run without a loss scale.
  QString valuesNote() const;
  // A region's bounds as drawn (log2 |value|, after regionShift()).
  std::pair<double, double> regionBounds(numeric::FormatId format, RegionKind kind) const;
  std::pair<double, double> regionBounds(const numeric::FloatFormat& format, RegionKind kind) const;

  QAreaSeries* barSeries() const { return m_bars; }
  QAreaSeries* regionSeries(numeric::FormatId format, RegionKind kind) const;
  QAreaSeries* regionSeries(const numeric::FloatFormat& format, RegionKind kind) const;
  QString regionLabel(numeric::FormatId format, RegionKind kind) const; // "" if hidden
  QString regionLabel(const numeric::FloatFormat& format, RegionKind kind) const;
  QString countersText() const;
  double xMin() const;
  double xMax() const;

  QString csv() const override;
  QJsonDocument json() const override;

signals:
  // The user clicked the bar of binade exponent (2^e <= |x| < 2^(e+1)).
  void binClicked(int exponent);
  // The Scaled box changed (by the user or setShowScaled).
  void showScaledChanged(bool on);
  // The user asked, from the context menu, to shade a format of their own
  // (the Train page opens its format box there).
  void otherFormatRequested(const QPoint& globalPos);

protected:
  void restyleSeries(const ChartStyle& style) override;

private:
  struct Region {
    FormatRegion region;
    QAreaSeries* area = nullptr;
    QLineSeries* upper = nullptr;
    QLineSeries* lower = nullptr;
    QGraphicsSimpleTextItem* label = nullptr;
  };
  const telemetry::ExponentHistogram& shown() const;
  void replaceYAxis();
  void updateTitle();
  void updateChart();
  void updateRegions(double x0, double x1, double y0, double y1);
  void placeAnnotations();
  void fitCountTitle();
  std::vector<double> regionEdges() const;
  // lo, hi: where the label's left edge should stay when a clear place is there.
  static double clearOfEdges(double wanted, double width, const QRectF& plot,
                             const std::vector<double>& edges, double lo, double hi);
  void fitCounters();
  int formatRow(const QString& key) const;
  // One shaded format: the boxed ones (histogramFormats()), then the run's
  // and the user's own when they have no box.
  struct Shaded {
    numeric::FloatFormat format;
    QString key;
    bool visible = false;
    bool boxed = false; // one of histogramFormats(): always there
  };
  Shaded* shaded(const QString& key);
  const Shaded* shaded(const QString& key) const;
  void addShaded(const numeric::FloatFormat& format, bool boxed);
  void removeUnboxed(const QString& keep1, const QString& keep2);
  void applyRunFormat(const std::optional<numeric::FloatFormat>& format, double operandShift,
                      bool shade);
  void relabel();
  bool isVisible(const QString& key) const;

  telemetry::ExponentHistogram m_unscaled;
  telemetry::ExponentHistogram m_scaled;
  bool m_hasScaled = false;
  double m_lossScale = 1.0;
  bool m_showScaled = true;
  bool m_log = false;
  QString m_subject;
  QString m_detail;
  std::vector<Shaded> m_formats;
  std::optional<numeric::FloatFormat> m_runFormat;
  std::optional<numeric::FloatFormat> m_overlay;
  double m_operandShift = 0.0;
  bool m_shadeRunFormat = true;
  std::vector<Region> m_regions;

  QAreaSeries* m_bars = nullptr;
  QLineSeries* m_barTop = nullptr;
  QLineSeries* m_barBase = nullptr;
  QValueAxis* m_x = nullptr;
  QAbstractAxis* m_y = nullptr;
  QGraphicsTextItem* m_counters = nullptr;
  QString m_countersHtml; // what m_counters shows
  QCheckBox* m_logToggle = nullptr;
  QCheckBox* m_scaledToggle = nullptr;
  QLabel* m_detailLabel = nullptr;
  std::map<QString, QCheckBox*> m_formatToggles;
};

// The colour of a format's shaded regions (orange for a format without a box).
QColor formatRegionColor(numeric::FormatId format);

} // namespace mantissa::ui
