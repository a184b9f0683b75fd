/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clkernel's `parameters` child (GstChildProxy): one GST_PARAM_CONTROLLABLE
 * property per parameter, so that GstController bindings drive the values
 * frame by frame, as they drive an element's own numeric properties:
 *
 *   GObject *p = gst_child_proxy_get_child_by_name (GST_CHILD_PROXY (k), "parameters");
 *   gst_object_add_control_binding (GST_OBJECT (p),
 *       gst_direct_control_binding_new_absolute (GST_OBJECT (p), "gain", source));
 *
 * The child's type is made once per signature (names and types); its
 * properties read and write the element's settings through `Access`. */
#pragma once

#include "gstclparameters.hpp"

namespace clparams {

struct Access {
  /* Sets the value of the parameter named p.name (same type) in force. */
  void (*set) (GstElement * element, const Param & p);
  /* Fills p.value from the one in force (left as it is when gone). */
  void (*get) (GstElement * element, Param * p);
};

/* A new child for `params`, named "parameters", not yet parented; nullptr
 * when there are no parameters. Names that are not GObject property names
 * (those starting with '_') get no property. */
GstObject *make_child (const Params & params, GstElement * element, const Access & access);

}  // namespace clparams
