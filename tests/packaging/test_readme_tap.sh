#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# The PyTorch tap's example reads the same in README.md and in
# app/pytorch/README.md, and is correct for a loss scaler: every line of the
# top-level README's Python block is a line of the package README's, and a
# block that gives Tap a scaler backpropagates the scaled loss
# (scaler.scale(loss).backward(), never a bare loss.backward()), as the Tap
# reads loss-scaled gradients when it has a scaler.
#
#   test_readme_tap.sh README.md app/pytorch/README.md
set -euo pipefail

readme=${1:?usage: test_readme_tap.sh README.md PYTORCH_README}
package_readme=${2:?missing PYTORCH_README}

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# The first ```python block of a Markdown file, trailing blanks removed.
python_block() {
  awk '/^```python$/ && !done { on = 1; next } on && /^```$/ { on = 0; done = 1 } on' "$1" |
    sed 's/[[:space:]]*$//'
}

top=$(python_block "$readme")
package=$(python_block "$package_readme")
[ -n "$top" ] || fail "$readme has no \`\`\`python block"
[ -n "$package" ] || fail "$package_readme has no \`\`\`python block"

while IFS= read -r line; do
  [ -z "$line" ] && continue
  grep -qxF -- "$line" <<<"$package" ||
    fail "$readme's tap example has a line $package_readme's does not: $line"
done <<<"$top"

for file in "$readme" "$package_readme"; do
  block=$(python_block "$file")
  if grep -q 'Tap(.*scaler=' <<<"$block"; then
    grep -qE '(^|[^.(])\bloss\.backward\(\)' <<<"$block" &&
      fail "$file: the example gives Tap a scaler but calls loss.backward() (the scaled loss must be backpropagated)"
    grep -qF 'scaler.scale(loss).backward()' <<<"$block" ||
      fail "$file: the example gives Tap a scaler but never calls scaler.scale(loss).backward()"
  fi
done

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "the tap examples agree"
