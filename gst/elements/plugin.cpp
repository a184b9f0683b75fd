/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The opencl plugin: every element of gst-opencl. */
#include "gstclelements.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = FALSE;
  ok |= GST_ELEMENT_REGISTER (clupload, plugin);
  ok |= GST_ELEMENT_REGISTER (cldownload, plugin);
  ok |= GST_ELEMENT_REGISTER (clsobel, plugin);
  ok |= GST_ELEMENT_REGISTER (clkernel, plugin);
  ok |= GST_ELEMENT_REGISTER (cldebayer, plugin);
  ok |= GST_ELEMENT_REGISTER (clconvolve, plugin);
  ok |= GST_ELEMENT_REGISTER (clfir, plugin);
  ok |= GST_ELEMENT_REGISTER (clconvert, plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, opencl,
    "Image filters on any OpenCL device", plugin_init, VERSION, "LGPL",
    "gst-opencl", "gst-opencl project")
