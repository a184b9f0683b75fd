/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Built by test_install.py against the installed headers: the C++ side
 * (gstcl.hpp, gstcldevice.hpp) with the OpenCL C++ bindings it includes. */
#include <gst/opencl/opencl.h>
#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/gstcldevice.hpp>

#include <cstdio>

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  try {
    auto devices = gstcl::enumerate_devices ();
    GstClContext *ctx = gst_cl_context_new (nullptr, nullptr);
    if (!ctx)
      return 1;
    cl::Program p = gstcl::program (ctx, "__kernel void k (__global int *a) { a[0] = 1; }", "");
    cl::Kernel k (p, "k");
    std::printf ("%zu device(s); built on %s\n", devices.size (),
        gst_cl_context_get_device_name (ctx));
    gst_object_unref (ctx);
  } catch (const std::exception &e) {
    std::fprintf (stderr, "%s\n", e.what ());
    return 1;
  }
  return 0;
}
