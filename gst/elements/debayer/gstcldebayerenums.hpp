/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cldebayer's enum properties as GTypes (method, white balance, transfer
 * curve, defect correction, exposure), for gst-inspect and launch lines. */
#pragma once

#include <glib-object.h>

GType gst_cl_debayer_method_get_type (void);
#define GST_TYPE_CL_DEBAYER_METHOD (gst_cl_debayer_method_get_type ())
GType gst_cl_debayer_white_balance_get_type (void);
#define GST_TYPE_CL_DEBAYER_WHITE_BALANCE (gst_cl_debayer_white_balance_get_type ())
GType gst_cl_debayer_transfer_get_type (void);
#define GST_TYPE_CL_DEBAYER_TRANSFER (gst_cl_debayer_transfer_get_type ())
GType gst_cl_debayer_defect_get_type (void);
#define GST_TYPE_CL_DEBAYER_DEFECT (gst_cl_debayer_defect_get_type ())
GType gst_cl_debayer_exposure_get_type (void);
#define GST_TYPE_CL_DEBAYER_EXPOSURE (gst_cl_debayer_exposure_get_type ())
