// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "chart_export.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QMenu;
class QSpinBox;
class QWidget;

namespace mantissa::ui {

// Asks for PNG width, height, DPI and background (plus presenter styling).
class PngExportDialog : public QDialog {
  Q_OBJECT
public:
  explicit PngExportDialog(const ExportOptions& initial, QWidget* parent = nullptr);
  ExportOptions options() const;

private:
  QSpinBox* m_width = nullptr;
  QSpinBox* m_height = nullptr;
  QSpinBox* m_dpi = nullptr;
  QComboBox* m_background = nullptr;
  QCheckBox* m_presenter = nullptr;
};

// Adds "Export PNG…, SVG…, PDF…, Data as CSV…, Data as JSON…" to menu.
// The chart must outlive the menu.
void addExportActions(QMenu& menu, QWidget* parent, const ExportableChart& chart);
void popupExportMenu(QWidget* parent, const ExportableChart& chart, const QPoint& globalPos);

// Asks for a file name (and PNG options), exports, and reports an error in one
// message box. Returns true if a file was written.
bool exportInteractively(QWidget* parent, const ExportableChart& chart, ExportFormat format);

} // namespace mantissa::ui
