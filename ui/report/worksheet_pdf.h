// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A worksheet (lessons/exercise.h) as a printable PDF: the questions with
// blanks to fill in, then on a new page the answer key with the worked
// solutions. A4, vector text; needs a QGuiApplication (HeadlessApp).

#include <mantissa/lessons/exercise.h>

#include <QByteArray>
#include <QString>

namespace mantissa::ui {

// The sheet as HTML for QTextDocument (also what the PDF is printed from).
QString worksheetHtml(const lessons::Sheet& sheet);
QByteArray worksheetPdf(const lessons::Sheet& sheet);

} // namespace mantissa::ui
