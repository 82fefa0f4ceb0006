// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "worksheet_pdf.h"

#include <QBuffer>
#include <QFont>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QTextDocument>

namespace mantissa::ui {

namespace {

QString esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

} // namespace

QString worksheetHtml(const lessons::Sheet& sheet) {
  QString h;
  h += QStringLiteral("<html><body>");
  h += QStringLiteral("<h1>%1</h1>").arg(esc(sheet.title));
  h += QStringLiteral("<p>%1 items, difficulty %2. The same seed (%3) gives the same sheet.</p>")
           .arg(sheet.items.size())
           .arg(sheet.spec.difficulty)
           .arg(sheet.spec.seed);
  h += QStringLiteral("<p><i>%1</i></p>").arg(esc(std::string(lessons::exerciseAnswerRules())));
  h += QStringLiteral("<p>Name: ______________________________ &nbsp;&nbsp; Score: ______ / %1</p>")
           .arg(sheet.items.size());
  int n = 0;
  for (const lessons::Exercise& ex : sheet.items) {
    h += QStringLiteral("<p style=\"margin-top:14px\"><b>%1.</b> %2</p>").arg(++n).arg(esc(ex.question));
    if (!ex.items.empty()) {
      h += QStringLiteral("<p style=\"margin-left:24px\">");
      for (std::size_t i = 0; i < ex.items.size(); ++i)
        h += QStringLiteral("(%1)&nbsp;<tt>%2</tt>&nbsp;&nbsp;&nbsp; ").arg(i + 1).arg(esc(ex.items[i]));
      h += QStringLiteral("</p>");
    }
    h += QStringLiteral("<table style=\"margin-left:24px\" cellpadding=\"3\">");
    for (const lessons::AnswerPart& p : ex.parts)
      h += QStringLiteral("<tr><td>%1:</td><td>__________________________________</td></tr>")
               .arg(esc(p.label));
    h += QStringLiteral("</table>");
  }
  h += QStringLiteral("<h1 style=\"page-break-before:always\">Answer key: %1</h1>").arg(esc(sheet.title));
  n = 0;
  for (const lessons::Exercise& ex : sheet.items) {
    h += QStringLiteral("<h3>%1.</h3><ul>").arg(++n);
    for (const lessons::AnswerPart& p : ex.parts)
      h += QStringLiteral("<li>%1: <b><tt>%2</tt></b></li>").arg(esc(p.label), esc(p.keyText));
    h += QStringLiteral("</ul><ol>");
    for (const std::string& step : ex.steps)
      h += QStringLiteral("<li>%1</li>").arg(esc(step));
    h += QStringLiteral("</ol>");
  }
  h += QStringLiteral("</body></html>");
  return h;
}

QByteArray worksheetPdf(const lessons::Sheet& sheet) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  {
    QPdfWriter writer(&buffer);
    writer.setTitle(QString::fromStdString(sheet.title));
    writer.setCreator(QStringLiteral("Mantissa"));
    writer.setResolution(300);
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait,
                                     QMarginsF(18, 16, 18, 16), QPageLayout::Millimeter));
    QTextDocument doc;
    QFont font = doc.defaultFont();
    font.setPointSizeF(10.5);
    doc.setDefaultFont(font);
    doc.setHtml(worksheetHtml(sheet));
    doc.print(&writer);
  }
  return bytes;
}

} // namespace mantissa::ui
