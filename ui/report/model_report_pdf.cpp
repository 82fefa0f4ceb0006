// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/report/model_report_pdf.h"

#include <mantissa/io/atomic_file.h>

#include <QBuffer>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QTextDocument>

namespace mantissa::ui {

std::string writeModelReportPdf(const std::string& html, const std::string& path) {
  QByteArray bytes;
  {
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    writer.setTitle(QStringLiteral("Model report"));
    writer.setCreator(QStringLiteral("Mantissa"));
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Landscape,
                                     QMarginsF(10, 10, 10, 10), QPageLayout::Millimeter));
    QTextDocument doc;
    QFont font = doc.defaultFont();
    font.setPointSizeF(6.5);
    doc.setDefaultFont(font);
    doc.setHtml(QString::fromStdString(html));
    doc.print(&writer);
  }
  try {
    mantissa::io::writeFileAtomically(path, std::string_view(bytes.constData(), std::size_t(bytes.size())));
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

} // namespace mantissa::ui
