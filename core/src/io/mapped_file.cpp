// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/io/mapped_file.h>
#include <mantissa/io/regular_file.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mantissa::io {

MappedFile::MappedFile(const std::filesystem::path& path, const std::string& what) : m_path(path) {
  const std::string name = what + " '" + path.string() + "'";
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    throw FileReadError("cannot open " + name + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw FileReadError(name + " is not a regular file (a device, FIFO, socket or directory)");
  }
  m_size = static_cast<std::size_t>(st.st_size);
  if (m_size > 0) {
    void* p = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int e = errno;
      ::close(fd);
      throw FileReadError("cannot map " + name + " into memory: " + std::strerror(e));
    }
    ::madvise(p, m_size, MADV_SEQUENTIAL);
    m_data = static_cast<const std::byte*>(p);
  }
  ::close(fd); // the mapping keeps the file
}

MappedFile::~MappedFile() {
  if (m_data)
    ::munmap(const_cast<std::byte*>(m_data), m_size);
}

} // namespace mantissa::io
