#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""appsrc-appsink.py: the C++ example appsrc-appsink.cpp in Python (PyGObject),
with a 3x3 Gaussian smoothing before the edges.

    appsrc (video/x-bayer,format=rggb) ! cldebayer ! clconvolve ! clsobel
        ! appsink (GRAY8)

Pushes Bayer frames of a bright square on a dark background, pulls the edge
images and checks them: GRAY8 at the input's size, strong edges along the
square's outline, exact zeros far from it. Exit status 0 when all are right.

The array properties (clconvolve's kernel, red-kernel, green-kernel,
blue-kernel, clfir's coefficients) are GstValueArrays: PyGObject alone cannot
set or read them; gst-python (Debian/Ubuntu: python3-gst-1.0) gives
Gst.ValueArray. Give it floats (a Python int becomes an integer GValue,
which the property refuses), or set the property from a string as a launch
line writes it, with Gst.util_set_object_arg (element, 'kernel', '<1,2,1>').

Needs PyGObject, gst-python and the GStreamer typelibs (Debian/Ubuntu:
python3-gi python3-gst-1.0 gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0)
and the opencl plugin, installed or on GST_PLUGIN_PATH.
"""
import sys

try:
    import gi
    gi.require_version('Gst', '1.0')
    gi.require_version('GstApp', '1.0')
    gi.require_version('GstVideo', '1.0')
    from gi.repository import GLib, Gst, GstApp, GstVideo  # noqa: F401 (GstApp: appsrc/appsink methods)
except (ImportError, ValueError) as e:
    sys.exit('PyGObject with the GStreamer typelibs is needed (python3-gi '
             'gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0): %s' % e)
if not hasattr(Gst, 'ValueArray'):
    sys.exit('gst-python is needed for the array properties such as clconvolve\'s '
             'kernel (Gst.ValueArray; Debian/Ubuntu: python3-gst-1.0)')

WIDTH, HEIGHT = 318, 238      # rows of 318 Bayer samples take 320 bytes
SQUARE = 64
DARK, BRIGHT = 20, 230
FRAMES = 5
# A 3x3 Gaussian, normalised by clconvolve (normalize=true by default).
GAUSSIAN = [1.0, 2.0, 1.0, 2.0, 4.0, 2.0, 1.0, 2.0, 1.0]


def square_at(i):
    """Top-left corner of the square in frame i: it moves every frame."""
    return 60 + 12 * i, 70 + 5 * i


def bayer_frame(i):
    """A grey scene: every sample has the scene's value whatever its colour.
    8-bit Bayer rows are padded to a multiple of 4 bytes."""
    stride = (WIDTH + 3) & ~3
    x0, y0 = square_at(i)
    data = bytearray([DARK]) * (stride * HEIGHT)
    for y in range(y0, y0 + SQUARE):
        data[y * stride + x0:y * stride + x0 + SQUARE] = bytes([BRIGHT]) * SQUARE
    buf = Gst.Buffer.new_wrapped(bytes(data))
    buf.pts = Gst.util_uint64_scale(i, Gst.SECOND, 30)
    buf.duration = Gst.util_uint64_scale(1, Gst.SECOND, 30)
    return buf


def distance_to_outline(i, x, y):
    x0, y0 = square_at(i)
    x1, y1 = x0 + SQUARE - 1, y0 + SQUARE - 1
    dx = x0 - x if x < x0 else x - x1 if x > x1 else 0
    dy = y0 - y if y < y0 else y - y1 if y > y1 else 0
    if dx or dy:
        return max(dx, dy)
    return min(x - x0, x1 - x, y - y0, y1 - y)


def check_edges(i, sample):
    info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
    if (info.finfo.format != GstVideo.VideoFormat.GRAY8 or info.width != WIDTH
            or info.height != HEIGHT):
        print('frame %d: unexpected caps %s' % (i, sample.get_caps().to_string()))
        return False
    buf = sample.get_buffer()
    # The buffer's GstVideoMeta, when it has one, gives the real layout.
    meta = GstVideo.buffer_get_video_meta(buf)
    offset, stride = (meta.offset[0], meta.stride[0]) if meta else (info.offset[0], info.stride[0])
    data = buf.extract_dup(0, buf.get_size())

    def at(x, y):
        return data[offset + y * stride + x]

    far_nonzero = edge_pixels = 0
    for y in range(HEIGHT):
        row = data[offset + y * stride:offset + y * stride + WIDTH]
        edge_pixels += WIDTH - row.count(0)
        if row.count(0) == WIDTH:
            continue
        # The demosaic filter reaches 2 samples, the smoothing 1 more, Sobel 1
        # more.
        far_nonzero += sum(1 for x in range(WIDTH)
                           if row[x] and distance_to_outline(i, x, y) > 4)
    x0, y0 = square_at(i)
    x1, y1 = x0 + SQUARE - 1, y0 + SQUARE - 1
    # Across each side, away from the corners, the step of 210 grey levels
    # (smoothed over 3 pixels) gives a saturated gradient within a pixel of
    # the outline.
    weak = 0
    for t in range(4, SQUARE - 4):
        for cx, cy, sx, sy in ((x0, y0 + t, 1, 0), (x1, y0 + t, 1, 0),
                               (x0 + t, y0, 0, 1), (x0 + t, y1, 0, 1)):
            if max(at(cx + d * sx, cy + d * sy) for d in (-1, 0, 1)) < 200:
                weak += 1
    ok = far_nonzero == 0 and weak == 0
    print('frame %d: %dx%d GRAY8, %d edge pixels%s' % (i, WIDTH, HEIGHT, edge_pixels,
                                                     '' if ok else ' (WRONG)'))
    if far_nonzero:
        print('  %d non-zero pixels far from the square' % far_nonzero)
    if weak:
        print('  weak edges at %d places along the square' % weak)
    return ok


def print_error(msg):
    err, debug = msg.parse_error()
    print('error from %s: %s\n%s' % (msg.src.get_name(), err.message, debug or ''))


def pull_result(pipeline, sink):
    """The next edge image, or None after an error or 30 s; short waits so
    that a pipeline error ends the wait at once."""
    bus = pipeline.get_bus()
    for _ in range(300):
        sample = sink.try_pull_sample(100 * Gst.MSECOND)
        msg = bus.pop_filtered(Gst.MessageType.ERROR)
        if msg:
            print_error(msg)
            return None
        if sample:
            return sample
    print('no edge image')
    return None


def set_kernels(smooth):
    """Sets clconvolve's array properties from Python and reads them back."""
    # A Gst.ValueArray of floats (gst-python)...
    smooth.set_property('kernel', Gst.ValueArray(GAUSSIAN))
    # ... or a string, as on a launch line.
    Gst.util_set_object_arg(smooth, 'red-kernel', '<1,2,1,2,4,2,1,2,1>')
    # Reading gives a Gst.ValueArray, a sequence of floats.
    kernel = list(smooth.get_property('kernel'))
    red = list(smooth.get_property('red-kernel'))
    green = list(smooth.get_property('green-kernel'))   # <>: kernel is used
    ok = kernel == GAUSSIAN and red == GAUSSIAN and green == []
    print('kernel %s, red-kernel %s, green-kernel %s%s' % (kernel, red, green,
                                                       '' if ok else ' (WRONG)'))
    return ok


def main():
    Gst.init(None)
    try:
        pipeline = Gst.parse_launch('appsrc name=src format=time ! cldebayer ! '
                                    'clconvolve name=smooth ! clsobel ! '
                                    'appsink name=sink sync=false')
    except GLib.Error as e:
        sys.exit('cannot build the pipeline: %s (is the opencl plugin installed, or '
                 'on GST_PLUGIN_PATH?)' % e.message)
    src = pipeline.get_by_name('src')
    sink = pipeline.get_by_name('sink')
    if not set_kernels(pipeline.get_by_name('smooth')):
        pipeline.set_state(Gst.State.NULL)
        print('FAILED')
        return 1
    src.set_caps(Gst.Caps.from_string('video/x-bayer,format=rggb,width=%d,height=%d,'
                                      'framerate=30/1' % (WIDTH, HEIGHT)))
    sink.set_caps(Gst.Caps.from_string('video/x-raw,format=GRAY8'))
    pipeline.set_state(Gst.State.PLAYING)

    ok = True
    for i in range(FRAMES):
        # appsrc queues the buffer until the pipeline runs.
        if src.push_buffer(bayer_frame(i)) != Gst.FlowReturn.OK:
            ok = False
            break
        sample = pull_result(pipeline, sink)
        if not sample or not check_edges(i, sample):
            ok = False
            break

    # End of stream: the pipeline drains and posts EOS.
    src.end_of_stream()
    msg = pipeline.get_bus().timed_pop_filtered(30 * Gst.SECOND,
                                                Gst.MessageType.EOS | Gst.MessageType.ERROR)
    if not msg or msg.type != Gst.MessageType.EOS:
        if msg:
            print_error(msg)
        else:
            print('no end of stream')
        ok = False
    pipeline.set_state(Gst.State.NULL)
    print('all frames right' if ok else 'FAILED')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
