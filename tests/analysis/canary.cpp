/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Canaries for the analysis runs: each mode makes on purpose the fault that
 * one tool must find, so a run that stops finding faults (a tool that does
 * not run, a suppression that hides too much) fails CI instead of passing
 * silently. tests/meson.build expects every mode to be reported.
 *
 *   leak-object   a GStreamer object never unreffed   (GST_TRACERS=leaks)
 *   leak-memory   a GstClContext never unreffed       (valgrind memcheck)
 *   race          a counter written by two threads    (valgrind helgrind)
 *   out-of-bounds a kernel writing past its buffer    (Oclgrind)
 */
#include <gst/gst.h>
#include <gst/opencl/gstcl.hpp>

#include <cstdio>
#include <cstring>
#include <thread>

static int shared_counter;

static int
out_of_bounds ()
{
  GstClContext *ctx = gst_cl_context_new (nullptr, nullptr);
  if (!ctx)
    return 2;
  const size_t n = 64;
  try {
    cl::Program prog = gstcl::program (ctx,
        "__kernel void past_end (__global int *b, int n) { b[get_global_id (0) + n] = 1; }",
        "");
    cl::Buffer buf (gstcl::context_of (ctx), CL_MEM_READ_WRITE, n * sizeof (cl_int));
    cl::Kernel k (prog, "past_end");
    k.setArg (0, buf);
    k.setArg (1, (cl_int) n);
    gstcl::queue_of (ctx).enqueueNDRangeKernel (k, cl::NullRange, cl::NDRange (4));
    gstcl::queue_of (ctx).finish ();
  } catch (const cl::Error &e) {
    std::fprintf (stderr, "%s\n", gstcl::describe (e).c_str ());
  }
  gst_object_unref (ctx);
  return 0;
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  int ret = 0;
  if (!std::strcmp (mode, "leak-object")) {
    gst_element_factory_make ("clsobel", nullptr);
  } else if (!std::strcmp (mode, "leak-memory")) {
    gst_cl_context_new (nullptr, nullptr);
  } else if (!std::strcmp (mode, "race")) {
    std::thread a ([] { for (int i = 0; i < 1000; i++) shared_counter++; });
    std::thread b ([] { for (int i = 0; i < 1000; i++) shared_counter++; });
    a.join ();
    b.join ();
  } else if (!std::strcmp (mode, "out-of-bounds")) {
    ret = out_of_bounds ();
  } else {
    std::fprintf (stderr, "usage: %s leak-object|leak-memory|race|out-of-bounds\n", argv[0]);
    return 2;
  }
  gst_deinit ();
  return ret;
}
