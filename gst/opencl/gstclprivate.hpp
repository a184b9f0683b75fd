/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one private part of an element (docs/architecture.md, "Adding an
 * element"). */
#pragma once

#include <mutex>

namespace gstcl {

/* What the user set (`settings`, under `lock`; the streaming thread reads a
 * copy()) and what set_caps built (`state`, the streaming thread's own), as
 * gst-plugins-rs keeps `settings: Mutex<Settings>` apart from `state`. One
 * new in instance init, one delete in finalize. */
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

}  // namespace gstcl
