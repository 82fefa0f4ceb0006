// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/io/resource_paths.h>

#include <cstdlib>
#include <system_error>

// Set by core/src/io/CMakeLists.txt from GNUInstallDirs and the source tree.
#ifndef MANTISSA_RELATIVE_RESOURCE_DIR
#error "MANTISSA_RELATIVE_RESOURCE_DIR must be defined (e.g. \"../share/mantissa\")"
#endif
#ifndef MANTISSA_SOURCE_RESOURCE_DIR
#error "MANTISSA_SOURCE_RESOURCE_DIR must be defined (the source tree's resources/)"
#endif

namespace mantissa::io {

namespace fs = std::filesystem;

namespace {

bool isDirectory(const fs::path& p) {
  std::error_code ec; // unreadable or missing: not a candidate, never an exception
  return fs::is_directory(p, ec);
}

std::string listed(const std::vector<fs::path>& paths) {
  std::string out;
  for (const auto& p : paths)
    out += "\n  " + p.string();
  return out;
}

} // namespace

std::vector<fs::path> resourceCandidates(const ResourceSearch& search) {
  std::vector<fs::path> out;
  if (search.environment && !search.environment->empty())
    out.push_back(*search.environment);
  if (!search.executable.empty())
    out.push_back((search.executable.parent_path() / search.relativeToBinDir).lexically_normal());
  if (!search.sourceFallback.empty())
    out.push_back(search.sourceFallback);
  return out;
}

fs::path resolveResourceDir(const ResourceSearch& search) {
  if (search.environment && !search.environment->empty() && !isDirectory(*search.environment))
    throw ResourceError("MANTISSA_RESOURCE_DIR='" + search.environment->string() +
                        "' is not a directory");
  const auto candidates = resourceCandidates(search);
  for (const auto& dir : candidates)
    if (isDirectory(dir))
      return dir;
  throw ResourceError("Mantissa's resource folder was not found; looked in:" + listed(candidates));
}

ResourceSearch processResourceSearch() {
  ResourceSearch search;
  if (const char* env = std::getenv("MANTISSA_RESOURCE_DIR"))
    search.environment = fs::path(env);
  // /proc/self/exe resolves symlinks (/usr/local/bin/mantissa -> /opt/x/bin/mantissa
  // gives /opt/x), which is the prefix whose share/ belongs to this binary.
  std::error_code ec;
  search.executable = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    search.executable.clear(); // no /proc: only the other candidates remain
  search.relativeToBinDir = MANTISSA_RELATIVE_RESOURCE_DIR;
  search.sourceFallback = MANTISSA_SOURCE_RESOURCE_DIR;
  return search;
}

fs::path resourceDir() { return resolveResourceDir(processResourceSearch()); }

fs::path resourcePath(std::string_view relative) {
  const fs::path rel(relative);
  if (rel.empty() || rel.is_absolute())
    throw ResourceError("resource path '" + std::string(relative) + "' must be relative");
  for (const auto& part : rel)
    if (part == "..")
      throw ResourceError("resource path '" + std::string(relative) + "' must not contain '..'");
  const fs::path full = resourceDir() / rel;
  std::error_code ec;
  if (!fs::exists(full, ec))
    throw ResourceError("resource '" + std::string(relative) + "' not found: " + full.string());
  return full;
}

} // namespace mantissa::io
