/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "gstclconvolutionfilter.h"

G_BEGIN_DECLS
#define GST_TYPE_CL_CONVOLVE (gst_cl_convolve_get_type ())
G_DECLARE_FINAL_TYPE (GstClConvolve, gst_cl_convolve, GST, CL_CONVOLVE, GstClConvolutionFilter)
G_END_DECLS
