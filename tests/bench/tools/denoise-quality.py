#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Denoise quality of the picture stages (docs/benchmarks.md, "Denoise
quality"), as issue 34 measures it: a real photograph (scikit-image's
astronaut, 512x512, from Debian's python3-skimage) made linear and into a
12-bit RGGB mosaic on a black level of 256 (a sensor's pedestal, so that
noise below black is kept), Poisson-Gaussian noise of sigma 1, 2 and 4 % of full
scale at mid grey (variance sigma^2 (1.8 x + 0.1) for a linear sample x of
full scale 1: a tenth of it read noise at mid grey), through cldebayer's camera path (transfer=srgb, BGRx out, the same
settings for every run) with denoise 0, 0.25, 0.5, 0.75 and 1; PSNR of each
against the noise-free frame through the same pipeline. Against it:
OpenCV's bilateralFilter on the noisy output with the best of a grid of
parameters, and fastNlMeansDenoisingColored with its defaults. Also the
noise-free frame with denoise 0.25 against the one without.

Needs python3-numpy, python3-opencv and python3-skimage (the system's
python3, /usr/bin/python3, where pyenv or a venv lacks them) and the plugin
built:

    /usr/bin/python3 tests/bench/tools/denoise-quality.py [--image astronaut]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import cv2
import numpy as np
import skimage.data

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
SETTINGS = 'transfer=srgb'


def srgb_decode(v):
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def mosaic(img):
    """RGGB samples of the linear picture (0..1)."""
    lin = srgb_decode(img.astype(np.float64) / 255)
    h, w = lin.shape[:2]
    m = np.zeros((h, w))
    m[0::2, 0::2] = lin[0::2, 0::2, 0]
    m[0::2, 1::2] = lin[0::2, 1::2, 1]
    m[1::2, 0::2] = lin[1::2, 0::2, 1]
    m[1::2, 1::2] = lin[1::2, 1::2, 2]
    return m


def run(raw, w, h, props, tmp, black):
    """cldebayer's BGRx output of a 12-bit RGGB frame (raw: of full scale 1
    above `black`), as an RGB array."""
    src, dst = os.path.join(tmp, 'in.raw'), os.path.join(tmp, 'out.raw')
    np.clip(np.round(black + raw * (4095 - black)), 0, 4095).astype('<u2').tofile(src)
    props = 'black-level=%d %s' % (black, props)
    env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(ROOT, 'build', 'gst', 'elements'))
    cmd = ['gst-launch-1.0', '-q', 'filesrc', 'location=' + src, 'blocksize=%d' % (w * h * 2),
           '!', 'video/x-bayer,format=rggb12le,width=%d,height=%d,framerate=0/1' % (w, h),
           '!', 'cldebayer'] + SETTINGS.split() + props.split() + [
           '!', 'video/x-raw,format=BGRx', '!', 'filesink', 'location=' + dst]
    subprocess.run(cmd, check=True, env=env)
    out = np.fromfile(dst, np.uint8).reshape(h, w, 4)
    return out[..., 2::-1].astype(np.float64)


def psnr(a, b):
    return 10 * np.log10(255.0 ** 2 / np.mean((a - b) ** 2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--image', default='astronaut')
    ap.add_argument('--sigmas', default='0.01,0.02,0.04')
    ap.add_argument('--strengths', default='0.25,0.5,0.75,1')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--black', type=int, default=256)
    args = ap.parse_args()
    img = getattr(skimage.data, args.image)()
    h, w = img.shape[0] // 2 * 2, img.shape[1] // 2 * 2
    m = mosaic(img[:h, :w])
    rng = np.random.default_rng(args.seed)
    strengths = [float(s) for s in args.strengths.split(',')]
    with tempfile.TemporaryDirectory() as tmp:
        clean = run(m, w, h, '', tmp, args.black)
        print('%s %dx%d, black level %d, cldebayer %s, BGRx out; PSNR (dB) against the '
              'noise-free output' % (args.image, w, h, args.black, SETTINGS))
        print('noise-free frame, denoise=0.25 against denoise=0: %.1f dB'
              % psnr(run(m, w, h, 'denoise=0.25', tmp, args.black), clean))
        print('| sigma | none | ' + ' | '.join('denoise=%g' % s for s in strengths) +
              ' | best bilateral (d, sigmaColor, sigmaSpace) | fastNlMeansDenoisingColored |')
        print('|---' * (len(strengths) + 4) + '|')
        for sigma in [float(s) for s in args.sigmas.split(',')]:
            noisy_raw = m + rng.standard_normal(m.shape) * np.sqrt(sigma ** 2 * (1.8 * m + 0.1))
            noisy = run(noisy_raw, w, h, '', tmp, args.black)
            ours = [psnr(run(noisy_raw, w, h, 'denoise=%g' % s, tmp, args.black), clean) for s in strengths]
            n8 = noisy.astype(np.uint8)
            best = max((psnr(cv2.bilateralFilter(n8, d, sc, ss).astype(np.float64), clean),
                        (d, sc, ss)) for d in (5, 7, 9) for sc in (10, 20, 30, 40, 60, 80)
                       for ss in (1, 2, 4))
            nlm = psnr(cv2.fastNlMeansDenoisingColored(n8).astype(np.float64), clean)
            print('| %g %% | %.1f | ' % (sigma * 100, psnr(noisy, clean)) +
                  ' | '.join('%.1f' % v for v in ours) +
                  ' | %.1f %s | %.1f |' % (best[0], best[1], nlm), flush=True)


if __name__ == '__main__':
    sys.exit(main())
