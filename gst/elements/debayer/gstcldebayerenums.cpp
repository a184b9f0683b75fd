/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcldebayerenums.hpp"
#include "gstcldebayercamera.hpp"

using namespace cldebayer;

GType
gst_cl_debayer_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {METHOD_MALVAR, "Malvar-He-Cutler 5x5 gradient-corrected linear filters",
        "malvar"},
    {METHOD_BILINEAR, "Bilinear interpolation of the nearest samples", "bilinear"},
    {METHOD_MENON, "Menon-Andriani-Calvagno 2007: directional filtering, a posteriori "
          "decision and refining (sharper edges, less false colour; float arithmetic)",
        "menon"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClDebayerMethod", values));
  return type;
}

GType
gst_cl_debayer_white_balance_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {WB_NONE, "No white balance (the gains are not applied)", "none"},
    {WB_MANUAL, "The red-gain, green-gain and blue-gain properties", "manual"},
    {WB_AUTO, "Grey world, from the statistics of the frames before", "auto"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClDebayerWhiteBalance", values));
  return type;
}

GType
gst_cl_debayer_transfer_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {TRANSFER_LINEAR, "Linear (no curve)", "linear"},
    {TRANSFER_SRGB, "sRGB (IEC 61966-2-1)", "srgb"},
    {TRANSFER_BT709, "BT.709 OETF", "bt709"},
    {TRANSFER_GAMMA, "Power 1/gamma (the gamma property)", "gamma"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClDebayerTransfer", values));
  return type;
}

GType
gst_cl_debayer_defect_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {DEFECT_NONE, "No defect correction", "none"},
    {DEFECT_DYNAMIC, "Samples beyond their 8 same-colour neighbours by more than "
          "defect-threshold are clipped to them (hot, dead and single-pixel clusters)",
        "dynamic"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClDebayerDefectCorrection", values));
  return type;
}

GType
gst_cl_debayer_exposure_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {EXPOSURE_MANUAL, "The exposure-gain property", "manual"},
    {EXPOSURE_AUTO, "Moves exposure-gain toward the gain that puts the mean of the zone "
          "means at exposure-target", "auto"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClDebayerExposure", values));
  return type;
}
