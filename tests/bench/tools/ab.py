#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Before and after in one run: gst-opencl-bench over two builds of the
plugin, alternating in ABBA order (the host's drift falls on both), and a
table of the medians with their ratio.

  ab.py --bench BENCH --a PLUGIN_DIR[:LIB_DIR] --b PLUGIN_DIR[:LIB_DIR]
        --rounds N --out PREFIX [--each-case] -- BENCH_ARGS...

Each side's plugin is found through GST_PLUGIN_PATH_1_0 (its own registry
file) and its runtime library through LD_LIBRARY_PATH. Every run writes
PREFIX-a1.json, PREFIX-b1.json, ...; the table (frames/s, and kernel ms a
frame for device-resident runs, medians over the runs) goes to stdout and
PREFIX.md. --each-case runs every case of --only alone per round (what the
noisy 2-core host needs); --only is then required.

  ab.py --a-json A1.json,A2.json --b-json B1.json,B2.json --out PREFIX

makes the table of runs made before (e.g. split over several device calls).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run(bench, side, args, out):
    plugin, _, lib = side.partition(":")
    env = dict(os.environ)
    env["GST_PLUGIN_PATH_1_0"] = plugin
    env["GST_REGISTRY_1_0"] = os.path.join(tempfile.gettempdir(),
                                           "ab-%s.registry" % abs(hash(side)))
    if lib:
        env["LD_LIBRARY_PATH"] = lib + (":" + env["LD_LIBRARY_PATH"]
                                        if env.get("LD_LIBRARY_PATH") else "")
    subprocess.run([bench] + args + ["--json", out], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)["results"]


def key(r):
    return (r["case"], r["mode"], r["size"])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bench")
    p.add_argument("--a", default="")
    p.add_argument("--b", default="")
    p.add_argument("--a-json", default="")
    p.add_argument("--b-json", default="")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--out", required=True)
    p.add_argument("--each-case", action="store_true")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    o = p.parse_args()
    args = o.rest[1:] if o.rest[:1] == ["--"] else o.rest
    groups = [args]
    if o.each_case:
        i = args.index("--only")
        cases = args[i + 1].split(",")
        groups = [args[:i] + ["--only", c] + args[i + 2:] for c in cases]

    fps = {"a": {}, "b": {}}
    kernel = {"a": {}, "b": {}}

    def take(side, results):
        for r in results:
            if r.get("status") != "ok" or "fps" not in r:
                continue
            fps[side].setdefault(key(r), []).append(r["fps"]["median"])
            ms = r.get("kernel", {}).get("ms_per_frame", {}).get("median")
            if ms:
                kernel[side].setdefault(key(r), []).append(ms)

    order = []
    if o.a_json:
        for side, files in (("a", o.a_json), ("b", o.b_json)):
            for name in files.split(","):
                with open(name) as f:
                    take(side, json.load(f)["results"])
                order.append(side)
    for n in range(o.rounds if not o.a_json else 0):
        order += ["a", "b"] if n % 2 == 0 else ["b", "a"]
    count = {"a": 0, "b": 0}
    for side in order if not o.a_json else []:
        count[side] += 1
        for g, group in enumerate(groups):
            out = "%s-%s%d%s.json" % (o.out, side, count[side],
                                      "-%d" % g if len(groups) > 1 else "")
            take(side, run(o.bench, o.a if side == "a" else o.b, group, out))

    lines = ["| case | memory | size | A frames/s | B frames/s | B / A | A kernel ms | "
             "B kernel ms | B / A |", "|---|---|---|---|---|---|---|---|---|"]
    for k in sorted(set(fps["a"]) & set(fps["b"])):
        fa, fb = statistics.median(fps["a"][k]), statistics.median(fps["b"][k])
        row = "| %s | %s | %s | %.0f | %.0f | %.2f |" % (k[0], k[1], k[2], fa, fb, fb / fa)
        if k in kernel["a"] and k in kernel["b"]:
            ka, kb = statistics.median(kernel["a"][k]), statistics.median(kernel["b"][k])
            row += " %.4f | %.4f | %.2f |" % (ka, kb, kb / ka)
        else:
            row += " | | |"
        lines.append(row)
    text = "Runs: %s (A %s, B %s)\n\n%s\n" % (
        " ".join(s.upper() for s in order), o.a or o.a_json, o.b or o.b_json, "\n".join(lines))
    with open(o.out + ".md", "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
