#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The kernels stay inside OpenCL C 1.2 where PoCL's clang is lenient:
constructs that clang takes as extensions (and so the CI's PoCL runs) but
stricter compilers refuse. Variadic macros: NVIDIA's compiler refused
every program that had them (docs/benchmarks.md, the third session's final
run); clang -pedantic calls them "a Clang extension in OpenCL"."""
import os
import re
import sys

kernels = os.path.join(sys.argv[1], "kernels")
# a #define whose parameter list holds "...", or __VA_ARGS__ anywhere
VARIADIC = re.compile(r"#\s*define\s+\w+\([^)]*\.\.\.\s*\)|__VA_ARGS__")

def code_of(text):
    """The text with comments blanked (line numbers kept)."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text,
                  flags=re.S)
    return re.sub(r"//[^\n]*", "", text)

# kernels/*.cl and the files of its folders (kernels/convolve/*.cl)
names = sorted(os.path.relpath(os.path.join(folder, f), kernels)
               for folder, _, files in os.walk(kernels) for f in files)
found, checked = [], 0
for name in names:
    if not name.endswith(".cl"):
        continue
    checked += 1
    with open(os.path.join(kernels, name), encoding="utf-8") as f:
        code = code_of(f.read())
    for m in VARIADIC.finditer(code):
        line = code.count("\n", 0, m.start()) + 1
        found.append(f"kernels/{name}:{line}: variadic macro ({m.group(0).strip()})")
assert checked >= 5, f"only {checked} kernel files found in {kernels}"
if found:
    sys.exit("not OpenCL C 1.2:\n" + "\n".join(found))
print(f"{checked} kernel files: no variadic macros")
