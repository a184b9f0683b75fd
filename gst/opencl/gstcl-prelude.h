/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Common includes of the public C API. */
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <gst/gst.h>

#if defined(BUILDING_GST_OPENCL)
#define GST_CL_API __attribute__ ((visibility ("default")))
#else
#define GST_CL_API extern
#endif
