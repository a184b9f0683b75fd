#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes docs/images/cldebayer-before.png (an RGGB mosaic made by rgb2bayer,
# shown as gray) and docs/images/cldebayer-after.png (cldebayer's output),
# 320x240. Usage: make-cldebayer-images.sh [image file]; without one the
# picture is videotestsrc's SMPTE bars with its noise patch.
# Needs the plugin: GST_PLUGIN_PATH=build/gst/elements.
set -euo pipefail
out="$(dirname "$0")"
w=320 h=240
raw="$(mktemp)"
trap 'rm -f "$raw"' EXIT

if [ $# -ge 1 ]; then
  src="filesrc location=$1 ! decodebin ! imagefreeze num-buffers=1"
else
  src="videotestsrc num-buffers=1 pattern=smpte"
fi

# The mosaic: ARGB -> 8-bit RGGB (rows of 320 bytes, as GRAY8's).
gst-launch-1.0 -q -f $src ! videoconvert ! videoscale ! \
  video/x-raw,format=ARGB,width=$w,height=$h,pixel-aspect-ratio=1/1 ! \
  rgb2bayer ! video/x-bayer,format=rggb ! filesink location="$raw"

# Before: the samples as they are, one gray level each.
gst-launch-1.0 -q -f filesrc location="$raw" ! \
  rawvideoparse format=gray8 width=$w height=$h framerate=1/1 ! \
  pngenc ! filesink location="$out/cldebayer-before.png"

# After: demosaiced with the default method (malvar).
gst-launch-1.0 -q -f filesrc location="$raw" blocksize=$((w * h)) ! \
  video/x-bayer,format=rggb,width=$w,height=$h,framerate=1/1 ! \
  cldebayer ! video/x-raw,format=RGB ! pngenc ! filesink location="$out/cldebayer-after.png"
