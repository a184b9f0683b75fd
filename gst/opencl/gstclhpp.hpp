/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one place that configures OpenCL-CLHPP for this project: OpenCL 1.2 API
 * (what every driver has), exceptions on, so that a failing call cannot be
 * ignored. Exceptions are caught at every GObject vfunc boundary. */
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS

#include <CL/opencl.hpp>
