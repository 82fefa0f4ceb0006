// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QString>

class QWidget;

namespace mantissa::ui {

// Renders `widget` (with its children, as on screen) to `path`, choosing the
// format from the suffix: .png (at twice the screen resolution), .svg or .pdf.
// The file is written atomically (temporary file, then rename). Returns an
// empty string on success, else a message naming the path and the problem.
QString exportWidget(QWidget* widget, const QString& path);

// The file-dialog filter for the formats exportWidget() writes.
QString exportFileFilter();

} // namespace mantissa::ui
