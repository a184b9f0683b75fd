#!/usr/bin/env bash
# The README's two commands: `dev.sh demo [out.png]` and `dev.sh test`.
# Installs what is missing (Debian/Ubuntu), builds with meson, then runs.
set -euo pipefail
cd "$(dirname "$0")/../.."

packages=(meson ninja-build g++ pkg-config python3
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-tools
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd clinfo
  python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  valgrind oclgrind)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "installing: ${missing[*]}"
  $sudo apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

# The analysis runs (valgrind, Oclgrind) are part of the test suite here.
if [ -f build/build.ninja ]; then
  meson configure build -Danalysis=enabled >/dev/null
else
  meson setup build -Danalysis=enabled
fi
ninja -C build

# The plugin is used from the build tree; nothing is installed.
export GST_PLUGIN_PATH_1_0="$PWD/build/gst/elements${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}"

case "${1:-test}" in
  demo) ./build/gst/tools/gst-opencl-demo "${2:-edges.png}" ;;
  test)
    # Everything CI runs: the suite (helgrind, Oclgrind and the canaries
    # included), then the gst-check tests again under the leaks tracer and
    # under valgrind memcheck (docs/reliability.md).
    meson test -C build --print-errorlogs
    meson test -C build --print-errorlogs --setup leaks --suite check
    meson test -C build --print-errorlogs --setup memcheck --suite check
    ;;
  quick) meson test -C build --print-errorlogs --no-suite analysis ;;
  *) echo "usage: $0 demo [out.png] | test | quick" >&2; exit 2 ;;
esac
