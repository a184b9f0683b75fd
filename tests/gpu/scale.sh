#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 36 on a host with several GPUs (docs/scale.md, "Several GPUs in one
# process"): the devices and their stable ids, the GPU correctness tests on
# every GPU (chosen by PCI address), and the camera farm on one GPU and
# spread over all of them in one process, unpaced and paced.
#
# Here, after ninja -C build (the bundle needs no GStreamer there):
#   ../shared/tools/gst-bundle .bundle build/gst/elements/libgstopencl.so \
#     build/tests/bench/gst-opencl-bench build/gst/tools/gst-opencl-info \
#     build/tests/test_{runtime,debayer,camera,sensor,menon,convert,convolve,sobel,multidevice}
# There, in the repository root:
#   source .bundle/env.sh
#   bash tests/gpu/scale.sh .bundle/bin/gst-opencl-bench OUTDIR [STEPS]
# STEPS (default "info tests farm paced"; each can run in a call of its own:
# "info tests" takes up to ~6 minutes, "farm" ~2, "paced" ~4 on two GPUs):
#   info    gst-opencl-info, each GPU picked by its PCI address and UUID
#   tests   the test binaries (beside the bench, or $TEST_DIR) on every GPU
#           (a binary with a test_NAME.tests list beside it: each test a
#           process, $TEST_JOBS at a time; make it with
#           grep -o 'tcase_add_test (tc, [a-z_0-9]*' tests/test_NAME.cpp | sed 's/.*, //'),
#           the GPUs at the same time, each binary at most $TEST_TIMEOUT s
#           (240), all of them within $TESTS_BUDGET s (300: the binaries
#           left are reported "not run"); test_multidevice once over all
#           devices
#   farm    unpaced, 64 pipelines of 1080p 12-bit camera -> NV12 with 2
#           contexts: on the first GPU alone, then 64 a GPU over the first
#           two GPUs (where there are more than two) and over all GPUs in
#           one process; then 64 a GPU with device=auto, a context a
#           pipeline
#   paced   1080p30: the first GPU alone at 64,128,192,256 pipelines until
#           one count has late frames, $PACED_CONTEXTS (4) contexts; then
#           every GPU at once at 128,192,256 a GPU, until late
# Every step writes OUTDIR/NAME.{json,md,log}; OUTDIR/summary.txt has the
# lines to read. $FARM_SECONDS (8) is each farm point's window. A dry run
# on PoCL (here): POCL_DEVICES="pthread pthread" DEVICE_TYPE=cpu UNIT=2
# FARM_EXTRA="--farm-size 160x120" FARM_SECONDS=1 TESTS=debayer
# (UNIT: the pipeline counts' step, 64; FARM_EXTRA: more bench options).
set -u
bench=${1:?usage: scale.sh BENCH OUTDIR [STEPS]}
out=${2:?usage: scale.sh BENCH OUTDIR [STEPS]}
steps=${3:-info tests farm paced}
bindir=$(cd "$(dirname "$bench")" && pwd)
tests_dir=${TEST_DIR:-$bindir}
info=$(command -v gst-opencl-info || echo "$bindir/gst-opencl-info")
seconds=${FARM_SECONDS:-8}
paced_contexts=${PACED_CONTEXTS:-4}
test_timeout=${TEST_TIMEOUT:-240}
tests_budget=${TESTS_BUDGET:-300}
tests=${TESTS:-runtime debayer camera sensor menon convert convolve sobel}
type=${DEVICE_TYPE:-gpu}
unit=${UNIT:-64}
read -r -a extra <<< "${FARM_EXTRA:-}"
mkdir -p "$out"
summary=$out/summary.txt
say () { echo "$*" | tee -a "$summary"; }
export GST_DEBUG=${GST_DEBUG:-'*:1'} GST_DEBUG_NO_COLOR=1 CK_DEFAULT_TIMEOUT=$test_timeout
unset GST_OPENCL_DEVICE

# The GPUs: "index pci uuid" a line, from gst-opencl-info.
"$info" > "$out/info.txt" 2>&1 || { say "gst-opencl-info failed: $(cat "$out/info.txt")"; exit 1; }
awk -v type="$type" '/^[0-9]+: /{i=$1; sub(":", "", i); gpu=0}
     $1 == "type" && $2 == type ","{gpu=1}
     /^   pci:/{if (gpu) {p=$1; u=$2; sub("pci:", "", p); sub("uuid:", "", u); print i, p, u}}' \
  "$out/info.txt" > "$out/gpus.txt"
mapfile -t gpus < "$out/gpus.txt"
first=$(echo "${gpus[0]:-}" | cut -d' ' -f1)
all=$(cut -d' ' -f1 "$out/gpus.txt" | paste -sd,)
n=${#gpus[@]}
say "== $(date -u +%FT%TZ) GPUs (index pci uuid): ${gpus[*]:-none}"
[ "$n" -ge 1 ] || { say "no GPU in gst-opencl-info"; cat "$out/info.txt"; exit 1; }
nvidia-smi --query-gpu=index,name,pci.bus_id,uuid,memory.total,driver_version --format=csv \
  > "$out/nvidia-smi.txt" 2>&1
nproc > "$out/cpus.txt"; grep -m1 "model name" /proc/cpuinfo >> "$out/cpus.txt"

# A GPU's selector for GST_OPENCL_DEVICE: its PCI address where known.
selector () {
  local idx pci
  read -r idx pci _ <<< "$1"
  if [ "$pci" != "(none)" ]; then echo "pci:$pci"; else echo "$idx"; fi
}

has () { [[ " $steps " == *" $1 "* ]]; }

if has info; then
  cat "$out/info.txt"
  k=0
  for g in "${gpus[@]}"; do
    read -r idx pci uuid <<< "$g"
    for sel in "pci:$pci" "uuid:$uuid" "$type:$k"; do
      [[ $sel == *"(none)"* ]] && { say "info: GPU $idx has no ${sel%%:*} id"; continue; }
      picked=$("$info" "$sel" 2>&1 | sed -n "s/^'.*' picks \([0-9]*\):.*/\1/p")
      [ "$picked" = "$idx" ] && r=ok || r=FAIL
      say "info: '$sel' picks ${picked:-nothing}, GPU $idx: $r"
    done
    k=$((k + 1))
  done
fi

if has tests; then
  deadline=$(( $(date +%s) + tests_budget ))
  run_tests () {  # GPU-line
    local sel log rc t0 left
    sel=$(selector "$1")
    for t in $tests; do
      log=$out/test_$t-${sel//[:.]/_}.log
      t0=$(date +%s)
      left=$(( deadline - t0 ))
      [ "$left" -gt "$test_timeout" ] && left=$test_timeout
      if [ "$left" -lt 10 ]; then say "tests: test_$t on $sel: not run (out of time)"; continue; fi
      if [ -f "$tests_dir/test_$t.tests" ]; then
        split_tests "$t" "$sel" "$left" "$log"
        continue
      fi
      GST_OPENCL_DEVICE=$sel timeout "$left" "$tests_dir/test_$t" > "$log" 2>&1
      rc=$?
      say "tests: test_$t on $sel: rc $rc in $(( $(date +%s) - t0 )) s, $(grep -E '^[0-9]+%' "$log" | tail -1)"
    done
  }
  # A binary with a list of its tests beside it (test_NAME.tests, a name a
  # line: test_convolve's kernel builds take longer than one budget on a
  # GPU with a cold cache): each test a process, $TEST_JOBS (8) at a time.
  split_tests () {  # NAME selector seconds log
    local t=$1 sel=$2 left=$3 log=$4 n=0 pass=0 failed="" t0 name
    t0=$(date +%s)
    while read -r name; do
      [ -n "$name" ] || continue
      while [ "$(jobs -rp | wc -l)" -ge "${TEST_JOBS:-8}" ]; do wait -n; done
      ( GST_CHECKS=$name GST_OPENCL_DEVICE=$sel timeout "$left" "$tests_dir/test_$t" \
          > "$log.$name" 2>&1; echo "$name $?" >> "$log.rc" ) &
      n=$((n + 1))
    done < "$tests_dir/test_$t.tests"
    wait
    while read -r name rc; do
      if [ "$rc" -eq 0 ]; then pass=$((pass + 1)); else failed="$failed $name(rc $rc)"; fi
    done < "$log.rc"
    cat "$log".test_* > "$log" 2>/dev/null
    say "tests: test_$t on $sel: $pass of $n tests passed, a process each, in $(( $(date +%s) - t0 )) s${failed:+; failed:$failed}"
  }
  for g in "${gpus[@]}"; do run_tests "$g" & done
  wait
  t0=$(date +%s)
  timeout "$test_timeout" "$tests_dir/test_multidevice" > "$out/test_multidevice.log" 2>&1
  say "tests: test_multidevice over all devices: rc $? in $(( $(date +%s) - t0 )) s, $(grep -E '^[0-9]+%' "$out/test_multidevice.log" | tail -1)"
fi

farm () {  # name timeout bench-args...
  local name=$1 limit=$2 t0 rc; shift 2
  t0=$(date +%s)
  timeout "$limit" "$bench" --device "$first" --limit-mib 64 --farm-ways shared \
    --farm-seconds "$seconds" --farm-warmup 2 "${extra[@]}" "$@" \
    --json "$out/$name.json" --markdown "$out/$name.md" > /dev/null 2> "$out/$name.log"
  rc=$?
  say "farm $name: rc $rc in $(( $(date +%s) - t0 )) s"
  grep '^\[farm\]' "$out/$name.log" | tee -a "$summary"
}

if has farm; then
  farm unpaced-1gpu 120 --farm-devices "$first" --farm-contexts 2 --farm-unpaced "$unit"
  if [ "$n" -gt 2 ]; then
    farm unpaced-2gpus 150 --farm-devices "$(cut -d' ' -f1 "$out/gpus.txt" | head -2 | paste -sd,)" \
      --farm-contexts 2 --farm-unpaced $((unit * 2))
  fi
  farm unpaced-allgpus 150 --farm-devices "$all" --farm-contexts 2 --farm-unpaced $((unit * n))
  # device=auto as an application gets it: no context handed in, each
  # pipeline's elements make one (GST_OPENCL_DEVICE=auto), dealt over the GPUs
  farm unpaced-auto 150 --device auto --farm-contexts 0 --farm-unpaced $((unit * n))
fi

if has paced; then
  farm paced-1gpu 240 --farm-devices "$first" --farm-contexts "$paced_contexts" \
    --farm-paced "$unit,$((2 * unit)),$((3 * unit)),$((4 * unit))" --farm-until-late
  farm paced-allgpus 300 --farm-devices "$all" --farm-contexts "$paced_contexts" \
    --farm-paced "$((2 * unit * n)),$((3 * unit * n)),$((4 * unit * n))" --farm-until-late
fi
say "== $(date -u +%FT%TZ) done"
