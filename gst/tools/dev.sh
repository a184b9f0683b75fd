#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's commands: `dev.sh demo [out.png]` (default build/edges.png,
# in the ignored build folder), `dev.sh test` and `dev.sh quick`. Installs
# what is missing (Debian/Ubuntu), builds with meson, then runs. The demo
# installs and builds only what it runs, so a first picture comes fast;
# `test` installs and builds everything CI needs.
#
# `dev.sh --dry-run COMMAND` prints what COMMAND would install (every
# package it needs, installed or not), configure and build, and runs nothing
# (tests/test_devsh.py checks it).
set -euo pipefail
cd "$(dirname "$0")/../.."

dry_run=0
if [ "${1:-}" = "--dry-run" ]; then
  dry_run=1
  shift
fi
command="${1:-test}"

# What the demo runs: the build tools, GStreamer with videotestsrc (base) and
# pngenc (good), an OpenCL driver (PoCL runs on any CPU). gstreamer1.0-tools
# gives gst-launch-1.0 and gst-inspect-1.0, which the README uses next.
demo_packages=(meson ninja-build g++ pkg-config python3
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-tools
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd)
# What the test suite needs on top: elements the tests compare with
# (plugins-bad, which has openh264enc), the Python examples (PyGObject,
# gst-python for the array properties, Aravis's typelib), Aravis's fake GigE
# Vision camera (aravis-tools), clinfo, and the analysis tools (valgrind,
# Oclgrind).
test_packages=(gstreamer1.0-plugins-bad clinfo
  python3-gi python3-gst-1.0 gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  gir1.2-aravis-0.8 aravis-tools
  valgrind oclgrind)

case "$command" in
  demo) packages=("${demo_packages[@]}") ;;
  test|quick) packages=("${demo_packages[@]}" "${test_packages[@]}") ;;
  *) echo "usage: $0 [--dry-run] demo [out.png] | test | quick" >&2; exit 2 ;;
esac

run() {
  if [ $dry_run -eq 1 ]; then
    echo "run: $*"
  else
    "$@"
  fi
}

missing=()
for p in "${packages[@]}"; do
  if [ $dry_run -eq 1 ] ||
      ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "installing: ${missing[*]}"
  run $sudo apt-get update -q
  run $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

if [ "$command" = demo ]; then
  # A build folder made by `test` keeps its options; a new one leaves the
  # test suite and the analysis runs out (`test` turns them on later).
  if [ $dry_run -eq 1 ] || [ ! -f build/build.ninja ]; then
    run meson setup build -Dtests=disabled -Danalysis=disabled
  fi
  # The plugin and the demo program only, not the tests.
  run meson compile -C build gst-opencl-demo gst/elements/gstopencl
else
  # The analysis runs (valgrind, Oclgrind) are part of the test suite here.
  if [ $dry_run -eq 0 ] && [ -f build/build.ninja ]; then
    meson configure build -Dtests=enabled -Danalysis=enabled >/dev/null
  else
    run meson setup build -Dtests=enabled -Danalysis=enabled
  fi
  run ninja -C build
fi

# The plugin is used from the build tree; nothing is installed.
export GST_PLUGIN_PATH_1_0="$PWD/build/gst/elements${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}"

case "$command" in
  demo) run ./build/gst/tools/gst-opencl-demo "${2:-build/edges.png}" ;;
  test)
    # Everything CI runs, in one pass: the suite (its gst-check tests under
    # the leaks tracer), memcheck, helgrind, Oclgrind and the canaries
    # (docs/reliability.md).
    run meson test -C build --print-errorlogs
    ;;
  quick) run meson test -C build --print-errorlogs --no-suite analysis ;;
esac
