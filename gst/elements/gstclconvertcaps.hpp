/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clconvert's output caps: the size and pixel aspect ratio fixed as
 * videoscale fixes them, and the colorimetry and chroma siting of the bytes
 * the kernel writes (docs/clconvert.md, "Size" and "Colour"). */
#pragma once

#include <gst/gst.h>

namespace clconvert {

/* Fixes width, height and pixel-aspect-ratio of `out` (a structure of the
 * caps being fixated on the other side of `direction`'s pad) from the input
 * frame of `in_w` x `in_h` at `par_n`/`par_d` (turned already for 90-degree
 * directions), keeping the display aspect ratio as videoscale does: by
 * choosing the pixel aspect ratio when `out` leaves it open (no borders
 * then), else the free dimension. */
void fixate_size (GstStructure * out, GstPadDirection direction, int in_w, int in_h,
    int par_n, int par_d);

/* Sets what `out` (fixed format and size) leaves open of the colorimetry and,
 * for Y'CbCr, the chroma siting of the frames the kernel writes from the
 * input of `in` (fixed caps): within a family (Y'CbCr, RGB, grey) the
 * input's colorimetry as GStreamer reads it (its default for the size when
 * the caps name none); across families GStreamer's default for the output's
 * format and size with the input's transfer function and primaries, as
 * videoconvert; chroma sited at the centre of its block ("jpeg"). */
void describe_output (const GstCaps * in, GstStructure * out);

}  // namespace clconvert
