/* bpw-plot-export.h — a plot to PNG, SVG, PDF or CSV through its one draw path
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "bpw-file.h"
#include "bpw-plot.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_PLOT_FORMAT_PNG,
  BPW_PLOT_FORMAT_SVG,
  BPW_PLOT_FORMAT_PDF,
  BPW_PLOT_FORMAT_CSV,
} BpwPlotFormat;

/* Largest PNG side in pixels: cairo image surfaces stop at 32767. */
#define BPW_PLOT_EXPORT_MAX_PIXELS 32767

gboolean         bpw_plot_format_from_string (const char    *str,
                                              BpwPlotFormat *format);
const char      *bpw_plot_format_to_string   (BpwPlotFormat  format);

/* Lays @plot out at @width × @height user units (points: a 720 × 405 memo figure) with
 * @style (NULL: the print style) and writes @path. PNG is @scale device pixels per unit
 * (2 = 144 dpi for sizes in points); SVG and PDF are vectors in points; CSV is
 * bpw_plot_to_csv(). Errors are G_IO_ERROR: INVALID_ARGUMENT for a size that cannot be
 * rendered, FAILED with cairo's reason when writing fails. */
gboolean         bpw_plot_export             (BpwPlot            *plot,
                                              const BpwPlotStyle *style,
                                              BpwPlotFormat       format,
                                              double              width,
                                              double              height,
                                              double              scale,
                                              const char         *path,
                                              GError            **error);
/* (transfer full): the plot rendered into a new ARGB32 image surface of
 * ⌈@width·@scale⌉ × ⌈@height·@scale⌉ pixels; NULL with @error when the size is
 * invalid. */
cairo_surface_t *bpw_plot_render_image       (BpwPlot            *plot,
                                              const BpwPlotStyle *style,
                                              double              width,
                                              double              height,
                                              double              scale,
                                              GError            **error);

/* Cairo's stream callbacks into a BpwFileWriter (the closure): every chart and the memo are
 * written through one, so a failed write leaves the old file. bpw_plot_export_finish()
 * finishes @surface and commits @writer when both succeeded, or reports the first failure. */
cairo_status_t   bpw_plot_export_write_cb    (void                *writer,
                                              const unsigned char *data,
                                              unsigned int         length);
gboolean         bpw_plot_export_finish      (cairo_surface_t     *surface,
                                              BpwFileWriter       *writer,
                                              GError             **error);

G_END_DECLS
