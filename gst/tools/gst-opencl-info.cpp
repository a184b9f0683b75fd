/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-opencl-info: lists OpenCL platforms and devices with the index and the
 * stable ids (PCI address, UUID) that the elements' `device` property takes,
 * and shows which device the default picks and which ones `auto` deals over. */
#include <gst/opencl/gstcldevice.hpp>

#include <cstdio>
#include <cstring>
#include <exception>

int
main (int argc, char **argv)
{
  const char *selector = argc > 1 ? argv[1] : "";
  if (argc > 1 && (!std::strcmp (argv[1], "-h") || !std::strcmp (argv[1], "--help"))) {
    std::printf ("usage: %s [DEVICE-SELECTOR]\n"
        "Lists OpenCL devices; with a selector (as the elements' `device` property\n"
        "takes it), also shows the device it picks.\n", argv[0]);
    return 0;
  }
  try {
    auto devices = gstcl::enumerate_devices ();
    for (const auto &d : devices) {
      std::printf ("%u: %s\n", d.index, d.full_name ().c_str ());
      std::printf ("   type %s, %s, %s, driver %s\n", d.type_name (), d.version.c_str (),
          d.c_version.c_str (), d.driver_version.c_str ());
      std::printf ("   %u compute units, %.1f GiB memory%s\n", d.compute_units,
          d.global_mem / (1024.0 * 1024.0 * 1024.0),
          d.host_unified_memory ? ", shares host memory" : "");
      std::printf ("   pci:%s uuid:%s\n", d.pci_bus.empty () ? "(none)" : d.pci_bus.c_str (),
          d.uuid.empty () ? "(none)" : d.uuid.c_str ());
    }
    const bool from_env = !gstcl::effective_selector ("").empty ();
    if (from_env) {
      auto picked = gstcl::select_device ("");
      std::printf ("GST_OPENCL_DEVICE='%s' picks %u: %s\n",
          gstcl::effective_selector ("").c_str (), picked.index, picked.full_name ().c_str ());
    }
    auto def = gstcl::match_device (devices, "");
    std::printf ("the default (device unset) picks %u: %s\n", def->index,
        def->full_name ().c_str ());
    std::printf ("auto deals new contexts over:");
    for (const auto &d : gstcl::auto_devices (devices))
      std::printf (" %u", d.index);
    std::printf ("\n");
    if (*selector) {
      auto chosen = gstcl::select_device (selector);
      std::printf ("'%s' picks %u: %s\n", selector, chosen.index, chosen.full_name ().c_str ());
    }
  } catch (const std::exception &e) {
    std::fprintf (stderr, "gst-opencl-info: %s\n", e.what ());
    return 1;
  }
  return 0;
}
