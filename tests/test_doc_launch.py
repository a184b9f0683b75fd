#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every gst-launch-1.0 line of README.md, docs/*.md and docs/examples/README.md
runs, as written but for what needs hardware, a display or a network peer.
A line that fails (exit status, GStreamer-CRITICAL, GLib warning, or a time
out) fails the test, named by its file and line.

A launch line is a line of a fenced code block whose command is
gst-launch-1.0, with its continuation lines (ending in a backslash). It runs
through a shell's word splitting (shlex), in one temporary folder for the
whole run, under G_DEBUG=fatal-criticals.

Substitutions (only these; caps, properties and the rest of each pipeline
stay as written):

  v4l2src, aravissrc (any properties)
      -> videotestsrc num-buffers=N, which gives the 8-bit Bayer and raw
         formats the next caps filter asks for; for a deeper Bayer format
         (rggb12le, ...), which videotestsrc 1.22 does not give, N frames
         from a file (filesrc blocksize=frame ! capsfilter
         caps=video/x-bayer,format=...,width=...,height=...,framerate=30/1)
         at the caps filter's size (320x240 when it gives none).
  videotestsrc without num-buffers
      -> num-buffers=N added.
  autovideosink, xvimagesink, ximagesink, glimagesink, waylandsink, kmssink
      -> fakesink (no display).
  srtsink, and udpsink in a code block with no receiver
      -> fakesink (no network peer).
  udpsrc (a receiver) and the udpsink of its code block
      -> the receiver runs first, with -e, on a free port of the loopback
         that the block's senders send to (host=127.0.0.1); it is stopped
         with SIGINT after them and must end cleanly.
  device=K with K > 0 on an element
      -> the line runs with POCL_DEVICES="pthread pthread" (PoCL then gives
         a second device).
  nvcodec's elements and CUDA memory (docs/interop.md), where cudadownload
  is not registered (no CUDA device)
      -> nvh264dec: openh264dec; nvh264enc: videoconvert ! openh264enc; cudaupload,
         cudadownload: identity; (memory:CUDAMemory) dropped from caps: the
         same line in system memory.

A line whose doc shows the error it ends with (the next code block starts
with "ERROR: from element ...": clkernel.md's runaway kernel) must end with
exit status 1 and that error's element.

Files the lines read are made here first: in.mp4 and phone.mp4 (H.264 from
videotestsrc; phone.mp4 tagged image-orientation=rotate-90), in.png,
frames.raw (rggb12le 1920x1080) and frames.bggr12 (bggr12le 640x480), N
frames each, docs/examples/warm.cube (a copy), and every file a ```c block of the docs names in its first line
(/* blur.cl */). Lines that write files write them in the temporary folder.
"""
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

N = 3           # frames of every source
TIMEOUT = 120   # seconds a line may take
SINKS_WITHOUT_DISPLAY = {'autovideosink', 'xvimagesink', 'ximagesink', 'glimagesink',
                         'waylandsink', 'kmssink'}
CAMERAS = {'v4l2src', 'aravissrc'}
CUDA_SUBSTITUTES = {'nvh264dec': [['openh264dec']],
                    'nvh264enc': [['videoconvert'], ['openh264enc']],  # it takes I420 only
                    'cudaupload': [['identity']], 'cudadownload': [['identity']]}


def have_cuda():
    """Whether nvcodec's CUDA elements are registered (a CUDA device)."""
    if not hasattr(have_cuda, 'answer'):
        have_cuda.answer = subprocess.run(['gst-inspect-1.0', '--exists', 'cudadownload'],
                                          capture_output=True).returncode == 0
    return have_cuda.answer


def doc_files(root):
    files = [os.path.join(root, 'README.md'), os.path.join(root, 'docs', 'examples',
                                                            'README.md')]
    docs = os.path.join(root, 'docs')
    files += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith('.md'))
    return files


def code_blocks(path):
    """(language, first line number, [lines]) of each fenced block."""
    blocks, block = [], None
    for number, line in enumerate(open(path, encoding='utf-8'), 1):
        if line.startswith('```'):
            if block is None:
                block = (line[3:].strip(), number + 1, [])
            else:
                blocks.append(block)
                block = None
        elif block is not None:
            block[2].append(line.rstrip('\n'))
    return blocks


def launch_lines(block):
    """(line number, argv) of each gst-launch-1.0 command of a block."""
    _, first, lines = block
    out, i = [], 0
    while i < len(lines):
        start, text = first + i, lines[i]
        while text.endswith('\\') and i + 1 < len(lines):
            i += 1
            text = text[:-1] + lines[i]   # the shell drops backslash-newline
        i += 1
        try:
            argv = shlex.split(text, comments=True)
        except ValueError:
            continue
        while argv and re.match(r'^[A-Za-z_][A-Za-z0-9_]*=', argv[0]):
            argv = argv[1:]
        if argv and argv[0] in ('gst-launch-1.0', 'gst-opencl-calibrate'):
            out.append((start, argv))
    return out


def split_pipeline(argv):
    """gst-launch-1.0's options and the pipeline's elements (lists of words)."""
    options, rest = [], argv[1:]
    while rest and rest[0].startswith('-'):
        options.append(rest.pop(0))
    elements, current = [], []
    for word in rest:
        if word == '!':
            elements.append(current)
            current = []
        else:
            current.append(word)
    elements.append(current)
    return options, elements


def caps_size(caps):
    w = re.search(r'width=(?:\(int\))?(\d+)', caps)
    h = re.search(r'height=(?:\(int\))?(\d+)', caps)
    return (int(w.group(1)), int(h.group(1))) if w and h else (320, 240)


def ramp_file(path, w, h):
    """N frames of 12-bit samples (16-bit little-endian words), a ramp along
    each row."""
    row = b''.join(((x * 4095 // max(w - 1, 1)) & 0xfff).to_bytes(2, 'little')
                   for x in range(w))
    with open(path, 'wb') as f:
        f.write(row * (h * N))


def camera_substitute(next_element, tmp):
    """A source of what the caps filter after a camera asks."""
    caps = next_element[0] if next_element and '/' in next_element[0] else ''
    deep = re.search(r'video/x-bayer,.*format=(?:\(string\))?((?:bggr|gbrg|grbg|rggb)1[0246]le)',
                     caps)
    if not deep:
        return [['videotestsrc', 'num-buffers=%d' % N]]
    # videotestsrc 1.22 gives 8-bit Bayer only: frames from a file
    w, h = caps_size(caps)
    name = 'camera-%s-%dx%d.raw' % (deep.group(1), w, h)
    if not os.path.exists(os.path.join(tmp, name)):
        ramp_file(os.path.join(tmp, name), w, h)
    # (a capsfilter element: gst-launch takes no two caps in a row)
    return [['filesrc', 'location=' + name, 'blocksize=%d' % (w * h * 2)],
            ['capsfilter', 'caps=video/x-bayer,format=%s,width=%d,height=%d,framerate=30/1' %
             (deep.group(1), w, h)]]


def substitute(argv, port, has_receiver, tmp):
    """The argv to run, the environment it adds, and whether it is a receiver."""
    options, elements = split_pipeline(argv)
    out, env, receiver = [], {}, False
    for i, element in enumerate(elements):
        name = element[0] if element else ''
        props = element[1:]
        if name in CAMERAS:
            out += camera_substitute(elements[i + 1] if i + 1 < len(elements) else None, tmp)
            continue
        if not have_cuda():
            if name in CUDA_SUBSTITUTES:
                out += CUDA_SUBSTITUTES[name]
                continue
            element = [w.replace('(memory:CUDAMemory)', '') for w in element]
        if name == 'videotestsrc' and not any(p.startswith('num-buffers=') for p in props):
            element = element + ['num-buffers=%d' % N]
        elif name in SINKS_WITHOUT_DISPLAY or name == 'srtsink' or \
                (name == 'udpsink' and not has_receiver):
            element = ['fakesink']
        elif name == 'udpsink':
            element = [name] + [p for p in props if not p.startswith(('host=', 'port='))] + \
                ['host=127.0.0.1', 'port=%d' % port]
        elif name == 'udpsrc':
            receiver = True
            element = [name] + [p for p in props if not p.startswith(('port=', 'address='))] + \
                ['address=127.0.0.1', 'port=%d' % port]
        if any(re.match(r'^device=[1-9]\d*$', p) for p in props):
            env['POCL_DEVICES'] = 'pthread pthread'
        out.append(element)
    if receiver and '-e' not in options:
        options.append('-e')
    words = ['gst-launch-1.0'] + options
    for k, element in enumerate(out):
        words += (['!'] if k else []) + element
    return words, env, receiver


def launch(args, cwd, env):
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT)


def problems(returncode, output):
    """Why a run failed, or None."""
    if returncode != 0:
        return 'exit status %d' % returncode
    for marker in ('CRITICAL **', 'WARNING **', 'WARNING: from element'):
        if marker in output:
            return 'printed "%s"' % marker
    return None


def prepare(tmp, root, env):
    """The files the documented lines read."""
    made = []
    for name, pipeline in [
            ('in.mp4', 'videotestsrc num-buffers=%d ! video/x-raw,format=I420,width=320,'
             'height=240 ! openh264enc ! h264parse ! mp4mux ! filesink location=in.mp4' % N),
            ('phone.mp4', 'videotestsrc num-buffers=%d ! video/x-raw,format=I420,width=320,'
             'height=240 ! taginject tags=image-orientation=rotate-90 ! openh264enc ! '
             'h264parse ! mp4mux ! filesink location=phone.mp4' % N),
            ('in.png', 'videotestsrc num-buffers=1 ! pngenc ! filesink location=in.png')]:
        r = launch(['gst-launch-1.0', '-q'] + shlex.split(pipeline), tmp, env)
        if r.returncode != 0 or not os.path.getsize(os.path.join(tmp, name)):
            sys.exit('could not make %s: %s' % (name, r.stdout + r.stderr))
        made.append(name)
    for name, w, h in [('frames.raw', 1920, 1080), ('frames.bggr12', 640, 480)]:
        ramp_file(os.path.join(tmp, name), w, h)
        made.append(name)
    # the example LUT, at the path the lines give from the source root
    os.makedirs(os.path.join(tmp, 'docs', 'examples'), exist_ok=True)
    shutil.copy(os.path.join(root, 'docs', 'examples', 'warm.cube'),
                os.path.join(tmp, 'docs', 'examples', 'warm.cube'))
    made.append('docs/examples/warm.cube')
    for path in doc_files(root):
        for language, _, lines in code_blocks(path):
            m = re.match(r'^/\* (\S+) \*/$', lines[0]) if language == 'c' and lines else None
            if m:
                with open(os.path.join(tmp, m.group(1)), 'w') as f:
                    f.write('\n'.join(lines) + '\n')
                made.append(m.group(1))
    return made


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def main():
    tmp = tempfile.mkdtemp(prefix='doc-launch-')
    try:
        run_all(sys.argv[1], tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_all(root, tmp):
    env = dict(os.environ, G_DEBUG='fatal-criticals')
    print('prepared in %s: %s' % (tmp, ', '.join(prepare(tmp, root, env))))
    failures, count, started = [], 0, time.monotonic()
    for path in doc_files(root):
        where_file = os.path.relpath(path, root)
        blocks = code_blocks(path)
        for index, block in enumerate(blocks):
            lines = launch_lines(block)
            if not lines:
                continue
            # the error the doc shows after the block, if it shows one
            after = blocks[index + 1][2] if index + 1 < len(blocks) else []
            shown = after[0] if after and after[0].startswith('ERROR: from element') else None
            expected = shown.split(': ')[0] + ': ' + shown.split(': ')[1] if shown else None
            port = free_port()
            has_receiver = any('udpsrc' in argv for _, argv in lines)
            runs = [(number, argv) + substitute(argv, port, has_receiver, tmp)
                    for number, argv in lines]
            receivers = []
            for number, argv, args, extra, receiver in runs:
                if not receiver:
                    continue
                p = subprocess.Popen(args, cwd=tmp, env=dict(env, **extra), text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                for out_line in p.stdout:
                    if 'PLAYING' in out_line:
                        break
                receivers.append((number, args, p))
            for number, argv, args, extra, receiver in runs:
                if receiver:
                    continue
                if argv[0] == 'gst-opencl-calibrate':
                    # the tool makes what the block's next lines read
                    tool = os.environ.get('GST_OPENCL_CALIBRATE', 'gst-opencl-calibrate')
                    r = subprocess.run([tool] + argv[1:], cwd=tmp, env=env,
                                       capture_output=True, text=True, timeout=TIMEOUT)
                    if r.returncode != 0:
                        failures.append('%s:%d: gst-opencl-calibrate: exit status %d\n%s' % (
                            where_file, number, r.returncode, (r.stdout + r.stderr)[-1500:]))
                    continue
                count += 1
                where = '%s:%d' % (where_file, number)
                t0 = time.monotonic()
                try:
                    r = launch(args, tmp, dict(env, **extra))
                    output = r.stdout + r.stderr
                    if expected:
                        why = None if r.returncode == 1 and expected in output else \
                            'not the error the doc shows (%s), exit status %d' % (
                                expected, r.returncode)
                    else:
                        why = problems(r.returncode, output)
                except subprocess.TimeoutExpired:
                    why, output = 'no end within %d s' % TIMEOUT, ''
                print('%s %s (%.1f s): %s' % ('FAIL' if why else 'ok', where,
                                              time.monotonic() - t0, ' '.join(args)))
                if why:
                    failures.append('%s: %s\n  ran: %s\n%s' % (where, why, shlex.join(args),
                                                             output[-1500:]))
            for number, args, p in receivers:
                count += 1
                where = '%s:%d' % (where_file, number)
                p.send_signal(signal.SIGINT)   # -e: end of stream, then exit
                try:
                    rest, _ = p.communicate(timeout=30)
                    why = problems(p.returncode, rest)
                except subprocess.TimeoutExpired:
                    p.kill()
                    rest, _ = p.communicate()
                    why = 'no end within 30 s of SIGINT'
                print('%s %s (receiver): %s' % ('FAIL' if why else 'ok', where, ' '.join(args)))
                if why:
                    failures.append('%s: %s\n  ran: %s\n%s' % (where, why, shlex.join(args),
                                                             rest[-1500:]))
    print('%d launch lines in %.0f s' % (count, time.monotonic() - started))
    # README, clsobel, clconvert, cldebayer, camera and scale hold these at least
    if count < 30:
        failures.append('only %d launch lines found: the extraction is broken' % count)
    if failures:
        print('\n\n'.join(failures))
        sys.exit(1)


if __name__ == '__main__':
    main()
