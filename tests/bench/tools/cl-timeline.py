#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reads cl-timeline.c's CSV: where a frame's time goes on the device.

  python3 cl-timeline.py t.csv [--frames 3]

A frame starts at each enqueue of the largest write, map or copy (the
input's upload; in bands, give the frames of a run without them). Prints each command's median length by queue and label; the
device's busy time (any queue) against the period between frames; and the
commands of a few frames, in microseconds from the frame's first enqueue,
with the host's waits lined up by the commands' QUEUED times."""
import argparse
import collections
import csv
import statistics


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--frames", type=int, default=3)
    ap.add_argument("--start", help="LABEL:BYTES of the command that starts a frame "
                    "(default: the largest write, map or copy)")
    a = ap.parse_args()
    rows = list(csv.DictReader(open(a.csv)))
    cmds = [r for r in rows if r["kind"] == "cmd" and int(r["end"]) > 0]
    for r in rows:
        for k in ("bytes", "host_ns", "call_ns", "queued", "submit", "start", "end", "queue"):
            r[k] = int(r[k])
    if not cmds:
        print("no completed commands")
        return
    # device clock = host clock + offset (by QUEUED against the enqueue time)
    off = statistics.median(r["queued"] - r["host_ns"] for r in cmds)
    for r in rows:
        if r["kind"] == "wait":
            r["start"] += off
            r["end"] += off
    print("commands by queue and label (median us, count):")
    groups = collections.defaultdict(list)
    for r in cmds:
        groups[(r["queue"], r["label"], r["bytes"])].append(r)
    for (q, label, nbytes), g in sorted(groups.items()):
        print("  q%d %-28s %10d B  %8.1f us  x%d  (enqueue call %.1f us)" % (
            q, label, nbytes, statistics.median((r["end"] - r["start"]) / 1e3 for r in g), len(g),
            statistics.median(r["call_ns"] / 1e3 for r in g)))
    waits = collections.defaultdict(list)
    for r in rows:
        if r["kind"] == "wait":
            waits[r["label"]].append((r["end"] - r["start"]) / 1e3)
    for label, d in sorted(waits.items()):
        print("  host %-25s %8.1f us  x%d (sum %.0f)" % (label, statistics.median(d), len(d), sum(d)))

    if a.start:
        label, nbytes = a.start.rsplit(":", 1)
        ups, big = (label,), int(nbytes)
    else:
        ups = ("write", "map", "write rect", "copy")
        big = max(r["bytes"] for r in cmds if r["label"] in ups)
    starts = [i for i, r in enumerate(rows) if r["kind"] == "cmd" and r["bytes"] == big and
              r["label"] in ups]
    if len(starts) < 3:
        print("fewer than 3 frames")
        return
    periods, busy, in_calls = [], [], []
    for f0, f1 in zip(starts, starts[1:]):
        t0 = rows[f0]["host_ns"]
        t1 = rows[f1]["host_ns"]
        periods.append((t1 - t0) / 1e3)
        in_calls.append(sum(r["call_ns"] for r in rows[f0:f1] if r["kind"] == "cmd" or
                            r["label"] == "flush") / 1e3)
        iv = sorted((r["start"] - off, r["end"] - off) for r in rows[f0:f1]
                    if r["kind"] == "cmd" and r["end"] > 0)
        total, cur_s, cur_e = 0, None, None
        for s, e in iv:
            if cur_e is None or s > cur_e:
                if cur_e is not None:
                    total += cur_e - cur_s
                cur_s, cur_e = s, e
            else:
                cur_e = max(cur_e, e)
        if cur_e is not None:
            total += cur_e - cur_s
        busy.append(total / 1e3)
    print("frames %d: period median %.1f us, device busy (union of queues) median %.1f us (%.0f %%), "
          "host in enqueue calls and flushes %.1f us" % (
              len(periods), statistics.median(periods), statistics.median(busy),
              100 * statistics.median(busy) / statistics.median(periods), statistics.median(in_calls)))
    mid = len(starts) // 2
    for f in range(mid, min(mid + a.frames, len(starts) - 1)):
        f0, f1 = starts[f], starts[f + 1]
        base = rows[f0]["host_ns"]
        print("frame %d (us from its upload's enqueue; device times on the host clock):" % f)
        for r in rows[f0:f1 + 1]:
            if r["kind"] == "wait":
                print("   host  %-26s %8.1f -> %8.1f" % (r["label"], (r["start"] - off - base) / 1e3,
                                                      (r["end"] - off - base) / 1e3))
                continue
            if r["end"] <= 0:
                print("   q%d %-28s enq %8.1f  (not timed: a barrier or marker without work)" % (
                    r["queue"], r["label"], (r["host_ns"] - base) / 1e3))
            else:
                print("   q%d %-28s enq %8.1f +%4.1f run %8.1f -> %8.1f  (%6.1f)  %d B" % (
                    r["queue"], r["label"], (r["host_ns"] - base) / 1e3, r["call_ns"] / 1e3,
                    (r["start"] - off - base) / 1e3, (r["end"] - off - base) / 1e3,
                    (r["end"] - r["start"]) / 1e3, r["bytes"]))


if __name__ == "__main__":
    main()
