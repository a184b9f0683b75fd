#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The several-hosts recipe of docs/scale.md, on one machine over the
loopback: one gst-launch-1.0 debayers camera frames with cldebayer and sends
them as RTP raw video (rtpvrawpay ! udpsink); a second one receives them
(udpsrc ! rtpvrawdepay) and writes them to a file. Every frame must arrive,
byte for byte what the same cldebayer pipeline writes to a file locally."""
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

W, H, N = 64, 48, 12
SOURCE = ('videotestsrc num-buffers=%d pattern=smpte ! '
          'video/x-raw,format=ARGB,width=%d,height=%d,framerate=30/1 ! rgb2bayer ! '
          'video/x-bayer,format=rggb ! cldebayer method=malvar ! video/x-raw,format=RGBA'
          % (N, W, H))
RTP_CAPS = ('application/x-rtp,media=(string)video,clock-rate=(int)90000,'
            'encoding-name=(string)RAW,sampling=(string)RGBA,depth=(string)8,'
            'width=(string)%d,height=(string)%d,payload=(int)96' % (W, H))


def launch(desc, **kw):
    return subprocess.Popen(['gst-launch-1.0', '-e'] + desc.split(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, **kw)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def main():
    tmp = tempfile.mkdtemp(prefix='farm-rtp-')
    ref, got = os.path.join(tmp, 'ref.raw'), os.path.join(tmp, 'got.raw')
    port = free_port()

    r = subprocess.run(['gst-launch-1.0'] + (SOURCE + ' ! filesink location=' + ref).split(),
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        sys.exit('reference pipeline failed: ' + r.stdout + r.stderr)

    receiver = launch('udpsrc address=127.0.0.1 port=%d caps=%s ! rtpvrawdepay ! '
                      'video/x-raw,format=RGBA,width=%d,height=%d ! filesink location=%s'
                      % (port, RTP_CAPS, W, H, got))
    # wait until the receiver is listening
    for line in receiver.stdout:
        if 'PLAYING' in line:
            break
    sender = subprocess.run(['gst-launch-1.0'] + (SOURCE + ' ! rtpvrawpay ! udpsink '
                            'host=127.0.0.1 port=%d sync=true' % port).split(),
                            capture_output=True, text=True, timeout=60)
    time.sleep(0.5)
    receiver.send_signal(signal.SIGINT)  # -e: end of stream, the file is complete
    out, _ = receiver.communicate(timeout=30)
    if sender.returncode != 0:
        sys.exit('sender failed: ' + sender.stdout + sender.stderr)
    if receiver.returncode != 0:
        sys.exit('receiver failed: ' + out)

    frame = W * H * 4
    a, b = open(ref, 'rb').read(), open(got, 'rb').read()
    print('reference %d bytes (%d frames), received %d bytes (%d frames)'
          % (len(a), len(a) // frame, len(b), len(b) // frame))
    if len(a) != N * frame:
        sys.exit('the reference pipeline wrote %d bytes, not %d frames' % (len(a), N))
    if a != b:
        bad = [i for i in range(N) if a[i * frame:(i + 1) * frame] != b[i * frame:(i + 1) * frame]]
        sys.exit('received frames differ from the local ones: frames %s' % bad)
    print('all %d frames arrived intact' % N)


if __name__ == '__main__':
    main()
