/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclbands.hpp"
#include "gstcl.hpp"

#include <algorithm>

namespace gstcl {

void
Bands::set_input (std::vector<int> ends, std::vector<cl::Event> ready)
{
  ends_ = std::move (ends);
  ready_ = std::move (ready);
  waited_ = 0;
  done_.clear ();
}

void
Bands::wait_input (GstClContext *ctx, int rows)
{
  if (ready_.empty ())
    return;
  /* the first band that reaches row `rows` */
  size_t band = std::lower_bound (ends_.begin (), ends_.end (), rows) - ends_.begin ();
  band = std::min (band, ready_.size () - 1);
  if (band < waited_)
    return;
  /* the upload queue is in order: the band's event covers those before */
  const std::vector<cl::Event> wait { ready_[band] };
  queue_of (ctx).enqueueBarrierWithWaitList (&wait);
  waited_ = band + 1;
}

void
Bands::done (GstClContext *ctx, int rows)
{
  if (!done_.empty () && rows <= done_.back ().rows)
    return;
  Done d { rows, cl::Event () };
  queue_of (ctx).enqueueMarkerWithWaitList (nullptr, &d.event);
  done_.push_back (d);
}

void
Bands::clear ()
{
  set_input ({}, {});
}

}  // namespace gstcl
