#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""gst-inspect-1.0 shows every element with documented properties and pad
templates in both memories (memory:OpenCLMemory and system memory), whose
sizes are what the element takes (cldebayer from 2x2, the others from 1x1).
Also what a newcomer reads first says true things: clfir's description says
that its default is not the identity, and the README's debug level for
transfers shows them. And bad values on a launch line make gst-launch-1.0
fail, naming the property, instead of running an identity filter (or
crashing)."""
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')

# Properties each element must have (the API users rely on); every
# element of the plugin is checked, listed here or not.
REQUIRED_PROPERTIES = {
    'clsobel': ['output', 'norm', 'scale', 'threshold', 'border'],
    'clkernel': ['source', 'location', 'build-options', 'parameters'],
    'clconvolve': ['kernel', 'red-kernel', 'green-kernel', 'blue-kernel',
                   'normalize', 'bias', 'border', 'separable'],
    'clfir': ['coefficients', 'border'],
    'cldebayer': ['method'],
    'clconvert': ['method', 'add-borders', 'video-direction'],
}

def inspect(name):
    r = subprocess.run(['gst-inspect-1.0', name], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        sys.exit('gst-inspect-1.0 %s failed (%d): %s' % (name, r.returncode, r.stderr))
    return r.stdout

failures = []
# The plugin's elements, as gst-inspect-1.0 lists them ("  clsobel: OpenCL ...").
ELEMENTS = re.findall(r'^  (cl[a-z0-9]+): ', inspect('opencl'), re.M)
if len(ELEMENTS) < 7:
    failures.append('the plugin lists %d elements: %s' % (len(ELEMENTS), ELEMENTS))
for name in REQUIRED_PROPERTIES:
    if name not in ELEMENTS:
        failures.append('plugin does not list %s' % name)
# The smallest width and height each element takes.
MIN_SIZE = {name: 2 if name == 'cldebayer' else 1 for name in ELEMENTS}
for element in ELEMENTS:
    out = inspect(element)
    templates = out.split('Pad Templates:')[1].split('Element has')[0]
    for pad in ('SINK', 'SRC'):
        block = templates.split("%s template" % pad)[1].split('template:')[0]
        if element != 'cldownload' or pad == 'SINK':
            if 'memory:OpenCLMemory' not in block:
                failures.append('%s %s template lacks memory:OpenCLMemory' % (element, pad))
        if element != 'clupload' or pad == 'SINK':
            if not re.search(r'^\s+video/x-(raw|bayer)\s*$', block, re.M):
                failures.append('%s %s template lacks system memory' % (element, pad))
        # Every structure says its size range, starting where the element's
        # does: negotiation then refuses smaller frames up front.
        structures = re.findall(r'^\s+video/x-\S+\s*$', block, re.M)
        for field in ('width', 'height'):
            ranges = re.findall(r'^\s+%s: \[ (\d+), (\d+) \]\s*$' % field, block, re.M)
            if len(ranges) != len(structures):
                failures.append('%s %s template: %d structures, %d %s ranges'
                                % (element, pad, len(structures), len(ranges), field))
            for low, _ in ranges:
                if int(low) != MIN_SIZE[element]:
                    failures.append('%s %s template: %s from %s, the element takes %d'
                                    % (element, pad, field, low, MIN_SIZE[element]))
    # Every property documented, the inherited ones (`device`,
    # `kernel-timeout`) included.
    listed = dict(re.findall(r'^  ([a-z][a-z0-9-]*)\s+: (.+)$',
                             out.split('Element Properties:')[1], re.M))
    for prop in ['device', 'kernel-timeout'] + REQUIRED_PROPERTIES.get(element, []):
        if prop not in listed:
            failures.append('%s has no property %s' % (element, prop))
    for prop, blurb in listed.items():
        if len(blurb.strip()) < 15:
            failures.append('%s.%s is not documented: %r' % (element, prop, blurb))

# A bare clfir changes the picture: its description says so.
description = re.search(r'^  Description\s+(.+)$', inspect('clfir'), re.M)
if not description or 'default' not in description.group(1).lower():
    failures.append('clfir\'s description does not say what its default does: %r'
                    % (description.group(1) if description else None))

# The README's GST_DEBUG level for transfers shows them, one level less does
# not.
with open(os.path.join(ROOT, 'README.md')) as f:
    readme = ' '.join(f.read().split())
m = re.search(r'`GST_DEBUG=cl\*:(\d)` adds every transfer', readme)
if not m:
    failures.append('README.md gives no GST_DEBUG level for transfers')
else:
    level = int(m.group(1))
    for lv, shown in ((level, True), (level - 1, False)):
        r = subprocess.run(['gst-launch-1.0', '-q', 'videotestsrc', 'num-buffers=1', '!',
                            'video/x-raw,width=64,height=48', '!', 'clsobel', '!',
                            'fakesink'], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, GST_DEBUG='cl*:%d' % lv,
                                    GST_DEBUG_NO_COLOR='1'))
        if r.returncode != 0:
            failures.append('pipeline at GST_DEBUG=cl*:%d failed: %s' % (lv, r.stderr[-500:]))
        elif (' upload ' in r.stderr) != shown:
            failures.append('GST_DEBUG=cl*:%d %s transfers' % (lv, 'hides' if shown else
                                                                'shows'))

# Bad values on a launch line: gst-launch-1.0 exits with an error naming the
# property (no signal), after a warning when the value is set.
LAUNCH_REFUSALS = [
    (['clconvolve', 'kernel=<1,2>'], 'kernel'),
    (['clconvolve', 'kernel=<1,1,1,1,nan,1,1,1,1>'], 'kernel'),
    (['clfir', 'coefficients=<1,2>'], 'coefficients'),
    (['clconvolve', 'kernel=<1,2,1,2,4,2,1,2,1>', 'red-kernel=<1>'], 'red-kernel'),
    (['clkernel', 'build-options=-D'], 'build-options'),
    (['clkernel', 'build-options=-I'], 'build-options'),
]
for element, prop in LAUNCH_REFUSALS:
    r = subprocess.run(['gst-launch-1.0', '-f', 'videotestsrc', 'num-buffers=1', '!'] +
                       element + ['!', 'fakesink'], capture_output=True, text=True,
                       timeout=60)
    out = r.stdout + r.stderr
    if r.returncode <= 0 or 'Invalid value of property "%s"' % prop not in out:
        failures.append('gst-launch-1.0 ... %s ...: exit status %d, %s' % (
            ' '.join(element), r.returncode, out[-300:].strip() or 'no message'))

if failures:
    print('\n'.join(failures))
    sys.exit(1)
print('%d passed, 0 failed' % len(ELEMENTS))
