/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclsettings.hpp"

namespace clsettings {

std::string
describe_value (const GValue * value)
{
  if (G_VALUE_HOLDS_STRING (value)) {
    const gchar *s = g_value_get_string (value);
    return std::string ("\"") + (s ? s : "") + "\"";
  }
  if (GST_VALUE_HOLDS_STRUCTURE (value)) {
    const GstStructure *s = gst_value_get_structure (value);
    gchar *text = s ? gst_structure_to_string (s) : nullptr;
    const std::string out = std::string ("\"") + (text ? text : "") + "\"";
    g_free (text);
    return out;
  }
  if (GST_VALUE_HOLDS_ARRAY (value)) {
    /* As a launch line writes it: <1, 2, nan>. A 31x31 kernel is 961
     * numbers: the first ones and the count say enough. */
    constexpr guint kShown = 12;
    const guint size = gst_value_array_get_size (value);
    std::string out = "<";
    for (guint i = 0; i < size && i < kShown; i++) {
      const GValue *v = gst_value_array_get_value (value, i);
      GValue d = G_VALUE_INIT;
      g_value_init (&d, G_TYPE_DOUBLE);
      if (g_value_type_transformable (G_VALUE_TYPE (v), G_TYPE_DOUBLE) &&
          g_value_transform (v, &d)) {
        gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
        out += g_ascii_formatd (buf, sizeof (buf), "%.10g", g_value_get_double (&d));
      } else {
        gchar *text = gst_value_serialize (v);
        out += text ? text : "?";
        g_free (text);
      }
      g_value_unset (&d);
      out += i + 1 < size ? ", " : "";
    }
    if (size > kShown)
      out += "... (" + std::to_string (size) + " values)";
    return out + ">";
  }
  gchar *text = gst_value_serialize (value);
  std::string out = text ? text : "(a value that cannot be written)";
  g_free (text);
  return out;
}

void
settle (GstClBaseTransform * element, const GParamSpec * pspec, const GValue * value,
    const std::string & why, const char *in_force)
{
  if (why.empty ())
    gst_cl_base_transform_accept (element, pspec->name);
  else
    gst_cl_base_transform_refuse (element, pspec->name, describe_value (value).c_str (),
        why.c_str (), in_force);
}

}  // namespace clsettings
