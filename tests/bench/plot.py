#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Turns a gst-opencl-bench JSON report into PNG plots.

usage: plot.py REPORT.json [-o OUTDIR]

Writes, in OUTDIR (default: next to the report):
  bench-<size>.png   frames/s with system memory in and out (median, min-max bars),
                     kernel time as a fraction of the device copy bandwidth, and
                     end-to-end rate as a fraction of the host-device transfer limit
  bench-summary.png  the device limits and the ratios against the peers
Needs only matplotlib (any 3.x).
"""
import argparse
import json
import os

import sys

try:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit('plot.py needs matplotlib (apt-get install python3-matplotlib, or pip install '
             'matplotlib)')

OURS, PEER, TARGET = '#1f77b4', '#ff7f0e', '#d62728'


def ok(results, size, mode):
    return [r for r in results if r['size'] == size and r['mode'] == mode
            and r['status'] == 'ok']


def barh(ax, labels, values, colors, title, xlabel, errors=None, log=False, line=None,
         clip=None, fmt='{:.3g}'):
    """Horizontal bars with their values written at the end; bars beyond
    `clip` are cut there (their label still gives the value)."""
    y = list(range(len(labels)))
    shown = [min(v, clip) if clip else v for v in values]
    ax.barh(y, shown, color=colors, xerr=errors, capsize=3 if errors else 0)
    for i, v in enumerate(values):
        end = shown[i] + (errors[1][i] if errors else 0)
        ax.text(end, i, ' ' + fmt.format(v), va='center', fontsize=7)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel, fontsize=9)
    if log and values and min(values) > 0:
        ax.set_xscale('log')
    if line is not None:
        ax.axvline(line, color=TARGET, linestyle='--', linewidth=1)
    ax.grid(axis='x', alpha=0.3)
    if not labels:
        ax.text(0.5, 0.5, 'not measured', ha='center', va='center', transform=ax.transAxes)


def size_figure(report, size, path):
    results = report['results']
    system = ok(results, size, 'system')
    device = ok(results, size, 'device')
    fig, axes = plt.subplots(3, 1, figsize=(9, 4 + 0.3 * (2 * len(system) + len(device))),
                             gridspec_kw={'height_ratios': [max(1, len(system)),
                                                            max(1, len(device)),
                                                            max(1, len(system))]})
    med = [r['fps']['median'] for r in system]
    err = [[m - r['fps']['min'] for m, r in zip(med, system)],
           [r['fps']['max'] - m for m, r in zip(med, system)]]
    barh(axes[0], [r['case'] for r in system], med,
         [PEER if r['peer'] else OURS for r in system],
         f'{size}: frames/s, system memory in and out (orange: peers)', 'frames/s',
         errors=err if system else None, log=True, fmt='{:,.1f}')

    frac = [100 * r['kernel'].get('fraction_of_copy', 0) for r in device]
    barh(axes[1], [r['case'] for r in device], frac, [OURS] * len(device),
         f'{size}: kernel only, % of device copy bandwidth for the same bytes',
         '% of copy bandwidth', fmt='{:.1f} %')

    ours = [r for r in system if 'fraction_of_transfer_limit' in r]
    barh(axes[2], [r['case'] for r in ours],
         [100 * r['fraction_of_transfer_limit'] for r in ours], [OURS] * len(ours),
         f'{size}: end to end, % of the host-device transfer limit (target 70 % on GPUs)',
         '% of transfer limit', line=70, clip=150, fmt='{:.0f} %')
    dev = report['device']
    fig.suptitle(f"{dev['name']} ({dev['type']}), driver {dev['driver_version']}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def summary_figure(report, path):
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    lim = report['limits']
    keys = [('copy_gbps', 'device copy\n(read+write)'), ('h2d_pinned_gbps', 'host->device\npinned'),
            ('d2h_pinned_gbps', 'device->host\npinned'), ('h2d_malloc_gbps', 'host->device\nmalloc'),
            ('d2h_malloc_gbps', 'device->host\nmalloc')]
    vals = [lim.get(k) or 0 for k, _ in keys]
    axes[0].bar([label for _, label in keys], vals, color=OURS)
    axes[0].set_ylabel('GB/s')
    axes[0].set_title('Device limits', fontsize=10)
    axes[0].tick_params(axis='x', labelsize=8)
    for i, v in enumerate(vals):
        axes[0].text(i, v, f'{v:.1f}', ha='center', va='bottom', fontsize=8)

    comps = report.get('comparisons', [])
    labels = [f"{c['size']}: {c['ours']}\nvs {c['peer']}" for c in comps]
    barh(axes[1], labels, [c['ratio'] for c in comps], [OURS] * len(comps),
         'frames/s ratio against the peers (same frames)', 'ratio (x)', line=1.0,
         fmt='{:.2f}x')
    dev = report['device']
    fig.suptitle(f"{dev['name']}, GStreamer {report['gstreamer']}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('report')
    parser.add_argument('-o', '--outdir')
    args = parser.parse_args()
    with open(args.report) as f:
        report = json.load(f)
    outdir = args.outdir or os.path.dirname(os.path.abspath(args.report))
    os.makedirs(outdir, exist_ok=True)
    written = []
    for size in report['settings']['sizes']:
        path = os.path.join(outdir, f'bench-{size}.png')
        size_figure(report, size, path)
        written.append(path)
    path = os.path.join(outdir, 'bench-summary.png')
    summary_figure(report, path)
    written.append(path)
    for p in written:
        print(p)


if __name__ == '__main__':
    main()
