#!/usr/bin/env python3
"""gst-inspect-1.0 shows every element with documented properties and pad
templates in both memories (memory:OpenCLMemory and system memory), whose
sizes are what the element takes (cldebayer from 2x2, the others from 1x1)."""
import re
import subprocess
import sys

ELEMENTS = {
    'clupload': ['device'],
    'cldownload': ['device'],
    'clsobel': ['device', 'output', 'norm', 'scale', 'threshold', 'border'],
    'clkernel': ['device', 'source', 'location', 'build-options'],
    'clconvolve': ['device', 'kernel', 'red-kernel', 'green-kernel', 'blue-kernel',
                   'normalize', 'bias', 'border', 'separable'],
    'clfir': ['device', 'coefficients', 'border'],
    'cldebayer': ['device', 'method'],
}

# The smallest width and height each element takes.
MIN_SIZE = {name: 2 if name == 'cldebayer' else 1 for name in ELEMENTS}

def inspect(name):
    r = subprocess.run(['gst-inspect-1.0', name], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        sys.exit('gst-inspect-1.0 %s failed (%d): %s' % (name, r.returncode, r.stderr))
    return r.stdout

failures = []
plugin = inspect('opencl')
for element, props in ELEMENTS.items():
    if element not in plugin:
        failures.append('plugin does not list %s' % element)
        continue
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
    for prop in props:
        m = re.search(r'^  %s\s+: (.+)$' % re.escape(prop), out, re.M)
        if not m:
            failures.append('%s has no property %s' % (element, prop))
        elif len(m.group(1).strip()) < 15:
            failures.append('%s.%s is not documented: %r' % (element, prop, m.group(1)))

if failures:
    print('\n'.join(failures))
    sys.exit(1)
print('%d passed, 0 failed' % len(ELEMENTS))
