#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes the sensor-pass pictures of docs/camera.md: a photograph made into
# a 12-bit raw frame with the faults of a real sensor, demosaiced without
# and with cldebayer's corrections. The photograph is scikit-image's
# "coffee" (Debian's python3-skimage ships it); the "sensor" (numpy): the
# picture made linear (power 2.2), a colour response (R x 0.5, B x 0.65), a
# black level of 256, lens shading that darkens the corners to 35-50 % with
# a tint (R falls the most), 0.1 % hot and dead pixels and a few 2-pixel
# clusters; the lens-shading file is the shading's exact inverse on a
# 17 x 13 grid. Needs python3-numpy and python3-skimage.
# Usage (from the source root, after `ninja -C build`):
#   bash docs/images/make-sensor-images.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
export GST_PLUGIN_PATH_1_0="$PWD/build/gst/elements"
out=docs/images
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$tmp" <<'PY'
import sys
import numpy as np
from skimage import data
tmp = sys.argv[1]
rgb = data.coffee ().astype (np.float64) / 255.0          # 400 x 600
h, w = rgb.shape[:2]
lin = rgb ** 2.2 * np.array ([0.5, 1.0, 0.65])
def shading (x, y, fall):
    """the fraction of light that reaches (x, y): 1 - fall r^2, r = 1 at the corners"""
    r2 = ((x - (w - 1) / 2) ** 2 + (y - (h - 1) / 2) ** 2) / (((w - 1) / 2) ** 2 + ((h - 1) / 2) ** 2)
    return 1.0 - fall * r2
falls = {'R': 0.65, 'G': 0.55, 'B': 0.5}
yy, xx = np.mgrid[0:h, 0:w]
black, top = 256, 4095
# RGGB: R at (even, even), B at (odd, odd)
chan = np.where ((yy % 2 == 0) & (xx % 2 == 0), 0, np.where ((yy % 2 == 1) & (xx % 2 == 1), 2, 1))
fall = np.choose (chan, [falls['R'], falls['G'], falls['B']])
light = np.choose (chan, [lin[..., 0], lin[..., 1], lin[..., 2]]) * shading (xx, yy, fall)
raw = np.round (black + (top - black) * light).astype (np.int64)
rng = np.random.default_rng (7)
n = h * w // 1000
hot = (rng.integers (0, h, n), rng.integers (0, w, n))
raw[hot] = top
dead = (rng.integers (0, h, n), rng.integers (0, w, n))
raw[dead] = black
for _ in range (20):                                      # side-by-side pairs
    y, x = rng.integers (2, h - 2), rng.integers (2, w - 3)
    raw[y, x] = raw[y, x + 1] = top
np.clip (raw, 0, top).astype ('<u2').tofile (tmp + '/raw')
cols, rows = 17, 13
with open (tmp + '/shading.txt', 'w') as f:
    f.write ('lens-shading %d %d\n' % (cols, rows))
    for c in ('R', 'G', 'G', 'B'):
        for j in range (rows):
            y = j * (h - 1) / (rows - 1)
            f.write (' '.join ('%.5f' % (1.0 / shading (i * (w - 1) / (cols - 1), y, falls[c]))
                               for i in range (cols)) + '\n')
print (w, h, file=open (tmp + '/size', 'w'))
PY
read -r w h < "$tmp/size"
look='black-level=256 white-balance=manual red-gain=2.0 blue-gain=1.54 transfer=srgb'
# $1: picture name, $2: cldebayer's properties beyond $look
picture() {
  gst-launch-1.0 -q -f filesrc location="$tmp/raw" blocksize=$((w * h * 2)) ! \
    video/x-bayer,format=rggb12le,width=$w,height=$h,framerate=1/1 ! \
    cldebayer $look $2 ! video/x-raw,format=NV12 ! videoconvert ! pngenc ! \
    filesink location="$out/$1.png"
  echo "$out/$1.png: cldebayer $look $2"
}
picture sensor-before ''
picture sensor-after "defect-correction=dynamic lens-shading-file=$tmp/shading.txt"
