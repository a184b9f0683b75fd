#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# gst-check test binaries on a GPU host (docs/reliability.md, "The GPU
# host"): each test of each binary as a process of its own, on the GPU
# (GST_OPENCL_DEVICE=gpu) and on the host's PoCL (cpu), under the leaks
# tracer (tests/analysis/leaks_check.py), 12 at once.
#
#   bash tests/gpu/checks.sh pack [DIR] test_debayer test_camera ...
#       # here, after ninja -C build (DIR: .bundle)
#   bash tests/gpu/checks.sh run [DIR]
#       # there, in the repository root (carry DIR); results in $OUT (or
#       # DIR/results): summary.txt (PASS/FAIL binary device test) and a
#       # log a test; the exit status is non-zero if any failed
#
# Leave test_watchdog's GPU run out of a batch with others: its kernels
# that never end keep spinning on the GPU for the life of their process
# (docs/reliability.md, "Runaway kernels"), which slows every other
# process's kernels on it, and its test_runaway_kernel does not pass on
# NVIDIA's driver (a new context of the process gets no time beside the
# spinning one). GST_OPENCL_CHECK_DEVICES (default "gpu cpu") picks the
# devices.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
what=${1:?usage: $0 pack|run [DIR] [TEST_BINARY...]}
dir=${2:-.bundle}

if [ "$what" = pack ]; then
  shift 2 || shift $#
  [ $# -gt 0 ] || { echo "pack: name the test binaries (test_debayer ...)" >&2; exit 2; }
  bins=()
  for b in "$@"; do bins+=("build/tests/$b"); done
  rm -rf "$dir"
  ../shared/tools/gst-bundle "$dir" build/gst/elements/libgstopencl.so "${bins[@]}" || exit 1
  # The tests of each binary, as its suite adds them.
  for b in "$@"; do
    sed -n 's/^ *tcase_add_test (tc[a-z_0-9]*, \([a-z_0-9]*\));.*/\1/p' "tests/$b.cpp" \
      > "$dir/$b.tests"
    echo "$b: $(wc -l < "$dir/$b.tests") tests"
  done
  exit 0
fi

# shellcheck source=/dev/null
source "$dir/env.sh"
out=${OUT:-$dir/results}
mkdir -p "$out"
export GST_REGISTRY_1_0=/tmp/gst-opencl-checks-registry.bin CK_DEFAULT_TIMEOUT=900 \
  GST_OPENCL_KERNEL_TIMEOUT=60000 CHECKS_OUT="$out" CHECKS_DIR="$dir"
nvidia-smi -L > "$out/devices.txt" 2>&1
clinfo -l >> "$out/devices.txt" 2>&1

one () {   # binary device test
  if GST_OPENCL_DEVICE=$2 GST_CHECKS=$3 timeout 600 python3 tests/analysis/leaks_check.py \
      "$CHECKS_DIR/bin/$1" > "$CHECKS_OUT/$1-$2-$3.log" 2>&1; then
    echo "PASS $1 $2 $3"
  else
    echo "FAIL $1 $2 $3"
  fi
}
export -f one

# shellcheck disable=SC2016  # (the inner bash expands them)
for list in "$dir"/*.tests; do
  b=$(basename "$list" .tests)
  for dev in ${GST_OPENCL_CHECK_DEVICES:-gpu cpu}; do
    while read -r t; do echo "$b $dev $t"; done < "$list"
  done
done | xargs -P 12 -n 3 bash -c 'one "$0" "$1" "$2"' | sort > "$out/summary.txt"
echo "$(grep -c ^PASS "$out/summary.txt") passed, $(grep -c ^FAIL "$out/summary.txt") failed"
grep ^FAIL "$out/summary.txt"
grep -h "alive at exit" "$out"/*.log | sort | uniq -c
! grep -q ^FAIL "$out/summary.txt"
