// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "chart_export.h"

#include <mantissa/io/atomic_file.h>

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QFile>
#include <QSvgGenerator>

#include <cmath>
#include <filesystem>
#include <string_view>

namespace mantissa::ui {

namespace {

constexpr double kLogicalDpi = 96.0;
constexpr int kMaxPixels = 16384;

// The figure is laid out at size * 96 / dpi logical pixels, so text keeps its
// physical point size whatever DPI is chosen.
QSizeF logicalSize(const ExportOptions& options) {
  const double factor = kLogicalDpi / options.dpi;
  return {options.size.width() * factor, options.size.height() * factor};
}

QColor backgroundFill(const ExportStyle& style) {
  return style.background == ExportStyle::Background::Transparent ? QColor(Qt::transparent)
                                                                  : QColor(Qt::white);
}

} // namespace

std::optional<ExportFormat> exportFormatForPath(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("png"))
    return ExportFormat::Png;
  if (suffix == QLatin1String("svg"))
    return ExportFormat::Svg;
  if (suffix == QLatin1String("pdf"))
    return ExportFormat::Pdf;
  if (suffix == QLatin1String("csv"))
    return ExportFormat::Csv;
  if (suffix == QLatin1String("json"))
    return ExportFormat::Json;
  return std::nullopt;
}

QString exportFormatName(ExportFormat format) {
  switch (format) {
  case ExportFormat::Png: return QStringLiteral("PNG");
  case ExportFormat::Svg: return QStringLiteral("SVG");
  case ExportFormat::Pdf: return QStringLiteral("PDF");
  case ExportFormat::Csv: return QStringLiteral("CSV");
  case ExportFormat::Json: return QStringLiteral("JSON");
  }
  return {};
}

QString validateExportOptions(const ExportOptions& options) {
  if (options.size.width() < 16 || options.size.height() < 16 ||
      options.size.width() > kMaxPixels || options.size.height() > kMaxPixels)
    return QStringLiteral("export size %1 x %2 is outside 16 .. %3 pixels")
        .arg(options.size.width())
        .arg(options.size.height())
        .arg(kMaxPixels);
  if (options.dpi < 36 || options.dpi > 1200)
    return QStringLiteral("export DPI %1 is outside 36 .. 1200").arg(options.dpi);
  return {};
}

QByteArray renderPng(const ExportableChart& chart, const ExportOptions& options) {
  QImage image(options.size, QImage::Format_ARGB32_Premultiplied);
  // Paint at the logical 96 DPI (fonts convert points to pixels by the
  // device's DPI) under a scale, then record the requested DPI in the file.
  const auto setDpi = [&image](double dpi) {
    const int dotsPerMeter = static_cast<int>(std::lround(dpi / 0.0254));
    image.setDotsPerMeterX(dotsPerMeter);
    image.setDotsPerMeterY(dotsPerMeter);
  };
  setDpi(kLogicalDpi);
  image.fill(backgroundFill(options.style));
  {
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.scale(options.dpi / kLogicalDpi, options.dpi / kLogicalDpi);
    chart.render(painter, QRectF(QPointF(0, 0), logicalSize(options)), options.style);
  }
  setDpi(options.dpi);
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  image.save(&buffer, "PNG");
  return bytes;
}

QByteArray renderSvg(const ExportableChart& chart, const ExportOptions& options) {
  const QSizeF logical = logicalSize(options);
  QByteArray bytes;
  QBuffer buffer(&bytes);
  QSvgGenerator generator;
  generator.setOutputDevice(&buffer);
  generator.setResolution(static_cast<int>(kLogicalDpi));
  generator.setSize(logical.toSize());
  generator.setViewBox(QRectF(QPointF(0, 0), logical));
  generator.setTitle(chart.title());
  generator.setDescription(QStringLiteral("Exported by Mantissa"));
  {
    QPainter painter(&generator);
    painter.setRenderHint(QPainter::Antialiasing);
    if (options.style.background != ExportStyle::Background::Transparent)
      painter.fillRect(QRectF(QPointF(0, 0), logical), backgroundFill(options.style));
    chart.render(painter, QRectF(QPointF(0, 0), logical), options.style);
  }
  return bytes;
}

QByteArray renderPdf(const ExportableChart& chart, const ExportOptions& options) {
  const QSizeF logical = logicalSize(options);
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  {
    QPdfWriter writer(&buffer);
    writer.setTitle(chart.title());
    writer.setCreator(QStringLiteral("Mantissa"));
    writer.setResolution(static_cast<int>(kLogicalDpi));
    const QPageSize page(QSizeF(logical.width() / kLogicalDpi, logical.height() / kLogicalDpi),
                         QPageSize::Inch, QString(), QPageSize::ExactMatch);
    writer.setPageLayout(QPageLayout(page, QPageLayout::Portrait, QMarginsF()));
    QPainter painter(&writer);
    painter.setRenderHint(QPainter::Antialiasing);
    const QRectF target(QPointF(0, 0), QSizeF(writer.width(), writer.height()));
    if (options.style.background != ExportStyle::Background::Transparent)
      painter.fillRect(target, backgroundFill(options.style));
    chart.render(painter, target, options.style);
  }
  return bytes;
}

QByteArray exportBytes(const ExportableChart& chart, ExportFormat format,
                       const ExportOptions& options) {
  switch (format) {
  case ExportFormat::Png: return renderPng(chart, options);
  case ExportFormat::Svg: return renderSvg(chart, options);
  case ExportFormat::Pdf: return renderPdf(chart, options);
  case ExportFormat::Csv: return chart.csv().toUtf8();
  case ExportFormat::Json: return chart.json().toJson(QJsonDocument::Indented);
  }
  return {};
}

QString writeFileAtomically(const QString& path, const QByteArray& bytes) {
  if (path.isEmpty())
    return QStringLiteral("no output file given");
  try {
    io::writeFileAtomically(std::filesystem::path(QFile::encodeName(path).toStdString()),
                            std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
  } catch (const std::exception& error) {
    return QString::fromLocal8Bit(error.what());
  }
  return {};
}

QString exportChart(const ExportableChart& chart, const QString& path,
                    const ExportOptions& options) {
  const auto format = exportFormatForPath(path);
  if (!format)
    return QStringLiteral("cannot export to %1: the extension must be .png, .svg, .pdf, .csv or "
                          ".json")
        .arg(path);
  if (const QString invalid = validateExportOptions(options); !invalid.isEmpty())
    return invalid;
  const QByteArray bytes = exportBytes(chart, *format, options);
  if (bytes.isEmpty())
    return QStringLiteral("could not render %1 as %2").arg(chart.title(), exportFormatName(*format));
  return writeFileAtomically(path, bytes);
}

QString csvField(const QString& text) {
  if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
      !text.contains(QLatin1Char('\n')))
    return text;
  QString quoted = text;
  quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
  return QLatin1Char('"') + quoted + QLatin1Char('"');
}

} // namespace mantissa::ui
