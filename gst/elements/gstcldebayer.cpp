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
#include "gstclelements.h"
#include "gstclsettings.hpp"
#include "cl-kernels.h"

#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/gstclcolor.hpp>
#include <gst/opencl/gstclframe.hpp>
#include <gst/opencl/gstclpixel.hpp>
#include <gst/opencl/gstclprivate.hpp>
#include <gst/opencl/gstclvideo.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <string>

GST_DEBUG_CATEGORY_STATIC (gst_cl_debayer_debug);
#define GST_CAT_DEFAULT gst_cl_debayer_debug

typedef enum { METHOD_MALVAR, METHOD_BILINEAR, METHOD_MENON } DebayerMethod;
typedef enum { WB_NONE, WB_MANUAL, WB_AUTO } WhiteBalance;
typedef enum { TRANSFER_LINEAR, TRANSFER_SRGB, TRANSFER_BT709, TRANSFER_GAMMA } Transfer;

#define GST_TYPE_CL_DEBAYER_METHOD (gst_cl_debayer_method_get_type ())
static GType
gst_cl_debayer_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {METHOD_MALVAR, "Malvar-He-Cutler 5x5 gradient-corrected linear filters",
        "malvar"},
    {METHOD_BILINEAR, "Bilinear interpolation of the nearest samples", "bilinear"},
    {METHOD_MENON, "Menon-Andriani-Calvagno 2007: directional filtering, a posteriori "
          "decision and refining (sharper edges, less false colour; float arithmetic)",
        "menon"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClDebayerMethod", values));
  return type;
}

#define GST_TYPE_CL_DEBAYER_WHITE_BALANCE (gst_cl_debayer_white_balance_get_type ())
static GType
gst_cl_debayer_white_balance_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {WB_NONE, "No white balance (the gains are not applied)", "none"},
    {WB_MANUAL, "The red-gain, green-gain and blue-gain properties", "manual"},
    {WB_AUTO, "Grey world, from the statistics of the frames before", "auto"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClDebayerWhiteBalance", values));
  return type;
}

#define GST_TYPE_CL_DEBAYER_TRANSFER (gst_cl_debayer_transfer_get_type ())
static GType
gst_cl_debayer_transfer_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {TRANSFER_LINEAR, "Linear (no curve)", "linear"},
    {TRANSFER_SRGB, "sRGB (IEC 61966-2-1)", "srgb"},
    {TRANSFER_BT709, "BT.709 OETF", "bt709"},
    {TRANSFER_GAMMA, "Power 1/gamma (the gamma property)", "gamma"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClDebayerTransfer", values));
  return type;
}

typedef std::array<double, 9> Matrix;
static constexpr Matrix kIdentity = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
/* BT.709 luma weights: the grey that saturation keeps */
static constexpr double kLuma[3] = { 0.2126, 0.7152, 0.0722 };

/* What the user set (under the element's lock). */
struct Settings {
  DebayerMethod method = METHOD_MALVAR;
  guint black_level = 0;
  WhiteBalance white_balance = WB_NONE;
  double gains[3] = { 1, 1, 1 };    /* manual */
  double awb_speed = 0.25;
  Matrix matrix = kIdentity;
  double saturation = 1;
  Transfer transfer = TRANSFER_LINEAR;
  double gamma = 2.2;
  bool started = false;
  clsettings::Refusals refusals;   /* values refused before start */

  /* Whether any camera stage changes the picture (else the exact integer
   * kernels run, bit-identical to the plain demosaic). */
  bool camera_stages () const
  {
    return black_level != 0 || white_balance != WB_NONE || matrix != kIdentity ||
        saturation != 1 || transfer != TRANSFER_LINEAR;
  }
};

/* Grey-world statistics of the last frame read back, and the gains in force
 * (under the element's lock: get_property reads them). */
struct AwbStatus {
  double gains[3] = { 1, 1, 1 };
  bool have_target = false;
  double target[3] = { 1, 1, 1 };
  double means[3] = { 0, 0, 0 };    /* of full scale, after black level */
  guint64 cells = 0;
  guint64 frames = 0;               /* statistics read back so far */
};

/* The program variants a frame may run (debayer.cl): the exact integer
 * blocks (GPUs), the exact integer cells and rim (CPUs), the camera stages
 * in 8 x 2 blocks (GPUs) or in strips (CPUs: camera_cpu.cl); menon with the
 * camera stages: menon.cl's tiles (GPUs), menon_cpu.cl's row pipeline
 * (CPUs). */
enum VariantKind { VARIANT_BLOCKS, VARIANT_CELLS, VARIANT_CAMERA, VARIANT_MENON,
  VARIANT_MENON_CPU, VARIANT_CAMERA_CPU, N_VARIANT_KINDS };

/* debayer_menon's shape (menon.cl's MT_W, MT_H, MT_RUN1, MT_RUN, MT_RUN3,
 * MENON_LY): the tile of pixels a work-group computes; the cells a
 * work-item takes down a column in step 1, in step 2, in steps 3-5; the
 * work-group's rows of 32 work-items (reqd_work_group_size in menon.cl). */
struct MenonShape { int w, h, run1, run, run3, ly; };

struct Variant {
  VariantKind kind = VARIANT_BLOCKS;
  bool aligned = false;         /* the ALIGNED build (128-bit rows) */
  std::string options;          /* empty: none */
  MenonShape menon {};          /* VARIANT_MENON: the shape built */
};

/* The kernels of a variant, with the options they were built with. */
struct VariantKernels {
  std::string options;
  cl::Kernel main, rim;
};

/* Negotiated state, built in set_info; kernels built when a frame first
 * needs them. */
struct DebayerState {
  std::string format_options;   /* -D options of the input/output formats */
  bool can_align = false;       /* 4-channel output: ALIGNED possible */
  int phase_x = 0, phase_y = 0; /* the pattern as a shift of RGGB */
  int maxv = 255;               /* 2^bits - 1 */
  cl_uint scale_mul = 0;        /* output scaling, see debayer.cl */
  int scale_shift = 0;
  cl_int4 layout {};            /* channel positions, see debayer.cl */
  bool use_cells = false;       /* CPU shapes (GST_OPENCL_TUNING) */
  /* the camera kernels' options for the device (gpu_options): x^y as PTX
   * that flushes denormals (NATIVE_POW=2) and warp sums in one instruction
   * (NV_REDUX) with NVIDIA's compiler, native_powr (NATIVE_POW=1) on other
   * GPUs; none for the CPU shapes (plain arithmetic) */
  std::string device_options;
  size_t local_mem = 0;         /* the device's local memory a work-group */
  int menon_chunks = 0;         /* debayer_menon_cpu's MC_CHUNKS */
  int menon_strip_width = 0;    /* its strips: 16 (MC_CHUNKS - 1) columns, */
  int menon_strip = 0;          /* and rows (cpu_strip_rows) */
  int camera_strip = 0;         /* debayer_camera_cpu's strips: rows (its
                                 * width: 16 kCameraCpuChunks columns) */
  bool out_words = false;       /* the cells variant stores 32-bit words */
  int out_yuv = 0;              /* 1 NV12, 2 I420 (camera variant only) */
  cl_float8 yuv {};             /* Kr, Kb, Y offset, Y scale, C scale */
  VariantKernels kernels[N_VARIANT_KINDS][2];   /* by kind and ALIGNED */
  /* The variant the last frame ran, which serves the frames while a
   * variant needed after a property change builds in the background. */
  Variant last;
  gstcl::BackgroundBuild build;
  Variant building;
  /* White-balance statistics: the frame's sums of R, G, B and cells as
   * kStatsSlots sets of counters (debayer.cl's STATS_SLOTS), each a pair of
   * words: the sums of the groups' low 16 bits and of the bits above them
   * (add_group_stats), and a read of them in flight (into `total`, which
   * outlives it). */
  static constexpr int kStatsSlots = 64;
  static constexpr size_t kTotalsBytes = sizeof (cl_uint) * 8 * kStatsSlots;
  cl::Buffer totals;
  cl::Event reading;
  /* The read's host side: pinned memory (allocated by the driver, mapped
   * once), so that the read is a transfer the queue runs on its own; into
   * ordinary memory NVIDIA's driver copies through its own staging. */
  cl::Buffer pinned;
  cl::CommandQueue pinned_queue;
  cl_uint *total = nullptr;

  void map_totals (const cl::Context &context, const cl::CommandQueue &queue)
  {
    totals = cl::Buffer (context, CL_MEM_READ_WRITE, kTotalsBytes);
    pinned = cl::Buffer (context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, kTotalsBytes);
    total = static_cast<cl_uint *> (queue.enqueueMapBuffer (pinned, CL_TRUE,
            CL_MAP_READ | CL_MAP_WRITE, 0, kTotalsBytes));
    pinned_queue = queue;
  }
  cl_ulong total_of (int i) const
  {
    cl_ulong sum = 0;
    for (int slot = 0; slot < kStatsSlots; slot++)
      sum += total[8 * slot + 2 * i] + ((cl_ulong) total[8 * slot + 2 * i + 1] << 16);
    return sum;
  }
  void wait_for_read ()
  {
    if (reading ())
      reading.wait ();
    reading = cl::Event ();
  }
  ~DebayerState ()
  {
    try {
      wait_for_read ();
      if (total) {
        pinned_queue.enqueueUnmapMemObject (pinned, total);
        pinned_queue.finish ();
      }
    } catch (const cl::Error &) {
    }
  }
};

/* Under the element's lock: what the user set, and the white balance in
 * force (get_property reads both). */
struct Locked {
  Settings user;
  AwbStatus awb;
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
  PROP_TRANSFER, PROP_GAMMA, PROP_STATISTICS,
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

static Settings
settings_of (GstClDebayer * self)
{
  std::lock_guard<std::mutex> lock (self->priv->lock);
  return self->priv->settings.user;
}

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

/* `s` renamed to `name` with formats `formats`, keeping size, rate and
 * pixel aspect ratio. */
static GstStructure *
convert_structure (const GstStructure * s, const char *name, const char *formats)
{
  GstStructure *out = gst_structure_new_empty (name);
  GstCaps *list = gst_caps_from_string ((std::string ("x, format = (string) { ") + formats +
          " }").c_str ());
  gst_structure_set_value (out, "format",
      gst_structure_get_value (gst_caps_get_structure (list, 0), "format"));
  gst_caps_unref (list);
  for (const char *field : { "width", "height", "framerate", "pixel-aspect-ratio" }) {
    const GValue *v = gst_structure_get_value (s, field);
    if (v)
      gst_structure_set_value (out, field, v);
  }
  return out;
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
        out = gst_caps_merge_structure (out, convert_structure (s, "video/x-raw",
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
        out = gst_caps_merge_structure (out, convert_structure (s, "video/x-bayer",
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

/* The -D options of the output pixel (its shape: OUT_CH, OUT_SAMPLE,
 * OUT_YUV, ...), and where its channels go (an argument: one program for
 * every channel order). */
static std::string
output_options (const GstVideoInfo * info, cl_int4 * layout, int *out_yuv)
{
  const gstcl::PixelLayout px = gstcl::pixel_layout (info);
  *layout = px.order ();
  *out_yuv = px.yuv;
  return px.size_options ("OUT");
}

/* debayer_menon_cpu: a work-group of one work-item computes a strip of
 * 16 (chunks - 1) columns (menon_cpu.cl's MC_CHUNKS), walking down its rows
 * from 12 above it; its rings take 14 x 16 x 32 bytes a chunk and two
 * more. kMenonCpuChunks where the device's local memory holds them (CPUs:
 * it is their cache), else fewer (GPUs under the CPU tuning, tests). */
static const int kMenonCpuChunks = 16;

static int
menon_cpu_chunks (size_t local_mem)
{
  return (int) std::max<size_t> (2, std::min<size_t> (kMenonCpuChunks,
          local_mem / (14 * 16 * 32) - 2));
}

/* The rows of a strip of the CPU strip kernels (even): the whole height,
 * or in equal parts so that there are about 8 work-groups a compute unit
 * (which keeps the cores busy when other processes take some of them:
 * 10-20 % more frames/s on the busy 2-core development machine than 2 a
 * unit), each at least 64 rows (a strip of menon computes 12 more). */
static int
cpu_strip_rows (int units, int strip_width, int width, int height)
{
  const int columns = (width + strip_width - 1) / strip_width;
  const int strips = std::max (1, std::min ((8 * units + columns - 1) / columns,
          height / 64));
  return ((height + strips - 1) / strips + 1) / 2 * 2;
}

/* The camera kernels' options for a GPU: NATIVE_POW=2 (PTX) with NVIDIA's
 * compiler, and NV_REDUX=1 (warp sums in one instruction) from sm_80 on;
 * NATIVE_POW=1 elsewhere. */
static std::string
gpu_options (const cl::Device & device)
{
  const std::string extensions = device.getInfo<CL_DEVICE_EXTENSIONS> ();
  if (extensions.find ("cl_nv_compiler_options") == std::string::npos)
    return " -D NATIVE_POW=1";
  cl_uint major = 0;
  if (extensions.find ("cl_nv_device_attribute_query") != std::string::npos &&
      clGetDeviceInfo (device (), CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major, &major,
          nullptr) != CL_SUCCESS)
    major = 0;
  return major >= 8 ? " -D NATIVE_POW=2 -D NV_REDUX=1" : " -D NATIVE_POW=2";
}

/* debayer_camera_cpu (camera_cpu.cl): a work-group of one work-item
 * computes a strip of 16 kCameraCpuChunks columns (its CC_CHUNKS; its ring
 * of rows takes 18 x 16 x 32 bytes a chunk, inside any device's local
 * memory). */
static const int kCameraCpuChunks = 16;

static void
gst_cl_debayer_set_info (GstClFilter * filter, GstClContext * ctx, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps *, const GstVideoInfo * out_info)
{
  auto *self = GST_CL_DEBAYER (filter);
  DebayerState *st = &self->priv->state;
  const int width = GST_VIDEO_INFO_WIDTH (in_info), height = GST_VIDEO_INFO_HEIGHT (in_info);
  if (width < 2 || height < 2)
    throw std::runtime_error ("Bayer frames must be at least 2x2 samples, got " +
        std::to_string (width) + "x" + std::to_string (height));
  if (GST_VIDEO_INFO_WIDTH (out_info) != width || GST_VIDEO_INFO_HEIGHT (out_info) != height)
    throw std::runtime_error ("output size differs from the input's");

  gint pattern, bits;
  if (!gst_cl_bayer_format_parse (gst_structure_get_string (gst_caps_get_structure (incaps,
                  0), "format"), &pattern, &bits))
    throw std::runtime_error ("unsupported Bayer format");
  if (bits == 8 && GST_VIDEO_INFO_FORMAT (out_info) == GST_VIDEO_FORMAT_RGBA64_LE)
    throw std::runtime_error ("RGBA64_LE output needs 10- to 16-bit input");
  /* Pattern 0 bggr, 1 gbrg, 2 grbg, 3 rggb as shifts of RGGB. */
  static const int phase[4][2] = { {1, 1}, {0, 1}, {1, 0}, {0, 0} };
  st->phase_x = phase[pattern][0];
  st->phase_y = phase[pattern][1];
  st->maxv = (1 << bits) - 1;
  /* floor (q / maxv) == (q * mul) >> shift for q < 2^30 when
   * mul = ceil (2^(30 + bits) / maxv) (Granlund-Montgomery, since maxv < 2^bits) */
  st->scale_shift = 30 + bits;
  st->scale_mul = (cl_uint) (((1ull << st->scale_shift) + st->maxv - 1) / st->maxv);
  st->format_options = std::string (" -D IN_16=") + (bits > 8 ? "1" : "0") +
      output_options (out_info, &st->layout, &st->out_yuv);
  st->yuv = gstcl::yuv_coefficients (out_info);
  if (st->out_yuv) {
    /* camera_output's chroma factors (debayer.cl): C scale / (8 (1 - K))
     * for Kb and Kr, and 1 / (Y scale) */
    const double kr = st->yuv.s[0], kb = st->yuv.s[1], ys = st->yuv.s[3], cs = st->yuv.s[4];
    st->yuv.s[5] = (float) (cs * 0.125 / (1 - kb));
    st->yuv.s[6] = (float) (cs * 0.125 / (1 - kr));
    st->yuv.s[7] = (float) (1 / ys);
  }
  /* 4-channel output (alpha or padding included) */
  st->can_align = GST_VIDEO_INFO_FORMAT (out_info) == GST_VIDEO_FORMAT_RGBA64_LE ||
      GST_VIDEO_INFO_COMP_PSTRIDE (out_info, 0) == 4;
  /* The cells variant on CPUs, the block kernels (tuned for GPUs)
   * elsewhere; GST_OPENCL_TUNING=cpu|gpu forces one (tests). */
  st->use_cells = !gstcl::tuned_for_gpu (ctx);
  const cl::Device &device = gstcl::device_of (ctx);
  st->device_options = st->use_cells ? "" : gpu_options (device);
  st->local_mem = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE> ();
  st->menon_chunks = menon_cpu_chunks (st->local_mem);
  st->menon_strip_width = 16 * (st->menon_chunks - 1);
  const int units = (int) device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS> ();
  st->menon_strip = cpu_strip_rows (units, st->menon_strip_width, width, height);
  st->camera_strip = cpu_strip_rows (units, 16 * kCameraCpuChunks, width, height);
  st->out_words = st->can_align;
  /* New formats: nothing built runs them (a build under way is waited for). */
  st->build.cancel ();
  for (auto &kind : st->kernels)
    for (VariantKernels &k : kind)
      k = VariantKernels ();
  st->last = st->building = Variant ();
  st->wait_for_read ();
  GST_DEBUG_OBJECT (self, "%s variant", st->use_cells ? "cells (CPU)" : "blocks (GPU)");
}

/* Sets the arguments every debayer kernel takes; returns the next index. */
static cl_uint
set_common_args (cl::Kernel & k, const DebayerState * st, const GstClFrame * in,
    const GstClFrame * out)
{
  return gstcl::set_args (k, gstcl::set_frame_args (k, 0, in, out), (cl_int) st->phase_x,
      (cl_int) st->phase_y, (cl_int) st->maxv, st->scale_mul, (cl_int) st->scale_shift,
      st->layout);
}

/* The CPU variant: debayer_cells over the interior, in whole work-groups of
 * CELLS_LX columns x CELLS_LY row pairs, and debayer_rim over the 8x2 blocks around it
 * (all of them when the interior is smaller than a work-group). */
#define CELLS_LX 128
#define CELLS_LY 2

static void
run_cells (DebayerState * st, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out)
{
  cl::Kernel &cells = st->kernels[VARIANT_CELLS][0].main;
  cl::Kernel &rim = st->kernels[VARIANT_CELLS][0].rim;
  const int width = GST_VIDEO_INFO_WIDTH (&out->info);
  const int height = GST_VIDEO_INFO_HEIGHT (&out->info);
  const int px = st->phase_x, py = st->phase_y;
  const int nbx = (width + px + 7) / 8, nby = (height + py + 1) / 2;
  /* Blocks (8 bx - px, 2 by - py) whose 12x6 window lies inside the image:
   * 8 bx - px >= 2, 8 bx - px + 9 < width, 2 by - py >= 2, 2 by - py + 3 < height. */
  int bx0 = 1, bx1 = width - 10 + px >= 0 ? (width - 10 + px) / 8 + 1 : 0;
  int by0 = (3 + py) / 2, by1 = height - 4 + py >= 0 ? (height - 4 + py) / 2 + 1 : 0;
  if (8 * (bx1 - bx0) < CELLS_LX || by1 - by0 < CELLS_LY) {
    bx1 = bx0;
    by1 = by0;
  } else {
    const int nx = 8 * (bx1 - bx0), ny = by1 - by0;
    gstcl::set_args (cells, set_common_args (cells, st, in, out),
        (cl_int) (8 * bx0 - px), (cl_int) (2 * by0 - py), (cl_int) nx, (cl_int) ny);
    gstcl::enqueue_2d (ctx, cells, nx, ny, CELLS_LX, CELLS_LY);
  }
  gstcl::set_args (rim, set_common_args (rim, st, in, out), (cl_int) bx0,
      (cl_int) bx1, (cl_int) by0, (cl_int) by1);
  const int rim_blocks = (by0 + nby - by1) * nbx + (bx0 + nbx - bx1) * (by1 - by0);
  gstcl::enqueue_2d (ctx, rim, rim_blocks, 1, 64, 1);
}

/* Grey-world cells: the largest sample (after black level) at least LO and
 * below HI of the full scale (docs/cldebayer.md). */
static constexpr double kAwbLow = 0.02, kAwbHigh = 0.98;
/* debayer_camera's work-group and the pixel rows each work-item computes
 * (8 columns wide), given to debayer.cl as -D options */
#define CAMERA_LX 16
#define CAMERA_LY 8
#define CAMERA_ROWS 2

/* Takes the statistics read back since the last frame, if any, and moves
 * the gains in force toward their target (auto white balance). */
static void
update_awb (GstClDebayer * self, const Settings & settings)
{
  DebayerState *st = &self->priv->state;
  bool fresh = false;
  if (st->reading () &&
      st->reading.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS> () == CL_COMPLETE) {
    st->reading = cl::Event ();
    fresh = st->total_of (3) > 0;
  }
  std::lock_guard<std::mutex> lock (self->priv->lock);
  AwbStatus *awb = &self->priv->settings.awb;
  if (fresh) {
    const double cells = (double) st->total_of (3);
    const double scale = (double) (st->maxv - std::min<int> (settings.black_level, st->maxv - 1));
    const double r = st->total_of (0) / cells, g = st->total_of (1) / (2 * cells),
        b = st->total_of (2) / cells;
    awb->means[0] = r / scale;
    awb->means[1] = g / scale;
    awb->means[2] = b / scale;
    awb->cells = st->total_of (3);
    awb->frames++;
    awb->target[0] = r > 0 ? std::min (g / r, 16.0) : 1;
    awb->target[1] = 1;
    awb->target[2] = b > 0 ? std::min (g / b, 16.0) : 1;
    awb->have_target = true;
  }
  if (awb->have_target)
    for (int c = 0; c < 3; c++)
      awb->gains[c] += settings.awb_speed * (awb->target[c] - awb->gains[c]);
}

/* The transfer curve as debayer.cl's TRANSFER_CURVE takes it: x <= knee ?
 * slope x : a x^e - b, as (e, a, b, knee, slope); then, for its
 * transfer_offset8, (a / u, log2 (a / u), slope / u, b / u, u, b) with u =
 * c + b, c = slope knee (1 for the power and linear curves). */
static cl_float16
transfer_parameters (const Settings & s)
{
  double e = 1, a = 1, b = 0, knee = 2, slope = 1;   /* linear (knee > 1) */
  switch (s.transfer) {
    case TRANSFER_SRGB: e = 1 / 2.4; a = 1.055; b = 0.055; knee = 0.0031308; slope = 12.92; break;
    case TRANSFER_BT709: e = 0.45; a = 1.099; b = 0.099; knee = 0.018; slope = 4.5; break;
    case TRANSFER_GAMMA: e = 1 / s.gamma; knee = -1; slope = 0; break;
    default: break;
  }
  const bool has_knee = s.transfer == TRANSFER_SRGB || s.transfer == TRANSFER_BT709;
  const double u = (has_knee ? slope * knee : 1) + b;
  return cl_float16 { { (float) e, (float) a, (float) b, (float) knee, (float) slope,
          (float) (a / u), (float) std::log2 (a / u), (float) (slope / u), (float) (b / u),
          (float) u, (float) b } };
}

/* debayer_camera's FAST_LEVELS offset of a colour whose factor (over maxv)
 * is f: -(2^15 + black) f rounded down to a float, so that a sample at black
 * comes out at or below 0. */
static float
fast_levels_offset (float f, int black)
{
  const double exact = -(32768.0 + black) * (double) f;
  const float k = (float) exact;
  return (double) k > exact ? std::nextafter (k, -INFINITY) : k;
}

/* debayer_menon's shapes (the GPU tuning; CPUs run debayer_menon_cpu): 64 x
 * 32 tiles (4 groups a multiprocessor on the H100; 32 x 16 took 1.5x the
 * time; on PoCL, with steps 3-5 by single cells, it was the fastest of the
 * tiles); 32 x 16 where the device's local memory does not hold that (at
 * most 25 KB: OpenCL's minimum is 32 KB). */
#define MENON_LX 32
static const MenonShape kMenonShape = { 64, 32, 4, 4, 3, 8 };
static const MenonShape kMenonSmall = { 32, 16, 4, 4, 3, 8 };

/* The local memory of debayer_menon built for `m` (menon.cl's arrays: per
 * cell 8 floats and a byte, step 2's floats shared with the statistics'
 * sums, and in the `staged` build the tile's R, G, B), with a margin. */
static size_t
menon_local_bytes (const MenonShape & m, bool staged)
{
  const size_t cells = (size_t) (m.w / 2 + 9) * (m.h / 2 + 9);
  const size_t sums = std::max (2 * cells, (size_t) 4 * MENON_LX * m.ly) / 4 + 1;
  return 8 * sizeof (float) * cells + 4 * sizeof (cl_uint) * sums + cells +
      (staged ? 3 * sizeof (float) * m.w * m.h : 0) + 256;
}

/* The shape for this device: the tuned one when it fits. */
static MenonShape
menon_shape (const DebayerState * st, bool staged)
{
  const MenonShape &m = kMenonShape;
  return menon_local_bytes (m, staged) <= st->local_mem ? m : kMenonSmall;
}

static std::string
menon_options (const MenonShape & m)
{
  return " -D MT_W=" + std::to_string (m.w) + " -D MT_H=" + std::to_string (m.h) +
      " -D MT_RUN1=" + std::to_string (m.run1) + " -D MT_RUN=" + std::to_string (m.run) +
      " -D MT_RUN3=" + std::to_string (m.run3) + " -D MENON_LY=" + std::to_string (m.ly);
}

/* The camera variant or menon: every stage in one kernel (debayer.cl,
 * menon.cl, menon_cpu.cl). */
static GstFlowReturn
run_camera (GstClDebayer * self, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out, const Settings & settings, const Variant & v)
{
  DebayerState *st = &self->priv->state;
  const int maxv = st->maxv;
  if ((int) settings.black_level >= maxv) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("black-level %u is not below the input's "
            "full scale %d", settings.black_level, maxv), (nullptr));
    return GST_FLOW_ERROR;
  }
  const bool awb = settings.white_balance == WB_AUTO;
  if (awb)
    update_awb (self, settings);

  /* Black level and white balance as one factor per colour. */
  double wb[3] = { 1, 1, 1 };
  if (settings.white_balance == WB_MANUAL)
    std::copy (settings.gains, settings.gains + 3, wb);
  else if (awb) {
    std::lock_guard<std::mutex> lock (self->priv->lock);
    std::copy (self->priv->settings.awb.gains, self->priv->settings.awb.gains + 3, wb);
  }
  /* The unit of the samples from here on: 1 in menon, maxv (full scale 1)
   * in debayer_camera (debayer.cl); divided on the host in double, so that
   * full scale with unit gains is exactly 1 there. */
  const double unit = v.kind == VARIANT_MENON || v.kind == VARIANT_MENON_CPU ? 1 : maxv;
  const double black_scale = (double) maxv / (maxv - (int) settings.black_level) / unit;
  cl_float8 gain = { { (float) (wb[0] * black_scale), (float) (wb[1] * black_scale),
          (float) (wb[2] * black_scale), 0 } };
  for (int c = 0; c < 3; c++)
    gain.s[4 + c] = fast_levels_offset (gain.s[c], (int) settings.black_level);
  /* The matrix after saturation's, over the demosaiced samples' full scale. */
  const double s = settings.saturation;
  cl_float16 mat {};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double m = 0;
      for (int k = 0; k < 3; k++)
        m += ((i == k ? s : 0) + (1 - s) * kLuma[k]) * settings.matrix[3 * k + j];
      mat.s[3 * i + j] = (float) (m * unit / maxv);
    }

  const GstVideoInfo *oi = &out->info;
  const int width = GST_VIDEO_INFO_WIDTH (oi), height = GST_VIDEO_INFO_HEIGHT (oi);
  const cl::CommandQueue &queue = gstcl::queue_of (ctx);
  if (!st->totals ())
    st->map_totals (gstcl::context_of (ctx), queue);
  /* Statistics only in the frames whose totals are read back: while the
   * last read is under way (the host ahead of the device) they would be
   * zeroed unread by the next frame's fill. */
  const bool gather = awb && !st->reading ();
  if (gather)
    queue.enqueueFillBuffer (st->totals, (cl_uint) 0, 0, DebayerState::kTotalsBytes);
  const int black = (int) settings.black_level;
  const int range = maxv - black;
  const cl_int4 chroma = { { (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (oi, 1),
          GST_VIDEO_INFO_PLANE_STRIDE (oi, 1), (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (oi, 2),
          GST_VIDEO_INFO_PLANE_STRIDE (oi, 2) } };
  cl::Kernel &k = st->kernels[v.kind][v.aligned].main;
  const cl_uint next = gstcl::set_args (k, gstcl::set_frame_args (k, 0, in, out),
      (cl_int) maxv, st->layout, (cl_int) black, gain, mat, transfer_parameters (settings),
      st->yuv, chroma, (cl_int) gather, (cl_int) std::ceil (kAwbLow * range),
      (cl_int) std::ceil (kAwbHigh * range), st->totals);
  if (v.kind == VARIANT_MENON)   /* the pattern (the camera kernel has it built in) */
    gstcl::set_args (k, next, (cl_int) st->phase_x, (cl_int) st->phase_y);
  /* profiled apart: a launch that gathers does more work than one that
   * does not, and only some frames gather */
  const char *profile_as = gather ? " statistics" : nullptr;
  if (v.kind == VARIANT_CAMERA_CPU) {
    gstcl::set_args (k, next, (cl_int) st->camera_strip);
    gstcl::enqueue_2d (ctx, k, (width + 16 * kCameraCpuChunks - 1) / (16 * kCameraCpuChunks),
        (height + st->camera_strip - 1) / st->camera_strip, 1, 1, profile_as);
  } else if (v.kind == VARIANT_MENON_CPU) {
    const int strip_width = st->menon_strip_width;
    const int strip = st->menon_strip;
    gstcl::set_args (k, next, (cl_int) st->phase_x, (cl_int) st->phase_y, (cl_int) strip,
        (cl_int) !settings.camera_stages ());
    gstcl::enqueue_2d (ctx, k, (width + strip_width - 1) / strip_width,
        (height + strip - 1) / strip, 1, 1, profile_as);
  } else if (v.kind == VARIANT_MENON) {
    const MenonShape &m = v.menon;
    gstcl::enqueue_2d (ctx, k, (width + m.w - 1) / m.w * MENON_LX, (height + m.h - 1) / m.h *
        m.ly, MENON_LX, m.ly, profile_as);
  } else
    gstcl::enqueue_2d (ctx, k, (width + 7) / 8, (height + CAMERA_ROWS - 1) / CAMERA_ROWS,
        CAMERA_LX, CAMERA_LY, profile_as);

  /* 2 KiB read back without waiting; the next frames use them. */
  if (gather)
    queue.enqueueReadBuffer (st->totals, CL_FALSE, 0, DebayerState::kTotalsBytes,
        st->total, nullptr, &st->reading);
  return GST_FLOW_OK;
}

/* Whether `kind` (ALIGNED or not) can run this frame: the ALIGNED builds
 * need 16-byte rows (8-byte planes for YUV), the cells variant 4-byte
 * output rows for 4-channel pixels. */
static bool
fits (const DebayerState * st, VariantKind kind, bool aligned, const GstClFrame * in,
    const GstClFrame * out)
{
  const GstVideoInfo *oi = &out->info;
  if (kind == VARIANT_CELLS)
    return !st->out_words || ((GST_VIDEO_INFO_PLANE_OFFSET (oi, 0) |
            (gsize) GST_VIDEO_INFO_PLANE_STRIDE (oi, 0)) & 3) == 0;
  if (!aligned)
    return true;
  if ((kind == VARIANT_CAMERA || kind == VARIANT_MENON || kind == VARIANT_MENON_CPU ||
          kind == VARIANT_CAMERA_CPU) && st->out_yuv) {
    bool ok = gstcl::rows_aligned_16 (in);
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (oi); p++)
      ok = ok && GST_VIDEO_INFO_PLANE_OFFSET (oi, p) % 8 == 0 &&
          GST_VIDEO_INFO_PLANE_STRIDE (oi, p) % 8 == 0;
    return ok;
  }
  return st->can_align && gstcl::rows_aligned_16 (in) && gstcl::rows_aligned_16 (out);
}

/* The variant this frame should run with these settings. */
static Variant
plan (const DebayerState * st, const Settings & settings, const GstClFrame * in,
    const GstClFrame * out)
{
  Variant v;
  const std::string method = " -D METHOD=" + std::to_string (settings.method);
  if (settings.method == METHOD_MENON && st->use_cells) {
    /* CPUs: one kernel, a pipeline down strips of rows (menon_cpu.cl) */
    v.kind = VARIANT_MENON_CPU;
    v.aligned = fits (st, VARIANT_MENON_CPU, true, in, out);
    v.options = st->format_options + method + " -D CAMERA=1 -D MENON=1 -D PHASE_X=0" +
        (v.aligned ? " -D ALIGNED=1" : "") + " -D MC_CHUNKS=" +
        std::to_string (st->menon_chunks);
  } else if (settings.method == METHOD_MENON) {
    /* One kernel over local-memory tiles, in float, with the camera
     * stages (at their defaults: none) on every device. */
    v.kind = VARIANT_MENON;
    v.aligned = fits (st, VARIANT_MENON, true, in, out);
    /* GPUs: RGB formats written by each work-item's cells (4-channel ones
     * as words: 4-byte rows), not through local memory and 8 x 2 blocks
     * (2.5x slower than the blocks on PoCL) */
    const bool pixels = !st->use_cells && !st->out_yuv && fits (st, VARIANT_CELLS, false, in,
        out);
    v.menon = menon_shape (st, !pixels);
    v.options = st->format_options + method + " -D CAMERA=1 -D MENON=1 -D PHASE_X=0" +
        (v.aligned ? " -D ALIGNED=1" : "") + st->device_options + menon_options (v.menon) +
        /* no matrix, saturation or curve: the output stage only scales
         * (the same values, fewer registers) */
        (settings.matrix != kIdentity || settings.saturation != 1 ||
            settings.transfer != TRANSFER_LINEAR ? "" : " -D MENON_COLOUR=0") +
        (pixels ? " -D MENON_PIXELS=1" : "");
  } else if ((st->out_yuv || settings.camera_stages ()) && st->use_cells) {
    /* CPUs: one work-item a strip of columns, explicit float8 SIMD
     * (camera_cpu.cl); x^y from plain arithmetic (pow_unit) */
    v.kind = VARIANT_CAMERA_CPU;
    v.aligned = fits (st, VARIANT_CAMERA_CPU, true, in, out);
    v.options = st->format_options + method + " -D CAMERA=1 -D CAMERA_CPU=1 -D PHASE_X=" +
        std::to_string (st->phase_x) + " -D PHASE_Y=" + std::to_string (st->phase_y) +
        " -D CC_CHUNKS=" + std::to_string (kCameraCpuChunks) + (v.aligned ? " -D ALIGNED=1" : "");
  } else if (st->out_yuv || settings.camera_stages ()) {
    /* GPUs: 8 x 2 blocks a work-item (a cells shape like the plain
     * demosaic's measured slower on PoCL); x^y from the special function
     * units. */
    v.kind = VARIANT_CAMERA;
    v.aligned = fits (st, VARIANT_CAMERA, true, in, out);
    v.options = st->format_options + method + " -D CAMERA=1 -D PHASE_X=" +
        std::to_string (st->phase_x) + " -D PHASE_Y=" + std::to_string (st->phase_y) +
        " -D CAMERA_LX=" + std::to_string (CAMERA_LX) + " -D CAMERA_LY=" +
        std::to_string (CAMERA_LY) + " -D CAMERA_ROWS=" + std::to_string (CAMERA_ROWS) +
        (v.aligned ? " -D ALIGNED=1" : "") + st->device_options +
        (st->maxv < 32768 ? " -D IN_15=1" : "");
  } else if (st->use_cells && fits (st, VARIANT_CELLS, false, in, out)) {
    v.kind = VARIANT_CELLS;
    v.options = st->format_options + method + " -D CELLS=1";
  } else {
    /* Pool buffers at common widths qualify for the aligned variant; padded
     * GstVideoMeta layouts and odd widths take the general one. */
    v.kind = VARIANT_BLOCKS;
    v.aligned = fits (st, VARIANT_BLOCKS, true, in, out);
    v.options = st->format_options + method +
        (v.aligned ? " -D ALIGNED=1 -D PHASE_X=" + std::to_string (st->phase_x) : "");
  }
  return v;
}

/* Makes the kernels of `v`. False when they are not there yet and the
 * variant of the last frame runs this one meanwhile: a property changed
 * while playing, and `v` builds in the background (the first frame of a
 * format builds in the streaming thread: nothing else could run it). */
static bool
prepare (GstClDebayer * self, GstClContext * ctx, const Variant & v, const GstClFrame * in,
    const GstClFrame * out)
{
  DebayerState *st = &self->priv->state;
  VariantKernels &slot = st->kernels[v.kind][v.aligned];
  if (slot.options == v.options)
    return true;
  static const std::string plain = std::string (gst_cl_kernel_common) + gst_cl_kernel_color +
      gst_cl_kernel_debayer;
  static const std::string menon = plain + gst_cl_kernel_menon;
  static const std::string menon_cpu = plain + gst_cl_kernel_menon_cpu;
  static const std::string camera_cpu = plain + gst_cl_kernel_camera_cpu;
  const std::string &source = v.kind == VARIANT_MENON ? menon :
      v.kind == VARIANT_MENON_CPU ? menon_cpu : v.kind == VARIANT_CAMERA_CPU ? camera_cpu :
      plain;
  cl::Program program;
  if (st->build.pending () && st->building.options == v.options && st->build.ready ())
    program = st->build.take ();
  if (!program ())
    program = gstcl::cached_program (ctx, source, v.options);
  if (!program ()) {
    const Variant &last = st->last;
    if (!last.options.empty () && st->kernels[last.kind][last.aligned].options ==
        last.options && fits (st, last.kind, last.aligned, in, out)) {
      if (!st->build.pending () || st->building.options != v.options) {
        st->build.start (GST_ELEMENT (self), ctx, source, v.options, "cldebayer");
        st->building = v;
      }
      return false;
    }
    program = gstcl::program (ctx, source, v.options);
  }
  static const char *const names[N_VARIANT_KINDS][2] = {
    {"debayer", nullptr}, {"debayer_cells", "debayer_rim"}, {"debayer_camera", nullptr},
    {"debayer_menon", nullptr}, {"debayer_menon_cpu", nullptr},
    {"debayer_camera_cpu", nullptr} };
  slot.main = cl::Kernel (program, names[v.kind][0]);
  slot.rim = names[v.kind][1] ? cl::Kernel (program, names[v.kind][1]) : cl::Kernel ();
  slot.options = v.options;
  GST_DEBUG_OBJECT (self, "kernel variant%s", v.options.c_str ());
  return true;
}

static GstFlowReturn
gst_cl_debayer_filter (GstClFilter * filter, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out)
{
  auto *self = GST_CL_DEBAYER (filter);
  DebayerState *st = &self->priv->state;

  const Settings settings = settings_of (self);
  Variant v = plan (st, settings, in, out);
  if (!prepare (self, ctx, v, in, out))
    v = st->last;
  st->last = v;

  if (v.kind == VARIANT_CAMERA || v.kind == VARIANT_MENON || v.kind == VARIANT_MENON_CPU ||
      v.kind == VARIANT_CAMERA_CPU)
    return run_camera (self, ctx, in, out, settings, v);
  if (v.kind == VARIANT_CELLS) {
    run_cells (st, ctx, in, out);
    return GST_FLOW_OK;
  }
  const int width = GST_VIDEO_INFO_WIDTH (&out->info);
  const int height = GST_VIDEO_INFO_HEIGHT (&out->info);
  cl::Kernel &k = st->kernels[VARIANT_BLOCKS][v.aligned].main;
  set_common_args (k, st, in, out);
  /* One work-item per 8x2 block of pixels, RGGB-aligned in the general
   * variant, 8-column-aligned in the aligned one (see debayer.cl). */
  const int shift_x = v.aligned ? 0 : st->phase_x;
  gstcl::enqueue_2d (ctx, k, (width + shift_x + 7) / 8, (height + st->phase_y + 1) / 2);
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
  std::copy (values.begin (), values.end (), out->begin ());
  return "";
}

static void
gst_cl_debayer_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_DEBAYER (object);
  std::string refused;
  bool running;
  {
  std::lock_guard<std::mutex> lock (self->priv->lock);
  Settings *s = &self->priv->settings.user;
  running = s->started;
  switch (prop_id) {
    case PROP_METHOD: s->method = (DebayerMethod) g_value_get_enum (value); break;
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
      if (refused.empty ())
        s->refusals.forget (pspec->name);
      else if (!running)
        s->refusals.add ({pspec->name, clsettings::describe_value (value), refused});
      break;
    case PROP_SATURATION: s->saturation = g_value_get_double (value); break;
    case PROP_TRANSFER: s->transfer = (Transfer) g_value_get_enum (value); break;
    case PROP_GAMMA: s->gamma = g_value_get_double (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  }
  /* Posted without the lock: a bus sync handler may read our properties. */
  if (!refused.empty ())
    clsettings::report (GST_ELEMENT (self), running, pspec->name,
        clsettings::describe_value (value), refused, "The previous matrix stays in force.");
}

/* A value refused before start stops the start (clsettings.hpp). */
static gboolean
gst_cl_debayer_start (GstBaseTransform * trans)
{
  auto *self = GST_CL_DEBAYER (trans);
  return clsettings::mark_started (GST_ELEMENT (self), self->priv->lock,
      self->priv->settings.user.started, self->priv->settings.user.refusals) &&
      clsettings::chain_start (trans, GST_BASE_TRANSFORM_CLASS (gst_cl_debayer_parent_class),
      self->priv->lock, self->priv->settings.user.started);
}

static gboolean
gst_cl_debayer_stop (GstBaseTransform * trans)
{
  auto *self = GST_CL_DEBAYER (trans);
  clsettings::mark_stopped (self->priv->lock, self->priv->settings.user.started);
  self->priv->state.build.cancel ();   /* waits for a build under way */
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

  gst_element_class_set_static_metadata (element_class, "OpenCL Bayer demosaic",
      "Filter/Converter/Video/Hardware", "Converts 8- to 16-bit Bayer to RGB or NV12/I420 "
      "on an OpenCL device (Malvar-He-Cutler, bilinear or Menon), with black level, white "
      "balance, colour matrix and transfer curve", "gst-opencl developers");
  gst_cl_filter_class_add_pad_templates (filter_class, SINK_CAPS, SRC_CAPS);

  trans_class->fixate_caps = gst_cl_debayer_fixate_caps;
  trans_class->start = gst_cl_debayer_start;
  trans_class->stop = gst_cl_debayer_stop;
  filter_class->transform_plain_caps = gst_cl_debayer_transform_plain_caps;
  filter_class->set_info = gst_cl_debayer_set_info;
  filter_class->filter = gst_cl_debayer_filter;

  GST_DEBUG_CATEGORY_INIT (gst_cl_debayer_debug, "cldebayer", 0, "OpenCL Bayer demosaic");
  gst_type_mark_as_plugin_api (GST_TYPE_CL_DEBAYER_METHOD, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_DEBAYER_WHITE_BALANCE, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_DEBAYER_TRANSFER, (GstPluginAPIFlags) 0);
}

static void
gst_cl_debayer_init (GstClDebayer * self)
{
  self->priv = new gstcl::ElementPrivate<Locked, DebayerState> ();
}
