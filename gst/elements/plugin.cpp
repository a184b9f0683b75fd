/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The opencl plugin: every element of gst-opencl. */
#include "gstclelements.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = FALSE;
#define REGISTER(element) ok |= GST_ELEMENT_REGISTER (element, plugin);
  GST_CL_ELEMENTS (REGISTER)
#undef REGISTER
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, opencl,
    "Image filters on any OpenCL device", plugin_init, VERSION, "LGPL",
    "gst-opencl", "gst-opencl project")
