/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-cldebayer
 * @title: cldebayer
 *
 * Demosaics Bayer frames on any OpenCL device, with the 5x5
 * gradient-corrected linear filters of Malvar, He and Cutler (ICASSP 2004),
 * with bilinear interpolation, or with the directional filtering and a
 * posteriori decision of Menon, Andriani and Calvagno (IEEE TIP 2007, with
 * its refining step; method=menon, in float), for the four patterns and for 8-bit and
 * 10- to 16-bit samples (`rggb`, `bggr12le`, ...: little-endian 16-bit
 * words, the format names of GStreamer 1.24; sample values above
 * 2^bits - 1 are clamped). A row of 8-bit samples takes width bytes rounded
 * up to 4, a row of 16-bit words 2 x width bytes rounded up to 4, unless the
 * buffer carries a GstVideoMeta.
 *
 * Exact arithmetic, in integers: malvar sums the paper's coefficients x 16
 * and returns clamp ((sum + 8) >> 4, 0, 2^bits - 1); bilinear returns
 * (a + b + 1) >> 1 and (a + b + c + d + 2) >> 2. Output channels are
 * round (v x 255 / (2^bits - 1)) for 8-bit formats and
 * round (v x 65535 / (2^bits - 1)) for RGBA64_LE (offered for 10..16-bit
 * input only); alpha and padding channels are opaque (255 or 65535). GRAY8 is
 * the luma of the 8-bit channels, Y = (77 R + 150 G + 29 B + 128) >> 8.
 *
 * Samples outside the image are mirrored about the edge sample (x = -1 reads
 * x = 1, x = -2 reads x = 2, repeated for frames narrower than the filter),
 * which keeps the Bayer phase. The output has the input's size; frames must
 * be at least 2x2.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! video/x-bayer,format=grbg ! cldebayer ! videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=frame.bggr12 blocksize=614400 ! video/x-bayer,format=bggr12le,width=640,height=480,framerate=0/1 ! cldebayer ! video/x-raw,format=RGBA64_LE ! videoconvert ! pngenc ! filesink location=frame.png
 * gst-launch-1.0 videotestsrc ! video/x-bayer,format=rggb ! clupload ! cldebayer ! clsobel ! cldownload ! videoconvert ! autovideosink
 * ]|
 */
#include "gstcldebayer.h"
#include "gstcldebayerengine.hpp"
#include "gstcldebayerenums.hpp"
#include "gstclelements.h"
#include "gstclsettings.hpp"
#include "picture/gstclpicturestages.hpp"

#include <gst/opencl/gstclprivate.hpp>
#include <gst/opencl/gstclvideo.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <mutex>
#include <string>

GST_DEBUG_CATEGORY (gst_cl_debayer_debug);
#define GST_CAT_DEFAULT gst_cl_debayer_debug

using namespace cldebayer;

/* Under the element's lock: what the user set and the white balance and
 * exposure in force (get_property reads them). */
struct Locked {
  Settings user;
  clpicture::Settings picture;   /* the picture stages (denoise: the engine's raw pass) */
  AwbStatus awb;
  AeStatus ae;
};

/* The plan of the streaming thread: made when caps or settings change, a
 * frame's layout differs or a background build is ready (the base class
 * calls the plan hook then, never per frame), read by every frame. */
struct DebayerState {
  Engine engine;
  clpicture::After picture;   /* its pass (gstclpicturestages.hpp) */
  Statistics stats;
  Settings settings;        /* the settings planned */
  CameraParams params;      /* for the running variant */
  SensorParams sensor;      /* for its sensor pass */
  DenoiseParams denoise;    /* for its denoise pass */
  cl::Buffer shading;       /* the grids of `shading_of` (shading_table) */
  const ShadingGrid *shading_of = nullptr;
  double shading_strength = -1;
  guint64 frames = 0;       /* since the caps */
  int cells_x = 0, cells_y = 0;   /* the frames' 2 x 2 cells */
};

struct _GstClDebayer {
  GstClFilter parent;
  gstcl::ElementPrivate<Locked, DebayerState> *priv;
};

G_DEFINE_TYPE (GstClDebayer, gst_cl_debayer, GST_TYPE_CL_FILTER)
GST_ELEMENT_REGISTER_DEFINE (cldebayer, "cldebayer", GST_RANK_NONE, GST_TYPE_CL_DEBAYER)

enum {
  PROP_0, PROP_METHOD, PROP_BLACK_LEVEL, PROP_WHITE_BALANCE, PROP_RED_GAIN,
  PROP_GREEN_GAIN, PROP_BLUE_GAIN, PROP_AWB_SPEED, PROP_COLOR_MATRIX, PROP_SATURATION,
  PROP_TRANSFER, PROP_GAMMA, PROP_STATISTICS, PROP_DEFECT_CORRECTION, PROP_DEFECT_THRESHOLD,
  PROP_LENS_SHADING_FILE, PROP_LENS_SHADING_STRENGTH, PROP_STATISTICS_INTERVAL, PROP_EXPOSURE,
  PROP_EXPOSURE_GAIN, PROP_EXPOSURE_SPEED, PROP_EXPOSURE_TARGET, PROP_PICTURE,
};

#define SINK_CAPS "video/x-bayer, format = (string) { " GST_CL_BAYER_FORMATS " }, " \
    GST_CL_SIZE_AND_RATE (2)
/* In the order fixation prefers them: colour first, GRAY8 last. */
#define RGB8_FORMATS "RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, RGB, BGR"
#define YUV_FORMATS "NV12, I420"
#define SHALLOW_FORMATS RGB8_FORMATS ", " YUV_FORMATS ", GRAY8"
#define DEEP_OUT_FORMATS RGB8_FORMATS ", RGBA64_LE, " YUV_FORMATS ", GRAY8"
#define SRC_CAPS "video/x-raw, format = (string) { " DEEP_OUT_FORMATS " }, " \
    GST_CL_SIZE_AND_RATE (2)

/* Calls fn (name) for each string of a format field (a string or a list);
 * returns FALSE when there is no such field (any format). */
template <typename Fn>
static bool
for_each_format (const GstStructure * s, Fn fn)
{
  const GValue *v = gst_structure_get_value (s, "format");
  if (!v)
    return false;
  if (G_VALUE_HOLDS_STRING (v)) {
    fn (g_value_get_string (v));
  } else if (GST_VALUE_HOLDS_LIST (v)) {
    for (guint i = 0; i < gst_value_list_get_size (v); i++) {
      const GValue *item = gst_value_list_get_value (v, i);
      if (G_VALUE_HOLDS_STRING (item))
        fn (g_value_get_string (item));
    }
  }
  return true;
}

/* Whether `name` is an output format of 8-bit input. */
static bool
is_shallow_format (const char *name)
{
  gchar **formats = g_strsplit (SHALLOW_FORMATS, ", ", -1);
  const bool found = g_strv_contains (formats, name);
  g_strfreev (formats);
  return found;
}

static GstCaps *
gst_cl_debayer_transform_plain_caps (GstClFilter *, GstPadDirection direction, GstCaps * caps)
{
  GstCaps *out = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    bool shallow = false, deep = false;
    if (direction == GST_PAD_SINK) {
      if (!gst_structure_has_name (s, "video/x-bayer"))
        continue;
      if (!for_each_format (s, [&] (const char *f) {
            gint bits;
            if (gst_cl_bayer_format_parse (f, nullptr, &bits))
              (bits == 8 ? shallow : deep) = true;
          }))
        shallow = deep = true;
      if (shallow || deep)
        out = gst_caps_merge_structure (out, gst_cl_structure_with_formats (s, "video/x-raw",
                deep ? DEEP_OUT_FORMATS : SHALLOW_FORMATS));
    } else {
      if (!gst_structure_has_name (s, "video/x-raw"))
        continue;
      /* shallow: an output format of 8-bit input, deep: RGBA64_LE */
      if (!for_each_format (s, [&] (const char *f) {
            if (g_str_equal (f, "RGBA64_LE"))
              deep = true;
            else if (is_shallow_format (f))
              shallow = true;
          }))
        shallow = deep = true;
      if (shallow || deep)
        out = gst_caps_merge_structure (out, gst_cl_structure_with_formats (s, "video/x-bayer",
                shallow ? GST_CL_BAYER_FORMATS : GST_CL_DEEP_BAYER_FORMATS));
    }
  }
  return out;
}

/* Fixation takes the first output format of DEEP_OUT_FORMATS (colour
 * first, GRAY8 last) that downstream accepts, whatever order downstream
 * lists them in: a tee with one GRAY8-preferring branch keeps colour. */
static GstCaps *
gst_cl_debayer_fixate_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * othercaps)
{
  if (direction == GST_PAD_SINK) {
    gchar **formats = g_strsplit (DEEP_OUT_FORMATS, ", ", -1);
    for (gchar **f = formats; *f; f++) {
      GstStructure *want = gst_structure_new ("video/x-raw", "format", G_TYPE_STRING, *f,
          nullptr);
      GstCaps *picked = gst_caps_new_empty ();
      for (guint i = 0; i < gst_caps_get_size (othercaps); i++) {
        const GstStructure *s = gst_caps_get_structure (othercaps, i);
        if (!gst_structure_can_intersect (s, want))
          continue;
        GstStructure *copy = gst_structure_copy (s);
        gst_structure_set (copy, "format", G_TYPE_STRING, *f, nullptr);
        gst_caps_append_structure_full (picked, copy,
            gst_caps_features_copy (gst_caps_get_features (othercaps, i)));
      }
      gst_structure_free (want);
      if (!gst_caps_is_empty (picked)) {
        gst_caps_unref (othercaps);
        othercaps = picked;
        break;
      }
      gst_caps_unref (picked);
    }
    g_strfreev (formats);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cl_debayer_parent_class)->fixate_caps (trans,
      direction, caps, othercaps);
}

static void
gst_cl_debayer_set_info (GstClFilter * filter, GstClContext * ctx, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps *, const GstVideoInfo * out_info)
{
  DebayerState *st = &GST_CL_DEBAYER (filter)->priv->state;
  st->engine.set_format (ctx, incaps, in_info, out_info);
  st->picture.set_format (ctx, out_info);
  st->stats.reset ();
  st->frames = 0;
  st->cells_x = GST_VIDEO_INFO_WIDTH (in_info) / 2;
  st->cells_y = GST_VIDEO_INFO_HEIGHT (in_info) / 2;
}

/* The camera parameters of the running variant (its unit) with the gains in
 * force. */
static void
make_params (GstClDebayer * self, GstClContext * ctx, const GstClFrame * in)
{
  DebayerState *st = &self->priv->state;
  const Settings &s = st->settings;
  double wb[3];
  initial_gains (s, wb);
  double exposure = s.exposure_gain;
  {
    std::lock_guard<std::mutex> lock (self->priv->lock);
    if (s.white_balance == WB_AUTO)
      std::copy (self->priv->settings.awb.gains, self->priv->settings.awb.gains + 3, wb);
    if (s.exposure == EXPOSURE_AUTO)
      exposure = self->priv->settings.ae.gain;
  }
  const Engine &engine = st->engine;
  st->params = camera_params (s, engine.camera_maxv (), engine.camera_black (s), engine.unit (),
      wb, exposure);
  st->denoise = denoise_params (s, engine.format ().maxv);
  if (!engine.sensor ())
    return;
  st->sensor = sensor_params (s, engine.input_maxv (), engine.input_black (s),
      GST_VIDEO_INFO_WIDTH (&in->info), GST_VIDEO_INFO_HEIGHT (&in->info), engine.sensor_maxv (),
      wb);
  /* the grids with their strength, uploaded when either changes */
  if (!st->shading () || st->shading_of != s.shading.get () ||
      st->shading_strength != s.shading_strength) {
    std::vector<float> table = shading_table (s);
    st->shading = cl::Buffer (gstcl::context_of (ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
        sizeof (float) * table.size (), table.data ());
    st->shading_of = s.shading.get ();
    st->shading_strength = s.shading_strength;
  }
}

static void
gst_cl_debayer_plan (GstClFilter * filter, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out)
{
  auto *self = GST_CL_DEBAYER (filter);
  DebayerState *st = &self->priv->state;
  clpicture::Settings picture;
  {
    std::lock_guard<std::mutex> lock (self->priv->lock);
    st->settings = self->priv->settings.user;
    picture = self->priv->settings.picture;
  }
  /* cldebayer denoises the raw samples (denoise.cl), not the picture */
  st->settings.denoise = picture.denoise;
  picture.denoise = 0;
  st->picture.plan (GST_ELEMENT (self), ctx, picture, out);
  st->engine.plan (GST_ELEMENT (self), ctx, st->settings, in, out);
  make_params (self, ctx, in);
}

/* Takes the statistics read back since the last frame: the auto white
 * balance's and exposure's measures (the last of them), and the messages of
 * statistics-interval frames. */
static void
take_statistics (GstClDebayer * self, Totals * awb, bool * awb_fresh, Gathered * last,
    double * zone_mean, bool * ae_fresh)
{
  DebayerState *st = &self->priv->state;
  Gathered g;
  while (st->stats.take (&g, st->cells_x, st->cells_y)) {
    if (g.awb.sum[3] > 0) {
      *awb = g.awb;
      *last = g;
      *awb_fresh = true;
    }
    if (g.sensor) {
      *zone_mean = g.zone_mean;
      *ae_fresh = true;
    }
    if (g.post) {
      AwbStatus status;
      {
        std::lock_guard<std::mutex> lock (self->priv->lock);
        status = self->priv->settings.awb;
      }
      gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self),
              statistics_structure (g, status)));
    }
  }
}

/* The white balance and exposure of this frame: takes the statistics read
 * back since the last frame, moves the gains in force toward their
 * targets, and puts them in the parameters. */
static void
update_gains (GstClDebayer * self)
{
  DebayerState *st = &self->priv->state;
  const Settings &s = st->settings;
  Totals totals;
  Gathered last;
  double zone_mean = 0;
  bool awb_fresh = false, ae_fresh = false;
  take_statistics (self, &totals, &awb_fresh, &last, &zone_mean, &ae_fresh);
  double wb[3];
  initial_gains (s, wb);
  double exposure = s.exposure_gain;
  {
    std::lock_guard<std::mutex> lock (self->priv->lock);
    if (s.white_balance == WB_AUTO) {
      AwbStatus *awb = &self->priv->settings.awb;
      awb_step (awb, awb_fresh ? &totals : nullptr, s.awb_speed, last.awb_maxv, last.awb_black);
      std::copy (awb->gains, awb->gains + 3, wb);
    }
    if (s.exposure == EXPOSURE_AUTO) {
      AeStatus *ae = &self->priv->settings.ae;
      ae_step (ae, ae_fresh ? &zone_mean : nullptr, s.exposure_speed, s.exposure_target);
      exposure = ae->gain;
    }
  }
  const Engine &engine = st->engine;
  set_gains (&st->params, engine.camera_maxv (), engine.unit (), wb, exposure);
  st->sensor.wb = cl_float4 { { (float) wb[0], (float) wb[1], (float) wb[2], 0 } };
}

/* The camera kernel takes frames in bands (gstclbands.hpp). */
static gint
gst_cl_debayer_band_rows (GstClFilter * filter)
{
  return GST_CL_DEBAYER (filter)->priv->state.engine.band_rows ();
}

/* ... and their launches: the engine's and the picture pass's finish */
static gint
gst_cl_debayer_band_launches (GstClFilter * filter)
{
  const auto &st = GST_CL_DEBAYER (filter)->priv->state;
  return st.engine.band_launches () + (st.picture.active () ? 1 : 0);
}

static GstFlowReturn
gst_cl_debayer_filter (GstClFilter * filter, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out)
{
  auto *self = GST_CL_DEBAYER (filter);
  DebayerState *st = &self->priv->state;
  const GstClFrame *camera_out = st->picture.target (out);
  if (!st->engine.camera ()) {
    st->engine.run (ctx, in, camera_out, nullptr, gst_cl_filter_bands (filter), false);
    st->picture.run (ctx, out);
    return GST_FLOW_OK;
  }
  const Settings &s = st->settings;
  const int maxv = st->engine.format ().maxv;
  if ((int) s.black_level >= maxv) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("black-level %u is not below the input's "
            "full scale %d", s.black_level, maxv), (nullptr));
    return GST_FLOW_ERROR;
  }
  const bool sensor = st->engine.sensor ();
  const bool loops = s.white_balance == WB_AUTO || (sensor && s.exposure == EXPOSURE_AUTO);
  /* The auto loops take the statistics of the frame before: where that
   * frame was handed on in flight, their read back (queued after its
   * kernels, before its download) is waited for first, so that they lag
   * one frame and each frame gathers, while its download may still run. */
  if (loops && gst_cl_filter_previous_frame_in_flight (filter))
    st->stats.wait_newest ();
  update_gains (self);
  /* Which frames gather: every statistics-interval-th (a free set of
   * counters waited for if need be), and for the auto loops each frame
   * that finds no read under way. */
  const guint64 number = st->frames++;
  const bool post = sensor && s.statistics_interval > 0 && number % s.statistics_interval == 0;
  int set = -1;
  if (post || (loops && st->stats.idle ()))
    set = st->stats.begin (ctx);
  if (set < 0 && post) {
    st->stats.wait_oldest ();
    update_gains (self);
    set = st->stats.begin (ctx);
  }
  const CameraLaunch launch = { &st->params, set >= 0, &st->stats.counters (set),
    s.camera_stages (), &st->sensor, &st->shading, &st->denoise };
  /* in bands on a discrete device, the picture stages (if any) following
   * the camera kernel band by band */
  clpicture::Pass::Progress progress;
  st->engine.run (ctx, in, camera_out, &launch, gst_cl_filter_bands (filter), true,
      [&] (int rows) { return st->picture.run_rows (ctx, out, rows, &progress); });
  /* 8 KiB read back without waiting; the next frames use them. */
  if (set >= 0) {
    Gathered tag;
    tag.sensor = sensor;
    tag.awb_maxv = sensor ? st->engine.sensor_maxv () : st->engine.camera_maxv ();
    tag.awb_black = sensor ? 0 : st->engine.camera_black (s);
    tag.frame = GST_BUFFER_OFFSET_IS_VALID (in->buffer) ? GST_BUFFER_OFFSET (in->buffer) : number;
    tag.pts = GST_BUFFER_PTS (in->buffer);
    tag.post = post;
    st->stats.end (set, tag);
  }
  return GST_FLOW_OK;
}

/* The colour matrix in `value`, or why it is refused. */
static std::string
matrix_from (const GValue * value, Matrix * out)
{
  std::vector<double> values;
  std::string why;
  if (!clsettings::values_from_array (value, &values, &why))
    return why;
  if (values.size () != 9)
    return "it has " + std::to_string (values.size ()) + " values, not 9";
  for (double v : values)
    if (!std::isfinite (v))
      return "it has a value that is not a finite number";
    else if (std::fabs (v) > FLT_MAX)   /* the kernel computes in float */
      return "it has a value beyond single precision's range (3.4e38)";
  std::copy (values.begin (), values.end (), out->begin ());
  return "";
}

/* The grids of the lens-shading file at `path` (none for ""), or why it
 * is refused (the file and the line). */
static std::string
read_shading (const std::string & path, std::shared_ptr<const ShadingGrid> *out)
{
  if (path.empty ()) {
    out->reset ();
    return "";
  }
  try {
    *out = std::make_shared<const ShadingGrid> (read_shading_file (path));
  } catch (const ShadingError & e) {
    return e.what ();
  }
  return "";
}

static void
gst_cl_debayer_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_DEBAYER (object);
  if (clpicture::owns (prop_id, PROP_PICTURE)) {
    const clpicture::Incoming incoming = clpicture::prepare (prop_id, PROP_PICTURE, value);
    {
      std::lock_guard<std::mutex> lock (self->priv->lock);
      clpicture::set_property (&self->priv->settings.picture, prop_id, PROP_PICTURE, value,
          incoming);
    }
    clpicture::settle (GST_CL_BASE_TRANSFORM (self), prop_id, PROP_PICTURE, pspec, value,
        incoming);
    return;
  }
  std::string refused;
  /* A lens-shading file is read here, in the thread that sets it (never
   * the streaming thread), and takes effect on a later frame. */
  std::string path;
  std::shared_ptr<const ShadingGrid> shading;
  if (prop_id == PROP_LENS_SHADING_FILE) {
    path = g_value_get_string (value) ? g_value_get_string (value) : "";
    refused = read_shading (path, &shading);
  }
  {
  std::lock_guard<std::mutex> lock (self->priv->lock);
  Settings *s = &self->priv->settings.user;
  switch (prop_id) {
    case PROP_METHOD: s->method = (Method) g_value_get_enum (value); break;
    case PROP_BLACK_LEVEL: s->black_level = g_value_get_uint (value); break;
    case PROP_WHITE_BALANCE: {
      const auto mode = (WhiteBalance) g_value_get_enum (value);
      /* auto starts from the gains in force */
      if (mode == WB_AUTO && s->white_balance != WB_AUTO) {
        const bool manual = s->white_balance == WB_MANUAL;
        for (int c = 0; c < 3; c++)
          self->priv->settings.awb.gains[c] = manual ? s->gains[c] : 1;
        self->priv->settings.awb.have_target = false;
      }
      s->white_balance = mode;
      break;
    }
    case PROP_RED_GAIN: s->gains[0] = g_value_get_double (value); break;
    case PROP_GREEN_GAIN: s->gains[1] = g_value_get_double (value); break;
    case PROP_BLUE_GAIN: s->gains[2] = g_value_get_double (value); break;
    case PROP_AWB_SPEED: s->awb_speed = g_value_get_double (value); break;
    case PROP_COLOR_MATRIX:
      refused = matrix_from (value, &s->matrix);
      break;
    case PROP_SATURATION: s->saturation = g_value_get_double (value); break;
    case PROP_TRANSFER: s->transfer = (Transfer) g_value_get_enum (value); break;
    case PROP_GAMMA: s->gamma = g_value_get_double (value); break;
    case PROP_DEFECT_CORRECTION:
      s->defect = (DefectCorrection) g_value_get_enum (value);
      break;
    case PROP_DEFECT_THRESHOLD: s->defect_threshold = g_value_get_double (value); break;
    case PROP_LENS_SHADING_FILE:
      if (refused.empty ()) {
        s->shading_file = path;
        s->shading = shading;
      }
      break;
    case PROP_LENS_SHADING_STRENGTH: s->shading_strength = g_value_get_double (value); break;
    case PROP_STATISTICS_INTERVAL: s->statistics_interval = g_value_get_uint (value); break;
    case PROP_EXPOSURE: {
      const auto mode = (Exposure) g_value_get_enum (value);
      /* auto starts from the manual gain */
      if (mode == EXPOSURE_AUTO && s->exposure != EXPOSURE_AUTO) {
        self->priv->settings.ae = AeStatus ();
        self->priv->settings.ae.gain = s->exposure_gain;
      }
      s->exposure = mode;
      break;
    }
    case PROP_EXPOSURE_GAIN: s->exposure_gain = g_value_get_double (value); break;
    case PROP_EXPOSURE_SPEED: s->exposure_speed = g_value_get_double (value); break;
    case PROP_EXPOSURE_TARGET: s->exposure_target = g_value_get_double (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  }
  /* Without the lock: a bus sync handler may read our properties. */
  if (prop_id == PROP_COLOR_MATRIX)
    clsettings::settle (GST_CL_BASE_TRANSFORM (self), pspec, value, refused,
        "The previous matrix stays in force.");
  else if (prop_id == PROP_LENS_SHADING_FILE)
    clsettings::settle (GST_CL_BASE_TRANSFORM (self), pspec, value, refused,
        "The previous lens shading stays in force.");
}

/* At EOS the statistics of the last frames, whose reads no later frame
 * takes, are waited for and posted before the EOS goes on. */
static gboolean
gst_cl_debayer_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  auto *self = GST_CL_DEBAYER (trans);
  DebayerState *st = &self->priv->state;
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && st->engine.camera ()) {
    try {
      while (!st->stats.idle ()) {
        st->stats.wait_oldest ();
        update_gains (self);
      }
    } catch (const cl::Error & e) {
      GST_WARNING_OBJECT (self, "statistics at EOS: %s", gstcl::describe (e).c_str ());
    }
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cl_debayer_parent_class)->sink_event (trans, event);
}

static gboolean
gst_cl_debayer_stop (GstBaseTransform * trans)
{
  auto *self = GST_CL_DEBAYER (trans);
  self->priv->state.engine.cancel ();   /* waits for a build under way */
  self->priv->state.picture.cancel ();
  return GST_BASE_TRANSFORM_CLASS (gst_cl_debayer_parent_class)->stop (trans);
}

/* The white-balance statistics as a structure (see the property). */
static GstStructure *
statistics_of (const AwbStatus & awb)
{
  return gst_structure_new ("cldebayer-statistics",
      "frames", G_TYPE_UINT64, awb.frames, "cells", G_TYPE_UINT64, awb.cells,
      "red-mean", G_TYPE_DOUBLE, awb.means[0], "green-mean", G_TYPE_DOUBLE, awb.means[1],
      "blue-mean", G_TYPE_DOUBLE, awb.means[2],
      "red-gain", G_TYPE_DOUBLE, awb.gains[0], "green-gain", G_TYPE_DOUBLE, awb.gains[1],
      "blue-gain", G_TYPE_DOUBLE, awb.gains[2], nullptr);
}

static void
gst_cl_debayer_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_DEBAYER (object);
  std::lock_guard<std::mutex> lock (self->priv->lock);
  const Settings *s = &self->priv->settings.user;
  if (clpicture::owns (prop_id, PROP_PICTURE))
    return clpicture::get_property (self->priv->settings.picture, prop_id, PROP_PICTURE, value);
  /* in auto, the gains in force */
  const double *gains = s->white_balance == WB_AUTO ? self->priv->settings.awb.gains : s->gains;
  switch (prop_id) {
    case PROP_METHOD: g_value_set_enum (value, s->method); break;
    case PROP_BLACK_LEVEL: g_value_set_uint (value, s->black_level); break;
    case PROP_WHITE_BALANCE: g_value_set_enum (value, s->white_balance); break;
    case PROP_RED_GAIN: g_value_set_double (value, gains[0]); break;
    case PROP_GREEN_GAIN: g_value_set_double (value, gains[1]); break;
    case PROP_BLUE_GAIN: g_value_set_double (value, gains[2]); break;
    case PROP_AWB_SPEED: g_value_set_double (value, s->awb_speed); break;
    case PROP_COLOR_MATRIX:
      clsettings::array_from_values (std::vector<double> (s->matrix.begin (), s->matrix.end ()),
          value);
      break;
    case PROP_SATURATION: g_value_set_double (value, s->saturation); break;
    case PROP_TRANSFER: g_value_set_enum (value, s->transfer); break;
    case PROP_GAMMA: g_value_set_double (value, s->gamma); break;
    case PROP_STATISTICS: g_value_take_boxed (value, statistics_of (self->priv->settings.awb)); break;
    case PROP_DEFECT_CORRECTION: g_value_set_enum (value, s->defect); break;
    case PROP_DEFECT_THRESHOLD: g_value_set_double (value, s->defect_threshold); break;
    case PROP_LENS_SHADING_FILE: g_value_set_string (value, s->shading_file.c_str ()); break;
    case PROP_LENS_SHADING_STRENGTH: g_value_set_double (value, s->shading_strength); break;
    case PROP_STATISTICS_INTERVAL: g_value_set_uint (value, s->statistics_interval); break;
    case PROP_EXPOSURE: g_value_set_enum (value, s->exposure); break;
    case PROP_EXPOSURE_GAIN:
      /* in auto, the gain in force */
      g_value_set_double (value, s->exposure == EXPOSURE_AUTO ? self->priv->settings.ae.gain :
          s->exposure_gain);
      break;
    case PROP_EXPOSURE_SPEED: g_value_set_double (value, s->exposure_speed); break;
    case PROP_EXPOSURE_TARGET: g_value_set_double (value, s->exposure_target); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
install_gain (GObjectClass * gobject_class, guint id, const char *name, const char *nick,
    const char *blurb)
{
  g_object_class_install_property (gobject_class, id, g_param_spec_double (name, nick, blurb,
          0, 16, 1, (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE)));
}

static void
gst_cl_debayer_class_init (GstClDebayerClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClFilterClass *filter_class = GST_CL_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cl_debayer_set_property;
  gobject_class->get_property = gst_cl_debayer_get_property;
  gobject_class->finalize =
      gstcl::finalize_deleting<&GstClDebayer::priv, &gst_cl_debayer_parent_class>;

  const auto playing = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING);
  const auto controllable = (GParamFlags) (playing | GST_PARAM_CONTROLLABLE);
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method", "Demosaic algorithm",
          GST_TYPE_CL_DEBAYER_METHOD, METHOD_MALVAR, playing));
  g_object_class_install_property (gobject_class, PROP_BLACK_LEVEL,
      g_param_spec_uint ("black-level", "Black level", "Sensor black level in the input's "
          "sample units (e.g. 256 for a 12-bit sensor), subtracted and the rest stretched "
          "so that full scale stays full scale", 0, 65535, 0, controllable));
  g_object_class_install_property (gobject_class, PROP_WHITE_BALANCE,
      g_param_spec_enum ("white-balance", "White balance", "Gains on the raw samples, "
          "before the demosaic", GST_TYPE_CL_DEBAYER_WHITE_BALANCE, WB_NONE, playing));
  install_gain (gobject_class, PROP_RED_GAIN, "red-gain", "Red gain",
      "Gain of the red samples with white-balance=manual (in auto: the gain in force)");
  install_gain (gobject_class, PROP_GREEN_GAIN, "green-gain", "Green gain",
      "Gain of the green samples with white-balance=manual (in auto: the gain in force)");
  install_gain (gobject_class, PROP_BLUE_GAIN, "blue-gain", "Blue gain",
      "Gain of the blue samples with white-balance=manual (in auto: the gain in force)");
  g_object_class_install_property (gobject_class, PROP_AWB_SPEED,
      g_param_spec_double ("awb-speed", "AWB speed", "white-balance=auto: the fraction of "
          "the way to the grey-world gains that each frame moves", 0, 1, 0.25, controllable));
  g_object_class_install_property (gobject_class, PROP_COLOR_MATRIX,
      clsettings::param_spec_weights ("color-matrix", "Colour matrix", "3x3 matrix, row-major, "
          "from the sensor's linear RGB to the output's (e.g. \"<1.6,-0.4,-0.2, -0.3,1.5,"
          "-0.2, 0,-0.6,1.6>\"); identity by default", playing));
  g_object_class_install_property (gobject_class, PROP_SATURATION,
      g_param_spec_double ("saturation", "Saturation", "Colour saturation after the matrix "
          "(0: grey, 1: unchanged)", 0, 4, 1, controllable));
  g_object_class_install_property (gobject_class, PROP_TRANSFER,
      g_param_spec_enum ("transfer", "Transfer", "Transfer curve applied last, to linear "
          "RGB in [0, 1]", GST_TYPE_CL_DEBAYER_TRANSFER, TRANSFER_LINEAR, playing));
  g_object_class_install_property (gobject_class, PROP_GAMMA,
      g_param_spec_double ("gamma", "Gamma", "transfer=gamma: the output is the input to the "
          "power 1/gamma", 0.1, 10, 2.2, controllable));
  g_object_class_install_property (gobject_class, PROP_STATISTICS,
      g_param_spec_boxed ("statistics", "Statistics", "Auto white balance: the last "
          "statistics read back (means of red, green and blue as fractions of full scale, "
          "after black level; cells counted) and the gains in force",
          GST_TYPE_STRUCTURE, (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  g_object_class_install_property (gobject_class, PROP_DEFECT_CORRECTION,
      g_param_spec_enum ("defect-correction", "Defect correction", "Hot and dead pixels, "
          "after black level, before lens shading", GST_TYPE_CL_DEBAYER_DEFECT, DEFECT_NONE,
          playing));
  g_object_class_install_property (gobject_class, PROP_DEFECT_THRESHOLD,
      g_param_spec_double ("defect-threshold", "Defect threshold", "defect-correction="
          "dynamic: how far (of full scale after black level) a sample may lie beyond the "
          "largest or smallest of its 8 same-colour neighbours", 0, 1, 0.1, controllable));
  g_object_class_install_property (gobject_class, PROP_LENS_SHADING_FILE,
      g_param_spec_string ("lens-shading-file", "Lens shading file", "Gain grids per colour "
          "(docs/camera.md: `lens-shading <columns> <rows>`, then R, Gr, Gb, B), e.g. from "
          "gst-opencl-calibrate; read when set, used from a later frame; empty: off", "",
          playing));
  g_object_class_install_property (gobject_class, PROP_LENS_SHADING_STRENGTH,
      g_param_spec_double ("lens-shading-strength", "Lens shading strength", "Fraction of "
          "the lens-shading correction applied: gain' = 1 + strength (gain - 1)", 0, 1, 1,
          controllable));
  g_object_class_install_property (gobject_class, PROP_STATISTICS_INTERVAL,
      g_param_spec_uint ("statistics-interval", "Statistics interval", "Every Nth frame "
          "posts an element message cldebayer-statistics (64-bin luma histogram, 16 x 12 "
          "zone means, colour means, frame, pts); 0: none", 0, G_MAXUINT, 0, controllable));
  g_object_class_install_property (gobject_class, PROP_EXPOSURE,
      g_param_spec_enum ("exposure", "Exposure", "Digital exposure gain on the raw samples "
          "after white balance", GST_TYPE_CL_DEBAYER_EXPOSURE, EXPOSURE_MANUAL, playing));
  g_object_class_install_property (gobject_class, PROP_EXPOSURE_GAIN,
      g_param_spec_double ("exposure-gain", "Exposure gain", "Digital gain on the linear raw "
          "samples before the demosaic, then clipped (exposure=auto: the gain in force)", 0,
          64, 1, controllable));
  g_object_class_install_property (gobject_class, PROP_EXPOSURE_SPEED,
      g_param_spec_double ("exposure-speed", "Exposure speed", "exposure=auto: the fraction "
          "of the way to the target gain that each frame moves", 0, 1, 0.25, controllable));
  g_object_class_install_property (gobject_class, PROP_EXPOSURE_TARGET,
      g_param_spec_double ("exposure-target", "Exposure target", "exposure=auto: the mean "
          "of the zone means (linear luma, of full scale) to reach", 0.001, 1, 0.18,
          controllable));
  clpicture::install_properties (gobject_class, PROP_PICTURE);

  gst_element_class_set_static_metadata (element_class, "OpenCL Bayer demosaic",
      "Filter/Converter/Video/Hardware", "Converts 8- to 16-bit Bayer to RGB or NV12/I420 "
      "on an OpenCL device (Malvar-He-Cutler, bilinear or Menon), with black level, white "
      "balance, colour matrix and transfer curve", "gst-opencl developers");
  gst_cl_filter_class_add_pad_templates (filter_class, SINK_CAPS, SRC_CAPS);

  trans_class->fixate_caps = gst_cl_debayer_fixate_caps;
  trans_class->stop = gst_cl_debayer_stop;
  trans_class->sink_event = gst_cl_debayer_sink_event;
  filter_class->transform_plain_caps = gst_cl_debayer_transform_plain_caps;
  filter_class->set_info = gst_cl_debayer_set_info;
  filter_class->plan = gst_cl_debayer_plan;
  filter_class->filter = gst_cl_debayer_filter;
  filter_class->band_rows = gst_cl_debayer_band_rows;
  filter_class->band_launches = gst_cl_debayer_band_launches;

  GST_DEBUG_CATEGORY_INIT (gst_cl_debayer_debug, "cldebayer", 0, "OpenCL Bayer demosaic");
  gst_type_mark_as_plugin_api (GST_TYPE_CL_DEBAYER_METHOD, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_DEBAYER_WHITE_BALANCE, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_DEBAYER_TRANSFER, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_DEBAYER_DEFECT, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_DEBAYER_EXPOSURE, (GstPluginAPIFlags) 0);
}

static void
gst_cl_debayer_init (GstClDebayer * self)
{
  self->priv = new gstcl::ElementPrivate<Locked, DebayerState> ();
}
