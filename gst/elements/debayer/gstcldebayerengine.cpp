/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcldebayerengine.hpp"

#include <gst/opencl/gstclcolor.hpp>
#include <gst/opencl/gstclframe.hpp>
#include <gst/opencl/gstclpixel.hpp>
#include <gst/opencl/gstclvideo.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <stdexcept>

GST_DEBUG_CATEGORY_EXTERN (gst_cl_debayer_debug);
#define GST_CAT_DEFAULT gst_cl_debayer_debug

namespace cldebayer {

/* debayer_menon_cpu: a work-group of one work-item computes a strip of
 * 16 (chunks - 1) columns (menon_cpu.cl's MC_CHUNKS), walking down its rows
 * from 12 above it; its rings take 14 x 16 x 32 bytes a chunk and two
 * more. kMenonCpuChunks where the device's local memory holds them (CPUs:
 * it is their cache), else fewer (GPUs under the CPU tuning, tests). */
static const int kMenonCpuChunks = 16;

/* debayer_denoise's work-items: a column of kDenoiseRun cells (denoise.cl's
 * DN_RUN) each, in groups of kDenoiseLx x kDenoiseLy (DN_LX, DN_LY); on
 * CPUs (debayer_denoise_cpu) kDenoiseCpuW columns of it (DN_CPU_W) a
 * work-item, kDenoiseCpuLx a group (fewer groups for PoCL to hand out;
 * faster in the noisy runs measured); the margin of cells a cell's filter
 * reads (DN_H). */
static const int kDenoiseRun = 8, kDenoiseLx = 32, kDenoiseLy = 4, kDenoiseMargin = 3;
static const int kDenoiseCpuW = 8, kDenoiseCpuLx = 4;
/* debayer_denoise's local memory: x and u (float4 each) of its
 * work-group's cells and their margin (denoise.cl's DN_TW x DN_TH) */
static const size_t kDenoiseTileBytes = 2 * sizeof (cl_float4) *
    (kDenoiseLx + 2 * kDenoiseMargin) * (kDenoiseLy * kDenoiseRun + 2 * kDenoiseMargin);

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

/* The full scale of `bits` and the exact output scaling: floor (q / maxv)
 * == (q * mul) >> shift for q < 2^30 when mul = ceil (2^(30 + bits) /
 * maxv) (Granlund-Montgomery, since maxv < 2^bits). */
static void
set_bits (Format * f, int bits)
{
  f->maxv = (1 << bits) - 1;
  f->scale_shift = 30 + bits;
  f->scale_mul = (cl_uint) (((1ull << f->scale_shift) + f->maxv - 1) / f->maxv);
}

void
Engine::set_format (GstClContext * ctx, GstCaps * incaps, const GstVideoInfo * in_info,
    const GstVideoInfo * out_info)
{
  Format &f = format_;
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
  f.phase_x = phase[pattern][0];
  f.phase_y = phase[pattern][1];
  set_bits (&f, bits);
  /* The output pixel's shape (OUT_CH, OUT_SAMPLE, OUT_YUV, ...) as -D
   * options, where its channels go as an argument (one program for every
   * channel order). */
  const gstcl::PixelLayout px = gstcl::pixel_layout (out_info);
  f.layout = px.order ();
  f.out_yuv = px.yuv;
  f.options = std::string (" -D IN_16=") + (bits > 8 ? "1" : "0") + px.size_options ("OUT");
  f.in16 = bits > 8;
  f.yuv = gstcl::yuv_coefficients (out_info);
  if (f.out_yuv) {
    /* camera_output's chroma factors (output.cl): C scale / (8 (1 - K))
     * for Kb and Kr, and 1 / (Y scale) */
    const double kr = f.yuv.s[0], kb = f.yuv.s[1], ys = f.yuv.s[3], cs = f.yuv.s[4];
    f.yuv.s[5] = (float) (cs * 0.125 / (1 - kb));
    f.yuv.s[6] = (float) (cs * 0.125 / (1 - kr));
    f.yuv.s[7] = (float) (1 / ys);
  }
  /* 4-channel output (alpha or padding included) */
  f.can_align = GST_VIDEO_INFO_FORMAT (out_info) == GST_VIDEO_FORMAT_RGBA64_LE ||
      GST_VIDEO_INFO_COMP_PSTRIDE (out_info, 0) == 4;
  f.out_words = f.can_align;
  f.out_rgba8 = GST_VIDEO_INFO_COMP_PSTRIDE (out_info, 0) == 4;
  /* The CPU shapes on CPUs, the GPU ones elsewhere; GST_OPENCL_TUNING=cpu|gpu
   * forces one (tests). */
  f.cpu = !gstcl::tuned_for_gpu (ctx);
  const cl::Device &device = gstcl::device_of (ctx);
  f.device_options = f.cpu ? "" : gpu_options (device);
  f.local_mem = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE> ();
  f.denoise_planes = f.cpu || kDenoiseTileBytes > f.local_mem;
  f.menon_chunks = menon_cpu_chunks (f.local_mem);
  f.menon_strip_width = 16 * (f.menon_chunks - 1);
  const int units = (int) device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS> ();
  f.menon_strip = cpu_strip_rows (units, f.menon_strip_width, width, height);
  f.camera_strip = cpu_strip_rows (units, camera_cpu_strip_width (), width, height);

  /* The words of the denoise and the sensor pass: 16-bit, full scale
   * 2^15 - 1 (the camera kernels' fast input), 2^16 - 1 for 16-bit output
   * (its rounding then stays within half an output step). */
  words_ = f;
  set_bits (&words_, px.size_options ("OUT").find ("OUT_SAMPLE=2") != std::string::npos ?
      16 : 15);
  words_.in16 = true;
  words_.options = " -D IN_16=1" + px.size_options ("OUT");
  corrected_mem_ = denoised_mem_ = planes_mem_ = cl::Buffer ();
  gst_video_info_set_format (&corrected_frame_.info, GST_VIDEO_FORMAT_GRAY16_LE, width, height);
  /* rows of whole 8 x 2 blocks (the pass stores them whole), on 16 bytes */
  corrected_frame_.info.stride[0] = (width + 7) / 8 * 16;
  corrected_frame_.info.offset[0] = 0;
  corrected_frame_.mem = nullptr;
  denoised_frame_ = corrected_frame_;

  /* New formats: nothing built runs them (a build under way is waited for). */
  build_.cancel ();
  for (auto &kind : kernels_)
    for (Kernels &k : kind)
      k = Kernels ();
  running_ = building_ = Variant ();
  GST_DEBUG ("%s shapes", f.cpu ? "CPU" : "GPU");
}

/* The source of a row's program: its files in order, made once. */
static const std::string &
source_of (Kind kind)
{
  static std::string sources[N_KINDS];
  static std::once_flag once[N_KINDS];
  std::call_once (once[kind], [kind] {
        for (const char *const *file = row_of (kind).sources; *file; file++)
          sources[kind] += *file;
      });
  return sources[kind];
}

bool
Engine::built (const Variant & v) const
{
  return !v.options.empty () && kernels_[v.kind][v.aligned].options == v.options;
}

/* Whether `v` can run these frames: its ALIGNED build only on frames that
 * its row's alignment rule admits. */
bool
Engine::fits (const Variant & v, const GstClFrame * in, const GstClFrame * out) const
{
  return !v.aligned || (reads_corrected (v) ?
      row_of (v.kind).fits_aligned (words_, &corrected_frame_, out) :
      row_of (v.kind).fits_aligned (base (v), base_frame (v, in), out));
}

/* A frame of words, made in the frame's context on first use. */
static void
ensure_words (GstClContext * ctx, cl::Buffer * mem, GstClFrame * frame)
{
  if ((*mem) ())
    return;
  const GstVideoInfo *info = &frame->info;
  *mem = cl::Buffer (gstcl::context_of (ctx), CL_MEM_READ_WRITE,
      (size_t) GST_VIDEO_INFO_PLANE_STRIDE (info, 0) * ((GST_VIDEO_INFO_HEIGHT (info) + 1) & ~1));
  frame->mem = (*mem) ();
}

/* The sensor pass's result. */
void
Engine::ensure_corrected (GstClContext * ctx)
{
  ensure_words (ctx, &corrected_mem_, &corrected_frame_);
}


/* The denoise's words, and on CPUs its planes: x and u of every
 * work-item's cells and their margin (denoise.cl; on GPUs a work-group
 * makes its own in local memory). */
void
Engine::ensure_denoised (GstClContext * ctx)
{
  ensure_words (ctx, &denoised_mem_, &denoised_frame_);
  if (planes_mem_ () || !format_.denoise_planes)
    return;
  const GstVideoInfo *info = &denoised_frame_.info;
  const int cw = (GST_VIDEO_INFO_WIDTH (info) + 1) / 2;
  const int ch = (GST_VIDEO_INFO_HEIGHT (info) + 1) / 2;
  planes_w_ = (cw + kDenoiseLx - 1) / kDenoiseLx * kDenoiseLx + 2 * kDenoiseMargin;
  planes_h_ = (ch + kDenoiseRun - 1) / kDenoiseRun * kDenoiseRun + 2 * kDenoiseMargin;
  planes_mem_ = cl::Buffer (gstcl::context_of (ctx), CL_MEM_READ_WRITE,
      sizeof (cl_float4) * 2 * planes_w_ * planes_h_);
}

void
Engine::use (const Variant & v, const cl::Program & program)
{
  const Row &row = row_of (v.kind);
  Kernels &slot = kernels_[v.kind][v.aligned];
  for (int i = 0; i < 2; i++)
    slot.k[i] = row.entries[i] ? cl::Kernel (program, row.entries[i]) : cl::Kernel ();
  slot.sensor = row.sensor == SENSOR_PASS_GPU ? cl::Kernel (program, "debayer_sensor") :
      row.sensor == SENSOR_PASS_CPU ? cl::Kernel (program, "debayer_sensor_cpu") : cl::Kernel ();
  /* the denoise's CPU shape (also GPUs short of local memory for the
   * tile): planes of floats first, float8 rows (denoise.cl) */
  const bool planes = format_.denoise_planes;
  slot.prep = v.denoise && planes ? cl::Kernel (program, "debayer_denoise_prep_cpu") :
      cl::Kernel ();
  slot.denoise = v.denoise ? cl::Kernel (program, planes ? "debayer_denoise_cpu" :
      "debayer_denoise") : cl::Kernel ();
  slot.options = v.options;
  running_ = v;
  GST_DEBUG ("kernel variant%s", v.options.c_str ());
}

void
Engine::plan (GstElement * element, GstClContext * ctx, const Settings & s,
    const GstClFrame * in, const GstClFrame * out)
{
  Variant v;
  v.denoise = s.denoises ();
  v.sensor = s.sensor_pass ();
  v.corrected = s.corrects ();
  if (v.denoise)
    ensure_denoised (ctx);
  /* a row that does the sensor stages itself reads the input (or the
   * denoised words) */
  const Row &own = choose_row (base (v), s, base_frame (v, in), out);
  v.inside = v.sensor && own.sensor == SENSOR_INSIDE;
  if (reads_corrected (v))
    ensure_corrected (ctx);
  /* what the camera kernel reads */
  const Format &f = reads_corrected (v) ? words_ : base (v);
  const GstClFrame *read = reads_corrected (v) ? &corrected_frame_ : base_frame (v, in);
  const Row &row = v.inside ? own : choose_row (f, s, read, out);
  v.kind = row.kind;
  v.aligned = row.fits_aligned (f, read, out);
  v.options = row.options (f, s, read, out, &v) + (!v.denoise ? "" :
      f.denoise_planes ? " -D DENOISE=1" : " -D DENOISE=1 -D DN_TILE=1");
  if (built (v)) {
    running_ = v;
    return;
  }
  const std::string &source = source_of (v.kind);
  cl::Program program;
  if (build_.pending () && building_.options == v.options && build_.ready ())
    program = build_.take ();
  if (!program ())
    program = gstcl::cached_program (ctx, source, v.options);
  if (!program ()) {
    /* A change while playing: the variant of the last frame runs the
     * frames until `v` is built. */
    if (built (running_) && fits (running_, in, out)) {
      if (!build_.pending () || building_.options != v.options) {
        build_.start (element, ctx, source, v.options, "cldebayer");
        building_ = v;
      }
      return;
    }
    program = gstcl::program (ctx, source, v.options);
  }
  use (v, program);
}

/* debayer_sensor_cpu's strips (its SC_STRIP_W) and their row pairs at most
 * (32: the zone sums of a work-item stay below 2^32) */
static const int kSensorCpuStrip = 128, kSensorCpuPairs = 32;

/* debayer_sensor over rows row_begin .. row_end (column pairs down strips
 * of kSensorStrip rows, groups of kSensorLx; debayer_sensor_cpu's strips
 * before menon's CPU kernel over the whole frame), gathering the
 * statistics when c->gather. */
void
Engine::run_sensor (GstClContext * ctx, const GstClFrame * in, const CameraLaunch * c,
    int row_begin, int row_end)
{
  cl::Kernel &k = kernels_[running_.kind][running_.aligned].sensor;
  const SensorParams &p = *c->sensor;
  const int width = GST_VIDEO_INFO_WIDTH (&in->info), height = GST_VIDEO_INFO_HEIGHT (&in->info);
  const bool write = running_.corrected;
  /* without a result to write, any buffer stands for it */
  const cl::Buffer &dst = write ? corrected_mem_ : *c->counters;
  gstcl::set_args (k, 0, in->mem, (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (&in->info, 0),
      (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&in->info, 0), (cl_int) base (running_).in16, dst,
      (cl_int) (GST_VIDEO_INFO_PLANE_STRIDE (&corrected_frame_.info, 0) / 2), (cl_int) width,
      (cl_int) height, p.maxv, p.black, (cl_int) format_.phase_x, (cl_int) format_.phase_y,
      p.defect, p.threshold, *c->shading, p.grid, p.scale, (cl_int) write, p.mid_max,
      (cl_int) c->gather, p.lo, p.hi, p.wb, *c->counters);
  const char *profile = c->gather ? " statistics" : nullptr;
  if (row_of (running_.kind).sensor == SENSOR_PASS_CPU) {
    /* sensor_cpu.cl: strips of kSensorCpuStrip columns by runs of at most
     * kSensorCpuPairs row pairs, a work-item each */
    const int pairs = (height + 1) / 2;
    gstcl::enqueue_2d (ctx, k, (width + kSensorCpuStrip - 1) / kSensorCpuStrip,
        (pairs + kSensorCpuPairs - 1) / kSensorCpuPairs, 1, 1, profile);
    return;
  }
  const int end = row_end < 0 ? height : row_end;
  gstcl::enqueue_2d_rows (ctx, k, (width + 1) / 2, row_begin / kSensorStrip,
      (end + kSensorStrip - 1) / kSensorStrip, kSensorLx, 1, profile);
}

/* The denoise into its words over what `ready` rows of the raw frame allow
 * (all of it once `ready` is its height), after the cell rows that *cells
 * says are done (a frame in bands calls it for each band); returns the
 * rows of denoised words complete. A cell reads the cells kDenoiseMargin
 * around its own, mirrored at the frame's edges (so only a whole frame
 * completes the last ones). GPUs: one launch, its work-groups making their
 * cells' x and u in local memory. CPUs: debayer_denoise_prep_cpu first,
 * whose planes' row c + kDenoiseMargin holds cell row c, the rows above it
 * mirroring cells 1 .. kDenoiseMargin and those below the last cells
 * (*planes: their rows done), then debayer_denoise_cpu from them. Launches
 * end on whole work-groups of rows but for the last. */
int
Engine::run_denoise (GstClContext * ctx, const GstClFrame * in, const DenoiseParams & p,
    int ready, int * planes, int * cells)
{
  Kernels &slot = kernels_[running_.kind][running_.aligned];
  const int width = GST_VIDEO_INFO_WIDTH (&in->info), height = GST_VIDEO_INFO_HEIGHT (&in->info);
  const int cw = (width + 1) / 2, ch = (height + 1) / 2;
  const cl_int in_offset = GST_VIDEO_INFO_PLANE_OFFSET (&in->info, 0);
  const cl_int in_stride = GST_VIDEO_INFO_PLANE_STRIDE (&in->info, 0);
  const cl_int words_stride = GST_VIDEO_INFO_PLANE_STRIDE (&denoised_frame_.info, 0) / 2;
  const int ready_cells = ready / 2;
  if (!format_.denoise_planes) {
    const int group = kDenoiseRun * kDenoiseLy;
    const int to = ready >= height ? ch :
        std::max (0, ready_cells - kDenoiseMargin) / group * group;
    if (to > *cells) {
      gstcl::set_args (slot.denoise, 0, in->mem, in_offset, in_stride, (cl_int) format_.in16,
          denoised_mem_, words_stride, (cl_int) width, (cl_int) height, p.maxv, p.black,
          p.ustep, p.inv_h2, (cl_float) words_.maxv);
      gstcl::enqueue_2d_rows (ctx, slot.denoise, cw, *cells / kDenoiseRun,
          (to + kDenoiseRun - 1) / kDenoiseRun, kDenoiseLx, kDenoiseLy);
      *cells = to;
    }
    return *cells >= ch ? height : 2 * *cells;
  }
  int to = ready >= height ? planes_h_ : ready_cells > kDenoiseMargin ?
      ready_cells + kDenoiseMargin : 0;
  if (to > *planes) {
    gstcl::set_args (slot.prep, 0, in->mem, in_offset, in_stride, (cl_int) format_.in16,
        planes_mem_, (cl_int) planes_w_, (cl_int) planes_h_, (cl_int) width, (cl_int) height,
        p.maxv, p.black, p.ustep);
    /* 8 cells of a row a work-item */
    gstcl::enqueue_2d_rows (ctx, slot.prep, (planes_w_ + 7) / 8, *planes, to, kDenoiseCpuLx, 1);
    *planes = to;
  }
  to = *planes >= planes_h_ ? ch :
      std::max (0, *planes - 2 * kDenoiseMargin) / kDenoiseRun * kDenoiseRun;
  if (to > *cells) {
    gstcl::set_args (slot.denoise, 0, planes_mem_, (cl_int) planes_w_, (cl_int) planes_h_,
        denoised_mem_, words_stride, (cl_int) width, (cl_int) height, p.inv_h2,
        (cl_float) words_.maxv);
    gstcl::enqueue_2d_rows (ctx, slot.denoise, (cw + kDenoiseCpuW - 1) / kDenoiseCpuW,
        *cells / kDenoiseRun, (to + kDenoiseRun - 1) / kDenoiseRun, kDenoiseCpuLx, 1);
    *cells = to;
  }
  return *cells >= ch ? height : 2 * *cells;
}

int
Engine::band_rows () const
{
  const int rows = row_of (running_.kind).band_rows;
  /* with the denoise: whole work-groups of its rows too (kDenoiseRun x
   * kDenoiseLy cells of 2 rows) */
  return running_.denoise && rows > 0 ? std::lcm (rows, 2 * kDenoiseRun * kDenoiseLy) : rows;
}

int
Engine::band_launches () const
{
  return 1 + (running_.sensor && !running_.inside ? 1 : 0) +
      (running_.denoise ? (format_.denoise_planes ? 2 : 1) : 0);
}

/* The rows below `ready` rows of a pass's input that a pass of 2 rows of
 * margin (the 5 x 5 window of the demosaic and of the defect test) can
 * compute, in whole bands of `rows`: all where the input is whole. */
static int
rows_from (int ready, int height, int rows)
{
  return ready >= height ? height : std::max (0, (ready - 2) / rows * rows);
}

void
Engine::run (GstClContext * ctx, const GstClFrame * in, const GstClFrame * out,
    const CameraLaunch * camera, gstcl::Bands * bands, bool marks_output,
    const std::function<int (int)> &after)
{
  const int height = GST_VIDEO_INFO_HEIGHT (&in->info);
  /* bands for the camera kernel (and the passes around it) only; else the
   * whole input first, and the frame as one band */
  const int rows = camera ? band_rows () : 0;
  if (bands && rows == 0)
    bands->wait_input (ctx, height);
  const std::vector<int> whole { height };
  const std::vector<int> &ends = bands && rows > 0 ? bands->input_ends () : whole;
  const GstClFrame *raw = in;
  const bool denoise = running_.denoise && camera && camera->denoise;
  if (denoise)
    in = &denoised_frame_;
  /* each band: the denoise over the rows it can take, the sensor pass over
   * the rows it can correct, the camera kernel over the rows whose input is
   * complete, then what follows it (`after`) */
  const bool pass = running_.sensor && !running_.inside && camera && camera->sensor;
  CameraLaunch c = camera ? *camera : CameraLaunch ();
  if (pass)
    c.gather = false;   /* the statistics are the sensor pass's */
  const Row &row = row_of (running_.kind);
  /* the camera arguments' full scale: the words' where corrected */
  const bool corrected = reads_corrected (running_);
  int corrected_rows = pass ? 0 : height, done = 0, planes = 0, cells = 0;
  for (int end : ends) {
    if (ends.size () > 1)
      bands->wait_input (ctx, end);
    int ready = end;
    if (denoise)
      ready = run_denoise (ctx, raw, *camera->denoise, ready, &planes, &cells);
    if (pass) {
      const int to = rows_from (ready, height, rows);
      if (to > corrected_rows) {
        run_sensor (ctx, in, camera, corrected_rows, to);
        corrected_rows = to;
      }
      ready = corrected_rows;
    }
    const int to = rows_from (ready, height, rows);
    if (to <= done)
      continue;
    c.row_begin = done;
    c.row_end = to;
    row.launch (ctx, kernels_[running_.kind][running_.aligned].k,
        running_.corrected ? words_ : base (running_), running_,
        corrected ? &corrected_frame_ : in, out, camera ? &c : nullptr);
    done = to;
    const int complete = after ? after (done) : done;
    /* the last band's reads come after what the element queues after the
     * kernels (the statistics' read back: the next frame may wait for it,
     * as it did with the frame's download on one queue) */
    if (bands && marks_output && complete > 0 && complete < height)
      bands->done (ctx, complete, gstcl::take_last_launch ());
  }
}

bool
Engine::camera () const
{
  return row_of (running_.kind).camera;
}

double
Engine::unit () const
{
  return row_of (running_.kind).full_scale_unit ? camera_maxv () : 1;
}

}  // namespace cldebayer
