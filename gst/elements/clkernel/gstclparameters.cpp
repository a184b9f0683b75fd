/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclparameters.hpp"

#include <algorithm>
#include <cstring>

namespace clparams {

static bool
identifier_char (char c, bool first)
{
  return c == '_' || g_ascii_isalpha (c) || (!first && g_ascii_isdigit (c));
}

static bool
is_identifier (const std::string & name)
{
  if (name.empty ())
    return false;
  for (size_t i = 0; i < name.size (); i++)
    if (!identifier_char (name[i], i == 0))
      return false;
  return true;
}

static bool
is_reserved (const std::string & name)
{
  for (const char *prefix : {"clkernel_", "CLKERNEL_", "PX_", "__"})
    if (name.compare (0, strlen (prefix), prefix) == 0)
      return true;
  return name == "img" || name == "x" || name == "y" || name == "filter";
}

std::string
from_structure (const GstStructure * s, Params * out)
{
  Params params;
  for (int i = 0; i < gst_structure_n_fields (s); i++) {
    Param p;
    p.name = gst_structure_nth_field_name (s, i);
    const GValue *v = gst_structure_get_value (s, p.name.c_str ());
    if (!is_identifier (p.name))
      return "'" + p.name + "' is not a name the code can use (letters, digits, _)";
    if (is_reserved (p.name))
      return "'" + p.name + "' is the element's own name; choose another";
    const GType t = G_VALUE_TYPE (v);
    if (t == G_TYPE_FLOAT || t == G_TYPE_DOUBLE) {
      p.type = Type::FLOAT;
      p.value.f = t == G_TYPE_FLOAT ? g_value_get_float (v) : (gfloat) g_value_get_double (v);
    } else if (t == G_TYPE_INT || t == G_TYPE_BOOLEAN) {
      p.type = Type::INT;
      p.value.i = t == G_TYPE_INT ? g_value_get_int (v) : g_value_get_boolean (v);
    } else if (t == G_TYPE_UINT) {
      p.type = Type::UINT;
      p.value.u = g_value_get_uint (v);
    } else {
      return "'" + p.name + "' is a " + g_type_name (t) + "; parameters are (float), "
          "(double), (int), (uint) or (boolean)";
    }
    params.push_back (p);
  }
  /* By name: the order of the fields is not part of the program. */
  std::sort (params.begin (), params.end (),
      [] (const Param & a, const Param & b) { return a.name < b.name; });
  *out = std::move (params);
  return "";
}

static const char *
type_name (Type t)
{
  return t == Type::FLOAT ? "float" : t == Type::INT ? "int" : "uint";
}

std::string
signature (const Params & params)
{
  std::string sig;
  for (const Param & p : params)
    sig += std::string (type_name (p.type)) + " " + p.name + ";";
  return sig;
}

std::string
declarations (const Params & params)
{
  return "typedef struct { " + (params.empty () ? std::string ("int clkernel_unused;") :
      signature (params)) + " } clkernel_params_t;\n";
}

std::string
macros (const Params & params)
{
  std::string out;
  for (const Param & p : params)
    out += "#define " + p.name + " (img.params." + p.name + ")\n";
  return out;
}

std::string
undefs (const Params & params)
{
  std::string out;
  for (const Param & p : params)
    out += "#undef " + p.name + "\n";
  return out;
}

std::vector<guint8>
bytes (const Params & params)
{
  std::vector<guint8> out (4 * std::max<size_t> (params.size (), 1), 0);
  for (size_t i = 0; i < params.size (); i++)
    memcpy (out.data () + 4 * i, &params[i].value, 4);
  return out;
}

std::string
unused (const Params & params, const std::string & source)
{
  for (const Param & p : params) {
    bool found = false;
    for (size_t at = source.find (p.name); at != std::string::npos && !found;
        at = source.find (p.name, at + 1)) {
      const size_t end = at + p.name.size ();
      found = (at == 0 || !identifier_char (source[at - 1], false)) &&
          (end == source.size () || !identifier_char (source[end], false));
    }
    if (!found)
      return p.name;
  }
  return "";
}

GstStructure *
with_values (const GstStructure * as_set, const Params & params)
{
  Params before;
  from_structure (as_set, &before);
  GstStructure *out = gst_structure_copy (as_set);
  for (const Param & p : params) {
    auto same = std::find_if (before.begin (), before.end (), [&] (const Param & b) {
          return b.name == p.name && b.type == p.type &&
              memcmp (&b.value, &p.value, sizeof (p.value)) == 0;
        });
    if (same != before.end ())
      continue;   /* as set: its own type (double, boolean) kept */
    switch (p.type) {
      case Type::FLOAT: gst_structure_set (out, p.name.c_str (), G_TYPE_FLOAT, p.value.f,
            nullptr); break;
      case Type::INT: gst_structure_set (out, p.name.c_str (), G_TYPE_INT, p.value.i,
            nullptr); break;
      case Type::UINT: gst_structure_set (out, p.name.c_str (), G_TYPE_UINT, p.value.u,
            nullptr); break;
    }
  }
  return out;
}

}  // namespace clparams
