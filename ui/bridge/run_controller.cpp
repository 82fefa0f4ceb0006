// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/bridge/run_controller.h"

#include "ui/app_shell/palette.h"
#include "ui/bridge/live_run_log.h"
#include "ui/bridge/run_follower.h"
#include "ui/bridge/run_names.h"

#include <mantissa/amp/recipe.h>
#include <mantissa/data/dataset.h>
#include <mantissa/data/text.h>
#include <mantissa/io/atomic_file.h>
#include <mantissa/model/model_registry.h>
#include <mantissa/train/checkpoint.h>
#include <mantissa/train/run_log_rows.h>

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QRegularExpression>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <limits>
#include <map>
#include <span>
#include <stdexcept>
#include <utility>

namespace mantissa::ui {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kRowCapacity = 4096; // rows between two drains (~33 ms): never reached
constexpr auto kPublishInterval = std::chrono::milliseconds(30);
constexpr auto kMinDrainInterval = std::chrono::milliseconds(33); // at most ~30 redraws/s
constexpr auto kMaxDrainInterval = std::chrono::milliseconds(500);
constexpr double kGuiShare = 0.08; // of one core, for draining and drawing

} // namespace

struct RunController::Run {
  QString id;
  std::uint64_t key = 0; // never reused: which run this is, across changes of the others
  QString baseName;      // the recipe, a GPT's policy, "name · file" of a log
  QString name;          // baseName, with what differs from runs of the same baseName
  QColor color;
  train::RunConfig config;
  RunMailbox mailbox{kRowCapacity};
  RunRecord record; // GUI thread only
  RunFacts facts;
  std::shared_ptr<const train::RunLog> loaded; // a loaded run: its log (no trainer)
  QString source;                              // a loaded run: its file
  std::unique_ptr<RunFollower> follower;       // a followed run: reads its growing file
  QString checkpoint;                          // opened from this checkpoint ("" otherwise)
  bool sampleOnly = false;                     // a GPT's weights on its vocabulary: no training
  QString autosaveDir;                         // its autosave folder ("" = none)
  std::filesystem::path autosaveBase;          // that folder / file name, without extension

  // Training thread only.
  telemetry::PublishThrottle throttle{0, kPublishInterval};
  Clock::time_point firstStep{};
  Clock::time_point lastPublish{};
  std::int64_t stepsSincePublish = 0;
  model::OpTimes timesSincePublish;
  double stepMsSincePublish = 0.0; // the steps' own time, without any pacing wait
  std::int64_t stepsInRun = 0;     // what the Ops dock keeps once the run ended
  model::OpTimes timesInRun;
  train::WeightWatch watch; // the training thread's

  std::mutex watchMutex;
  int watchLayer = 0;                 // guarded by watchMutex
  std::int64_t watchIndex = 0;        // guarded by watchMutex
  bool findPending = false;           // guarded by watchMutex
  telemetry::TensorClass findClass{}; // guarded by watchMutex
  int findExponent = 0;               // guarded by watchMutex

  std::unique_ptr<LiveRunLog> log;         // a live run: written by its trainer thread
  std::unique_ptr<train::Trainer> trainer; // last: its thread goes first; null when loaded
};

namespace {

// f(trainer) for every live run's trainer.
template <class Runs, class F> void eachThread(Runs& runs, F f) {
  for (auto& run : runs)
    if (run->trainer)
      f(*run->trainer);
}

template <class RunPtr> bool trains(const RunPtr& run) {
  return run->trainer != nullptr;
}

QString settingText(const nlohmann::json& value) {
  if (value.is_string())
    return QString::fromStdString(value.get<std::string>());
  if (value.is_number_float())
    return QString::number(value.get<double>(), 'g', 6);
  if (value.is_boolean())
    return value.get<bool>() ? QStringLiteral("on") : QStringLiteral("off");
  if (value.is_null())
    return {};
  return QString::fromStdString(value.dump());
}

// Every setting of a run as text, by key ("lr" -> "0.05").
std::map<std::string, QString> settingTexts(const train::RunConfig& config) {
  std::map<std::string, QString> out;
  const nlohmann::json json = train::toJson(config);
  for (auto it = json.begin(); it != json.end(); ++it)
    out[it.key()] = settingText(it.value());
  return out;
}

} // namespace

RunController::RunController(QObject* parent) : QObject(parent) {
  m_drainTimer.setSingleShot(true);
  m_drainTimer.setInterval(33);
  connect(&m_drainTimer, &QTimer::timeout, this, &RunController::drain);
}

RunController::~RunController() {
  joinAll();
}

QString RunController::setRuns(const std::vector<train::RunConfig>& configs) {
  joinAll();
  m_runs.clear();
  m_started = false;
  m_configs = configs;
  QStringList problems;
  // Loaded as train::Session(config) loads it (the built-in generators' own
  // seed, not the run's), so a run here is the run `mantissa-cli train` makes.
  std::map<std::string, std::shared_ptr<const data::TrainTest>> loaded;
  std::map<std::pair<std::string, int>, std::shared_ptr<const data::TextCorpus>> texts;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    auto run = std::make_unique<Run>();
    run->config = configs[i];
    run->id = QStringLiteral("run%1").arg(i + 1);
    run->key = ++m_lastKey;
    run->name =
        QString::fromStdString(configs[i].policy.empty() ? configs[i].recipe : configs[i].policy);
    run->color = palette::seriesColor(int(i));
    try {
      configs[i].validate();
      std::shared_ptr<const data::TrainTest> images;
      std::shared_ptr<const data::TextCorpus> text;
      if (model::readsTokens(configs[i].model)) {
        const int ctx = model::modelKind(configs[i].model).context(configs[i].model);
        auto& t = texts[{configs[i].data, ctx}];
        if (!t)
          t = std::make_shared<const data::TextCorpus>(data::loadTextSpec(configs[i].data, ctx));
        text = t;
      } else {
        auto& data = loaded[configs[i].data];
        if (!data)
          data = std::make_shared<const data::TrainTest>(data::loadDataSpec(configs[i].data));
        images = data;
      }
      buildTrainer(*run, images, text);
      const train::Session& session = run->trainer->session();
      run->name = QString::fromStdString(train::runName(session));
      run->facts = runFacts(session);
      run->baseName = run->name;
      m_runs.push_back(std::move(run));
    } catch (const std::exception& e) {
      problems << QStringLiteral("%1: %2").arg(run->name, QString::fromUtf8(e.what()));
    }
  }
  if (!problems.isEmpty())
    m_runs.clear();
  nameRuns();
  for (auto& run : m_runs)
    startLog(*run);
  emit runsChanged();
  emit stateChanged();
  return problems.join(u'\n');
}

// A file or folder name from a run's name: "fp16-mixed · scaler pytorch" ->
// "fp16-mixed-scaler_pytorch".
QString RunController::fileName(QString name) {
  name.replace(QStringLiteral(" · "), QStringLiteral("-"));
  static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._+-]+"));
  name.replace(unsafe, QStringLiteral("_"));
  return name.isEmpty() || name.startsWith(u'.') ? QStringLiteral("run") + name : name;
}

// The live log in the private folder; the autosave folder this run will use.
void RunController::startLog(Run& run) {
  ++m_logCount;
  const QString path = m_logDir.filePath(QStringLiteral("%1-%2.jsonl").arg(run.id).arg(m_logCount));
  run.log = std::make_unique<LiveRunLog>(QFile::encodeName(path).toStdString());
  run.log->write(train::runLogHeader(run.trainer->session()));
  run.log->flush();
  if (!m_autosaveFolder.isEmpty() && !run.sampleOnly) {
    const QString name = fileName(run.name);
    run.autosaveDir = QDir(m_autosaveFolder)
                          .filePath(QStringLiteral("%1-%2-%3")
                                        .arg(QDateTime::currentDateTime().toString(
                                                 QStringLiteral("yyyyMMdd-HHmmss")))
                                        .arg(m_logCount)
                                        .arg(name));
    run.autosaveBase =
        std::filesystem::path(QFile::encodeName(run.autosaveDir).toStdString()) /
        QFile::encodeName(name).toStdString();
  }
}

void RunController::buildTrainer(Run& run, const std::shared_ptr<const data::TrainTest>& data,
                                 const std::shared_ptr<const data::TextCorpus>& text) {
  run.trainer = text ? std::make_unique<train::Trainer>(run.config, text, callbacksFor(run))
                     : std::make_unique<train::Trainer>(run.config, data, callbacksFor(run));
  // A finished run stays readable (requestTensor) and a GPT keeps generating
  // (sampleGpt) on its own thread until the runs are replaced.
  run.trainer->keepServing(true);
  run.trainer->setPace(m_pace);
}

train::TrainerCallbacks RunController::callbacksFor(Run& run) {
  train::TrainerCallbacks callbacks;
  Run* r = &run;
  callbacks.onStep = [this, r](const train::StepReport& report) { onTrainerStep(*r, report); };
  callbacks.onEval = [this, r](const train::EvalReport& eval) {
    if (r->sampleOnly) // its text is its vocabulary alone: no loss worth showing
      return;
    const train::Session& session = r->trainer->session();
    if (r->log)
      r->log->write(train::runLogEval(session, eval));
    StepRow row;
    row.kind = StepRow::Kind::Eval;
    row.step = eval.step;
    row.loss = eval.loss;
    // A GPT's evaluation is its losses only (no accuracy), as its log reads back.
    row.accuracy = session.isText() ? std::numeric_limits<double>::quiet_NaN() : eval.accuracy;
    r->mailbox.push(std::move(row));
    if (r->trainer->state() != train::TrainerState::Running)
      nudge();
  };
  callbacks.onDone = [this, r](const train::RunSummary& summary) {
    if (r->log) {
      r->log->write(train::runLogSummary(r->trainer->session(), summary));
      r->log->flush();
    }
    auto snapshot = std::make_shared<RunSnapshot>();
    snapshot->stepsDone = summary.steps;
    snapshot->totalSteps = r->trainer->totalSteps();
    snapshot->elapsedSeconds = summary.wallSeconds;
    snapshot->finished = true;
    snapshot->summary = summary;
    // The last word on where the step time went: the mean over the whole run
    // (a final snapshot without steps of its own must not read as zero).
    snapshot->meanTimes = meanOpTimes(r->timesInRun, r->stepsInRun);
    r->mailbox.publish(std::move(snapshot));
    nudge();
    if (!r->autosaveBase.empty() && r->stepsInRun > 0) // a run that took no step adds nothing
      autosave(*r);
  };
  return callbacks;
}

// Training thread, once the run has ended: its log (with its configuration)
// and its checkpoint side by side in the run's own folder.
void RunController::autosave(Run& run) {
  const std::filesystem::path log = run.autosaveBase.string() + ".jsonl";
  const std::filesystem::path checkpoint = run.autosaveBase.string() + ".safetensors";
  QString error;
  try {
    std::filesystem::create_directories(run.autosaveBase.parent_path());
    run.log->copyTo(log);
    io::writeFileAtomically(train::configPath(log), train::toJson(run.config).dump(2) + "\n");
    train::saveCheckpoint(run.trainer->session(), checkpoint);
  } catch (const std::exception& e) {
    error = QString::fromLocal8Bit(e.what());
  }
  const QString path = QString::fromStdString(checkpoint.string());
  const std::uint64_t key = run.key;
  QPointer<RunController> self(this);
  // Queued to the GUI thread; a run replaced by then is not reported.
  QMetaObject::invokeMethod(
      this,
      [self, key, path, error] {
        RunController* c = self.data();
        if (!c)
          return;
        for (std::size_t i = 0; i < c->m_runs.size(); ++i)
          if (const auto& r = c->m_runs[i]; r && r->key == key) {
            emit c->autosaved(int(i), path, error);
            break;
          }
        c->pruneAutosaves();
      },
      Qt::QueuedConnection);
}

void RunController::setAutosaveFolder(const QString& folder, int keep) {
  m_autosaveFolder = folder;
  m_autosaveKeep = std::max(1, keep);
}

QString RunController::autosaveDir(int run) const {
  return m_runs.at(std::size_t(run))->autosaveDir;
}

// The autosave folders beyond the newest m_autosaveKeep, oldest first, go;
// only folders named as autosave names them are touched.
void RunController::pruneAutosaves() {
  if (m_autosaveFolder.isEmpty())
    return;
  static const QRegularExpression named(QStringLiteral("^\\d{8}-\\d{6}-(\\d+)-"));
  QDir root(m_autosaveFolder);
  struct Entry {
    QString stamp;
    long long count;
    QString name;
  };
  std::vector<Entry> entries;
  for (const QString& name : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    const QRegularExpressionMatch m = named.match(name);
    if (m.hasMatch())
      entries.push_back({name.left(15), m.captured(1).toLongLong(), name});
  }
  if (int(entries.size()) <= m_autosaveKeep)
    return;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.stamp != b.stamp ? a.stamp < b.stamp : a.count < b.count;
  });
  // Never a folder of a run that is still here (its files may still come).
  QStringList live;
  for (const auto& run : m_runs)
    live << QFileInfo(run->autosaveDir).fileName();
  for (std::size_t i = 0; i + std::size_t(m_autosaveKeep) < entries.size(); ++i)
    if (!live.contains(entries[i].name))
      QDir(root.filePath(entries[i].name)).removeRecursively();
}

QString RunController::checkpointSource(int run) const {
  return m_runs.at(std::size_t(run))->checkpoint;
}

struct RunController::Opened {
  QString path;
  CheckpointUse use = CheckpointUse::Resume;
  std::function<void(const QString&)> done;
  std::unique_ptr<train::Session> session; // null on a problem
  QString error;
  // A resumed run's log so far: the step and evaluation objects of the log
  // beside the checkpoint (<name>.jsonl, as the autosave leaves it) up to
  // the saved step, and what the record makes of them.
  std::vector<nlohmann::json> earlier;
  RunMailbox::Drained drained;
};

namespace {

// The steps and evaluations before `step` of the log at `path`, as the
// record takes them (with a snapshot at `step` of `total`); none when there
// is no such log or it cannot be read (the run then starts its charts at
// its step).
void readEarlierLog(const std::filesystem::path& path, const train::Session& session,
                    std::vector<nlohmann::json>& objects, RunMailbox::Drained& drained) {
  const std::int64_t step = session.stepsDone();
  try {
    std::ifstream in(path);
    train::RunLogBuilder builder;
    builder.add(train::runLogHeader(session));
    std::string line;
    while (in && std::getline(in, line)) {
      if (line.empty())
        continue;
      nlohmann::json object = nlohmann::json::parse(line);
      if (!object.is_object() || object.contains("header") || object.contains("summary") ||
          !object.contains("step") || !object["step"].is_number_integer())
        continue;
      const std::int64_t at = object["step"].get<std::int64_t>();
      if (object.value("eval", false) ? at > step : at >= step)
        continue;
      builder.add(object);
      objects.push_back(std::move(object));
    }
    drained = drainedFromLog(builder.log());
  } catch (const std::exception&) { // a log that does not read: the run goes on without it
    objects.clear();
    drained = {};
  }
  auto snapshot = std::make_shared<RunSnapshot>();
  snapshot->stepsDone = step;
  snapshot->totalSteps = session.totalSteps();
  snapshot->pace = 0.0;
  drained.snapshot = std::move(snapshot);
}

} // namespace

bool RunController::offThread(std::function<void()> work, std::function<void()> then) {
  if (m_opening)
    return false;
  if (m_opener.joinable())
    m_opener.join(); // the last one has handed over its result already
  m_opening = true;
  QPointer<RunController> self(this);
  m_opener = std::jthread([self, work = std::move(work), then = std::move(then)] {
    work(); // worker thread
    if (self) // queued: the result goes to the GUI thread
      QMetaObject::invokeMethod(
          self,
          [self, then] {
            if (RunController* c = self.data()) {
              c->m_opening = false;
              then();
            }
          },
          Qt::QueuedConnection);
  });
  return true;
}

// The exception's message, with the file named when it does not name it.
QString RunController::problemIn(const QString& path, const std::exception& e) {
  const QString message = QString::fromLocal8Bit(e.what());
  return message.contains(path) ? message : QStringLiteral("%1: %2").arg(path, message);
}

bool RunController::inspectCheckpoint(
    const QString& path,
    std::function<void(const std::optional<train::CheckpointInfo>&, const QString&)> done) {
  struct Result {
    std::optional<train::CheckpointInfo> info;
    QString error;
  };
  auto result = std::make_shared<Result>();
  return offThread(
      [path, result] {
        try {
          result->info = train::readCheckpointInfo(QFile::encodeName(path).toStdString());
        } catch (const std::exception& e) {
          result->error = problemIn(path, e);
        }
      },
      [result, done = std::move(done)] { done(result->info, result->error); });
}

bool RunController::openCheckpoint(const QString& path, CheckpointUse use,
                                   std::int64_t totalSteps,
                                   std::function<void(const QString&)> done) {
  auto opened = std::make_shared<Opened>();
  opened->path = path;
  opened->use = use;
  opened->done = std::move(done);
  return offThread(
      [opened, totalSteps] {
        // Worker thread: reads the file, loads the data, restores the state.
        const std::filesystem::path file(QFile::encodeName(opened->path).toStdString());
        try {
          if (opened->use == CheckpointUse::Sample) {
            opened->session = train::openCheckpointForSampling(file);
          } else {
            train::CheckpointInfo info = train::readCheckpointInfo(file);
            if (!info.resumable)
              throw train::CheckpointError(
                  file.string() + ": holds weights only (no " + train::kCheckpointStatePrefix +
                  "* tensors): it cannot resume a run (mantissa-cli train --init-from starts "
                  "one from its weights)");
            if (totalSteps <= info.step)
              throw train::CheckpointError(file.string() + ": the run stopped at step " +
                                           std::to_string(info.step) + "; give a total above " +
                                           std::to_string(info.step) + " steps to train on");
            info.config.steps = totalSteps;
            info.config.epochs = 0;
            auto session = std::make_unique<train::Session>(info.config);
            train::restoreCheckpoint(*session, file, train::RestoreScope::Everything);
            std::filesystem::path log = file;
            log.replace_extension(".jsonl");
            if (std::filesystem::is_regular_file(log))
              readEarlierLog(log, *session, opened->earlier, opened->drained);
            else
              readEarlierLog({}, *session, opened->earlier, opened->drained);
            opened->session = std::move(session);
          }
        } catch (const std::exception& e) {
          opened->session.reset();
          opened->error = problemIn(opened->path, e);
        }
      },
      [this, opened] { addOpened(opened); });
}

// GUI thread: the opened checkpoint joins the runs, or the problem is told.
void RunController::addOpened(const std::shared_ptr<Opened>& opened) {
  if (!opened->session) {
    if (opened->done)
      opened->done(opened->error);
    return;
  }
  if (!m_started) { // built but never started: nothing in them to keep
    std::erase_if(m_runs, [](const auto& run) { return trains(run); });
    m_configs.clear();
  }
  auto run = std::make_unique<Run>();
  Run& r = *run;
  r.id = QStringLiteral("run%1").arg(m_runs.size() + 1);
  r.key = ++m_lastKey;
  r.color = palette::seriesColor(int(m_runs.size()));
  r.config = opened->session->config();
  r.checkpoint = opened->path;
  r.sampleOnly = opened->use == CheckpointUse::Sample;
  const train::Session& session = *opened->session;
  r.name = QString::fromStdString(train::runName(session));
  r.facts = runFacts(session);
  r.baseName = QStringLiteral("%1 · %2").arg(r.name, QFileInfo(opened->path).completeBaseName());
  r.trainer = std::make_unique<train::Trainer>(std::move(opened->session), callbacksFor(r));
  r.trainer->keepServing(true);
  r.trainer->setPace(m_pace);
  m_runs.push_back(std::move(run));
  nameRuns();
  startLog(r);
  for (const nlohmann::json& object : opened->earlier)
    r.log->write(object);
  r.log->flush();
  r.record.apply(std::move(opened->drained));
  m_started = true;
  r.trainer->start(true); // paused at its saved step
  if (r.sampleOnly)
    r.trainer->finish(); // nothing to train: it serves samples
  emit runsChanged();
  emit stateChanged();
  if (opened->done)
    opened->done(QString());
}

void RunController::setPace(double stepsPerSecond) {
  m_pace = stepsPerSecond > 0.0 && std::isfinite(stepsPerSecond) ? stepsPerSecond : 0.0;
  eachThread(m_runs, [&](auto& t) { t.setPace(m_pace); });
}

// Training thread: one row per step; a snapshot and a nudge when due.
void RunController::onTrainerStep(Run& run, const train::StepReport& report) {
  // The session is only touched by this thread, so reading the model is safe here.
  const train::Session& session = run.trainer->session();
  if (run.log)
    run.log->write(train::runLogStep(session, report));
  const auto now = Clock::now();
  if (report.step == 0 || run.firstStep == Clock::time_point{}) {
    run.firstStep = now;
    run.lastPublish = now;
  }
  StepRow row;
  row.step = report.step;
  row.loss = report.loss;
  row.accuracy = report.accuracy;
  row.lr = report.lr;
  row.lossScale = report.lossScale;
  row.gradNorm = report.gradNorm;
  row.stepMs = report.stepMs;
  row.foundInf = report.foundInf;
  row.skipped = report.skipped;
  row.scaler = report.scaler;
  row.times = report.times;
  for (const auto& e : report.scalerEvents)
    if (row.eventCount < int(row.events.size()))
      row.events[std::size_t(row.eventCount++)] = e;
  row.frame = report.telemetry;
  row.shadow = report.shadow;
  row.divergence = report.divergence;

  const model::Network& net = session.model();
  if (net.layers() > 0) { // a GPT has no layer weights to watch
    int layer = 0;
    std::int64_t index = -1;
    {
      std::lock_guard lock(run.watchMutex);
      run.watchLayer = std::clamp(run.watchLayer, 0, net.layers() - 1);
      if (run.findPending) {
        if (const std::int64_t found =
                train::findInBinade(net, run.watchLayer, run.findClass, run.findExponent);
            found >= 0)
          run.watchIndex = found;
        run.findPending = false;
      }
      layer = run.watchLayer;
      index = run.watchIndex;
    }
    row.watch = run.watch.sample(session, report, layer, index);
  }
  run.mailbox.push(std::move(row));

  ++run.stepsSincePublish;
  run.timesSincePublish += report.times;
  run.stepMsSincePublish += report.stepMs;
  ++run.stepsInRun;
  run.timesInRun += report.times;
  const bool force = report.divergence.has_value() || report.step + 1 >= report.totalSteps ||
                     run.trainer->state() != train::TrainerState::Running;
  if (!run.throttle.shouldPublish(report.step, now, force))
    return;
  if (run.log)
    run.log->flush();
  auto snapshot = std::make_shared<RunSnapshot>();
  snapshot->stepsDone = report.step + 1;
  snapshot->totalSteps = report.totalSteps;
  snapshot->elapsedSeconds = std::chrono::duration<double>(now - run.firstStep).count();
  const double interval = std::chrono::duration<double>(now - run.lastPublish).count();
  snapshot->stepsPerSecond = interval > 0 ? double(run.stepsSincePublish) / interval : 0.0;
  snapshot->fullSpeedStepsPerSecond =
      run.stepMsSincePublish > 0.0 ? 1000.0 * double(run.stepsSincePublish) / run.stepMsSincePublish
                                   : 0.0;
  snapshot->pace = run.trainer->pace();
  snapshot->meanTimes = meanOpTimes(run.timesSincePublish, run.stepsSincePublish);
  run.mailbox.publish(std::move(snapshot));
  run.lastPublish = now;
  run.stepsSincePublish = 0;
  run.stepMsSincePublish = 0.0;
  run.timesSincePublish = {};
  nudge();
}

void RunController::nudge() {
  if (m_nudged.exchange(true))
    return; // one nudge in flight is enough: its timer drains everything
  // Queued: runs onNudge on the GUI thread (this object's thread); the trainer
  // thread never touches the timer or any widget.
  m_handoff.post([this] { onNudge(); });
}

void RunController::onNudge() {
  m_nudged = false;
  if (m_drainTimer.isActive())
    return;
  const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(m_lastDrain + m_drainGap -
                                                                          Clock::now());
  m_drainTimer.start(std::max(kMinDrainInterval, wait));
}

// GUI-thread CPU time, or -1 where the platform has no per-thread clock.
double RunController::guiCpuSeconds() {
#if defined(CLOCK_THREAD_CPUTIME_ID)
  timespec t{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0)
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
#endif
  return -1.0;
}

void RunController::drain() {
  // Pace the drains so the GUI thread (this drain, the redraw it triggers, the
  // paints, and anything else it did since the last one) stays within
  // kGuiShare of one core: the trainers share the machine's cores with it.
  const double cpu = guiCpuSeconds();
  if (cpu >= 0.0 && m_lastDrainCpu >= 0.0) {
    const auto gap = std::chrono::duration<double>((cpu - m_lastDrainCpu) / kGuiShare);
    m_drainGap = std::clamp(std::chrono::duration_cast<std::chrono::milliseconds>(gap),
                            kMinDrainInterval, kMaxDrainInterval);
  }
  m_lastDrainCpu = cpu;
  m_lastDrain = Clock::now();
  const State before = state();
  bool any = false;
  for (auto& run : m_runs)
    any = run->record.apply(run->mailbox.drain()) || any;
  if (any)
    emit updated();
  if (state() != before || any)
    emit stateChanged();
}

void RunController::drainNow() {
  drain();
}

void RunController::joinAll() {
  eachThread(m_runs, [](auto& t) { t.stop(); });
  eachThread(m_runs, [](auto& t) { t.wait(); });
}

QString RunController::loadRun(const QString& path) {
  std::shared_ptr<const train::RunLog> log;
  RunFacts facts;
  RunMailbox::Drained drained;
  try {
    log = std::make_shared<const train::RunLog>(
        train::loadRunLog(QFile::encodeName(path).toStdString()));
    facts = runFacts(*log);
    drained = drainedFromLog(*log);
  } catch (const std::exception& e) { // RunLogError names the file, line and field
    return QString::fromStdString(e.what());
  }
  if (!m_started) { // built but never started: nothing in them to keep
    std::erase_if(m_runs, [](const auto& run) { return trains(run); });
    m_configs.clear();
  }
  auto run = std::make_unique<Run>();
  run->id = QStringLiteral("run%1").arg(m_runs.size() + 1);
  run->key = ++m_lastKey;
  run->baseName = QStringLiteral("%1 · %2").arg(QString::fromStdString(log->name()),
                                                QFileInfo(path).completeBaseName());
  run->color = palette::seriesColor(int(m_runs.size()));
  run->config = log->config.value_or(train::RunConfig{});
  run->facts = std::move(facts);
  run->source = path;
  run->record.apply(std::move(drained));
  run->loaded = std::move(log);
  m_runs.push_back(std::move(run));
  nameRuns();
  emit runsChanged();
  emit stateChanged();
  emit updated();
  return {};
}

QString RunController::followRun(const QString& path) {
  auto follower = std::make_unique<RunFollower>(path);
  if (!follower->start())
    return follower->error();
  if (!m_started) {
    std::erase_if(m_runs, [](const auto& run) { return trains(run); });
    m_configs.clear();
  }
  auto run = std::make_unique<Run>();
  Run* r = run.get();
  run->id = QStringLiteral("run%1").arg(m_runs.size() + 1);
  run->key = ++m_lastKey;
  run->color = palette::seriesColor(int(m_runs.size()));
  run->source = path;
  // The follower's log, not owned (the follower lives as long as the run).
  run->loaded = std::shared_ptr<const train::RunLog>(std::shared_ptr<void>(), &follower->log());
  run->follower = std::move(follower);
  attachFollower(r);
  m_runs.push_back(std::move(run));
  nameRuns();
  emit runsChanged();
  emit stateChanged();
  emit updated();
  return {};
}

// The record of a followed log: grows with the file another process writes.
void RunController::attachFollower(Run* r) {
  const auto refreshFacts = [this, r] {
    const train::RunLog& log = r->follower->log();
    r->baseName = QStringLiteral("%1 · %2").arg(
        QString::fromStdString(log.header.is_null() && !log.summary.is_object() ? "following"
                                                                                : log.name()),
        QFileInfo(r->follower->path()).completeBaseName());
    r->config = log.config.value_or(train::RunConfig{});
    r->facts = runFacts(log);
    nameRuns();
  };
  refreshFacts();
  r->record.apply(r->follower->takeNew());
  connect(r->follower.get(), &RunFollower::grew, this, [this, r, refreshFacts] {
    const RunFacts before = r->facts;
    const QString name = r->name;
    refreshFacts();
    r->record.apply(r->follower->takeNew());
    if (name != r->name || before.layerNames != r->facts.layerNames ||
        before.widths != r->facts.widths || before.opRows.size() != r->facts.opRows.size())
      emit runsChanged();
    emit stateChanged();
    emit updated();
  });
  connect(r->follower.get(), &RunFollower::problem, this, [this, r](const QString& message) {
    for (std::size_t i = 0; i < m_runs.size(); ++i)
      if (m_runs[i].get() == r)
        emit followStopped(int(i), message);
  });
}

bool RunController::isGpt(int run) const {
  const Run& r = *m_runs.at(std::size_t(run));
  return r.trainer && r.trainer->session().isText();
}

bool RunController::hasGptRuns() const {
  for (int i = 0; i < runCount(); ++i)
    if (isGpt(i))
      return true;
  return false;
}

bool RunController::saveCheckpoint(int run, const QString& path,
                                   std::function<void(const QString&)> done) {
  if (run < 0 || std::size_t(run) >= m_runs.size())
    return false;
  Run& r = *m_runs[std::size_t(run)];
  if (!r.trainer || r.trainer->state() == train::TrainerState::Ready)
    return false;
  QPointer<RunController> self(this);
  const std::string file = QFile::encodeName(path).toStdString();
  return r.trainer->visit([self, done = std::move(done), file](const train::Session& session) {
    // Training thread, between two steps.
    QString error;
    try {
      train::saveCheckpoint(session, file);
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
    if (self)
      QMetaObject::invokeMethod(
          self,
          [self, done, error] {
            if (self)
              done(error);
          },
          Qt::QueuedConnection);
  });
}

int RunController::requestShadow(train::ShadowPrecision precision,
                                 std::function<void(int, const QString&)> refused) {
  int asked = 0;
  QPointer<RunController> self(this);
  for (std::size_t i = 0; i < m_runs.size(); ++i) {
    Run& r = *m_runs[i];
    if (!r.trainer || r.sampleOnly)
      continue;
    const auto state = r.trainer->state();
    if (state != train::TrainerState::Running && state != train::TrainerState::Paused)
      continue;
    const std::uint64_t key = r.key;
    const bool ok = r.trainer->requestShadow(precision, [self, refused, key](std::string why) {
      // Training thread: the message goes to the GUI thread, to the run of
      // that key if it is still there.
      const QString text = QString::fromStdString(why);
      if (self)
        QMetaObject::invokeMethod(
            self,
            [self, refused, key, text] {
              RunController* controller = self.data();
              if (controller == nullptr || !refused)
                return;
              const int runs = controller->runCount();
              for (int run = 0; run < runs; ++run)
                if (controller->runKey(run) == key)
                  refused(run, text);
            },
            Qt::QueuedConnection);
    });
    asked += ok ? 1 : 0;
  }
  return asked;
}

bool RunController::sampleGpt(int run, int characters, double temperature, std::uint64_t seed,
                              std::function<void(const QString&)> done) {
  Run& r = *m_runs.at(std::size_t(run));
  if (!r.trainer || r.trainer->state() == train::TrainerState::Ready)
    return false;
  QPointer<RunController> self(this);
  return r.trainer->sample(characters, temperature, seed,
                           [self, done = std::move(done)](std::string text) {
                             // Training thread: the text goes to the GUI thread; a controller gone
                             // by then (its runs joined first) drops it.
                             const QString t = QString::fromStdString(text);
                             if (self)
                               QMetaObject::invokeMethod(
                                   self,
                                   [self, done, t] {
                                     if (self)
                                       done(t);
                                   },
                                   Qt::QueuedConnection);
                           });
}

namespace {

TensorSnapshot copyTensor(const train::Session& session, int layer, telemetry::TensorClass cls) {
  const model::Network& net = session.model();
  const Tensor& t = cls == telemetry::TensorClass::WeightGrads ? net.grads()[std::size_t(layer)].w
                                                               : net.params()[std::size_t(layer)].w;
  TensorSnapshot out;
  out.layer = layer;
  out.cls = cls;
  out.stepsDone = session.stepsDone();
  out.rows = t.rows();
  out.cols = t.cols();
  const std::span<const float> v = t.f32();
  out.values.assign(v.begin(), v.end());
  return out;
}

} // namespace

bool RunController::requestTensor(int run, int layer, telemetry::TensorClass cls,
                                  std::function<void(const TensorSnapshot&)> done) {
  if (run < 0 || run >= runCount())
    return false;
  Run& r = *m_runs[std::size_t(run)];
  if (!r.trainer ||
      (cls != telemetry::TensorClass::Weights && cls != telemetry::TensorClass::WeightGrads))
    return false;
  if (layer < 0 || layer >= r.trainer->session().model().layers())
    return false;
  const QString subject =
      tr("%1 · layer %2 %3")
          .arg(r.name)
          .arg(layer)
          .arg(cls == telemetry::TensorClass::Weights ? tr("weights") : tr("weight gradients"));
  const auto finish = [run, subject](TensorSnapshot s) {
    s.run = run;
    s.subject = subject;
    return s;
  };
  if (r.trainer->state() == train::TrainerState::Ready) { // no thread yet: the session is ours
    done(finish(copyTensor(r.trainer->session(), layer, cls)));
    return true;
  }
  QPointer<RunController> self(this);
  const bool posted =
      r.trainer->visit([self, layer, cls, finish, done](const train::Session& session) {
        // Training thread: the copy goes to the GUI thread.
        auto snapshot = std::make_shared<TensorSnapshot>(finish(copyTensor(session, layer, cls)));
        if (self)
          QMetaObject::invokeMethod(
              self,
              [self, done, snapshot] {
                if (self)
                  done(*snapshot);
              },
              Qt::QueuedConnection);
      });
  if (!posted) { // the thread has ended (shut down): join it, then the session is ours
    r.trainer->wait();
    done(finish(copyTensor(r.trainer->session(), layer, cls)));
  }
  return true;
}

bool RunController::isFollowing(int run) const {
  const Run& r = *m_runs.at(std::size_t(run));
  return r.follower && r.follower->following();
}

const RunFollower* RunController::follower(int run) const {
  return m_runs.at(std::size_t(run))->follower.get();
}

QString RunController::followError(int run) const {
  const Run& r = *m_runs.at(std::size_t(run));
  return r.follower ? r.follower->error() : QString();
}

bool RunController::isLoaded(int run) const {
  return m_runs.at(std::size_t(run))->loaded != nullptr;
}

int RunController::loadedCount() const {
  return int(std::count_if(m_runs.begin(), m_runs.end(),
                           [](const auto& run) { return run->loaded != nullptr; }));
}

QString RunController::runSource(int run) const {
  return m_runs.at(std::size_t(run))->source;
}

QString RunController::saveRun(int run, const QString& path) const {
  const Run& r = *m_runs.at(std::size_t(run));
  const std::filesystem::path target(QFile::encodeName(path).toStdString());
  try {
    if (r.loaded) {
      train::saveRun(*r.loaded, target);
    } else {
      r.log->copyTo(target);
      io::writeFileAtomically(train::configPath(target), train::toJson(r.config).dump(2) + "\n");
    }
  } catch (const std::exception& e) { // AtomicFileError names the path and the reason
    return QString::fromLocal8Bit(e.what());
  }
  return {};
}

std::optional<train::RunLog> RunController::runLog(int run, QString* error) const {
  const Run& r = *m_runs.at(std::size_t(run));
  if (r.loaded)
    return *r.loaded;
  try {
    return r.log->parse(r.name.toStdString());
  } catch (const std::exception& e) {
    if (error)
      *error = QString::fromLocal8Bit(e.what());
  }
  return std::nullopt;
}

QString RunController::runId(int run) const {
  return m_runs.at(std::size_t(run))->id;
}
QString RunController::runName(int run) const {
  return m_runs.at(std::size_t(run))->name;
}
QString RunController::runSettings(int run) const {
  QStringList lines;
  for (const auto& [key, value] : settingTexts(m_runs.at(std::size_t(run))->config))
    lines << QStringLiteral("%1: %2").arg(QString::fromStdString(key), value);
  return lines.join(u'\n');
}
std::uint64_t RunController::runKey(int run) const {
  return m_runs.at(std::size_t(run))->key;
}

void RunController::nameRuns() {
  std::vector<RunNaming> naming;
  naming.reserve(m_runs.size());
  for (const auto& run : m_runs) {
    RunNaming n;
    // What Setup has no field for, in the title (the underflow preset's
    // "loss × 2^-14").
    n.base = withSettingsBeyondSetup(run->baseName.isEmpty() ? run->name : run->baseName, run->config);
    n.settings = settingTexts(run->config);
    n.settings["scaler"] = run->facts.scalerPreset; // what scales the loss; "" for none
    naming.push_back(std::move(n));
  }
  const std::vector<QString> names = distinctRunNames(naming);
  for (std::size_t i = 0; i < m_runs.size(); ++i)
    m_runs[i]->name = names[i];
}
QColor RunController::runColor(int run) const {
  return m_runs.at(std::size_t(run))->color;
}
const train::RunConfig& RunController::config(int run) const {
  return m_runs.at(std::size_t(run))->config;
}
const RunFacts& RunController::facts(int run) const {
  return m_runs.at(std::size_t(run))->facts;
}
const train::Session& RunController::session(int run) const {
  const Run& r = *m_runs.at(std::size_t(run));
  if (!r.trainer)
    throw std::logic_error("RunController::session: run " + r.id.toStdString() +
                           " was loaded from a file and has no session");
  return r.trainer->session();
}
const RunRecord& RunController::record(int run) const {
  return m_runs.at(std::size_t(run))->record;
}
train::TrainerState RunController::trainerState(int run) const {
  const Run& r = *m_runs.at(std::size_t(run));
  return r.trainer ? r.trainer->state() : train::TrainerState::Finished;
}

RunController::State RunController::state() const {
  if (m_runs.empty())
    return State::Empty;
  if (loadedCount() == runCount())
    return State::Finished; // loaded runs only: complete records, nothing to train
  if (!m_started)
    return State::Ready;
  bool anyRunning = false, allFinished = true;
  for (const auto& run : m_runs) {
    if (!trains(run))
      continue;
    const auto s = run->trainer->state();
    anyRunning = anyRunning || s == train::TrainerState::Running;
    allFinished = allFinished && s == train::TrainerState::Finished;
  }
  if (allFinished)
    return State::Finished;
  return anyRunning ? State::Running : State::Paused;
}

void RunController::start() {
  if (m_started || m_runs.empty())
    return;
  m_started = true;
  eachThread(m_runs, [](auto& t) { t.start(false); });
  emit stateChanged();
}

void RunController::pause() {
  eachThread(m_runs, [](auto& t) { t.pause(); });
  emit stateChanged();
  m_drainTimer.start(); // pick up the rows of steps that were in flight
}

void RunController::resume() {
  eachThread(m_runs, [](auto& t) { t.resume(); });
  emit stateChanged();
}

void RunController::togglePause() {
  switch (state()) {
  case State::Ready: start(); break;
  case State::Running: pause(); break;
  case State::Paused: resume(); break;
  default: break;
  }
}

void RunController::stepOnce() {
  if (m_runs.empty() || loadedCount() == runCount())
    return;
  if (!m_started) {
    m_started = true;
    eachThread(m_runs, [](auto& t) { t.start(true); });
  } else if (state() == State::Running) {
    pause();
  }
  eachThread(m_runs, [](auto& t) { t.stepOnce(); });
  emit stateChanged();
}

void RunController::stop() {
  // Each thread stays, serving tensor copies and samples, until the runs are replaced.
  eachThread(m_runs, [](auto& t) { t.finish(); });
  m_drainTimer.start();
}

void RunController::reset() {
  joinAll();
  const auto configs = m_configs;
  setRuns(configs);
}

void RunController::shutdown() {
  joinAll();
  drain();
}

void RunController::setWatch(int run, int layer, std::int64_t index) {
  Run& r = *m_runs.at(std::size_t(run));
  std::lock_guard lock(r.watchMutex);
  r.watchLayer = layer;
  r.watchIndex = index;
  r.findPending = false;
}

void RunController::watchInBinade(int run, int layer, telemetry::TensorClass cls, int exponent) {
  Run& r = *m_runs.at(std::size_t(run));
  std::lock_guard lock(r.watchMutex);
  r.watchLayer = layer;
  r.findPending = true;
  r.findClass = cls;
  r.findExponent = exponent;
}

} // namespace mantissa::ui
