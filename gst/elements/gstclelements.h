/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The elements of the plugin: one line each in GST_CL_ELEMENTS. plugin.cpp
 * registers them all, and the tests' generic suites find them in the
 * registry (tests/cltest.h, plugin_elements ()). */
#pragma once

#include <gst/gst.h>

#define GST_CL_ELEMENTS(X) \
  X (clupload) \
  X (cldownload) \
  X (clsobel) \
  X (clkernel) \
  X (cldebayer) \
  X (clconvolve) \
  X (clfir) \
  X (clconvert) \
  X (clpicture)

G_BEGIN_DECLS
GST_CL_ELEMENTS (GST_ELEMENT_REGISTER_DECLARE)
G_END_DECLS
