// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "run_outputs.h"

#include <mantissa/data/dataset.h>
#include <mantissa/data/file_kind.h>
#include <mantissa/data/text.h>
#include <mantissa/io/atomic_file.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <utility>

namespace mantissa::cli {

namespace {

// Paths the system makes (/dev/stdout, /proc/self/fd/1): written as they are.
bool systemPath(const std::string& path) {
  return path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0;
}

} // namespace

JsonlLog::JsonlLog(const std::string& path) : m_path(path) {
  namespace fs = std::filesystem;
  std::string target = path;
  if (!systemPath(path)) {
    // The atomic writer's rule: a symlink owned by another user (planted in
    // a folder others can write to) is never followed.
    try {
      target = io::writeTarget(path, /*allowSpecial=*/true).string();
    } catch (const io::AtomicFileError& e) {
      const std::string what = e.what();
      const auto colon = what.find("': ");
      m_openError = colon == std::string::npos ? what : what.substr(colon + 3);
      return;
    }
  }
  struct stat st {};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (systemPath(path) || (exists && !S_ISREG(st.st_mode))) {
    // A FIFO, a terminal or /dev/stdout: written as it is.
    const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
      m_openError = std::strerror(errno);
      return;
    }
    m_direct = true;
    m_file = ::fdopen(fd, "w");
    if (!m_file) {
      m_openError = std::strerror(errno);
      ::close(fd);
    }
    return;
  }
  // A regular file: the rows go to a temporary file beside it, renamed over
  // it once the first row is written, so an earlier log survives a run
  // refused before it starts or a disk too full for that row.
  if (exists && ::access(target.c_str(), W_OK) != 0) {
    m_openError = std::strerror(errno);
    return;
  }
  const fs::path dir = fs::path(target).parent_path();
  std::string temp = ((dir.empty() ? fs::path(".") : dir) /
                      ("." + fs::path(target).filename().string().substr(0, 200) + ".XXXXXX"))
                         .string();
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC); // O_EXCL: never an existing file or link
  if (fd < 0) {
    m_openError = std::strerror(errno);
    return;
  }
  // An existing log keeps its permission bits; a new one gets 0666 less the umask.
  mode_t mode = 0;
  if (exists) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  (void)::fchmod(fd, mode);
  m_tempPath = temp;
  m_target = target;
  m_hadFile = exists;
  m_file = ::fdopen(fd, "w");
  if (!m_file) {
    m_openError = std::strerror(errno);
    ::close(fd);
    ::unlink(m_tempPath.c_str());
    m_tempPath.clear();
  }
}

JsonlLog::~JsonlLog() {
  if (m_file)
    std::fclose(m_file);
  if (!m_tempPath.empty()) // never written: whatever was at the path stays as it was
    ::unlink(m_tempPath.c_str());
}

void JsonlLog::start() {
  // A regular file reached as /dev/stdout (a redirection) starts empty.
  struct stat st {};
  if (m_direct && m_file && ::fstat(::fileno(m_file), &st) == 0 && S_ISREG(st.st_mode) &&
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
  if (m_tempPath.empty())
    return;
  // The first row: the new log replaces the old one only once it holds it.
  if (m_error.empty() && ::rename(m_tempPath.c_str(), m_target.c_str()) != 0)
    m_error = std::strerror(errno);
  if (!m_error.empty()) {
    std::fclose(m_file);
    m_file = nullptr;
    ::unlink(m_tempPath.c_str());
    if (m_hadFile)
      m_error += "; the log that was there before this run is kept";
  }
  m_tempPath.clear();
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
  const data::DataFileKind kind = data::dataFileKind(data);
  std::string ext = fs::path(data).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (kind == data::DataFileKind::Directory)
    dir = data;
  else if (kind != data::DataFileKind::Csv && kind != data::DataFileKind::Text &&
           !(kind == data::DataFileKind::Missing &&
             (ext == ".csv" || ext == ".txt"))) // a CSV or a text is one file
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
