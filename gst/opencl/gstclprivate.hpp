/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one private part of an element (docs/architecture.md, "Adding an
 * element"). */
#pragma once

#include <glib-object.h>

#include <mutex>

namespace gstcl {

/* The Settings of an element without properties of its own (no empty
 * struct to write): gstcl::ElementPrivate<gstcl::NoSettings, State>. */
struct NoSettings {};

/* What the user set (`settings`, under `lock`; the streaming thread reads a
 * copy()) and what set_caps built (`state`, the streaming thread's own), as
 * gst-plugins-rs keeps `settings: Mutex<Settings>` apart from `state`. One
 * new in instance init, one delete in finalize. Settings is NoSettings
 * for an element without properties. */
template <typename Settings, typename State>
struct ElementPrivate {
  std::mutex lock;
  Settings settings;
  State state;

  Settings copy ()
  {
    std::lock_guard<std::mutex> guard (lock);
    return settings;
  }
};

/* The instance type of a pointer to member. */
template <typename T> struct MemberOf;
template <typename Instance, typename Value> struct MemberOf<Value Instance::*> {
  using instance = Instance;
};

/* GObjectClass::finalize of an element whose C++ part hangs from one
 * pointer member (made with new in instance init): deletes it, then chains
 * up. `ParentClass` is the parent_class variable of G_DEFINE_TYPE:
 *   gobject_class->finalize =
 *       gstcl::finalize_deleting<&GstClSobel::priv, &gst_cl_sobel_parent_class>; */
template <auto Member, gpointer *ParentClass>
void finalize_deleting (GObject * object)
{
  using Instance = typename MemberOf<decltype (Member)>::instance;
  delete (reinterpret_cast<Instance *> (object)->*Member);
  G_OBJECT_CLASS (*ParentClass)->finalize (object);
}

}  // namespace gstcl
