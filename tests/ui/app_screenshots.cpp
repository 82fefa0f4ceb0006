// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Not a test: the driver of tests/ui/app_screenshots.sh. Shows the main
// window over the whole screen and grabs the X root window of each page:
//   <dir>/<page>-<mode>-<w>x<h>.png   (train: the default runs mid-run; runs: two
//   runs of one recipe, then a third with a 100-character name, presenter mode
//   toggled and back; preset: MANTISSA_SHOT_PRESET, default bf16-no-scaler,
//   trained to its end; model: MANTISSA_SHOT_MODEL, a safetensors or GGUF file,
//   scanned, its first tensor and the first that overflows FP16 selected,
//   then the first weight with paired scales on the Scale map and Scale
//   histogram tabs; lesson-demos: every demo of the lesson MANTISSA_SHOT_LESSON
//   (default precision-map) run, then its sweep opened in the Sweep dock;
//   checkpoint: the File menu, Open Checkpoint's dialog on
//   MANTISSA_SHOT_CHECKPOINT with a total refused and a good one, then the run
//   opened on the Train page, trained on, and generating)
#include "ui/app_shell/main_window.h"
#include "ui/app_shell/open_checkpoint_dialog.h"
#include "ui/app_shell/run_files.h"
#include "ui/app_shell/theme.h"
#include "ui/bridge/run_controller.h"
#include "ui/formats/float_explorer.h"
#include "ui/lessons/exercises_page.h"
#include "ui/lessons/lessons_page.h"
#include "ui/model/model_page.h"
#include "ui/panels/generate_panel.h"
#include "ui/panels/policy_editor.h"
#include "ui/panels/quant_panel.h"
#include "ui/panels/scaling_view.h"
#include "ui/panels/speed_panel.h"
#include "ui/panels/tensor_scale_view.h"
#include "ui/charts/format_overlay_picker.h"
#include "ui/charts/histogram_chart.h"
#include "ui/panels/train_panel.h"
#include "ui/panels/train_panel_setup.h"

#include <mantissa/lessons/lesson_set.h>
#include <mantissa/train/presets.h>

#include <QAction>
#include <QComboBox>
#include <QListWidget>
#include <QPushButton>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSpinBox>
#include <QScreen>
#include <QScrollArea>
#include <QTabWidget>
#include <QTest>
#include <QThread>

#include <cstdio>

namespace {

void settle(int ms = 500) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < ms) {
    QApplication::processEvents();
    QThread::msleep(20);
  }
}

} // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR normal|presenter [train|explorer|lessons|model|speed...]\n",
                 argv[0]);
    return 2;
  }
  const QString dir = QString::fromLocal8Bit(argv[1]);
  const bool presenter = QString::fromLocal8Bit(argv[2]) == QStringLiteral("presenter");
  QStringList wanted;
  for (int i = 3; i < argc; ++i)
    wanted << QString::fromLocal8Bit(argv[i]);
  if (wanted.isEmpty())
    wanted = {"train", "explorer", "lessons", "exercises", "model", "speed"};
  QDir().mkpath(dir);
  mantissa::ui::MainWindow window;
  window.setGeometry(QGuiApplication::primaryScreen()->geometry());
  window.showFullScreen();
  window.setPresenterMode(presenter);
  settle();
  const QSize size = window.screen()->size();
  const auto grab = [&](const QString& name) {
    settle();
    const QString file = QStringLiteral("%1/%2-%3-%4x%5.png")
                             .arg(dir, name, presenter ? "presenter" : "normal")
                             .arg(size.width())
                             .arg(size.height());
    if (!window.screen()->grabWindow(0).save(file)) {
      std::fprintf(stderr, "cannot write %s\n", qPrintable(file));
      return false;
    }
    std::printf("%s\n", qPrintable(file));
    return true;
  };
  QTabWidget* pages = window.pages();
  const auto show = [&](const QString& label) {
    for (int i = 0; i < pages->count(); ++i)
      if (pages->tabText(i).remove(u'&').compare(label, Qt::CaseInsensitive) == 0)
        pages->setCurrentIndex(i);
  };
  for (const QString& page : wanted) {
    if (page == "train") {
      show(QStringLiteral("Train"));
      auto* train = window.findChild<mantissa::ui::TrainPanel*>();
      train->startAction()->trigger();
      // Mid-run: about 40 % of the first run's steps.
      const auto total = train->controller()->facts(0).totalSteps;
      (void)QTest::qWaitFor([&] { return train->controller()->record(0).lastStep() >= total * 2 / 5; },
                      180000);
      if (!grab(QStringLiteral("train")))
        return 1;
      train->controller()->stop();
      (void)QTest::qWaitFor([&] {
        return train->controller()->state() == mantissa::ui::RunController::State::Finished;
      }, 60000);
      if (!grab(QStringLiteral("train-finished")))
        return 1;
      // The fp16-mixed run (loss-scaled), its op table and a watched weight.
      train->setSelectedRun(train->controller()->runCount() - 1);
      for (const char* dock : {"opTableDock", "watchDock"}) {
        if (auto* d = train->findChild<QDockWidget*>(QLatin1String(dock)))
          d->raise();
        if (!grab(QStringLiteral("train-fp16-") + QLatin1String(dock)))
          return 1;
      }
      // Another format's regions over the histogram and the heat map: a
      // typed spec, then a bad one with its error under the box.
      train->overlayPicker()->choose(QStringLiteral("e4m3:bias=9,special=fnuz"));
      for (const char* dock : {"histogramDock", "heatmapDock"}) {
        if (auto* d = train->findChild<QDockWidget*>(QLatin1String(dock)))
          d->raise();
        if (!grab(QStringLiteral("train-overlay-") + QLatin1String(dock)))
          return 1;
      }
      if (auto* d = train->findChild<QDockWidget*>(QStringLiteral("histogramDock")))
        d->raise();
      {
        const QWidget* hist = train->histogramChart();
        train->overlayPicker()->showPopupAt(hist->mapToGlobal(QPoint(hist->width() / 4, hist->height() / 4)));
      }
      train->overlayPicker()->choose(QStringLiteral("e4m3:bias=x"));
      if (!grab(QStringLiteral("train-overlay-error")))
        return 1;
      train->overlayPicker()->choose(QString());
    } else if (page == "shadow" || page == "shadow-gpt") {
      // The Error view: the default runs (or a GPT in BF16) with the shadow
      // pass at every histogram step, finished, the Error dock in front.
      show(QStringLiteral("Train"));
      auto* train = window.findChild<mantissa::ui::TrainPanel*>();
      auto* setup = train->setup();
      if (page == "shadow-gpt") {
        setup->applyPreset(QStringLiteral("shakespeare-char"));
        setup->setRecipeChecked(QStringLiteral("bf16-mixed"), true);
      }
      auto runs = setup->configs();
      for (auto& r : runs) {
        r.steps = page == "shadow-gpt" ? 60 : 200;
        r.epochs = 0;
        r.telemetryEvery = page == "shadow-gpt" ? 10 : 10;
        r.shadow = page == "shadow-gpt" ? "fp32" : "fp64";
      }
      setup->setConfigs(runs);
      train->applySetup();
      train->startAction()->trigger();
      auto* c = train->controller();
      (void)QTest::qWaitFor([&] { return c->state() == mantissa::ui::RunController::State::Finished; },
                            900000);
      train->setSelectedRun(c->runCount() - 1);
      if (auto* d = train->findChild<QDockWidget*>(QStringLiteral("shadowDock")))
        d->raise();
      if (!grab(page))
        return 1;
    } else if (page == "gpt") {
      // GPT runs: the setup with its policy editor, the Train page mid-run on
      // the attention probabilities, and Generate from the paused runs.
      show(QStringLiteral("Train"));
      auto* train = window.findChild<mantissa::ui::TrainPanel*>();
      auto* setup = train->setup();
      setup->applyPreset(QStringLiteral("shakespeare-char"));
      setup->setRecipeChecked(QStringLiteral("bf16-mixed"), true);
      auto runs = setup->configs();
      for (auto& r : runs) {
        r.steps = 400;
        r.telemetryEvery = 5;
        r.evalEvery = 20;
      }
      setup->setConfigs(runs);
      if (auto* d = train->findChild<QDockWidget*>(QStringLiteral("setupDock")))
        d->raise();
      if (!grab(QStringLiteral("gpt-setup-top")))
        return 1;
      setup->setPolicyRun(true);
      setup->policyEditor()->setSpec(QStringLiteral("autocast-cpu-bf16,softmax=fp16"));
      setup->policyEditor()->setPrecision(mantissa::amp::OpClass::NormStatistics,
                                          QStringLiteral("bf16"));
      if (auto* scroll = train->findChild<QScrollArea*>(QStringLiteral("setupScroll")))
        scroll->ensureWidgetVisible(setup->policyEditor(), 0, 0);
      if (!grab(QStringLiteral("gpt-setup")))
        return 1;
      train->applySetup();
      train->startAction()->trigger();
      auto* c = train->controller();
      (void)QTest::qWaitFor([&] { return c->record(0).lastStep() >= 60; }, 600000);
      train->setSelectedRun(1);
      for (auto* box : train->findChildren<QComboBox*>())
        for (int i = 0; i < box->count(); ++i)
          if (box->itemText(i).endsWith(QStringLiteral(": h0.attention probs")))
            box->setCurrentIndex(i);
      for (auto* box : train->findChildren<QComboBox*>()) {
        const int i = box->findData(int(mantissa::telemetry::TensorClass::Activations));
        if (i >= 0 && box->count() <= 5)
          box->setCurrentIndex(i);
      }
      if (auto* d = train->findChild<QDockWidget*>(QStringLiteral("opTableDock")))
        d->raise();
      if (!grab(QStringLiteral("gpt-train")))
        return 1;
      for (auto* box : train->findChildren<QComboBox*>())
        for (int i = 0; i < box->count(); ++i)
          if (box->itemText(i).endsWith(QStringLiteral(": h1.ln1 input")))
            box->setCurrentIndex(i);
      if (!grab(QStringLiteral("gpt-train-ln1")))
        return 1;
      c->pause();
      (void)QTest::qWaitFor([&] { return c->state() == mantissa::ui::RunController::State::Paused; },
                            60000);
      if (auto* d = train->findChild<QDockWidget*>(QStringLiteral("generateDock")))
        d->raise();
      train->generatePanel()->generate();
      (void)QTest::qWaitFor([&] { return train->generatePanel()->pending() == 0; }, 300000);
      if (!grab(QStringLiteral("gpt-generate")))
        return 1;
      c->stop();
    } else if (page == "fp8") {
      // The Block scales dock on a real run's weights: mid-run, paused, the
      // what-if table and the heat map of MXFP8 and NVFP4 block scales.
      show(QStringLiteral("Train"));
      auto* train = window.findChild<mantissa::ui::TrainPanel*>();
      auto* c = train->controller();
      train->startAction()->trigger();
      (void)QTest::qWaitFor([&] { return c->record(0).lastStep() >= 60; }, 180000);
      c->pause();
      (void)QTest::qWaitFor([&] { return c->state() == mantissa::ui::RunController::State::Paused; }, 60000);
      train->setSelectedRun(0);
      train->setHistogramSelection(0, mantissa::telemetry::TensorClass::Weights);
      if (auto* d = train->findChild<QDockWidget*>(QStringLiteral("fp8Dock")))
        d->raise();
      train->findChild<QTabWidget*>(QStringLiteral("fp8Pages"))->setCurrentIndex(0);
      auto* quant = train->quantPanel();
      for (const char* scheme : {"mxfp8-e4m3", "mxfp4", "nvfp4"}) {
        quant->schemeBox()->setCurrentIndex(quant->schemeBox()->findText(QLatin1String(scheme)));
        (void)QTest::qWaitFor([&] { return quant->mapQuantized() && !quant->busy(); }, 120000);
        if (!grab(QStringLiteral("fp8-weights-") + QLatin1String(scheme)))
          return 1;
      }
      train->setHistogramSelection(0, mantissa::telemetry::TensorClass::WeightGrads);
      (void)QTest::qWaitFor([&] { return quant->tensor() && quant->tensor()->cls ==
                                             mantissa::telemetry::TensorClass::WeightGrads && !quant->busy(); },
                            120000);
      if (!grab(QStringLiteral("fp8-gradients-nvfp4")))
        return 1;
      if (auto* d = train->findChild<QDockWidget*>(QStringLiteral("fp8Dock"))) {
        d->raise();
        train->findChild<QTabWidget*>(QStringLiteral("fp8Pages"))->setCurrentIndex(1);
        if (!grab(QStringLiteral("fp8-scale-trace")))
          return 1;
      }
      c->stop();
    } else if (page == "fp8live") {
      // Live MLP runs in fp8-delayed, mxfp8 and nvfp4: the scale trace beside
      // the loss-scale trace, and the Block scales of the mxfp8 run's weights.
      show(QStringLiteral("Train"));
      auto* train = window.findChild<mantissa::ui::TrainPanel*>();
      auto* c = train->controller();
      for (const char* recipe : {"fp32", "bf16-mixed", "fp16-mixed"})
        train->setup()->setRecipeChecked(QLatin1String(recipe), false);
      for (const char* recipe : {"fp8-delayed", "mxfp8", "nvfp4"})
        train->setup()->setRecipeChecked(QLatin1String(recipe), true);
      train->startAction()->trigger();
      (void)QTest::qWaitFor([&] { return c->record(0).lastStep() >= 120; }, 300000);
      c->pause();
      (void)QTest::qWaitFor([&] { return c->state() == mantissa::ui::RunController::State::Paused; }, 60000);
      train->setSelectedRun(0);
      if (auto* d = train->findChild<QDockWidget*>(QStringLiteral("fp8Dock")))
        d->raise();
      train->findChild<QTabWidget*>(QStringLiteral("fp8Pages"))->setCurrentIndex(1);
      auto* view = train->tensorScaleView();
      for (int role : {int(mantissa::telemetry::ScaledRole::Weight), int(mantissa::telemetry::ScaledRole::Input),
                       int(mantissa::telemetry::ScaledRole::GradOutput)}) {
        view->roleBox()->setCurrentIndex(view->roleBox()->findData(role));
        if (!grab(QStringLiteral("live-scale-trace-fp8-delayed-role%1").arg(role)))
          return 1;
      }
      train->setSelectedRun(1);
      train->setHistogramSelection(0, mantissa::telemetry::TensorClass::Weights);
      if (auto* d = train->findChild<QDockWidget*>(QStringLiteral("fp8Dock")))
        d->raise();
      train->findChild<QTabWidget*>(QStringLiteral("fp8Pages"))->setCurrentIndex(0);
      auto* quant = train->quantPanel();
      quant->schemeBox()->setCurrentIndex(quant->schemeBox()->findText(QStringLiteral("mxfp8-e4m3")));
      (void)QTest::qWaitFor([&] { return quant->tensor() && quant->tensor()->run == 1 && !quant->busy(); }, 120000);
      if (!grab(QStringLiteral("live-block-scales-mxfp8")))
        return 1;
      c->stop();
    } else if (page == "scale-trace") {
      // A saved FP8 run's scale trace (MANTISSA_SHOT_LOG: a log of `mantissa-cli
      // train --recipe fp8-delayed ... --log`), weights and output gradients.
      show(QStringLiteral("Train"));
      auto* train = window.findChild<mantissa::ui::TrainPanel*>();
      const QString log = qEnvironmentVariable("MANTISSA_SHOT_LOG");
      const QString error = train->controller()->loadRun(log);
      if (!error.isEmpty()) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
      }
      train->setSelectedRun(train->controller()->runCount() - 1);
      if (auto* d = train->findChild<QDockWidget*>(QStringLiteral("fp8Dock")))
        d->raise();
      train->findChild<QTabWidget*>(QStringLiteral("fp8Pages"))->setCurrentIndex(1);
      auto* view = train->tensorScaleView();
      for (int role : {int(mantissa::telemetry::ScaledRole::Weight), int(mantissa::telemetry::ScaledRole::GradOutput)}) {
        view->roleBox()->setCurrentIndex(view->roleBox()->findData(role));
        if (!grab(QStringLiteral("scale-trace-role%1").arg(role)))
          return 1;
      }
    } else if (page == "log") {
      // A saved run (MANTISSA_SHOT_LOG): its loss curve, the histogram and
      // the heat map of its weight gradients, then of its activation gradients.
      show(QStringLiteral("Train"));
      auto* train = window.findChild<mantissa::ui::TrainPanel*>();
      const QString error = train->controller()->loadRun(qEnvironmentVariable("MANTISSA_SHOT_LOG"));
      if (!error.isEmpty()) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
      }
      train->setSelectedRun(train->controller()->runCount() - 1);
      for (const auto cls : {mantissa::telemetry::TensorClass::WeightGrads,
                             mantissa::telemetry::TensorClass::ActivationGrads}) {
        train->setHistogramSelection(1, cls);
        for (const char* dock : {"histogramDock", "heatmapDock"}) {
          if (auto* d = train->findChild<QDockWidget*>(QLatin1String(dock)))
            d->raise();
          if (!grab(QStringLiteral("log-%1-%2").arg(QLatin1String(dock)).arg(int(cls))))
            return 1;
        }
      }
    } else if (page == "preset") {
      // A phenomenon preset (MANTISSA_SHOT_PRESET, by default bf16-no-scaler)
      // trained to its end: its banner, curves and the first run's histogram.
      show(QStringLiteral("Train"));
      auto* train = window.findChild<mantissa::ui::TrainPanel*>();
      const QString preset = qEnvironmentVariable("MANTISSA_SHOT_PRESET", QStringLiteral("bf16-no-scaler"));
      train->setup()->applyPreset(preset);
      train->startAction()->trigger();
      (void)QTest::qWaitFor([&] {
        return train->controller()->state() == mantissa::ui::RunController::State::Finished;
      }, 600000);
      if (auto* d = train->findChild<QDockWidget*>(QStringLiteral("histogramDock")))
        d->raise();
      if (!grab(QStringLiteral("preset-") + preset))
        return 1;
    } else if (page == "runs") {
      // Two runs of one recipe (told apart by their scalers), then a third
      // loaded from a log with a 100-character name.
      show(QStringLiteral("Train"));
      auto* train = window.findChild<mantissa::ui::TrainPanel*>();
      auto* c = train->controller();
      mantissa::train::RunConfig scaled = mantissa::train::referenceRun("fp16-mixed");
      scaled.epochs = 0;
      scaled.steps = 180;
      scaled.telemetryEvery = 10;
      scaled.scaler = "pytorch";
      mantissa::train::RunConfig unscaled = scaled;
      unscaled.scaler = "none";
      if (!c->setRuns({scaled, unscaled}).isEmpty())
        return 1;
      c->start();
      (void)QTest::qWaitFor([&] { return c->state() == mantissa::ui::RunController::State::Finished; },
                            300000);
      if (!grab(QStringLiteral("runs-two")))
        return 1;
      const QString longLog = dir + QStringLiteral("/fp16-mixed-") + QString(78, u'x') +
                              QStringLiteral("-end.jsonl");
      if (!c->saveRun(1, longLog).isEmpty() || !c->loadRun(longLog).isEmpty())
        return 1;
      train->setSelectedRun(c->runCount() - 1);
      if (!grab(QStringLiteral("runs-long-name")))
        return 1;
      window.setPresenterMode(!presenter);
      if (!grab(QStringLiteral("runs-toggled")))
        return 1;
      window.setPresenterMode(presenter);
      if (!grab(QStringLiteral("runs-back")))
        return 1;
    } else if (page == "explorer") {
      show(QStringLiteral("Explorer"));
      if (auto* explorer = window.findChild<mantissa::ui::FloatExplorer*>()) {
        explorer->input()->setText(QStringLiteral("0.1"));
        QTest::keyClick(explorer->input(), Qt::Key_Return);
        if (!grab(QStringLiteral("explorer")))
          return 1;
        explorer->input()->setText(QStringLiteral("3,14"));
        QTest::keyClick(explorer->input(), Qt::Key_Return);
        if (!grab(QStringLiteral("explorer-error")))
          return 1;
      }
    } else if (page == "checkpoint") {
      show(QStringLiteral("Train"));
      auto* train = window.findChild<mantissa::ui::TrainPanel*>();
      auto* files = window.findChild<mantissa::ui::RunFiles*>();
      QMenuBar* bar = window.menuBar();
      QAction* fileItem = bar->actions().front();
      QMenu* fileMenu = fileItem->menu();
      fileMenu->popup(bar->mapToGlobal(bar->actionGeometry(fileItem).bottomLeft()));
      if (!grab(QStringLiteral("checkpoint-menu")))
        return 1;
      fileMenu->hide();
      files->askToOpenCheckpoint(qEnvironmentVariable("MANTISSA_SHOT_CHECKPOINT"));
      (void)QTest::qWaitFor([&] { return files->checkpointDialog() || files->problemBox(); }, 60000);
      mantissa::ui::OpenCheckpointDialog* dialog = files->checkpointDialog();
      if (!dialog) {
        grab(QStringLiteral("checkpoint-problem"));
        return 1;
      }
      const int total = dialog->totalBox()->value();
      dialog->totalBox()->setValue(1);
      if (!grab(QStringLiteral("checkpoint-dialog-refused")))
        return 1;
      dialog->totalBox()->setValue(total);
      if (!grab(QStringLiteral("checkpoint-dialog")))
        return 1;
      dialog->openButton()->click();
      auto* c = train->controller();
      (void)QTest::qWaitFor([&] { return c->runCount() > 0 && !c->checkpointSource(c->runCount() - 1).isEmpty(); },
                            120000);
      if (!grab(QStringLiteral("checkpoint-opened")))
        return 1;
      train->pauseAction()->trigger(); // train on
      (void)QTest::qWaitFor([&] { return c->state() == mantissa::ui::RunController::State::Finished; },
                            300000);
      if (auto* gen = train->generatePanel()) {
        if (auto* d = train->findChild<QDockWidget*>(QStringLiteral("generateDock")))
          d->raise();
        gen->generate();
        (void)QTest::qWaitFor([&] { return gen->pending() == 0; }, 60000);
      }
      if (!grab(QStringLiteral("checkpoint-trained")))
        return 1;
    } else if (page == "lessons") {
      show(QStringLiteral("Lessons"));
      if (!grab(QStringLiteral("lessons")))
        return 1;
      // Next Demo Step: the scaler's walk four steps in (one run, then F7 three times).
      auto* lessonsPage = window.findChild<mantissa::ui::LessonsPage*>();
      for (int i = 0; i < lessonsPage->lessonList()->count(); ++i) {
        lessonsPage->showLesson(i);
        const int walk = lessonsPage->demoChoice()->findData(QStringLiteral("scaler-walk"));
        if (walk < 0)
          continue;
        lessonsPage->demoChoice()->setCurrentIndex(walk);
        lessonsPage->nextStepAction()->trigger();
        (void)QTest::qWaitFor([&] { return lessonsPage->demoStep() == 1; }, 60000);
        for (int k = 0; k < 3; ++k)
          lessonsPage->nextStepAction()->trigger();
        if (!grab(QStringLiteral("lessons-step")))
          return 1;
        break;
      }
    } else if (page == "lesson-demos") {
      // Every demo of the lessons named by MANTISSA_SHOT_LESSON (an id,
      // default precision-map) run to its end, one screenshot each
      // (lesson-<demo>), then the lesson's sweep opened in the Sweep dock.
      show(QStringLiteral("Lessons"));
      auto* lessonsPage = window.findChild<mantissa::ui::LessonsPage*>();
      const std::string id = qEnvironmentVariable("MANTISSA_SHOT_LESSON", QStringLiteral("precision-map")).toStdString();
      const auto set = mantissa::lessons::loadInstalledLessons();
      for (std::size_t i = 0; i < set.lessons.size(); ++i) {
        if (set.lessons[i].id != id)
          continue;
        lessonsPage->showLesson(int(i));
        for (const auto& demo : set.lessons[i].demos) {
          lessonsPage->demoChoice()->setCurrentIndex(lessonsPage->demoChoice()->findData(QString::fromStdString(demo)));
          lessonsPage->runSelectedDemo();
          (void)QTest::qWaitFor([&] { return !lessonsPage->demoRunning(); }, 300000);
          if (!grab(QStringLiteral("lesson-") + QString::fromStdString(demo)))
            return 1;
        }
        if (lessonsPage->sweepLink() != nullptr) {
          lessonsPage->sweepLink()->click();
          if (!grab(QStringLiteral("lesson-sweep")))
            return 1;
        }
      }
    } else if (page == "exercises") {
      // A round-to-nearest-even item in FP8 E4M3 answered wrongly: the
      // feedback, the bit cells animated through the rounding and the worked solution.
      show(QStringLiteral("Exercises"));
      auto* exercises = window.findChild<mantissa::ui::ExercisesPage*>();
      exercises->showExercise(mantissa::lessons::generateExercise(
          mantissa::numeric::FormatId::Fp8E4M3, mantissa::lessons::ExerciseKind::Round, 7, 2));
      for (QLineEdit* field : exercises->answerFields())
        field->setText(QStringLiteral("100"));
      exercises->check();
      // The rounding's animation mid-way (guard, round and sticky named and
      // the decision), then at its end (the rounded result).
      exercises->showFrame(2);
      if (!grab(QStringLiteral("exercises-wrong-mid")))
        return 1;
      exercises->showFrame(static_cast<int>(exercises->exercise().frames.size()) - 1);
      if (!grab(QStringLiteral("exercises-wrong-end")))
        return 1;
      // An encoding that rounds, at its first frame: the exact value's bits,
      // more cut-off bits than shown.
      for (std::uint64_t seed = 1; seed < 100; ++seed) {
        const auto item = mantissa::lessons::generateExercise(mantissa::numeric::FormatId::Fp16,
                                                              mantissa::lessons::ExerciseKind::Encode, seed, 2);
        if (item.frames.empty() || !item.frames.front().moreCut)
          continue;
        exercises->showExercise(item);
        exercises->answerFields().front()->setText(QStringLiteral("1"));
        exercises->check();
        exercises->showFrame(0);
        if (!grab(QStringLiteral("exercises-encode-first")))
          return 1;
        break;
      }
      // FP32: 32 cells and the cut-off bits beside them, G R S named.
      exercises->showExercise(mantissa::lessons::generateExercise(
          mantissa::numeric::FormatId::Fp32, mantissa::lessons::ExerciseKind::Round, 5, 3));
      exercises->answerFields().front()->setText(QStringLiteral("000"));
      exercises->check();
      exercises->showFrame(1);
      if (!grab(QStringLiteral("exercises-fp32-grs")))
        return 1;
    } else if (page == "model") {
      show(QStringLiteral("Model"));
      auto* model = window.findChild<mantissa::ui::ModelPage*>();
      const QString file = qEnvironmentVariable("MANTISSA_SHOT_MODEL");
      if (!model->scan() && !grab(QStringLiteral("model-empty")))
        return 1;
      if (!file.isEmpty()) {
        bool done = false;
        QObject::connect(model, &mantissa::ui::ModelPage::modelShown, [&done] { done = true; });
        QObject::connect(model, &mantissa::ui::ModelPage::openFailed, [&done] { done = true; });
        model->openModel(file);
        QElapsedTimer waited;
        waited.start();
        while (!done && waited.elapsed() < 120000)
          settle(100);
      }
      if (!grab(QStringLiteral("model")))
        return 1;
      if (const auto& scan = model->scan()) {
        for (const auto& v : scan->verdicts)
          if (!v.overflowing.empty()) {
            for (std::size_t i = 0; i < scan->model->tensors().size(); ++i)
              if (scan->model->tensors()[i].name == v.overflowing.front())
                model->selectTensor(i);
            break;
          }
        if (!grab(QStringLiteral("model-overflow")))
          return 1;
        // The first weight with a grid of paired scales, on the Scales tab.
        for (std::size_t k = 0; k < scan->pairings.size() && k < scan->scales.size(); ++k)
          if (scan->scales[k].grid.ok()) {
            model->selectTensor(scan->pairings[k].tensor);
            model->chartTabs()->setCurrentIndex(1);
            if (!grab(QStringLiteral("model-scale-map")))
              return 1;
            model->chartTabs()->setCurrentIndex(2);
            if (!grab(QStringLiteral("model-scale-histogram")))
              return 1;
            model->chartTabs()->setCurrentIndex(0);
            break;
          }
        // The file cut after 4 KB: the error above the model still shown.
        QFile whole(file);
        const QString cut = dir + QStringLiteral("/cut.safetensors");
        QFile part(cut);
        if (whole.open(QIODevice::ReadOnly) && part.open(QIODevice::WriteOnly)) {
          part.write(whole.read(4096));
          part.close();
          bool failed = false;
          QObject::connect(model, &mantissa::ui::ModelPage::openFailed, [&failed] { failed = true; });
          model->openModel(cut);
          QElapsedTimer waited;
          waited.start();
          while (!failed && waited.elapsed() < 30000)
            settle(100);
          if (!grab(QStringLiteral("model-error")))
            return 1;
          QFile::remove(cut);
        }
      }
    } else if (page == "speed") {
      show(QStringLiteral("Speed"));
      if (!grab(QStringLiteral("speed")))
        return 1;
      // The model-size view with the scaling result MANTISSA_SHOT_SCALING names.
      const QString scaling = qEnvironmentVariable("MANTISSA_SHOT_SCALING");
      auto* speed = qobject_cast<mantissa::ui::SpeedPanel*>(window.page(QStringLiteral("Speed")));
      if (!scaling.isEmpty() && speed != nullptr) {
        speed->scalingView()->open(scaling);
        for (QTabWidget* tabs : speed->findChildren<QTabWidget*>())
          if (const int i = tabs->indexOf(speed->scalingView()); i >= 0)
            tabs->setCurrentIndex(i);
        settle(500);
        if (!grab(QStringLiteral("speed-scaling")))
          return 1;
      }
    }
  }
  if (presenter) { // and back: the page as presenter mode leaves it
    window.setPresenterMode(false);
    show(QStringLiteral("Train"));
    settle(1000);
    const QString file = QStringLiteral("%1/train-after-presenter-%2x%3.png")
                             .arg(dir)
                             .arg(size.width())
                             .arg(size.height());
    if (!window.screen()->grabWindow(0).save(file))
      return 1;
    std::printf("%s\n", qPrintable(file));
  }
  return 0;
}
