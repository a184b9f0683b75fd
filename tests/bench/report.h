/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The report: JSON for tools, Markdown for people, and the project's targets
 * checked against the figures of this run. */
#pragma once

#include "suite.h"

#include <gst/opencl/gstcldevice.hpp>

#include <string>

namespace bench {

struct Environment {
  gstcl::DeviceEntry device;
  std::string gstreamer;
  std::string host;
  std::string date;
  std::string command_line;
};

Json report_json (const Suite &suite, const Environment &env);
std::string report_markdown (const Suite &suite, const Environment &env);

}  // namespace bench
