#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The aravis test (tests/test_aravis.py) on a machine with an OpenCL driver
# but no GStreamer, Python bindings or Aravis (the GPU hosts).
#
#   bash tests/gpu/aravis.sh pack DIR    # here, after ninja -C build: DIR.tar.xz
#   bash tests/gpu/aravis.sh run DIR     # there, in the repository root, after
#                                        # tar xJf DIR.tar.xz
#
# DIR holds ../shared/tools/gst-bundle's runtime with the plugin, openh264enc,
# h264parse and mp4mux; the fake GigE Vision camera and Aravis; a Python 3
# (this machine's, its standard library without tests and GUI modules) with
# PyGObject and the typelibs the example takes. Unpacked it is about 80 MB
# (Aravis's libxml2 brings ICU's 31 MB data), packed about 20 MB.
set -euo pipefail
cd "$(dirname "$0")/../.."
what=${1:?usage: $0 pack DIR | run DIR}
dir=${2:?usage: $0 pack DIR | run DIR}

if [ "$what" = pack ]; then
  arch=$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
  gstlib=/usr/lib/$arch/gstreamer-1.0
  pyver=$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  rm -rf "$dir"
  ../shared/tools/gst-bundle "$dir" build/gst/elements/libgstopencl.so \
    "$gstlib/libgstopenh264.so" "$gstlib/libgstvideoparsersbad.so" "$gstlib/libgstisomp4.so" \
    "$(command -v arv-fake-gv-camera-0.8)"
  # Python: the interpreter, its standard library, PyGObject, the typelibs;
  # the shared libraries they load (the typelibs' by dlopen) go to lib/ as
  # gst-bundle's do.
  mkdir -p "$dir/python/lib" "$dir/python/site" "$dir/typelib"
  cp -L "/usr/bin/python$pyver" "$dir/bin/python3"
  tar -C /usr/lib --exclude=test --exclude=tests --exclude=__pycache__ --exclude=idlelib \
    --exclude=tkinter --exclude=turtledemo --exclude=ensurepip --exclude=lib2to3 \
    --exclude='config-*' --exclude=site-packages --exclude=dist-packages \
    -cf - "python$pyver" | tar -C "$dir/python/lib" -xf -
  # Of the compiled modules only those the test and the example load (the
  # others bring OpenSSL, SQLite, Berkeley DB, ...).
  dynload="$dir/python/lib/python$pyver/lib-dynload"
  find "$dynload" -name '*.so' | grep -Ev '/(_json|_bz2|_lzma|_typing|_contextvars|_queue)\.' |
    xargs rm -f
  # PyGObject without gst-python's overrides (the example needs none; their
  # module links libpython).
  tar -C /usr/lib/python3/dist-packages --exclude=__pycache__ --exclude='Gst*.py' \
    --exclude='_gi_gst*' -cf - gi | tar -C "$dir/python/site" -xf -
  for t in GLib-2.0 GObject-2.0 Gio-2.0 GModule-2.0 Gst-1.0 GstBase-1.0 GstApp-1.0 \
      GstVideo-1.0 Aravis-0.8; do
    cp "/usr/lib/$arch/girepository-1.0/$t.typelib" "$dir/typelib/"
  done
  skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libresolv|libOpenCL\.so|libstdc\+\+|libgcc_s)'
  for o in "/usr/bin/python$pyver" "/usr/lib/$arch/libaravis-0.8.so.0" \
      "/usr/lib/$arch/libgstapp-1.0.so.0" "/usr/lib/$arch/libgstvideo-1.0.so.0" \
      "/usr/lib/$arch/libgirepository-1.0.so.1" \
      $(find "$dir/python" -name '*.so'); do
    [ -e "$dir/lib/$(basename "$o")" ] || case "$o" in
      /usr/lib/*) cp -L "$o" "$dir/lib/" ;; esac
    ldd "$o" | awk '/=> \//{print $1" "$3}' | while read -r name path; do
      [[ $name =~ $skip ]] && continue
      [ -e "$dir/lib/$name" ] || cp -L "$path" "$dir/lib/$name"
    done
  done
  cat >> "$dir/env.sh" <<ENV
_b=\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)
export PYTHONHOME="\$_b/python" PYTHONPATH="\$_b/python/site" PYTHONNOUSERSITE=1
export GI_TYPELIB_PATH="\$_b/typelib"
unset _b
ENV
  tar -C "$(dirname "$dir")" -I 'xz -T0' -cf "$dir.tar.xz" "$(basename "$dir")"
  du -sh "$dir" "$dir.tar.xz"
elif [ "$what" = run ]; then
  # shellcheck disable=SC1091
  source "$dir/env.sh"
  export GST_DEBUG='*:1'
  exec "$dir/bin/python3" tests/test_aravis.py --python "$dir/bin/python3" \
    --example docs/examples/aravis-camera.py --fake-camera "$dir/bin/arv-fake-gv-camera-0.8"
else
  echo "usage: $0 pack DIR | run DIR" >&2
  exit 2
fi
