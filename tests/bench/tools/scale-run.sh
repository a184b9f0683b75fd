#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The runs behind docs/scale.md, on a GPU host with the bundle (docs/benchmarks.md):
#   source .bundle/env.sh; bash tests/bench/tools/scale-run.sh OUTDIR
# Each step is time-boxed so that the whole stays under ~9 minutes.
set -u
out=${1:?usage: scale-run.sh OUTDIR}
mkdir -p "$out"
b=gst-opencl-bench
common="--farm-seconds 10 --farm-warmup 2 --limit-mib 64"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$out/gpu.txt" 2>&1
nproc > "$out/cpus.txt"; grep -m1 "model name" /proc/cpuinfo >> "$out/cpus.txt"

step () {  # name timeout command...
  local name=$1 limit=$2; shift 2
  local t0=$(date +%s%N)
  timeout "$limit" "$@" --json "$out/$name.json" --markdown "$out/$name.md" 2> "$out/$name.log"
  local rc=$?
  echo "$name: rc $rc in $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$out/steps.txt"
}

nvidia-smi --query-gpu=compute_mode --format=csv >> "$out/gpu.txt" 2>&1; nvidia-smi -q | grep -i -A1 "compute mode" >> "$out/gpu.txt" 2>&1
# 1. GPU farm, one process and one shared context
step gpu-farm-shared 100 $b --device gpu $common --farm-ways shared \
  --farm-paced 64,96,128 --farm-unpaced 64
# 2. GPU farm, one process a pipeline
step gpu-farm-processes 100 $b --device gpu $common --farm-ways processes \
  --farm-paced 32,64 --farm-unpaced 64
# 3. 4K cases: device-resident by duration, concurrent own / shared contexts
step gpu-4k 170 $b --device gpu --sizes 4k --repeats 2 --concurrent 8
# 4. PoCL on 2 cores of the same host
POCL_MAX_PTHREAD_COUNT=2 step pocl-farm 100 taskset -c 0,1 $b --device cpu $common \
  --farm-seconds 8 --farm-paced 1,2 --farm-unpaced 2 --farm-ways both
cat "$out/steps.txt"
