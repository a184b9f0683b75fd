#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 39 on a GPU host (docs/reliability.md, "Runaway kernels"): the
# watchdog test on the GPU, then on PoCL for comparison, each test in a
# process of its own (CK_FORK=yes) and all in one (CK_FORK=no), every
# process timed to its exit: a driver that waits at exit for a kernel that
# never ends shows as a process that does not end (killed at 180 s, rc 124).
#   bash tests/gpu/watchdog.sh [BUILD_DIR]
set -u
build=${1:-build}
export GST_PLUGIN_PATH_1_0="$PWD/$build/gst/elements"
export GST_REGISTRY_1_0="$PWD/$build/tests/registry-watchdog.bin"
export CK_DEFAULT_TIMEOUT=300 GST_DEBUG=check:4,clruntime:3 GST_DEBUG_NO_COLOR=1
for device in gpu cpu; do
  for fork in yes no; do
    start=$(date +%s%N)
    GST_OPENCL_DEVICE=$device CK_FORK=$fork timeout 180 "$build/tests/test_watchdog" 2>&1 |
      grep -E 'test_watchdog.cpp|act_on|keeping an OpenCL queue|completed: released|^[0-9]+%|:[FE]:'
    rc=${PIPESTATUS[0]}
    echo "== device=$device CK_FORK=$fork: exit status $rc, $(( ($(date +%s%N) - start) / 1000000 )) ms to exit"
  done
done
