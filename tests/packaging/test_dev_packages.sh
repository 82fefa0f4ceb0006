#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# `./dev run` is for users: what it would install (./dev packages run) holds
# no package only the tests need. The list of test-only packages is kept
# here, apart from dev, so moving one into dev's run list fails this test.
# Usage: test_dev_packages.sh SOURCE_DIR
set -euo pipefail
dev="$1/dev"

run_list=$("$dev" packages run)
test_list=$("$dev" packages test)

test_only=(
  lintian clang libclang-rt-14-dev xvfb xauth appstream imagemagick
  libgtest-dev libgmock-dev googletest libbenchmark-dev desktop-file-utils
  dpkg-dev file librsvg2-bin groff-base python3-torch
)
fail=0
for p in "${test_only[@]}"; do
  if grep -qx -- "$p" <<<"$run_list"; then
    echo "FAIL: ./dev run would install the test-only package '$p'"
    fail=1
  fi
done
# What running needs is in the run list.
for p in cmake g++ qt6-base-dev qt6-charts-dev libdnnl-dev libeigen3-dev nlohmann-json3-dev; do
  grep -qx -- "$p" <<<"$run_list" || { echo "FAIL: ./dev run would not install '$p'"; fail=1; }
done
# ./dev test installs everything ./dev run does, and the test tools.
while read -r p; do
  grep -qx -- "$p" <<<"$test_list" || { echo "FAIL: '$p' is in the run list but not the test list"; fail=1; }
done <<<"$run_list"
for p in lintian libgtest-dev xvfb clang appstream; do
  grep -qx -- "$p" <<<"$test_list" || { echo "FAIL: ./dev test would not install '$p'"; fail=1; }
done
# A bad argument is a usage error, not an empty list.
if "$dev" packages nonsense >/dev/null 2>&1; then
  echo "FAIL: ./dev packages nonsense exited 0"
  fail=1
fi
[ "$fail" -eq 0 ] && echo "ok: ./dev run installs $(wc -l <<<"$run_list") packages, none test-only"
exit "$fail"
