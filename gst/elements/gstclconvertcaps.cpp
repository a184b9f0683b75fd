/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclconvertcaps.hpp"

#include <gst/video/video.h>

#include <cmath>
#include <numeric>

namespace clconvert {

namespace {

/* A positive fraction, reduced; (an / ad) (bn / bd) of sizes and aspect
 * ratios (each at most G_MAXINT) fits 64 bits once the cross factors are
 * out. A result beyond a GstFraction's int is approximated. */
struct Fraction {
  gint64 n = 1, d = 1;
  bool operator== (const Fraction & o) const { return n == o.n && d == o.d; }
};

Fraction
product (gint64 an, gint64 ad, gint64 bn, gint64 bd)
{
  if (an <= 0 || ad <= 0 || bn <= 0 || bd <= 0)
    return Fraction ();
  const gint64 g1 = std::gcd (an, bd), g2 = std::gcd (bn, ad);
  Fraction f { (an / g1) * (bn / g2), (ad / g2) * (bd / g1) };
  const gint64 g = std::gcd (f.n, f.d);
  f.n /= g;
  f.d /= g;
  if (f.n > G_MAXINT || f.d > G_MAXINT) {
    gint n, d;
    gst_util_double_to_fraction ((double) f.n / (double) f.d, &n, &d);
    f = Fraction { n, d };
  }
  return f;
}

/* round (v n / d), at least 1 */
int
scaled (gint64 v, const Fraction & f)
{
  const guint64 r = gst_util_uint64_scale_round ((guint64) v, (guint64) f.n, (guint64) f.d);
  return (int) CLAMP (r, 1, (guint64) G_MAXINT);
}

/* The value of `field` nearest `target` that `s` takes. */
int
nearest_int (const GstStructure * s, const char *field, int target)
{
  GstStructure *t = gst_structure_copy (s);
  gst_structure_fixate_field_nearest_int (t, field, target);
  int v = target;
  gst_structure_get_int (t, field, &v);
  gst_structure_free (t);
  return v;
}

/* The pixel aspect ratio nearest `target` that `s` takes (`free_par` where
 * `s` has no field). */
Fraction
nearest_par (const GstStructure * s, const GValue * free_par, const Fraction & target)
{
  GstStructure *t = gst_structure_copy (s);
  if (!gst_structure_has_field (t, "pixel-aspect-ratio"))
    gst_structure_set_value (t, "pixel-aspect-ratio", free_par);
  gst_structure_fixate_field_nearest_fraction (t, "pixel-aspect-ratio", (gint) target.n,
      (gint) target.d);
  gint n = 1, d = 1;
  gst_structure_get_fraction (t, "pixel-aspect-ratio", &n, &d);
  gst_structure_free (t);
  return product (n, d, 1, 1);
}

/* As videoscale: a structure without the field gets one only if it is not
 * 1/1. */
void
set_par (GstStructure * s, const Fraction & p)
{
  if (gst_structure_has_field (s, "pixel-aspect-ratio") || p.n != p.d)
    gst_structure_set (s, "pixel-aspect-ratio", GST_TYPE_FRACTION, (gint) p.n, (gint) p.d,
        nullptr);
}

void
set_size (GstStructure * s, int w, int h)
{
  gst_structure_set (s, "width", G_TYPE_INT, w, "height", G_TYPE_INT, h, nullptr);
}

/* Width and height free: the pixel aspect ratio given. The input's height if
 * the width for it is there, else the input's width, else whichever of the
 * two comes nearer the display aspect ratio. (videoscale 1.22 multiplies by
 * the pixel aspect ratio here instead of dividing, which keeps the display
 * aspect ratio only at 1/1.) */
void
fixate_size_of_par (GstStructure * s, int in_w, int in_h, const Fraction & dar,
    const Fraction & par)
{
  const Fraction ratio = product (dar.n, dar.d, par.d, par.n);   /* width / height */
  const int h1 = nearest_int (s, "height", in_h), want_w = scaled (h1, ratio);
  const int w1 = nearest_int (s, "width", want_w);
  if (w1 == want_w)
    return set_size (s, w1, h1);
  const int w2 = nearest_int (s, "width", in_w), want_h = scaled (w2, product (ratio.d,
          ratio.n, 1, 1));
  const int h2 = nearest_int (s, "height", want_h);
  if (h2 == want_h)
    return set_size (s, w2, h2);
  const double r = (double) ratio.n / ratio.d;
  if (std::fabs ((double) w1 / h1 - r) <= std::fabs ((double) w2 / h2 - r))
    set_size (s, w1, h1);
  else
    set_size (s, w2, h2);
}

/* One dimension fixed (`fixed` = "width" or "height", of `value`), the other
 * free: with the pixel aspect ratio fixed, the other dimension that keeps
 * the display aspect ratio; else the input's other dimension where the pixel
 * aspect ratio that keeps the display aspect ratio is taken, else the
 * nearest pixel aspect ratio and the dimension for it. */
void
fixate_one_side (GstStructure * s, bool width_fixed, int value, int in_w, int in_h,
    const Fraction & dar, const GValue * to_par)
{
  const char *other = width_fixed ? "height" : "width";
  /* the other dimension for a pixel aspect ratio p: width = height dar / p */
  auto other_for = [&] (const Fraction & p) {
    const Fraction ratio = product (dar.n, dar.d, p.d, p.n);   /* width / height */
    return width_fixed ? scaled (value, product (ratio.d, ratio.n, 1, 1)) :
        scaled (value, ratio);
  };
  if (gst_value_is_fixed (to_par)) {
    const Fraction p = product (gst_value_get_fraction_numerator (to_par),
        gst_value_get_fraction_denominator (to_par), 1, 1);
    gst_structure_fixate_field_nearest_int (s, other, other_for (p));
    return;
  }
  const int kept = nearest_int (s, other, width_fixed ? in_h : in_w);
  /* par = dar h / w */
  const Fraction want = width_fixed ? product (dar.n, dar.d, kept, value) :
      product (dar.n, dar.d, value, kept);
  const Fraction got = nearest_par (s, to_par, want);
  if (got == want) {
    gst_structure_set (s, other, G_TYPE_INT, kept, nullptr);
  } else {
    gst_structure_fixate_field_nearest_int (s, other, other_for (got));
  }
  set_par (s, got);
}

int
family (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_IS_YUV (info) ? 0 : GST_VIDEO_INFO_IS_RGB (info) ? 1 :
      GST_VIDEO_INFO_IS_GRAY (info) ? 2 : 3;
}

}  // namespace

void
fixate_size (GstStructure * out, GstPadDirection direction, int in_w, int in_h,
    int par_n, int par_d)
{
  /* The other side's pixel aspect ratio: what its caps say; where they say
   * nothing, free when fixating the output, 1/1 when fixating the input. */
  GValue to_par = G_VALUE_INIT;
  if (const GValue * v = gst_structure_get_value (out, "pixel-aspect-ratio")) {
    g_value_init (&to_par, G_VALUE_TYPE (v));
    g_value_copy (v, &to_par);
  } else if (direction == GST_PAD_SINK) {
    g_value_init (&to_par, GST_TYPE_FRACTION_RANGE);
    gst_value_set_fraction_range_full (&to_par, 1, G_MAXINT, G_MAXINT, 1);
  } else {
    g_value_init (&to_par, GST_TYPE_FRACTION);
    gst_value_set_fraction (&to_par, 1, 1);
    gst_structure_set_value (out, "pixel-aspect-ratio", &to_par);
  }
  int w = 0, h = 0;
  gst_structure_get_int (out, "width", &w);
  gst_structure_get_int (out, "height", &h);
  const Fraction dar = product (in_w, in_h, par_n, par_d);

  if (w && h) {
    /* both fixed: the pixel aspect ratio that keeps the display aspect
     * ratio, if free (dar h / w) */
    if (!gst_value_is_fixed (&to_par)) {
      const Fraction p = product (dar.n, dar.d, h, w);
      if (gst_structure_has_field (out, "pixel-aspect-ratio"))
        gst_structure_fixate_field_nearest_fraction (out, "pixel-aspect-ratio",
            (gint) p.n, (gint) p.d);
      else
        set_par (out, p);
    }
  } else if (w || h) {
    fixate_one_side (out, w != 0, w ? w : h, in_w, in_h, dar, &to_par);
  } else if (gst_value_is_fixed (&to_par)) {
    fixate_size_of_par (out, in_w, in_h, dar, product (gst_value_get_fraction_numerator
            (&to_par), gst_value_get_fraction_denominator (&to_par), 1, 1));
  } else {
    /* nothing fixed: the input's size where it can, the pixel aspect ratio
     * that keeps the display aspect ratio; then the dimension for the
     * nearest pixel aspect ratio taken */
    const int sw = nearest_int (out, "width", in_w), sh = nearest_int (out, "height", in_h);
    const Fraction want = product (dar.n, dar.d, sh, sw);
    const Fraction got = nearest_par (out, &to_par, want);
    set_size (out, sw, sh);
    if (!(got == want)) {
      const Fraction ratio = product (dar.n, dar.d, got.d, got.n);
      const int ww = scaled (sh, ratio), hh = scaled (sw, product (ratio.d, ratio.n, 1, 1));
      if (nearest_int (out, "width", ww) == ww)
        set_size (out, ww, sh);
      else if (nearest_int (out, "height", hh) == hh)
        set_size (out, sw, hh);
    }
    set_par (out, got);
  }
  g_value_unset (&to_par);
  gst_structure_fixate_field_nearest_int (out, "width", in_w);
  gst_structure_fixate_field_nearest_int (out, "height", in_h);
}

void
describe_output (const GstCaps * in, GstStructure * out)
{
  GstVideoInfo in_info, out_info;
  const char *format = gst_structure_get_string (out, "format");
  int w = 0, h = 0;
  if (!format || !gst_structure_get_int (out, "width", &w) ||
      !gst_structure_get_int (out, "height", &h) || !gst_video_info_from_caps (&in_info, in))
    return;
  /* GStreamer's defaults for the output's format and size */
  gst_video_info_init (&out_info);
  if (!gst_video_info_set_format (&out_info, gst_video_format_from_string (format), w, h))
    return;
  if (!gst_structure_has_field (out, "colorimetry")) {
    GstVideoColorimetry c = in_info.colorimetry;
    if (family (&in_info) != family (&out_info)) {
      c = out_info.colorimetry;
      c.transfer = in_info.colorimetry.transfer;
      c.primaries = in_info.colorimetry.primaries;
    }
    gchar *text = gst_video_colorimetry_to_string (&c);
    if (text)
      gst_structure_set (out, "colorimetry", G_TYPE_STRING, text, nullptr);
    g_free (text);
  }
  /* the kernel writes the mean of each 2x2 block (4:2:0) or pixel pair
   * (4:2:2): chroma at the centre, whatever the input's siting */
  if (GST_VIDEO_INFO_IS_YUV (&out_info) && !gst_structure_has_field (out, "chroma-site")) {
    gchar *site = gst_video_chroma_site_to_string (GST_VIDEO_CHROMA_SITE_JPEG);
    gst_structure_set (out, "chroma-site", G_TYPE_STRING, site, nullptr);
    g_free (site);
  }
}

}  // namespace clconvert
