#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 34 on a GPU host: the picture stages' test on the GPU (sharpen and
# the 3D LUT against tests/ref_picture.h, defaults bit-exact), cldebayer's
# raw-domain denoise against its model (test_sensor's denoise tests, menon
# after it in test_menon_denoised), then the
# speed cases against the camera case (docs/benchmarks.md, "Picture stages
# (issue 34)"): 4K system memory against the transfer limit, and the
# kernels' ms a frame of `cldebayer picture` against `cldebayer camera
# manual-wb` (the issue asks at most 2.5x). Needs the build tree (or the
# bundle's env.sh for the bench: GST_PLUGIN_PATH set, gst-opencl-bench on
# PATH).
#   bash tests/gpu/picture.sh [BUILD_DIR] [OUT_PREFIX]
set -u
build=${1:-build}
out=${2:-h100-picture}
export GST_PLUGIN_PATH_1_0="$PWD/$build/gst/elements"
export GST_PLUGIN_PATH="$GST_PLUGIN_PATH_1_0"
export GST_REGISTRY_1_0="$PWD/$build/tests/registry-picture.bin"
export CK_DEFAULT_TIMEOUT=300 GST_DEBUG=check:4 GST_DEBUG_NO_COLOR=1
GST_OPENCL_DEVICE=gpu timeout 300 "$build/tests/test_picture"
echo "== test_picture on the GPU: exit status $?"
GST_OPENCL_DEVICE=gpu GST_CHECKS=test_denoise_model,test_every_format_denoised,test_denoise_quality \
  timeout 300 "$build/tests/test_sensor"
echo "== test_sensor's denoise tests on the GPU: exit status $?"
GST_OPENCL_DEVICE=gpu GST_CHECKS=test_menon_denoised timeout 300 "$build/tests/test_menon"
echo "== test_menon_denoised on the GPU: exit status $?"
bench=$(command -v gst-opencl-bench || echo "$build/tests/bench/gst-opencl-bench")
"$bench" --device gpu --sizes 1080p,4k --repeats 5 --concurrent 0 \
  --only "=cldebayer picture rggb12le>NV12,=cldebayer camera manual-wb rggb12le>NV12,=clpicture NV12" \
  --json "$out.json" --markdown "$out.md"
echo "== bench: exit status $?; report $out.md"
