#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""docs/benchmarks.md, "Foreign system memory": what wrapping a source's
own memory instead of copying it (issue 38) gives on PoCL at 1080p.

Every measurement is repeated in ROUNDS interleaved rounds (default 5), each
round running every variant once, so that a shared machine's load falls on
all of them alike; medians are printed, with the CPU time a frame took
(user + system of the process, all threads), which the load moves less
than the wall-clock rate:
 1. the bench (gst-opencl-bench, appsrc, system-memory output), the camera
    path, bilinear, Malvar and bayer2rgb: pool input, --system-input with
    the wrap, and --system-input with GST_OPENCL_WRAP=0 (the copy of every
    release before);
 2. multifilesrc of a raw file (a source's own memory, a new buffer each
    frame) into each element and into bayer2rgb (! videoconvert), into
    fakesink (which reads nothing) and for the camera path into a consumer
    that reads each frame (filesink to /dev/null), at once or behind a
    queue: the marginal rate, a run of N+50 frames minus a run of 50
    (startup, builds and caches out).
From the source tree, after `ninja -C build`:

    python3 tests/bench/tools/zerocopy.py [OUT_PREFIX]

(OUT_PREFIX, default build/zerocopy; ROUNDS=1 FRAMES=10 N=50 makes a smoke
run.)"""
import json, os, resource, statistics, subprocess, sys, time

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))
out = sys.argv[1] if len(sys.argv) > 1 else 'build/zerocopy'
env = dict(os.environ, GST_PLUGIN_PATH=os.path.abspath('build/gst/elements'),
           POCL_MAX_PTHREAD_COUNT='2')
ROUNDS, FRAMES, N = (int(os.environ.get(k, d)) for k, d in
                     (('ROUNDS', 5), ('FRAMES', 100), ('N', 300)))
PIN = ['taskset', '-c', '0,1']


def run(cmd, extra_env=None):
    """Wall seconds and CPU seconds (children's user + system) of cmd."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(PIN + cmd, env=dict(env, **(extra_env or {})), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


CASES = ['cldebayer camera manual-wb rggb12le>NV12', 'bayer2rgb ! videoconvert rggb>NV12',
         'cldebayer bilinear rggb>RGBA', 'cldebayer malvar rggb>RGBA', 'bayer2rgb rggb>RGBA']
BENCH = {'pool': ([], {}), 'system-wrap': (['--system-input'], {}),
         'system-copy': (['--system-input'], {'GST_OPENCL_WRAP': '0'})}

n = 1920 * 1080
with open(out + '-8.raw', 'wb') as f:
    f.write(os.urandom(n))
raw = bytearray(os.urandom(2 * n))
raw[1::2] = bytes(b & 0x0f for b in raw[1::2])
with open(out + '-12.raw', 'wb') as f:
    f.write(raw)


def src(bits):
    fmt = 'rggb12le' if bits == 12 else 'rggb'
    return ['multifilesrc', 'location=%s-%d.raw' % (out, bits), 'loop=true',
            'caps=video/x-bayer,format=%s,width=1920,height=1080,framerate=30/1' % fmt]


READ = ['!', 'filesink', 'location=/dev/null']   # maps each frame, writes nothing
CAMERA = ['cldebayer', 'black-level=256', 'white-balance=manual', 'red-gain=1.9',
          'blue-gain=1.45', 'color-matrix=<1.6,-0.4,-0.2,-0.3,1.5,-0.2,0.05,-0.6,1.55>',
          'saturation=1.2', 'transfer=srgb']
FILE = {  # name: (bits, elements, extra environment)
    'camera': (12, CAMERA + ['!', 'video/x-raw,format=NV12'], {}),
    'camera copy': (12, CAMERA + ['!', 'video/x-raw,format=NV12'], {'GST_OPENCL_WRAP': '0'}),
    'bayer2rgb ! videoconvert': (8, ['bayer2rgb', '!', 'videoconvert', '!',
                                     'video/x-raw,format=NV12'], {}),
    # a consumer that reads each frame (its map waits for the device), in
    # the element's thread or behind a queue (docs/architecture.md, "Frames
    # in flight")
    'camera, read at once': (12, CAMERA + ['!', 'video/x-raw,format=NV12'] + READ, {}),
    'camera, read behind a queue': (12, CAMERA + ['!', 'video/x-raw,format=NV12', '!', 'queue']
                                    + READ, {}),
    'bayer2rgb ! videoconvert, read': (8, ['bayer2rgb', '!', 'videoconvert', '!',
                                           'video/x-raw,format=NV12'] + READ, {}),
    'bilinear': (8, ['cldebayer', 'method=bilinear', '!', 'video/x-raw,format=RGBA'], {}),
    'bilinear copy': (8, ['cldebayer', 'method=bilinear', '!', 'video/x-raw,format=RGBA'],
                      {'GST_OPENCL_WRAP': '0'}),
    'malvar': (8, ['cldebayer', 'method=malvar', '!', 'video/x-raw,format=RGBA'], {}),
    'bayer2rgb': (8, ['bayer2rgb', '!', 'video/x-raw,format=RGBA'], {}),
}

bench = {}   # (case, kind): [fps]
files = {}   # name: [(fps, cpu ms a frame)]
for r in range(ROUNDS):
    for kind, (opts, extra) in BENCH.items():
        path = '%s-%s-%d.json' % (out, kind, r)
        run(['./build/tests/bench/gst-opencl-bench', '--device', 'cpu', '--sizes', '1080p',
             '--repeats', '1', '--frames', str(FRAMES), '--concurrent', '0',
             '--device-pipelines', '0', '--only', ','.join('=' + c for c in CASES),
             '--json', path] + opts, extra)
        for res in json.load(open(path))['results']:
            if res.get('mode') == 'system' and res.get('status') == 'ok':
                bench.setdefault((res['case'], kind), []).extend(res['fps']['runs'])
    for name, (bits, elements, extra) in FILE.items():
        sink = [] if 'filesink' in elements else ['!', 'fakesink']   # READ brings its own
        launch = lambda frames: ['gst-launch-1.0', '-q'] + src(bits) + [
            'num-buffers=%d' % frames, '!'] + elements + sink
        long_wall, long_cpu = run(launch(N + 50), extra)
        short_wall, short_cpu = run(launch(50), extra)
        files.setdefault(name, []).append((N / max(long_wall - short_wall, 1e-6),
                                           1000 * (long_cpu - short_cpu) / N))
    print('round %d of %d done' % (r + 1, ROUNDS), file=sys.stderr)

med = statistics.median
print('bench, appsrc, 1080p, median frames/s of %d interleaved rounds:' % ROUNDS)
print('| case | pool | system, wrapped | system, copied (GST_OPENCL_WRAP=0) |')
print('|---|---|---|---|')
for c in CASES:
    print('| %s | ' % c + ' | '.join('%.0f' % med(bench.get((c, k), [0])) for k in BENCH) + ' |')
print()
print('multifilesrc, 1080p, marginal rate (N=%d), medians of %d interleaved rounds:' % (N, ROUNDS))
print('| pipeline | frames/s | CPU ms a frame |')
print('|---|---|---|')
fps = {k: med([a for a, _ in v]) for k, v in files.items()}
cpu = {k: med([b for _, b in v]) for k, v in files.items()}
for k in FILE:
    print('| %s | %.0f | %.2f |' % (k, fps[k], cpu[k]))
print()
for ours, peer in (('camera', 'bayer2rgb ! videoconvert'), ('camera copy', 'bayer2rgb ! videoconvert'),
                   ('camera, read at once', 'bayer2rgb ! videoconvert, read'),
                   ('camera, read behind a queue', 'bayer2rgb ! videoconvert, read'),
                   ('bilinear', 'bayer2rgb'), ('bilinear copy', 'bayer2rgb'), ('malvar', 'bayer2rgb')):
    # each round's own ratio too: on a shared machine the peer's rate can
    # move by 2x between rounds, and the ratio of the medians hides that
    rounds = sorted(a[0] / b[0] for a, b in zip(files[ours], files[peer]))
    print('%s / %s: %.2fx frames/s (rounds: %.2f-%.2fx, median %.2fx), %.2fx in CPU time '
          'a frame' % (ours, peer, fps[ours] / fps[peer], rounds[0], rounds[-1], med(rounds),
                       cpu[peer] / cpu[ours]))
print('cpu:', next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo')
                    if l.startswith('model name')), '?'), '; load average:', os.getloadavg())
