// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "ui/model/model_scan_job.h"

#include <QWidget>

#include <memory>
#include <optional>

class QAction;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QTextBrowser;

namespace mantissa::ui {

class BlockScaleMap;
class BlockView;
class HistogramChart;
class ModelFormatTable;
class ModelTensorView;

// Will a model's tensors survive FP16, BF16, FP8, MXFP4, NVFP4? File > Open
// Model (or the page's button) opens a safetensors file, a sharded model's
// index.json or a GGUF file; ModelScanJob scans it off the GUI thread with a
// progress bar and a Cancel button. The page shows the tensor table (grouped
// by layer, sortable, filtered by name), the selected tensor's exponent
// histogram with the format regions and its row per format, and the verdict
// per format with the scale pairings and orphans. Beside the exponent
// histogram, two tabs show a paired scale tensor: its per-block scales as a
// heat map (log2 colour) and their exponent histogram; clicking a block of
// the map opens its first values in the block view. Double clicking a tensor
// asks for its largest-magnitude value in the Explorer. Every number is core's.
// A file that cannot be read gives an inline error naming the problem and
// leaves the page as it was; so does a cancelled scan.
class ModelPage : public QWidget {
  Q_OBJECT
public:
  explicit ModelPage(QWidget* parent = nullptr);
  ~ModelPage() override;

  // File > Open Model…: asks for a file, then openModel().
  QAction* openAction() const { return m_openAction; }
  // Starts opening and scanning `path` (a scan under way is cancelled).
  void openModel(const QString& path);
  void cancelScan();
  bool scanning() const { return m_job != nullptr; }
  // The model shown (null before the first one).
  const std::shared_ptr<const ModelScan>& scan() const { return m_scan; }
  void selectTensor(std::size_t index);
  std::optional<std::size_t> selectedTensor() const;

  // Writes the report by the path's suffix: .html, .pdf, .json or .csv (one
  // row per tensor and format), atomically. Empty on success, else the message.
  QString exportReport(const QString& path) const;

  ModelTensorView* tensorView() const { return m_tensors; }
  QLineEdit* filterEdit() const { return m_filter; }
  HistogramChart* histogram() const { return m_histogram; }
  QTabWidget* chartTabs() const { return m_chartTabs; }
  BlockScaleMap* scaleMap() const { return m_scaleMap; }
  HistogramChart* scaleHistogram() const { return m_scaleHistogram; }
  // Opens block `index` of the scale map in the block view (its first
  // values, dequantized); null when there is no such block or the weight is
  // not decoded.
  BlockView* openScaleBlock(int index);
  BlockView* blockView() const { return m_blockView; }
  // The value the Explorer is asked for when tensor `index` is activated:
  // its largest-magnitude finite value, exactly, and the format to show it
  // in (the tensor's own 16- or 8-bit format, else fp16). Empty when the
  // tensor has no finite value.
  std::pair<QString, QString> explorerValueOf(std::size_t index) const;
  ModelFormatTable* formatTable() const { return m_formats; }
  QTextBrowser* verdictPanel() const { return m_verdicts; }
  QLabel* errorLabel() const { return m_error; }
  QProgressBar* progressBar() const { return m_progress; }
  QPushButton* cancelButton() const { return m_cancel; }

protected:
  void showEvent(QShowEvent* event) override;

signals:
  void modelShown(const QString& path);
  void openFailed(const QString& message);
  void scanCancelled(const QString& path);
  // A tensor's value for the Explorer (format: a numeric::parseFormatName name).
  void explorerRequested(const QString& value, const QString& format);

private:
  void chooseFile();
  void chooseReport();
  void showScan(std::shared_ptr<const ModelScan> scan);
  void showTensor(std::size_t index);
  void showScales(std::size_t index);
  void showProgress(const inspect::ScanProgress& progress);
  void showError(const QString& message);
  void endJob();
  QString verdictHtml() const;
  void applyTheme();
  void fitPanes();

  std::shared_ptr<const ModelScan> m_scan;
  std::unique_ptr<ModelScanJob> m_job;
  QAction* m_openAction = nullptr;
  QPushButton* m_openButton = nullptr;
  QPushButton* m_reportButton = nullptr;
  QLabel* m_summary = nullptr;
  QWidget* m_progressRow = nullptr;
  QProgressBar* m_progress = nullptr;
  QLabel* m_progressText = nullptr;
  QPushButton* m_cancel = nullptr;
  QLabel* m_error = nullptr;
  QStackedWidget* m_stack = nullptr;
  QLabel* m_placeholder = nullptr;
  QSplitter* m_split = nullptr;
  QSplitter* m_top = nullptr;
  QSplitter* m_bottom = nullptr;
  QLineEdit* m_filter = nullptr;
  ModelTensorView* m_tensors = nullptr;
  QTextBrowser* m_verdicts = nullptr;
  HistogramChart* m_histogram = nullptr;
  QTabWidget* m_chartTabs = nullptr;
  BlockScaleMap* m_scaleMap = nullptr;
  HistogramChart* m_scaleHistogram = nullptr;
  const PairedScales* m_shownScales = nullptr;
  BlockView* m_blockView = nullptr;
  QLabel* m_tensorCaption = nullptr;
  ModelFormatTable* m_formats = nullptr;
  bool m_sized = false;
};

} // namespace mantissa::ui
