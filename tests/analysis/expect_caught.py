#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Canary runner: the command must fail AND its output must contain the
tool's report (a regular expression), so a tool that cannot start or a
suppression that hides everything fails CI instead of passing as 'failed as
expected'."""
import re
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        print('usage: expect_caught.py REGEX COMMAND...', file=sys.stderr)
        return 2
    pattern, cmd = sys.argv[1], sys.argv[2:]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(p.stdout[-20000:])
    found = re.search(pattern, p.stdout) is not None
    print(f'exit status {p.returncode}; report /{pattern}/ found: {found}')
    return 0 if p.returncode != 0 and found else 1


if __name__ == '__main__':
    sys.exit(main())
