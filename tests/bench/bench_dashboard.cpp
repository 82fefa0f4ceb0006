// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// bench_dashboard: the live dashboard's two figures.
//  1. Frame time with a long history: three real runs of a tiny model train
//     --history steps each (100,000 by default, histograms every 100 steps)
//     and pause; then, at 1920x1080 and 1280x720, normal and presenter:
//     (b) the live frame: the runs train on for 33 ms (one drain interval)
//         and pause; one drain is timed with everything the event loop does
//         after it (rows into the records, curves re-decimated, heat map rows
//         appended, the changed views repainted). The 16 ms bar is about this.
//     (a) the worst case: every visible view rebuilt from the records (full
//         heat map rebuild) and the whole window repainted.
//     Wall and GUI-thread CPU time, median and CV over repetitions.
//  2. Training throughput with the GUI open vs headless for the same run
//     (MNIST, MLP 784-256-256-10, bf16-mixed, histograms every 5 steps):
//     headless is Session + runToCompletion with no callbacks (mantissa-cli
//     train without --log); GUI is the Train page of a shown MainWindow
//     drawing live, driven by its event loop only. ABBA-interleaved
//     repetitions in one process (same OpenMP threads), medians, CVs, the
//     ratio of medians and the median of paired ratios.
// --look 1920x1080p (or 1920x1080, 1280x720, 1280x720p; p = presenter) measures
// that look alone, e.g. under a profiler.
// --paint-log lists what the last live frame of each look painted and re-laid out.
// --frame-shots DIR also saves the window of each look after its frames.
// --screenshots DIR instead writes the window at 1920x1080 and 1280x720 in the
// light, dark and presenter looks after a real 300-step run of the defaults.
//
// Runs on the offscreen platform unless QT_QPA_PLATFORM is set. Re-executes
// itself with OMP_WAIT_POLICY=passive when unset, as the applications do
// (app/omp_wait_policy.h): otherwise idle OpenMP threads of one run spin and
// starve the next.

#include "ui/app_shell/main_window.h"
#include "ui/app_shell/theme.h"
#include "ui/bridge/run_controller.h"
#include "ui/charts/chart_widget.h"
#include "ui/panels/train_panel.h"
#include "ui/panels/train_panel_setup.h"

#include <QApplication>
#include <QChartView>
#include <QElapsedTimer>
#include <QGraphicsView>
#include <QPaintEvent>
#include <QSettings>
#include <QStandardPaths>
#include <QThread>

#include "app/omp_wait_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <thread>
#include <vector>

using namespace mantissa;
using namespace mantissa::ui;

namespace {

struct Stats {
  double median = 0, cv = 0;
};

Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  Stats s;
  const std::size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  double mean = 0;
  for (double x : v)
    mean += x;
  mean /= double(n);
  double var = 0;
  for (double x : v)
    var += (x - mean) * (x - mean);
  s.cv = n > 1 && mean > 0 ? std::sqrt(var / double(n - 1)) / mean : 0.0;
  return s;
}

// Runs the event loop until pred() holds or timeoutMs pass.
template <class Pred> bool waitUntil(Pred pred, int timeoutMs) {
  QElapsedTimer t;
  t.start();
  while (!pred()) {
    if (t.elapsed() > timeoutMs)
      return false;
    QApplication::processEvents(QEventLoop::AllEvents, 5);
    QThread::msleep(1);
  }
  return true;
}

void pump(int ms) {
  waitUntil([] { return false; }, ms);
}

bool waitFinished(TrainPanel& p, int timeoutMs) {
  return waitUntil(
      [&] {
        p.controller()->drainNow();
        if (p.controller()->state() != RunController::State::Finished)
          return false;
        for (int i = 0; i < p.controller()->runCount(); ++i) {
          const auto& s = p.controller()->record(i).snapshot();
          if (!s || !s->summary)
            return false;
        }
        return true;
      },
      timeoutMs);
}

// GUI-thread CPU seconds (the drawing's cost to the machine).
double threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

double loadAverage() {
  double load[1] = {0.0};
  return getloadavg(load, 1) == 1 ? load[0] : NAN;
}

TrainPanel* trainPage(MainWindow& w) {
  return qobject_cast<TrainPanel*>(w.page(QStringLiteral("Train")));
}

// Everything the event loop would do now: queued scene updates, paint events,
// the backing store flush. Nothing here waits for more events.
void flushEvents() {
  for (int i = 0; i < 3; ++i) {
    QCoreApplication::sendPostedEvents();
    QApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
  }
}

// Counts paint events of the chart viewports (QGraphicsView viewports), so the
// bench can say what a measured frame actually repainted.
class PaintCounter : public QObject {
public:
  explicit PaintCounter(QWidget& root) {
    for (auto* view : root.findChildren<QGraphicsView*>())
      view->viewport()->installEventFilter(this);
  }
  int paints = 0;

protected:
  bool eventFilter(QObject*, QEvent* event) override {
    if (event->type() == QEvent::Paint)
      ++paints;
    return false;
  }
};

// --paint-log: every widget painted (and every layout request) during one
// live frame, to find what repaints without having changed.
class PaintLog : public QObject {
public:
  explicit PaintLog(QWidget& root) {
    root.installEventFilter(this);
    for (auto* child : root.findChildren<QWidget*>())
      child->installEventFilter(this);
    for (auto* view : root.findChildren<QChartView*>())
      view->chart()->installEventFilter(this);
  }
  bool on = false;       // list this frame's paints and layout requests
  bool counting = false; // count the charts' layout requests
  std::map<QString, int> chartLayouts;

protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (auto* chart = qobject_cast<QChart*>(watched)) {
      if (counting && event->type() == QEvent::LayoutRequest)
        ++chartLayouts[chart->title().left(24)];
      return false;
    }
    if (!on)
      return false;
    if (!watched->isWidgetType())
      return false;
    auto* w = static_cast<QWidget*>(watched);
    const auto name = [w] {
      QString path;
      for (QWidget* p = w; p != nullptr && path.count(u'/') < 3; p = p->parentWidget())
        path += QStringLiteral("%1(%2)/").arg(QString::fromLatin1(p->metaObject()->className()),
                                             p->objectName());
      return path;
    };
    if (event->type() == QEvent::Paint) {
      const QRect r = static_cast<QPaintEvent*>(event)->rect();
      std::printf("      paint %4dx%-4d %s\n", r.width(), r.height(), qPrintable(name()));
    } else if (event->type() == QEvent::LayoutRequest) {
      std::printf("      layout request %s\n", qPrintable(name()));
    }
    return false;
  }
};

struct FrameFigures {
  std::vector<double> wall, cpu, paints, rows;
};

void printFrame(const char* what, const FrameFigures& f) {
  const Stats w = stats(f.wall), c = stats(f.cpu), n = stats(f.paints);
  std::printf("    %-44s wall median %6.2f ms (CV %4.1f%%)  GUI-thread CPU median %6.2f ms (CV %4.1f%%)"
              "  %.0f chart paints",
              what, w.median, 100 * w.cv, c.median, 100 * c.cv, n.median);
  if (!f.rows.empty())
    std::printf(", %.0f steps drained per run", stats(f.rows).median);
  std::printf("\n");
}

bool allPaused(const RunController& c) {
  for (int i = 0; i < c.runCount(); ++i)
    if (c.trainerState(i) == train::TrainerState::Running)
      return false;
  return true;
}

// The timed parts, kept out of line so that a profile can be rooted at them.
[[gnu::noinline]] void timedLiveFrame(RunController& c) {
  c.drainNow();
  flushEvents();
}

[[gnu::noinline]] void timedFullRedraw(MainWindow& w, TrainPanel& p) {
  p.redrawAll();
  w.update();
  flushEvents();
}

// (a) The worst case: every visible view rebuilt from the records as if all
// had changed (full heat map rebuild, every curve re-decimated) and the whole
// window repainted.
FrameFigures fullRedraw(MainWindow& w, TrainPanel& p, int reps) {
  FrameFigures f;
  PaintCounter counter(w);
  for (int r = 0; r < reps; ++r) {
    counter.paints = 0;
    QElapsedTimer t;
    t.start();
    const double cpu0 = threadCpuSeconds();
    timedFullRedraw(w, p);
    f.cpu.push_back((threadCpuSeconds() - cpu0) * 1e3);
    f.wall.push_back(double(t.nsecsElapsed()) * 1e-6);
    f.paints.push_back(counter.paints);
  }
  return f;
}

// (b) The live frame: the paused runs train on for one drain interval (33 ms,
// the controller's shortest), pause again, and then one drain is timed with
// everything the event loop does after it (rows into the records, curves
// re-decimated, heat map rows appended, the changed views repainted).
FrameFigures liveFrames(MainWindow& w, TrainPanel& p, int reps, bool paintLog = false) {
  FrameFigures f;
  RunController& c = *p.controller();
  PaintCounter counter(w);
  PaintLog log(w);
  for (int r = 0; r < reps; ++r) {
    const std::int64_t before = c.record(0).lastStep();
    c.resume();
    QThread::msleep(33);
    c.pause();
    while (!allPaused(c))
      QThread::msleep(1);
    QThread::msleep(5); // the trainers' last publication lands in the mailboxes
    // Nudges and state changes of pause/resume, outside the frame (the drain
    // timer they start fires 33 ms after the pause: inside the timed frame at
    // worst, where it finds the mailboxes empty).
    flushEvents();
    counter.paints = 0;
    log.on = paintLog && r == reps - 1;
    log.counting = paintLog;
    if (log.on)
      std::printf("    what the last live frame painted and re-laid out:\n");
    QElapsedTimer t;
    t.start();
    const double cpu0 = threadCpuSeconds();
    timedLiveFrame(c);
    log.on = false;
    log.counting = false;
    f.cpu.push_back((threadCpuSeconds() - cpu0) * 1e3);
    f.wall.push_back(double(t.nsecsElapsed()) * 1e-6);
    f.paints.push_back(counter.paints);
    f.rows.push_back(double(c.record(0).lastStep() - before));
  }
  if (paintLog) {
    std::printf("    chart re-layouts in %d live frames:", reps);
    for (const auto& [title, n] : log.chartLayouts)
      std::printf(" \"%s\" %d;", qPrintable(title), n);
    std::printf("\n");
  }
  return f;
}

// Where a full repaint goes: each visible chart's viewport repainted on its
// own, GUI-thread CPU median.
void paintBreakdown(MainWindow& w, int reps) {
  std::printf("    repaint of each visible chart alone (GUI-thread CPU median):");
  for (ChartWidget* chart : w.findChildren<ChartWidget*>()) {
    if (!chart->isVisible() || chart->visibleRegion().isEmpty())
      continue;
    std::vector<double> cpu;
    for (int r = 0; r < reps; ++r) {
      const double cpu0 = threadCpuSeconds();
      chart->view()->viewport()->repaint();
      cpu.push_back((threadCpuSeconds() - cpu0) * 1e3);
    }
    std::printf(" %s %.2f ms;", qPrintable(chart->title().section(QLatin1Char(' '), 0, 1)),
                stats(cpu).median);
  }
  std::printf("\n");
}

void frameUpdate(std::int64_t historySteps, int reps, const QString& shots, const QString& onlyLook,
                 bool paintLog) {
  MainWindow w;
  w.resize(1920, 1080);
  w.show();
  TrainPanel& p = *trainPage(w);
  std::vector<train::RunConfig> runs;
  for (const char* recipe : {"fp32", "bf16-mixed", "fp16-mixed"}) {
    train::RunConfig c;
    c.data = "spirals";
    c.model = "mlp:2-8-2:tanh";
    c.recipe = recipe;
    c.batch = 8;
    c.steps = historySteps + 200000; // training goes on past the history for the live frames
    c.telemetryEvery = 100;
    c.evalEvery = 1000;
    runs.push_back(c);
  }
  p.setup()->setConfigs(runs);
  p.startAction()->trigger();
  RunController& c = *p.controller();
  const bool reached = waitUntil(
      [&] {
        for (int i = 0; i < c.runCount(); ++i)
          if (c.record(i).lastStep() + 1 < historySteps)
            return false;
        return true;
      },
      3600 * 1000);
  c.pause();
  if (!reached || !waitUntil([&] { return allPaused(c); }, 60 * 1000)) {
    std::puts("frame update: the runs did not reach the history length");
    return;
  }
  pump(300);
  const auto& rec = c.record(0);
  std::printf("frame update with %lld steps of history x 3 runs (%zu frames kept per run, %llu rows "
              "coalesced and %llu dropped by the mailbox so far), %d reps per figure, load average "
              "%.1f:\n",
              static_cast<long long>(rec.lastStep() + 1), rec.frames().size(),
              static_cast<unsigned long long>(rec.coalescedRows()),
              static_cast<unsigned long long>(rec.droppedRows()), reps, loadAverage());
  struct Look {
    QSize size;
    bool presenter;
  };
  for (const Look look : {Look{{1920, 1080}, false}, Look{{1920, 1080}, true},
                          Look{{1280, 720}, false}, Look{{1280, 720}, true}}) {
    const QString name = QStringLiteral("%1x%2%3")
                             .arg(look.size.width())
                             .arg(look.size.height())
                             .arg(look.presenter ? QStringLiteral("p") : QString());
    if (!onlyLook.isEmpty() && onlyLook != name)
      continue;
    w.setPresenterMode(look.presenter);
    w.showNormal();
    w.resize(look.size);
    pump(300);
    std::printf("  window %dx%d%s:\n", w.width(), w.height(), look.presenter ? " presenter" : "");
    const FrameFigures live = liveFrames(w, p, reps, paintLog);
    printFrame("(b) live frame (one drain + repaint):", live);
    const FrameFigures full = fullRedraw(w, p, reps);
    printFrame("(a) worst case (full rebuild + repaint):", full);
    paintBreakdown(w, reps);
    if (!shots.isEmpty()) {
      const QString path = QStringLiteral("%1/frame-%2x%3%4.png")
                               .arg(shots)
                               .arg(w.width())
                               .arg(w.height())
                               .arg(look.presenter ? QStringLiteral("-presenter") : QString());
      w.grab().save(path);
      std::printf("    wrote %s\n", qPrintable(path));
    }
    std::printf("    16 ms frame budget (live frame, wall median): %s\n",
                stats(live.wall).median <= 16.0 ? "met" : "NOT met");
    std::fflush(stdout);
  }
  w.setPresenterMode(false);
  std::printf("  load average after: %.1f\n", loadAverage());
}

train::RunConfig throughputRun(std::int64_t steps) {
  train::RunConfig c = TrainSetup::defaultConfigs().front(); // MNIST, 784-256-256-10, histograms every 5
  c.recipe = "bf16-mixed";
  c.epochs = 0;
  c.steps = steps;
  c.evalEvery = 1000000; // evaluation only at the end, in both
  return c;
}

// What `mantissa-cli train` runs: a Session trained to completion on this
// thread, no GUI (its JSONL log off, as in the CLI without --log).
double headlessStepsPerSecond(const train::RunConfig& c) {
  train::Session s(c);
  const auto summary = train::runToCompletion(s, {});
  return double(summary.steps) / summary.wallSeconds;
}

struct GuiRun {
  double stepsPerSecond = NAN;
  double guiCpuShare = NAN; // GUI thread CPU / wall over the run
  int redraws = 0;
};

GuiRun guiStepsPerSecond(MainWindow& w, const train::RunConfig& c) {
  TrainPanel& p = *trainPage(w);
  p.setup()->setConfigs({c});
  int redraws = 0;
  const auto counter = QObject::connect(p.controller(), &RunController::updated, [&] { ++redraws; });
  QElapsedTimer wall;
  wall.start();
  const double cpu0 = threadCpuSeconds();
  p.startAction()->trigger();
  GuiRun out;
  // Only the event loop drives the GUI here, as in the application (no drainNow()).
  const bool done = waitUntil(
      [&] {
        if (p.controller()->state() != RunController::State::Finished)
          return false;
        const auto& s = p.controller()->record(0).snapshot();
        return s && s->summary;
      },
      1800 * 1000);
  QObject::disconnect(counter);
  if (!done)
    return out;
  const auto& summary = *p.controller()->record(0).snapshot()->summary;
  out.stepsPerSecond = double(summary.steps) / summary.wallSeconds;
  out.guiCpuShare = (threadCpuSeconds() - cpu0) / (double(wall.nsecsElapsed()) * 1e-9);
  out.redraws = redraws;
  return out;
}

void throughput(std::int64_t steps, int reps) {
  const train::RunConfig c = throughputRun(steps);
  MainWindow w;
  w.resize(1920, 1080);
  w.show();
  pump(200);
  std::vector<double> headless, gui, ratios, shares, rates;
  const double loadBefore = loadAverage();
  // ABBA order (H G G H H G ...): a steady drift of the machine's load hits both alike.
  for (int r = 0; r < reps; ++r) {
    double h = NAN;
    GuiRun g;
    if (r % 2 == 0) {
      h = headlessStepsPerSecond(c);
      g = guiStepsPerSecond(w, c);
    } else {
      g = guiStepsPerSecond(w, c);
      h = headlessStepsPerSecond(c);
    }
    headless.push_back(h);
    gui.push_back(g.stepsPerSecond);
    ratios.push_back(g.stepsPerSecond / h);
    shares.push_back(g.guiCpuShare);
    rates.push_back(double(g.redraws) * g.stepsPerSecond / double(steps));
    std::printf("  rep %d: headless %.2f steps/s, GUI %.2f steps/s (ratio %.3f; GUI thread %.1f%% of "
                "a core, %d redraws)\n",
                r + 1, h, g.stepsPerSecond, g.stepsPerSecond / h, 100 * g.guiCpuShare, g.redraws);
    std::fflush(stdout);
  }
  const Stats hs = stats(headless), gs = stats(gui), rs = stats(ratios), cs = stats(shares),
              fs = stats(rates);
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  const char* threads = std::getenv("OMP_NUM_THREADS");
  std::printf("training throughput, %s %s batch %d, %lld steps, histograms every %d, %d reps each "
              "(ABBA interleaved; OMP_WAIT_POLICY=%s, OMP_NUM_THREADS=%s, %u hardware threads, "
              "same process and thread count for both; load average %.1f before, %.1f after)\n",
              c.recipe.c_str(), c.model.c_str(), c.batch, static_cast<long long>(steps),
              c.telemetryEvery, reps, policy ? policy : "(unset)", threads ? threads : "(unset)",
              std::thread::hardware_concurrency(), loadBefore, loadAverage());
  std::printf("  headless (Session::runToCompletion, as mantissa-cli train): median %.2f steps/s  CV %.1f%%\n",
              hs.median, 100 * hs.cv);
  std::printf("  GUI (Train page shown, drawing live):  median %.2f steps/s  CV %.1f%%\n", gs.median,
              100 * gs.cv);
  std::printf("  GUI thread while training: median %.1f%% of one core, %.1f redraws/s\n",
              100 * cs.median, fs.median);
  std::printf("  GUI / headless: ratio of medians %.3f; median of paired ratios %.3f (CV %.1f%%) "
              "(target >= 0.90)\n",
              gs.median / hs.median, rs.median, 100 * rs.cv);
}

void screenshots(const QString& dir) {
  for (const QSize size : {QSize(1920, 1080), QSize(1280, 720)})
    for (const char* look : {"light", "dark", "presenter"}) {
      QSettings().clear();
      Theme::instance().setDark(false);
      Theme::instance().setPresenter(false);
      MainWindow w;
      w.resize(size);
      w.show();
      if (std::strcmp(look, "dark") == 0)
        w.setDarkTheme(true);
      if (std::strcmp(look, "presenter") == 0) {
        w.setPresenterMode(true);
        w.showNormal(); // keep the requested size rather than the screen's
        w.resize(size);
      }
      TrainPanel& p = *trainPage(w);
      auto runs = TrainSetup::defaultConfigs();
      for (auto& r : runs) {
        r.epochs = 0;
        r.steps = 300;
      }
      p.setup()->setConfigs(runs);
      p.startAction()->trigger();
      waitFinished(p, 600 * 1000);
      p.redrawAll();
      pump(300);
      const QString path = QStringLiteral("%1/dashboard-%2x%3-%4.png")
                               .arg(dir)
                               .arg(size.width())
                               .arg(size.height())
                               .arg(QString::fromLatin1(look));
      w.grab().save(path);
      std::printf("wrote %s (window %dx%d)\n", qPrintable(path), w.width(), w.height());
      w.setPresenterMode(false);
      w.setDarkTheme(false);
    }
}

} // namespace

int main(int argc, char** argv) {
  mantissa::app::reexecWithPassiveOmpWait(argv); // as mantissa and mantissa-cli do
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QStandardPaths::setTestModeEnabled(true);
  QApplication::setOrganizationName(QStringLiteral("MantissaBench"));
  QApplication::setApplicationName(QStringLiteral("MantissaBench"));
  QApplication app(argc, argv);
  std::int64_t history = 100000, steps = 200;
  int reps = 15, throughputReps = 6;
  QString shots, only, frameShots, look;
  bool paintLog = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_dashboard: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--history")
      history = std::atoll(next());
    else if (a == "--reps")
      reps = std::atoi(next());
    else if (a == "--steps")
      steps = std::atoll(next());
    else if (a == "--throughput-reps")
      throughputReps = std::atoi(next());
    else if (a == "--frame-shots")
      frameShots = QString::fromLocal8Bit(next());
    else if (a == "--paint-log")
      paintLog = true;
    else if (a == "--look")
      look = QString::fromLocal8Bit(next());
    else if (a == "--only")
      only = QString::fromLocal8Bit(next());
    else if (a == "--screenshots")
      shots = QString::fromLocal8Bit(next());
    else {
      std::fprintf(stderr,
                   "usage: bench_dashboard [--history N] [--reps R] [--steps S] "
                   "[--throughput-reps R] [--only frame|throughput] [--look 1920x1080|1920x1080p|1280x720|1280x720p] "
                   "[--paint-log] [--frame-shots DIR] [--screenshots DIR]\n");
      return 2;
    }
  }
  if (history < 1 || reps < 2 || steps < 1 || throughputReps < 2) {
    std::fprintf(stderr, "bench_dashboard: --history and --steps must be >= 1, reps >= 2\n");
    return 2;
  }
  QSettings().clear();
  if (!shots.isEmpty()) {
    screenshots(shots);
    return 0;
  }
  if (only != QLatin1String("throughput"))
    frameUpdate(history, reps, frameShots, look, paintLog);
  if (only != QLatin1String("frame"))
    throughput(steps, throughputReps);
  return 0;
}
