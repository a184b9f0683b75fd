/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU reference of cldebayer method=menon: Menon, Andriani and Calvagno 2007
 * (directional filtering, a posteriori decision, refining step), written
 * from the paper's description as whole-plane operations in double
 * precision on the mosaic extended by mirroring (reflect-101, which keeps
 * the Bayer phase), then cropped: independent of the kernel's tiles. */
#pragma once

#include "ref_debayer.h"

#include <cmath>
#include <vector>

namespace menon_ref {

using namespace debayer_ref;

typedef std::array<double, 3> RgbF;

/* A plane of doubles over the extended frame; reads outside it give the
 * nearest value (only the margin, which the crop drops, reads there). */
struct Plane {
  int w, h;
  std::vector<double> v;
  Plane (int w_, int h_) : w (w_), h (h_), v ((size_t) w_ * h_, 0.0) {}
  double operator() (int x, int y) const
  {
    return v[(size_t) std::clamp (y, 0, h - 1) * w + std::clamp (x, 0, w - 1)];
  }
  double &at (int x, int y) { return v[(size_t) y * w + x]; }
};

/* The demosaiced R, G, B of every pixel of `m`, in [0, maxv] (clamped), from
 * its samples clamped to maxv and, with the camera stages, after black
 * level and white balance: min (max (v - black, 0) * gain * maxv /
 * (maxv - black), maxv). */
inline std::vector<RgbF>
demosaic (const Mosaic & m, int black = 0, std::array<double, 3> gains = { 1, 1, 1 })
{
  const int P = 16;   /* margin of the extension: the support is 8 */
  const int W = m.w + 2 * P, H = m.h + 2 * P;
  const int maxv = m.maxv ();
  auto colour = [&] (int x, int y) { return colour_at (m, x - P, y - P); };
  Plane S (W, H);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const int v = std::min (m.at (border_index (x - P, m.w, REFLECT),
              border_index (y - P, m.h, REFLECT)), maxv);
      const char c = colour (x, y);
      const double g = gains[c == 'r' ? 0 : c == 'g' ? 1 : 2];
      S.at (x, y) = std::min (std::max (v - black, 0) * g * maxv / (maxv - black),
          (double) maxv);
    }

  /* directional green estimates: h0 = [0 1/2 0 1/2 0] plus
   * h1 = [-1/4 0 1/2 0 -1/4] along the row (column) at R and B sites */
  static const double h0[5] = { 0, 0.5, 0, 0.5, 0 }, h1[5] = { -0.25, 0, 0.5, 0, -0.25 };
  Plane GH (W, H), GV (W, H), CH (W, H), CV (W, H);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      if (colour (x, y) == 'g') {
        GH.at (x, y) = GV.at (x, y) = S (x, y);
        continue;
      }
      double gh = 0, gv = 0;
      for (int k = 0; k < 5; k++) {
        gh += (h0[k] + h1[k]) * S (x + k - 2, y);
        gv += (h0[k] + h1[k]) * S (x, y + k - 2);
      }
      GH.at (x, y) = gh;
      GV.at (x, y) = gv;
      CH.at (x, y) = S (x, y) - gh;
      CV.at (x, y) = S (x, y) - gv;
    }
  /* gradients of the colour differences, two samples apart, summed over
   * the paper's 5x5 weights (a correlation with `k` flipped, as the
   * reference implementation convolves) */
  static const int k[5][5] = { { 0, 0, 1, 0, 1 }, { 0, 0, 0, 1, 0 }, { 0, 0, 3, 0, 3 },
    { 0, 0, 0, 1, 0 }, { 0, 0, 1, 0, 1 } };
  Plane DH (W, H), DV (W, H);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      DH.at (x, y) = std::fabs (CH (x, y) - CH (x + 2, y));
      DV.at (x, y) = std::fabs (CV (x, y) - CV (x, y + 2));
    }
  Plane G (W, H);
  std::vector<char> horiz ((size_t) W * H, 0);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      double dh = 0, dv = 0;
      for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
          dh += k[i][j] * DH (x + 2 - j, y + 2 - i);
          dv += k[j][i] * DV (x + 2 - j, y + 2 - i);
        }
      horiz[(size_t) y * W + x] = dv >= dh;
      G.at (x, y) = dv >= dh ? GH (x, y) : GV (x, y);
    }
  auto is_h = [&] (int x, int y) { return horiz[(size_t) y * W + x] != 0; };

  /* red and blue: at G sites from the neighbours of that colour (row or
   * column), then at B (R) sites along the chosen direction */
  Plane R (W, H), B (W, H);
  auto row_has = [&] (int x, int y, char c) {
    return colour (x, y) == c || colour (x + 1, y) == c;
  };
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const char c = colour (x, y);
      R.at (x, y) = c == 'r' ? S (x, y) : 0;
      B.at (x, y) = c == 'b' ? S (x, y) : 0;
    }
  auto mean_h = [] (const Plane & p, int x, int y) { return (p (x - 1, y) + p (x + 1, y)) / 2; };
  auto mean_v = [] (const Plane & p, int x, int y) { return (p (x, y - 1) + p (x, y + 1)) / 2; };
  {
    Plane R0 = R, B0 = B;
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        if (colour (x, y) != 'g')
          continue;
        const bool red_row = row_has (x, y, 'r');
        R.at (x, y) = G (x, y) + (red_row ? mean_h (R0, x, y) - mean_h (G, x, y) :
            mean_v (R0, x, y) - mean_v (G, x, y));
        B.at (x, y) = G (x, y) + (red_row ? mean_v (B0, x, y) - mean_v (G, x, y) :
            mean_h (B0, x, y) - mean_h (G, x, y));
      }
  }
  {
    const Plane R1 = R, B1 = B;
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        const char c = colour (x, y);
        if (c == 'g')
          continue;
        const bool h = is_h (x, y);
        const double dr = h ? mean_h (R1, x, y) - mean_h (B1, x, y) :
            mean_v (R1, x, y) - mean_v (B1, x, y);
        if (c == 'b')
          R.at (x, y) = S (x, y) + dr;
        else
          B.at (x, y) = S (x, y) - dr;
      }
  }

  /* refining: green at R and B sites from the mean of three colour
   * differences along the direction (the site's and its neighbours') */
  auto mean3 = [&] (const Plane & p, int x, int y) {
    return is_h (x, y) ? (p (x - 1, y) + p (x, y) + p (x + 1, y)) / 3 :
        (p (x, y - 1) + p (x, y) + p (x, y + 1)) / 3;
  };
  {
    Plane RG (W, H), BG (W, H);
    for (size_t i = 0; i < RG.v.size (); i++) {
      RG.v[i] = R.v[i] - G.v[i];
      BG.v[i] = B.v[i] - G.v[i];
    }
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        const char c = colour (x, y);
        if (c == 'r')
          G.at (x, y) = S (x, y) - mean3 (RG, x, y);
        else if (c == 'b')
          G.at (x, y) = S (x, y) - mean3 (BG, x, y);
      }
  }
  /* R and B at G sites again, from the refined green */
  {
    Plane RG (W, H), BG (W, H);
    for (size_t i = 0; i < RG.v.size (); i++) {
      RG.v[i] = R.v[i] - G.v[i];
      BG.v[i] = B.v[i] - G.v[i];
    }
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        if (colour (x, y) != 'g')
          continue;
        const bool red_row = row_has (x, y, 'r');
        R.at (x, y) = G (x, y) + (red_row ? mean_h (RG, x, y) : mean_v (RG, x, y));
        B.at (x, y) = G (x, y) + (red_row ? mean_v (BG, x, y) : mean_h (BG, x, y));
      }
  }
  /* R at B and B at R from the mean of three R - B along the direction */
  {
    Plane RB (W, H);
    for (size_t i = 0; i < RB.v.size (); i++)
      RB.v[i] = R.v[i] - B.v[i];
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        const char c = colour (x, y);
        if (c == 'b')
          R.at (x, y) = S (x, y) + mean3 (RB, x, y);
        else if (c == 'r')
          B.at (x, y) = S (x, y) - mean3 (RB, x, y);
      }
  }

  std::vector<RgbF> out ((size_t) m.w * m.h);
  for (int y = 0; y < m.h; y++)
    for (int x = 0; x < m.w; x++)
      for (int c = 0; c < 3; c++) {
        const Plane &p = c == 0 ? R : c == 1 ? G : B;
        out[(size_t) y * m.w + x][c] = std::clamp (p (x + P, y + P), 0.0, (double) maxv);
      }
  return out;
}

/* The demosaiced image rounded to 8 bits (for PSNR). */
inline std::vector<Rgb>
to_8bit (const std::vector<RgbF> &img, int maxv)
{
  std::vector<Rgb> out (img.size ());
  for (size_t i = 0; i < img.size (); i++)
    for (int c = 0; c < 3; c++)
      out[i][c] = (int) std::floor (img[i][c] * 255 / maxv + 0.5);
  return out;
}

/* How an output frame compares with the reference: channels further than
 * `tolerance` levels off, the largest difference, channels compared. */
struct Agreement {
  long off = 0, channels = 0;
  int worst = 0;
};

inline Agreement
agreement (GstBuffer * out, GstCaps * caps, const Mosaic & m, const std::vector<RgbF> &ref,
    const OutFormat & f, int tolerance)
{
  const std::vector<int> got = output_channels (out, caps, f, m.w, m.h);
  const int out_max = f.wide ? 65535 : 255;
  Agreement a;
  for (size_t i = 0; i < ref.size (); i++) {
    int s[3];
    for (int c = 0; c < 3; c++)
      s[c] = (int) std::floor (ref[i][c] * out_max / m.maxv () + 0.5);
    const std::vector<int> want = pixel_channels (s[0], s[1], s[2], f);
    for (int c = 0; c < f.channels; c++) {
      const int d = std::abs (got[i * f.channels + c] - want[c]);
      a.worst = std::max (a.worst, d);
      a.off += d > tolerance;
      a.channels++;
    }
  }
  return a;
}

}  // namespace menon_ref
