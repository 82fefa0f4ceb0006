// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/io/atomic_file.h>

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <streambuf>

namespace mantissa::io {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what, int err) {
  // Built with append(): GCC 12 warns falsely (-Wrestrict) on "literal" + string.
  std::string message;
  message.append("cannot write '").append(path.string()).append("': ").append(what);
  if (err != 0)
    message.append(": ").append(std::strerror(err));
  throw AtomicFileError(message);
}

// Make the rename itself durable; failure here is not fatal (some
// filesystems refuse fsync on directories), the data is already in place.
void syncDirectory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    (void)::fsync(fd);
    ::close(fd);
  }
}

std::string randomHex() {
  std::array<unsigned char, 8> bytes{};
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      throw AtomicFileError(std::string("cannot make a temporary file name: getrandom: ") +
                            std::strerror(errno));
    got += static_cast<std::size_t>(n);
  }
  std::string out;
  char hex[3];
  for (unsigned char b : bytes) {
    std::snprintf(hex, sizeof hex, "%02x", b);
    out += hex;
  }
  return out;
}

} // namespace

std::filesystem::path writeTarget(const std::filesystem::path& path, bool allowSpecial) {
  std::filesystem::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno == ENOENT) {
        if (hops > 0)
          fail(path, "it is a symlink to '" + p.string() + "', which does not exist", 0);
        return p; // a new file
      }
      fail(path, "cannot inspect it", errno);
    }
    if (S_ISREG(st.st_mode) || (allowSpecial && !S_ISLNK(st.st_mode) && !S_ISDIR(st.st_mode)))
      return p;
    if (!S_ISLNK(st.st_mode))
      fail(path, "not a regular file (a directory, FIFO, socket or device)", 0);
    if (st.st_uid != ::geteuid() && st.st_uid != 0)
      fail(path, "it is a symlink owned by another user; refusing to follow it", 0);
    std::error_code ec;
    const std::filesystem::path to = std::filesystem::read_symlink(p, ec);
    if (ec)
      fail(path, "cannot read the symlink", ec.value());
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  fail(path, "too many levels of symbolic links", ELOOP);
}

// An output buffer over a file descriptor, keeping the first write error.
class AtomicFileWriter::FdBuf : public std::streambuf {
public:
  explicit FdBuf(int fd) : m_fd(fd) { setp(m_buf.data(), m_buf.data() + m_buf.size()); }
  int error() const { return m_error; }

protected:
  int_type overflow(int_type ch) override {
    if (!flushBuffer())
      return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return flushBuffer() ? 0 : -1; }

private:
  bool flushBuffer() {
    const char* p = pbase();
    std::size_t left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0 && m_error == 0) {
      const ssize_t n = ::write(m_fd, p, left);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0) {
        m_error = errno;
        break;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    setp(m_buf.data(), m_buf.data() + m_buf.size());
    return m_error == 0;
  }
  int m_fd;
  int m_error = 0;
  std::array<char, 1 << 16> m_buf{};
};

AtomicFileWriter::AtomicFileWriter(std::filesystem::path path)
    : m_path(std::move(path)), m_out(nullptr) {
  if (m_path.empty() || !m_path.has_filename())
    throw AtomicFileError("cannot write '" + m_path.string() + "': not a file path");
  m_target = writeTarget(m_path);
  struct stat old {};
  const bool exists = ::stat(m_target.c_str(), &old) == 0;
  const std::filesystem::path dir = m_target.parent_path();
  int err = 0;
  for (int attempt = 0; attempt < 100 && m_fd < 0; ++attempt) {
    m_tempPath = dir / (".mantissa-" + randomHex() + ".tmp");
    // O_EXCL: never an existing file; O_NOFOLLOW: never through a symlink.
    m_fd = ::open(m_tempPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    err = errno;
    if (m_fd < 0 && err != EEXIST)
      break;
  }
  if (m_fd < 0) {
    m_done = true;
    fail(m_path, "cannot create a temporary file in '" + dir.string() + "'", err);
  }
  if (exists && ::fchmod(m_fd, old.st_mode & 0777) != 0) {
    err = errno;
    ::close(m_fd);
    ::unlink(m_tempPath.c_str());
    m_done = true;
    fail(m_path, "cannot give the new file the old one's permissions", err);
  }
  m_buf = std::make_unique<FdBuf>(m_fd);
  m_out.rdbuf(m_buf.get());
}

AtomicFileWriter::~AtomicFileWriter() {
  discard();
}

void AtomicFileWriter::discard() noexcept {
  if (m_done)
    return;
  m_done = true;
  if (m_fd >= 0)
    ::close(m_fd);
  m_fd = -1;
  ::unlink(m_tempPath.c_str());
}

void AtomicFileWriter::commit() {
  if (m_done)
    throw AtomicFileError("cannot write '" + m_path.string() + "': already committed or discarded");
  m_out.flush();
  if (m_out.fail() || m_buf->error() != 0) {
    const int err = m_buf->error();
    discard();
    fail(m_path, "writing the temporary file failed", err);
  }
  if (::fsync(m_fd) != 0) {
    const int err = errno;
    discard();
    fail(m_path, "fsync failed", err);
  }
  // The name must still be the file written: one swapped for a symlink or
  // another file in a shared folder is not renamed into place.
  struct stat opened {}, named {};
  if (::fstat(m_fd, &opened) != 0 || ::lstat(m_tempPath.c_str(), &named) != 0 ||
      opened.st_dev != named.st_dev || opened.st_ino != named.st_ino) {
    ::close(m_fd);
    m_fd = -1;
    m_done = true; // what is at the name now is not ours to remove
    fail(m_path, "the temporary file '" + m_tempPath.string() + "' was replaced while writing", 0);
  }
  if (::close(m_fd) != 0) {
    const int err = errno;
    m_fd = -1;
    discard();
    fail(m_path, "writing the temporary file failed", err);
  }
  m_fd = -1;
  if (::rename(m_tempPath.c_str(), m_target.c_str()) != 0) {
    const int err = errno;
    discard();
    fail(m_path, "rename from '" + m_tempPath.string() + "' failed", err);
  }
  m_done = true;
  syncDirectory(m_target.parent_path());
}

void writeFileAtomically(const std::filesystem::path& path, std::string_view content) {
  AtomicFileWriter writer(path);
  writer.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  writer.commit();
}

} // namespace mantissa::io
