#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# docs/benchmarks.md, "Foreign system memory": what wrapping a source's own
# memory (instead of copying it, issue #38) gives on PoCL at 1080p, in one
# run so that the host's load falls on every row alike:
#  1. the bench's pool and --system-input rows of the camera path, bilinear
#     and Malvar, with the wrap (default) and without it (GST_OPENCL_WRAP=0:
#     the copy every release before this one made), next to bayer2rgb;
#  2. multifilesrc of a raw file (a source's own memory, read each frame)
#     into each element against bayer2rgb (! videoconvert), as the marginal
#     rate: a run of N+50 frames minus a run of 50 (startup, program builds
#     and caches out), best of ROUNDS (default 3) interleaved rounds.
# From the source tree, after `ninja -C build`:
#
#   bash tests/bench/tools/zerocopy.sh [OUT_PREFIX]
#
# (OUT_PREFIX, default build/zerocopy, gets the bench's JSON and Markdown;
# REPEATS=1 FRAMES=10 N=50 ROUNDS=1 makes a smoke run.)
set -euo pipefail
cd "$(dirname "$0")/../../.."
out="${1:-build/zerocopy}"
export GST_PLUGIN_PATH="$PWD/build/gst/elements"
run2() { POCL_MAX_PTHREAD_COUNT=2 taskset -c 0,1 "$@"; }

cases='=cldebayer camera manual-wb rggb12le>NV12,=bayer2rgb ! videoconvert rggb>NV12'
cases+=',=cldebayer bilinear rggb>RGBA,=cldebayer malvar rggb>RGBA,=bayer2rgb rggb>RGBA'
bench() {   # name, extra options...
  local name=$1; shift
  run2 ./build/tests/bench/gst-opencl-bench --device cpu --sizes 1080p \
    --repeats "${REPEATS:-3}" --frames "${FRAMES:-100}" --concurrent 0 --device-pipelines 0 \
    --only "$cases" "$@" --json "$out-$name.json" --markdown "$out-$name.md" >/dev/null
}
bench pool
bench system-wrap --system-input
GST_OPENCL_WRAP=0 bench system-copy --system-input

# The raw frames multifilesrc reads (random samples: no element's speed
# depends on the content).
python3 - "$out" <<'EOF'
import os, sys
n = 1920 * 1080
open(sys.argv[1] + '-8.raw', 'wb').write(os.urandom(n))
raw = bytearray(os.urandom(2 * n))
raw[1::2] = bytes(b & 0x0f for b in raw[1::2])
open(sys.argv[1] + '-12.raw', 'wb').write(raw)
EOF
src() {   # bits
  local fmt=rggb; [ "$1" = 12 ] && fmt=rggb12le
  echo "multifilesrc location=$out-$1.raw loop=true caps=video/x-bayer,format=$fmt,width=1920,height=1080,framerate=30/1"
}
camera='cldebayer black-level=256 white-balance=manual red-gain=1.9 blue-gain=1.45 color-matrix="<1.6,-0.4,-0.2,-0.3,1.5,-0.2,0.05,-0.6,1.55>" saturation=1.2 transfer=srgb'
declare -A line=(
  [camera]="$(src 12) num-buffers=@ ! $camera ! video/x-raw,format=NV12 ! fakesink"
  [camera-copy]="$(src 12) num-buffers=@ ! $camera ! video/x-raw,format=NV12 ! fakesink"
  [bayer2rgb-nv12]="$(src 8) num-buffers=@ ! bayer2rgb ! videoconvert ! video/x-raw,format=NV12 ! fakesink"
  [bilinear]="$(src 8) num-buffers=@ ! cldebayer method=bilinear ! video/x-raw,format=RGBA ! fakesink"
  [bilinear-copy]="$(src 8) num-buffers=@ ! cldebayer method=bilinear ! video/x-raw,format=RGBA ! fakesink"
  [malvar]="$(src 8) num-buffers=@ ! cldebayer method=malvar ! video/x-raw,format=RGBA ! fakesink"
  [bayer2rgb-rgba]="$(src 8) num-buffers=@ ! bayer2rgb ! video/x-raw,format=RGBA ! fakesink"
)
order=(camera camera-copy bayer2rgb-nv12 bilinear bilinear-copy malvar bayer2rgb-rgba)
seconds() {   # name, frames
  local env=(); [[ $1 == *-copy ]] && env=(GST_OPENCL_WRAP=0)
  local t0 t1
  t0=$(date +%s.%N)
  env "${env[@]}" POCL_MAX_PTHREAD_COUNT=2 taskset -c 0,1 \
    sh -c "gst-launch-1.0 -q ${line[$1]//@/$2}" >/dev/null
  t1=$(date +%s.%N)
  python3 -c "print($t1 - $t0)"
}
N=${N:-300}
declare -A best
for round in $(seq "${ROUNDS:-3}"); do
  for name in "${order[@]}"; do
    long=$(seconds "$name" $((N + 50)))
    short=$(seconds "$name" 50)
    fps=$(python3 -c "print('%.1f' % ($N / max($long - $short, 1e-6)))")
    prev=${best[$name]:-0}
    best[$name]=$(python3 -c "print(max($prev, $fps))")
  done
done
echo "multifilesrc, 1080p, marginal frames/s (N=$N, best of ${ROUNDS:-3}):"
for name in "${order[@]}"; do
  echo "  $name ${best[$name]}"
done
python3 - "${best[camera]}" "${best[camera-copy]}" "${best[bayer2rgb-nv12]}" \
  "${best[bilinear]}" "${best[bilinear-copy]}" "${best[malvar]}" "${best[bayer2rgb-rgba]}" <<'EOF'
import sys
cam, camc, b2n, bil, bilc, mal, b2r = map(float, sys.argv[1:])
print('  camera / bayer2rgb ! videoconvert: %.2fx (copy: %.2fx)' % (cam / b2n, camc / b2n))
print('  bilinear / bayer2rgb: %.2fx (copy: %.2fx); malvar / bayer2rgb: %.2fx'
      % (bil / b2r, bilc / b2r, mal / b2r))
EOF
python3 - "$out" <<'EOF'
import json, statistics, sys
out = sys.argv[1]
print('bench rows (median frames/s, system-memory output):')
rows = {}
for kind in ('pool', 'system-wrap', 'system-copy'):
    for r in json.load(open('%s-%s.json' % (out, kind)))['results']:
        if r.get('mode') == 'system' and r.get('status') == 'ok':
            rows.setdefault(r['case'], {})[kind] = statistics.median(r['fps']['runs'])
for case, v in rows.items():
    print('  %-40s ' % case + '  '.join('%s %.1f' % (k, v.get(k, 0)) for k in
          ('pool', 'system-wrap', 'system-copy')))
print('cpu:', next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo')
                    if l.startswith('model name')), '?'))
EOF
