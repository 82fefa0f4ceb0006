// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The applications of the build tree a test runs in, found from the running
// test executable (<tree>/tests/<area>/<executable>) rather than compiled in:
// the same test objects link into the release and the sanitizer builds, and
// each runs its own tree's mantissa-cli and mantissa.
#include <filesystem>
#include <string>
#include <system_error>

namespace mantissa::test {

inline const std::filesystem::path& buildTree() {
  static const std::filesystem::path tree = [] {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path(".") : exe.parent_path().parent_path().parent_path();
  }();
  return tree;
}

// <tree>/app/mantissa-cli
inline const char* cliBinary() {
  static const std::string path = (buildTree() / "app" / "mantissa-cli").string();
  return path.c_str();
}

// <tree>/app/mantissa
inline const char* guiBinary() {
  static const std::string path = (buildTree() / "app" / "mantissa").string();
  return path.c_str();
}

} // namespace mantissa::test
