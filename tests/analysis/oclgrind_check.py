#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs a program under Oclgrind and fails on any 'Invalid' line in its log
(out-of-bounds reads/writes, invalid API use). With --expect-invalid the
opposite: the program must be caught (the canary)."""
import argparse
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--oclgrind', required=True)
    ap.add_argument('--expect-invalid', action='store_true')
    ap.add_argument('command', nargs=argparse.REMAINDER)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'oclgrind.log')
        cmd = [args.oclgrind, '--check-api', '--log', log] + args.command
        print('running:', ' '.join(cmd), flush=True)
        rc = subprocess.run(cmd).returncode
        text = open(log).read() if os.path.exists(log) else ''
    invalid = [line for line in text.splitlines() if 'Invalid' in line]
    print(text[-20000:])
    print(f'exit status {rc}, {len(invalid)} Invalid line(s) in the Oclgrind log')
    if args.expect_invalid:
        return 0 if invalid else 1
    return 0 if rc == 0 and not invalid else 1


if __name__ == '__main__':
    sys.exit(main())
