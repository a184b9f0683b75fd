/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcldevice.hpp"
#include "gstcl-debug.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>

/* Older headers lack NVIDIA's PCI queries (cl_nv_device_attribute_query). */
#ifndef CL_DEVICE_PCI_BUS_ID_NV
#define CL_DEVICE_PCI_BUS_ID_NV 0x4008
#endif
#ifndef CL_DEVICE_PCI_SLOT_ID_NV
#define CL_DEVICE_PCI_SLOT_ID_NV 0x4009
#endif
#ifndef CL_DEVICE_PCI_DOMAIN_ID_NV
#define CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A
#endif

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

bool has_extension (const cl::Device &d, const char *name)
{
  const std::string all = " " + d.getInfo<CL_DEVICE_EXTENSIONS> () + " ";
  return all.find (std::string (" ") + name + " ") != std::string::npos;
}

template <typename T>
bool device_info (const cl::Device &d, cl_device_info what, T *out)
{
  return clGetDeviceInfo (d (), what, sizeof (T), out, nullptr) == CL_SUCCESS;
}

std::string pci_address (unsigned domain, unsigned bus, unsigned dev, unsigned fn)
{
  char buf[32];
  /* as lspci prints it; domains beyond 16 bits (VMD) get more digits */
  std::snprintf (buf, sizeof buf, "%04x:%02x:%02x.%x", domain, bus & 0xff, dev & 0x1f, fn & 7);
  return buf;
}

/* "dddd:bb:dd.f", or "" when the driver does not say. */
std::string pci_bus_of (const cl::Device &d)
{
  if (has_extension (d, "cl_khr_pci_bus_info")) {
    cl_device_pci_bus_info_khr info{};
    if (device_info (d, CL_DEVICE_PCI_BUS_INFO_KHR, &info))
      return pci_address (info.pci_domain, info.pci_bus, info.pci_device, info.pci_function);
  }
  if (has_extension (d, "cl_nv_device_attribute_query")) {
    /* The slot id holds device << 3 | function, as hwloc reads it; the
     * domain query is newer than the others. */
    cl_uint bus = 0, slot = 0, domain = 0;
    if (device_info (d, CL_DEVICE_PCI_BUS_ID_NV, &bus) &&
        device_info (d, CL_DEVICE_PCI_SLOT_ID_NV, &slot)) {
      if (!device_info (d, CL_DEVICE_PCI_DOMAIN_ID_NV, &domain))
        domain = 0;
      return pci_address (domain, bus, slot >> 3, slot & 7);
    }
  }
  return "";
}

std::string uuid_text (const unsigned char *u)
{
  std::string out;
  char hex[3];
  for (int i = 0; i < CL_UUID_SIZE_KHR; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10)
      out += '-';
    std::snprintf (hex, sizeof hex, "%02x", u[i]);
    out += hex;
  }
  return out;
}

std::string uuid_of (const cl::Device &d)
{
  if (!has_extension (d, "cl_khr_device_uuid"))
    return "";
  unsigned char u[CL_UUID_SIZE_KHR] = {};
  if (clGetDeviceInfo (d (), CL_DEVICE_UUID_KHR, sizeof u, u, nullptr) != CL_SUCCESS)
    return "";
  return uuid_text (u);
}

/* A UUID as 32 lower-case hex digits, or "" if `s` is not one (dashes and
 * nvidia-smi's "gpu-" prefix dropped). */
std::string uuid_digits (std::string s)
{
  if (s.rfind ("gpu-", 0) == 0)
    s = s.substr (4);
  std::string out;
  for (char c : s) {
    if (c == '-')
      continue;
    if (!std::isxdigit ((unsigned char) c))
      return "";
    out += (char) std::tolower ((unsigned char) c);
  }
  return out.size () == 2 * CL_UUID_SIZE_KHR ? out : "";
}

/* "[dddd:]bb:dd.f" to "dddd:bb:dd.f", or "" if `s` is not one. */
std::string pci_canonical (const std::string &s)
{
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  char tail = 0;
  if (std::sscanf (s.c_str (), "%x:%x:%x.%x%c", &domain, &bus, &dev, &fn, &tail) == 4 ||
      (domain = 0, std::sscanf (s.c_str (), "%x:%x.%x%c", &bus, &dev, &fn, &tail) == 3)) {
    if (bus <= 0xff && dev <= 0x1f && fn <= 7)
      return pci_address (domain, bus, dev, fn);
  }
  return "";
}

/* Live contexts a device, for `auto`. */
std::mutex claims_lock;
std::map<cl_device_id, unsigned> &claims ()
{
  static auto *m = new std::map<cl_device_id, unsigned> ();  /* never freed: used at exit */
  return *m;
}

unsigned live_locked (cl_device_id d)
{
  auto it = claims ().find (d);
  return it == claims ().end () ? 0 : it->second;
}

}  // namespace

DeviceClaim::DeviceClaim (cl_device_id device) : device_ (device)
{
  std::lock_guard<std::mutex> lock (claims_lock);
  claims ()[device_]++;
}

DeviceClaim::~DeviceClaim ()
{
  std::lock_guard<std::mutex> lock (claims_lock);
  auto it = claims ().find (device_);
  if (it != claims ().end () && --it->second == 0)
    claims ().erase (it);
}

unsigned live_contexts (cl_device_id device)
{
  std::lock_guard<std::mutex> lock (claims_lock);
  return live_locked (device);
}

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
      e.pci_bus = pci_bus_of (d);
      e.uuid = uuid_of (d);
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

std::vector<DeviceEntry> auto_devices (const std::vector<DeviceEntry> &devices)
{
  for (cl_device_type t : {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_CPU}) {
    std::vector<DeviceEntry> of_type;
    for (const auto &d : devices)
      if (d.type & t)
        of_type.push_back (d);
    if (!of_type.empty ())
      return of_type;
  }
  return devices;
}

bool selector_takes_any (const std::string &selector)
{
  const std::string sel = lower (trimmed (selector));
  return sel.empty () || sel == "auto";
}

namespace {

/* match_device(); "auto" reads the claims, whose lock the caller holds. */
const DeviceEntry *match_locked (const std::vector<DeviceEntry> &devices,
    const std::string &raw)
{
  const std::string sel = lower (trimmed (raw));
  auto nth_of = [&] (cl_device_type t, unsigned long n) -> const DeviceEntry * {
    for (auto &d : devices)
      if ((d.type & t) && n-- == 0)
        return &d;
    return nullptr;
  };
  static const std::pair<const char *, cl_device_type> types[] = {
    {"gpu", CL_DEVICE_TYPE_GPU}, {"cpu", CL_DEVICE_TYPE_CPU},
    {"accelerator", CL_DEVICE_TYPE_ACCELERATOR}};

  if (sel.empty ()) {
    for (cl_device_type t : {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR,
          CL_DEVICE_TYPE_CPU})
      if (const DeviceEntry *d = nth_of (t, 0))
        return d;
    return devices.empty () ? nullptr : &devices.front ();
  }
  if (sel == "auto") {
    const DeviceEntry *best = nullptr;
    unsigned best_load = 0;
    for (const auto &candidate : auto_devices (devices)) {
      const unsigned load = live_locked (candidate.device ());
      if (!best || load < best_load) {
        best = &devices[candidate.index];
        best_load = load;
      }
    }
    return best;
  }
  for (const auto &t : types) {
    const std::string name = t.first;
    if (sel == name)
      return nth_of (t.second, 0);
    if (sel.rfind (name + ":", 0) == 0 && is_number (sel.substr (name.size () + 1)))
      return nth_of (t.second, std::strtoul (sel.c_str () + name.size () + 1, nullptr, 10));
  }
  if (is_number (sel)) {
    const unsigned long idx = std::strtoul (sel.c_str (), nullptr, 10);
    return idx < devices.size () ? &devices[idx] : nullptr;
  }
  const bool pci_prefix = sel.rfind ("pci:", 0) == 0;
  const std::string pci = pci_canonical (pci_prefix ? sel.substr (4) : sel);
  if (!pci.empty () || pci_prefix) {
    for (auto &d : devices)
      if (!pci.empty () && d.pci_bus == pci)
        return &d;
    return nullptr;
  }
  const bool uuid_prefix = sel.rfind ("uuid:", 0) == 0;
  const std::string uuid = uuid_digits (uuid_prefix ? sel.substr (5) : sel);
  if (!uuid.empty () || uuid_prefix) {
    for (auto &d : devices)
      if (!uuid.empty () && uuid_digits (d.uuid) == uuid)
        return &d;
    return nullptr;
  }
  for (auto &d : devices)
    if (lower (d.full_name ()).find (sel) != std::string::npos)
      return &d;
  return nullptr;
}

}  // namespace

const DeviceEntry *match_device (const std::vector<DeviceEntry> &devices,
    const std::string &selector)
{
  std::lock_guard<std::mutex> lock (claims_lock);
  return match_locked (devices, selector);
}

DeviceEntry select_device (const std::string &raw, std::unique_ptr<DeviceClaim> *claim)
{
  auto devices = enumerate_devices ();
  const std::string sel = lower (trimmed (effective_selector (raw.c_str ())));
  const DeviceEntry *found;
  {
    std::lock_guard<std::mutex> lock (claims_lock);
    found = match_locked (devices, sel);
    if (found && claim) {
      /* DeviceClaim takes the lock itself: count here, hand over below. */
      claims ()[found->device ()]++;
    }
  }
  if (!found) {
    std::string names;
    for (auto &d : devices) {
      names += "\n  " + std::to_string (d.index) + ": " + d.full_name () +
          " (" + d.type_name () + ")";
      if (!d.pci_bus.empty ())
        names += " pci:" + d.pci_bus;
      if (!d.uuid.empty ())
        names += " uuid:" + d.uuid;
    }
    throw std::runtime_error ("no OpenCL device matches '" + sel +
        "'; devices are:" + names);
  }
  if (claim)
    claim->reset (new DeviceClaim (found->device (), DeviceClaim::Counted ()));
  gst_cl_debug_init ();
  for (auto &d : devices)
    GST_CAT_DEBUG (gst_cl_runtime_debug, "device %u: %s (%s) pci '%s' uuid '%s'", d.index,
        d.full_name ().c_str (), d.type_name (), d.pci_bus.c_str (), d.uuid.c_str ());
  GST_CAT_INFO (gst_cl_runtime_debug, "device selector '%s' picks %u: %s (%s)",
      sel.c_str (), found->index, found->full_name ().c_str (), found->type_name ());
  return *found;
}

}  // namespace gstcl
