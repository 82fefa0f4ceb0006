#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# Re-takes the screenshots (1280x800) of the README and the AppStream
# metainfo from the real application under Xvfb, with fresh settings:
#   packaging/screenshots/take.sh BUILD_DIR
# explorer.png: the Explorer; train.png: the Train page in the middle of the
# "scaling" preset's runs. Builds screenshot_driver in BUILD_DIR; needs
# xvfb-run (xvfb, xauth) and ImageMagick's import.
set -euo pipefail
build_dir=$(realpath "${1:?usage: take.sh BUILD_DIR}")
out_dir=$(cd "$(dirname "$0")" && pwd)
if [ -z "${DISPLAY:-}" ] || [ "${MANTISSA_SHOT_INNER:-}" != 1 ]; then
  cmake --build "$build_dir" --target screenshot_driver
  exec env MANTISSA_SHOT_INNER=1 xvfb-run -a -s "-screen 0 1280x800x24" "$0" "$build_dir"
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export XDG_CONFIG_HOME=$scratch/config XDG_RUNTIME_DIR=$scratch/run
mkdir -m 700 "$XDG_RUNTIME_DIR"
driver="$build_dir/packaging/screenshot_driver"

shoot() { # page seconds
  "$driver" "$1" "$2" >"$scratch/$1.out" &
  local pid=$! i
  for i in $(seq 1 600); do # the driver says when its window is ready
    grep -q ready "$scratch/$1.out" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || { echo "screenshot_driver $1 failed" >&2; exit 1; }
    sleep 0.5
  done
  import -window root "$out_dir/$1.png"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  echo "wrote $out_dir/$1.png"
}
shoot explorer 3
shoot train "${MANTISSA_SHOT_SECONDS:-8}"
