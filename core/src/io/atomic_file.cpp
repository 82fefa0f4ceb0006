// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/io/atomic_file.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace mantissa::io {
namespace {

std::atomic<unsigned> g_tempCounter{0};

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what, int err) {
  // Built with append(): GCC 12 warns falsely (-Wrestrict) on "literal" + string.
  std::string message;
  message.append("cannot write '").append(path.string()).append("': ").append(what);
  if (err != 0)
    message.append(": ").append(std::strerror(err));
  throw AtomicFileError(message);
}

// fsync through a fresh descriptor: std::ofstream does not expose its own.
bool syncFile(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
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

} // namespace

AtomicFileWriter::AtomicFileWriter(std::filesystem::path path) : m_path(std::move(path)) {
  if (m_path.empty() || !m_path.has_filename())
    throw AtomicFileError("cannot write '" + m_path.string() + "': not a file path");
  std::string tempName;
  tempName.append(".").append(m_path.filename().string()).append(".tmp-");
  tempName.append(std::to_string(::getpid()))
      .append("-")
      .append(std::to_string(g_tempCounter.fetch_add(1)));
  m_tempPath = m_path.parent_path() / tempName;
  errno = 0;
  m_out.open(m_tempPath, std::ios::binary | std::ios::trunc);
  if (!m_out) {
    const int err = errno;
    m_done = true;
    fail(m_path, "cannot create a temporary file in '" + m_path.parent_path().string() + "'", err);
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  discard();
}

void AtomicFileWriter::discard() noexcept {
  if (m_done)
    return;
  m_done = true;
  m_out.close();
  std::error_code ignored;
  std::filesystem::remove(m_tempPath, ignored);
}

void AtomicFileWriter::commit() {
  if (m_done)
    throw AtomicFileError("cannot write '" + m_path.string() + "': already committed or discarded");
  // A write that already failed (the stream's buffer spilled onto a full
  // disk) left its reason in errno; keep it for the message.
  const int earlier = m_out.fail() ? errno : 0;
  errno = 0;
  m_out.flush();
  m_out.close();
  if (m_out.fail()) {
    const int err = errno != 0 ? errno : earlier;
    discard();
    fail(m_path, "writing the temporary file failed", err);
  }
  if (!syncFile(m_tempPath)) {
    const int err = errno;
    discard();
    fail(m_path, "fsync failed", err);
  }
  if (::rename(m_tempPath.c_str(), m_path.c_str()) != 0) {
    const int err = errno;
    discard();
    fail(m_path, "rename from '" + m_tempPath.string() + "' failed", err);
  }
  m_done = true;
  syncDirectory(m_path.parent_path());
}

void writeFileAtomically(const std::filesystem::path& path, std::string_view content) {
  AtomicFileWriter writer(path);
  errno = 0;
  writer.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  writer.commit();
}

} // namespace mantissa::io
