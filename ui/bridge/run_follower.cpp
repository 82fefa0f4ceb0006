// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/bridge/run_follower.h"

#include "ui/bridge/run_loader.h"

#include <mantissa/io/regular_file.h>

#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>

#include <sys/stat.h>

#include <algorithm>
#include <exception>
#include <string_view>

namespace mantissa::ui {

namespace {

constexpr int kPollMs = 250;
constexpr qint64 kMaxReadPerPoll = qint64(64) << 20; // a huge backlog arrives over several polls

struct FileId {
  bool exists = false;
  std::uint64_t device = 0, inode = 0;
  std::int64_t size = 0;
};

FileId fileId(const QString& path) {
  struct stat st {};
  if (::stat(QFile::encodeName(path).constData(), &st) != 0)
    return {};
  return {true, std::uint64_t(st.st_dev), std::uint64_t(st.st_ino), std::int64_t(st.st_size)};
}

} // namespace

RunFollower::RunFollower(QString path, QObject* parent)
    : QObject(parent), m_path(std::move(path)), m_stream(QFile::encodeName(m_path).toStdString()) {
  m_timer.setInterval(kPollMs);
  connect(&m_timer, &QTimer::timeout, this, &RunFollower::poll);
}

RunFollower::~RunFollower() = default;

bool RunFollower::start() {
  try {
    m_file = std::make_unique<io::RegularFile>(QFile::encodeName(m_path).toStdString(), "run log");
  } catch (const io::FileReadError& e) { // names the file and why
    m_error = tr("Cannot follow: %1").arg(QString::fromStdString(e.what()));
    return false;
  }
  m_device = m_file->device();
  m_inode = m_file->inode();
  m_following = true;
  m_watcher = new QFileSystemWatcher(this);
  m_watcher->addPath(m_path);
  connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &RunFollower::poll);
  m_timer.start();
  poll();
  return true;
}

void RunFollower::stop(const QString& message) {
  m_following = false;
  m_timer.stop();
  if (m_watcher)
    m_watcher->removePaths(m_watcher->files());
  m_error = message;
  emit problem(message);
}

void RunFollower::poll() {
  if (!m_following)
    return;
  const FileId id = fileId(m_path);
  if (!id.exists) {
    stop(tr("'%1' was removed; following stopped, the run so far is kept").arg(m_path));
    return;
  }
  if (id.device != m_device || id.inode != m_inode) {
    stop(tr("'%1' was replaced by another file; following stopped, the run so far is kept")
             .arg(m_path));
    return;
  }
  if (id.size < m_offset) {
    stop(tr("'%1' was truncated (%2 bytes, %3 were read); following stopped, the run so far is "
            "kept")
             .arg(m_path)
             .arg(id.size)
             .arg(m_offset));
    return;
  }
  if (id.size == m_offset)
    return;
  if (std::uintmax_t(id.size) > train::kMaxRunLogBytes) {
    stop(tr("'%1' grew to %2 bytes, over the limit of %3 MiB for run logs; following stopped, "
            "the run so far is kept")
             .arg(m_path)
             .arg(id.size)
             .arg(train::kMaxRunLogBytes >> 20));
    return;
  }
  std::string bytes;
  std::size_t added = 0;
  try {
    bytes = m_file->readAt(std::uintmax_t(m_offset),
                           std::size_t(std::min<qint64>(id.size - m_offset, kMaxReadPerPoll)));
    if (bytes.empty())
      return;
    m_offset += qint64(bytes.size());
    added = m_stream.feed(bytes);
  } catch (const std::exception& e) { // RunLogError names the file and line
    stop(tr("%1; following stopped, the run so far is kept").arg(QString::fromUtf8(e.what())));
    emit grew(); // the records before the bad line
    return;
  }
  if (id.size > m_offset)
    QTimer::singleShot(0, this, &RunFollower::poll); // the rest of a large backlog
  if (added > 0)
    emit grew();
}

RunMailbox::Drained RunFollower::takeNew() {
  const train::RunLog& log = m_stream.log();
  train::RunLog delta;
  delta.source = m_path.toStdString();
  delta.header = log.header;
  delta.config = log.config;
  delta.steps.assign(log.steps.begin() + std::ptrdiff_t(m_stepsTaken), log.steps.end());
  delta.evals.assign(log.evals.begin() + std::ptrdiff_t(m_evalsTaken), log.evals.end());
  delta.frames.assign(log.frames.begin() + std::ptrdiff_t(m_framesTaken), log.frames.end());
  delta.shadow.assign(log.shadow.begin() + std::ptrdiff_t(m_shadowTaken), log.shadow.end());
  const bool summaryNow = log.summary.is_object() && !m_summaryTaken;
  if (summaryNow)
    delta.summary = log.summary;
  m_stepsTaken = log.steps.size();
  m_evalsTaken = log.evals.size();
  m_framesTaken = log.frames.size();
  m_shadowTaken = log.shadow.size();
  m_summaryTaken = m_summaryTaken || summaryNow;

  RunMailbox::Drained drained = drainedFromLog(delta);
  for (const StepRow& row : drained.rows)
    if (row.kind != StepRow::Kind::Eval) {
      m_totalTimes += row.times;
      m_wallSeconds += row.stepMs / 1000.0;
    }
  auto snapshot = std::make_shared<RunSnapshot>(*drained.snapshot);
  snapshot->stepsDone = log.steps.empty() ? 0 : log.steps.back().step + 1;
  snapshot->totalSteps = runFacts(log).totalSteps;
  snapshot->meanTimes = meanOpTimes(m_totalTimes, std::int64_t(log.steps.size()));
  snapshot->finished = m_summaryTaken;
  if (summaryNow)
    m_summary = snapshot->summary;
  else
    snapshot->elapsedSeconds = m_wallSeconds;
  snapshot->summary = m_summary;
  drained.snapshot = std::move(snapshot);
  return drained;
}

} // namespace mantissa::ui
