#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Wrapper of the 'leaks' test setup: runs a test with GStreamer's leaks
tracer logging to a file of its own and fails when any object or mini object
was still alive at gst_deinit().

The tracer's own "Leaks detected" warning cannot be trusted to fail a test:
with G_DEBUG=fatal-warnings GLib raises SIGTRAP, and the LLVM that PoCL loads
installs a SIGTRAP handler that returns, so the process goes on and exits 0.
The tracer's records in the debug log are read instead."""
import os
import re
import subprocess
import sys
import tempfile


def main():
    cmd = sys.argv[1:]
    if not cmd:
        print('usage: leaks_check.py COMMAND...', file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'gst-debug.log')
        env = dict(os.environ)
        env['GST_TRACERS'] = 'leaks'
        env['GST_DEBUG'] = env.get('GST_DEBUG', '*:1') + ',GST_TRACER:7,leaks:5'
        env['GST_DEBUG_FILE'] = log
        env['GST_DEBUG_NO_COLOR'] = '1'
        rc = subprocess.run(cmd, env=env).returncode
        text = open(log, errors='replace').read() if os.path.exists(log) else ''
    # Records, not the record's format lines ("type-name=(string)%s").
    alive = [line for line in text.splitlines()
             if re.search(r'object-alive, type-name=\(string\)[A-Za-z]', line)]
    for line in alive[:200]:
        print(line[line.find('object-alive'):][:400])
    print(f'exit status {rc}; {len(alive)} object(s) alive at exit')
    if 'checking for leaks' not in text and rc == 0:
        # The tracer never ran (e.g. no gst_deinit): that is not a pass.
        print('the leaks tracer left no record in the debug log')
        return 1
    return 1 if rc != 0 or alive else 0


if __name__ == '__main__':
    sys.exit(main())
