// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/bridge/live_run_log.h"

#include <mantissa/io/atomic_file.h>
#include <mantissa/io/json_text.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

namespace mantissa::ui {

namespace {

constexpr std::size_t kBufferBytes = 64 * 1024;

} // namespace

LiveRunLog::LiveRunLog(std::filesystem::path path) : m_path(std::move(path)) {
  m_file = std::fopen(m_path.c_str(), "wb");
  if (!m_file)
    m_error = "cannot create '" + m_path.string() + "': " + std::strerror(errno);
}

LiveRunLog::~LiveRunLog() {
  if (m_file)
    std::fclose(m_file);
  std::error_code ignored;
  std::filesystem::remove(m_path, ignored);
}

void LiveRunLog::write(const nlohmann::json& object) {
  std::string line = object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line += '\n';
  std::lock_guard lock(m_mutex);
  if (!m_error.empty())
    return;
  m_pending += line;
  if (m_pending.size() >= kBufferBytes)
    flushLocked();
}

void LiveRunLog::flush() {
  std::lock_guard lock(m_mutex);
  flushLocked();
}

void LiveRunLog::flushLocked() {
  if (!m_error.empty() || m_pending.empty())
    return;
  // A failed write may leave part of a line in the file: m_written stays at
  // the last complete line and nothing more is written.
  if (std::fwrite(m_pending.data(), 1, m_pending.size(), m_file) != m_pending.size() ||
      std::fflush(m_file) != 0) {
    m_error = "cannot write '" + m_path.string() + "': " + std::strerror(errno);
    return;
  }
  m_written += m_pending.size();
  m_pending.clear();
}

std::string LiveRunLog::error() const {
  std::lock_guard lock(m_mutex);
  return m_error;
}

std::uint64_t LiveRunLog::flushedBytes() const {
  std::lock_guard lock(m_mutex);
  const_cast<LiveRunLog*>(this)->flushLocked();
  if (!m_error.empty())
    throw io::AtomicFileError("the run's log is incomplete: " + m_error);
  return m_written;
}

std::string LiveRunLog::contents() const {
  const std::uint64_t size = flushedBytes();
  // The file only grows: its first `size` bytes are complete lines whatever
  // the training thread appends meanwhile.
  std::ifstream in(m_path, std::ios::binary);
  std::string text(size, '\0');
  if (!in.read(text.data(), std::streamsize(size)))
    throw io::AtomicFileError("cannot read the run's log '" + m_path.string() + "'");
  return text;
}

train::RunLog LiveRunLog::parse(const std::string& name) const {
  const std::string text = contents();
  train::RunLogBuilder builder;
  std::size_t begin = 0;
  std::size_t lineNo = 0;
  while (begin < text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    ++lineNo;
    builder.add(io::parseJsonText(std::string_view(text).substr(begin, end - begin)),
                name + ":" + std::to_string(lineNo));
    begin = end + 1;
  }
  train::RunLog log = builder.take();
  log.source = name;
  return log;
}

void LiveRunLog::copyTo(const std::filesystem::path& path) const {
  const std::uint64_t size = flushedBytes();
  std::ifstream in(m_path, std::ios::binary);
  if (!in)
    throw io::AtomicFileError("cannot read the run's log '" + m_path.string() + "'");
  io::AtomicFileWriter out(path);
  std::array<char, 1 << 16> chunk{};
  for (std::uint64_t left = size; left > 0;) {
    const auto n = std::streamsize(std::min<std::uint64_t>(left, chunk.size()));
    if (!in.read(chunk.data(), n))
      throw io::AtomicFileError("cannot read the run's log '" + m_path.string() + "'");
    out.stream().write(chunk.data(), n);
    left -= std::uint64_t(n);
  }
  out.commit();
}

} // namespace mantissa::ui
