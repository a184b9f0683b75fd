#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes the pictures of docs/camera.md: one simulated raw frame demosaiced
# three ways. The "sensor" is clkernel: SMPTE bars (or an image file) made
# linear (power 2.2), seen through a green-heavy colour response (R x 0.45,
# B x 0.6) over a black level of 16, then mosaicked by rgb2bayer.
# Usage (from the source root, after `ninja -C build`):
#   bash docs/images/make-camera-images.sh [image file]
set -euo pipefail
cd "$(dirname "$0")/../.."
export GST_PLUGIN_PATH_1_0="$PWD/build/gst/elements"
out=docs/images
w=320 h=240
raw="$(mktemp)" sensor="$(mktemp --suffix=.cl)"
trap 'rm -f "$raw" "$sensor"' EXIT
if [ $# -ge 1 ]; then
  src="filesrc location=$1 ! decodebin ! imagefreeze num-buffers=1"
else
  src="videotestsrc num-buffers=1 pattern=smpte"
fi
cat > "$sensor" <<'CL'
float4 filter (image_t img, int x, int y) {
  float4 p = read_pixel (img, x, y);
  float3 lin = pow (p.xyz, 2.2f) * (float3) (0.45f, 1.0f, 0.6f);
  return (float4) (16.0f / 255.0f + lin * (239.0f / 255.0f), 1.0f);
}
CL
gst-launch-1.0 -q -f $src ! videoconvert ! videoscale ! \
  video/x-raw,format=RGBA,width=$w,height=$h,pixel-aspect-ratio=1/1 ! \
  clkernel location="$sensor" ! videoconvert ! video/x-raw,format=ARGB ! \
  rgb2bayer ! video/x-bayer,format=rggb ! filesink location="$raw"

# $1: picture name, $2: cldebayer's properties
picture() {
  gst-launch-1.0 -q -f filesrc location="$raw" blocksize=$((w * h)) ! \
    video/x-bayer,format=rggb,width=$w,height=$h,framerate=1/1 ! \
    cldebayer $2 ! video/x-raw,format=NV12 ! videoconvert ! pngenc ! \
    filesink location="$out/$1.png"
  echo "$out/$1.png: cldebayer $2"
}
picture camera-plain ''
picture camera-balanced 'black-level=16 white-balance=manual red-gain=2.22 blue-gain=1.67'
picture camera-finished 'black-level=16 white-balance=manual red-gain=2.22 blue-gain=1.67 color-matrix=<1.2,-0.1,-0.1,-0.1,1.2,-0.1,-0.1,-0.1,1.2> transfer=srgb'
