#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# Re-takes the AppStream screenshots (1280x800, the size the metainfo states)
# under Xvfb with fresh settings:  packaging/screenshots/take.sh BUILD_DIR
# Needs xvfb-run (xvfb, xauth) and ImageMagick's import.
set -euo pipefail
build_dir=$(realpath "${1:?usage: take.sh BUILD_DIR}")
out_dir=$(cd "$(dirname "$0")" && pwd)
if [ -z "${DISPLAY:-}" ] || [ "${MANTISSA_SHOT_INNER:-}" != 1 ]; then
  exec env MANTISSA_SHOT_INNER=1 xvfb-run -a -s "-screen 0 1280x800x24" "$0" "$build_dir"
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export XDG_CONFIG_HOME=$scratch/config XDG_RUNTIME_DIR=$scratch/run
mkdir -m 700 "$XDG_RUNTIME_DIR"
"$build_dir/app/mantissa" -geometry 1280x800+0+0 &
pid=$!
sleep 5
import -window root "$out_dir/explorer.png"
kill "$pid"
echo "wrote $out_dir/explorer.png"
