// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Where Mantissa's run-time resource files live: the files a teacher may edit
// without recompiling (lesson texts, presets). The data sets are embedded in
// the binaries and need none of this.
//
// The resource folder mirrors the source tree's resources/ folder, so a
// resource has the same relative path everywhere ("lessons/01-anatomy.md").
// It is searched in this order; the first existing directory wins:
//   1. $MANTISSA_RESOURCE_DIR, when set and non-empty: a teacher's own copy.
//      Set but not a directory is an error (a typo must not silently fall
//      back to the stock lessons).
//   2. <prefix>/share/mantissa next to the running executable
//      (<prefix>/bin/mantissa -> <prefix>/share/mantissa), found from
//      /proc/self/exe: an installed binary, wherever the prefix is
//      (/usr, /usr/local, an unpacked .deb, an AppImage-like tree).
//   3. The source tree's resources/ folder, compiled in: a binary run from
//      the build tree, before `cmake --install`. An installed binary whose
//      share/mantissa exists never gets here.

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::io {

class ResourceError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Inputs to the search, separated from the process so tests can build trees.
struct ResourceSearch {
  std::optional<std::filesystem::path> environment; // value of MANTISSA_RESOURCE_DIR, if set
  std::filesystem::path executable;                 // absolute path of the running binary
  std::filesystem::path relativeToBinDir;           // e.g. "../share/mantissa"
  std::filesystem::path sourceFallback;             // e.g. "/src/mantissa/resources"; may be empty
};

// The candidates in search order (what an error message lists).
std::vector<std::filesystem::path> resourceCandidates(const ResourceSearch& search);

// The first candidate that is an existing directory. Throws ResourceError
// naming every place looked at when none exists, or when `environment` is set
// to something that is not a directory.
std::filesystem::path resolveResourceDir(const ResourceSearch& search);

// This process's search: environment, /proc/self/exe and the compiled-in
// install layout and source fallback.
ResourceSearch processResourceSearch();

// resolveResourceDir(processResourceSearch()) (a few stat calls; not cached,
// so a teacher who sets MANTISSA_RESOURCE_DIR sees it at the next lookup).
std::filesystem::path resourceDir();

// resourceDir() / relative. Throws ResourceError naming the file if it does
// not exist, or if `relative` is absolute or climbs out with "..".
std::filesystem::path resourcePath(std::string_view relative);

} // namespace mantissa::io
