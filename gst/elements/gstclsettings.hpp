/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Refused property values, shared by the elements whose properties are
 * checked (clconvolve, clfir, clkernel), and number-array properties
 * (clconvolve's and clfir's weights, cldebayer's colour matrix).
 *
 * A value that is wrong on its own (a kernel of 2 values, a NaN, a build
 * option the driver cannot take) is never stored. What else happens depends
 * on whether the element runs:
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

#include <mutex>
#include <string>
#include <vector>

namespace clsettings {

/* One refused value. */
struct Refusal {
  std::string property;
  std::string value;   /* as gst_value_serialize writes it */
  std::string why;
};

/* The values refused while the element was not started. Keep it with the
 * element's settings, under their lock. */
class Refusals {
public:
  void add (const Refusal & refusal);
  /* A good value of `property` was set: its earlier refusal is forgotten. */
  void forget (const char *property);
  bool empty () const { return list_.empty (); }
  const Refusal & first () const { return list_.front (); }

private:
  std::vector<Refusal> list_;
};

/* The value as launch lines write it, for messages. */
std::string describe_value (const GValue * value);

/* Says that a value of `property` was refused: a bus warning when `running`,
 * ending with `in_force` ("The previous kernel stays in force."), else a
 * g_warning (the caller keeps the refusal in its Refusals). Call without
 * holding locks that a bus sync handler may need. */
void report (GstElement * element, bool running, const char *property,
    const std::string & value, const std::string & why, const char *in_force);

/* Posts the element error for a refused value at start. */
void post_start_error (GstElement * element, const Refusal & refusal);

/* Whether the element runs (its settings' `started`, under their `lock`),
 * kept by its start and stop:
 *   start: return clsettings::mark_started (...) && clsettings::chain_start (...);
 *   stop:  clsettings::mark_stopped (...); then chain up.
 * mark_started posts the start error of the first refusal (or of `extra`,
 * one the element keeps itself) and returns false, else marks started. */
bool mark_started (GstElement * element, std::mutex & lock, bool & started,
    const Refusals & refusals, const Refusal * extra = nullptr);
/* Chains up to `parent`'s start; marks not started again if that fails. */
gboolean chain_start (GstBaseTransform * trans, GstBaseTransformClass * parent,
    std::mutex & lock, bool & started);
void mark_stopped (std::mutex & lock, bool & started);

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
