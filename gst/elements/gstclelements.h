/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Element registration of the opencl plugin. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS
GST_ELEMENT_REGISTER_DECLARE (clupload);
GST_ELEMENT_REGISTER_DECLARE (cldownload);
GST_ELEMENT_REGISTER_DECLARE (clsobel);
GST_ELEMENT_REGISTER_DECLARE (clkernel);
GST_ELEMENT_REGISTER_DECLARE (cldebayer);
GST_ELEMENT_REGISTER_DECLARE (clconvolve);
GST_ELEMENT_REGISTER_DECLARE (clfir);
GST_ELEMENT_REGISTER_DECLARE (clconvert);
G_END_DECLS
