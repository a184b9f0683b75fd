#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""gst/tools/dev.sh: the demo installs and builds only what it runs (no
valgrind, no Oclgrind, no test suite), the test command everything CI needs.
Runs `dev.sh --dry-run`, which prints what it would do and does nothing."""
import os
import subprocess
import sys

DEV_SH = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'gst', 'tools',
                      'dev.sh')


def dry_run(*args):
    r = subprocess.run(['bash', DEV_SH, '--dry-run'] + list(args), capture_output=True,
                       text=True, timeout=60)
    if r.returncode != 0:
        sys.exit('dev.sh --dry-run %s failed (%d): %s' % (' '.join(args), r.returncode,
                                                          r.stderr))
    return r.stdout


def installed(out):
    """The packages of the `installing:` line."""
    for line in out.splitlines():
        if line.startswith('installing: '):
            return set(line.split()[1:])
    return set()


def commands(out, prefix):
    return [line[len('run: '):] for line in out.splitlines()
            if line.startswith('run: ' + prefix)]


failures = []
demo, test = dry_run('demo'), dry_run('test')

demo_packages, test_packages = installed(demo), installed(test)
for tool in ('valgrind', 'oclgrind'):
    if tool in demo_packages:
        failures.append('dev.sh demo installs %s' % tool)
    if tool not in test_packages:
        failures.append('dev.sh test does not install %s' % tool)
for needed in ('pocl-opencl-icd', 'gstreamer1.0-plugins-good', 'meson'):
    if needed not in demo_packages:
        failures.append('dev.sh demo does not install %s' % needed)
if 'python3-gst-1.0' not in test_packages:
    failures.append('dev.sh test does not install python3-gst-1.0 (gst-python)')
# The aravis test: the fake GigE Vision camera and the example's Aravis typelib.
for needed in ('aravis-tools', 'gir1.2-aravis-0.8'):
    if needed not in test_packages:
        failures.append('dev.sh test does not install %s' % needed)
if not demo_packages < test_packages:
    failures.append('dev.sh test does not install all the demo installs: %s'
                    % sorted(demo_packages - test_packages))

# The demo configures without the test suite and the analysis runs, and
# builds two targets; the test command configures and builds everything.
setup = commands(demo, 'meson setup')
if not setup or '-Danalysis=enabled' in setup[0] or '-Dtests=disabled' not in setup[0]:
    failures.append('dev.sh demo configures the tests or the analysis: %s' % setup)
builds = commands(demo, 'meson compile') + commands(demo, 'ninja')
if len(builds) != 1 or 'gst-opencl-demo' not in builds[0] or 'gstopencl' not in builds[0]:
    failures.append('dev.sh demo builds more than the plugin and the demo: %s' % builds)
if commands(demo, 'meson test'):
    failures.append('dev.sh demo runs tests')
runs = commands(demo, './build/gst/tools/gst-opencl-demo')
if not runs:
    failures.append('dev.sh demo does not run the demo')
# Its picture lands in the ignored build folder, not in the repository.
elif not runs[0].split()[-1].startswith('build/'):
    failures.append('dev.sh demo writes its picture outside build/: %s' % runs[0])
if not any('-Danalysis=enabled' in c for c in commands(test, 'meson setup')):
    failures.append('dev.sh test does not configure the analysis runs')
# One pass: the suite holds the leaks tracer and memcheck runs
# (tests/meson.build, tests/analysis/meson.build).
if len(commands(test, 'meson test')) != 1:
    failures.append('dev.sh test does not run the whole suite in one pass')

if failures:
    print('\n'.join(failures))
    sys.exit(1)
print('dev.sh demo: %d packages, dev.sh test: %d packages' % (len(demo_packages),
                                                              len(test_packages)))
