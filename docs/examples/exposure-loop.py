#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Auto exposure from cldebayer's statistics, driving the sensor itself.

cldebayer posts a `cldebayer-statistics` element message every
`statistics-interval` frames (64-bin luma histogram, 16 x 12 zone means,
their mean `zone-mean`, the frame's pts). A camera application should move
the sensor's own exposure (time and analogue gain: more light, less noise)
from them, and keep cldebayer's digital `exposure-gain` as the fallback.
This loop moves the exposure by a fraction of the way to the one that puts
`zone-mean` at the target, on the mean of the last few measures (a light
flickering at the mains' rate averages out).

    # a V4L2 raw sensor: its exposure control through v4l2src extra-controls
    python3 exposure-loop.py --device /dev/video0 --control exposure_time_absolute

    # no camera: a simulated sensor (videotestsrc through videobalance, whose
    # contrast stands for the exposure, mosaicked by rgb2bayer); checks that
    # the loop reaches the target and exits non-zero otherwise (a test runs it)
    python3 exposure-loop.py --simulate --frames 90
"""
import argparse
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", help="V4L2 device of a raw sensor")
    ap.add_argument("--control", default="exposure_time_absolute",
                    help="its exposure control, as v4l2-ctl names it")
    ap.add_argument("--min", type=float, default=1, help="the control's smallest value")
    ap.add_argument("--max", type=float, default=10000, help="the control's largest value")
    ap.add_argument("--start", type=float, default=100, help="the exposure to start from")
    ap.add_argument("--simulate", action="store_true", help="a simulated sensor, no camera")
    ap.add_argument("--target", type=float, default=0.18, help="mean of the zone means")
    ap.add_argument("--speed", type=float, default=0.3)
    ap.add_argument("--frames", type=int, default=0, help="stop after N frames (0: never)")
    args = ap.parse_args()

    Gst.init(None)
    if args.simulate:
        # the "exposure" is videobalance's contrast (luma scaled about 16)
        args.min, args.max, args.start = 0.02, 1.0, 0.1
        source = ("videotestsrc pattern=smpte num-buffers=%d ! "
                  "video/x-raw,width=320,height=240 ! "
                  "videobalance name=sensor contrast=%f ! videoconvert ! rgb2bayer ! "
                  "video/x-bayer,format=rggb" % (args.frames or -1, args.start))
    else:
        source = ("v4l2src name=sensor device=%s num-buffers=%d ! video/x-bayer"
                  % (args.device, args.frames or -1))
    pipeline = Gst.parse_launch(
        source + " ! cldebayer white-balance=auto transfer=srgb statistics-interval=1 ! "
        "video/x-raw,format=I420 ! fakesink sync=false")
    sensor = pipeline.get_by_name("sensor")
    exposure = args.start

    def apply(value):
        if args.simulate:
            sensor.set_property("contrast", value)
        else:
            # applied at once while the device is open
            controls = Gst.Structure.new_from_string(
                "controls,%s=%d" % (args.control, int(round(value))))
            sensor.set_property("extra-controls", controls)

    if not args.simulate:
        apply(exposure)
    history = []
    last = {"mean": None}
    loop = GLib.MainLoop()

    def on_message(_bus, msg):
        nonlocal exposure
        if msg.type == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s.get_name() != "cldebayer-statistics":
                return
            mean = s.get_value("zone-mean")
            last["mean"] = mean
            history.append(mean)
            del history[:-4]
            measured = sum(history) / len(history)
            if measured > 0:
                want = exposure * args.target / measured
                exposure += args.speed * (want - exposure)
                exposure = min(max(exposure, args.min), args.max)
                apply(exposure)
                # the measures taken at the old exposure are stale now
                history.clear()
        elif msg.type == Gst.MessageType.EOS:
            loop.quit()
        elif msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            print("error: %s (%s)" % (err.message, dbg), file=sys.stderr)
            last["error"] = True
            loop.quit()

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    pipeline.set_state(Gst.State.PLAYING)
    try:
        loop.run()
    except KeyboardInterrupt:
        pass
    pipeline.set_state(Gst.State.NULL)
    bus.remove_signal_watch()
    mean = last["mean"]
    print("exposure %.4g, zone mean %s (target %.3g)"
          % (exposure, "none" if mean is None else "%.4f" % mean, args.target))
    if args.simulate:
        # the loop must have reached the target
        if last.get("error") or mean is None or abs(mean / args.target - 1) > 0.1:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
