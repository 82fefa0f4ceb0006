#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# End-to-end package test: build the .deb from the build tree with
# CPack, unpack it into a scratch root, check its control fields and contents,
# and run the binaries from there, the way a user gets them.
#
#   test_package.sh BUILD_DIR VERSION CPACK SOURCE_DIR
#
# Every missing tool is a failure with a message, never a skip.
set -euo pipefail

build_dir=${1:?usage: test_package.sh BUILD_DIR VERSION CPACK SOURCE_DIR}
version=${2:?missing VERSION}
cpack=${3:?missing CPACK}
source_dir=${4:?missing SOURCE_DIR}
app_id=org.mantissa.Mantissa

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
die() {
  echo "FAIL: $*" >&2
  exit 1
}
# section NAME ... section_done: prints "ok: NAME" when the section added no failure.
section() { section_name=$1 section_failures=$failures; }
section_done() { [ "$failures" -ne "$section_failures" ] || echo "ok: $section_name"; }

for tool in "$cpack" dpkg-deb dpkg-shlibdeps desktop-file-validate appstreamcli lintian file ldd; do
  command -v "$tool" >/dev/null ||
    die "required tool '$tool' is not installed (Debian packages: cmake, dpkg-dev, desktop-file-utils, appstream, lintian, file, libc-bin; ./dev installs them)"
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mantissa-package-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
root=$scratch/root

# --- Build the package ----------------------------------------------------------
# -B keeps CPack's staging area out of the build tree, so parallel runs and
# later `cmake --build` never see it.
(cd "$build_dir" && "$cpack" -G DEB -B "$scratch/out" --config CPackConfig.cmake) >"$scratch/cpack.log" 2>&1 ||
  { cat "$scratch/cpack.log" >&2; die "cpack -G DEB failed"; }
deb=$scratch/out/mantissa_${version}_amd64.deb
[ -f "$deb" ] || { ls -l "$scratch/out" >&2; die "expected package $deb was not produced"; }
echo "ok: cpack produced $(basename "$deb") ($(stat -c %s "$deb") bytes)"

# --- Control fields ---------------------------------------------------------------
section "control fields"
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = mantissa ] || fail "Package is '$(field Package)', expected mantissa"
[ "$(field Version)" = "$version" ] || fail "Version is '$(field Version)', expected $version"
[ "$(field Section)" = science ] || fail "Section is '$(field Section)', expected science"
[ "$(field Architecture)" = amd64 ] || fail "Architecture is '$(field Architecture)', expected amd64"
[[ "$(field Maintainer)" =~ ^.+\ \<.+@.+\>$ ]] || fail "Maintainer '$(field Maintainer)' is not 'Name <email>'"
! grep -q "example" <<<"$(field Homepage)" || fail "Homepage is a placeholder: $(field Homepage)"
[ -n "$(field Description)" ] || fail "Description is empty"
depends=$(field Depends)
echo "Depends: $depends"
# Computed by dpkg-shlibdeps from the binaries: the GUI links Qt6, both link
# oneDNN. libqt6svg6 also carries the SVG icon plugins Qt loads at run time.
for lib in libqt6core6 libqt6gui6 libqt6widgets6 libqt6charts6 libqt6svg6 libdnnl2 libstdc++6 libc6; do
  [[ ", $depends," == *", $lib"[\ ,]* ]] || fail "Depends lacks $lib: $depends"
done
# The PyTorch tap needs torch only where a PyTorch run is watched.
[[ ", $(field Recommends)," == *", python3-torch,"* ]] ||
  fail "Recommends lacks python3-torch: $(field Recommends)"
section_done

# --- Contents -----------------------------------------------------------------------
section "package contents"
dpkg-deb -x "$deb" "$root" || die "dpkg-deb -x failed"
usr=$root/usr
for f in bin/mantissa bin/mantissa-cli; do
  [ -x "$usr/$f" ] || fail "missing executable /usr/$f"
done
for f in share/applications/$app_id.desktop share/metainfo/$app_id.metainfo.xml \
  share/icons/hicolor/scalable/apps/$app_id.svg \
  share/man/man1/mantissa.1.gz share/man/man1/mantissa-cli.1.gz \
  share/doc/mantissa/copyright share/doc/mantissa/LICENSE share/doc/mantissa/README.data.md \
  share/doc/mantissa/changelog.gz; do
  [ -s "$usr/$f" ] || fail "missing or empty /usr/$f"
done
for size in 16 22 24 32 48 64 128 256 512; do
  png=$usr/share/icons/hicolor/${size}x${size}/apps/$app_id.png
  if [ ! -f "$png" ]; then
    fail "missing ${size}x${size} icon"
  else
    desc=$(file -b "$png")
    [[ "$desc" == "PNG image data, $size x $size, "* ]] || fail "${size}x${size} icon is '$desc'"
  fi
done
grep -q "GNU GENERAL PUBLIC LICENSE" "$usr/share/doc/mantissa/LICENSE" || fail "LICENSE is not the GPL text"
grep -q "CC-BY-SA-3.0" "$usr/share/doc/mantissa/copyright" || fail "copyright lacks the MNIST licence"
grep -q "Creative Commons Attribution-Share Alike 3.0" "$usr/share/doc/mantissa/README.data.md" ||
  fail "README.data.md lacks the MNIST attribution"
# Editable run-time resources (lessons, presets) ship complete under
# share/mantissa, laid out as in resources/ (what resource_paths.h expects).
for dir in lessons presets; do
  [ -d "$source_dir/resources/$dir" ] || continue # this kind of resource does not exist (yet)
  diff -r "$source_dir/resources/$dir" "$usr/share/mantissa/$dir" >"$scratch/diff" 2>&1 ||
    fail "share/mantissa/$dir differs from resources/$dir: $(head -5 "$scratch/diff")"
done
# Nothing may point back into the build tree.
if grep -rlF "$build_dir" "$root" >"$scratch/leaks"; then
  fail "files in the package mention the build tree $build_dir: $(tr '\n' ' ' <"$scratch/leaks")"
fi
section_done

# --- The desktop integration validates --------------------------------------------------
section "validators"
desktop-file-validate "$usr/share/applications/$app_id.desktop" || fail "desktop-file-validate"
appstreamcli validate --no-net "$usr/share/metainfo/$app_id.metainfo.xml" || fail "appstreamcli validate"
# The installed tree as a whole: metainfo, its launchable .desktop file, icons.
appstreamcli validate-tree --no-net "$root" || fail "appstreamcli validate-tree"
exec_bin=$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$usr/share/applications/$app_id.desktop")
[ -x "$usr/bin/$exec_bin" ] || fail "desktop file's Exec=$exec_bin is not in /usr/bin"
# Debian policy as lintian knows it: no errors and no warnings (infos allowed).
lintian --fail-on error,warning "$deb" || fail "lintian reports errors or warnings"
icon=$(sed -n 's/^Icon=//p' "$usr/share/applications/$app_id.desktop")
[ "$icon" = "$app_id" ] || fail "desktop file's Icon=$icon is not the installed icon name $app_id"
section_done

# --- Run the binaries from the scratch root ---------------------------------------------
# Our own libraries are linked statically: nothing may come from the build tree.
section "binaries run from the unpacked package"
unset LD_LIBRARY_PATH
for b in mantissa mantissa-cli; do
  [ -x "$usr/bin/$b" ] || continue
  if ldd "$usr/bin/$b" | grep -E "not found|$build_dir" >"$scratch/ldd"; then
    fail "$b: unresolved or build-tree libraries: $(cat "$scratch/ldd")"
  fi
done
export HOME=$scratch/home XDG_CONFIG_HOME=$scratch/home/config XDG_DATA_HOME=$scratch/home/data
export XDG_RUNTIME_DIR=$scratch/home/run XDG_CACHE_HOME=$scratch/home/cache
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

if out=$("$usr/bin/mantissa-cli" --version 2>&1); then
  echo "$out"
  grep -q "^mantissa-cli $version$" <<<"$out" || fail "mantissa-cli --version does not print 'mantissa-cli $version'"
  grep -q "^oneDNN [0-9]" <<<"$out" || fail "mantissa-cli --version does not print the oneDNN version"
else
  fail "mantissa-cli --version exited non-zero: $out"
fi

# A short real run on the MNIST subset embedded in the binary: it must train
# (the loss falls, test accuracy well above the 10 % of guessing) with no
# file from the source or build tree.
log=$scratch/train.jsonl
if out=$(cd "$scratch" && timeout 240 "$usr/bin/mantissa-cli" train --data mnist --steps 20 --seed 1 \
  --log "$log" --quiet 2>&1); then
  echo "$out"
  summary=$(grep '"summary":true' "$log" || true)
  step_rows=$(grep -c '"found_inf":' "$log" || true)
  [ "$step_rows" -eq 20 ] || fail "train log has $step_rows step rows, expected 20"
  # The value of a top-level number in one JSON line (nested objects dropped first:
  # breakdown_ms has a "loss" key of its own).
  num() { sed 's/"[a-z_]*":{[^{}]*}//g' <<<"$2" | grep -o "\"$1\":[-0-9.e+]*" | head -1 | cut -d: -f2; }
  [ "$(num steps "$summary")" = 20 ] || fail "train summary does not say 20 steps: $summary"
  grep -q '"diverged":false' <<<"$summary" || fail "train run diverged: $summary"
  first_loss=$(num loss "$(grep '"step":0,' "$log")")
  last_loss=$(num loss "$(grep '"step":19,' "$log")")
  accuracy=$(num test_accuracy "$summary")
  echo "loss $first_loss -> $last_loss, test accuracy $accuracy"
  awk -v a="$first_loss" -v b="$last_loss" 'BEGIN { exit !(b < a) }' ||
    fail "loss did not fall over 20 steps ($first_loss -> $last_loss)"
  awk -v acc="$accuracy" 'BEGIN { exit !(acc >= 0.3 && acc <= 1) }' ||
    fail "test accuracy after 20 steps is '$accuracy', expected at least 0.3 (guessing: 0.1)"
else
  fail "mantissa-cli train --steps 20 exited non-zero: $out"
fi

if out=$(QT_QPA_PLATFORM=offscreen timeout 60 "$usr/bin/mantissa" --version 2>&1); then
  echo "$out"
  grep -q "$version" <<<"$out" || fail "mantissa --version does not print $version"
  grep -q "oneDNN [0-9]" <<<"$out" || fail "mantissa --version does not print the oneDNN version"
else
  fail "mantissa --version (offscreen) exited non-zero: $out"
fi

# The PyTorch tap, for the system Python, from the unpacked tree.
tap="$usr/lib/python3/dist-packages/mantissa_torch"
[ -f "$tap/__init__.py" ] && [ -f "$tap/tap.py" ] || fail "mantissa_torch is not in /usr/lib/python3/dist-packages"
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
  out=$(cd "$scratch" && PYTHONPATH="$usr/lib/python3/dist-packages" /usr/bin/python3 -c \
    "import mantissa_torch, os; print(os.path.dirname(mantissa_torch.__file__))" 2>&1) ||
    fail "import mantissa_torch from the package failed: $out"
  [ "$out" = "$tap" ] || fail "mantissa_torch imported from $out, not the package's $tap"
else
  echo "python3-torch is not installed: the tap's import is not tried"
fi

section_done

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "package test passed"
