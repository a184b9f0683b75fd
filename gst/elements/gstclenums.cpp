/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclenums.h"

#include <gst/gst.h>

GType
gst_cl_border_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_BORDER_REPLICATE, "Repeat the edge pixel (aaa|abcd|ddd)", "replicate"},
    {GST_CL_BORDER_REFLECT, "Mirror about the edge pixel, reflect-101 (dcb|abcd|cba)",
        "reflect"},
    {GST_CL_BORDER_CONSTANT, "Zero outside the image", "constant"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstClBorder", values);
    gst_type_mark_as_plugin_api (t, (GstPluginAPIFlags) 0);
    g_once_init_leave (&type, t);
  }
  return type;
}
