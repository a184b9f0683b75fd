/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClConvolutionFilter: the base of clconvolve and clfir, which differ only
 * in the properties that give the weights. The base owns the engine, the
 * `border` property, the refusals of weight values (GstClBaseTransform's;
 * a mismatch is its conflict) and the frame path; a subclass installs its
 * weight properties, keeps their values under the base's lock
 * (gst_cl_convolution_filter_set ()) and says how they make weights
 * (make_weights). */
#pragma once

#include "gstclconvolution.hpp"
#include "gstclsettings.hpp"
#include <gst/opencl/gstclprivate.hpp>

#include <functional>
#include <mutex>

G_BEGIN_DECLS

#define GST_TYPE_CL_CONVOLUTION_FILTER (gst_cl_convolution_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstClConvolutionFilter, gst_cl_convolution_filter, GST,
    CL_CONVOLUTION_FILTER, GstClFilter)

struct _GstClConvolutionFilterClass {
  GstClFilterClass parent_class;

  /* Called under the element's lock after any weight property changed: the
   * weights of the subclass's settings in `weights`, or FALSE with
   * `mismatch` saying which properties disagree (the weights in force
   * stay; a mismatch fails start, and is a bus warning while playing). */
  gboolean (*make_weights) (GstClConvolutionFilter * self, clconv::Weights * weights,
      clsettings::Refusal * mismatch);
  /* Ends a refusal's message: "The previous kernel stays in force." */
  const gchar *kept;
};

G_END_DECLS

/* The lock of the subclass's weight settings. */
std::mutex &gst_cl_convolution_filter_lock (GstClConvolutionFilter * self);

/* Sets a weight property: `apply` runs under the lock, stores the value and
 * returns why it refused it ("" when taken); a taken value renews the
 * weights (make_weights); a refusal is remembered before start and is a
 * bus warning while running, as everywhere (gstclsettings.hpp). */
void gst_cl_convolution_filter_set (GstClConvolutionFilter * self, GParamSpec * pspec,
    const GValue * value, const std::function<std::string ()> &apply);

/* The weights in force (under the lock). */
clconv::Weights gst_cl_convolution_filter_weights (GstClConvolutionFilter * self);

/* Makes the weights of the subclass's current settings (its instance init
 * calls it once). */
void gst_cl_convolution_filter_renew_weights (GstClConvolutionFilter * self);
