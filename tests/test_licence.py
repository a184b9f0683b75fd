#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The licence is stated: COPYING holds the LGPL 2.1 text that meson.build
declares, and every source file (C++, headers, OpenCL C, Python, shell,
meson) of the tree carries an SPDX line naming it."""
import os
import sys

TAG = "SPDX-License-Identifier: LGPL-2.1-or-later"
root = sys.argv[1]

with open(os.path.join(root, "COPYING"), encoding="utf-8") as f:
    copying = f.read()
assert "GNU LESSER GENERAL PUBLIC LICENSE" in copying and "Version 2.1" in copying, \
    "COPYING is not the LGPL 2.1"
with open(os.path.join(root, "meson.build"), encoding="utf-8") as f:
    assert "LGPL-2.1-or-later" in f.read(), "meson.build declares another licence"

missing, checked = [], 0
for folder, dirs, files in os.walk(root):
    rel = os.path.relpath(folder, root)
    top = rel.split(os.sep)[0]
    if rel != "." and (top.startswith((".", "build")) or top == "subprojects"):
        dirs[:] = []
        continue
    for name in files:
        path = os.path.join(folder, name)
        source = name.endswith((".cpp", ".h", ".hpp", ".cl", ".py", ".sh")) or \
            name in ("meson.build", "meson_options.txt")
        if not source:
            continue
        checked += 1
        with open(path, encoding="utf-8", errors="replace") as f:
            head = f.read(400)
        if TAG not in head:
            missing.append(os.path.relpath(path, root))
for path in (os.path.join(root, ".ci", "run"),):
    checked += 1
    with open(path, encoding="utf-8") as f:
        if TAG not in f.read(400):
            missing.append(".ci/run")

assert checked > 50, f"only {checked} source files found under {root}"
assert not missing, "no SPDX line in: " + ", ".join(sorted(missing))
print(f"licence: {checked} source files carry the SPDX line")
print("1 passed, 0 failed")
