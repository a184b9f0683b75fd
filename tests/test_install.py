#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""`meson install` into a temporary DESTDIR, then use only what was installed:
the plugin (gst-inspect-1.0 lists the same elements as the build tree's, and a
pipeline runs), gst-opencl-info, gst-opencl-calibrate, the headers and
gstreamer-opencl-1.0.pc (a C program, a C++ one and the own-context example build with
`pkg-config --cflags --libs` and run)."""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HEADERS = ['opencl.h', 'gstcl-prelude.h', 'gstclcontext.h', 'gstclmemory.h',
           'gstclbufferpool.h', 'gstclvideo.h', 'gstclbasetransform.h',
           'gstclfilter.h', 'gstcl.hpp', 'gstclhpp.hpp', 'gstcldevice.hpp']

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
    return cond


def run(cmd, env=None, timeout=120):
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        sys.exit('%s failed (%d):\n%s%s' % (shlex.join(cmd), r.returncode, r.stdout, r.stderr))
    return r.stdout


def element_names(inspect_output):
    # gst-inspect-1.0 PLUGIN lists its elements as "  name: long name".
    return set(re.findall(r'^  ([\w-]+): ', inspect_output, re.M))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--meson', required=True, help='the meson command, shell-quoted')
    ap.add_argument('--build-root', required=True)
    ap.add_argument('--prefix', required=True)
    ap.add_argument('--libdir', required=True)
    ap.add_argument('--includedir', required=True)
    ap.add_argument('--bindir', required=True)
    ap.add_argument('--version', required=True)
    ap.add_argument('--cc', required=True, help='C compiler command, shell-quoted')
    ap.add_argument('--cxx', required=True, help='C++ compiler command, shell-quoted')
    a = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix='gst-opencl-install-')
    try:
        run(shlex.split(a.meson) + ['install', '-C', a.build_root, '--no-rebuild',
                                    '--quiet', '--destdir', tmp], timeout=300)
        test_installed(a, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print('\n'.join(failures))
        sys.exit(1)
    print('install: all checks passed')


def test_installed(a, destdir):
    # DESTDIR keeps the configured prefix below it.
    def installed(d):
        return os.path.join(destdir, os.path.join(a.prefix, d).lstrip(os.sep))
    root = installed('')
    libdir, incdir, bindir = installed(a.libdir), installed(a.includedir), installed(a.bindir)
    plugindir = os.path.join(libdir, 'gstreamer-1.0')
    pcdir = os.path.join(libdir, 'pkgconfig')
    headerdir = os.path.join(incdir, 'gstreamer-1.0', 'gst', 'opencl')

    # Files
    check(os.path.isfile(os.path.join(plugindir, 'libgstopencl.so')), 'plugin not installed')
    check(os.path.isfile(os.path.join(libdir, 'libgstopencl-1.0.so')), 'library not installed')
    check(os.access(os.path.join(bindir, 'gst-opencl-info'), os.X_OK),
          'gst-opencl-info not installed')
    check(os.access(os.path.join(bindir, 'gst-opencl-calibrate'), os.X_OK),
          'gst-opencl-calibrate not installed')
    check(os.path.isfile(os.path.join(pcdir, 'gstreamer-opencl-1.0.pc')), '.pc not installed')
    for h in HEADERS:
        check(os.path.isfile(os.path.join(headerdir, h)), 'header %s not installed' % h)
    # Every header that an installed header includes is installed too.
    for h in os.listdir(headerdir) if os.path.isdir(headerdir) else []:
        with open(os.path.join(headerdir, h)) as f:
            for inc in re.findall(r'#include [<"](?:gst/opencl/)?(gstcl[\w-]*\.hp*)[>"]', f.read()):
                check(os.path.isfile(os.path.join(headerdir, inc)),
                      '%s includes %s, which is not installed' % (h, inc))
    if failures:
        return

    # Only the installed plugin and library; a private registry.
    env = dict(os.environ)
    env.pop('GST_PLUGIN_PATH_1_0', None)
    env.pop('GST_PLUGIN_PATH', None)
    env['GST_PLUGIN_SYSTEM_PATH_1_0'] = plugindir
    env['GST_REGISTRY_1_0'] = os.path.join(destdir, 'registry.bin')
    env['LD_LIBRARY_PATH'] = libdir + os.pathsep + env.get('LD_LIBRARY_PATH', '')
    out = run(['gst-inspect-1.0', 'opencl'], env)
    m = re.search(r'^\s*Filename\s+(\S+)', out, re.M)
    check(m and m.group(1).startswith(destdir),
          'gst-inspect-1.0 did not load the installed plugin: %s' % (m and m.group(1)))
    names = element_names(out)
    build_tree = element_names(run(['gst-inspect-1.0', 'opencl']))  # the test env's
    check({'clupload', 'cldownload', 'clsobel'} <= names,
          'installed plugin lists %s' % sorted(names))
    check(names == build_tree, 'installed plugin lists %s, build tree %s'
          % (sorted(names), sorted(build_tree)))

    # The installed plugin runs, with the system's plugins around it.
    sys_plugins = run(['pkg-config', '--variable=pluginsdir', 'gstreamer-1.0']).strip()
    env['GST_PLUGIN_SYSTEM_PATH_1_0'] = plugindir + os.pathsep + sys_plugins
    os.remove(env['GST_REGISTRY_1_0'])
    run(['gst-launch-1.0', '-q', 'videotestsrc', 'num-buffers=2', '!', 'clsobel', '!',
         'fakesink'], env)
    out = run([os.path.join(bindir, 'gst-opencl-info')], env)
    check('default (device unset) picks' in out and 'auto deals' in out, 'gst-opencl-info printed: %s' % out)
    out = run([os.path.join(bindir, 'gst-opencl-calibrate'), '--help'], env)
    check('lens-shading' in out, 'gst-opencl-calibrate --help printed: %s' % out)

    # pkg-config finds the installed .pc and its requirements.
    pc_env = dict(env)
    pc_env['PKG_CONFIG_PATH'] = pcdir + os.pathsep + env.get('PKG_CONFIG_PATH', '')
    version = run(['pkg-config', '--modversion', 'gstreamer-opencl-1.0'], pc_env).strip()
    check(version == a.version, '.pc version %s, project %s' % (version, a.version))
    # A DESTDIR install keeps the final prefix in the .pc; build against a copy
    # that points at DESTDIR instead (overriding `prefix` on the command line
    # would move the system packages' prefix too).
    with open(os.path.join(pcdir, 'gstreamer-opencl-1.0.pc')) as f:
        pc = f.read()
    check(re.search(r'^prefix=%s$' % re.escape(a.prefix), pc, re.M), '.pc prefix: %s' % pc)
    relocated = os.path.join(destdir, 'pc')
    os.makedirs(relocated)
    with open(os.path.join(relocated, 'gstreamer-opencl-1.0.pc'), 'w') as f:
        f.write(re.sub(r'^prefix=.*$', 'prefix=' + root.rstrip(os.sep), pc, flags=re.M))
    pc_env['PKG_CONFIG_PATH'] = relocated + os.pathsep + env.get('PKG_CONFIG_PATH', '')
    flags = shlex.split(run(['pkg-config', '--cflags', '--libs', 'gstreamer-opencl-1.0'], pc_env))
    check('-I' + os.path.join(incdir, 'gstreamer-1.0') in flags, 'cflags: %s' % flags)
    check('-lgstopencl-1.0' in flags, 'libs: %s' % flags)

    # Two programs of the tests, and the own-context example as its README
    # says to build it, each run with the installed library and plugin.
    examples = os.path.join(os.path.dirname(HERE), 'docs', 'examples')
    builds = ((a.cc, '-std=c99', os.path.join(HERE, 'install', 'use_c_api.c'), [], 'device: '),
              (a.cxx, '-std=c++17', os.path.join(HERE, 'install', 'use_cpp_api.cpp'), [],
               'built on '),
              (a.cxx, '-std=c++17', os.path.join(examples, 'own-context.cpp'),
               ['gstreamer-app-1.0'], 'all frames right'))
    for compiler, std, src, more_packages, expect in builds:
        flags = shlex.split(run(['pkg-config', '--cflags', '--libs', 'gstreamer-opencl-1.0']
                                + more_packages, pc_env))
        exe = os.path.join(destdir, os.path.splitext(os.path.basename(src))[0])
        run(shlex.split(compiler) + [std, '-Wall', '-Wextra', '-Werror', src, '-o', exe] + flags,
            timeout=300)
        out = run([exe], env)
        check(expect in out, '%s printed: %s' % (src, out))
        print('%s: %s' % (os.path.basename(src), out.strip().splitlines()[-1]))

if __name__ == '__main__':
    main()
