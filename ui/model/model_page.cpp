// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/model/model_page.h"

#include "ui/app_shell/palette.h"
#include "ui/app_shell/theme.h"
#include "ui/charts/block_scale_map.h"
#include "ui/charts/histogram_chart.h"
#include "ui/formats/block_view.h"
#include "ui/model/model_format_table.h"
#include "ui/model/model_tensor_model.h"
#include "ui/model/model_tensor_view.h"
#include "ui/report/model_report_pdf.h"

#include <mantissa/io/atomic_file.h>

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>

namespace mantissa::ui {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

// At most `limit` items (HTML already), then "and N more".
QString htmlList(const QStringList& items, qsizetype limit = 12) {
  QString text = items.mid(0, limit).join(QStringLiteral(", "));
  if (items.size() > limit)
    text += QObject::tr(" and %1 more").arg(items.size() - limit);
  return text;
}

} // namespace

ModelPage::ModelPage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("modelPage"));
  m_openAction = new QAction(tr("Open &Model…"), this);
  m_openAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  m_openAction->setToolTip(tr("Open a safetensors, sharded safetensors (index.json) or GGUF model and "
                              "check every tensor against FP16, BF16, FP8, MXFP4 and NVFP4"));
  // Queued: whoever shows this page on triggered (the main window) does so
  // before the file dialog opens over it.
  connect(m_openAction, &QAction::triggered, this, &ModelPage::chooseFile, Qt::QueuedConnection);

  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  m_openButton = new QPushButton(tr("Open Model…"));
  m_openButton->setToolTip(m_openAction->toolTip());
  connect(m_openButton, &QPushButton::clicked, this, &ModelPage::chooseFile);
  m_summary = new QLabel;
  m_summary->setObjectName(QStringLiteral("modelSummary"));
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summary->setMinimumWidth(0);
  m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  m_reportButton = new QPushButton(tr("Export Report…"));
  m_reportButton->setToolTip(tr("The whole scan as HTML, PDF, JSON or CSV"));
  m_reportButton->setEnabled(false);
  connect(m_reportButton, &QPushButton::clicked, this, &ModelPage::chooseReport);
  top->addWidget(m_openButton);
  top->addWidget(m_summary, 1);
  top->addWidget(m_reportButton);
  layout->addLayout(top);

  m_progressRow = new QWidget;
  auto* progress = new QHBoxLayout(m_progressRow);
  progress->setContentsMargins(0, 0, 0, 0);
  m_progress = new QProgressBar;
  m_progress->setObjectName(QStringLiteral("modelScanProgress"));
  m_progress->setRange(0, 1000);
  m_progress->setTextVisible(false);
  m_progressText = new QLabel;
  m_cancel = new QPushButton(tr("Cancel"));
  connect(m_cancel, &QPushButton::clicked, this, &ModelPage::cancelScan);
  progress->addWidget(m_progressText);
  progress->addWidget(m_progress, 1);
  progress->addWidget(m_cancel);
  m_progressRow->hide();
  layout->addWidget(m_progressRow);

  m_error = new QLabel;
  m_error->setObjectName(QStringLiteral("modelError"));
  m_error->setWordWrap(true);
  m_error->setTextFormat(Qt::PlainText);
  m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_error->hide();
  layout->addWidget(m_error);

  m_stack = new QStackedWidget;
  m_placeholder = new QLabel(tr("Open a model file (File > Open Model…): a safetensors file, a sharded "
                                "model's model.safetensors.index.json or a GGUF file.\n\nEvery tensor is read "
                                "once and measured against FP16, BF16, FP8 E4M3 / E5M2, MXFP8, MXFP6, MXFP4, "
                                "NVFP4 and FP8 block-128: what overflows, what flushes to zero, the SQNR."));
  m_placeholder->setWordWrap(true);
  m_placeholder->setAlignment(Qt::AlignCenter);
  m_placeholder->setMargin(40);
  m_stack->addWidget(m_placeholder);

  // Four panes: the tensor table and the histogram above, the selected
  // tensor's formats and the verdicts below; the two rows' columns move together.
  m_split = new QSplitter(Qt::Vertical);
  m_split->setChildrenCollapsible(false);
  m_top = new QSplitter(Qt::Horizontal);
  m_bottom = new QSplitter(Qt::Horizontal);
  for (QSplitter* row : {m_top, m_bottom})
    row->setChildrenCollapsible(false);
  auto* tableBox = new QWidget;
  auto* tableLayout = new QVBoxLayout(tableBox);
  tableLayout->setContentsMargins(0, 0, 0, 0);
  m_filter = new QLineEdit;
  m_filter->setObjectName(QStringLiteral("modelFilter"));
  m_filter->setPlaceholderText(tr("Filter tensors by name (e.g. attn, layers.3, lm_head)"));
  m_filter->setClearButtonEnabled(true);
  m_tensors = new ModelTensorView;
  connect(m_filter, &QLineEdit::textChanged, m_tensors, &ModelTensorView::setNameFilter);
  connect(m_tensors, &ModelTensorView::tensorSelected, this, &ModelPage::showTensor);
  connect(m_tensors, &ModelTensorView::tensorActivated, this, [this](std::size_t index) {
    const auto [value, format] = explorerValueOf(index);
    if (!value.isEmpty())
      emit explorerRequested(value, format);
  });
  tableLayout->addWidget(m_filter);
  tableLayout->addWidget(m_tensors, 1);
  m_histogram = new HistogramChart;
  // Two more tabs: a paired scale tensor's heat map and histogram.
  m_scaleMap = new BlockScaleMap;
  m_scaleMap->setObjectName(QStringLiteral("modelScaleMap"));
  m_scaleMap->clear(tr("Select a quantized tensor with a paired scale tensor"));
  connect(m_scaleMap, &BlockScaleMap::blockClicked, this, [this](int index) { openScaleBlock(index); });
  m_scaleHistogram = new HistogramChart;
  m_scaleHistogram->setObjectName(QStringLiteral("modelScaleHistogram"));
  m_scaleHistogram->setRunFormat(std::nullopt, 0.0, false);
  m_chartTabs = new QTabWidget;
  m_chartTabs->addTab(m_histogram, tr("Exponents"));
  m_chartTabs->addTab(m_scaleMap, tr("Scale map"));
  m_chartTabs->addTab(m_scaleHistogram, tr("Scale histogram"));
  m_chartTabs->setTabToolTip(1, tr("A paired scale tensor's per-block scales, log2 colour; click a block to "
                                   "open its values in the block view"));
  m_chartTabs->setTabToolTip(2, tr("The exponent histogram of a paired scale tensor's dequantizing scales"));
  m_top->addWidget(tableBox);
  m_top->addWidget(m_chartTabs);

  auto* formatBox = new QWidget;
  auto* formatLayout = new QVBoxLayout(formatBox);
  formatLayout->setContentsMargins(0, 0, 0, 0);
  m_tensorCaption = new QLabel;
  m_tensorCaption->setObjectName(QStringLiteral("modelTensorCaption"));
  m_tensorCaption->setWordWrap(true);
  m_tensorCaption->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_formats = new ModelFormatTable;
  formatLayout->addWidget(m_tensorCaption);
  formatLayout->addWidget(m_formats);
  formatLayout->addStretch(1);
  m_verdicts = new QTextBrowser;
  m_verdicts->setObjectName(QStringLiteral("modelVerdicts"));
  m_verdicts->setOpenLinks(false);
  connect(m_verdicts, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
    bool ok = false;
    const qulonglong index = url.path().toULongLong(&ok);
    if (url.scheme() == QStringLiteral("tensor") && ok) {
      m_filter->clear();
      selectTensor(std::size_t(index));
    }
  });
  m_bottom->addWidget(formatBox);
  m_bottom->addWidget(m_verdicts);
  connect(m_top, &QSplitter::splitterMoved, this, [this] { m_bottom->setSizes(m_top->sizes()); });
  connect(m_bottom, &QSplitter::splitterMoved, this, [this] { m_top->setSizes(m_bottom->sizes()); });
  m_split->addWidget(m_top);
  m_split->addWidget(m_bottom);
  m_stack->addWidget(m_split);
  layout->addWidget(m_stack, 1);

  connect(&Theme::instance(), &Theme::changed, this, &ModelPage::applyTheme);
  applyTheme();
}

// The job joins its thread when deleted: before the widgets it reports to go.
ModelPage::~ModelPage() { m_job.reset(); }

void ModelPage::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (!m_sized && width() > 0) {
    m_sized = true;
    fitPanes();
  }
}

// The table's numbers need the width more than the histogram does; the lower
// row is as tall as the per-format table with every row whole.
void ModelPage::fitPanes() {
  const int w = m_stack->width();
  const int h = m_stack->height();
  const QList<int> columns{w * 58 / 100, w * 42 / 100};
  m_top->setSizes(columns);
  m_bottom->setSizes(columns);
  const int lower = std::min(h / 2, m_formats->sizeHint().height() + m_tensorCaption->sizeHint().height() +
                                        2 * fontMetrics().height());
  m_split->setSizes({h - lower, lower});
}

void ModelPage::applyTheme() {
  m_placeholder->setFont(Theme::instance().uiFont(1.25));
  const QColor base = palette().color(QPalette::Window);
  m_error->setStyleSheet(QStringLiteral("QLabel { background: %1; border: 1px solid %2; padding: 6px; }")
                             .arg(palette::blend(palette::kWarning, base, 0.8).name(),
                                  palette::kWarning.name()));
  if (m_scan)
    m_verdicts->setHtml(verdictHtml());
  if (m_sized) // presenter mode on or off: the type changes size once it has reached the widgets
    QTimer::singleShot(0, this, &ModelPage::fitPanes);
}

void ModelPage::chooseFile() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open Model"), {},
      tr("Models (*.safetensors *.gguf *.json);;safetensors (*.safetensors);;Sharded safetensors index "
         "(*.index.json);;GGUF (*.gguf);;All files (*)"));
  if (!path.isEmpty())
    openModel(path);
}

void ModelPage::chooseReport() {
  if (!m_scan)
    return;
  const QString base = QFileInfo(m_scan->path).completeBaseName();
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export Model Report"), base + QStringLiteral("-report.html"),
      tr("HTML (*.html);;PDF (*.pdf);;JSON (*.json);;CSV, one row per tensor (*.csv)"));
  if (path.isEmpty())
    return;
  if (const QString problem = exportReport(path); !problem.isEmpty())
    QMessageBox::warning(this, tr("Export Report"), problem);
}

QString ModelPage::exportReport(const QString& path) const {
  if (!m_scan)
    return tr("No model is open.");
  const QString suffix = QFileInfo(path).suffix().toLower();
  const inspect::ModelFile& model = *m_scan->model;
  try {
    if (suffix == QStringLiteral("pdf")) {
      const std::string e = writeModelReportPdf(inspect::reportHtml(model, m_scan->stats), path.toStdString());
      return qs(e);
    }
    if (suffix == QStringLiteral("html") || suffix == QStringLiteral("htm"))
      io::writeFileAtomically(path.toStdString(), inspect::reportHtml(model, m_scan->stats));
    else if (suffix == QStringLiteral("json"))
      io::writeFileAtomically(path.toStdString(), inspect::reportJson(model, m_scan->stats));
    else if (suffix == QStringLiteral("csv"))
      io::writeFileAtomically(path.toStdString(), inspect::reportCsv(model, m_scan->stats));
    else
      return tr("%1: a report is .html, .pdf, .json or .csv").arg(path);
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
  return {};
}

void ModelPage::openModel(const QString& path) {
  m_job.reset(); // a scan under way is cancelled and joined: its reports are dropped
  m_job = std::make_unique<ModelScanJob>(path);
  ModelScanJob* job = m_job.get();
  // The job emits on this (the GUI) thread: direct connections.
  connect(job, &ModelScanJob::progressed, this, &ModelPage::showProgress);
  connect(job, &ModelScanJob::finished, this, [this](std::shared_ptr<const ModelScan> scan) {
    endJob();
    showScan(std::move(scan));
  });
  connect(job, &ModelScanJob::failed, this, [this](const QString& message) {
    endJob();
    showError(message);
  });
  connect(job, &ModelScanJob::cancelled, this, [this, path] {
    endJob();
    emit scanCancelled(path);
  });
  m_progress->setValue(0);
  m_progressText->setText(tr("Opening %1…").arg(QFileInfo(path).fileName()));
  m_progressRow->show();
}

void ModelPage::cancelScan() {
  if (m_job) {
    m_job->cancel();
    m_progressText->setText(tr("Cancelling…"));
  }
}

// Deleted later: this runs inside one of the job's own signals.
void ModelPage::endJob() {
  if (m_job)
    m_job.release()->deleteLater();
  m_progressRow->hide();
}

void ModelPage::showProgress(const inspect::ScanProgress& p) {
  const QLocale locale;
  m_progress->setValue(p.bytesTotal ? int(1000.0 * double(p.bytesDone) / double(p.bytesTotal)) : 0);
  m_progressText->setText(tr("Scanning %1: %2 of %3 tensors, %4 of %5")
                              .arg(QFileInfo(m_job ? m_job->path() : QString()).fileName())
                              .arg(p.tensorsDone)
                              .arg(p.tensorsTotal)
                              .arg(locale.formattedDataSize(qint64(p.bytesDone)),
                                   locale.formattedDataSize(qint64(p.bytesTotal))));
}

void ModelPage::showError(const QString& message) {
  m_error->setText(tr("Could not open the model: %1").arg(message));
  m_error->setToolTip(message);
  m_error->show();
  emit openFailed(message);
}

void ModelPage::showScan(std::shared_ptr<const ModelScan> scan) {
  m_error->hide();
  m_scan = std::move(scan);
  const inspect::ModelFile& model = *m_scan->model;
  const QLocale locale;
  std::size_t decoded = 0;
  for (const inspect::ModelTensor& t : model.tensors())
    decoded += t.decoded ? 1 : 0;
  const QString summary = tr("<b>%1</b> · %2 · %n tensors (%3 decoded) · %4", nullptr, int(model.tensors().size()))
                              .arg(QFileInfo(m_scan->path).fileName().toHtmlEscaped(),
                                   qs(inspect::modelFormatName(model.format())))
                              .arg(decoded)
                              .arg(locale.formattedDataSize(qint64(model.fileBytes())));
  m_summary->setText(summary);
  m_summary->setToolTip(m_scan->path);
  m_reportButton->setEnabled(true);
  m_filter->clear();
  m_tensors->setScan(m_scan);
  m_verdicts->setHtml(verdictHtml());
  if (m_stack->currentWidget() != m_split) {
    m_stack->setCurrentWidget(m_split);
    fitPanes();
  }
  m_formats->clearTensor();
  m_tensorCaption->clear();
  m_histogram->setHistograms(telemetry::ExponentHistogram{});
  m_histogram->setSubject(tr("no tensor selected"));
  m_shownScales = nullptr;
  m_scaleMap->clear(tr("Select a quantized tensor with a paired scale tensor"));
  m_scaleHistogram->setHistograms(telemetry::ExponentHistogram{});
  m_scaleHistogram->setSubject(tr("no scale tensor"));
  for (std::size_t t : m_tensors->shownTensors())
    if (m_scan->stats[t].scanned) {
      selectTensor(t);
      break;
    }
  emit modelShown(m_scan->path);
}

void ModelPage::selectTensor(std::size_t index) {
  if (!m_scan || index >= m_scan->stats.size())
    return;
  if (!m_tensors->selectTensor(index)) // hidden by the filter: shown all the same
    showTensor(index);
}

std::optional<std::size_t> ModelPage::selectedTensor() const { return m_tensors->currentTensor(); }

void ModelPage::showTensor(std::size_t index) {
  if (!m_scan || index >= m_scan->stats.size())
    return;
  const inspect::ModelTensor& t = m_scan->model->tensors()[index];
  const inspect::TensorStats& s = m_scan->stats[index];
  const QString name = qs(t.name);
  m_histogram->setHistograms(s.hist);
  m_histogram->setSubject(name, qs(t.dtype));
  m_formats->setTensor(s, name);
  showScales(index);
  QString caption = QStringLiteral("<b>%1</b> · %2 · %3").arg(name.toHtmlEscaped(), qs(t.dtype).toHtmlEscaped(),
                                                             qs(inspect::shapeText(t.shape)));
  if (!s.scanned)
    caption += tr(" · not decoded: the float formats do not apply");
  else
    caption += tr(" · outlier ratio absmax / RMS %1").arg(QString::number(s.outlierRatio(), 'g', 4));
  const QString scale = m_tensors->tensorModel()->scaleText(index);
  if (!scale.isEmpty()) {
    const bool orphan = m_tensors->tensorModel()->isOrphan(index);
    caption += QStringLiteral("<br>") +
               (orphan ? QStringLiteral("<span style='color:%1'><b>%2</b></span>")
                             .arg(palette::kWarning.name(), scale.toHtmlEscaped())
                       : tr("scale: %1").arg(scale.toHtmlEscaped()));
  }
  m_tensorCaption->setText(caption);
}

void ModelPage::showScales(std::size_t index) {
  const PairedScales* ps = m_scan->scalesOf(index);
  m_shownScales = ps;
  if (ps == nullptr) {
    m_scaleMap->clear(tr("%1 has no paired scale tensor").arg(qs(m_scan->model->tensors()[index].name)));
    m_scaleHistogram->setHistograms(telemetry::ExponentHistogram{});
    m_scaleHistogram->setSubject(tr("no scale tensor"));
    return;
  }
  const std::size_t k = std::size_t(ps - m_scan->scales.data());
  const inspect::ScalePairing& p = m_scan->pairings[k];
  const auto& tensors = m_scan->model->tensors();
  const QString weight = qs(tensors[p.tensor].name);
  const QString scale = p.scale ? qs(tensors[*p.scale].name) : QString();
  m_scaleMap->setQuantized(ps->blocks, tr("%1 ← %2").arg(weight, scale), tr("rows"), tr("columns"));
  m_scaleHistogram->setHistograms(ps->histogram);
  m_scaleHistogram->setSubject(tr("%1 (%2 scales)").arg(scale, qs(inspect::scaleKindName(p.kind))),
                               tr("%n block(s)", nullptr, int(ps->grid.scale.size())));
}

BlockView* ModelPage::openScaleBlock(int index) {
  if (!m_scan || !m_shownScales || !m_shownScales->grid.dequantizable || index < 0 ||
      std::size_t(index) >= m_shownScales->blocks.blocks.size())
    return nullptr;
  const std::size_t k = std::size_t(m_shownScales - m_scan->scales.data());
  const inspect::ScalePairing& p = m_scan->pairings[k];
  const numeric::QuantBlock& b = m_shownScales->blocks.blocks[std::size_t(index)];
  const std::size_t n = std::min<std::size_t>(BlockView::kMaxValues, b.cols);
  std::vector<double> values(n);
  try {
    inspect::dequantize(*m_scan->model, p, m_shownScales->grid, std::uint64_t(b.row) * m_shownScales->grid.weightCols + b.col,
                        values);
  } catch (const std::exception& e) {
    m_error->setText(QString::fromUtf8(e.what()));
    m_error->show();
    return nullptr;
  }
  if (m_blockView == nullptr) {
    m_blockView = new BlockView(this);
    m_blockView->setWindowFlag(Qt::Window);
    m_blockView->resize(900, 700);
  }
  QString source = tr("%1 · row %2, columns %3–%4, dequantized with its stored scale %5")
                       .arg(qs(m_scan->model->tensors()[p.tensor].name))
                       .arg(b.row)
                       .arg(b.col)
                       .arg(b.col + n - 1)
                       .arg(QString::number(m_shownScales->grid.effectiveScale(std::size_t(index)), 'g', 9));
  if (b.count > n)
    source += tr(" · the first %1 of the block's %2 values").arg(n).arg(b.count);
  m_blockView->showBlock(values, m_shownScales->blocks.scheme, numeric::ScaleRounding::Floor, source);
  m_blockView->show();
  m_blockView->raise();
  return m_blockView;
}

std::pair<QString, QString> ModelPage::explorerValueOf(std::size_t index) const {
  if (!m_scan || index >= m_scan->stats.size())
    return {};
  const inspect::TensorStats& s = m_scan->stats[index];
  if (!s.scanned || s.finite == 0)
    return {};
  const double v = s.largestMagnitude();
  const std::string& dtype = m_scan->model->tensors()[index].dtype;
  QString format = QStringLiteral("fp16");
  if (dtype == "BF16")
    format = QStringLiteral("bf16");
  else if (dtype == "F8_E4M3")
    format = QStringLiteral("fp8-e4m3");
  else if (dtype == "F8_E5M2")
    format = QStringLiteral("fp8-e5m2");
  return {QString::number(v, 'g', 17), format};
}

QString ModelPage::verdictHtml() const {
  const auto& tensors = m_scan->model->tensors();
  const QString bad = palette::kWarning.name();
  QString html = QStringLiteral("<h3 style='margin:2px'>%1</h3><ul style='margin-left:-20px'>").arg(tr("Verdicts"));
  for (const inspect::FormatVerdict& v : m_scan->verdicts) {
    const bool hurt = !v.overflowing.empty();
    html += hurt ? QStringLiteral("<li style='color:%1'>%2</li>").arg(bad, qs(v.text).toHtmlEscaped())
                 : QStringLiteral("<li>%1</li>").arg(qs(v.text).toHtmlEscaped());
  }
  html += QStringLiteral("</ul>");
  // Tensor names as links: a click selects the tensor in the table.
  const auto link = [&tensors](std::size_t i) {
    return QStringLiteral("<a href='tensor:%1'>%2</a>").arg(i).arg(qs(tensors[i].name).toHtmlEscaped());
  };
  QStringList orphans, paired;
  for (const inspect::ScalePairing& p : m_scan->pairings) {
    if (p.kind == inspect::ScaleKind::Orphan)
      orphans << link(p.tensor) + QStringLiteral(" (") + qs(p.note).toHtmlEscaped() + u')';
    else if (p.scale)
      paired << QStringLiteral("%1 ← %2 <i>(%3)</i>")
                    .arg(link(p.tensor), link(*p.scale), qs(inspect::scaleKindName(p.kind)));
  }
  if (!orphans.isEmpty())
    html += QStringLiteral("<p style='color:%1'><b>%2</b> %3</p>")
                .arg(bad, tr("%n low-precision tensor(s) with no scale (orphans):", nullptr, int(orphans.size())),
                     htmlList(orphans));
  if (!paired.isEmpty()) {
    QString list = paired.mid(0, 40).join(QStringLiteral("<br>"));
    if (paired.size() > 40)
      list += QStringLiteral("<br>") + tr("and %1 more (the report lists every pairing)").arg(paired.size() - 40);
    html += QStringLiteral("<p><b>%1</b><br>%2</p>").arg(tr("Scales paired with their tensors:"), list);
  }
  return html;
}

} // namespace mantissa::ui
