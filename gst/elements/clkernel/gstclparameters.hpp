/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clkernel's `parameters`: named numbers from a GstStructure that reach the
 * user's OpenCL code as values, not as build options, so that a new value
 * needs no rebuild. The names and types (the signature) are part of the
 * program: a struct clkernel_params_t, a member of image_t, and a macro per
 * name (`gain` reads img.params.gain). The values are the kernel's struct
 * argument, set at each frame. */
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

namespace clparams {

enum class Type { FLOAT, INT, UINT };

struct Param {
  std::string name;
  Type type = Type::FLOAT;
  union {
    gfloat f;
    gint32 i;
    guint32 u;
  } value = {0.0f};
};

using Params = std::vector<Param>;

/* The fields of `s`, sorted by name (the structure's name is ignored). "" when
 * taken, else why not: a field that is not a number or a boolean (float and
 * double become float, int int, uint uint, boolean int 0/1), or a name that
 * is not a C identifier or is the element's own (clkernel_, CLKERNEL_, PX_,
 * img). */
std::string from_structure (const GstStructure * s, Params * out);

/* The names and types, which the program is built for. */
std::string signature (const Params & params);
/* OpenCL C before the element's prelude: the typedef of clkernel_params_t. */
std::string declarations (const Params & params);
/* OpenCL C after it, before the user's code: `#define gain (img.params.gain)`. */
std::string macros (const Params & params);
/* After the user's code: the macros undefined. */
std::string undefs (const Params & params);
/* The kernel argument: the struct's bytes (4 per field; one unused int when
 * there are none). */
std::vector<guint8> bytes (const Params & params);
/* `as_set` with the fields whose value in `params` differs from it set to
 * that value (float, int, uint); the others as they were set. */
GstStructure *with_values (const GstStructure * as_set, const Params & params);
/* The first name the code never mentions (as a whole word), or "". */
std::string unused (const Params & params, const std::string & source);

}  // namespace clparams
