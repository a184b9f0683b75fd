/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcl.hpp"
#include "gstcl-debug.h"

GstDebugCategory *gst_cl_runtime_debug = nullptr;
GstDebugCategory *gst_cl_memory_debug = nullptr;

void
gst_cl_debug_init (void)
{
  static gsize once = 0;
  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cl_runtime_debug, "clruntime", 0,
        "OpenCL runtime: devices, contexts, program builds");
    GST_DEBUG_CATEGORY_INIT (gst_cl_memory_debug, "clmemory", 0,
        "OpenCL memory, transfers and buffer pools");
    g_once_init_leave (&once, 1);
  }
}

namespace gstcl {

const char *
error_name (cl_int code)
{
  switch (code) {
#define NAME(c) case c: return #c;
    NAME (CL_SUCCESS)
    NAME (CL_DEVICE_NOT_FOUND)
    NAME (CL_DEVICE_NOT_AVAILABLE)
    NAME (CL_COMPILER_NOT_AVAILABLE)
    NAME (CL_MEM_OBJECT_ALLOCATION_FAILURE)
    NAME (CL_OUT_OF_RESOURCES)
    NAME (CL_OUT_OF_HOST_MEMORY)
    NAME (CL_PROFILING_INFO_NOT_AVAILABLE)
    NAME (CL_MEM_COPY_OVERLAP)
    NAME (CL_BUILD_PROGRAM_FAILURE)
    NAME (CL_MAP_FAILURE)
    NAME (CL_MISALIGNED_SUB_BUFFER_OFFSET)
    NAME (CL_INVALID_VALUE)
    NAME (CL_INVALID_DEVICE_TYPE)
    NAME (CL_INVALID_PLATFORM)
    NAME (CL_INVALID_DEVICE)
    NAME (CL_INVALID_CONTEXT)
    NAME (CL_INVALID_QUEUE_PROPERTIES)
    NAME (CL_INVALID_COMMAND_QUEUE)
    NAME (CL_INVALID_HOST_PTR)
    NAME (CL_INVALID_MEM_OBJECT)
    NAME (CL_INVALID_BINARY)
    NAME (CL_INVALID_BUILD_OPTIONS)
    NAME (CL_INVALID_PROGRAM)
    NAME (CL_INVALID_PROGRAM_EXECUTABLE)
    NAME (CL_INVALID_KERNEL_NAME)
    NAME (CL_INVALID_KERNEL)
    NAME (CL_INVALID_ARG_INDEX)
    NAME (CL_INVALID_ARG_VALUE)
    NAME (CL_INVALID_ARG_SIZE)
    NAME (CL_INVALID_KERNEL_ARGS)
    NAME (CL_INVALID_WORK_DIMENSION)
    NAME (CL_INVALID_WORK_GROUP_SIZE)
    NAME (CL_INVALID_WORK_ITEM_SIZE)
    NAME (CL_INVALID_GLOBAL_OFFSET)
    NAME (CL_INVALID_EVENT_WAIT_LIST)
    NAME (CL_INVALID_EVENT)
    NAME (CL_INVALID_OPERATION)
    NAME (CL_INVALID_BUFFER_SIZE)
    NAME (CL_INVALID_GLOBAL_WORK_SIZE)
#undef NAME
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "unknown OpenCL error";
  }
}

std::string
describe (const cl::Error &e)
{
  if (dynamic_cast<const DeviceTimeout *> (&e) || dynamic_cast<const WaitCancelled *> (&e))
    return e.what ();   /* a whole sentence already */
  return std::string (e.what ()) + " failed: " + error_name (e.err ()) + " (" +
      std::to_string (e.err ()) + ")";
}

}  // namespace gstcl
