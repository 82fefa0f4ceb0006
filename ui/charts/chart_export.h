// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Export shared by every chart: PNG / SVG / PDF pictures and the data behind
// them as CSV / JSON. Usable headlessly (the CLI's `plot` and `train --export`)
// and from the chart context menu. Every file is rendered into memory first and
// then written atomically (io::writeFileAtomically: temporary file, fsync,
// rename), so a failed write never leaves a half-written file over a good one.

#include <QByteArray>
#include <QJsonDocument>
#include <QRectF>
#include <QSize>
#include <QString>

#include <cstdint>
#include <optional>

class QPainter;

namespace mantissa::ui {

struct ExportStyle {
  enum class Background : std::uint8_t { Screen, White, Transparent };
  Background background = Background::White;
  bool presenter = false; // large fonts and thick lines, as on a projector
};

// Anything that can be exported: the charts, the Float Explorer.
class ExportableChart {
public:
  virtual ~ExportableChart() = default;
  virtual QString title() const = 0;
  // Paints the whole figure (title, axes with units, legend) into target, in
  // logical pixels at 96 per inch; the painter may be scaled for DPI.
  virtual void render(QPainter& painter, const QRectF& target, const ExportStyle& style) const = 0;
  // A header line, then one row per data point.
  virtual QString csv() const = 0;
  virtual QJsonDocument json() const = 0;
};

enum class ExportFormat : std::uint8_t { Png, Svg, Pdf, Csv, Json };

struct ExportOptions {
  QSize size{1200, 750}; // pixels for PNG; the physical size is size / dpi inches
  int dpi = 150;
  ExportStyle style;
};

// By file extension (case-insensitive); nullopt if not one of the five.
std::optional<ExportFormat> exportFormatForPath(const QString& path);
QString exportFormatName(ExportFormat format); // "PNG", "SVG", ...

// Checks size and DPI; an empty string if usable, else the reason.
QString validateExportOptions(const ExportOptions& options);

QByteArray renderPng(const ExportableChart& chart, const ExportOptions& options);
QByteArray renderSvg(const ExportableChart& chart, const ExportOptions& options);
QByteArray renderPdf(const ExportableChart& chart, const ExportOptions& options);
QByteArray exportBytes(const ExportableChart& chart, ExportFormat format,
                       const ExportOptions& options);

// Writes bytes to path through a temporary file and a rename. Returns an empty
// string on success, else a message naming the path and the reason.
QString writeFileAtomically(const QString& path, const QByteArray& bytes);

// Renders by the path's extension and writes atomically. Returns an empty
// string on success, else an error message; never throws.
QString exportChart(const ExportableChart& chart, const QString& path,
                    const ExportOptions& options = {});

// One CSV field, quoted when it holds a comma, quote or newline.
QString csvField(const QString& text);

} // namespace mantissa::ui
