// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Follows a JSONL run log that another process is still writing (a PyTorch
// tap, `mantissa-cli train --log`): what has been written is read at once,
// then each complete new line as it arrives. QFileSystemWatcher says when the
// file changes; a poll timer catches what the watcher misses (network file
// systems, watches the system ran out of). A last line without its newline
// is a record still being written: it waits for the rest. A file that
// shrinks (truncated), is replaced by another file or removed stops the
// following with a problem() message; the run read so far is kept. So does a
// complete line that is not a valid record (named by file and line).
//
// The file is read as Open Run reads one (io/regular_file.h): a FIFO, device
// or socket is refused at start() without blocking in open(); the run log
// limits hold (kMaxRunLogBytes in all, kMaxRunLogLineBytes per line, a line
// that never ends included), and passing one stops the following.

#include "ui/bridge/run_data.h"

#include <mantissa/train/run_log_stream.h>

#include <QObject>
#include <QString>
#include <QTimer>

#include <cstdint>
#include <memory>
#include <optional>

class QFileSystemWatcher;

namespace mantissa::io {
class RegularFile;
}

namespace mantissa::ui {

class RunFollower : public QObject {
  Q_OBJECT
public:
  // Reads what `path` holds now. Call start() to follow it; error() says why
  // not when the file cannot be opened.
  explicit RunFollower(QString path, QObject* parent = nullptr);
  ~RunFollower() override;

  bool start();                          // false (error() set) if the file cannot be read
  void poll();                           // reads what is new now (the timer calls it)
  bool following() const { return m_following; }
  QString error() const { return m_error; } // why following stopped; "" while it goes on
  const QString& path() const { return m_path; }
  const train::RunLog& log() const { return m_stream.log(); }
  std::int64_t bytesRead() const { return m_offset; }
  bool waitingForLineEnd() const { return m_stream.waitingForLineEnd(); }

  // The rows (and a snapshot) of everything read since the last call, for
  // RunRecord::apply(); the snapshot is finished once the summary was read.
  RunMailbox::Drained takeNew();

  void setPollInterval(int ms) { m_timer.setInterval(ms); }

signals:
  void grew();                           // new complete records were read
  void problem(const QString& message);  // following stopped; the run so far is kept

private:
  void stop(const QString& message);
  bool sameFile() const;

  QString m_path;
  QFileSystemWatcher* m_watcher = nullptr;
  std::unique_ptr<io::RegularFile> m_file; // open from start() on
  QTimer m_timer;
  train::RunLogStream m_stream;
  std::int64_t m_offset = 0;    // bytes read from the file
  std::uint64_t m_inode = 0;
  std::uint64_t m_device = 0;
  bool m_following = false;
  QString m_error;
  // How much of the log takeNew() has handed over.
  std::size_t m_stepsTaken = 0, m_evalsTaken = 0, m_framesTaken = 0;
  std::size_t m_shadowTaken = 0;
  bool m_summaryTaken = false;
  std::optional<train::RunSummary> m_summary;
  model::OpTimes m_totalTimes;
  double m_wallSeconds = 0.0;
};

} // namespace mantissa::ui
