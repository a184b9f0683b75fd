/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cases.h"
#include "farm.h"

#include <gst/gst.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace bench {

/* "<a,b,...>" of the outer product of `taps` with itself, divided by `div`:
 * a GstValueArray of doubles as gst-launch writes it. */
static std::string
square_kernel (const std::vector<int> &taps, double div)
{
  std::string s = "\"<";
  for (size_t i = 0; i < taps.size (); i++)
    for (size_t j = 0; j < taps.size (); j++) {
      char buf[40];
      std::snprintf (buf, sizeof buf, "%s%.12g", (i || j) ? "," : "",
          taps[i] * taps[j] / div);
      s += buf;
    }
  return s + ">\"";
}

/* A lens-shading file for the sensor-pass case (a 17 x 13 vignetting,
 * corners 1.8x, slightly tinted), written once into the temporary
 * directory; its path. */
static std::string
shading_file ()
{
  static std::string path;
  if (!path.empty ())
    return path;
  gchar *p = g_build_filename (g_get_tmp_dir (), "gst-opencl-bench-shading.txt", nullptr);
  path = p;
  g_free (p);
  FILE *f = fopen (path.c_str (), "w");
  if (!f)
    return path;
  const int columns = 17, rows = 13;
  const double tint[4] = { 1.05, 1.0, 1.0, 1.1 };
  fprintf (f, "lens-shading %d %d\n", columns, rows);
  for (double t : tint)
    for (int j = 0; j < rows; j++) {
      for (int i = 0; i < columns; i++) {
        const double dx = 2.0 * i / (columns - 1) - 1, dy = 2.0 * j / (rows - 1) - 1;
        fprintf (f, "%.5f ", t * (1 + 0.8 * (dx * dx + dy * dy) / 2));
      }
      fprintf (f, "\n");
    }
  fclose (f);
  return path;
}

/* A 33-point 3D LUT for the picture-stage cases (a warm look with a mild
 * S-curve), written once into the temporary directory; its path. */
static std::string
lut_file ()
{
  static std::string path;
  if (!path.empty ())
    return path;
  gchar *p = g_build_filename (g_get_tmp_dir (), "gst-opencl-bench-warm33.cube", nullptr);
  path = p;
  g_free (p);
  FILE *f = fopen (path.c_str (), "w");
  if (!f)
    return path;
  const int n = 33;
  fprintf (f, "TITLE \"bench warm\"\nLUT_3D_SIZE %d\n", n);
  auto s_curve = [] (double v) { return v + 0.1 * v * (1 - v) * (2 * v - 1); };
  for (int b = 0; b < n; b++)
    for (int g = 0; g < n; g++)
      for (int r = 0; r < n; r++)
        fprintf (f, "%.6f %.6f %.6f\n", s_curve (std::min (1.0, r / (n - 1.0) * 1.04)),
            s_curve (g / (n - 1.0)), s_curve (b / (n - 1.0) * 0.92));
  fclose (f);
  return path;
}

static std::vector<Case>
make_cases ()
{
  const std::string k3 = "kernel=" + square_kernel ({1, 2, 1}, 16.0);
  const std::string gauss7 = "kernel=" + square_kernel ({1, 6, 15, 20, 15, 6, 1}, 4096.0);
  /* The founding FIR sample's coefficients, / 256. */
  const std::string fir = "coefficients=\"<0.1171875,0.01953125,0.0234375,0.07421875,"
      "0.1171875,0.03515625,0.05859375,0.01953125,0.15625>\"";
  const std::string gray = "video/x-raw,format=GRAY8", rgb = "video/x-raw,format=RGB",
      rgba = "video/x-raw,format=RGBA", nv12 = "video/x-raw,format=NV12",
      yuy2 = "video/x-raw,format=YUY2",
      bayer = "video/x-bayer,format=rggb", bayer12 = "video/x-bayer,format=rggb12le";
  const std::string to_rgba = " ! video/x-raw,format=RGBA";
  const std::string gray16 = "video/x-raw,format=GRAY16_LE",
      rgba64 = "video/x-raw,format=RGBA64_LE";
  const std::string invert = "source=\"float4 filter (image_t img, int x, int y) { "
      "float4 p = read_pixel (img, x, y); return (float4) (1.0f - p.xyz, p.w); }\"";
  /* cldebayer's camera stages, every one on (docs/camera.md); auto white
   * balance or manual gains. */
  const std::string stages = "black-level=256 color-matrix=\"<1.6,-0.4,-0.2,-0.3,1.5,-0.2,"
      "0.05,-0.6,1.55>\" saturation=1.2 transfer=srgb";
  const std::string camera = "cldebayer " + stages + " white-balance=auto";
  /* ... and the sensor pass (issue 33): defects, lens shading, the 3A
   * statistics of every frame, auto exposure */
  const std::string isp = camera + " defect-correction=dynamic lens-shading-file=" +
      shading_file () + " statistics-interval=1 exposure=auto";
  const std::string camera_manual = camera_manual_fragment ();  /* the farm's too */
  const std::string picture = " denoise=0.5 sharpen=1 lut3d-file=" + lut_file ();
  auto sys_and_dev = [] (std::string name, std::string caps, std::string element,
      std::string format) {
    return Case{std::move (name), std::move (caps), element + " ! video/x-raw,format=" + format,
      "clupload ! " + element + " ! video/x-raw(memory:OpenCLMemory),format=" + format, false};
  };
  const std::string to_cl_rgba = " ! video/x-raw(memory:OpenCLMemory),format=RGBA";
  const std::string queued_nv12 = " ! video/x-raw(memory:OpenCLMemory),format=NV12 ! "
      "queue max-size-buffers=3 max-size-bytes=0 max-size-time=0 ! cldownload ! ";
  const std::string cuda_nv12 = " ! video/x-raw(memory:OpenCLMemory),format=NV12 ! cldownload ! "
      "video/x-raw(memory:CUDAMemory),format=NV12";

  auto heavy = [] (Case c) {
    c.heavy = true;
    return c;
  };
  auto ours = [] (std::string name, std::string caps, std::string element) {
    return Case{std::move (name), std::move (caps), element, "clupload ! " + element};
  };
  return {
    /* Sobel */
    ours ("clsobel GRAY8", gray, "clsobel"),
    ours ("clsobel RGB", rgb, "clsobel"),
    ours ("clsobel RGBA", rgba, "clsobel"),
    ours ("clsobel NV12", nv12, "clsobel"),
    {"cvsobel RGB", rgb, "cvsobel", "", true},
    /* Debayer */
    {"cldebayer bilinear rggb>RGBA", bayer, "cldebayer method=bilinear" + to_rgba,
      "clupload ! cldebayer method=bilinear" + to_cl_rgba, false},
    {"cldebayer malvar rggb>RGBA", bayer, "cldebayer method=malvar" + to_rgba,
      "clupload ! cldebayer method=malvar" + to_cl_rgba, false},
    /* the plain Malvar from the camera cases' 12-bit frame */
    {"cldebayer malvar rggb12le>RGBA", bayer12, "cldebayer method=malvar" + to_rgba,
      "clupload ! cldebayer method=malvar" + to_cl_rgba, false},
    {"cldebayer malvar rggb12le>RGBA64_LE", bayer12,
      "cldebayer method=malvar ! video/x-raw,format=RGBA64_LE",
      "clupload ! cldebayer method=malvar ! video/x-raw(memory:OpenCLMemory),format=RGBA64_LE",
      false},
    {"cldebayer menon rggb>RGBA", bayer, "cldebayer method=menon" + to_rgba,
      "clupload ! cldebayer method=menon" + to_cl_rgba, false},
    {"bayer2rgb rggb>RGBA", bayer, "bayer2rgb" + to_rgba, "", true},
    /* Raw camera to encoder input */
    sys_and_dev ("cldebayer camera rggb12le>NV12", bayer12, camera, "NV12"),
    sys_and_dev ("cldebayer camera rggb12le>RGBA", bayer12, camera, "RGBA"),
    sys_and_dev ("cldebayer camera manual-wb rggb12le>NV12", bayer12, camera_manual, "NV12"),
    sys_and_dev ("cldebayer isp rggb12le>NV12", bayer12, isp, "NV12"),
    /* ... with the NV12 handed to a CUDA consumer (an NVENC encoder) in CUDA
     * memory: only the raw upload crosses the bus (docs/interop.md); where
     * no CUDA device shares memory, cudadownload is not registered and the
     * cases are skipped */
    {"cldebayer camera rggb12le>NV12 CUDA out", bayer12, camera + cuda_nv12, "", false,
      "video/x-raw(memory:CUDAMemory)"},
    {"cldebayer isp rggb12le>NV12 CUDA out", bayer12, isp + cuda_nv12, "", false,
      "video/x-raw(memory:CUDAMemory)"},
    /* ... with a queue before cldownload, as before an encoder: the next
     * frame's upload is queued while cldownload waits for this one; the
     * system-memory pair has the same queue */
    {"cldebayer camera rggb12le>NV12 queue system out", bayer12, camera + queued_nv12 +
      "video/x-raw,format=NV12", "", false},
    {"cldebayer camera rggb12le>NV12 queue CUDA out", bayer12, camera + queued_nv12 +
      "video/x-raw(memory:CUDAMemory),format=NV12", "", false,
      "video/x-raw(memory:CUDAMemory)"},
    /* the corrections alone (no statistics): what the sensor pass costs
     * apart from them */
    sys_and_dev ("cldebayer corrections rggb12le>NV12", bayer12, camera_manual +
        " defect-correction=dynamic lens-shading-file=" + shading_file (), "NV12"),
    /* ... and the picture stages (issue 34): denoise, sharpen, a 33-point LUT */
    heavy (sys_and_dev ("cldebayer picture rggb12le>NV12", bayer12, camera_manual + picture,
        "NV12")),
    {"bayer2rgb ! videoconvert rggb>NV12", bayer,
      "bayer2rgb ! videoconvert ! video/x-raw,format=NV12", "", true},
    /* Convolution */
    ours ("clconvolve 3x3 GRAY8", gray, "clconvolve " + k3),
    ours ("clconvolve 3x3 RGBA", rgba, "clconvolve " + k3),
    ours ("clconvolve 7x7 RGBA", rgba, "clconvolve " + gauss7),
    ours ("clconvolve 7x7 RGB", rgb, "clconvolve " + gauss7),
    {"cvsmooth 7x7 RGB", rgb, "cvsmooth type=gaussian kernel-width=7 kernel-height=7", "",
      true},
    ours ("clfir GRAY8", gray, "clfir " + fir),
    ours ("clfir RGBA", rgba, "clfir " + fir),
    /* 16 bits a sample (issue 19: at least the RGBA case's bytes/s), and the
     * luma of NV12 */
    ours ("clsobel GRAY16_LE", gray16, "clsobel"),
    ours ("clsobel RGBA64_LE", rgba64, "clsobel"),
    ours ("clconvolve 3x3 RGBA64_LE", rgba64, "clconvolve " + k3),
    ours ("clconvolve 7x7 RGBA64_LE", rgba64, "clconvolve " + gauss7),
    ours ("clconvolve 3x3 NV12", nv12, "clconvolve " + k3),
    ours ("clfir RGBA64_LE", rgba64, "clfir " + fir),
    ours ("clkernel invert RGBA", rgba, "clkernel " + invert),
    heavy (ours ("clpicture NV12", nv12, "clpicture" + picture)),
    ours ("clkernel invert RGBA64_LE", rgba64, "clkernel " + invert),
    /* Chains that keep frames on the device between elements */
    {"chain debayer>sobel", bayer, "clupload ! cldebayer ! clsobel ! cldownload",
      "clupload ! cldebayer ! clsobel", false},
    {"chain convolve3x3>sobel RGBA", rgba, "clupload ! clconvolve " + k3 +
          " ! clsobel ! cldownload", "clupload ! clconvolve " + k3 + " ! clsobel", false},
    /* Colour conversion and scaling (docs/clconvert.md) */
    sys_and_dev ("clconvert RGBA>NV12", rgba, "clconvert", "NV12"),
    sys_and_dev ("clconvert NV12>BGRx", nv12, "clconvert", "BGRx"),
    sys_and_dev ("clconvert YUY2>RGBA", yuy2, "clconvert", "RGBA"),
    sys_and_dev ("clconvert RGBA>NV12 to 1920x1080", rgba, "clconvert",
        "NV12,width=1920,height=1080"),
    {"videoconvert RGBA>NV12", rgba, "videoconvert ! video/x-raw,format=NV12", "", true},
    {"videoconvert YUY2>RGBA", yuy2, "videoconvert ! video/x-raw,format=RGBA", "", true},
    /* The upload alone, system memory in, device memory out */
    {"clupload RGBA", rgba, "clupload", "", false, BENCH_DEVICE_SINK_CAPS},
  };
}

const std::vector<Case> &
all_cases ()
{
  static const std::vector<Case> cases = make_cases ();
  return cases;
}

const std::vector<Comparison> &
all_comparisons ()
{
  static const std::vector<Comparison> c = {
    {"clsobel RGB", "cvsobel RGB"},
    {"cldebayer bilinear rggb>RGBA", "bayer2rgb rggb>RGBA"},
    {"cldebayer malvar rggb>RGBA", "bayer2rgb rggb>RGBA"},
    {"cldebayer menon rggb>RGBA", "bayer2rgb rggb>RGBA"},
    {"clconvolve 7x7 RGB", "cvsmooth 7x7 RGB"},
    {"cldebayer camera manual-wb rggb12le>NV12", "bayer2rgb ! videoconvert rggb>NV12"},
    {"cldebayer isp rggb12le>NV12", "bayer2rgb ! videoconvert rggb>NV12"},
    {"cldebayer picture rggb12le>NV12", "bayer2rgb ! videoconvert rggb>NV12"},
    {"clconvert RGBA>NV12", "videoconvert RGBA>NV12"},
    {"clconvert YUY2>RGBA", "videoconvert YUY2>RGBA"},
  };
  return c;
}

const char *
concurrent_case_name ()
{
  return "clsobel GRAY8";
}

std::vector<std::string>
missing_elements (const std::string &fragment)
{
  std::vector<std::string> missing;
  gchar **parts = g_strsplit (fragment.c_str (), "!", -1);
  for (gchar **p = parts; *p; p++) {
    gchar *part = g_strstrip (*p);
    std::string word (part, strcspn (part, " \t"));
    if (word.empty () || word.find_first_of ("/(=,") != std::string::npos) {
      /* a caps filter; CUDA memory needs the nvcodec elements, which
       * register only on a CUDA machine */
      if (strstr (part, "memory:CUDAMemory") &&
          std::find (missing.begin (), missing.end (), "cudadownload") == missing.end ()) {
        GstElementFactory *f = gst_element_factory_find ("cudadownload");
        if (f)
          gst_object_unref (f);
        else
          missing.push_back ("cudadownload");
      }
      continue;
    }
    GstElementFactory *f = gst_element_factory_find (word.c_str ());
    if (f)
      gst_object_unref (f);
    else
      missing.push_back (word);
  }
  g_strfreev (parts);
  return missing;
}

}  // namespace bench
