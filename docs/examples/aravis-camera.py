#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""aravis-camera.py: a GenICam camera (GigE Vision or USB3 Vision, through
Aravis) into cldebayer, for any Bayer depth on a stock Debian/Ubuntu, whose
Aravis 0.8 element (aravissrc, Debian 12: 0.8.26) gives 8-bit Bayer only.

    Aravis stream -> appsrc (live, time, 2 buffers, leaky)
        ! cldebayer (camera stages) ! video/x-raw,format=I420
        ! openh264enc ! h264parse ! mp4mux ! filesink        (--output x.mp4)
                                  ! rtph264pay ! udpsink     (--output rtp://HOST:PORT)
    or  ! cldebayer ! video/x-raw,format=RGB ! appsink       (--output x.rgb: raw frames)

What an application has to do here, and why (docs/camera.md, "A GigE Vision
camera through Aravis"):
- appsrc is-live=true format=time: a camera is a live source; the default
  format=bytes gives byte segments, wrong for video.
- max-buffers=2 max-bytes=0 leaky-type=downstream: when the camera outruns
  the pipeline the oldest frames are dropped and the latency stays bounded
  (the default queue grows without bound; block=true stalls this loop, and
  Aravis, out of buffers, loses frames itself). max-bytes=0: the default
  200000 bytes is less than one 640x480 frame, and would leave a queue of
  one frame, which drops frames whenever this loop is a little late.
- PTS in running time: the pipeline clock's time at arrival minus the base
  time (--timestamps arrival), or the camera's timestamps moved to start at
  the first frame's arrival (--timestamps camera). Aravis's buffer timestamp
  is the camera's clock, its system timestamp the host's wall clock: neither
  is running time.
- Rows: Aravis gives rows of exactly width x bytes a sample (plus the
  camera's x padding); GStreamer's default Bayer layout pads rows to 4 bytes,
  so the example attaches a GstVideoMeta with the real stride to every frame.
- The pixel format maps to video/x-bayer: Bayer{RG,GR,GB,BG}{8,10,12,14,16}
  -> {rggb,grbg,gbrg,bggr}{,10le,12le,14le,16le} (--mosaic: MonoN as one of
  them). Packed formats (BayerRG12p, BayerRG12Packed, ...) are refused:
  unpack them to 16-bit words first.

The first frame builds cldebayer's OpenCL program in the streaming thread
(seconds on a CPU device the first time): the example waits for it to come
out before pushing more, and hands the frames that arrive meanwhile back to
Aravis (counted as skipped_at_start).

--summary FILE writes a JSON summary ('-': stdout): camera, pipeline, frames
in (pushed into appsrc) and out (at the muxer, payloader or appsink), latency
from the push to there (the first frame's, then p50, p95 and max of the
others), each output frame's camera block id,
camera timestamp and PTS, and cldebayer's white-balance gains and statistics.

Needs PyGObject and the typelibs of GStreamer and Aravis 0.8 (Debian/Ubuntu:
python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
gir1.2-aravis-0.8), openh264enc (gstreamer1.0-plugins-bad) for the encoded
outputs, and the opencl plugin, installed or on GST_PLUGIN_PATH. Try it
without a camera: `arv-fake-gv-camera-0.8 -i 127.0.0.1` (aravis-tools), then
`python3 aravis-camera.py --camera 127.0.0.1 --pixel-format BayerGR8`.
"""
import argparse
import json
import re
import sys
import threading

try:
    import gi
    gi.require_version('Aravis', '0.8')
    gi.require_version('Gst', '1.0')
    gi.require_version('GstVideo', '1.0')
    gi.require_version('GstApp', '1.0')
    # GstApp: appsrc's and appsink's methods
    from gi.repository import Aravis, GLib, Gst, GstApp, GstVideo  # noqa: F401
except (ImportError, ValueError) as e:
    sys.exit('PyGObject with the GStreamer and Aravis 0.8 typelibs is needed (Debian/Ubuntu: '
             'python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0 gir1.2-aravis-0.8): %s'
             % e)

BAYER_ORDER = {'RG': 'rggb', 'GR': 'grbg', 'GB': 'gbrg', 'BG': 'bggr'}
BAYER_DEPTH = {8: '', 10: '10le', 12: '12le', 14: '14le', 16: '16le'}


def bayer_format(pixel_format, pixel_format_value, mosaic=None):
    """The video/x-bayer format of a GenICam pixel format name, or raises
    ValueError saying why not. The bits a pixel (bits 16-23 of the PFNC value)
    must be 8 or 16: 10..16-bit samples in little-endian 16-bit words, low bits
    significant, as GStreamer's ...10le/12le/16le. mosaic (rggb, ...) reads a
    MonoN format as Bayer: a sensor whose format does not name its colour
    filter."""
    m = re.fullmatch(r'(Bayer(RG|GR|GB|BG)|Mono)(\d+)(.*)', pixel_format)
    if m and m.group(2):
        order = BAYER_ORDER[m.group(2)]
    elif m and mosaic:
        order = mosaic
    else:
        raise ValueError('%s is not a Bayer format: cldebayer takes BayerRG/GR/GB/BG 8, 10, 12, '
                         '14 or 16 (--mosaic reads MonoN as Bayer)' % pixel_format)
    name, depth, rest = m.group(1), int(m.group(3)), m.group(4)
    bits = (pixel_format_value >> 16) & 0xff
    if rest or bits not in (8, 16):
        raise ValueError('%s is a packed format (%d bits a pixel), which this example does not '
                         'support: choose the unpacked %s%d (16-bit words), or unpack the '
                         'samples before appsrc' % (pixel_format, bits, name, depth))
    if depth not in BAYER_DEPTH or (depth == 8) != (bits == 8):
        raise ValueError('%s: %d-bit Bayer is not supported (8, 10, 12, 14 or 16)'
                         % (pixel_format, depth))
    return order + BAYER_DEPTH[depth], bits // 8


def output_pipeline(output, width, height, fps):
    """The pipeline after cldebayer for --output, and the pad that counts
    the frames out: the appsink's, or the encoded frames into the muxer or
    payloader."""
    if output.endswith('.rgb'):
        return 'video/x-raw,format=RGB ! appsink name=out sync=false', ('out', 'sink')
    # About 0.15 bits a pixel: 9 Mbit/s for 1080p30.
    encoder = 'video/x-raw,format=I420 ! openh264enc bitrate=%d ! h264parse name=out' % max(
        int(width * height * fps * 0.15), 256000)
    m = re.fullmatch(r'rtp://([^:/]+):(\d+)', output)
    if m:
        # No sync: frames leave as soon as they are encoded.
        return ('%s ! rtph264pay config-interval=-1 ! udpsink host=%s port=%s sync=false'
                % (encoder, m.group(1), m.group(2))), ('out', 'src')
    if output.endswith('.mp4'):
        return '%s ! mp4mux ! filesink location="%s"' % (encoder, output), ('out', 'src')
    raise ValueError('--output: FILE.mp4, FILE.rgb or rtp://HOST:PORT, not %s' % output)


def percentile(values, p):
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100.0 * (len(v) - 1))))]


class Camera:
    """The Aravis side: the camera set up, its stream and its buffers."""

    def __init__(self, args):
        try:
            self.cam = Aravis.Camera.new(args.camera)
        except GLib.Error as e:
            raise RuntimeError('no camera %s: %s' % (args.camera or '(the first one)', e.message))
        cam = self.cam
        if args.pixel_format:
            cam.set_pixel_format_from_string(args.pixel_format)
        if args.width or args.height:
            _, _, w, h = cam.get_region()
            cam.set_region(0, 0, args.width or w, args.height or h)
        if args.frame_rate:
            cam.set_frame_rate(args.frame_rate)
        if cam.is_gv_device():
            # The largest packet the path to the camera takes (jumbo frames).
            cam.gv_auto_packet_size()
        self.pixel_format = cam.get_pixel_format_as_string()
        self.format, self.bytes_per_sample = bayer_format(self.pixel_format,
                                                          cam.get_pixel_format(), args.mosaic)
        _, _, self.width, self.height = cam.get_region()
        try:
            self.fps = cam.get_frame_rate()
        except GLib.Error:
            self.fps = None      # no AcquisitionFrameRate: a variable rate
        self.stream = cam.create_stream(None, None)
        if not self.stream:
            raise RuntimeError('cannot open a stream from the camera')
        payload = cam.get_payload()
        for _ in range(8):
            self.stream.push_buffer(Aravis.Buffer.new_allocate(payload))

    def info(self):
        c = self.cam
        return {'id': c.get_device_id(), 'vendor': c.get_vendor_name(),
                'model': c.get_model_name(), 'serial': c.get_device_serial_number(),
                'pixel_format': self.pixel_format, 'caps_format': self.format,
                'width': self.width, 'height': self.height, 'frame_rate': self.fps}

    def pop(self, timeout_s=2.0):
        return self.stream.timeout_pop_buffer(int(timeout_s * 1e6))

    def give_back(self, buf):
        self.stream.push_buffer(buf)


class Pipeline:
    """The GStreamer side: appsrc -> cldebayer -> output, with a probe on the
    output that counts frames and measures the latency."""

    def __init__(self, args, camera):
        Gst.init(None)
        self.caps = Gst.Caps.from_string(
            'video/x-bayer,format=%s,width=%d,height=%d,framerate=%d/1000' % (
                camera.format, camera.width, camera.height, int(round((camera.fps or 0) * 1000))))
        tail, probe_on = output_pipeline(args.output, camera.width, camera.height,
                                         camera.fps or 30)
        stages = 'white-balance=%s transfer=%s' % (args.white_balance, args.transfer)
        self.description = (
            'appsrc name=src is-live=true format=time do-timestamp=false max-buffers=2 '
            'max-bytes=0 leaky-type=downstream block=false ! cldebayer name=debayer %s ! %s'
            % (stages, tail))
        try:
            self.pipeline = Gst.parse_launch(self.description)
        except GLib.Error as e:
            raise RuntimeError('cannot build the pipeline: %s (is the opencl plugin installed, '
                               'or on GST_PLUGIN_PATH? openh264enc: gstreamer1.0-plugins-bad)'
                               % e.message)
        self.src = self.pipeline.get_by_name('src')
        self.src.set_caps(self.caps)
        self.debayer = self.pipeline.get_by_name('debayer')
        self.lock = threading.Lock()
        self.pushed_at = {}          # PTS -> (clock time of the push, camera frame id, camera ts)
        self.out = []                # one dict an output frame
        self.first_out = threading.Event()
        out = self.pipeline.get_by_name(probe_on[0])
        out.get_static_pad(probe_on[1]).add_probe(Gst.PadProbeType.BUFFER, self._on_frame_out)
        self.raw_file = None
        if args.output.endswith('.rgb'):
            self.raw_file = open(args.output, 'wb')
            out.set_property('emit-signals', True)
            out.connect('new-sample', self._write_raw)
        self.clock = None

    def start(self):
        if self.pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
            self.check_bus()
            raise RuntimeError('the pipeline does not start')
        # The clock and base time are chosen now; a live pipeline's sinks
        # complete the change to PLAYING at the first frame.
        self.clock = self.pipeline.get_clock()

    def running_time(self):
        return self.clock.get_time() - self.src.get_base_time()

    def push(self, data, layout, pts, duration, frame_id, camera_ts):
        buf = Gst.Buffer.new_wrapped(data)
        buf.pts, buf.duration = pts, duration
        # Aravis's rows are packed; cldebayer reads the real stride from the
        # meta (without it, rows padded to 4 bytes; GRAY8/GRAY16_LE stand for
        # one plane of 1- or 2-byte samples).
        fmt = GstVideo.VideoFormat.GRAY8 if layout.bytes_per_sample == 1 \
            else GstVideo.VideoFormat.GRAY16_LE
        GstVideo.buffer_add_video_meta_full(buf, GstVideo.VideoFrameFlags.NONE, fmt,
                                            layout.width, layout.height, 1, [0, 0, 0, 0],
                                            [layout.stride, 0, 0, 0])
        with self.lock:
            self.pushed_at[pts] = (self.clock.get_time(), frame_id, camera_ts)
        return self.src.push_buffer(buf)

    def _on_frame_out(self, pad, info):
        now = self.clock.get_time() if self.clock else 0
        pts = info.get_buffer().pts
        with self.lock:
            pushed = self.pushed_at.pop(pts, None)
        if pushed:
            t, frame_id, camera_ts = pushed
            self.out.append({'frame_id': frame_id, 'camera_timestamp_ns': camera_ts,
                             'pts_ns': pts, 'latency_ms': (now - t) / 1e6})
        else:
            self.out.append({'pts_ns': pts, 'latency_ms': None})
        self.first_out.set()
        return Gst.PadProbeReturn.OK

    def _write_raw(self, sink):
        """Writes each RGB frame with rows of exactly 3 x width bytes."""
        sample = sink.emit('pull-sample')
        buf = sample.get_buffer()
        info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
        meta = GstVideo.buffer_get_video_meta(buf)
        offset, stride = (meta.offset[0], meta.stride[0]) if meta else (info.offset[0],
                                                                         info.stride[0])
        data = buf.extract_dup(0, buf.get_size())
        row = 3 * info.width
        self.raw_file.write(b''.join(data[offset + y * stride:offset + y * stride + row]
                                     for y in range(info.height)))
        return Gst.FlowReturn.OK

    def check_bus(self):
        """Raises on an error message."""
        msg = self.pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
        if msg:
            err, debug = msg.parse_error()
            raise RuntimeError('error from %s: %s\n%s' % (msg.src.get_name(), err.message,
                                                          debug or ''))

    def finish(self, timeout_s=30):
        """End of stream, then waits for it at the sink (mp4mux writes its
        index there)."""
        self.src.end_of_stream()
        msg = self.pipeline.get_bus().timed_pop_filtered(
            timeout_s * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
        ok = msg is not None and msg.type == Gst.MessageType.EOS
        if msg and msg.type == Gst.MessageType.ERROR:
            err, debug = msg.parse_error()
            print('error from %s: %s\n%s' % (msg.src.get_name(), err.message, debug or ''),
                  file=sys.stderr)
        elif not msg:
            print('no end of stream within %d s' % timeout_s, file=sys.stderr)
        return ok

    def white_balance(self):
        d = self.debayer
        stats = d.get_property('statistics')
        fields = {}
        if stats:
            for i in range(stats.n_fields()):
                name = stats.nth_field_name(i)
                fields[name] = stats.get_value(name)
        return {'red-gain': d.get_property('red-gain'), 'green-gain': d.get_property('green-gain'),
                'blue-gain': d.get_property('blue-gain'), 'statistics': fields}

    def stop(self):
        self.pipeline.set_state(Gst.State.NULL)
        if self.raw_file:
            self.raw_file.close()


class Layout:
    """One Aravis frame's rows."""

    def __init__(self, buf, bytes_per_sample):
        self.width, self.height = buf.get_image_width(), buf.get_image_height()
        self.bytes_per_sample = bytes_per_sample
        x_padding, _ = buf.get_image_padding()
        self.stride = self.width * bytes_per_sample + x_padding
        self.size = self.stride * (self.height - 1) + self.width * bytes_per_sample


def run(args):
    camera = Camera(args)
    pipe = Pipeline(args, camera)
    print('%s %s, %s %dx%d -> %s' % (camera.cam.get_vendor_name(), camera.cam.get_model_name(),
                                     camera.pixel_format, camera.width, camera.height,
                                     pipe.description), file=sys.stderr)
    summary = {'camera': camera.info(), 'pipeline': pipe.description,
               'timestamps': args.timestamps}
    duration = int(Gst.SECOND / camera.fps) if camera.fps else Gst.CLOCK_TIME_NONE
    pushed = skipped = incomplete = 0
    first_camera_ts = first_pts = first_push = None
    last_pts = -1
    pipe.start()
    camera.cam.start_acquisition()
    try:
        while args.frames == 0 or pushed < args.frames:
            pipe.check_bus()
            buf = camera.pop()
            if buf is None:
                raise RuntimeError('no frame from the camera within 2 s')
            if buf.get_status() != Aravis.BufferStatus.SUCCESS:
                incomplete += 1      # lost packets, a timeout: not a frame
                camera.give_back(buf)
                continue
            if pushed == 1 and not pipe.first_out.is_set():
                # The first frame is still building cldebayer's program.
                skipped += 1
                camera.give_back(buf)
                if pipe.running_time() - first_push > 120 * Gst.SECOND:
                    raise RuntimeError('the first frame did not come out in 120 s')
                continue
            now = pipe.running_time()
            camera_ts = buf.get_timestamp()
            if args.timestamps == 'camera':
                if first_camera_ts is None:
                    first_camera_ts, first_pts = camera_ts, now
                pts = first_pts + (camera_ts - first_camera_ts)
            else:
                pts = now
            if pts <= last_pts:      # equal clock readings, a camera clock reset
                pts = last_pts + 1
            last_pts = pts
            if pushed == 0:
                first_push = now
            layout = Layout(buf, camera.bytes_per_sample)
            data = buf.get_image_data()
            frame_id = buf.get_frame_id()
            camera.give_back(buf)    # the data is a copy
            if len(data) < layout.size:
                incomplete += 1
                continue
            ret = pipe.push(data, layout, pts, duration, frame_id, camera_ts)
            if ret != Gst.FlowReturn.OK:
                pipe.check_bus()
                raise RuntimeError('appsrc refused a frame: %s' % ret.value_nick)
            pushed += 1
    except KeyboardInterrupt:
        print('interrupted: finishing the stream', file=sys.stderr)
    finally:
        ok = pipe.finish()
        camera.cam.stop_acquisition()
        # ArvStream's counters (ArvGvStream's get_statistics gives other ones).
        completed, failures, underruns = Aravis.Stream.get_statistics(camera.stream)
        pipe.stop()
    # The first frame built the program: its latency apart, the others' percentiles.
    latencies = [f['latency_ms'] for f in pipe.out[1:] if f.get('latency_ms') is not None]
    summary.update({
        'frames_in': pushed, 'frames_out': len(pipe.out), 'skipped_at_start': skipped,
        'incomplete': incomplete,
        'aravis': {'completed': completed, 'failures': failures, 'underruns': underruns},
        'latency_ms': {'first': pipe.out[0]['latency_ms'] if pipe.out else None,
                       'p50': percentile(latencies, 50), 'p95': percentile(latencies, 95),
                       'max': max(latencies) if latencies else None},
        'white_balance': pipe.white_balance(),
        'frames': pipe.out, 'eos': ok,
        # pushed but never out: dropped by appsrc's leaky queue
        'lost': sorted((f, pts) for pts, (_, f, _) in pipe.pushed_at.items())})
    return summary, ok


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--camera', default=None,
                   help='device id (e.g. Aravis-Fake-GV01) or IP address; default: the first')
    p.add_argument('--frames', type=int, default=300, help='frames to push (0: until Ctrl-C)')
    p.add_argument('--width', type=int, default=0)
    p.add_argument('--height', type=int, default=0)
    p.add_argument('--pixel-format', default=None, help='GenICam name, e.g. BayerRG12')
    p.add_argument('--frame-rate', type=float, default=None)
    p.add_argument('--output', default='camera.mp4',
                   help='FILE.mp4 (H.264), rtp://HOST:PORT (H.264 over RTP) or FILE.rgb '
                        '(raw RGB frames, rows of 3 x width bytes)')
    p.add_argument('--mosaic', default=None, choices=sorted(BAYER_ORDER.values()),
                   help='read a MonoN pixel format as this Bayer pattern (a sensor whose '
                        'format does not name its colour filter)')
    p.add_argument('--white-balance', default='auto', choices=['none', 'auto'])
    p.add_argument('--transfer', default='srgb', choices=['linear', 'srgb', 'bt709', 'gamma'])
    p.add_argument('--timestamps', default='arrival', choices=['arrival', 'camera'],
                   help='PTS from the pipeline clock at arrival, or the camera clock mapped '
                        'to start at the first arrival')
    p.add_argument('--summary', default=None, help='write a JSON summary to FILE (-: stdout)')
    args = p.parse_args()
    try:
        summary, ok = run(args)
    except (RuntimeError, ValueError) as e:
        print(e, file=sys.stderr)
        return 1
    except GLib.Error as e:
        print('Aravis: %s' % e.message, file=sys.stderr)
        return 1
    if args.summary == '-':
        json.dump(summary, sys.stdout, indent=1)
    elif args.summary:
        with open(args.summary, 'w') as f:
            json.dump(summary, f, indent=1)
    lat = summary['latency_ms']
    print('%d frames in, %d out, latency p50 %s ms, p95 %s ms' % (
        summary['frames_in'], summary['frames_out'],
        '%.1f' % lat['p50'] if lat['p50'] is not None else '-',
        '%.1f' % lat['p95'] if lat['p95'] is not None else '-'), file=sys.stderr)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
