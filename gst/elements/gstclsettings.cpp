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

bool
values_from_array (const GValue * array, std::vector<double> *out, std::string *why)
{
  if (!GST_VALUE_HOLDS_ARRAY (array)) {
    *why = "not an array";
    return false;
  }
  const guint size = gst_value_array_get_size (array);
  std::vector<double> values;
  values.reserve (size);
  for (guint i = 0; i < size; i++) {
    const GValue *v = gst_value_array_get_value (array, i);
    GValue d = G_VALUE_INIT;
    g_value_init (&d, G_TYPE_DOUBLE);
    const bool ok = g_value_type_transformable (G_VALUE_TYPE (v), G_TYPE_DOUBLE) &&
        g_value_transform (v, &d);
    const double value = g_value_get_double (&d);
    g_value_unset (&d);
    if (!ok) {
      *why = std::string ("element ") + std::to_string (i) + " is a " +
          G_VALUE_TYPE_NAME (v) + ", not a number";
      return false;
    }
    values.push_back (value);
  }
  *out = std::move (values);
  return true;
}

void
array_from_values (const std::vector<double> &values, GValue * array)
{
  GValue v = G_VALUE_INIT;
  g_value_init (&v, G_TYPE_DOUBLE);
  for (double d : values) {
    g_value_set_double (&v, d);
    gst_value_array_append_value (array, &v);
  }
  g_value_unset (&v);
}

/* A double param spec that accepts every double: GParamSpecDouble calls NaN
 * out of range (NaN != NaN), and GObject would refuse it with a critical
 * warning before set_property could say why. */
static gboolean
weight_validate (GParamSpec *, GValue *)
{
  return FALSE;
}

static gint
weight_compare (GParamSpec *, const GValue * a, const GValue * b)
{
  const double x = g_value_get_double (a), y = g_value_get_double (b);
  return x < y ? -1 : x > y ? 1 : 0;
}

static GType
weight_param_get_type ()
{
  static GType type = 0;
  if (g_once_init_enter (&type)) {
    GParamSpecTypeInfo info = {};
    info.instance_size = sizeof (GParamSpec);
    info.value_type = G_TYPE_DOUBLE;
    info.value_validate = weight_validate;
    info.values_cmp = weight_compare;
    g_once_init_leave (&type, g_param_type_register_static ("GstClParamWeight", &info));
  }
  return type;
}

GParamSpec *
param_spec_weights (const char *name, const char *nick, const char *blurb,
    GParamFlags flags)
{
  GParamSpec *weight = (GParamSpec *) g_param_spec_internal (weight_param_get_type (),
      "weight", "Weight", "One weight", G_PARAM_READWRITE);
  return gst_param_spec_array (name, nick, blurb, weight, flags);
}

}  // namespace clsettings
