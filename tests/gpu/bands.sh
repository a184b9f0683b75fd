#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Frames in row bands on a GPU host (docs/benchmarks.md, "The picture
# stages in bands"): the 4K system-memory cases of cldebayer on one queue
# (GST_OPENCL_BANDS=0) and in 2, 3, 4 and 6 bands (GST_OPENCL_BAND_COUNT;
# the default: 4, or 3 for bands of 4 launches or more, as the picture
# case's), alternating, in one call: the frames/s, their
# share of the transfer limit and the kernels' time a frame, medians of 3
# runs of 300 frames. Needs the bundle's env.sh or the build tree
# (gst-opencl-bench on PATH or in BUILD_DIR).
#   bash tests/gpu/bands.sh [BUILD_DIR] [OUT_PREFIX]
set -u
build=${1:-build}
out=${2:-h200-bands}
bench=$(command -v gst-opencl-bench || echo "$build/tests/bench/gst-opencl-bench")
cases="=cldebayer picture rggb12le>NV12,=cldebayer isp rggb12le>NV12,=cldebayer camera rggb12le>NV12"
for round in 1 2; do
  for n in one 2 3 4 6; do
    if [ "$n" = one ]; then env="GST_OPENCL_BANDS=0"; else env="GST_OPENCL_BAND_COUNT=$n"; fi
    env $env timeout 120 "$bench" --device gpu --sizes 4k --repeats 3 --frames 300 \
      --concurrent 0 --device-pipelines 0 --limit-mib 64 --only "$cases" \
      --json "$out-$n-$round.json" > /dev/null 2>&1
    python3 - "$out-$n-$round.json" "$n" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    if r["mode"] == "system":
        print("%-4s %-32s %7.1f frames/s (runs %s) %5.1f %% of the limit" % (sys.argv[2],
              r["case"], r["fps"]["median"], [round(x) for x in r["fps"]["runs"]],
              100 * r["fraction_of_transfer_limit"]))
    elif r.get("kernel"):
        print("%-4s %-32s kernels %.4f ms a frame" % (sys.argv[2], r["case"],
              r["kernel"]["ms_per_frame"]["median"]))
P
  done
done
