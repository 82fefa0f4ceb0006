#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# The product speaks about the product. Nothing installed or shown, and no
# comment or document in the source, talks about the process that built it:
# work sessions ("this session", "session 4"), tracker numbers ("issue 6"),
# "helper", "engineer(s)". train::Session is a class name and stays legal:
# only the phrases below are refused.
# Usage: test_process_words.sh SOURCE_DIR BUILD_DIR CLI [GUI]
set -uo pipefail
src="$1" build="$2" cli="$3" gui="${4:-}"

pattern='\b(this|that|earlier|previous|last|next|each|every) sessions?\b|\bsessions? [0-9]|\bissues? #?[0-9]|helper|engineer'
self="tests/packaging/test_process_words.sh"
fail=0
report() { # where, grep output
  if [ -n "$2" ]; then
    echo "FAIL: development-process words in $1:"
    echo "$2" | head -20
    fail=1
  fi
}

# 1. The source: code comments, documents, lessons, packaging, build files.
hits=$(cd "$src" && grep -rnIE -i "$pattern" \
  README.md CMakeLists.txt dev .ci cmake app core ui resources packaging tests \
  --exclude-dir=corpus --exclude=tinyshakespeare.txt 2>/dev/null | grep -v "^$self:")
report "the source tree" "$hits"

# 2. The installed tree (man pages and the changelog are gzipped).
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
if ! cmake --install "$build" --prefix "$stage/usr" >"$stage/install.log" 2>&1; then
  echo "FAIL: cmake --install failed:"; cat "$stage/install.log"; exit 1
fi
hits=$(grep -rnIE -i "$pattern" "$stage/usr" 2>/dev/null)
report "the installed tree" "$hits"
while IFS= read -r gz; do
  hits=$(zcat "$gz" | grep -nE -i "$pattern")
  report "$gz" "$hits"
done < <(find "$stage/usr" -name '*.gz')
# Strings our binaries print or show (not the libraries they link), less
# the lines of the shipped texts (Shakespeare speaks of sessions and helpers).
shipped_text="$src/resources/data/tinyshakespeare.txt"
for bin in "$stage"/usr/bin/*; do
  hits=$(strings -n 6 "$bin" | grep -E -i "$pattern" | grep -v -E '^_Z|@@|\.cpp$' |
    grep -v -x -F -f "$shipped_text")
  report "$(basename "$bin")'s strings" "$hits"
done

# 3. What the command line shows.
helps=$("$cli" --help; for c in version inspect convert quantize train plot report bench; do "$cli" "$c" --help; done) 2>&1
[ -n "$gui" ] && helps+=$("$gui" --help 2>&1)
hits=$(grep -nE -i "$pattern" <<<"$helps")
report "--help texts" "$hits"

[ "$fail" -eq 0 ] && echo "ok: no development-process words in the source, the installed tree or --help"
exit "$fail"
