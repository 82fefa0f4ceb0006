// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "run_outputs.h"

#include <mantissa/data/dataset.h>
#include <mantissa/data/text.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <utility>

namespace mantissa::cli {

JsonlLog::JsonlLog(const std::string& path) : m_path(path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
  m_created = fd >= 0;
  if (fd < 0 && errno == EEXIST)
    fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    m_openError = std::strerror(errno);
    return;
  }
  m_file = ::fdopen(fd, "w");
  if (!m_file) {
    m_openError = std::strerror(errno);
    ::close(fd);
  }
}

JsonlLog::~JsonlLog() {
  if (m_file)
    std::fclose(m_file);
  if (m_created && !m_started) // refused before it started: leave no empty log behind
    ::unlink(m_path.c_str());
}

void JsonlLog::start() {
  m_started = true;
  struct stat st {};
  if (m_file && ::fstat(::fileno(m_file), &st) == 0 && S_ISREG(st.st_mode) &&
      ::ftruncate(::fileno(m_file), 0) != 0 && m_error.empty())
    m_error = std::strerror(errno);
}

void JsonlLog::write(const nlohmann::json& j) {
  if (!m_file)
    return;
  const std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if ((std::fwrite(line.data(), 1, line.size(), m_file) != line.size() ||
       std::fflush(m_file) != 0) &&
      m_error.empty())
    m_error = std::strerror(errno);
}

namespace {

// dev/inode of an existing path (following symlinks), if any.
std::optional<std::pair<dev_t, ino_t>> fileId(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return std::nullopt;
  return std::make_pair(st.st_dev, st.st_ino);
}

} // namespace

// The files a run reads: --config, and for a --data path the path itself, every
// file of a data directory, or every file beside an IDX file (its labels and
// test set are found there).
std::vector<std::string> inputFiles(const std::optional<std::string>& config,
                                    const std::string& data) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  if (config)
    out.push_back(*config);
  std::error_code ec;
  const auto builtins = data::builtinNames();
  if (std::find(builtins.begin(), builtins.end(), data) != builtins.end() ||
      data::isBuiltinText(data))
    return out;
  out.push_back(data);
  fs::path dir;
  const fs::path ext = fs::path(data).extension();
  if (fs::is_directory(data, ec))
    dir = data;
  else if (ext != ".csv" && ext != ".txt") // a CSV or a text is one file
    dir = fs::path(data).parent_path().empty() ? fs::path(".") : fs::path(data).parent_path();
  if (!dir.empty()) {
    std::size_t n = 0;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator() &&
                                                    n < 10000;
         it.increment(ec), ++n)
      out.push_back(it->path().string());
  }
  return out;
}

// "" when `path` is none of the inputs, else the input it is.
std::string inputAt(const std::string& path, const std::vector<std::string>& inputs) {
  const auto id = fileId(path);
  if (!id)
    return {};
  for (const auto& in : inputs)
    if (fileId(in) == id)
      return in;
  return {};
}

std::unique_ptr<JsonlLog> openRunLog(const std::string& path,
                                     const std::vector<std::string>& inputs) {
  if (const std::string in = inputAt(path, inputs); !in.empty()) {
    std::cerr << "mantissa-cli train: --log: '" << path << "' is the input '" << in
              << "'; choose another file\n";
    return nullptr;
  }
  auto log = std::make_unique<JsonlLog>(path);
  if (!log->ok()) {
    std::cerr << "mantissa-cli train: --log: cannot write '" << path << "': " << log->openError()
              << "\n";
    return nullptr;
  }
  return log;
}

// Checks that files can be created in dir (creating it if needed): a probe file
// made with O_EXCL and removed again. "" when they can, else the reason.
std::string checkWritableDirectory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return ec.message();
  if (!std::filesystem::is_directory(dir, ec))
    return "not a directory";
  const std::string probe =
      (std::filesystem::path(dir) / (".mantissa-probe-" + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}

} // namespace mantissa::cli
