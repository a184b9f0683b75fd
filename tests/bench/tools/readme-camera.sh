#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's PoCL camera figure (README.md, "Performance"): cldebayer's
# camera path (12-bit RGGB, manual white balance, every stage, NV12 out)
# against `bayer2rgb ! videoconvert` (8-bit RGGB to NV12) at 1080p on 2 CPU
# cores through PoCL, for both kinds of input frames:
#   pool    the element's own pinned pool (a source that uses the pool it is
#           offered: videotestsrc, v4l2src)
#   system  the source's own system memory (--system-input: a file or camera
#           source that ignores the pool)
# Runs in ABBA order (pool, system, system, pool) so that the host's drift
# falls on both, then prints each case's median frames/s over all runs of a
# kind and the ratios. Run it on a quiet machine, from the source tree,
# after `ninja -C build`:
#
#   bash tests/bench/tools/readme-camera.sh [OUT_PREFIX]
#
# (OUT_PREFIX, default build/readme-camera, gets -pool1.json, -system1.json,
# ... and the Markdown reports; REPEATS=1 FRAMES=5 makes a smoke run.)
set -euo pipefail
cd "$(dirname "$0")/../../.."
out="${1:-build/readme-camera}"
export GST_PLUGIN_PATH="$PWD/build/gst/elements"
cases='=cldebayer camera manual-wb rggb12le>NV12,=bayer2rgb ! videoconvert rggb>NV12'

bench() {   # kind, round
  local extra=()
  [ "$1" = system ] && extra=(--system-input)
  POCL_MAX_PTHREAD_COUNT=2 taskset -c 0,1 ./build/tests/bench/gst-opencl-bench \
    --device cpu --sizes 1080p --repeats "${REPEATS:-3}" --frames "${FRAMES:-100}" --concurrent 0 \
    --device-pipelines 0 --only "$cases" "${extra[@]}" \
    --json "$out-$1$2.json" --markdown "$out-$1$2.md" >/dev/null
}

bench pool 1
bench system 1
bench system 2
bench pool 2

python3 - "$out" <<'EOF'
import glob, json, statistics, sys
out = sys.argv[1]
host = None
for kind in ('pool', 'system'):
    runs = {}
    for path in sorted(glob.glob(out + '-' + kind + '*.json')):
        report = json.load(open(path))
        host = host or (report.get('host'), report.get('device', {}).get('name'))
        for r in report['results']:
            if r.get('mode') == 'system' and r.get('status') == 'ok':
                runs.setdefault(r['case'], []).extend(r['fps']['runs'])
    cam = [v for k, v in runs.items() if k.startswith('cldebayer camera')]
    peer = [v for k, v in runs.items() if k.startswith('bayer2rgb')]
    if not cam or not peer:
        sys.exit('%s: a case is missing from the reports' % kind)
    c, p = statistics.median(cam[0]), statistics.median(peer[0])
    inputs = {r['case']: r.get('input_memory') for path in glob.glob(out + '-' + kind + '*.json')
              for r in json.load(open(path))['results'] if r.get('mode') == 'system'}
    print('%-6s camera %.1f frames/s (input %s), bayer2rgb ! videoconvert %.1f: %.2fx'
          % (kind, c, inputs.get('cldebayer camera manual-wb rggb12le>NV12'), p, c / p))
print('host: %s; device: %s' % host)
print('cpu:', next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo')
                    if l.startswith('model name')), '?'))
EOF
