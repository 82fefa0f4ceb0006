// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "stacked_bar_chart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QGraphicsTextItem>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonObject>
#include <QLegend>
#include <QTextDocument>
#include <QHorizontalStackedBarSeries>
#include <QValueAxis>

#include <algorithm>

namespace mantissa::ui {

StackedBarChart::StackedBarChart(QWidget* parent) : ChartWidget(parent) {
  m_series = new QHorizontalStackedBarSeries(this);
  m_series->setBarWidth(0.6);
  chart()->addSeries(m_series);
  m_x = new QBarCategoryAxis(this); // the categories, down the left side
  // Qt shortens a name to "..." when its line plus 2 x 5 px of padding is
  // taller than its bar's slot; a slot as tall as the line is enough here
  // (Qt hides a name that would overlap the one below rather than draw both).
  m_x->setTruncateLabels(false);
  chart()->addAxis(m_x, Qt::AlignLeft);
  m_series->attachAxis(m_x);
  m_y = new QValueAxis(this);
  chart()->addAxis(m_y, Qt::AlignBottom);
  m_series->attachAxis(m_y);
  chart()->legend()->setAlignment(Qt::AlignRight);
  controls()->addStretch(1);
  connect(chart(), &QChart::plotAreaChanged, this, [this] {
    QMetaObject::invokeMethod(this, &StackedBarChart::fitCategoryFont, Qt::QueuedConnection);
  });
}

// Qt hides a category's name that would overlap the next (a bar's slot lower
// than the line): with many categories in a short chart at presenter type
// (15 recipes on a 1280 x 720 projector) the names take a smaller size, down
// to the screen's, so that every one shows.
void StackedBarChart::fitCategoryFont() {
  QFont font = chartStyle().labelFont();
  if (!m_categories.isEmpty()) {
    const qreal slot = chart()->plotArea().height() / qreal(m_categories.size());
    const qreal floor =
        std::min(font.pointSizeF(), ChartStyle::screen(false).labelFont().pointSizeF());
    QGraphicsTextItem probe; // measured as Qt Charts measures a label (document margin 0.5)
    probe.document()->setDocumentMargin(0.5);
    probe.setPlainText(m_shown.value(0));
    const auto height = [&](const QFont& f) {
      probe.setFont(f);
      return probe.boundingRect().height();
    };
    while (height(font) > slot && font.pointSizeF() - 0.5 >= floor)
      font.setPointSizeF(font.pointSizeF() - 0.5);
  }
  if (m_x->labelsFont() != font)
    m_x->setLabelsFont(font);
}

QAbstractBarSeries* StackedBarChart::series() const { return m_series; }

QBarSet* StackedBarChart::partSet(int part) const {
  const QList<QBarSet*> sets = m_series->barSets();
  return part >= 0 && part < sets.size() ? sets[part] : nullptr;
}

double StackedBarChart::barValue(int part, int category) const {
  const QBarSet* set = partSet(part);
  const int drawn = int(m_categories.size()) - 1 - category; // horizontal bars stack upwards
  return set != nullptr && drawn >= 0 && drawn < set->count() ? set->at(drawn) : 0.0;
}

void StackedBarChart::setBars(const QStringList& categories, const QStringList& parts,
                              const std::vector<std::vector<double>>& values,
                              const QString& yTitle, const QString& unit, const QStringList& shown) {
  m_categories = categories;
  m_parts = parts;
  m_values = values;
  m_unit = unit;
  m_shown.clear();
  for (qsizetype c = 0; c < categories.size(); ++c)
    m_shown << (c < shown.size() ? shown[c] : QString(categories[c]).replace(u'\n', u' '));
  m_series->clear();
  // Horizontal bars stack from the bottom up: the categories go in reversed,
  // so the first reads on top.
  double top = 0.0;
  std::vector<double> totals(static_cast<std::size_t>(categories.size()), 0.0);
  for (qsizetype p = 0; p < parts.size(); ++p) {
    auto* set = new QBarSet(parts[p]);
    const auto& row = values.at(static_cast<std::size_t>(p));
    for (qsizetype c = categories.size() - 1; c >= 0; --c) {
      const double v = std::max(0.0, row.at(static_cast<std::size_t>(c)));
      set->append(v);
      totals[static_cast<std::size_t>(c)] += v;
    }
    m_series->append(set);
  }
  for (double total : totals)
    top = std::max(top, total);
  m_x->clear();
  QStringList axis; // rich text
  for (qsizetype c = m_shown.size() - 1; c >= 0; --c)
    axis << m_shown[c].toHtmlEscaped();
  m_x->append(axis);
  m_y->setTitleText(yTitle);
  setNiceRange(m_y, 0.0, top > 0.0 ? top * 1.08 : 1.0);
  m_y->setLabelFormat(top >= 100.0 ? QStringLiteral("%.0f") : QStringLiteral("%.3g"));
  restyleSeries(chartStyle());
}

void StackedBarChart::restyleSeries(const ChartStyle& style) {
  const QList<QBarSet*> sets = m_series->barSets();
  for (qsizetype i = 0; i < sets.size(); ++i) {
    sets[i]->setColor(partColor(static_cast<int>(i)));
    sets[i]->setBorderColor(style.background().alpha() == 0 ? QColor(Qt::white) : style.background());
    sets[i]->setLabelColor(style.text());
  }
  fitCategoryFont(); // the style's label font, smaller where names would hide
}

QString StackedBarChart::csv() const {
  QString out = QStringLiteral("category,part,value_%1\n").arg(m_unit);
  for (qsizetype c = 0; c < m_categories.size(); ++c)
    for (qsizetype p = 0; p < m_parts.size(); ++p)
      out += QStringLiteral("%1,%2,%3\n")
                 .arg(csvField(QString(m_categories[c]).replace(QLatin1Char('\n'), QLatin1Char(' '))),
                      csvField(m_parts[p]))
                 .arg(m_values[static_cast<std::size_t>(p)][static_cast<std::size_t>(c)], 0, 'g', 9);
  return out;
}

QJsonDocument StackedBarChart::json() const {
  QJsonArray bars;
  for (qsizetype c = 0; c < m_categories.size(); ++c) {
    QJsonObject parts;
    for (qsizetype p = 0; p < m_parts.size(); ++p)
      parts.insert(m_parts[p], m_values[static_cast<std::size_t>(p)][static_cast<std::size_t>(c)]);
    bars.append(QJsonObject{{QStringLiteral("category"),
                             QString(m_categories[c]).replace(QLatin1Char('\n'), QLatin1Char(' '))},
                            {QStringLiteral("parts"), parts}});
  }
  return QJsonDocument(QJsonObject{{QStringLiteral("chart"), title()},
                                   {QStringLiteral("unit"), m_unit},
                                   {QStringLiteral("bars"), bars}});
}

} // namespace mantissa::ui
