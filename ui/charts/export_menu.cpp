// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "export_menu.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>

namespace mantissa::ui {

namespace {

const char* const kLastDirKey = "export/lastDirectory";

QString suggestedPath(const ExportableChart& chart, ExportFormat format) {
  QString base = chart.title().toLower();
  base.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
  base.remove(QRegularExpression(QStringLiteral("^-+|-+$")));
  if (base.isEmpty())
    base = QStringLiteral("chart");
  QString dir = QSettings().value(QLatin1String(kLastDirKey)).toString();
  if (dir.isEmpty())
    dir = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
  return QDir(dir).filePath(base + QLatin1Char('.') + exportFormatName(format).toLower());
}

QString fileFilter(ExportFormat format) {
  const QString name = exportFormatName(format);
  return QStringLiteral("%1 (*.%2)").arg(name, name.toLower());
}

} // namespace

PngExportDialog::PngExportDialog(const ExportOptions& initial, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Export PNG"));
  m_width = new QSpinBox(this);
  m_width->setRange(16, 16384);
  m_width->setSuffix(tr(" px"));
  m_width->setValue(initial.size.width());
  m_height = new QSpinBox(this);
  m_height->setRange(16, 16384);
  m_height->setSuffix(tr(" px"));
  m_height->setValue(initial.size.height());
  m_dpi = new QSpinBox(this);
  m_dpi->setRange(36, 1200);
  m_dpi->setValue(initial.dpi);
  m_background = new QComboBox(this);
  m_background->addItem(tr("White"), int(ExportStyle::Background::White));
  m_background->addItem(tr("Transparent"), int(ExportStyle::Background::Transparent));
  m_background->addItem(tr("As on screen"), int(ExportStyle::Background::Screen));
  m_background->setCurrentIndex(m_background->findData(int(initial.style.background)));
  m_presenter = new QCheckBox(tr("Presenter style (large text, thick lines)"), this);
  m_presenter->setChecked(initial.style.presenter);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* form = new QFormLayout(this);
  form->addRow(tr("Width"), m_width);
  form->addRow(tr("Height"), m_height);
  form->addRow(tr("DPI"), m_dpi);
  form->addRow(tr("Background"), m_background);
  form->addRow(m_presenter);
  form->addRow(buttons);
}

ExportOptions PngExportDialog::options() const {
  ExportOptions options;
  options.size = QSize(m_width->value(), m_height->value());
  options.dpi = m_dpi->value();
  options.style.background =
      static_cast<ExportStyle::Background>(m_background->currentData().toInt());
  options.style.presenter = m_presenter->isChecked();
  return options;
}

bool exportInteractively(QWidget* parent, const ExportableChart& chart, ExportFormat format) {
  ExportOptions options;
  if (format == ExportFormat::Png) {
    PngExportDialog dialog(options, parent);
    if (dialog.exec() != QDialog::Accepted)
      return false;
    options = dialog.options();
  }
  const QString path =
      QFileDialog::getSaveFileName(parent, QObject::tr("Export %1").arg(exportFormatName(format)),
                                   suggestedPath(chart, format), fileFilter(format));
  if (path.isEmpty())
    return false;
  QSettings().setValue(QLatin1String(kLastDirKey), QFileInfo(path).absolutePath());
  const QString error = exportChart(chart, path, options);
  if (!error.isEmpty()) {
    QMessageBox::warning(parent, QObject::tr("Export failed"), error);
    return false;
  }
  return true;
}

void addExportActions(QMenu& menu, QWidget* parent, const ExportableChart& chart) {
  const auto add = [&](const QString& text, ExportFormat format) {
    QObject::connect(menu.addAction(text), &QAction::triggered, parent,
                     [parent, &chart, format] { exportInteractively(parent, chart, format); });
  };
  add(QObject::tr("Export PNG…"), ExportFormat::Png);
  add(QObject::tr("Export SVG…"), ExportFormat::Svg);
  add(QObject::tr("Export PDF…"), ExportFormat::Pdf);
  menu.addSeparator();
  add(QObject::tr("Data as CSV…"), ExportFormat::Csv);
  add(QObject::tr("Data as JSON…"), ExportFormat::Json);
}

void popupExportMenu(QWidget* parent, const ExportableChart& chart, const QPoint& globalPos) {
  QMenu menu(parent);
  addExportActions(menu, parent, chart);
  menu.exec(globalPos);
}

} // namespace mantissa::ui
