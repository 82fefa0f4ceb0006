// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/io/regular_file.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mantissa::io {

std::string byteLimitText(std::uintmax_t bytes) {
  if (bytes >= (std::uintmax_t{1} << 20) && bytes % (std::uintmax_t{1} << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0)
    return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

RegularFile::RegularFile(const std::filesystem::path& path, std::string what)
    : m_name(path.string()), m_what(std::move(what)) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer before fstat says what it is.
  m_fd = ::open(m_name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (m_fd < 0)
    throw FileReadError("cannot open " + m_what + " '" + m_name + "': " + std::strerror(errno));
  struct stat st {};
  if (::fstat(m_fd, &st) != 0) {
    const int e = errno;
    ::close(m_fd);
    throw FileReadError("cannot read " + m_what + " '" + m_name + "': " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(m_fd);
    throw FileReadError(m_what + " '" + m_name + "' " +
                        (S_ISDIR(st.st_mode)
                             ? "is a directory, expected a file"
                             : "is not a regular file (a device, FIFO or socket)"));
  }
  // Reads of a regular file never block; clear the flag all the same.
  ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) & ~O_NONBLOCK);
  m_device = std::uint64_t(st.st_dev);
  m_inode = std::uint64_t(st.st_ino);
}

RegularFile::~RegularFile() {
  if (m_fd >= 0)
    ::close(m_fd);
}

std::uintmax_t RegularFile::size() const {
  struct stat st {};
  if (::fstat(m_fd, &st) != 0)
    throw FileReadError("cannot read " + m_what + " '" + m_name + "': " + std::strerror(errno));
  return std::uintmax_t(st.st_size);
}

std::uintmax_t RegularFile::checkSize(std::uintmax_t maxBytes) const {
  const std::uintmax_t n = size();
  if (n > maxBytes)
    throw FileReadError(m_what + " '" + m_name + "': " + std::to_string(n) +
                        " bytes, over the limit of " + byteLimitText(maxBytes) + " for " + m_what +
                        "s");
  return n;
}

std::string RegularFile::readAt(std::uintmax_t offset, std::size_t maxBytes) const {
  std::string bytes(maxBytes, '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::pread(m_fd, bytes.data() + got, bytes.size() - got, off_t(offset + got));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      throw FileReadError("cannot read " + m_what + " '" + m_name + "': " + std::strerror(errno));
    if (n == 0)
      break; // the end (or it shrank while reading): what is there
    got += std::size_t(n);
  }
  bytes.resize(got);
  return bytes;
}

std::string readRegularFile(const std::filesystem::path& path, std::uintmax_t maxBytes,
                            const std::string& what) {
  const RegularFile file(path, what);
  return file.readAt(0, std::size_t(file.checkSize(maxBytes)));
}

} // namespace mantissa::io
