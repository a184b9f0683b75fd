/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* OpenCL device discovery and selection. */
#pragma once

#include "gstclhpp.hpp"

#include <memory>
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
  /* Stable ids, "" where the driver gives none: the PCI address
   * "dddd:bb:dd.f" (cl_khr_pci_bus_info, else NVIDIA's
   * cl_nv_device_attribute_query) and the UUID
   * "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (cl_khr_device_uuid). */
  std::string pci_bus;
  std::string uuid;

  std::string full_name () const { return platform_name + " / " + device_name; }
  const char *type_name () const;
};

/* Every device of every platform, in platform then device order. Throws
 * std::runtime_error with a readable cause when no platform can be found. */
std::vector<DeviceEntry> enumerate_devices ();

/* A live context's claim on its device, counted for `auto` (RAII: the count
 * drops when it is destroyed). */
class DeviceClaim {
public:
  explicit DeviceClaim (cl_device_id device);
  /* Adopts a count select_device() has made under its lock. */
  struct Counted {};
  DeviceClaim (cl_device_id device, Counted) : device_ (device) {}
  ~DeviceClaim ();
  DeviceClaim (const DeviceClaim &) = delete;
  DeviceClaim &operator= (const DeviceClaim &) = delete;
private:
  cl_device_id device_;
};

/* Live contexts (claims) on a device in this process. */
unsigned live_contexts (cl_device_id device);

/* The devices `auto` deals contexts over: every GPU, else every
 * accelerator, else every CPU device. */
std::vector<DeviceEntry> auto_devices (const std::vector<DeviceEntry> &devices);

/* Picks a device. `selector` (case-insensitive):
 *   ""              the default: first GPU, else accelerator, else CPU
 *   "auto"          the device of auto_devices() with the fewest live
 *                   contexts (the lowest index among equals)
 *   "gpu" | "cpu" | "accelerator", "gpu:N"   the first / Nth of that type
 *   "N"             the index gst-opencl-info prints
 *   "pci:[dddd:]bb:dd.f", or the bare address as lspci prints it
 *   "uuid:U", or a bare UUID (32 hex digits, dashes and nvidia-smi's
 *                   "GPU-" prefix allowed)
 *   anything else   a part of "platform / device"
 * An empty selector falls back to $GST_OPENCL_DEVICE. Throws
 * std::runtime_error, listing the devices, when nothing matches. With
 * `claim`, "auto"'s choice is counted at once (under the same lock), so
 * that pipelines started together spread. */
DeviceEntry select_device (const std::string &selector,
    std::unique_ptr<DeviceClaim> *claim = nullptr);

/* select_device() over a given list (no $GST_OPENCL_DEVICE, no claim);
 * nullptr when nothing matches. For tests with made-up ids. */
const DeviceEntry *match_device (const std::vector<DeviceEntry> &devices,
    const std::string &selector);

/* Whether a selector accepts a context on any device ("" and "auto"). */
bool selector_takes_any (const std::string &selector);

/* The selector actually in force for a property value (applies the env default). */
std::string effective_selector (const char *property_value);

}  // namespace gstcl
#pragma GCC visibility pop
