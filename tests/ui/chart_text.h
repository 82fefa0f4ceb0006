// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Readability checks for laid-out charts: Qt Charts shortens a chart title,
// axis title or tick label that has no room to "..." (ChartPresenter::
// truncatedText); a text can also be cut by the edge of its view. Both are
// what a class at a projector cannot read.
#pragma once

#include <QChart>
#include <QChartView>
#include <QGraphicsTextItem>
#include <QGraphicsWidget>
#include <QLegend>
#include <QStringList>
#include <QWidget>

namespace mantissa::ui {

enum class Legends { Check, Skip };

// Every text of the shown charts under `root` that Qt Charts elided or that
// sticks out of its view, as "objectName: text" (empty when all are readable).
// Legends::Skip leaves the legends' entries out.
inline QStringList unreadableChartTexts(const QWidget& root, Legends legends = Legends::Check) {
  QStringList out;
  QList<QChartView*> views = root.findChildren<QChartView*>();
  if (auto* self = qobject_cast<QChartView*>(const_cast<QWidget*>(&root)))
    views.prepend(self);
  for (QChartView* view : views) {
    if (!view->isVisible())
      continue;
    const QString owner =
        view->parentWidget() != nullptr ? view->parentWidget()->objectName() : view->objectName();
    const QRectF inside = QRectF(view->rect()).adjusted(-1, -1, 1, 1);
    for (QGraphicsItem* item : view->scene()->items()) {
      const auto* text = dynamic_cast<QGraphicsTextItem*>(item);
      if (text == nullptr || !text->isVisible() || text->toPlainText().isEmpty())
        continue;
      const QString plain = text->toPlainText();
      bool inLegend = false;
      for (const QGraphicsItem* up = text; up != nullptr && !inLegend; up = up->parentItem())
        inLegend = up->isWidget() && qobject_cast<const QLegend*>(static_cast<const QGraphicsWidget*>(up)) != nullptr;
      if (inLegend && legends == Legends::Skip)
        continue;
      const QRectF at = view->mapFromScene(text->sceneBoundingRect()).boundingRect();
      if (plain.contains(QStringLiteral("...")) || plain.contains(QChar(0x2026)))
        out << QStringLiteral("%1: elided \"%2\"").arg(owner, plain);
      else if (!inside.contains(at))
        out << QStringLiteral("%1: cut \"%2\"").arg(owner, plain);
    }
  }
  return out;
}

} // namespace mantissa::ui
