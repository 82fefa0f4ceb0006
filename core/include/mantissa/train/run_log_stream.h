// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A JSONL run log read as it grows (a log another process is still writing):
// bytes arrive in any pieces; every complete line is parsed as loadRunLog()
// parses it, and bytes after the last newline wait for the rest of their
// line. Feeding a log in pieces gives the same RunLog as feeding it whole.

#include <mantissa/train/run_log.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace mantissa::train {

class RunLogStream {
public:
  // `name` prefixes messages ("run.jsonl:12: ...").
  explicit RunLogStream(std::string name) : m_name(std::move(name)) {}

  // Adds bytes and parses every line they complete; returns how many records
  // were added. A complete line that is not a record throws RunLogError
  // naming the file and line; the stream then stays failed (later calls
  // throw the same error) and log() keeps the records before that line.
  std::size_t feed(std::string_view bytes);

  const RunLog& log() const { return m_builder.log(); }
  std::int64_t lines() const { return m_lines; }         // complete lines read
  bool waitingForLineEnd() const { return !m_partial.empty(); }
  bool failed() const { return !m_error.empty(); }

private:
  std::string m_name;
  RunLogBuilder m_builder;
  std::string m_partial; // bytes after the last newline
  std::int64_t m_lines = 0;
  std::string m_error;
};

} // namespace mantissa::train
