#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs `valgrind TOOL-ARGS... TEST ARGS...` after a first pass of the same
test under `valgrind --tool=none`, whose only purpose is PoCL's kernel cache.

Under valgrind PoCL sees another CPU (valgrind's emulated one: no AVX-512),
so the kernels the plain suite compiled do not serve and every program is
compiled again inside the tool. LLVM under memcheck or helgrind compiles a
program in ~15 s; under `--tool=none` (no instrumentation) in ~1.5 s. The
first pass fills the cache for that CPU; the checked pass then finds every
program there. The first pass's result is not the test's: only the second
pass's exit status and output count."""
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        print('usage: valgrind_warm.py VALGRIND [--tool-args...] TEST [ARGS...]',
              file=sys.stderr)
        return 2
    valgrind, rest = sys.argv[1], sys.argv[2:]
    # Valgrind's own options all start with '-'; the test comes first after them.
    first = next((i for i, a in enumerate(rest) if not a.startswith('-')), len(rest))
    test = rest[first:]
    if not test:
        print('valgrind_warm.py: no test command', file=sys.stderr)
        return 2
    # The scheduling options too: that pass runs the same threads.
    sched = [a for a in rest[:first] if a.startswith('--fair-sched=')]
    subprocess.run([valgrind, '--tool=none', '-q'] + sched + test, env=os.environ,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return subprocess.run([valgrind] + rest).returncode


if __name__ == '__main__':
    sys.exit(main())
