// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "stacked_bar_chart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonObject>
#include <QLegend>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <algorithm>

namespace mantissa::ui {

StackedBarChart::StackedBarChart(QWidget* parent) : ChartWidget(parent) {
  m_series = new QStackedBarSeries(this);
  m_series->setBarWidth(0.6);
  chart()->addSeries(m_series);
  m_x = new QBarCategoryAxis(this);
  m_x->setTitleText(tr("recipe"));
  chart()->addAxis(m_x, Qt::AlignBottom);
  m_series->attachAxis(m_x);
  m_y = new QValueAxis(this);
  chart()->addAxis(m_y, Qt::AlignLeft);
  m_series->attachAxis(m_y);
  chart()->legend()->setAlignment(Qt::AlignRight);
  controls()->addStretch(1);
}

QBarSet* StackedBarChart::partSet(int part) const {
  const QList<QBarSet*> sets = m_series->barSets();
  return part >= 0 && part < sets.size() ? sets[part] : nullptr;
}

void StackedBarChart::setBars(const QStringList& categories, const QStringList& parts,
                              const std::vector<std::vector<double>>& values,
                              const QString& yTitle, const QString& unit) {
  m_categories = categories;
  m_parts = parts;
  m_values = values;
  m_unit = unit;
  m_series->clear();
  double top = 0.0;
  std::vector<double> totals(static_cast<std::size_t>(categories.size()), 0.0);
  for (qsizetype p = 0; p < parts.size(); ++p) {
    auto* set = new QBarSet(parts[p]);
    const auto& row = values.at(static_cast<std::size_t>(p));
    for (qsizetype c = 0; c < categories.size(); ++c) {
      const double v = std::max(0.0, row.at(static_cast<std::size_t>(c)));
      set->append(v);
      totals[static_cast<std::size_t>(c)] += v;
    }
    m_series->append(set);
  }
  for (double total : totals)
    top = std::max(top, total);
  m_x->clear();
  QStringList shown; // axis labels are rich text: a line break is <br>
  for (const QString& c : categories)
    shown << c.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
  m_x->append(shown);
  m_y->setTitleText(yTitle);
  setNiceRange(m_y, 0.0, top > 0.0 ? top * 1.08 : 1.0);
  m_y->setLabelFormat(top >= 100.0 ? QStringLiteral("%.0f") : QStringLiteral("%.3g"));
  restyleSeries(chartStyle());
}

void StackedBarChart::restyleSeries(const ChartStyle& style) {
  const QList<QBarSet*> sets = m_series->barSets();
  for (qsizetype i = 0; i < sets.size(); ++i) {
    sets[i]->setColor(seriesColor(static_cast<int>(i)));
    sets[i]->setBorderColor(style.background().alpha() == 0 ? QColor(Qt::white) : style.background());
    sets[i]->setLabelColor(style.text());
  }
  m_x->setLabelsFont(style.labelFont());
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
