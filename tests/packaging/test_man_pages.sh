#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# The man pages and the binaries' --help say the same thing:
#   - mantissa-cli: the commands listed by `--help` are exactly the man page's
#     .SS sections under COMMANDS; for each, the options and arguments of
#     `mantissa-cli CMD --help` are exactly the .TP entries of its section;
#     the global options match the GLOBAL OPTIONS section;
#   - mantissa: the options of `mantissa --help` are exactly the OPTIONS
#     section's .TP entries;
#   - both pages format without groff warnings.
#
#   test_man_pages.sh MAN_DIR MANTISSA_CLI [MANTISSA]
#
# MANTISSA_CLI_WITHOUT_UI="plot report": the commands that need the Qt UI
# library; CMake sets it when the GUI is not built, and mantissa-cli then lacks
# exactly these (the man page documents the full program, as packaged).
set -euo pipefail

man_dir=${1:?usage: test_man_pages.sh MAN_DIR MANTISSA_CLI [MANTISSA]}
cli=${2:?missing MANTISSA_CLI}
gui=${3:-}

command -v groff >/dev/null || { echo "FAIL: groff is not installed (Debian package groff-base)" >&2; exit 1; }

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# The .TP entries of one part of a roff page, one per line, as the option
# names (-h, --format, ...) or argument names (VALUE) they define.
#   man_entries FILE SECTION [SUBSECTION]
man_entries() {
  awk -v sh="$2" -v ss="${3:-}" '
    /^\.SH / { in_sh = ($0 == ".SH " sh || $0 == ".SH \"" sh "\""); in_ss = (ss == ""); next }
    /^\.SS / { if (ss != "") in_ss = ($0 == ".SS " ss); next }
    !in_sh || !in_ss { next }
    /^\.TP/ { take = 1; next }
    take {
      take = 0
      line = $0
      sub(/^\.[A-Z]+ /, "", line)
      gsub(/\\-/, "-", line); gsub(/\\f[BIRP]/, "", line); gsub(/"/, " ", line)
      n = split(line, w, /[ ,]+/)
      for (i = 1; i <= n; i++)
        if (w[i] ~ /^--?[a-z][a-z0-9-]*$/ || (i == 1 && w[i] ~ /^[A-Z][A-Z0-9_]*(\.[a-z0-9]+)?$/)) print w[i]
    }' "$1" | sort -u
}

# The option and argument names a --help text defines (the first column of
# its "Options:" / "Arguments:" / "Global options:" blocks).
#   help_entries BLOCK_TITLE...   (help text on stdin)
help_entries() {
  awk -v titles="$*" '
    BEGIN { n = split(titles, t, ","); for (i = 1; i <= n; i++) want[t[i]] = 1 }
    /^[A-Za-z].*:$/ { in_block = ($0 in want); next }
    /^$/ { next }
    in_block && /^  [^ ]/ {
      line = $0; sub(/^  /, "", line)
      n = split(line, w, /[ ,]+/)
      for (i = 1; i <= n; i++) {
        if (w[i] ~ /^--?[a-z][a-z0-9-]*$/) print w[i]
        else if (i == 1 && w[i] ~ /^[A-Z][A-Z0-9_]*(\.[a-z0-9]+)?$/) print w[i]
        else if (w[i] !~ /^-/) break
      }
    }' | sort -u
}

# compare WHAT MAN_LIST HELP_LIST
compare() {
  local missing extra
  missing=$(comm -13 <(echo "$2") <(echo "$3") | tr '\n' ' ')
  extra=$(comm -23 <(echo "$2") <(echo "$3") | tr '\n' ' ')
  [ -z "${missing// /}" ] || fail "$1: in --help but not in the man page: $missing"
  [ -z "${extra// /}" ] || fail "$1: in the man page but not in --help: $extra"
}

for page in mantissa mantissa-cli; do
  warnings=$(groff -man -Tutf8 -ww -z "$man_dir/$page.1" 2>&1)
  [ -z "$warnings" ] || fail "$page.1: groff warnings: $warnings"
done

# --- mantissa-cli ------------------------------------------------------------------------
cli_page=$man_dir/mantissa-cli.1
top_help=$("$cli" --help) || fail "mantissa-cli --help exited non-zero"
help_commands=$(awk '/^Commands:$/ { on = 1; next } /^$/ { on = 0 } on && /^  [a-z]/ { print $1 }' <<<"$top_help" | sort -u)
man_commands=$(awk '/^\.SH / { on = ($0 == ".SH COMMANDS") } on && /^\.SS / { print $2 }' "$cli_page" | sort -u)
[ -n "$help_commands" ] || fail "mantissa-cli --help lists no commands"
for ui_only in ${MANTISSA_CLI_WITHOUT_UI:-}; do
  grep -qx "$ui_only" <<<"$help_commands" && fail "mantissa-cli built without the UI lists '$ui_only'"
  man_commands=$(grep -vx "$ui_only" <<<"$man_commands")
done
compare "mantissa-cli commands" "$man_commands" "$help_commands"
compare "mantissa-cli global options" "$(man_entries "$cli_page" "GLOBAL OPTIONS")" \
  "$(help_entries "Global options:" <<<"$top_help")"

for cmd in $help_commands; do
  if ! cmd_help=$("$cli" "$cmd" --help); then
    fail "mantissa-cli $cmd --help exited non-zero"
    continue
  fi
  grep -q "^\.SS $cmd$" "$cli_page" || continue # reported above
  compare "mantissa-cli $cmd" "$(man_entries "$cli_page" COMMANDS "$cmd")" \
    "$(help_entries "Options:,Arguments:" <<<"$cmd_help")"
done

# --- mantissa --------------------------------------------------------------------------------
if [ -n "$gui" ]; then
  if gui_help=$(QT_QPA_PLATFORM=offscreen timeout 60 "$gui" --help 2>&1); then
    compare "mantissa options" "$(man_entries "$man_dir/mantissa.1" OPTIONS)" \
      "$(help_entries "Options:,Arguments:" <<<"$gui_help")"
  else
    fail "mantissa --help exited non-zero: $gui_help"
  fi
  # A failing --follow exits with a status the EXIT STATUS section lists
  # (settings written to a scratch folder, not the user's).
  scratch=$(mktemp -d)
  rc=0
  XDG_CONFIG_HOME=$scratch QT_QPA_PLATFORM=offscreen timeout 60 "$gui" \
    --follow "$scratch/missing.jsonl" >/dev/null 2>&1 || rc=$?
  rm -rf "$scratch"
  [ "$rc" -ne 0 ] || fail "mantissa --follow of a missing file exited 0"
  exit_codes=$(awk '/^\.SH / { on = ($0 == ".SH \"EXIT STATUS\"" || $0 == ".SH EXIT STATUS") }
                    on && take { print $2; take = 0 } on && /^\.TP/ { take = 1 }' "$man_dir/mantissa.1")
  grep -qx "$rc" <<<"$exit_codes" ||
    fail "mantissa --follow of a missing file exits $rc, which mantissa.1's EXIT STATUS does not list ($(echo $exit_codes))"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "man pages match --help"
