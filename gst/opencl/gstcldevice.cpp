/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcldevice.hpp"
#include "gstcl-debug.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>

namespace gstcl {

namespace {

std::string lower (std::string s)
{
  std::transform (s.begin (), s.end (), s.begin (),
      [] (unsigned char c) { return (char) std::tolower (c); });
  return s;
}

std::string trimmed (std::string s)
{
  /* Some drivers pad names with spaces or a trailing NUL. */
  while (!s.empty () && (s.back () == '\0' || std::isspace ((unsigned char) s.back ())))
    s.pop_back ();
  size_t start = 0;
  while (start < s.size () && std::isspace ((unsigned char) s[start]))
    start++;
  return s.substr (start);
}

bool is_number (const std::string &s)
{
  return !s.empty () && std::all_of (s.begin (), s.end (),
      [] (unsigned char c) { return std::isdigit (c); });
}

}  // namespace

const char *DeviceEntry::type_name () const
{
  if (type & CL_DEVICE_TYPE_GPU)
    return "gpu";
  if (type & CL_DEVICE_TYPE_ACCELERATOR)
    return "accelerator";
  if (type & CL_DEVICE_TYPE_CPU)
    return "cpu";
  return "other";
}

std::vector<DeviceEntry> enumerate_devices ()
{
  std::vector<cl::Platform> platforms;
  try {
    cl::Platform::get (&platforms);
  } catch (const cl::Error &e) {
    /* The ICD loader returns CL_PLATFORM_NOT_FOUND_KHR (-1001) with no vendor. */
    throw std::runtime_error (std::string ("no OpenCL platform found (") +
        e.what () + " returned " + std::to_string (e.err ()) +
        "): install an OpenCL driver, e.g. pocl-opencl-icd, and check "
        "/etc/OpenCL/vendors or $OCL_ICD_VENDORS");
  }
  if (platforms.empty ())
    throw std::runtime_error ("no OpenCL platform found: install an OpenCL "
        "driver, e.g. pocl-opencl-icd, and check /etc/OpenCL/vendors or "
        "$OCL_ICD_VENDORS");

  std::vector<DeviceEntry> out;
  for (auto &p : platforms) {
    std::vector<cl::Device> devices;
    try {
      p.getDevices (CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error &) {
      continue;  /* CL_DEVICE_NOT_FOUND: a platform without devices */
    }
    for (auto &d : devices) {
      DeviceEntry e;
      e.index = (unsigned) out.size ();
      e.platform = p;
      e.device = d;
      e.platform_name = trimmed (p.getInfo<CL_PLATFORM_NAME> ());
      e.device_name = trimmed (d.getInfo<CL_DEVICE_NAME> ());
      e.version = trimmed (d.getInfo<CL_DEVICE_VERSION> ());
      e.c_version = trimmed (d.getInfo<CL_DEVICE_OPENCL_C_VERSION> ());
      e.driver_version = trimmed (d.getInfo<CL_DRIVER_VERSION> ());
      e.type = d.getInfo<CL_DEVICE_TYPE> ();
      e.compute_units = d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS> ();
      e.global_mem = d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE> ();
      e.host_unified_memory = d.getInfo<CL_DEVICE_HOST_UNIFIED_MEMORY> () != CL_FALSE;
      out.push_back (std::move (e));
    }
  }
  if (out.empty ())
    throw std::runtime_error ("OpenCL platforms were found but none has a device");
  return out;
}

std::string effective_selector (const char *property_value)
{
  if (property_value && *property_value)
    return property_value;
  const char *env = std::getenv ("GST_OPENCL_DEVICE");
  return env ? env : "";
}

DeviceEntry select_device (const std::string &raw)
{
  auto devices = enumerate_devices ();
  const std::string sel = lower (trimmed (effective_selector (raw.c_str ())));

  auto first_of = [&] (cl_device_type t) -> const DeviceEntry * {
    for (auto &d : devices)
      if (d.type & t)
        return &d;
    return nullptr;
  };

  const DeviceEntry *found = nullptr;
  if (sel.empty () || sel == "auto") {
    found = first_of (CL_DEVICE_TYPE_GPU);
    if (!found)
      found = first_of (CL_DEVICE_TYPE_ACCELERATOR);
    if (!found)
      found = first_of (CL_DEVICE_TYPE_CPU);
    if (!found)
      found = &devices.front ();
  } else if (sel == "gpu") {
    found = first_of (CL_DEVICE_TYPE_GPU);
  } else if (sel == "cpu") {
    found = first_of (CL_DEVICE_TYPE_CPU);
  } else if (sel == "accelerator") {
    found = first_of (CL_DEVICE_TYPE_ACCELERATOR);
  } else if (is_number (sel)) {
    unsigned long idx = std::strtoul (sel.c_str (), nullptr, 10);
    if (idx < devices.size ())
      found = &devices[idx];
  } else {
    for (auto &d : devices)
      if (lower (d.full_name ()).find (sel) != std::string::npos) {
        found = &d;
        break;
      }
  }
  if (!found) {
    std::string names;
    for (auto &d : devices)
      names += "\n  " + std::to_string (d.index) + ": " + d.full_name () +
          " (" + d.type_name () + ")";
    throw std::runtime_error ("no OpenCL device matches '" + sel +
        "'; devices are:" + names);
  }
  gst_cl_debug_init ();
  for (auto &d : devices)
    GST_CAT_DEBUG (gst_cl_runtime_debug, "device %u: %s (%s)", d.index,
        d.full_name ().c_str (), d.type_name ());
  GST_CAT_INFO (gst_cl_runtime_debug, "device selector '%s' picks %u: %s (%s)",
      sel.c_str (), found->index, found->full_name ().c_str (), found->type_name ());
  return *found;
}

}  // namespace gstcl
