/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "gstclconvolutionfilter.h"

G_BEGIN_DECLS
#define GST_TYPE_CL_FIR (gst_cl_fir_get_type ())
G_DECLARE_FINAL_TYPE (GstClFir, gst_cl_fir, GST, CL_FIR, GstClConvolutionFilter)
G_END_DECLS
