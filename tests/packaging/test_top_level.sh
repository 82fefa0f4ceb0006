#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# The top level of the source tree holds the project's entries and nothing
# else: no stray fuzzer artifacts, scratch files or build output committed
# beside them. In a git checkout the committed entries are checked (build
# directories are ignored, not committed); elsewhere every entry but the
# build directories.
# Usage: test_top_level.sh SOURCE_DIR
set -euo pipefail
cd "$1"
allowed=(
  CMakeLists.txt app core ui resources tests packaging README.md
  LICENSE dev .ci cmake .clang-format .gitignore
)
if git rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
   [ "$(git rev-parse --show-toplevel)" = "$(pwd -P)" ]; then
  mapfile -t entries < <(git ls-files | cut -d/ -f1 | sort -u)
else
  mapfile -t entries < <(ls -A | grep -v -e '^build' -e '^\.git$' -e '^\.cache$')
fi
fail=0
for e in "${entries[@]}"; do
  ok=0
  for a in "${allowed[@]}"; do [ "$e" = "$a" ] && ok=1 && break; done
  if [ $ok -eq 0 ]; then
    echo "FAIL: '$e' at the top level is not one of the project's entries (${allowed[*]})"
    fail=1
  fi
done
[ $fail -eq 0 ] && echo "top level: ${#entries[@]} entries, all expected"
exit $fail
