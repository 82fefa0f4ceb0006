#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# The man page's list of lessons (the numbered .IP entries under "Lessons")
# is the lessons manifest's list of titles, in its order.
#
#   test_man_lessons.sh MANTISSA_1 LESSONS_JSON
set -euo pipefail

page=${1:?usage: test_man_lessons.sh MANTISSA_1 LESSONS_JSON}
manifest=${2:?missing LESSONS_JSON}

command -v python3 >/dev/null || { echo "FAIL: python3 is not installed (it reads $manifest)" >&2; exit 1; }

from_manifest=$(python3 -c '
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    for lesson in json.load(f)["lessons"]:
        print(lesson["title"])
' "$manifest")

# ".IP 3. 4" then "Loss scaling" -> "3. Loss scaling", inside the Lessons entry only.
from_page=$(awk '
  /^\.B Lessons$/ { on = 1; next }
  on && /^\.(TP|SH)/ { on = 0 }
  on && take { print number " " $0; take = 0; next }
  on && /^\.IP [0-9]+\. / { number = $2; take = 1 }
' "$page" | sed 's/\\-/-/g')

[ -n "$from_manifest" ] || { echo "FAIL: $manifest lists no lessons" >&2; exit 1; }
if [ "$from_page" != "$from_manifest" ]; then
  echo "FAIL: the lessons of $page differ from $manifest" >&2
  diff <(echo "$from_page") <(echo "$from_manifest") | sed 's/^</  man page:/; s/^>/  manifest:/' >&2 || true
  exit 1
fi
echo "the man page lists the manifest's $(wc -l <<<"$from_manifest") lessons"
