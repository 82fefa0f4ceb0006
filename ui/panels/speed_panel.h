// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/bench/bench_report.h>

#include <QWidget>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

class QLabel;
class QProgressBar;
class QPushButton;
class QGridLayout;
class QTabWidget;
class QComboBox;
class QTableWidget;
class QTimer;

namespace mantissa::ui {

class MemoryChart;
class ScalingView;
class StepTimeChart;
class ThroughputChart;

// The speed comparison: runs bench::runBenchmarks on a worker thread (the
// worker makes the report, the GUI thread makes every widget), shows what
// each arithmetic path of the CPU sustains (the ISA probe, against FP32),
// where each recipe's step time goes, GFLOP/s against size per backend with
// the measured peak, bytes per recipe, and each recipe against fp32 with the
// reason in words, compared with the last run remembered for this machine.
class SpeedPanel : public QWidget {
  Q_OBJECT
public:
  explicit SpeedPanel(bench::BenchOptions options = bench::BenchOptions::full(),
                      QWidget* parent = nullptr);
  ~SpeedPanel() override;

  void start();
  void cancel();
  bool running() const { return m_worker.joinable(); }

  // Where this machine's last report is remembered (AppDataLocation).
  QString rememberedPath() const;
  const std::optional<bench::BenchReport>& current() const { return m_current; }
  const std::optional<bench::BenchReport>& previous() const { return m_previous; }

  QProgressBar* progressBar() const { return m_progress; }
  QPushButton* runButton() const { return m_run; }
  QPushButton* cancelButton() const { return m_cancel; }
  QTableWidget* probeTable() const { return m_probe; }
  QTableWidget* versusTable() const { return m_versus; }
  QTableWidget* stepsTable() const { return m_steps; }
  // The 16-bit products of the step benchmark's model: path, kernel, why.
  QTableWidget* matmulPathTable() const { return m_paths; }
  StepTimeChart* stepChart() const { return m_stepChart; }
  ThroughputChart* throughputChart() const { return m_throughput; }
  MemoryChart* memoryChart() const { return m_memory; }
  // The GPT's step against model size, from a scaling result.
  ScalingView* scalingView() const { return m_scaling; }
  // The charts side by side in a 2 x 2 grid, the tables and the model-size
  // view tabbed in its fourth cell, where each gets room for its labels (a
  // large screen), else one per tab (1280x720, presenter mode).
  bool tabbed() const;
  QTabWidget* tabs() const { return m_tabs; }

signals:
  void finished(); // a run ended (measured, cancelled or failed) and is shown

protected:
  void resizeEvent(QResizeEvent* event) override;

private:
  void arrange();
  void poll();
  void showReport(const bench::BenchReport& report);
  void loadRemembered();
  void remember(const bench::BenchReport& report);

  bench::BenchOptions m_options;
  QLabel* m_machine = nullptr;
  QLabel* m_status = nullptr;
  QProgressBar* m_progress = nullptr;
  QComboBox* m_matmulPath = nullptr;
  QPushButton* m_run = nullptr;
  QPushButton* m_cancel = nullptr;
  QTableWidget* m_probe = nullptr;
  QTableWidget* m_versus = nullptr;
  QTableWidget* m_steps = nullptr;
  QTableWidget* m_paths = nullptr;
  QLabel* m_pathsTitle = nullptr;
  StepTimeChart* m_stepChart = nullptr;
  ThroughputChart* m_throughput = nullptr;
  MemoryChart* m_memory = nullptr;
  ScalingView* m_scaling = nullptr;
  QWidget* m_tables = nullptr;
  QWidget* m_gridBox = nullptr;
  QGridLayout* m_grid = nullptr;
  QTabWidget* m_tabs = nullptr;
  QTabWidget* m_corner = nullptr; // the grid's fourth cell: tables, model size
  QTimer* m_poll = nullptr;

  // Shared with the worker thread.
  std::atomic<bool> m_cancelRequested{false};
  std::mutex m_mutex;
  double m_fraction = 0.0;                          // guarded by m_mutex
  std::string m_what;                               // guarded by m_mutex
  std::unique_ptr<bench::BenchReport> m_result;     // guarded by m_mutex
  std::string m_error;                              // guarded by m_mutex
  bool m_done = false;                              // guarded by m_mutex
  std::jthread m_worker;

  std::optional<bench::BenchReport> m_current;
  std::optional<bench::BenchReport> m_previous; // last run remembered for this machine
};

} // namespace mantissa::ui
