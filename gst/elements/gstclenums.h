/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Enumerations shared by several elements. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* Values match BORDER_* in kernels/common.cl. */
typedef enum {
  GST_CL_BORDER_REPLICATE = 0,
  GST_CL_BORDER_REFLECT = 1,
  GST_CL_BORDER_CONSTANT = 2,
} GstClBorder;

#define GST_TYPE_CL_BORDER (gst_cl_border_get_type ())
GType gst_cl_border_get_type (void);

G_END_DECLS
