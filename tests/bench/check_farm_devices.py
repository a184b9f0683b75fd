#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""farm-devices: the camera farm spread over two devices (PoCL with
POCL_DEVICES="pthread pthread", tests/bench/meson.build): --farm-devices auto,
paced and unpaced, one process and processes. Each device gets half of the
pipelines (the benchmark checks each pipeline runs on the device it was sent
to), every device moves frames, the devices' frames add up to the total and,
paced, every frame captured in the window reaches the sink or is counted
dropped. Then 4 pipelines whose elements make their own contexts with
GST_OPENCL_DEVICE=auto: dealt by the devices' live contexts."""
import json
import math
import os
import subprocess
import sys


def main():
    bench, outdir = sys.argv[1], sys.argv[2]
    path = os.path.join(outdir, 'bench-farm-devices.json')
    if os.path.exists(path):
        os.remove(path)
    proc = subprocess.run([bench, '--farm-devices', 'auto', '--farm-paced', '4',
                           '--farm-unpaced', '2', '--farm-seconds', '1', '--farm-warmup', '0.5',
                           '--farm-size', '320x240', '--farm-ways', 'both', '--limit-mib', '16',
                           '--json', path, '--markdown',
                           os.path.join(outdir, 'bench-farm-devices.md')], timeout=110)
    errors = []
    if proc.returncode != 0:
        errors.append(f'gst-opencl-bench exited with {proc.returncode}')
    runs = json.load(open(path))['farm']['runs'] if os.path.exists(path) else []
    if len(runs) != 4:
        errors.append(f'expected 4 farm runs, got {len(runs)}')
    for r in runs:
        name = f"farm {r['way']} x{r['pipelines']} {'paced' if r['paced'] else 'unpaced'}"
        if r['status'] != 'ok':
            errors.append(f"{name}: {r['status']}: {r.get('message')}")
            continue
        devices = r.get('devices', [])
        if [d['index'] for d in devices] != [0, 1]:
            errors.append(f'{name}: devices {[d["index"] for d in devices]}, not [0, 1]')
            continue
        if [d['pipelines'] for d in devices] != [r['pipelines'] // 2] * 2:
            errors.append(f'{name}: pipelines by device {[d["pipelines"] for d in devices]}')
        if any(d['frames'] <= 0 or not math.isfinite(d['fps']) for d in devices):
            errors.append(f'{name}: a device moved no frames: {devices}')
        if sum(d['frames'] for d in devices) != r['frames']:
            errors.append(f'{name}: the devices\' frames do not add up to {r["frames"]}')
        if r['paced']:
            for d in devices:
                if d['frames'] + d['dropped'] != d['frames_expected'] or \
                        not 20 <= d['frames_expected'] <= 40 * d['pipelines']:
                    errors.append(f"{name}: device {d['index']}: {d['frames']} frames + "
                                  f"{d['dropped']} dropped of {d['frames_expected']}")
        if not r['cpu_percent_of_a_core_per_stream'] > 0:
            errors.append(f'{name}: no CPU a stream')
        print(f"{name}: " + ', '.join(f"device {d['index']} {d['fps']:.1f} frames/s"
                                     for d in devices))
    # device=auto in the elements: no context handed in (--farm-contexts 0),
    # GST_OPENCL_DEVICE=auto; the benchmark's own two contexts sit on the
    # first device, so the first pipelines go to the second
    path = os.path.join(outdir, 'bench-farm-auto.json')
    if os.path.exists(path):
        os.remove(path)
    proc = subprocess.run([bench, '--device', 'auto', '--farm-contexts', '0', '--farm-paced', '4',
                           '--farm-seconds', '1', '--farm-warmup', '0.5', '--farm-size', '160x120',
                           '--farm-ways', 'shared', '--limit-mib', '16', '--json', path],
                          stdout=subprocess.DEVNULL, timeout=60)
    runs = json.load(open(path))['farm']['runs'] if os.path.exists(path) else []
    if proc.returncode != 0 or len(runs) != 1 or runs[0]['status'] != 'ok':
        errors.append(f'farm with device=auto: exit {proc.returncode}, {runs}')
    else:
        r = runs[0]
        by_device = {d['index']: d['pipelines'] for d in r.get('devices', [])}
        if by_device != {0: 1, 1: 3} or not r['own_contexts']:
            errors.append(f'farm with device=auto: pipelines by device {by_device}, '
                          'expected {0: 1, 1: 3}')
        if r['frames'] + r['dropped'] != r['frames_expected'] or r['frames'] == 0:
            errors.append(f"farm with device=auto: {r['frames']} frames + {r['dropped']} "
                          f"dropped of {r['frames_expected']}")
        print(f'farm with device=auto: pipelines by device {by_device}')
    for e in errors:
        print('FAIL:', e)
    sys.exit(1 if errors else 0)


if __name__ == '__main__':
    main()
