/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* OpenCL device discovery and selection. */
#pragma once

#include "gstclhpp.hpp"

#include <string>
#include <vector>

/* The C++ API is exported as a whole (the library hides everything else). */
#pragma GCC visibility push(default)
namespace gstcl {

struct DeviceEntry {
  unsigned index = 0;          /* position in the flat list gst-opencl-info prints */
  cl::Platform platform;
  cl::Device device;
  std::string platform_name;
  std::string device_name;
  std::string version;         /* e.g. "OpenCL 3.0 CUDA" */
  std::string c_version;       /* e.g. "OpenCL C 1.2" */
  std::string driver_version;
  cl_device_type type = 0;
  unsigned compute_units = 0;
  unsigned long long global_mem = 0;
  bool host_unified_memory = false;

  std::string full_name () const { return platform_name + " / " + device_name; }
  const char *type_name () const;
};

/* Every device of every platform, in platform then device order. Throws
 * std::runtime_error with a readable cause when no platform can be found. */
std::vector<DeviceEntry> enumerate_devices ();

/* Picks a device. `selector`: "" or "auto" = first GPU, else first accelerator,
 * else first CPU; "gpu" | "cpu" | "accelerator"; a decimal index; or a
 * case-insensitive substring of "platform / device". An empty selector falls
 * back to $GST_OPENCL_DEVICE. Throws std::runtime_error when nothing matches. */
DeviceEntry select_device (const std::string &selector);

/* The selector actually in force for a property value (applies the env default). */
std::string effective_selector (const char *property_value);

}  // namespace gstcl
#pragma GCC visibility pop
