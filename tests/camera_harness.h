/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cldebayer's camera path in a harness, as test_camera.cpp and
 * test_sensor.cpp drive it: settings from the model's Stages, frames in,
 * outputs compared with the model (ref_camera.h). */
#pragma once

#include "cltest.h"
#include "ref_camera.h"

#include <gst/app/gstappsink.h>
#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/gstclmemory.h>

#include <cstdio>

using namespace cltest;
using namespace camera_ref;

/* cldebayer in a harness (after clupload for OpenCL-memory input), output
 * caps `out_caps`. */
struct Camera {
  GstHarness *h;
  GstElement *element;
  std::string caps;

  explicit Camera (const std::string &out_caps, bool cl_input = false)
  {
    h = debayer_harness (cl_input, &element);
    gst_harness_set_sink_caps_str (h, out_caps.c_str ());
  }
  ~Camera ()
  {
    gst_object_unref (element);
    gst_harness_teardown (h);
  }

  void set (const Stages & st, bool manual_wb = true)
  {
    set_sensor (st);
    GValue matrix = G_VALUE_INIT;
    g_value_init (&matrix, GST_TYPE_ARRAY);
    for (double v : st.matrix) {
      GValue d = G_VALUE_INIT;
      g_value_init (&d, G_TYPE_DOUBLE);
      g_value_set_double (&d, v);
      gst_value_array_append_value (&matrix, &d);
      g_value_unset (&d);
    }
    g_object_set_property (G_OBJECT (element), "color-matrix", &matrix);
    g_value_unset (&matrix);
    g_object_set (element, "black-level", (guint) st.black, "saturation", st.saturation,
        "transfer", (int) st.transfer, "gamma", st.gamma, nullptr);
    if (manual_wb)
      g_object_set (element, "white-balance", 1, "red-gain", st.gains[0], "green-gain",
          st.gains[1], "blue-gain", st.gains[2], nullptr);
  }

  /* The sensor stages of `st` (a lens-shading file written for its grid). */
  void set_sensor (const Stages & st)
  {
    std::string path;
    if (st.shading.columns) {
      path = shading_path ();
      FILE *f = fopen (path.c_str (), "w");
      fail_unless (f != nullptr);
      fputs (st.shading.text ().c_str (), f);
      fclose (f);
    }
    g_object_set (element, "defect-correction", st.defect ? 1 : 0, "defect-threshold",
        st.defect_threshold, "lens-shading-file", path.c_str (), "lens-shading-strength",
        st.shading_strength, "exposure-gain", st.exposure, "denoise", st.denoise, nullptr);
  }

  static std::string shading_path ()
  {
    static std::string path;
    if (path.empty ()) {
      gchar *p = g_build_filename (g_get_tmp_dir (), ("cltest-shading-" +
              std::to_string (getpid ()) + ".txt").c_str (), nullptr);
      path = p;
      g_free (p);
    }
    return path;
  }

  /* Pushes `m` padded by `pad` bytes a row; returns the output and its caps. */
  GstBuffer *push (const Mosaic & m, int pad, GstCaps ** out_caps)
  {
    if (m.caps () != caps) {
      caps = m.caps ();
      gst_harness_set_src_caps_str (h, caps.c_str ());
    }
    GstBuffer *in = mosaic_buffer (m, pad);
    if (cl_memory)
      in = on_device_memory (in);
    GstBuffer *out = push_built (h, in);
    *out_caps = gst_pad_get_current_caps (h->sinkpad);
    return out;
  }

  /* Input frames as GstClMemory of the shared context written by the host
   * (what a producer writing into the element's pool hands on: the device
   * copy is stale until the element uploads it). */
  bool cl_memory = false;
  static GstBuffer *on_device_memory (GstBuffer * in)
  {
    GstAllocator *alloc = gst_cl_allocator_new (cltest::shared_context ());
    GstMemory *mem = gst_allocator_alloc (alloc, gst_buffer_get_size (in), nullptr);
    gst_object_unref (alloc);
    GstMapInfo from, to;
    gst_buffer_map (in, &from, GST_MAP_READ);
    gst_memory_map (mem, &to, GST_MAP_WRITE);
    memcpy (to.data, from.data, from.size);
    gst_memory_unmap (mem, &to);
    gst_buffer_unmap (in, &from);
    GstBuffer *out = gst_buffer_new ();
    gst_buffer_append_memory (out, mem);
    if (GstVideoMeta *meta = gst_buffer_get_video_meta (in))
      gst_buffer_add_video_meta_full (out, meta->flags, meta->format, meta->width,
          meta->height, meta->n_planes, meta->offset, meta->stride);
    gst_buffer_unref (in);
    return out;
  }

  void check (const Mosaic & m, int pad, Method method, const Stages & st, const OutFormat * f,
      const std::string &label)
  {
    g_object_set (element, "method", (int) method, nullptr);
    GstCaps *out_caps;
    GstBuffer *out = push (m, pad, &out_caps);
    const std::string what = label + " " + m.format () + " " + std::to_string (m.w) + "x" +
        std::to_string (m.h) + " pad " + std::to_string (pad);
    /* the denoise's words (15 bits, 16 for 16-bit outputs) go on as the
     * input, black level 0 */
    const bool wide = f && f->wide;
    const Mosaic input = st.denoise > 0 ? denoised_mosaic (m, st.black, st.denoise,
        wide ? 16 : 15) : m;
    Stages model = st;
    if (st.denoise > 0)
      model.black = 0;
    const bool words = st.defect || st.shading.columns || st.denoise > 0;
    if (st.defect || st.shading.columns)
      model.quantize = wide ? 65535 : 32767;
    /* 16-bit words rounded to nearest in float, where the model rounds in
     * double: a word apart at most, which the gains, matrix and a curve's
     * steepest part (sRGB's 12.92) may take to 0.1 % of a 16-bit output */
    const std::vector<RgbF> ref = camera_reference (input, method, model);
    if (f)
      compare_rgb (out, out_caps, input, ref, *f, what, words && wide ? 64 : 1);
    else
      compare_yuv (out, out_caps, input, ref, what);
    gst_caps_unref (out_caps);
    gst_buffer_unref (out);
  }
};

inline std::string
format_caps (const char *format)
{
  return std::string ("video/x-raw,format=") + format;
}

/* Every stage on, away from its default. */
inline Stages
all_stages (int maxv)
{
  Stages st;
  st.black = maxv / 16;
  st.gains = { 1.9, 1.0, 1.45 };
  st.matrix = { 1.6, -0.4, -0.2, -0.3, 1.5, -0.2, 0.05, -0.6, 1.55 };
  st.saturation = 1.3;
  st.transfer = SRGB;
  return st;
}

