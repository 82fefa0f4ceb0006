#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# Screenshots of every page (Train mid-run and finished, Explorer with a value
# and with a parse error, Lessons, Exercises with a wrong answer, Model (the file
# MANTISSA_SHOT_MODEL names, or its empty page), Speed; on request
# "checkpoint": Open Checkpoint on $MANTISSA_SHOT_CHECKPOINT; Speed's model-size view
# with the scaling result $MANTISSA_SHOT_SCALING names) under
# Xvfb, normal and presenter mode, at 1920x1080 and 1280x720 (not committed). Usage:
#   tests/ui/app_screenshots.sh BUILD_DIR [OUTPUT_DIR]
# APP_SIZES, APP_MODES and APP_PAGES narrow the sweep, e.g.
#   APP_SIZES=1280x720 APP_MODES=presenter APP_PAGES=train tests/ui/app_screenshots.sh build
set -eu
build=${1:?usage: $0 BUILD_DIR [OUTPUT_DIR]}
out=${2:-$build/app-screenshots}
ninja -C "$build" app_screenshots
mkdir -p "$out"
for size in ${APP_SIZES:-1920x1080 1280x720}; do
  for mode in ${APP_MODES:-normal presenter}; do
    # A fresh configuration each time: no window layout carried over.
    rm -rf "$out/config"
    xvfb-run -a -s "-screen 0 ${size}x24" env QT_QPA_PLATFORM=xcb \
      XDG_CONFIG_HOME="$out/config" "$build/tests/ui/app_screenshots" "$out" "$mode" \
      ${APP_PAGES:-train explorer lessons exercises model speed}
  done
done
