// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A table of text drawn for export (PNG / SVG / PDF): a title, a bold header
// row and as many body rows as fit the target; the rest are counted in a last
// line (the CSV export holds every row).

#include "ui/charts/chart_export.h"

#include <QStringList>

#include <vector>

class QPainter;
class QRectF;

namespace mantissa::ui {

// The first `leftColumns` columns are aligned left, the others right.
void renderTextTable(QPainter& painter, const QRectF& target, const ExportStyle& style,
                     const QString& title, const QStringList& head,
                     const std::vector<QStringList>& rows, int leftColumns = 1);

} // namespace mantissa::ui
