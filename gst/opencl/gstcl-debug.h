/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Debug categories of the runtime library (GST_DEBUG=clruntime:5,clmemory:5). */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS
G_GNUC_INTERNAL extern GstDebugCategory *gst_cl_runtime_debug;
G_GNUC_INTERNAL extern GstDebugCategory *gst_cl_memory_debug;
G_GNUC_INTERNAL void gst_cl_debug_init (void);
G_END_DECLS
