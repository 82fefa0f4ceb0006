#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# Soak test: the real main window under Xvfb, driven by soak_driver for an hour
# (start, pause, export, resume, stop, switch recipes; ~15 s per cycle), sampled
# from outside every minute: resident memory, open file descriptors, threads.
#
#   tests/soak/soak_gui.sh [SECONDS=3600] [BUILD_DIR=build-soak] [OUT_DIR=BUILD_DIR/soak]
#   SOAK_INTERVAL=60 (seconds between samples), SOAK_NO_BUILD=1 (do not rebuild the driver)
#
# Writes OUT_DIR/samples.csv (elapsed_s,rss_kib,fds,threads) and driver.log.
# Passes when the driver reports no failed cycle and, after a warm-up (the
# first 20% of samples), the second half of the samples shows
#   - peak RSS at most SOAK_RSS_SLACK_KIB (default 32768 = 32 MiB) above the
#     first half's peak (bounded memory),
#   - peak fds and peak threads at most 2 above the first half's peaks (no
#     growth in handles or threads; 2 covers an export file or a trainer thread
#     caught mid-start by a sample).
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION=${1:-3600}
BUILD=${2:-build-soak}
OUT=${3:-$BUILD/soak}
INTERVAL=${SOAK_INTERVAL:-60}
RSS_SLACK=${SOAK_RSS_SLACK_KIB:-32768}

if [ "${SOAK_NO_BUILD:-0}" != 1 ]; then # SOAK_NO_BUILD=1: use the driver as already built
  if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMANTISSA_BUILD_BENCHMARKS=OFF
  fi
  cmake --build "$BUILD" --target soak_driver
fi
DRIVER="$BUILD/tests/soak/soak_driver"

mkdir -p "$OUT"
rm -f "$OUT/pid"
CSV="$OUT/samples.csv"
echo "elapsed_s,rss_kib,fds,threads" > "$CSV"

# Isolated settings; the driver's own pid is written by the shell it execs from.
export XDG_CONFIG_HOME="$OUT/xdg/config" XDG_DATA_HOME="$OUT/xdg/data"
export XDG_RUNTIME_DIR="$OUT/xdg/run"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
xvfb-run -a -s "-screen 0 1600x1000x24" \
  sh -c 'echo $$ > "$0/pid"; exec "$1" "$2" "$0/exports"' "$OUT" "$DRIVER" "$DURATION" \
  > "$OUT/driver.log" 2>&1 &
RUNNER=$!

for _ in $(seq 50); do [ -s "$OUT/pid" ] && break; sleep 0.2; done
PID=$(cat "$OUT/pid")
START=$(date +%s)
sample() {
  local status rss threads fds
  status=$(cat "/proc/$PID/status" 2>/dev/null) || return 1
  rss=$(awk '/^VmRSS:/ {print $2}' <<<"$status")
  threads=$(awk '/^Threads:/ {print $2}' <<<"$status")
  fds=$(ls "/proc/$PID/fd" 2>/dev/null | wc -l)
  echo "$(( $(date +%s) - START )),$rss,$fds,$threads" >> "$CSV"
}
sleep 5
while kill -0 "$PID" 2>/dev/null; do
  sample || break
  for _ in $(seq "$INTERVAL"); do kill -0 "$PID" 2>/dev/null || break; sleep 1; done
done
DRIVER_RC=0
wait "$RUNNER" || DRIVER_RC=$?
tail -n 3 "$OUT/driver.log"

awk -F, -v slack="$RSS_SLACK" -v rc="$DRIVER_RC" '
  BEGIN { n = 0 }
  NR == 1 { next }
  { t[n] = $1 + 0; rss[n] = $2 + 0; fds[n] = $3 + 0; thr[n] = $4 + 0; n++ }
  END {
    if (n < 5) { print "soak: only " n " samples; run longer"; exit 1 }
    w = int(n / 5); mid = w + int((n - w) / 2)
    for (i = w; i < n; i++) {
      h = (i < mid) ? 1 : 2
      if (rss[i] > r[h]) r[h] = rss[i]
      if (fds[i] > f[h]) f[h] = fds[i]
      if (thr[i] > th[h]) th[h] = thr[i]
    }
    for (i = 0; i < n; i++) { if (rss[i] > rmax) rmax = rss[i]; if (rss[i] > 0 && (!have || rss[i] < rmin)) { rmin = rss[i]; have = 1 } }
    printf "soak: %d samples over %d s; RSS min %.1f MiB, max %.1f MiB\n", n, t[n-1], rmin / 1024, rmax / 1024
    printf "soak: after warm-up, peak RSS %.1f -> %.1f MiB, fds %d -> %d, threads %d -> %d\n",
           r[1] / 1024, r[2] / 1024, f[1], f[2], th[1], th[2]
    bad = 0
    if (rc != 0) { print "soak: FAIL: the driver exited with " rc; bad = 1 }
    if (r[2] > r[1] + slack) { print "soak: FAIL: resident memory grew by " (r[2] - r[1]) " KiB"; bad = 1 }
    if (f[2] > f[1] + 2) { print "soak: FAIL: open file descriptors grew"; bad = 1 }
    if (th[2] > th[1] + 2) { print "soak: FAIL: thread count grew"; bad = 1 }
    if (!bad) print "soak: PASS"
    exit bad
  }' "$CSV"
