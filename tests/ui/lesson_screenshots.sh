#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# Screenshots of every lesson under Xvfb, normal and presenter mode, light and
# dark, at 1920x1080 and 1280x720 (not committed). Usage:
#   tests/ui/lesson_screenshots.sh BUILD_DIR [OUTPUT_DIR]
# LESSON_SIZES, LESSON_MODES and LESSON_THEMES narrow the sweep, e.g.
#   LESSON_SIZES=1280x720 LESSON_MODES=presenter tests/ui/lesson_screenshots.sh build
set -eu
build=${1:?usage: $0 BUILD_DIR [OUTPUT_DIR]}
out=${2:-$build/lesson-screenshots}
ninja -C "$build" lesson_screenshots
mkdir -p "$out"
for size in ${LESSON_SIZES:-1920x1080 1280x720}; do
  for mode in ${LESSON_MODES:-normal presenter}; do
    for theme in ${LESSON_THEMES:-light dark}; do
      xvfb-run -a -s "-screen 0 ${size}x24" env QT_QPA_PLATFORM=xcb \
        XDG_CONFIG_HOME="$out/config" "$build/tests/ui/lesson_screenshots" "$out" "$mode" "$theme"
    done
  done
done
