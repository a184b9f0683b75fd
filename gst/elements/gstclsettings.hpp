/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Refused property values, shared by the elements whose properties are
 * checked (clconvert, clconvolve, clfir, clkernel, cldebayer), and
 * number-array properties (clconvolve's and clfir's weights, cldebayer's
 * colour matrix).
 *
 * A value that is wrong on its own (a kernel of 2 values, a NaN, a build
 * option the driver cannot take) is never stored. The element says so with
 * clsettings::settle (), and GstClBaseTransform does the rest
 * (gst_cl_base_transform_refuse ()): what happens depends on whether the
 * element runs:
 *
 * - not started (NULL or READY, e.g. while gst-launch-1.0 parses the launch
 *   line, when no bus exists yet): a g_warning at once, as GObject does for an
 *   out-of-range number, and the refusal is remembered: the element then
 *   fails to start with an element error naming the property and the value,
 *   until a good value of that property is set;
 * - started: a warning on the bus; the value in force stays.
 */
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>
#include <gst/opencl/gstclbasetransform.h>

#include <string>
#include <vector>

namespace clsettings {

/* The value as launch lines write it, for messages. */
std::string describe_value (const GValue * value);

/* After set_property checked `value` of `pspec`: `why` it was refused
 * (the element did not store it; `in_force` ends the bus warning: "The
 * previous kernel stays in force."), or "" for a good value, which clears
 * an earlier refusal of that property. Call without holding the element's
 * settings lock (a bus sync handler may read its properties):
 *   std::string why;
 *   { lock; why = check_and_store (value); }
 *   clsettings::settle (GST_CL_BASE_TRANSFORM (self), pspec, value, why,
 *       "The previous matrix stays in force.");
 * The element overrides neither start nor stop for it. */
void settle (GstClBaseTransform * element, const GParamSpec * pspec, const GValue * value,
    const std::string & why, const char *in_force);

/* One refused value (and clconvolve's make_weights' mismatch). */
struct Refusal {
  std::string property;
  std::string value;   /* as gst_value_serialize writes it */
  std::string why;
};

/* Number arrays (kernels, matrices) as GstValueArray properties. */

/* Reads a GstValueArray of numbers. False, with the reason, when an element
 * is not a number. */
bool values_from_array (const GValue * array, std::vector<double> *out, std::string *why);
/* Fills `array` (a GST_TYPE_ARRAY value) with `values` as doubles. */
void array_from_values (const std::vector<double> &values, GValue * array);

/* A GstValueArray property of doubles. Its elements may be NaN or infinite,
 * so that such values reach set_property, which refuses them with a message
 * (GObject's own check would print a critical warning instead). */
GParamSpec *param_spec_weights (const char *name, const char *nick, const char *blurb,
    GParamFlags flags);

}  // namespace clsettings
