#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the pictures of docs/camera.md, "Picture stages": a real
photograph (scikit-image's astronaut, a 256 x 256 crop) made linear and
into a 12-bit RGGB frame on a black level of 256 with Poisson-Gaussian
noise of sigma 4 % of full scale at mid grey (variance sigma^2 (1.8 x +
0.1)), through cldebayer (black-level=256 transfer=srgb) without and with
each picture stage in turn: docs/images/picture-*.png.

Needs python3-numpy and python3-skimage (the system's python3) and the
plugin built in build/. From the source root:

    /usr/bin/python3 docs/images/make-picture-images.py
"""
import importlib.util
import os
import subprocess
import sys
import tempfile

import numpy as np
import skimage.data

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
BLACK, SIGMA = 256, 0.04
STAGES = [
    ('picture-noisy', ''),
    ('picture-denoised', 'denoise=1'),
    ('picture-sharpened', 'denoise=1 sharpen=1'),
    ('picture-lut', 'denoise=1 sharpen=1 lut3d-file=docs/examples/warm.cube'),
]


def quality_script():
    """tests/bench/tools/denoise-quality.py as a module (its mosaic())."""
    path = os.path.join(ROOT, 'tests', 'bench', 'tools', 'denoise-quality.py')
    spec = importlib.util.spec_from_file_location('denoise_quality', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    m = quality_script().mosaic(skimage.data.astronaut()[40:296, 120:376])
    h, w = m.shape
    rng = np.random.default_rng(1)
    noisy = m + rng.standard_normal(m.shape) * SIGMA * np.sqrt(1.8 * m + 0.1)
    raw = np.clip(np.round(BLACK + noisy * (4095 - BLACK)), 0, 4095).astype('<u2')
    env = dict(os.environ, GST_PLUGIN_PATH_1_0=os.path.join(ROOT, 'build', 'gst', 'elements'))
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'frame.raw')
        raw.tofile(src)
        for name, props in STAGES:
            out = os.path.join(ROOT, 'docs', 'images', name + '.png')
            subprocess.run(['gst-launch-1.0', '-q', 'filesrc', 'location=' + src,
                            'blocksize=%d' % raw.nbytes, '!',
                            'video/x-bayer,format=rggb12le,width=%d,height=%d,framerate=0/1'
                            % (w, h), '!', 'cldebayer', 'black-level=%d' % BLACK,
                            'transfer=srgb'] + props.split() + [
                            '!', 'video/x-raw,format=RGB', '!', 'videoconvert', '!', 'pngenc',
                            '!', 'filesink', 'location=' + out], check=True, env=env, cwd=ROOT)
            print('%s: cldebayer black-level=%d transfer=srgb %s' % (out, BLACK, props))


if __name__ == '__main__':
    sys.exit(main())
