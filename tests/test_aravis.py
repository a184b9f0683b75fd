#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A real camera protocol: Aravis's fake GigE Vision camera
(arv-fake-gv-camera-0.8, a process of its own on the loopback) read by
docs/examples/aravis-camera.py through appsrc into cldebayer.

1. BayerGR8 at 638x480 (rows of 638 bytes: the example's GstVideoMeta says
   so), raw RGB out: every frame within 3 levels of the camera's pattern.
2. Mono16 read as rggb16le (--mosaic), 637x480 (rows of 1274 bytes), raw
   RGB out: the 16-bit path, within 3 levels of the camera's ramp.
3. BayerGB8 at 640x480, white-balance=auto transfer=srgb, I420, openh264enc,
   mp4mux: the MP4 holds every frame; the auto white-balance gains stay
   finite and in [1/16, 16] on the camera's saturated colours.
All: frames in (pushed into appsrc) = frames out, PTS, camera timestamps and
block ids increasing, no GLib CRITICAL or WARNING, latency p95 (push to the
muxer/appsink) printed and under 0.5 s.

The fake camera's patterns (Aravis 0.8.26, arvfakecamera.c; gain 0 and
exposure 10 ms, so its scale is 1): in the frame of GigE Vision block id f,
Bayer sample (x, y) is the colour that the pixel format's mosaic puts there
of jet((x + y + f) % 255), a 256-colour jet map; Mono16 is
(256 (x + y + f)) % 65535. For BayerRG8 and BayerBG8 it writes red where blue
belongs and blue where red belongs (its own bug, in upstream Aravis too):
the test uses GR8 and GB8, which it writes right. The pictures are compared
where the scene is linear over the demosaic's reach (most of it), so the
model is the scene itself, not a demosaic.

Usage: test_aravis.py --python PYTHON3_WITH_GI --example aravis-camera.py
                      [--fake-camera arv-fake-gv-camera-0.8]
"""
import argparse
import fcntl
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

FRAMES = 40
MONO16_FRAMES = 10  # its model is computed row by row (no period to cache)
FRAME_RATE = 15     # frames/s: a stall of 2 periods (133 ms) on a busy CI
                    # machine still loses no frame in appsrc's 2-buffer queue
TOLERANCE = 3       # levels
REACH = 2           # the demosaic reads 2 samples away (Malvar's 5x5)
GAIN_RANGE = (1 / 16, 16)
MAX_P95_MS = 500

failures = []


def fail(msg):
    print('FAIL: ' + msg)
    failures.append(msg)


def jet(i):
    """The fake camera's colour map, as a piecewise-linear function of
    0..255: dark blue, blue, cyan, yellow, red, dark red."""
    if i < 32:
        return (0, 0, min(255, 132 + 4 * i))
    if i < 96:
        return (0, min(255, 4 * (i - 31)), 255)
    if i < 160:
        return (min(255, 4 * (i - 95)), 255, max(0, 256 - 4 * (i - 95)))
    if i < 224:
        return (255, max(0, 256 - 4 * (i - 159)), 0)
    return (252 - 4 * (i - 224), 0, 0)


class Scene:
    """What the camera sees where x + y + f = t: raw(t) the samples of each
    colour there, to8 those as the 8-bit RGB output gives them; raw(t) =
    raw(t + period)."""

    def __init__(self, raw, to8, period):
        self.raw, self.to8, self.period = raw, to8, period
        self.linear_at = {}

    def colour(self, t):
        return self.to8(self.raw(t))

    def linear(self, t):
        """Whether every colour is linear over the demosaic's reach around t
        (x + y moves by up to 2 * REACH within it): there Malvar's filters,
        whose gradient terms then vanish, give the scene back up to
        rounding."""
        t %= self.period
        if t not in self.linear_at:
            v = [self.raw(t + d) for d in range(-2 * REACH, 2 * REACH + 1)]
            self.linear_at[t] = all(v[k - 1][c] - 2 * v[k][c] + v[k + 1][c] == 0
                                    for k in range(1, len(v) - 1) for c in range(3))
        return self.linear_at[t]


# BayerGR8, BayerGB8: the mosaic's colour of jet((x + y + f) % 255).
JET = Scene(lambda t: jet(t % 255), lambda c: c, 255)
# Mono16: (256 (x + y + f)) % 65535, here read as RGGB (grey: every colour
# the same), 8 bits out.
MONO16 = Scene(lambda t: ((256 * t) % 65535,) * 3,
               lambda c: tuple((v * 255 + 32767) // 65535 for v in c), 65535)


class Picture:
    """Expected rows of the scene, and the runs of pixels of a row where the
    model is exact, by the row's ramp offset (y + f)."""

    def __init__(self, width, height, scene):
        self.width, self.height, self.scene = width, height, scene
        self.rows = {}

    def row(self, offset):
        offset %= self.scene.period
        if offset not in self.rows:
            w, scene = self.width, self.scene
            expected = bytes(c for x in range(w) for c in scene.colour(x + offset))
            runs, start = [], None
            for x in range(REACH, w - REACH + 1):
                inside = x < w - REACH and scene.linear(x + offset)
                if inside and start is None:
                    start = x
                elif not inside and start is not None:
                    runs.append((3 * start, 3 * x))
                    start = None
            self.rows[offset] = (expected, runs)
        return self.rows[offset]

    def check(self, frame, frame_id):
        """Worst difference over the checked pixels, its place, how many."""
        worst, where, checked = 0, None, 0
        stride = 3 * self.width
        for y in range(REACH, self.height - REACH):
            expected, runs = self.row(y + frame_id)
            got = frame[y * stride:(y + 1) * stride]
            for a, b in runs:
                d = max(abs(p - q) for p, q in zip(got[a:b], expected[a:b]))
                checked += (b - a) // 3
                if d > worst:
                    worst = d
                    where = (y, next(i for i in range(a, b)
                                     if abs(got[i] - expected[i]) == d) // 3)
        return worst, where, checked


def mp4_sample_count(path):
    """Samples of the first track (moov/trak/mdia/minf/stbl/stsz)."""
    with open(path, 'rb') as f:
        data = f.read()

    def boxes(start, end):
        while start + 8 <= end:
            size, kind = struct.unpack('>I4s', data[start:start + 8])
            header = 8
            if size == 1:
                size, header = struct.unpack('>Q', data[start + 8:start + 16])[0], 16
            elif size == 0:
                size = end - start
            if size < header:
                return
            yield kind, start + header, start + size
            start += size

    def find(path, start, end):
        for kind, a, b in boxes(start, end):
            if kind == path[0]:
                return (a, b) if len(path) == 1 else find(path[1:], a, b)
        return None

    box = find([b'moov', b'trak', b'mdia', b'minf', b'stbl', b'stsz'], 0, len(data))
    if not box:
        return None
    return struct.unpack('>I', data[box[0] + 8:box[0] + 12])[0]


def increasing(values):
    return all(b > a for a, b in zip(values, values[1:]))


def ids_increasing(ids):
    """GigE Vision 1.x block ids are 16-bit and skip 0 when they wrap."""
    return all(b > a or (a > 65000 and b < 1000) for a, b in zip(ids, ids[1:]))


def run_example(args, tmp, serial, name, extra, frames=None):
    frames_wanted = frames or FRAMES
    summary = os.path.join(tmp, name + '.json')
    cmd = [args.python, args.example, '--camera', '127.0.0.1', '--frames', str(frames_wanted),
           '--frame-rate', str(FRAME_RATE), '--summary', summary] + extra
    print('$ ' + ' '.join(cmd))
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    print(r.stderr.rstrip())
    print('%s: %.1f s' % (name, time.monotonic() - t0))
    if r.returncode != 0:
        fail('%s: the example exited with %d' % (name, r.returncode))
    for line in r.stderr.splitlines():
        if 'CRITICAL' in line or '-WARNING **' in line:
            fail('%s: %s' % (name, line))
    if not os.path.exists(summary):
        fail('%s: no summary' % name)
        return None
    with open(summary) as f:
        s = json.load(f)
    if s['camera']['serial'] != serial:
        fail('%s: the example found camera %s, not ours (%s): another fake camera on '
             '127.0.0.1?' % (name, s['camera']['serial'], serial))
    frames = s['frames']
    lat = s['latency_ms']
    print('%s: %d frames in, %d out, %d skipped while the first built (%.0f ms); then latency '
          'p50 %.1f ms, p95 %.1f ms, max %.1f ms'
          % (name, s['frames_in'], s['frames_out'], s['skipped_at_start'], lat['first'] or 0,
             lat['p50'] or 0, lat['p95'] or 0, lat['max'] or 0))
    if s['frames_in'] != frames_wanted or s['frames_out'] != s['frames_in']:
        # Which were lost, and when the others came (PTS) and went (latency).
        fail('%s: %d frames in, %d out (of %d); lost (block id, PTS): %s; out: %s'
             % (name, s['frames_in'], s['frames_out'], frames_wanted, s['lost'],
                ', '.join('%d at %.1f ms after %.1f ms'
                          % (f.get('frame_id', -1), f['pts_ns'] / 1e6, f['latency_ms'] or 0)
                          for f in frames)))
    if not s['eos']:
        fail('%s: no end of stream' % name)
    if any(f.get('frame_id') is None for f in frames):
        fail('%s: a frame out that was not pushed' % name)
        return s
    if not increasing([f['pts_ns'] for f in frames]):
        fail('%s: PTS not increasing' % name)
    if not increasing([f['camera_timestamp_ns'] for f in frames]):
        fail('%s: camera timestamps not increasing' % name)
    if not ids_increasing([f['frame_id'] for f in frames]):
        fail('%s: frame ids not increasing' % name)
    if lat['p95'] is None or lat['p95'] > MAX_P95_MS:
        fail('%s: latency p95 %s ms (over %d ms: a queue without bound?)'
             % (name, lat['p95'], MAX_P95_MS))
    return s


def check_picture(name, s, path, width, height, scene):
    frame_bytes = 3 * width * height
    size = os.path.getsize(path)
    if size != frame_bytes * len(s['frames']):
        fail('%s: %d bytes, not %d frames of %d' % (name, size, len(s['frames']), frame_bytes))
        return
    picture = Picture(width, height, scene)
    worst_all, total = 0, 0
    with open(path, 'rb') as f:
        for n, meta in enumerate(s['frames']):
            frame = f.read(frame_bytes)
            worst, where, checked = picture.check(frame, meta['frame_id'])
            total += checked
            if checked < 0.6 * width * height:
                fail('%s: only %d pixels checked in frame %d' % (name, checked, n))
            if worst > TOLERANCE:
                fail('%s: frame %d (block id %d) off by %d at row %d, column %d'
                     % (name, n, meta['frame_id'], worst, where[0], where[1]))
            worst_all = max(worst_all, worst)
    print('%s: %d frames, %d pixels checked, largest difference %d (tolerance %d)'
          % (name, len(s['frames']), total, worst_all, TOLERANCE))


def check_white_balance(s):
    wb = s['white_balance']
    gains = [wb['red-gain'], wb['green-gain'], wb['blue-gain']]
    stats = wb['statistics']
    print('white balance: gains %s, statistics %s' % (gains, stats))
    if not stats.get('frames'):
        fail('white balance: no statistics read back')
    lo, hi = GAIN_RANGE
    for name, g in zip(('red', 'green', 'blue'), gains):
        if not math.isfinite(g) or not lo <= g <= hi:
            fail('white balance: %s gain %g outside [%g, %g]' % (name, g, lo, hi))


def lock_camera_port(tmp_root):
    """One fake camera on 127.0.0.1 at a time on this machine: the GVCP port
    is shared (another test run's camera would answer ours)."""
    f = open(os.path.join(tmp_root, 'gst-opencl-fake-gv-camera.lock'), 'w')
    deadline = time.monotonic() + 120
    while True:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return f
        except BlockingIOError:
            if time.monotonic() > deadline:
                sys.exit('FAIL: another fake camera held the lock for 120 s')
            time.sleep(0.5)


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--python', required=True)
    p.add_argument('--example', required=True)
    p.add_argument('--fake-camera', default='arv-fake-gv-camera-0.8')
    args = p.parse_args()
    fake = shutil.which(args.fake_camera)
    if not fake:
        sys.exit('FAIL: %s not found (Debian/Ubuntu: aravis-tools; bash gst/tools/dev.sh test '
                 'installs it)' % args.fake_camera)
    lock = lock_camera_port(tempfile.gettempdir())
    serial = 'GO%d' % (os.getpid() % 100000)
    with tempfile.TemporaryDirectory() as tmp:
        log = open(os.path.join(tmp, 'camera.log'), 'w+')
        camera = subprocess.Popen([fake, '-i', '127.0.0.1', '-s', serial], stdout=log,
                                  stderr=subprocess.STDOUT)
        try:
            time.sleep(0.5)
            if camera.poll() is not None:
                log.seek(0)
                sys.exit('FAIL: the fake camera did not start: %s' % log.read())
            raw = os.path.join(tmp, 'frames.rgb')
            s = run_example(args, tmp, serial, 'picture',
                            ['--pixel-format', 'BayerGR8', '--width', '638', '--height', '480',
                             '--white-balance', 'none', '--transfer', 'linear',
                             '--output', raw])
            if s and s['frames']:
                check_picture('picture', s, raw, 638, 480, JET)
            # 16-bit samples, rows of 1274 bytes (GStreamer's default: 1276).
            s = run_example(args, tmp, serial, 'mono16',
                            ['--pixel-format', 'Mono16', '--mosaic', 'rggb', '--width', '637',
                             '--height', '480', '--white-balance', 'none', '--transfer',
                             'linear', '--output', raw], frames=MONO16_FRAMES)
            if s and s['frames']:
                check_picture('mono16', s, raw, 637, 480, MONO16)
            mp4 = os.path.join(tmp, 'camera.mp4')
            s = run_example(args, tmp, serial, 'encoded',
                            ['--pixel-format', 'BayerGB8', '--width', '640', '--height', '480',
                             '--white-balance', 'auto', '--transfer', 'srgb', '--output', mp4])
            if s:
                check_white_balance(s)
                n = mp4_sample_count(mp4) if os.path.exists(mp4) else None
                print('mp4: %s samples' % n)
                if n != s['frames_out']:
                    fail('mp4: %s samples, %d frames out' % (n, s['frames_out']))
        finally:
            camera.terminate()
            try:
                camera.wait(5)
            except subprocess.TimeoutExpired:
                camera.kill()
                camera.wait()
            log.seek(0)
            camera_log = log.read().strip()
            log.close()
            lock.close()
        if camera_log:
            print('fake camera: ' + camera_log)
            if 'CRITICAL' in camera_log:
                fail('the fake camera: %s' % camera_log)
    if failures:
        print('%d failures' % len(failures))
        return 1
    print('all right')
    return 0


if __name__ == '__main__':
    sys.exit(main())
