/* bpw-plot-test-util.h — helpers shared by the plot tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "bpw-plan.h"
#include "bpw-plot-style.h"

G_BEGIN_DECLS

/* The first candidate of the bundled default study bound on its first scenario (or the
 * named ones). */
BpwPlan  *bpw_plot_test_default_plan      (const char *candidate,
                                           const char *scenario);

/* Pixels of @surface (ARGB32) that differ from @background by more than a few levels. */
guint     bpw_plot_test_count_ink         (cairo_surface_t    *surface,
                                           const BpwPlotColor *background);
/* The colour at user coordinates (@x, @y) of an image surface with device scale @scale. */
void      bpw_plot_test_pixel             (cairo_surface_t    *surface,
                                           double              scale,
                                           double              x,
                                           double              y,
                                           BpwPlotColor       *color);

/* Parses @path as XML with GMarkup; the name of the root element (or NULL). */
char     *bpw_plot_test_xml_root          (const char         *path,
                                           GError            **error);
/* Text of a PDF through pdftotext, or NULL (test skipped) when it is not installed. */
char     *bpw_plot_test_pdf_text          (const char         *path);

/* Splits one RFC 4180 line into fields (quotes removed). */
GStrv     bpw_plot_test_csv_fields        (const char         *line);

G_END_DECLS
