#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes the pictures of docs/clconvolve.md, clfir.md, clsobel.md and clkernel.md:
# docs/images/cl*.png, 320x240, from
# videotestsrc's SMPTE bars through the plugin in build/.
# Usage (from the source root, after `ninja -C build`): bash docs/make-images.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export GST_PLUGIN_PATH_1_0="$PWD/build/gst/elements"
out=docs/images
mkdir -p "$out"

# $1: picture name, $2: the filter (any gst-launch fragment)
picture() {
  gst-launch-1.0 -q -f videotestsrc num-buffers=1 pattern=smpte \
    ! video/x-raw,format=RGBA,width=320,height=240 \
    ! clupload ! $2 ! cldownload \
    ! videoconvert ! pngenc ! filesink location="$out/$1.png"
  echo "$out/$1.png: $2"
}

# A 7x7 Gaussian (rank 1: it runs as two 1-D passes).
gauss7=$(python3 -c 'import math
g = [math.exp(-(i - 3) ** 2 / 4.5) for i in range(7)]
print(",".join("%.6f" % (a * b) for a in g for b in g))')

picture clconvolve-original 'clconvolve'
picture clconvolve-blur "clconvolve kernel=<$gauss7>"
picture clconvolve-sharpen 'clconvolve kernel=<0,-1,0,-1,5,-1,0,-1,0>'
picture clconvolve-emboss 'clconvolve kernel=<-2,-1,0,-1,0,1,0,1,2> bias=128'
picture clconvolve-edges 'clconvolve kernel=<-1,-1,-1,-1,8,-1,-1,-1,-1> border=reflect'
# Red moved 3 pixels right, blue 3 pixels left, green as is: one kernel per
# channel (each a single 1 off the centre of a 7x7 kernel).
shift() {  # $1: column of the 1 in the middle row of a 7x7 kernel
  python3 -c "import sys; k = [0] * 49; k[3 * 7 + $1] = 1; print(','.join(map(str, k)))"
}
picture clconvolve-channels "clconvolve kernel=<$(shift 3)> red-kernel=<$(shift 0)> blue-kernel=<$(shift 6)>"
picture clfir 'clfir'

# clsobel (docs/clsobel.md): the same bars, edges as GRAY8.
picture clsobel 'clsobel'
picture clsobel-threshold 'clsobel norm=l1 threshold=200'

# clkernel (docs/clkernel.md): code given at run time.
picture clkernel-invert 'clkernel source="float4 filter (image_t img, int x, int y) { float4 p = read_pixel (img, x, y); return (float4) (1.0f - p.xyz, p.w); }"'
picture clkernel-threshold 'clkernel build-options="-D LEVEL=0.5f" source="float4 filter (image_t img, int x, int y) { float4 p = read_pixel (img, x, y); float l = dot (p.xyz, (float3) (0.299f, 0.587f, 0.114f)); return (float4) ((float3) (l >= LEVEL ? 1.0f : 0.0f), p.w); }"'
