/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cldebayer's variant table: one row a kernel variant (kernels/debayer/),
 * with its entry points, source files, when it runs, its alignment rule,
 * its build options and its launch. A new variant is a new row; a new
 * stage of the camera pass is a new file in the camera rows' lists and
 * new fields of CameraParams. */
#include "gstcldebayerengine.hpp"
#include "cl-kernels.h"

#include <gst/opencl/gstclframe.hpp>

#include <algorithm>

namespace cldebayer {

/* debayer_camera's work-group and the pixel rows each work-item computes
 * (8 columns wide), given to camera.cl as -D options */
static const int kCameraLx = 16, kCameraLy = 8, kCameraRows = 2;
/* debayer_camera_cpu (camera_cpu.cl): a work-group of one work-item
 * computes a strip of 16 kCameraCpuChunks columns (its CC_CHUNKS; its ring
 * of rows takes 18 x 16 x 32 bytes a chunk, inside any device's local
 * memory). */
static const int kCameraCpuChunks = 16;
/* debayer_cells over the interior, in whole work-groups of kCellsLx columns
 * x kCellsLy row pairs, and debayer_edge around it */
static const int kCellsLx = 128, kCellsLy = 2;
/* debayer_cells16's columns a work-item (CELLS16_W: vectors of 16 in a
 * loop, so that the row pair's setup is shared) and work-groups (no
 * vectorisation across them: any shape; 4 x 2 is 256 columns of two row
 * pairs) */
static const int kCells16W = 64, kCells16Lx = 4, kCells16Ly = 2;
/* debayer_menon's work-group rows (32 work-items) and shapes (the GPU
 * tuning; CPUs run debayer_menon_cpu): 64 x 32 tiles (4 groups a
 * multiprocessor on the H100; 32 x 16 took 1.5x the time; on PoCL, with
 * steps 3-5 by single cells, it was the fastest of the tiles); 32 x 16
 * where the device's local memory does not hold that (at most 25 KB:
 * OpenCL's minimum is 32 KB). */
static const int kMenonLx = 32;
static const MenonShape kMenonShape = { 64, 32, 4, 4, 3, 8 };
static const MenonShape kMenonSmall = { 32, 16, 4, 4, 3, 8 };

/* The files of each program, in order (kernels/debayer/). */
static const char *const kExactFiles[] = { gst_cl_kernel_common, gst_cl_kernel_debayer_prelude,
  gst_cl_kernel_debayer_filters, gst_cl_kernel_debayer_io, gst_cl_kernel_debayer_exact,
  nullptr };
static const char *const kCellsFiles[] = { gst_cl_kernel_common, gst_cl_kernel_debayer_prelude,
  gst_cl_kernel_debayer_filters, gst_cl_kernel_debayer_io, gst_cl_kernel_debayer_cells,
  nullptr };
#define CAMERA_FILES gst_cl_kernel_common, gst_cl_kernel_color, gst_cl_kernel_debayer_prelude, \
    gst_cl_kernel_debayer_filters, gst_cl_kernel_debayer_io, gst_cl_kernel_debayer_stages, \
    gst_cl_kernel_debayer_curve, gst_cl_kernel_debayer_stats, gst_cl_kernel_debayer_output, \
    gst_cl_kernel_debayer_sensor, gst_cl_kernel_debayer_denoise
static const char *const kCameraFiles[] = { CAMERA_FILES, gst_cl_kernel_debayer_camera,
  nullptr };
static const char *const kMenonFiles[] = { CAMERA_FILES, gst_cl_kernel_debayer_menon,
  nullptr };
static const char *const kMenonCpuFiles[] = { CAMERA_FILES, gst_cl_kernel_debayer_strips,
  gst_cl_kernel_debayer_menon_cpu, gst_cl_kernel_debayer_sensor_cpu, nullptr };
/* (one program for both CPU camera rows: the sensor stages turned on or
 * off while playing build nothing) */
static const char *const kCameraCpuFiles[] = { CAMERA_FILES, gst_cl_kernel_debayer_strips,
  gst_cl_kernel_debayer_camera_cpu, gst_cl_kernel_debayer_camera_sensor_cpu, nullptr };
#undef CAMERA_FILES

static std::string
number (const char *name, int value)
{
  return std::string (" -D ") + name + "=" + std::to_string (value);
}

/* The options every variant starts with: the formats and the method. */
static std::string
method_options (const Format & f, const Settings & s)
{
  return f.options + number ("METHOD", s.method);
}

/* ... and every camera variant: the stages in float (prelude.cl's CAMERA),
 * and the sensor pass's shape. */
static std::string
camera_base_options (const Format & f, const Settings & s)
{
  return method_options (f, s) + " -D CAMERA=1" + number ("SENSOR_LX", kSensorLx) +
      number ("SENSOR_STRIP", kSensorStrip);
}

/* Alignment rules. 4-channel output (aligned variants: 128-bit rows): both
 * frames' rows on 16 bytes. */
static bool
rgb_aligned (const Format & f, const GstClFrame * in, const GstClFrame * out)
{
  return f.can_align && gstcl::rows_aligned_16 (in) && gstcl::rows_aligned_16 (out);
}

/* The camera variants: NV12 / I420 planes on 8 bytes, else as RGB. */
static bool
camera_aligned (const Format & f, const GstClFrame * in, const GstClFrame * out)
{
  if (!f.out_yuv)
    return rgb_aligned (f, in, out);
  const GstVideoInfo *oi = &out->info;
  bool ok = gstcl::rows_aligned_16 (in);
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (oi); p++)
    ok = ok && GST_VIDEO_INFO_PLANE_OFFSET (oi, p) % 8 == 0 &&
        GST_VIDEO_INFO_PLANE_STRIDE (oi, p) % 8 == 0;
  return ok;
}

static bool
never_aligned (const Format &, const GstClFrame *, const GstClFrame *)
{
  return false;
}

/* The cells variant stores 4-channel pixels as words: 4-byte rows. */
static bool
cells_fit (const Format & f, const GstClFrame * out)
{
  const GstVideoInfo *oi = &out->info;
  return !f.out_words || ((GST_VIDEO_INFO_PLANE_OFFSET (oi, 0) |
          (gsize) GST_VIDEO_INFO_PLANE_STRIDE (oi, 0)) & 3) == 0;
}

/* The arguments every exact kernel takes; returns the next index. */
static cl_uint
set_exact_args (cl::Kernel & k, const Format & f, const GstClFrame * in, const GstClFrame * out)
{
  return gstcl::set_args (k, gstcl::set_frame_args (k, 0, in, out), (cl_int) f.phase_x,
      (cl_int) f.phase_y, (cl_int) f.maxv, f.scale_mul, (cl_int) f.scale_shift, f.layout);
}

/* The arguments every camera kernel takes (output.cl's CAMERA_ARGS);
 * returns the next index. */
static cl_uint
set_camera_args (cl::Kernel & k, const Format & f, const GstClFrame * in,
    const GstClFrame * out, const CameraLaunch * c)
{
  const GstVideoInfo *oi = &out->info;
  const cl_int4 chroma = { { (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (oi, 1),
          GST_VIDEO_INFO_PLANE_STRIDE (oi, 1), (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (oi, 2),
          GST_VIDEO_INFO_PLANE_STRIDE (oi, 2) } };
  const CameraParams &p = *c->params;
  return gstcl::set_args (k, gstcl::set_frame_args (k, 0, in, out), (cl_int) f.maxv, f.layout,
      p.black, p.gain, p.mat, p.tf, f.yuv, chroma, (cl_int) c->gather, p.lo, p.hi,
      *c->counters);
}

/* A launch that gathers statistics does more work than one that does not,
 * and only some frames gather: profiled apart. */
static const char *
profile_as (const CameraLaunch * c)
{
  return c->gather ? " statistics" : nullptr;
}

static int
width_of (const GstClFrame * frame)
{
  return GST_VIDEO_INFO_WIDTH (&frame->info);
}

static int
height_of (const GstClFrame * frame)
{
  return GST_VIDEO_INFO_HEIGHT (&frame->info);
}

/* ---- the exact blocks (GPUs): exact.cl ---- */

static bool
blocks_run (const Format &, const Settings &, const GstClFrame *, const GstClFrame *)
{
  return true;
}

/* Pool buffers at common widths qualify for the aligned variant; padded
 * GstVideoMeta layouts and odd widths take the general one. */
static std::string
blocks_options (const Format & f, const Settings & s, const GstClFrame *, const GstClFrame *,
    Variant * v)
{
  return method_options (f, s) +
      (v->aligned ? " -D ALIGNED=1" + number ("PHASE_X", f.phase_x) : "");
}

/* One work-item per 8x2 block of pixels, RGGB-aligned in the general
 * variant, 8-column-aligned in the aligned one (see exact.cl). */
static void
blocks_launch (GstClContext * ctx, cl::Kernel * k, const Format & f, const Variant & v,
    const GstClFrame * in, const GstClFrame * out, const CameraLaunch *)
{
  set_exact_args (k[0], f, in, out);
  const int shift_x = v.aligned ? 0 : f.phase_x;
  gstcl::enqueue_2d (ctx, k[0], (width_of (out) + shift_x + 7) / 8,
      (height_of (out) + f.phase_y + 1) / 2);
}

/* ---- the exact cells (CPUs): cells.cl ---- */

static bool
cells_run (const Format & f, const Settings & s, const GstClFrame *, const GstClFrame * out)
{
  return f.cpu && !f.out_yuv && !s.camera_stages () && s.method != METHOD_MENON &&
      cells_fit (f, out);
}

static std::string
cells_options (const Format & f, const Settings & s, const GstClFrame *, const GstClFrame *,
    Variant *)
{
  return method_options (f, s);
}

/* The interior columns of the cells kernels: from the first R column
 * x0 >= 2 (RGGB's parity) up to width - 3, an even count (debayer_cells's
 * last work-group and debayer_cells16's last work-item move back by an
 * even count); none below 0. */
static int
cells_x0 (const Format & f)
{
  return 2 + f.phase_x;
}

static int
cells_nx (const Format & f, const GstClFrame * out)
{
  return std::max (0, (width_of (out) - 2 - cells_x0 (f)) & ~1);
}

/* debayer_cells over the interior, where the 5 x 5 windows lie inside the
 * image (none when it is narrower or lower than a work-group), and
 * debayer_edge over the rest: the columns outside the interior of each row
 * pair (2 or 3 at each end) and the row pairs above and below it. */
static void
cells_launch (GstClContext * ctx, cl::Kernel * k, const Format & f, const Variant &,
    const GstClFrame * in, const GstClFrame * out, const CameraLaunch *)
{
  const int width = width_of (out), height = height_of (out);
  const int py = f.phase_y, nby = (height + py + 1) / 2;
  const int x0 = cells_x0 (f), nx = cells_nx (f, out);
  /* row pairs (2 by - py, 2 by - py + 1) with 2 by - py >= 2 and
   * 2 by - py + 3 < height */
  int xa = 0, xb = 0, by0 = (3 + py) / 2, by1 = height - 4 + py >= 0 ? (height - 4 + py) / 2 + 1 : 0;
  if (nx >= kCellsLx && by1 - by0 >= kCellsLy) {
    xa = x0;
    xb = x0 + nx;
    gstcl::set_args (k[0], set_exact_args (k[0], f, in, out), (cl_int) x0,
        (cl_int) (2 * by0 - py), (cl_int) nx, (cl_int) (by1 - by0));
    gstcl::enqueue_2d (ctx, k[0], nx, by1 - by0, kCellsLx, kCellsLy);
  } else {
    by0 = by1 = 0;
  }
  gstcl::set_args (k[1], set_exact_args (k[1], f, in, out), (cl_int) xa, (cl_int) xb,
      (cl_int) by0, (cl_int) by1);
  const int places = (by0 + nby - by1) * width + (xa + width - xb) * (by1 - by0);
  gstcl::enqueue_2d (ctx, k[1], places, 1, 64, 1);
}

/* 8-bit samples into 4 channels of 8 bits, 16 interior columns or more:
 * debayer_cells16, one launch over every row pair. */
static bool
cells16_run (const Format & f, const Settings & s, const GstClFrame * in, const GstClFrame * out)
{
  return cells_run (f, s, in, out) && !f.in16 && f.out_rgba8 && cells_nx (f, out) >= 16;
}

static std::string
cells16_options (const Format & f, const Settings & s, const GstClFrame *, const GstClFrame *,
    Variant *)
{
  return method_options (f, s) + number ("CELLS16_W", kCells16W);
}

static void
cells16_launch (GstClContext * ctx, cl::Kernel * k, const Format & f, const Variant &,
    const GstClFrame * in, const GstClFrame * out, const CameraLaunch *)
{
  const int nx = cells_nx (f, out);
  gstcl::set_args (k[0], set_exact_args (k[0], f, in, out), (cl_int) cells_x0 (f), (cl_int) nx);
  gstcl::enqueue_2d (ctx, k[0], (nx + kCells16W - 1) / kCells16W,
      (height_of (out) + f.phase_y + 1) / 2, kCells16Lx, kCells16Ly);
}

/* ---- the camera stages in 8 x 2 blocks (GPUs): camera.cl ---- */

static bool
camera_run (const Format & f, const Settings & s, const GstClFrame *, const GstClFrame *)
{
  return !f.cpu && (f.out_yuv || s.camera_stages ()) && s.method != METHOD_MENON;
}

/* 8 x 2 blocks a work-item (a cells shape like the plain demosaic's
 * measured slower on PoCL); x^y from the special function units. */
static std::string
camera_options (const Format & f, const Settings & s, const GstClFrame *, const GstClFrame *,
    Variant * v)
{
  return camera_base_options (f, s) +
      number ("PHASE_X", f.phase_x) + number ("PHASE_Y", f.phase_y) +
      number ("CAMERA_LX", kCameraLx) + number ("CAMERA_LY", kCameraLy) +
      number ("CAMERA_ROWS", kCameraRows) + (v->aligned ? " -D ALIGNED=1" : "") +
      f.device_options + (f.maxv < 32768 ? " -D IN_15=1" : "");
}

/* A band of debayer_camera: whole work-groups of rows, and whole strips of
 * the sensor pass (the engine's run_sensor). */
static const int kCameraBandRows = kCameraLy * kCameraRows;
static_assert (kCameraBandRows % kSensorStrip == 0, "bands of whole sensor-pass strips");

static void
camera_launch (GstClContext * ctx, cl::Kernel * k, const Format & f, const Variant &,
    const GstClFrame * in, const GstClFrame * out, const CameraLaunch * c)
{
  set_camera_args (k[0], f, in, out, c);
  const int end = c->row_end < 0 ? height_of (out) : c->row_end;
  gstcl::enqueue_2d_rows (ctx, k[0], (width_of (out) + 7) / 8, c->row_begin / kCameraRows,
      (end + kCameraRows - 1) / kCameraRows, kCameraLx, kCameraLy, profile_as (c));
}

/* ---- menon in local-memory tiles (GPUs): menon.cl ---- */

static bool
menon_run (const Format & f, const Settings & s, const GstClFrame *, const GstClFrame *)
{
  return !f.cpu && s.method == METHOD_MENON;
}

/* The local memory of debayer_menon built for `m` (menon.cl's arrays: per
 * cell 8 floats and a byte, step 2's floats shared with the statistics'
 * sums, and in the `staged` build the tile's R, G, B), with a margin. */
static size_t
menon_local_bytes (const MenonShape & m, bool staged)
{
  const size_t cells = (size_t) (m.w / 2 + 9) * (m.h / 2 + 9);
  const size_t sums = std::max (2 * cells, (size_t) 4 * kMenonLx * m.ly) / 4 + 1;
  return 8 * sizeof (float) * cells + 4 * sizeof (cl_uint) * sums + cells +
      (staged ? 3 * sizeof (float) * m.w * m.h : 0) + 256;
}

/* One kernel over local-memory tiles, in float, with the camera stages (at
 * their defaults: none) on every device. RGB formats are written by each
 * work-item's cells (4-channel ones as words: 4-byte rows), not through
 * local memory and 8 x 2 blocks (2.5x slower than the blocks on PoCL). */
static std::string
menon_options (const Format & f, const Settings & s, const GstClFrame *, const GstClFrame * out,
    Variant * v)
{
  const bool pixels = !f.cpu && !f.out_yuv && cells_fit (f, out);
  v->menon = menon_local_bytes (kMenonShape, !pixels) <= f.local_mem ? kMenonShape : kMenonSmall;
  const MenonShape &m = v->menon;
  return camera_base_options (f, s) + " -D PHASE_X=0" +
      (v->aligned ? " -D ALIGNED=1" : "") + f.device_options + number ("MT_W", m.w) +
      number ("MT_H", m.h) + number ("MT_RUN1", m.run1) + number ("MT_RUN", m.run) +
      number ("MT_RUN3", m.run3) + number ("MENON_LY", m.ly) +
      /* no matrix, saturation or curve: the output stage only scales (the
       * same values, fewer registers) */
      (s.colour_stages () ? "" : " -D MENON_COLOUR=0") + (pixels ? " -D MENON_PIXELS=1" : "");
}

static void
menon_launch (GstClContext * ctx, cl::Kernel * k, const Format & f, const Variant & v,
    const GstClFrame * in, const GstClFrame * out, const CameraLaunch * c)
{
  /* the pattern (the camera kernel has it built in) */
  gstcl::set_args (k[0], set_camera_args (k[0], f, in, out, c), (cl_int) f.phase_x,
      (cl_int) f.phase_y);
  const MenonShape &m = v.menon;
  gstcl::enqueue_2d (ctx, k[0], (width_of (out) + m.w - 1) / m.w * kMenonLx,
      (height_of (out) + m.h - 1) / m.h * m.ly, kMenonLx, m.ly, profile_as (c));
}

/* ---- menon as a row pipeline down strips (CPUs): menon_cpu.cl ---- */

static bool
menon_cpu_run (const Format & f, const Settings & s, const GstClFrame *, const GstClFrame *)
{
  return f.cpu && s.method == METHOD_MENON;
}

static std::string
menon_cpu_options (const Format & f, const Settings & s, const GstClFrame *, const GstClFrame *,
    Variant * v)
{
  return camera_base_options (f, s) + " -D PHASE_X=0" +
      (v->aligned ? " -D ALIGNED=1" : "") + number ("MC_CHUNKS", f.menon_chunks);
}

static void
menon_cpu_launch (GstClContext * ctx, cl::Kernel * k, const Format & f, const Variant &,
    const GstClFrame * in, const GstClFrame * out, const CameraLaunch * c)
{
  const int strip_width = f.menon_strip_width, strip = f.menon_strip;
  gstcl::set_args (k[0], set_camera_args (k[0], f, in, out, c), (cl_int) f.phase_x,
      (cl_int) f.phase_y, (cl_int) strip, (cl_int) !c->stages);
  gstcl::enqueue_2d (ctx, k[0], (width_of (out) + strip_width - 1) / strip_width,
      (height_of (out) + strip - 1) / strip, 1, 1, profile_as (c));
}

/* ---- the camera stages in strips (CPUs): camera_cpu.cl ---- */

static bool
camera_cpu_run (const Format & f, const Settings & s, const GstClFrame *, const GstClFrame *)
{
  return f.cpu && (f.out_yuv || s.camera_stages ()) && s.method != METHOD_MENON &&
      !s.sensor_pass ();
}

/* One work-item a strip of columns, explicit float8 SIMD; x^y from plain
 * arithmetic (pow_unit) */
static std::string
camera_cpu_options (const Format & f, const Settings & s, const GstClFrame *, const GstClFrame *,
    Variant * v)
{
  return camera_base_options (f, s) +
      number ("PHASE_X", f.phase_x) + number ("PHASE_Y", f.phase_y) +
      number ("CC_CHUNKS", kCameraCpuChunks) + (v->aligned ? " -D ALIGNED=1" : "");
}

static void
camera_cpu_launch (GstClContext * ctx, cl::Kernel * k, const Format & f, const Variant &,
    const GstClFrame * in, const GstClFrame * out, const CameraLaunch * c)
{
  gstcl::set_args (k[0], set_camera_args (k[0], f, in, out, c), (cl_int) f.camera_strip);
  const int strip_width = 16 * kCameraCpuChunks;
  gstcl::enqueue_2d (ctx, k[0], (width_of (out) + strip_width - 1) / strip_width,
      (height_of (out) + f.camera_strip - 1) / f.camera_strip, 1, 1, profile_as (c));
}

/* ---- the same with the sensor stages inside (CPUs): camera_sensor_cpu.cl ---- */

static bool
camera_sensor_cpu_run (const Format & f, const Settings & s, const GstClFrame *,
    const GstClFrame *)
{
  return f.cpu && s.sensor_pass () && s.method != METHOD_MENON;
}

/* f: the raw frame's format (the kernel reads it); the camera arguments'
 * full scale is that of the words where the samples are corrected (the
 * engine's camera format). */
static void
camera_sensor_cpu_launch (GstClContext * ctx, cl::Kernel * k, const Format & f, const Variant &,
    const GstClFrame * in, const GstClFrame * out, const CameraLaunch * c)
{
  const SensorParams &p = *c->sensor;
  gstcl::set_args (k[0], set_camera_args (k[0], f, in, out, c), (cl_int) f.camera_strip,
      p.maxv, p.black, p.defect, p.threshold, *c->shading, p.grid, p.scale, p.mid_max, p.lo,
      p.hi, p.wb);
  const int strip_width = 16 * kCameraCpuChunks;
  gstcl::enqueue_2d (ctx, k[0], (width_of (out) + strip_width - 1) / strip_width,
      (height_of (out) + f.camera_strip - 1) / f.camera_strip, 1, 1, profile_as (c));
}

int
camera_cpu_strip_width ()
{
  return 16 * kCameraCpuChunks;
}

/* The table, by Kind. choose_row takes the first row that runs, in the
 * order of `kOrder`. */
static const Row kRows[N_KINDS] = {
  /* kind, entry points, files, camera, full_scale_unit, sensor pass, band
   *     rows, runs, fits_aligned, options, launch */
  {KIND_BLOCKS, {"debayer", nullptr}, kExactFiles, false, false, SENSOR_NONE, 0,
        blocks_run, rgb_aligned, blocks_options, blocks_launch},
  {KIND_CELLS, {"debayer_cells", "debayer_edge"}, kCellsFiles, false, false, SENSOR_NONE, 0,
        cells_run, never_aligned, cells_options, cells_launch},
  {KIND_CAMERA, {"debayer_camera", nullptr}, kCameraFiles, true, true, SENSOR_PASS_GPU,
        kCameraBandRows, camera_run, camera_aligned, camera_options, camera_launch},
  {KIND_MENON, {"debayer_menon", nullptr}, kMenonFiles, true, false, SENSOR_PASS_GPU, 0,
        menon_run, camera_aligned, menon_options, menon_launch},
  {KIND_MENON_CPU, {"debayer_menon_cpu", nullptr}, kMenonCpuFiles, true, false,
        SENSOR_PASS_CPU, 0, menon_cpu_run, camera_aligned, menon_cpu_options, menon_cpu_launch},
  {KIND_CAMERA_CPU, {"debayer_camera_cpu", nullptr}, kCameraCpuFiles, true, true, SENSOR_NONE, 0,
        camera_cpu_run, camera_aligned, camera_cpu_options, camera_cpu_launch},
  {KIND_CAMERA_SENSOR_CPU, {"debayer_camera_sensor_cpu", nullptr}, kCameraCpuFiles, true, true,
        SENSOR_INSIDE, 0, camera_sensor_cpu_run, camera_aligned, camera_cpu_options,
        camera_sensor_cpu_launch},
  {KIND_CELLS16, {"debayer_cells16", nullptr}, kCellsFiles, false, false, SENSOR_NONE, 0,
        cells16_run, never_aligned, cells16_options, cells16_launch},
};
static const Kind kOrder[] = { KIND_MENON_CPU, KIND_MENON, KIND_CAMERA_SENSOR_CPU,
  KIND_CAMERA_CPU, KIND_CAMERA, KIND_CELLS16, KIND_CELLS, KIND_BLOCKS };

const Row &
row_of (Kind kind)
{
  return kRows[kind];
}

const Row &
choose_row (const Format & f, const Settings & s, const GstClFrame * in, const GstClFrame * out)
{
  for (Kind kind : kOrder)
    if (kRows[kind].runs (f, s, in, out))
      return kRows[kind];
  return kRows[KIND_BLOCKS];
}

}  // namespace cldebayer
