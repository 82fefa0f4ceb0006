// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// GPT runs on the Train page: the one Setup trains the Tiny Shakespeare
// preset in recipes side by side on their own threads, with loss and
// val-loss curves, histograms of named layers (attention probabilities,
// LayerNorm inputs) and the GPT's op table; the policy editor writes the
// spec the CLI's --policy takes and shows the parser's refusal inline; the
// Generate panel samples from paused and finished runs side by side.
#include "ui/app_shell/main_window.h"
#include "ui/bridge/run_controller.h"
#include "ui/charts/histogram_chart.h"
#include "ui/charts/steady_label.h"
#include "ui/panels/generate_panel.h"
#include "ui/panels/op_table_panel.h"
#include "ui/panels/policy_editor.h"
#include "ui/panels/train_panel.h"
#include "ui/panels/train_panel_setup.h"

#include <mantissa/amp/policy.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/run_config.h>
#include <mantissa/train/session.h>

#include <QAction>
#include <QClipboard>
#include <QComboBox>
#include <QDockWidget>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <QTextLayout>
#include <QTextOption>
#include <QToolBar>

#include <gtest/gtest.h>

namespace {

using namespace mantissa;
using namespace mantissa::ui;

struct Window {
  MainWindow window;
  TrainPanel* train = nullptr;
  RunController* c = nullptr;
  Window() {
    window.resize(1400, 900);
    window.show();
    train = window.findChild<TrainPanel*>();
    c = train ? train->controller() : nullptr;
  }
};

QStringList layerItems(const TrainPanel* train) {
  QStringList items;
  for (auto* box : train->findChildren<QComboBox*>())
    for (int i = 0; i < box->count(); ++i)
      items << box->itemText(i);
  return items;
}

int layerIndex(const RunController* c, int run, const QString& name) {
  const auto& names = c->facts(run).layerNames;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name)
      return int(i);
  return -1;
}

// The shakespeare-char preset's run in each recipe, with these steps and cadences.
std::vector<train::RunConfig> gptRuns(std::int64_t steps, int telemetryEvery, std::int64_t evalEvery,
                                      std::initializer_list<const char*> recipes) {
  std::vector<train::RunConfig> runs;
  for (const char* recipe : recipes) {
    train::RunConfig c = train::findPreset("shakespeare-char")->runs.front();
    c.steps = steps;
    c.telemetryEvery = telemetryEvery;
    c.evalEvery = evalEvery;
    c.recipe = recipe;
    runs.push_back(c);
  }
  return runs;
}

// The Setup filled with GPT runs in fp32 and bf16-mixed, then built as Reset builds them.
void setUpGptRuns(Window& w, int steps, int telemetryEvery, std::int64_t evalEvery = 250) {
  TrainSetup* setup = w.train->setup();
  ASSERT_NE(setup, nullptr);
  setup->setConfigs(gptRuns(steps, telemetryEvery, evalEvery, {"fp32", "bf16-mixed"}));
  ASSERT_EQ(setup->problems(), QString()) << setup->problems().toStdString();
  ASSERT_EQ(w.train->applySetup(), QString());
  ASSERT_EQ(w.c->runCount(), 2);
  ASSERT_TRUE(w.c->isGpt(0) && w.c->isGpt(1));
  EXPECT_FALSE(w.c->isFollowing(0)); // its own log, not another writer's
  EXPECT_FALSE(w.c->isLoaded(0));
  EXPECT_EQ(w.c->state(), RunController::State::Ready);
}

} // namespace

TEST(GptGui, TrainPageTrainsGptRecipesSideBySideWithNamedHistograms) {
  Window w;
  ASSERT_TRUE(w.train && w.c);
  setUpGptRuns(w, 6, 2, 3);
  EXPECT_EQ(w.c->config(0).steps, 6);
  EXPECT_EQ(w.c->config(0).evalEvery, 3);
  EXPECT_EQ(w.c->runName(0), QStringLiteral("fp32"));
  EXPECT_EQ(w.c->runName(1), QStringLiteral("bf16-mixed"));
  w.train->startAction()->trigger();
  // Training runs on the runs' own threads: the GUI thread keeps turning its
  // event loop (QTRY) while the steps arrive through the runs' mailboxes.
  ASSERT_TRUE(
      QTest::qWaitFor([&] { return w.c->state() == RunController::State::Finished; }, 120000));
  // The summary reaches each record with the run's last snapshot.
  const auto ended = [&](int run) {
    const auto& snap = w.c->record(run).snapshot();
    return snap && snap->finished;
  };
  ASSERT_TRUE(QTest::qWaitFor([&] { return ended(0) && ended(1); }, 10000));
  // The toolbar reads each finished run's validation loss; a GPT has no test accuracy.
  {
    const auto* progress = w.train->findChild<SteadyTextLine*>(QStringLiteral("trainProgress"));
    ASSERT_NE(progress, nullptr);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return progress->fullText().count(QStringLiteral("val_loss")) == 2; }, 10000))
        << progress->fullText().toStdString();
    EXPECT_FALSE(progress->fullText().contains(QStringLiteral("test ")))
        << progress->fullText().toStdString();
    const double val = w.c->record(0).snapshot()->summary->testLoss;
    EXPECT_TRUE(progress->fullText().contains(QStringLiteral("val_loss %1").arg(val, 0, 'f', 3)))
        << progress->fullText().toStdString();
  }
  for (int run : {0, 1}) {
    const RunRecord& r = w.c->record(run);
    EXPECT_EQ(r.lastStep(), 5);
    ASSERT_EQ(r.testLoss().size(), 2u); // the val-loss curve: after 3 steps and the final one
    EXPECT_EQ(r.testLoss().front().x, 3.0);
    EXPECT_GT(r.testLoss().back().y, 1.0);
    EXPECT_LT(r.testLoss().back().y, 5.0);
    EXPECT_EQ(r.frames().size(), 3u); // steps 0, 2, 4
  }
  // The histogram's layers are the GPT's named tensors; the attention
  // probabilities and LayerNorm inputs of every block have frames.
  w.train->setSelectedRun(1);
  const QStringList items = layerItems(w.train);
  for (const char* name :
       {"h0.attention probs", "h3.attention probs", "h0.ln1 input", "h2.ln2 input", "h1.qkv.w"}) {
    const int layer = layerIndex(w.c, 1, QString::fromLatin1(name));
    ASSERT_GE(layer, 0) << name;
    EXPECT_TRUE(items.contains(QStringLiteral("layer %1: %2").arg(layer).arg(QLatin1String(name))))
        << name;
    const auto& frame = *w.c->record(1).frames().back();
    const auto cls = QByteArray(name).endsWith(".w") ? telemetry::TensorClass::Weights
                                                     : telemetry::TensorClass::Activations;
    const auto* t = frame.find(layer, cls);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_GT(t->hist.total, 0u);
  }
  // The histogram of the attention probabilities, named in its title, with
  // the counts of the run's last frame.
  const int probs = layerIndex(w.c, 1, QStringLiteral("h0.attention probs"));
  w.train->setHistogramSelection(probs, telemetry::TensorClass::Activations);
  w.train->redrawAll();
  EXPECT_TRUE(w.train->histogramChart()->title().contains(QStringLiteral("h0.attention probs")))
      << w.train->histogramChart()->title().toStdString();

  // The op table: the policy's op classes but BatchNorm's (a CNN's class: a
  // GPT has no BatchNorm), each with its precision and how it ran (the matmul
  // kernel first).
  const QTableWidget* ops = w.train->opTable()->precisionTable();
  ASSERT_EQ(ops->rowCount(), int(amp::kOpClassCount) - 1);
  for (int r = 0; r < ops->rowCount(); ++r) {
    EXPECT_NE(ops->item(r, 0)->text(), QStringLiteral("BatchNorm statistics"));
    EXPECT_FALSE(ops->item(r, 2)->text().isEmpty()) << ops->item(r, 0)->text().toStdString();
  }
  EXPECT_EQ(ops->item(0, 0)->text(), QStringLiteral("matmul inputs"));
  EXPECT_EQ(ops->item(0, 1)->text(), QStringLiteral("bf16"));
  // (shown with break chances after ':' and '_', zero-width spaces)
  EXPECT_EQ(ops->item(0, 2)->text().remove(QChar(0x200B)), w.c->facts(1).matmul);
  EXPECT_EQ(ops->item(0, 2)->toolTip(), w.c->facts(1).matmul);
  EXPECT_FALSE(ops->item(0, 2)->text().isEmpty());
}

// `text` laid out as an item view wraps a cell's text (at word boundaries;
// a longer word runs past the line): its width and height.
QSizeF wrappedInCell(const QFont& font, const QString& text, qreal width) {
  QTextOption option;
  option.setWrapMode(QTextOption::WordWrap); // as QCommonStyle lays out a view item's text
  QTextLayout layout(text, font);
  layout.setTextOption(option);
  layout.beginLayout();
  QSizeF size;
  for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
    line.setLineWidth(width);
    size.rheight() += line.height();
    size.setWidth(std::max(size.width(), line.naturalTextWidth()));
  }
  layout.endLayout();
  return size;
}

// The cells of the op table a user cannot read whole: a cell that ends
// outside the table's viewport, or whose text, wrapped in its column, is
// wider or taller than the cell; as "op: column: why".
QStringList cutOpCells(const QTableWidget& table) {
  const int margin = table.style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, &table) + 1;
  const QRect view = table.viewport()->rect();
  QStringList out;
  for (int r = 0; r < table.rowCount(); ++r)
    for (int c = 0; c < table.columnCount(); ++c) {
      const QTableWidgetItem* item = table.item(r, c);
      // A hidden "How" column: a narrow panel shows the selected op's note below.
      if (item == nullptr || item->text().isEmpty() || table.isColumnHidden(c))
        continue;
      const QRect cell = table.visualItemRect(item);
      const int width = cell.width() - 2 * margin;
      const QSizeF needs = wrappedInCell(item->font(), item->text(), width);
      QString why;
      if (cell.right() > view.right() + 1 || cell.left() < view.left() - 1)
        why = QStringLiteral("cell %1..%2 outside the view's 0..%3")
                  .arg(cell.left())
                  .arg(cell.right())
                  .arg(view.right());
      else if (needs.width() > width + 0.5 || needs.height() > cell.height() + 0.5)
        why = QStringLiteral("needs %1x%2, has %3x%4")
                  .arg(needs.width())
                  .arg(needs.height())
                  .arg(width)
                  .arg(cell.height());
      if (!why.isEmpty())
        out << QStringLiteral("%1: column %2: %3").arg(table.item(r, 0)->text()).arg(c).arg(why);
    }
  return out;
}

// On a 1280 x 720 projector the op table of a GPT run shares a narrow dock:
// every op, precision and note reads whole there (notes wrap; the table
// scrolls down, never sideways out of sight).
TEST(GptGui, OpTableOfAGptRunReadsInFullOnAProjector) {
  QSettings().clear();
  MainWindow window;
  window.resize(1280, 720);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  auto* train = window.findChild<TrainPanel*>();
  ASSERT_NE(train, nullptr);
  window.pages()->setCurrentWidget(train);
  train->setup()->setConfigs(gptRuns(2, 0, 250, {"bf16-mixed"}));
  ASSERT_EQ(train->applySetup(), QString());
  ASSERT_TRUE(train->controller()->hasGptRuns());
  if (auto* dock = train->findChild<QDockWidget*>(QStringLiteral("opTableDock")))
    dock->raise();
  train->setSelectedRun(0);
  const QTableWidget* ops = train->opTable()->precisionTable();
  ASSERT_TRUE(QTest::qWaitFor([&] { return ops->isVisible() && ops->rowCount() > 0; }, 10000));
  QStringList cut;
  (void)QTest::qWaitFor([&] { return (cut = cutOpCells(*ops)).isEmpty(); }, 3000);
  EXPECT_EQ(cut.join(u'\n').toStdString(), "") << "table " << ops->width() << " px wide";
}

// The op-class names of the policy editor in the setup dock that a user
// cannot read in full: wider than their column (a word cut at the edge) or
// taller than their row ("..." or a missing line), as "name: why".
QStringList cutPolicyNames(const PolicyEditor& editor) {
  const QTableWidget* table = editor.table();
  const int margin = table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1;
  const int width = table->columnWidth(0) - 2 * margin;
  QStringList out;
  for (int r = 0; r < table->rowCount(); ++r) {
    if (table->isRowHidden(r))
      continue;
    const QTableWidgetItem* item = table->item(r, 0);
    const QRect needs = QFontMetrics(item->font()).boundingRect(QRect(0, 0, width, 100000),
                                                                Qt::TextWordWrap, item->text());
    if (needs.width() > width || needs.height() > table->rowHeight(r))
      out << QStringLiteral("%1: needs %2x%3, has %4x%5")
                 .arg(item->text())
                 .arg(needs.width())
                 .arg(needs.height())
                 .arg(width)
                 .arg(table->rowHeight(r));
  }
  return out;
}

// The setup dock is narrow (about 270 px at the window's default size
// and on a 1280 x 720 projector): there every op-class name of the policy
// editor reads in full, in bold when changed too (it wraps onto a second
// line), and the precision boxes stay in sight.
TEST(GptGui, PolicyEditorNamesReadInFullInTheNarrowSetupDock) {
  for (const QSize size : {QSize(1600, 1000), QSize(1280, 720)}) {
    SCOPED_TRACE(QStringLiteral("%1x%2").arg(size.width()).arg(size.height()).toStdString());
    QSettings().clear();
    MainWindow window;
    window.resize(size);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    auto* train = window.findChild<TrainPanel*>();
    ASSERT_NE(train, nullptr);
    window.pages()->setCurrentWidget(train);
    if (auto* dock = train->findChild<QDockWidget*>(QStringLiteral("setupDock")))
      dock->raise();
    train->setup()->applyPreset(QStringLiteral("shakespeare-char"));
    PolicyEditor* editor = train->setup()->policyEditor();
    ASSERT_TRUE(editor->setSpec(QStringLiteral("autocast-cpu-bf16,activations=fp16,norm-stats=bf16")));
    ASSERT_TRUE(QTest::qWaitFor([&] { return editor->isVisible() && editor->width() > 0; }, 5000));
    QStringList cut;
    (void)QTest::qWaitFor([&] { return (cut = cutPolicyNames(*editor)).isEmpty(); }, 3000);
    EXPECT_EQ(cut.join(u'\n').toStdString(), "") << "column " << editor->table()->columnWidth(0);
    // The precision column ends inside the dock's scrolled view.
    auto* scroll = train->findChild<QScrollArea*>(QStringLiteral("setupScroll"));
    ASSERT_NE(scroll, nullptr);
    scroll->ensureWidgetVisible(editor->table(), 0, 0);
    const QWidget* box = editor->table()->cellWidget(int(amp::OpClass::Softmax), 1);
    ASSERT_NE(box, nullptr);
    const int inside = scroll->viewport()->mapToGlobal(QPoint(scroll->viewport()->width(), 0)).x();
    EXPECT_LE(box->mapToGlobal(QPoint(box->width(), 0)).x(), inside);
    // The spec for --policy reads whole: wrapped after its commas, as tall as
    // its lines, and Copy gives the exact text (plain hyphens, no break marks).
    const auto* spec = editor->findChild<QLabel*>(QStringLiteral("policySpec"));
    ASSERT_NE(spec, nullptr);
    EXPECT_EQ(QString(spec->text()).remove(QChar(0x200B)).replace(QChar(0x2011), u'-'),
              editor->spec());
    (void)QTest::qWaitFor([&] { return spec->height() >= spec->heightForWidth(spec->width()); }, 3000);
    EXPECT_GE(spec->height(), spec->heightForWidth(spec->width()));
    EXPECT_LE(spec->mapToGlobal(QPoint(spec->width(), 0)).x(), inside);
    auto* copy = editor->findChild<QPushButton*>(QStringLiteral("copyPolicySpec"));
    ASSERT_NE(copy, nullptr);
    QTest::mouseClick(copy, Qt::LeftButton);
    EXPECT_EQ(QGuiApplication::clipboard()->text(), editor->spec());
  }
}

TEST(GptGui, PolicyEditorWritesTheCliSpecAndShowsTheParsersRefusalInline) {
  PolicyEditor editor;
  editor.show();
  // The rows in sight: every op class of a GPT, and no BatchNorm (a CNN's).
  QStringList shown;
  for (int r = 0; r < editor.table()->rowCount(); ++r)
    if (!editor.table()->isRowHidden(r) && editor.table()->rowHeight(r) > 0)
      shown << editor.table()->item(r, 0)->text();
  EXPECT_EQ(shown.size(), int(amp::kOpClassCount) - 1) << shown.join(", ").toStdString();
  EXPECT_FALSE(shown.contains(QStringLiteral("BatchNorm statistics")));
  EXPECT_TRUE(shown.contains(QStringLiteral("LayerNorm/RMSNorm statistics")));
  // The table is as tall as its shown rows: no empty band where the hidden one was.
  int rows = 0;
  for (int r = 0; r < editor.table()->rowCount(); ++r)
    rows += editor.table()->isRowHidden(r) ? 0 : editor.table()->rowHeight(r);
  EXPECT_EQ(editor.table()->height(),
            rows + editor.table()->horizontalHeader()->height() + 2 * editor.table()->frameWidth());
  // Every preset loads as itself: its spec is its name, its table the preset's.
  for (const auto& preset : amp::policyPresets()) {
    editor.setPreset(QString::fromLatin1(preset.name.data(), qsizetype(preset.name.size())));
    EXPECT_EQ(editor.spec().toStdString(), std::string(preset.name));
    ASSERT_TRUE(editor.policy().has_value());
    EXPECT_EQ(*editor.policy(), preset.policy) << preset.name;
  }
  editor.setPreset(QStringLiteral("autocast-cpu-bf16"));
  editor.setPrecision(amp::OpClass::Softmax, QStringLiteral("fp16"));
  EXPECT_EQ(editor.spec(), QStringLiteral("autocast-cpu-bf16,softmax=fp16"));
  EXPECT_TRUE(editor.table()->item(int(amp::OpClass::Softmax), 0)->font().bold());
  EXPECT_FALSE(editor.table()->item(int(amp::OpClass::Loss), 0)->font().bold());
  EXPECT_EQ(editor.policy()->table[std::size_t(amp::OpClass::Softmax)], DType::F16);

  // promote-every with FP32 accumulation: refused, the parser's words inline.
  editor.setPreset(QStringLiteral("fp32"));
  editor.setPromoteEvery(8);
  EXPECT_TRUE(editor.spec().isEmpty());
  EXPECT_TRUE(editor.errorLabel()->isVisible());
  EXPECT_TRUE(editor.errorLabel()->text().contains(QStringLiteral("promote-every needs a 16-bit")))
      << editor.errorLabel()->text().toStdString();
  editor.setPrecision(amp::OpClass::MatmulAccumulation, QStringLiteral("fp16"));
  EXPECT_FALSE(editor.errorLabel()->isVisible());
  EXPECT_EQ(editor.spec(), QStringLiteral("fp32,matmul-accumulation=fp16,promote-every=8"));
  editor.setSoftmaxMax(false);
  EXPECT_EQ(editor.spec(),
            QStringLiteral("fp32,matmul-accumulation=fp16,promote-every=8,softmax-max=off"));
  EXPECT_FALSE(editor.policy()->softmaxMax);

  // In the setup a refused policy keeps the runs from being built; a GPT
  // trains the policy run after its recipes' runs.
  TrainSetup setup;
  setup.applyPreset(QStringLiteral("shakespeare-char"));
  setup.setPolicyRun(true);
  setup.policyEditor()->setPreset(QStringLiteral("llm.c"));
  setup.policyEditor()->setPromoteEvery(4);
  EXPECT_TRUE(setup.problems().contains(QStringLiteral("promote-every")))
      << setup.problems().toStdString();
  setup.policyEditor()->setPromoteEvery(0);
  EXPECT_EQ(setup.problems(), QString()) << setup.problems().toStdString();
  const auto configs = setup.configs();
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs.front().policy, "");
  EXPECT_EQ(configs.back().policy, "llm.c");
  EXPECT_EQ(configs.back().optimizer, "adamw"); // the preset's, as its recipe runs
  EXPECT_EQ(configs.back().schedule, "cosine");
  // An MLP's form refuses a policy run, naming the option and the model.
  setup.setConfigs(TrainSetup::defaultConfigs());
  setup.setPolicyRun(true);
  EXPECT_TRUE(setup.problems().contains(QStringLiteral("policy: a precision policy applies to GPT")))
      << setup.problems().toStdString();
}

// A sweep's chosen policy has per-layer rows: the editor lists them and
// keeps them in the spec while the class rows change, until cleared or a
// preset is chosen.
TEST(GptGui, PolicyEditorKeepsAndListsPerLayerRows) {
  PolicyEditor editor;
  editor.show();
  EXPECT_FALSE(editor.layerRowsLabel()->isVisible());
  const QString spec = QStringLiteral("fp32,h0.softmax=fp16,h1.fc.matmul-inputs=bf16");
  ASSERT_TRUE(editor.setSpec(spec));
  EXPECT_EQ(editor.spec(), spec);
  ASSERT_TRUE(editor.policy().has_value());
  EXPECT_EQ(*editor.policy(), amp::parsePolicy(spec.toStdString()));
  EXPECT_TRUE(editor.layerRowsLabel()->isVisible());
  EXPECT_EQ(editor.layerRowsLabel()->text(),
            QStringLiteral("h0.softmax = fp16\nh1.fc.matmul-inputs = bf16"));
  editor.setPrecision(amp::OpClass::Gelu, QStringLiteral("bf16"));
  EXPECT_EQ(editor.spec(), QStringLiteral("fp32,gelu=bf16,h0.softmax=fp16,h1.fc.matmul-inputs=bf16"));
  editor.clearLayerRowsButton()->click();
  EXPECT_EQ(editor.spec(), QStringLiteral("fp32,gelu=bf16"));
  EXPECT_FALSE(editor.layerRowsLabel()->isVisible());
  ASSERT_TRUE(editor.setSpec(spec));
  editor.setPreset(QStringLiteral("llm.c"));
  EXPECT_EQ(editor.spec(), QStringLiteral("llm.c"));
}

TEST(GptGui, GeneratePanelSamplesFromPausedAndFinishedRunsSideBySide) {
  Window w;
  ASSERT_TRUE(w.train && w.c);
  auto* genDock = w.train->findChild<QDockWidget*>(QStringLiteral("generateDock"));
  ASSERT_NE(genDock, nullptr);
  EXPECT_FALSE(genDock->isVisible()); // MLP runs: nothing to generate from
  auto* accuracyDock = w.train->findChild<QDockWidget*>(QStringLiteral("accuracyDock"));
  ASSERT_NE(accuracyDock, nullptr);
  const bool accuracyShown = accuracyDock->isVisible();
  setUpGptRuns(w, 3, 0);
  EXPECT_TRUE(genDock->isVisible());
  EXPECT_FALSE(accuracyDock->isVisible()); // a GPT has no accuracy: Generate takes its tab
  GeneratePanel* gen = w.train->generatePanel();
  ASSERT_NE(gen, nullptr);
  EXPECT_FALSE(gen->generateButton()->isEnabled()); // nothing to sample from before a step
  EXPECT_EQ(gen->generate(), 0);

  w.train->stepAction()->trigger(); // starts paused, one step
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.c->record(0).lastStep() == std::int64_t(0); }, 60000));
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.c->record(1).lastStep() == std::int64_t(0); }, 60000));
  EXPECT_EQ(w.c->state(), RunController::State::Paused);
  const QLabel* banner = w.train->findChild<QLabel*>(QStringLiteral("trainBanner"));
  ASSERT_NE(banner, nullptr);
  EXPECT_TRUE(banner->text().contains(QStringLiteral("Paused."))) << banner->text().toStdString();
  EXPECT_FALSE(banner->text().contains(QStringLiteral("Training"))) << banner->text().toStdString();
  ASSERT_TRUE(QTest::qWaitFor([&] { return gen->generateButton()->isEnabled(); }, 10000));
  gen->charactersBox()->setValue(40);
  EXPECT_EQ(gen->generate(), 2);
  ASSERT_TRUE(QTest::qWaitFor([&] { return gen->pending() == 0; }, 60000));
  EXPECT_EQ(gen->text(0).size(), 40);
  EXPECT_EQ(gen->text(1).size(), 40);
  EXPECT_EQ(w.c->record(0).lastStep(), 0); // sampling took no step
  EXPECT_EQ(w.c->trainerState(0), train::TrainerState::Paused);

  w.train->pauseAction()->trigger(); // resume to the end
  ASSERT_TRUE(
      QTest::qWaitFor([&] { return w.c->state() == RunController::State::Finished; }, 60000));
  gen->charactersBox()->setValue(25);
  EXPECT_EQ(gen->generate(), 2);
  ASSERT_TRUE(QTest::qWaitFor([&] { return gen->pending() == 0; }, 60000));
  EXPECT_EQ(gen->text(0).size(), 25);
  EXPECT_EQ(gen->text(1).size(), 25);

  // MLP runs again: Generate goes, Accuracy comes back.
  w.train->setup()->setConfigs(TrainSetup::defaultConfigs());
  ASSERT_EQ(w.train->applySetup(), QString());
  EXPECT_FALSE(genDock->isVisible());
  EXPECT_EQ(accuracyDock->isVisible(), accuracyShown);
}

TEST(GptGui, StopEndsGptRunsEarlyAndTheyStillGenerate) {
  Window w;
  ASSERT_TRUE(w.train && w.c);
  setUpGptRuns(w, 100000, 0);
  w.train->startAction()->trigger();
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.c->record(0).lastStep() >= 1; }, 60000));
  w.train->stopAction()->trigger();
  ASSERT_TRUE(
      QTest::qWaitFor([&] { return w.c->state() == RunController::State::Finished; }, 60000));
  ASSERT_TRUE(QTest::qWaitFor(
      [&] {
        const auto& snap = w.c->record(0).snapshot();
        return snap && snap->summary;
      },
      10000));
  EXPECT_TRUE(w.c->record(0).snapshot()->summary->stoppedEarly);
  EXPECT_LT(w.c->record(0).lastStep(), 100);
  GeneratePanel* gen = w.train->generatePanel();
  gen->charactersBox()->setValue(15);
  EXPECT_EQ(gen->generate(), 2);
  ASSERT_TRUE(QTest::qWaitFor([&] { return gen->pending() == 0; }, 60000));
  EXPECT_EQ(gen->text(0).size(), 15);
  // Reset builds the same GPT runs from scratch.
  w.train->resetAction()->trigger();
  ASSERT_EQ(w.c->runCount(), 2);
  EXPECT_TRUE(w.c->isGpt(0));
  EXPECT_EQ(w.c->state(), RunController::State::Ready);
  EXPECT_EQ(w.c->config(0).steps, 100000);
}

// Start on the Train page trains what the setup shows: with a GPT chosen
// there, a click on Start builds the GPT runs and trains them (not the MLP
// runs, which were set up when the page opened).
TEST(GptGui, StartWithAGptInTheSetupTrainsTheGptRuns) {
  Window w;
  ASSERT_TRUE(w.train && w.c);
  ASSERT_GT(w.c->runCount(), 0);
  ASSERT_FALSE(w.c->hasGptRuns()); // the page opens with the MLP form's runs
  w.train->setup()->setConfigs(gptRuns(100000, 0, 250, {"bf16-mixed"}));

  auto* bar = w.train->findChild<QToolBar*>(QStringLiteral("trainToolBar"));
  ASSERT_NE(bar, nullptr);
  QWidget* start = bar->widgetForAction(w.train->startAction());
  ASSERT_NE(start, nullptr);
  QTest::mouseClick(start, Qt::LeftButton);

  QTRY_VERIFY_WITH_TIMEOUT(w.c->state() == RunController::State::Running, 60000);
  ASSERT_EQ(w.c->runCount(), 1);
  EXPECT_TRUE(w.c->isGpt(0));
  EXPECT_EQ(w.c->runName(0), QStringLiteral("bf16-mixed"));
  EXPECT_EQ(w.c->config(0).steps, 100000);
  // The GPT run trains: its steps arrive through its log.
  QTRY_VERIFY_WITH_TIMEOUT(w.c->record(0).lastStep() >= 1, 60000);
  EXPECT_TRUE(w.c->isGpt(0));
  w.train->stopAction()->trigger();
  QTRY_VERIFY_WITH_TIMEOUT(w.c->state() == RunController::State::Finished, 60000);
}

// After GPT runs, Start and Reset train what the setup shows: an MLP chosen
// there trains the MLP's recipes (not the GPT runs again); a GPT chosen
// again, the GPT runs.
TEST(GptGui, AfterGptRunsStartAndResetWithAnMlpInTheSetupTrainTheMlpRecipes) {
  Window w;
  ASSERT_TRUE(w.train && w.c);
  setUpGptRuns(w, 2, 0);
  w.train->startAction()->trigger();
  QTRY_VERIFY_WITH_TIMEOUT(w.c->state() == RunController::State::Finished, 120000);
  QTRY_VERIFY_WITH_TIMEOUT(w.train->startAction()->isEnabled(), 10000); // the page has seen it end
  ASSERT_TRUE(w.c->isGpt(0));

  train::RunConfig small;
  small.data = "spirals";
  small.model = "mlp:2-8-2:tanh";
  small.steps = 5;
  small.epochs = 0;
  small.recipe = "fp32";
  train::RunConfig other = small;
  other.recipe = "bf16-mixed";
  w.train->setup()->setConfigs({small, other});

  w.train->startAction()->trigger();
  ASSERT_EQ(w.c->runCount(), 2);
  EXPECT_FALSE(w.c->hasGptRuns())
      << w.train->findChild<QLabel*>(QStringLiteral("trainBanner"))->text().toStdString();
  EXPECT_EQ(w.c->runName(0), QStringLiteral("fp32"));
  EXPECT_EQ(w.c->runName(1), QStringLiteral("bf16-mixed"));
  EXPECT_EQ(w.c->config(0).data, "spirals");
  QTRY_VERIFY_WITH_TIMEOUT(w.c->state() == RunController::State::Finished, 60000);
  QTRY_VERIFY_WITH_TIMEOUT(w.train->resetAction()->isEnabled() && w.train->startAction()->isEnabled(), 10000);
  QTRY_COMPARE_WITH_TIMEOUT(w.c->record(0).lastStep(), std::int64_t(4), 10000);

  // Reset rebuilds the MLP form's runs too.
  w.train->resetAction()->trigger();
  ASSERT_EQ(w.c->runCount(), 2);
  EXPECT_FALSE(w.c->hasGptRuns());
  EXPECT_EQ(w.c->config(1).recipe, "bf16-mixed");
  EXPECT_EQ(w.c->state(), RunController::State::Ready);

  // A GPT again: Reset builds the GPT runs.
  w.train->setup()->setConfigs(gptRuns(2, 0, 250, {"fp32", "bf16-mixed"}));
  w.train->resetAction()->trigger();
  ASSERT_EQ(w.c->runCount(), 2);
  EXPECT_TRUE(w.c->isGpt(0) && w.c->isGpt(1));
  EXPECT_EQ(w.c->state(), RunController::State::Ready);
}

// The FP8 and microscaling recipes run on the GPT from the command line;
// the GUI offers them too: as recipes of the setup for a GPT, and as the policy
// editor's matmul-input precision, whose spec the CLI's --policy takes.
TEST(GptGui, TheGptSetupOffersTheFp8AndMicroscalingRecipes) {
  PolicyEditor editor;
  auto* box = editor.findChild<QComboBox*>(QStringLiteral("precision_matmul-inputs"));
  ASSERT_NE(box, nullptr);
  QStringList offered;
  for (int i = 0; i < box->count(); ++i)
    offered << box->itemText(i);
  for (const char* recipe : {"fp8-delayed", "fp8-current", "fp8-block", "mxfp8", "nvfp4"})
    EXPECT_TRUE(offered.contains(QLatin1String(recipe))) << recipe << " not in " << offered.join(", ").toStdString();

  editor.setPreset(QStringLiteral("autocast-cpu-bf16"));
  editor.setPrecision(amp::OpClass::MatmulInputs, QStringLiteral("mxfp8"));
  EXPECT_EQ(editor.spec(), QStringLiteral("autocast-cpu-bf16,matmul-inputs=mxfp8"));
  ASSERT_TRUE(editor.policy().has_value()) << editor.error().toStdString();
  EXPECT_EQ(editor.policy()->scaling.scheme, amp::MatmulScaling::Mxfp8);
  EXPECT_TRUE(editor.table()->item(int(amp::OpClass::MatmulInputs), 0)->font().bold());
  // A spec with FP8 options loads as itself, the recipe in the box.
  ASSERT_TRUE(editor.setSpec(QStringLiteral("llm.c,matmul-inputs=fp8-delayed,fp8-margin=2")));
  EXPECT_EQ(editor.precision(amp::OpClass::MatmulInputs), QStringLiteral("fp8-delayed"));
  EXPECT_EQ(editor.spec(), QStringLiteral("llm.c,matmul-inputs=fp8-delayed,fp8-margin=2"));

  TrainSetup setup;
  setup.applyPreset(QStringLiteral("shakespeare-char"));
  auto* choice = setup.findChild<QComboBox*>(QStringLiteral("modelChoice"));
  ASSERT_NE(choice, nullptr);
  EXPECT_EQ(choice->currentText(), QStringLiteral("GPT")); // the preset's model, named
  setup.setRecipeChecked(QStringLiteral("fp32"), false);
  setup.setRecipeChecked(QStringLiteral("fp8-current"), true);
  ASSERT_EQ(setup.problems(), QString()) << setup.problems().toStdString();
  const auto configs = setup.configs();
  ASSERT_EQ(configs.size(), 1u);
  EXPECT_EQ(configs[0].recipe, "fp8-current");
  RunController controller;
  ASSERT_EQ(controller.setRuns({configs[0]}), QString());
  EXPECT_TRUE(controller.isGpt(0));
  EXPECT_EQ(controller.runName(0), QStringLiteral("fp8-current"));
}

namespace {

// "Memory: the runs need 74.3 MB of 7.8 GB available": the first figure, in bytes.
double shownNeedBytes(const QLabel* memory) {
  const QString text = memory->text();
  const QString lead = QStringLiteral("Memory: the runs need ");
  if (!text.startsWith(lead))
    return -1.0;
  const QStringList words = text.mid(lead.size()).split(u' ');
  if (words.size() < 2)
    return -1.0;
  const double unit = words[1] == QLatin1String("GB")   ? 1e9
                      : words[1] == QLatin1String("MB") ? 1e6
                      : words[1] == QLatin1String("kB") ? 1e3
                                                        : 1.0;
  return words[0].toDouble() * unit;
}

} // namespace

// The setup shows the bytes a GPT's runs need as the user edits: one
// shakespeare-char run's figure is what a built Session of it allocates, and
// a second recipe beside it doubles the figure.
TEST(GptGui, SetupShowsTheMemoryTheRunsNeed) {
  TrainSetup setup;
  auto* memory = setup.findChild<QLabel*>(QStringLiteral("setupMemory"));
  ASSERT_NE(memory, nullptr);
  setup.applyPreset(QStringLiteral("shakespeare-char"));
  ASSERT_EQ(setup.checkedRecipes(), QStringList{QStringLiteral("fp32")});
  ASSERT_TRUE(memory->isVisibleTo(&setup));
  const double one = shownNeedBytes(memory);
  ASSERT_GT(one, 0.0) << memory->text().toStdString();

  const auto configs = setup.configs();
  ASSERT_EQ(configs.size(), 1u);
  const train::Session built(configs[0]);
  double allocated = 0.0;
  for (const auto& [name, bytes] : built.allocatedBytes())
    allocated += double(bytes);
  EXPECT_NEAR(one / allocated, 1.0, 0.05) << memory->text().toStdString() << " vs " << allocated;

  setup.setRecipeChecked(QStringLiteral("bf16-mixed"), true);
  const double two = shownNeedBytes(memory);
  EXPECT_NEAR(two / one, 2.0, 0.02) << memory->text().toStdString();
  // No run, no figure.
  setup.setRecipeChecked(QStringLiteral("fp32"), false);
  setup.setRecipeChecked(QStringLiteral("bf16-mixed"), false);
  EXPECT_FALSE(memory->isVisibleTo(&setup));
}
