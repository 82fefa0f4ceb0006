// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Runs trained elsewhere, in the main window: a PyTorch tap's log
// (app/pytorch/mantissa_torch; tests/ui/data/tap_bf16.jsonl, 12 steps of an
// MLP under bf16 autocast, telemetry every 4 steps) opens with its module
// names as layers and its recorded precisions as the op table; one rank's log
// of a distributed run opens every rank side by side; File > Follow Run shows
// a log's lines as another writer appends them, waits for a partial last
// line, and reports a truncated or replaced file while keeping the run.
#include <mantissa/build_flags.h>
#include "ui/app_shell/main_window.h"
#include "ui/app_shell/run_files.h"
#include "ui/bridge/run_controller.h"
#include "ui/bridge/run_follower.h"
#include "ui/panels/op_table_panel.h"
#include "ui/panels/train_panel.h"

#include "spawn_process.h"
#include "../build_tree.h"

#include <QComboBox>
#include <QProcess>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>

namespace {

using namespace mantissa;
using namespace mantissa::ui;

QList<QByteArray> fixtureLines() {
  QFile f(QStringLiteral(MANTISSA_TAP_FIXTURE));
  EXPECT_TRUE(f.open(QIODevice::ReadOnly)) << MANTISSA_TAP_FIXTURE;
  QList<QByteArray> lines = f.readAll().split('\n');
  while (!lines.isEmpty() && lines.back().isEmpty())
    lines.removeLast();
  return lines; // header, steps 0..11, summary
}

void append(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Append));
  ASSERT_EQ(f.write(bytes), bytes.size());
}

struct Window {
  MainWindow window;
  RunFiles* files = nullptr;
  TrainPanel* train = nullptr;
  RunController* c = nullptr;
  Window() {
    window.resize(1400, 900);
    window.show();
    files = window.findChild<RunFiles*>();
    train = window.findChild<TrainPanel*>();
    c = train ? train->controller() : nullptr;
  }
};

QStringList pickerItems(const TrainPanel* train, const char* name) {
  QStringList items;
  for (auto* box : train->findChildren<QComboBox*>())
    if (box->objectName() == QLatin1String(name) || QLatin1String(name).isEmpty())
      for (int i = 0; i < box->count(); ++i)
        items << box->itemText(i);
  return items;
}

TEST(TapRuns, OpenRunShowsModuleNamesAndRecordedPrecisions) {
  QTemporaryDir dir;
  const QString log = dir.filePath("tap.jsonl");
  ASSERT_TRUE(QFile::copy(QStringLiteral(MANTISSA_TAP_FIXTURE), log));
  Window w;
  ASSERT_TRUE(w.files && w.c);
  ASSERT_EQ(w.files->openRun(log), "");
  ASSERT_EQ(w.c->runCount(), 1);
  EXPECT_EQ(w.c->record(0).lastStep(), 11);
  EXPECT_EQ(w.c->record(0).frames().size(), 3u); // steps 0, 4, 8
  EXPECT_TRUE(w.c->runName(0).startsWith(QStringLiteral("mlp bf16")))
      << w.c->runName(0).toStdString();
  const RunFacts& facts = w.c->facts(0);
  EXPECT_EQ(facts.source, QStringLiteral("pytorch"));
  ASSERT_EQ(facts.layerNames.size(), 5u);
  EXPECT_EQ(facts.telemetryEvery, 4);
  // The layer picker names the modules; the op table lists them with the
  // dtypes autocast gave their outputs.
  const QStringList items = pickerItems(w.train, "");
  EXPECT_TRUE(items.contains(QStringLiteral("layer 4: 4"))) << items.join(", ").toStdString();
  const QTableWidget* ops = w.train->opTable()->precisionTable();
  ASSERT_EQ(ops->rowCount(), 5);
  EXPECT_EQ(ops->item(0, 0)->text(), QStringLiteral("0 (Linear)"));
  EXPECT_EQ(ops->item(0, 1)->text(), QStringLiteral("bf16"));
  EXPECT_EQ(ops->item(1, 0)->text(), QStringLiteral("1 (ReLU)"));
}

TEST(TapRuns, OneRankOpensEveryRankSideBySide) {
  QTemporaryDir dir;
  const QList<QByteArray> lines = fixtureLines();
  for (int r : {0, 1, 2}) {
    QByteArray header = lines[0];
    header.replace("\"rank\":0", QByteArray("\"rank\":") + QByteArray::number(r));
    QByteArray text = header + '\n';
    for (qsizetype i = 1; i < lines.size() - r; ++i) // ranks written to different lengths
      text += lines[i] + '\n';
    text.replace("\"mlp bf16\"", "\"ddp rank " + QByteArray::number(r) + "\""); // header, summary
    append(dir.filePath(QStringLiteral("run.rank%1.jsonl").arg(r)), text);
  }
  append(dir.filePath("other.rank0.jsonl"), lines[0] + '\n'); // another run: not opened
  EXPECT_EQ(RunFiles::rankLogs(dir.filePath("run.jsonl")), QStringList{dir.filePath("run.jsonl")});

  Window w;
  ASSERT_EQ(w.files->openRun(dir.filePath("run.rank1.jsonl")), "");
  ASSERT_EQ(w.c->runCount(), 3);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(QFileInfo(w.c->runSource(r)).fileName(), QStringLiteral("run.rank%1.jsonl").arg(r));
    EXPECT_TRUE(w.c->runName(r).startsWith(QStringLiteral("ddp rank %1").arg(r)))
        << w.c->runName(r).toStdString();
  }
  EXPECT_EQ(w.c->record(0).lastStep(), 11);
  EXPECT_EQ(w.c->record(1).lastStep(), 11); // the summary line dropped
  EXPECT_EQ(w.c->record(2).lastStep(), 10);
  EXPECT_NE(w.c->runColor(0), w.c->runColor(1));

  // Followed, one rank's log brings every rank too.
  ASSERT_EQ(w.files->followRun(dir.filePath("run.rank0.jsonl")), "");
  ASSERT_EQ(w.c->runCount(), 6);
  for (int r = 0; r < 3; ++r) {
    EXPECT_TRUE(w.c->isFollowing(3 + r));
    EXPECT_EQ(QFileInfo(w.c->runSource(3 + r)).fileName(),
              QStringLiteral("run.rank%1.jsonl").arg(r));
  }
  EXPECT_EQ(w.c->record(5).lastStep(), 10);
}

TEST(TapRuns, FollowRunShowsLinesAsTheyAreWritten) {
  QTemporaryDir dir;
  const QString log = dir.filePath("live.jsonl");
  const QList<QByteArray> lines = fixtureLines();
  ASSERT_EQ(lines.size(), 14);
  append(log, lines[0] + '\n' + lines[1] + '\n');

  Window w;
  ASSERT_EQ(w.files->followRun(log), "");
  ASSERT_EQ(w.c->runCount(), 1);
  EXPECT_TRUE(w.c->isFollowing(0));
  EXPECT_EQ(w.c->record(0).lastStep(), 0);
  EXPECT_TRUE(w.c->runName(0).startsWith(QStringLiteral("mlp bf16")));
  EXPECT_EQ(w.c->facts(0).layerNames.size(), 5u);

  // Another writer appends steps 1..5, one line at a time.
  int next = 2;
  QTimer writer;
  QObject::connect(&writer, &QTimer::timeout, [&] {
    if (next <= 6)
      append(log, lines[next++] + '\n');
  });
  writer.start(15);
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.c->record(0).lastStep() == 5; }, 10000))
      << "last step " << w.c->record(0).lastStep();
  writer.stop();
  EXPECT_EQ(w.c->record(0).frames().size(), 2u); // steps 0 and 4

  // Half of step 6's line: waited for, not misread.
  const QByteArray half = lines[7].left(lines[7].size() / 2);
  append(log, half);
  const RunFollower* f = w.c->follower(0);
  ASSERT_NE(f, nullptr);
  const qint64 size = QFileInfo(log).size();
  ASSERT_TRUE(QTest::qWaitFor([&] { return f->bytesRead() == size; }, 10000));
  EXPECT_TRUE(f->waitingForLineEnd());
  EXPECT_EQ(w.c->record(0).lastStep(), 5);
  EXPECT_TRUE(w.c->isFollowing(0));
  EXPECT_EQ(w.c->followError(0), "");
  append(log, lines[7].mid(half.size()) + '\n');
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.c->record(0).lastStep() == 6; }, 10000));

  // Truncated (a new run started writing the same file): reported, run kept.
  {
    QFile t(log);
    ASSERT_TRUE(t.open(QIODevice::WriteOnly | QIODevice::Truncate));
    t.write(lines[0] + '\n');
  }
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.c->isFollowing(0); }, 10000));
  EXPECT_TRUE(w.c->followError(0).contains(QStringLiteral("truncated")))
      << w.c->followError(0).toStdString();
  EXPECT_EQ(w.c->record(0).lastStep(), 6);
  EXPECT_EQ(w.c->runLog(0, nullptr)->steps.size(), 7u);
}

TEST(TapRuns, FollowReportsAReplacedFileAndReadsTheSummary) {
  QTemporaryDir dir;
  const QString log = dir.filePath("live.jsonl");
  const QList<QByteArray> lines = fixtureLines();
  QByteArray all;
  for (const QByteArray& l : lines)
    all += l + '\n';
  append(log, all);
  Window w;
  ASSERT_EQ(w.files->followRun(log), "");
  EXPECT_EQ(w.c->record(0).lastStep(), 11);
  ASSERT_TRUE(w.c->record(0).snapshot());
  EXPECT_TRUE(w.c->record(0).snapshot()->finished) << "the summary line was read";

  // Replaced by another file (written beside it, renamed over it).
  const QString other = dir.filePath("other.jsonl");
  append(other, lines[0] + '\n');
  ASSERT_TRUE(QFile::remove(log));
  ASSERT_TRUE(QFile::rename(other, log));
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.c->isFollowing(0); }, 10000));
  EXPECT_TRUE(w.c->followError(0).contains(QStringLiteral("replaced")) ||
              w.c->followError(0).contains(QStringLiteral("removed")))
      << w.c->followError(0).toStdString();
  EXPECT_EQ(w.c->record(0).lastStep(), 11);
}

TEST(TapRuns, FollowRejectsAMissingFileAndStopsAtABadLine) {
  QTemporaryDir dir;
  Window w;
  const QString missing = w.files->followRun(dir.filePath("missing.jsonl"));
  EXPECT_TRUE(missing.contains(QStringLiteral("missing.jsonl"))) << missing.toStdString();
  EXPECT_EQ(w.c->loadedCount(), 0);

  const QString log = dir.filePath("bad.jsonl");
  const QList<QByteArray> lines = fixtureLines();
  append(log, lines[0] + '\n' + lines[1] + '\n');
  ASSERT_EQ(w.files->followRun(log), "");
  append(log, "{\"step\": \"three\"}\n");
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.c->isFollowing(0); }, 10000));
  EXPECT_TRUE(w.c->followError(0).contains(QStringLiteral("bad.jsonl:3")))
      << w.c->followError(0).toStdString();
  EXPECT_EQ(w.c->record(0).lastStep(), 0);
}

// A real PyTorch run (tests/python/tap_writer.py, the system Python's torch)
// followed while it trains: its steps arrive over several updates, and the
// run ends finished with its summary. The window is up before the writer
// starts: built after, on a loaded machine, it could take longer than the
// whole run (30 steps, 1.5 s) and find every step already written.
TEST(TapRuns, FollowsAPyTorchRunWhileItTrains) {
  Window w;
  QTemporaryDir dir;
  const QString log = dir.filePath("torch.jsonl");
  QProcess writer;
  writer.setWorkingDirectory(dir.path());
  writer.setProcessChannelMode(QProcess::MergedChannels);
  writer.start(QStringLiteral(MANTISSA_PYTHON),
               {QStringLiteral(MANTISSA_TAP_WRITER), log, QStringLiteral("30"),
                QStringLiteral("0.05")});
  ASSERT_TRUE(writer.waitForStarted(10000));
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return QFileInfo::exists(log) || writer.state() == QProcess::NotRunning; }, 60000));
  if (writer.state() == QProcess::NotRunning && writer.exitCode() == 77)
    GTEST_SKIP() << "PyTorch is not installed for " << MANTISSA_PYTHON
                 << " (Debian: python3-torch)";
  ASSERT_TRUE(QFileInfo::exists(log)) << writer.readAll().toStdString();

  ASSERT_EQ(w.files->followRun(log), "");
  std::vector<std::int64_t> seen;
  QObject::connect(w.c, &RunController::updated, [&] {
    if (seen.empty() || seen.back() != w.c->record(0).lastStep())
      seen.push_back(w.c->record(0).lastStep());
  });
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return w.c->record(0).snapshot() && w.c->record(0).snapshot()->finished; }, 120000))
      << "last step " << w.c->record(0).lastStep() << "; writer: "
      << writer.readAll().toStdString();
  ASSERT_TRUE(writer.waitForFinished(30000));
  EXPECT_EQ(writer.exitCode(), 0) << writer.readAll().toStdString();
  EXPECT_EQ(w.c->record(0).lastStep(), 29);
  EXPECT_EQ(w.c->record(0).frames().size(), 6u); // steps 0, 5, ..., 25
  EXPECT_GE(seen.size(), 3u) << "the steps arrived while the run trained, not all at the end";
  EXPECT_TRUE(w.c->runName(0).startsWith(QStringLiteral("torch bf16 autocast")))
      << w.c->runName(0).toStdString();
  EXPECT_EQ(w.c->followError(0), "");
}

// A FIFO blocked open() forever before the window was usable; a 2 GB sparse
// file with no newline grew the follower to 1.2 GB and more. The follower
// reads as Open Run does: no FIFO, the run log's size and line limits.
TEST(TapRuns, FollowRefusesAFifoAndStopsAtTheSizeAndLineLimits) {
  QTemporaryDir dir;
  Window w;
  const QString fifo = dir.filePath("fifo.jsonl");
  ASSERT_EQ(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
  const int runs = w.c->runCount();
  const QString refused = w.files->followRun(fifo); // returns at once: nothing writes to it
  EXPECT_TRUE(refused.contains(QStringLiteral("fifo.jsonl"))) << refused.toStdString();
  EXPECT_TRUE(refused.contains(QStringLiteral("not a regular file"))) << refused.toStdString();
  EXPECT_EQ(w.c->runCount(), runs) << "nothing added";

  const QList<QByteArray> lines = fixtureLines();
  const auto sparse = [&](const QString& name, qint64 size) {
    const QString path = dir.filePath(name);
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(lines[0] + '\n' + lines[1] + '\n');
    EXPECT_TRUE(f.resize(size)); // zero bytes to the end, no newline, no disk used
    return path;
  };
  const QString huge = sparse(QStringLiteral("huge.jsonl"), qint64(2) << 30);
  ASSERT_EQ(w.files->followRun(huge), "");
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.c->isFollowing(0); }, 60000));
  EXPECT_TRUE(w.c->followError(0).contains(QStringLiteral("over the limit of 256 MiB")))
      << w.c->followError(0).toStdString();

  const QString endless = sparse(QStringLiteral("endless.jsonl"), qint64(100) << 20);
  ASSERT_EQ(w.files->followRun(endless), "");
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.c->isFollowing(1); }, 60000));
  EXPECT_TRUE(w.c->followError(1).contains(
      QStringLiteral("endless.jsonl:3: line longer than the limit of 8 MiB")))
      << w.c->followError(1).toStdString();
  EXPECT_EQ(w.c->record(1).lastStep(), 0) << "the run before the endless line is kept";
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  if (!mantissa::builtWithSanitizer())
    EXPECT_LT(static_cast<long long>(usage.ru_maxrss) * 1024, 768ll << 20);
}

// "matmul_emulated": "no" in a header, "stopped_early": 1 in a summary ended
// the GUI with an uncaught nlohmann::type_error: Open Run shows an error
// naming the file, the line and the field, and opens nothing.
TEST(TapRuns, OpenRunNamesTheLineAndFieldOfAWrongType) {
  QTemporaryDir dir;
  Window w;
  const QByteArray step = R"({"step": 0, "loss": 1})" "\n";
  const QString header = dir.filePath("header.jsonl");
  append(header, R"({"header": true, "matmul_emulated": "no"})" "\n" + step);
  QString error = w.files->openRun(header);
  EXPECT_TRUE(error.contains(
      QStringLiteral(":1: header: \"matmul_emulated\" must be true or false, got \"no\"")))
      << error.toStdString();
  const QString summary = dir.filePath("summary.jsonl");
  append(summary, step + R"({"summary": true, "stopped_early": 1})" "\n");
  error = w.files->openRun(summary);
  EXPECT_TRUE(error.contains(QStringLiteral("summary.jsonl:2: summary: \"stopped_early\" must be "
                                            "true or false, got 1")))
      << error.toStdString();
  EXPECT_EQ(w.c->loadedCount(), 0);
}

TEST(TapRuns, CommandLineFollowNamesAMissingFile) {
  QTemporaryDir dir;
  const std::string missing = dir.filePath("missing.jsonl").toStdString();
  const auto r = mantissa::test::spawnProcess(mantissa::test::guiBinary(), {"--follow", missing});
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.err.find("missing.jsonl"), std::string::npos) << r.err;
}

} // namespace
