/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-opencl runtime library: include this one header. */
#pragma once

#include <gst/opencl/gstclcontext.h>
#include <gst/opencl/gstclmemory.h>
#include <gst/opencl/gstclbufferpool.h>
#include <gst/opencl/gstclvideo.h>
#include <gst/opencl/gstclbasetransform.h>
#include <gst/opencl/gstclfilter.h>
#include <gst/opencl/gstclprofile.h>
