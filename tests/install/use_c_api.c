/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Built by test_install.py against the installed headers and library, with
 * the flags of `pkg-config --cflags --libs gstreamer-opencl-1.0`, as plain C:
 * the public C headers must stay C. Uses a context and one device buffer. */
#include <gst/opencl/opencl.h>

#include <stdio.h>
#include <string.h>

int
main (int argc, char **argv)
{
  GError *error = NULL;
  GstClContext *context;
  GstAllocator *allocator;
  GstMemory *mem;
  GstMapInfo map;
  GstClMemoryStats stats;
  int ok;

  gst_init (&argc, &argv);
  context = gst_cl_context_new (NULL, &error);
  if (!context) {
    fprintf (stderr, "no context: %s\n", error->message);
    return 1;
  }
  allocator = gst_cl_allocator_new (context);
  mem = gst_allocator_alloc (allocator, 1024, NULL);
  gst_memory_map (mem, &map, GST_MAP_WRITE);
  memset (map.data, 7, map.size);
  gst_memory_unmap (mem, &map);
  /* The device view: the cl_mem itself, made current by an upload. */
  ok = gst_is_cl_memory (mem) && gst_memory_map (mem, &map, (GstMapFlags) (GST_MAP_READ | GST_MAP_CL));
  if (ok)
    gst_memory_unmap (mem, &map);
  gst_cl_memory_get_stats (&stats);
  printf ("device: %s, uploads: %u\n", gst_cl_context_get_device_name (context),
      (unsigned) stats.uploads);
  gst_memory_unref (mem);
  gst_object_unref (allocator);
  gst_object_unref (context);
  return ok && stats.uploads == 1 ? 0 : 1;
}
