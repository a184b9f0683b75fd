#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench-quick: runs gst-opencl-bench --quick and checks its report: valid
JSON, the device limits and every measured figure positive, no case failing
(cases whose element is not installed are skipped, which is allowed)."""
import json
import math
import os
import subprocess
import sys


def positive(value):
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def check_farm(bench, outdir):
    """A tiny camera farm: 2 paced pipelines for 1 s, in one process and in
    two processes; every frame captured in the window reaches the sink."""
    path = os.path.join(outdir, 'bench-farm.json')
    if os.path.exists(path):
        os.remove(path)
    proc = subprocess.run([bench, '--farm-paced', '2', '--farm-seconds', '1', '--farm-warmup',
                           '0.5', '--farm-size', '320x240', '--farm-ways', 'both',
                           '--limit-mib', '16', '--json', path, '--markdown',
                           os.path.join(outdir, 'bench-farm.md')], timeout=110)
    if proc.returncode != 0:
        return [f'gst-opencl-bench --farm-paced exited with {proc.returncode}']
    with open(path) as f:
        runs = json.load(f)['farm']['runs']
    errors = []
    if sorted(r['way'] for r in runs) != ['one process', 'processes']:
        errors.append(f'farm: expected both ways, got {[r["way"] for r in runs]}')
    for r in runs:
        name = f"farm {r['way']} x{r['pipelines']}"
        if r['status'] != 'ok':
            errors.append(f"{name}: {r['status']}: {r.get('message')}")
            continue
        # 2 pipelines x 30 frames/s x 1 s; the machine may be busy, so late
        # frames are allowed here, lost ones not
        if not 50 <= r['frames_expected'] <= 70 or r['frames'] + r['dropped'] != r['frames_expected']:
            errors.append(f"{name}: frames {r['frames']} + dropped {r['dropped']} of "
                          f"{r['frames_expected']}")
        if r['frames'] == 0 or not positive(r['cpu_ms_per_frame']) or \
                not positive(r['device_mib_per_pipeline']):
            errors.append(f'{name}: a figure is not positive')
    return errors


def check_device_rate(bench, outdir):
    """The device's frames/s from several device-resident pipelines at once
    (forced here: on a CPU device one pipeline usually saturates it)."""
    path = os.path.join(outdir, 'bench-device-rate.json')
    if os.path.exists(path):
        os.remove(path)
    proc = subprocess.run([bench, '--sizes', '64x64', '--repeats', '1', '--frames', '20',
                           '--concurrent', '0', '--device-pipelines', '2', '--device-seconds',
                           '0.1', '--only', '=clsobel GRAY8', '--limit-mib', '16', '--json',
                           path, '--markdown', os.path.join(outdir, 'bench-device-rate.md')],
                          timeout=60)
    if proc.returncode != 0:
        return [f'gst-opencl-bench --device-pipelines exited with {proc.returncode}']
    with open(path) as f:
        results = json.load(f)['results']
    kernels = [r['kernel'] for r in results if r['mode'] == 'device' and r['status'] == 'ok']
    if len(kernels) != 1:
        return [f'device rate: expected one device-resident result, got {len(kernels)}']
    k = kernels[0]
    if k.get('device_pipelines') != 2 or not positive(k.get('device_fps')) or \
            not positive(k.get('fps_vs_kernel_rate')):
        return [f"device rate: pipelines {k.get('device_pipelines')}, frames/s "
                f"{k.get('device_fps')}, vs kernel rate {k.get('fps_vs_kernel_rate')}"]
    return []


def main():
    bench, outdir = sys.argv[1], sys.argv[2]
    json_path = os.path.join(outdir, 'bench-quick.json')
    md_path = os.path.join(outdir, 'bench-quick.md')
    for p in (json_path, md_path):
        if os.path.exists(p):
            os.remove(p)
    proc = subprocess.run([bench, '--quick', '--json', json_path, '--markdown', md_path],
                          timeout=110)
    if proc.returncode != 0:
        sys.exit(f'gst-opencl-bench exited with {proc.returncode}')
    with open(json_path) as f:
        report = json.load(f)
    errors = []

    for key in ('name', 'driver_version'):
        if not report['device'].get(key):
            errors.append(f'device.{key} missing')
    if not report.get('gstreamer'):
        errors.append('gstreamer version missing')
    limits = report['limits']
    for key in ('copy_gbps', 'h2d_pinned_gbps', 'd2h_pinned_gbps', 'h2d_malloc_gbps',
                'd2h_malloc_gbps'):
        if not positive(limits.get(key)):
            errors.append(f'limits.{key} = {limits.get(key)}')

    measured = 0
    for r in report['results']:
        name = f"{r['case']} [{r['mode']}] {r['size']}"
        if r['status'] == 'skipped':
            print(f'{name}: skipped ({r.get("message")})')
            continue
        if r['status'] != 'ok':
            errors.append(f'{name}: {r["status"]}: {r.get("message")}')
            continue
        measured += 1
        figures = [r['fps']['median'], r['mpixel_s'], r['latency_ms']['median'],
                   r['first_frame_ms']['first_run'], r['in_frame_bytes'], r['out_frame_bytes']]
        if r['mode'] == 'device':
            figures += [r['kernel']['ms_per_frame']['median'], r['kernel']['gbps'],
                        r['kernel']['fraction_of_copy'],
                        r['kernel'].get('copy_same_bytes_ms'),
                        r['kernel'].get('fraction_of_same_bytes_copy')]
            if 'device_pipelines' in r['kernel']:
                figures.append(r['kernel'].get('device_fps'))
            # launches that gather cldebayer's statistics are timed apart;
            # only auto white balance and the sensor pass's statistics
            # (the isp case) have them (how many fall in 4 timed frames
            # depends on the device's pace)
            if 'statistics_launch_ms' in r['kernel']:
                gathers = ('camera' in r['case'] and 'manual' not in r['case']) or \
                    'isp' in r['case']
                if not gathers:
                    errors.append(f'{name}: statistics launches without auto white balance '
                                  'or the statistics of the sensor pass')
                figures += [r['kernel']['statistics_launch_ms']['median'],
                            r['kernel']['statistics_launches_per_frame']]
                if r['kernel']['statistics_launches_per_frame'] > 1:
                    errors.append(f'{name}: more than one statistics launch a frame')
        elif not r['peer']:
            figures.append(r['fraction_of_transfer_limit'])
        if not all(positive(v) for v in figures):
            errors.append(f'{name}: a figure is not positive: {figures}')
    if measured == 0:
        errors.append('no case was measured')
    for c in report['concurrent']:
        if c['status'] != 'ok' or not positive(c.get('aggregate_fps')):
            errors.append(f"concurrent {c['case']}: {c['status']} {c.get('message')}")
    if not report['targets']:
        errors.append('no targets listed')
    with open(md_path) as f:
        if '| case |' not in f.read():
            errors.append('the Markdown report has no table')

    errors += check_farm(bench, outdir)
    errors += check_device_rate(bench, outdir)
    for e in errors:
        print('FAIL:', e)
    print(f'{measured} results checked')
    sys.exit(1 if errors else 0)


if __name__ == '__main__':
    main()
