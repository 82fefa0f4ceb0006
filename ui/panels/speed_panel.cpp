// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/panels/speed_panel.h"

#include "ui/charts/memory_chart.h"
#include "ui/charts/step_time_chart.h"
#include "ui/app_shell/theme.h"
#include "ui/charts/throughput_chart.h"
#include "ui/panels/matmul_rows.h"
#include "ui/panels/scaling_view.h"

#include <mantissa/amp/recipe.h>
#include <mantissa/io/atomic_file.h>
#include <mantissa/io/json_text.h>
#include <mantissa/io/regular_file.h>
#include <mantissa/kernels/matmul_path.h>
#include <mantissa/numeric/cpu_features.h>

#include <nlohmann/json.hpp>

#include <QComboBox>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QResizeEvent>
#include <QScrollArea>
#include <QTabWidget>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <fstream>
#include <map>

namespace mantissa::ui {

namespace {

// An FP8 / microscaling recipe: its products are emulated on every CPU
// (quantized, dequantized, multiplied in FP32).
bool scaledRecipe(const std::string& name) {
  const amp::Recipe* recipe = amp::findRecipe(name);
  return recipe != nullptr && recipe->scaling != amp::MatmulScaling::None;
}

QString dtypeLabel(DType d) {
  return d == DType::F32 ? QStringLiteral("fp32") : d == DType::BF16 ? QStringLiteral("bf16")
                                                                     : QStringLiteral("fp16");
}

QTableWidget* makeTable(const QStringList& headers) {
  auto* t = new QTableWidget(0, int(headers.size()));
  t->setHorizontalHeaderLabels(headers);
  t->verticalHeader()->hide();
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  t->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch); // long descriptions elide
  t->setWordWrap(false);
  return t;
}

void setRow(QTableWidget* t, int row, const QStringList& cells) {
  for (int c = 0; c < cells.size(); ++c)
    t->setItem(row, c, new QTableWidgetItem(cells[c]));
}

const train::StepBenchResult* findStep(const bench::BenchReport& r, const std::string& recipe) {
  for (const auto& s : r.steps)
    if (s.recipe == recipe)
      return &s;
  return nullptr;
}

const train::StepBenchResult* findCnnStep(const bench::BenchReport& r, const std::string& recipe) {
  for (const auto& s : r.cnnSteps)
    if (s.recipe == recipe)
      return &s;
  return nullptr;
}

} // namespace

SpeedPanel::SpeedPanel(bench::BenchOptions options, QWidget* parent)
    : QWidget(parent), m_options(std::move(options)) {
  m_machine = new QLabel(QString::fromStdString(numeric::cpuFeatures().modelName + " | " +
                                                numeric::describeIsa()));
  m_machine->setWordWrap(true);
  m_machine->setObjectName(QStringLiteral("speedMachine"));
  m_run = new QPushButton(tr("Run benchmark"));
  m_cancel = new QPushButton(tr("Cancel"));
  m_cancel->setEnabled(false);
  m_progress = new QProgressBar;
  m_progress->setRange(0, 1000);
  m_progress->setTextVisible(false);
  m_status = new QLabel(tr("Not run yet. The full run takes about a minute on 2 idle cores."));
  m_status->setWordWrap(true);

  m_stepChart = new StepTimeChart;
  m_throughput = new ThroughputChart;
  m_memory = new MemoryChart;
  m_scaling = new ScalingView;
  m_probe = makeTable({tr("arithmetic path"), tr("instruction"), tr("GFLOP/s per core"),
                       tr("all cores"), tr("vs FP32")});
  m_versus = makeTable({tr("recipe"), tr("step vs fp32"), tr("why")});
  m_versus->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  m_versus->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
  m_versus->setWordWrap(true);
  m_steps = makeTable({tr("recipe"), tr("median ms"), tr("CV"), tr("last run ms"), tr("change")});
  m_paths = makeTable({tr("recipes"), tr("product"), tr("shape"), tr("path"), tr("kernel and why")});
  m_paths->setObjectName(QStringLiteral("matmulPathTable"));
  // The recipes wrap in a column one recipe name wide; the kernel and the
  // reason take the rest of the width and wrap there, never cut at the edge.
  m_paths->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
  m_paths->horizontalHeader()->setSectionResizeMode(4, QHeaderView::Stretch);
  m_paths->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_paths->setWordWrap(true);
  connect(m_paths->horizontalHeader(), &QHeaderView::sectionResized, this, [this](int section) {
    if (section == 4) // the reasons' new width wraps them to other heights
      QMetaObject::invokeMethod(m_paths, &QTableView::resizeRowsToContents, Qt::QueuedConnection);
  });

  // Which way 16-bit matmuls run, for benchmarks and training runs started
  // after the change (kernels::setMatmulPath).
  m_matmulPath = new QComboBox;
  m_matmulPath->setObjectName(QStringLiteral("matmulPath"));
  m_matmulPath->addItem(tr("16-bit matmuls: auto (faster of the two)"), QStringLiteral("auto"));
  m_matmulPath->addItem(tr("16-bit matmuls: native oneDNN kernel"), QStringLiteral("native"));
  m_matmulPath->addItem(tr("16-bit matmuls: FP32 compute"), QStringLiteral("fp32-compute"));
  m_matmulPath->setCurrentIndex(
      m_matmulPath->findData(QString::fromUtf8(kernels::matmulPathName(kernels::matmulPath()).data())));
  connect(m_matmulPath, &QComboBox::currentIndexChanged, this, [this] {
    if (auto p = kernels::parseMatmulPath(m_matmulPath->currentData().toString().toStdString()))
      kernels::setMatmulPath(*p);
  });
  auto* top = new QHBoxLayout;
  top->addWidget(m_matmulPath);
  top->addWidget(m_run);
  top->addWidget(m_cancel);
  top->addWidget(m_progress, 1);
  auto* tablesBox = new QWidget;
  auto* tables = new QVBoxLayout(tablesBox);
  tables->setContentsMargins(0, 0, 0, 0);
  tables->addWidget(new QLabel(tr("<b>What this CPU can do</b> (measured instruction loops)")));
  tables->addWidget(m_probe);
  tables->addWidget(new QLabel(tr("<b>Each recipe against fp32</b>")));
  tables->addWidget(m_versus, 2);
  tables->addWidget(new QLabel(tr("<b>Step time, this run against the last</b>")));
  tables->addWidget(m_steps, 1);
  m_pathsTitle = new QLabel(tr("<b>Which path each 16-bit matmul took, and why</b>"));
  tables->addWidget(m_pathsTitle);
  tables->addWidget(m_paths, 2);
  // Each table keeps a few rows' height; the column of tables scrolls as a
  // whole, so in the grid it takes a quarter like each chart instead of
  // pushing the charts' rows smaller, and no table is squeezed to nothing.
  const int row = m_versus->verticalHeader()->defaultSectionSize();
  m_versus->setMinimumHeight(5 * row);
  m_steps->setMinimumHeight(4 * row);
  m_paths->setMinimumHeight(7 * row);
  auto* scroll = new QScrollArea;
  scroll->setObjectName(QStringLiteral("speedTables"));
  scroll->setWidget(tablesBox);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  m_tables = scroll;
  m_tables->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Ignored);
  m_gridBox = new QWidget;
  m_grid = new QGridLayout(m_gridBox);
  m_grid->setContentsMargins(0, 0, 0, 0);
  for (int i = 0; i < 2; ++i) {
    m_grid->setRowStretch(i, 1);
    m_grid->setColumnStretch(i, 1);
  }
  m_corner = new QTabWidget(m_gridBox); // owned by the grid's box in either arrangement
  m_corner->setObjectName(QStringLiteral("speedCornerTabs"));
  m_tabs = new QTabWidget;
  m_tabs->setObjectName(QStringLiteral("speedTabs"));
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_machine);
  layout->addLayout(top);
  layout->addWidget(m_status);
  layout->addWidget(m_gridBox, 1);
  layout->addWidget(m_tabs, 1);
  connect(&Theme::instance(), &Theme::changed, this, &SpeedPanel::arrange);
  arrange();

  m_poll = new QTimer(this);
  m_poll->setInterval(100);
  connect(m_poll, &QTimer::timeout, this, &SpeedPanel::poll);
  connect(m_run, &QPushButton::clicked, this, &SpeedPanel::start);
  connect(m_cancel, &QPushButton::clicked, this, &SpeedPanel::cancel);
  loadRemembered();
}

namespace {
// A chart's cell in the grid: below this (x the presenter font scale) its
// tick labels, category names and legend entries are elided.
constexpr int kCellWidth = 560;
constexpr int kCellHeight = 340;
} // namespace

bool SpeedPanel::tabbed() const { return m_tabs->isVisibleTo(this); }

void SpeedPanel::arrange() {
  const double scale = Theme::instance().fontScale();
  // The grid's share of the page: all but the rows above it. The two
  // wrapped labels are as tall as their text at this width (a CPU with a
  // long feature list takes a line more in a narrow window, not in a wide one).
  const QMargins margins = layout()->contentsMargins();
  const int textWidth = std::max(1, width() - margins.left() - margins.right());
  const auto textHeight = [&](const QLabel* label) { return label->heightForWidth(textWidth); };
  const int above = textHeight(m_machine) + textHeight(m_status) + m_run->sizeHint().height() +
                    margins.top() + margins.bottom() + 3 * layout()->spacing() + 8;
  const bool grid = width() >= 2 * kCellWidth * scale && height() - above >= 2 * kCellHeight * scale;
  if (grid == m_gridBox->isVisibleTo(this) && (m_grid->count() > 0 || m_tabs->count() > 0))
    return;
  const int current = std::max(0, m_tabs->currentIndex());
  const QList<QPair<QWidget*, QString>> parts{{m_stepChart, tr("Step time")},
                                               {m_throughput, tr("Throughput")},
                                               {m_memory, tr("Memory")},
                                               {m_scaling, tr("Model size")},
                                               {m_tables, tr("This CPU and the recipes")}};
  while (m_tabs->count() > 0)
    m_tabs->removeTab(0);
  while (m_corner->count() > 0)
    m_corner->removeTab(0);
  for (const auto& [widget, title] : parts)
    m_grid->removeWidget(widget);
  m_grid->removeWidget(m_corner);
  if (grid) {
    // Three charts, and the tables with the model-size view tabbed in the
    // fourth cell.
    for (int i = 0; i < 3; ++i)
      m_grid->addWidget(parts[i].first, i / 2, i % 2);
    m_corner->addTab(m_tables, tr("This CPU and the recipes"));
    m_corner->addTab(m_scaling, tr("Model size"));
    m_grid->addWidget(m_corner, 1, 1);
  } else {
    for (const auto& [widget, title] : parts)
      m_tabs->addTab(widget, title);
    m_tabs->setCurrentIndex(current);
  }
  if (grid) {
    for (int i = 0; i < 3; ++i)
      parts[i].first->show();
    m_corner->show();
  } else {
    m_corner->hide();
    for (const auto& [widget, title] : parts)
      widget->show();
  }
  m_gridBox->setVisible(grid);
  m_tabs->setVisible(!grid);
}

void SpeedPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  arrange();
}

SpeedPanel::~SpeedPanel() {
  m_cancelRequested = true; // the jthread joins when destroyed
}

QString SpeedPanel::rememberedPath() const {
  const std::string key = numeric::cpuFeatures().modelName + " | " + numeric::describeIsa();
  const QString hash = QString::fromLatin1(
      QCryptographicHash::hash(QByteArray::fromStdString(key), QCryptographicHash::Sha1).toHex().left(16));
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
         QStringLiteral("/speed/") + hash + QStringLiteral(".json");
}

void SpeedPanel::start() {
  if (running())
    return;
  m_cancelRequested = false;
  {
    std::lock_guard lock(m_mutex);
    m_fraction = 0;
    m_what.clear();
    m_result.reset();
    m_error.clear();
    m_done = false;
  }
  m_run->setEnabled(false);
  m_cancel->setEnabled(true);
  m_progress->setValue(0);
  m_status->setText(tr("Starting..."));
  m_worker = std::jthread([this, options = m_options] {
    auto report = std::make_unique<bench::BenchReport>();
    std::string error;
    try {
      *report = bench::runBenchmarks(options, [this](double f, std::string_view what) {
        std::lock_guard lock(m_mutex);
        m_fraction = f;
        m_what = what;
        return !m_cancelRequested.load();
      });
    } catch (const std::exception& e) {
      error = e.what();
    }
    std::lock_guard lock(m_mutex);
    m_result = std::move(report);
    m_error = std::move(error);
    m_done = true;
  });
  m_poll->start();
}

void SpeedPanel::cancel() {
  m_cancelRequested = true;
  m_cancel->setEnabled(false);
  m_status->setText(tr("Cancelling after the current measurement..."));
}

void SpeedPanel::poll() {
  std::unique_ptr<bench::BenchReport> result;
  std::string error;
  bool done = false;
  {
    std::lock_guard lock(m_mutex);
    m_progress->setValue(int(1000 * m_fraction));
    if (!m_cancelRequested)
      m_status->setText(tr("Measuring: %1").arg(QString::fromStdString(m_what)));
    done = m_done;
    if (done) {
      result = std::move(m_result);
      error = m_error;
    }
  }
  if (!done)
    return;
  m_poll->stop();
  m_worker.join();
  m_run->setEnabled(true);
  m_cancel->setEnabled(false);
  if (!error.empty()) {
    m_status->setText(tr("The benchmark failed: %1").arg(QString::fromStdString(error)));
  } else if (result->cancelled) {
    m_status->setText(tr("Cancelled; partial results shown, not remembered."));
    showReport(*result);
  } else {
    m_progress->setValue(1000);
    m_status->setText(tr("Done (%1 run, OMP_WAIT_POLICY %2).")
                          .arg(QString::fromStdString(result->mode),
                               QString::fromStdString(result->ompWaitPolicy)));
    showReport(*result);
    remember(*result);
  }
  emit finished();
}

namespace {

// The 16-bit products of every recipe's step, one row per distinct product
// and path (recipes with the same inputs and gradients share them).
std::vector<QStringList> pathRows(const bench::BenchReport& r) {
  std::vector<QStringList> rows; // {recipes, product, shape, path, why}
  for (const auto& s : r.steps)
    for (const auto& u : s.matmuls) {
      if (u.inputs == DType::F32)
        continue;
      const QStringList cells = matmulRow(u);
      const QString recipe = QString::fromStdString(s.recipe);
      auto same = std::find_if(rows.begin(), rows.end(),
                               [&](const QStringList& row) { return row.mid(1) == cells; });
      if (same != rows.end())
        (*same)[0] += QStringLiteral(", ") + recipe;
      else
        rows.push_back(QStringList{recipe} + cells);
    }
  return rows;
}

} // namespace

void SpeedPanel::showReport(const bench::BenchReport& r) {
  m_current = r;
  std::vector<RecipeStepTime> times;
  std::vector<RecipeMemory> memory;
  // Bytes really allocated per class (FP32 buffers of rounded values at 4
  // bytes a value, 16-bit working copies, the matmuls' FP32 copies).
  const QStringList roles{tr("weights"),         tr("master weights"),     tr("activations"),
                          tr("gradients"),       tr("optimizer state"),    tr("matmul FP32 copies"),
                          tr("oneDNN scratchpad")};
  const char* keys[] = {"weights",         "master weights",     "activations",      "gradients",
                        "optimizer state", "matmul FP32 copies", "oneDNN scratchpad"};
  for (const auto& s : r.steps) {
    times.push_back({QString::fromStdString(s.recipe), s.breakdownMs, s.matmulEmulated,
                     scaledRecipe(s.recipe)});
    RecipeMemory m{QString::fromStdString(s.recipe), {}};
    for (const char* k : keys)
      m.bytes.push_back(s.bytes.count(k) ? double(s.bytes.at(k)) : 0.0);
    memory.push_back(std::move(m));
  }
  // The CNN's steps beside the MLP's: convolution is its own part of the bar.
  const QString cnn = QString::fromStdString(r.cnnModel);
  for (const auto& s : r.cnnSteps)
    times.push_back({cnn + QStringLiteral("\n") + QString::fromStdString(s.recipe), s.breakdownMs,
                     s.matmulEmulated});
  m_stepChart->setData(times);
  m_memory->setData(roles, memory);

  std::map<QString, ThroughputCurve> curves;
  for (const auto& m : r.matmul) {
    if (m.label != "square")
      continue;
    const QString name = (m.backend == kernels::Backend::OneDnn ? QStringLiteral("oneDNN ")
                                                                 : QStringLiteral("Eigen ")) +
                         dtypeLabel(m.dtype);
    auto& c = curves[name + (m.emulated ? QStringLiteral(" via fp32") : QString())];
    c.backend = name;
    c.emulated = c.emulated || m.emulated;
    c.points.append(QPointF(double(m.m), m.gflops));
  }
  std::vector<ThroughputCurve> list;
  for (auto& [name, c] : curves)
    list.push_back(std::move(c));
  m_throughput->setData(list, r.peak.fp32Gflops,
                        tr("FP32 peak (%1)").arg(QString::fromStdString(r.peak.fp32Source).section(':', 0, 0)));

  m_probe->setRowCount(int(r.probe.paths.size()));
  for (int i = 0; i < int(r.probe.paths.size()); ++i) {
    const auto& p = r.probe.paths[std::size_t(i)];
    if (p.present)
      setRow(m_probe, i,
             {QString::fromStdString(p.name), QString::fromStdString(p.instruction),
              QString::number(p.gflopsPerCore, 'f', 1), QString::number(p.gflopsAllCores, 'f', 1),
              QString::number(r.probe.ratioToFp32(p), 'f', 2) + QStringLiteral("x")});
    else
      setRow(m_probe, i,
             {QString::fromStdString(p.name), QString::fromStdString(p.instruction),
              tr("absent"), QStringLiteral("-"), QStringLiteral("-")});
    m_probe->item(i, 0)->setToolTip(QString::fromStdString(p.present ? p.instruction : p.absentReason));
  }
  // Every path in view without scrolling: it is what the page is about.
  m_probe->resizeRowsToContents();
  int probeHeight = m_probe->horizontalHeader()->sizeHint().height() + 2 * m_probe->frameWidth();
  for (int i = 0; i < m_probe->rowCount(); ++i)
    probeHeight += m_probe->rowHeight(i);
  m_probe->setFixedHeight(probeHeight);
  m_versus->setRowCount(int(r.versusFp32.size()));
  for (int i = 0; i < int(r.versusFp32.size()); ++i) {
    const auto& c = r.versusFp32[std::size_t(i)];
    setRow(m_versus, i,
           {QString::fromStdString(c.recipe), QString::number(c.ratio, 'f', 2) + QStringLiteral("x"),
            QString::fromStdString(c.reason)});
    m_versus->item(i, 2)->setToolTip(QString::fromStdString(c.reason));
  }
  m_versus->resizeRowsToContents();
  m_steps->setRowCount(int(r.steps.size() + r.cnnSteps.size()));
  for (int i = 0; i < int(r.steps.size() + r.cnnSteps.size()); ++i) {
    const bool isCnn = i >= int(r.steps.size());
    const auto& s = isCnn ? r.cnnSteps[std::size_t(i) - r.steps.size()] : r.steps[std::size_t(i)];
    const auto* p = m_previous ? (isCnn ? findCnnStep(*m_previous, s.recipe)
                                        : findStep(*m_previous, s.recipe))
                               : nullptr;
    setRow(m_steps, i,
           {(isCnn ? cnn + QStringLiteral(" ") : QString()) + QString::fromStdString(s.recipe) +
                (s.matmulEmulated || scaledRecipe(s.recipe) ? tr(" (emulated)") : QString()),
            QString::number(s.medianMs, 'f', 2),
            QString::number(100 * s.cv, 'f', 1) + QStringLiteral(" %"),
            p ? QString::number(p->medianMs, 'f', 2) : QStringLiteral("-"),
            p && p->medianMs > 0
                ? QString::asprintf("%+.1f %%", 100 * (s.medianMs / p->medianMs - 1))
                : QStringLiteral("-")});
  }
  const auto paths = pathRows(r);
  m_paths->setRowCount(int(paths.size()));
  for (int i = 0; i < int(paths.size()); ++i) {
    // "bf16-mixed and 3 more" in the cell, every recipe in its tooltip.
    QStringList cells = paths[std::size_t(i)];
    const QString all = cells[0];
    const QStringList recipes = all.split(QStringLiteral(", "));
    if (recipes.size() > 1)
      cells[0] = tr("%1 and %n more", nullptr, int(recipes.size()) - 1).arg(recipes.front());
    setRow(m_paths, i, cells);
    m_paths->item(i, 0)->setToolTip(all);
    m_paths->item(i, 4)->setToolTip(cells[4]);
  }
  for (int c = 1; c < 4; ++c)
    m_paths->resizeColumnToContents(c);
  m_paths->setColumnWidth(0, m_paths->fontMetrics().horizontalAdvance(
                                 QStringLiteral("fp16-mixed-noscale")) + 12);
  m_paths->resizeRowsToContents();
  const bool recorded = std::any_of(r.steps.begin(), r.steps.end(),
                                    [](const auto& s) { return !s.matmuls.empty(); });
  m_pathsTitle->setText(recorded || r.steps.empty()
                            ? tr("<b>Which path each 16-bit matmul took, and why</b>")
                            : tr("<b>Which path each 16-bit matmul took, and why</b> (not "
                                 "recorded in this report: run the benchmark again)"));
}

void SpeedPanel::loadRemembered() {
  if (!QFileInfo::exists(rememberedPath()))
    return;
  try {
    // A regular file of at most 16 MiB, parsed as all outside JSON is.
    const auto previous = bench::fromJson(io::parseJsonText(io::readRegularFile(
        QFile::encodeName(rememberedPath()).toStdString(), std::uintmax_t{16} << 20,
        "benchmark report")));
    showReport(previous); // shown as it was, before it becomes the one to compare with
    m_previous = previous;
    m_status->setText(tr("Last run on this machine remembered (%1 mode); run again to compare.")
                          .arg(QString::fromStdString(previous.mode)));
  } catch (const std::exception& e) {
    m_status->setText(tr("Ignoring the remembered results in %1: %2")
                          .arg(rememberedPath(), QString::fromStdString(e.what())));
  }
}

void SpeedPanel::remember(const bench::BenchReport& report) {
  const QString path = rememberedPath();
  QDir().mkpath(QFileInfo(path).absolutePath());
  try {
    io::writeFileAtomically(path.toStdString(), bench::toJson(report).dump(2) + "\n");
  } catch (const io::AtomicFileError& e) {
    m_status->setText(m_status->text() + QStringLiteral(" ") +
                      tr("Could not remember the results: %1").arg(QString::fromStdString(e.what())));
  }
  m_previous = report;
}

} // namespace mantissa::ui
