// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/app_shell/view_export.h"

#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

namespace mantissa::ui {
namespace {

void renderInto(QWidget* widget, QPainter& painter) {
  widget->render(&painter, QPoint(), QRegion(),
                 QWidget::DrawWindowBackground | QWidget::DrawChildren);
}

QString writePng(QWidget* widget, QSaveFile& file) {
  constexpr qreal kScale = 2.0;
  QImage image(widget->size() * kScale, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(kScale);
  image.fill(widget->palette().window().color());
  QPainter painter(&image);
  renderInto(widget, painter);
  painter.end();
  return image.save(&file, "PNG") ? QString() : QObject::tr("the PNG encoder failed");
}

QString writeSvg(QWidget* widget, QSaveFile& file) {
  QSvgGenerator svg;
  svg.setOutputDevice(&file);
  svg.setResolution(96);
  svg.setSize(widget->size());
  svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
  svg.setTitle(widget->windowTitle().isEmpty() ? QStringLiteral("Mantissa")
                                               : widget->windowTitle());
  QPainter painter(&svg);
  renderInto(widget, painter);
  return painter.end() ? QString() : QObject::tr("the SVG generator failed");
}

QString writePdf(QWidget* widget, QSaveFile& file) {
  QPdfWriter pdf(&file);
  pdf.setCreator(QStringLiteral("Mantissa"));
  pdf.setResolution(96);
  pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
  // Page size in points for a 96 dpi widget: 72/96 of its pixel size.
  pdf.setPageSize(QPageSize(QSizeF(widget->width() * 0.75, widget->height() * 0.75),
                            QPageSize::Point, QString(), QPageSize::ExactMatch));
  QPainter painter(&pdf);
  const double scale =
      std::min(pdf.width() / double(widget->width()), pdf.height() / double(widget->height()));
  painter.scale(scale, scale);
  renderInto(widget, painter);
  return painter.end() ? QString() : QObject::tr("the PDF writer failed");
}

} // namespace

QString exportFileFilter() {
  return QObject::tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)");
}

QString exportWidget(QWidget* widget, const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix != QLatin1String("png") && suffix != QLatin1String("svg") &&
      suffix != QLatin1String("pdf"))
    return QObject::tr("Cannot export to '%1': the name must end in .png, .svg or .pdf.").arg(path);
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return QObject::tr("Cannot write '%1': %2").arg(path, file.errorString());
  QString problem = suffix == QLatin1String("png")   ? writePng(widget, file)
                    : suffix == QLatin1String("svg") ? writeSvg(widget, file)
                                                     : writePdf(widget, file);
  if (problem.isEmpty() && file.error() != QFileDevice::NoError)
    problem = file.errorString();
  if (!problem.isEmpty()) {
    file.cancelWriting();
    return QObject::tr("Cannot export to '%1': %2").arg(path, problem);
  }
  if (!file.commit())
    return QObject::tr("Cannot write '%1': %2").arg(path, file.errorString());
  return {};
}

} // namespace mantissa::ui
