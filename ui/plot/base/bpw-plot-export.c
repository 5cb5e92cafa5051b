/* bpw-plot-export.c — a plot to PNG, SVG, PDF or CSV through its one draw path
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-plot-export"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include "bpw-plot-export.h"

#include "bpw-file.h"

static const char * const format_names[] = { "png", "svg", "pdf", "csv" };

gboolean
bpw_plot_format_from_string (const char    *str,
                             BpwPlotFormat *format)
{
  for (guint i = 0; i < G_N_ELEMENTS (format_names); i++)
    if (g_strcmp0 (str, format_names[i]) == 0)
      {
        *format = i;
        return TRUE;
      }
  return FALSE;
}

const char *
bpw_plot_format_to_string (BpwPlotFormat format)
{
  return format < G_N_ELEMENTS (format_names) ? format_names[format] : "";
}

static gboolean
check_size (double width, double height, double scale, gboolean raster, GError **error)
{
  double limit = raster ? BPW_PLOT_EXPORT_MAX_PIXELS : 14400;  /* PDF's 200-inch page limit */

  if (!(width >= 1) || !(height >= 1) || !(scale > 0) || !isfinite (width * height * scale) ||
      ceil (width * (raster ? scale : 1)) > limit || ceil (height * (raster ? scale : 1)) > limit)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Cannot render a chart of %g × %g at scale %g: each side must be at least 1 "
                   "and at most %.0f %s."), width, height, scale, limit,
                   raster ? _("pixels") : _("points"));
      return FALSE;
    }
  return TRUE;
}

static gboolean
surface_error (cairo_surface_t *surface, const char *path, GError **error)
{
  cairo_status_t status = cairo_surface_status (surface);

  if (status == CAIRO_STATUS_SUCCESS)
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Could not write “%s”: %s."),
               path != NULL ? path : _("image"), cairo_status_to_string (status));
  return FALSE;
}

cairo_status_t
bpw_plot_export_write_cb (void                *writer,
                          const unsigned char *data,
                          unsigned int         length)
{
  return bpw_file_writer_write (writer, data, length, NULL) ? CAIRO_STATUS_SUCCESS
                                                            : CAIRO_STATUS_WRITE_ERROR;
}

gboolean
bpw_plot_export_finish (cairo_surface_t  *surface,
                        BpwFileWriter    *writer,
                        GError          **error)
{
  cairo_status_t status;

  cairo_surface_finish (surface);
  status = cairo_surface_status (surface);
  /* A failed write is reported by the writer, with the system's reason. */
  if (status != CAIRO_STATUS_SUCCESS && !bpw_file_writer_has_failed (writer))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Could not write “%s”: %s."),
                   bpw_file_writer_get_path (writer), cairo_status_to_string (status));
      return FALSE;
    }
  return bpw_file_writer_commit (writer, error);
}

static void
draw_into (BpwPlot *plot, cairo_surface_t *surface)
{
  cairo_t *cr = cairo_create (surface);

  bpw_plot_draw (plot, cr);
  cairo_destroy (cr);
}

static void
lay_out (BpwPlot *plot, const BpwPlotStyle *style, double width, double height)
{
  BpwPlotStyle print;

  if (style == NULL)
    {
      bpw_plot_style_init_print (&print);
      style = &print;
    }
  bpw_plot_layout (plot, style, NULL, width, height);
}

cairo_surface_t *
bpw_plot_render_image (BpwPlot            *plot,
                       const BpwPlotStyle *style,
                       double              width,
                       double              height,
                       double              scale,
                       GError            **error)
{
  cairo_surface_t *surface;

  g_return_val_if_fail (BPW_IS_PLOT (plot), NULL);

  if (!check_size (width, height, scale, TRUE, error))
    return NULL;
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) ceil (width * scale),
                                        (int) ceil (height * scale));
  if (!surface_error (surface, NULL, error))
    {
      cairo_surface_destroy (surface);
      return NULL;
    }
  cairo_surface_set_device_scale (surface, scale, scale);
  lay_out (plot, style, width, height);
  draw_into (plot, surface);
  cairo_surface_flush (surface);
  return surface;
}

gboolean
bpw_plot_export (BpwPlot            *plot,
                 const BpwPlotStyle *style,
                 BpwPlotFormat       format,
                 double              width,
                 double              height,
                 double              scale,
                 const char         *path,
                 GError            **error)
{
  g_autoptr(BpwFileWriter) writer = NULL;
  cairo_surface_t *surface = NULL;
  gboolean ok;

  g_return_val_if_fail (BPW_IS_PLOT (plot), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  switch (format)
    {
    case BPW_PLOT_FORMAT_CSV:
      {
        g_autofree char *csv = NULL;

        lay_out (plot, style, MAX (width, 1), MAX (height, 1));
        csv = bpw_plot_to_csv (plot);
        return bpw_file_replace_contents (path, csv, -1, error);
      }
    case BPW_PLOT_FORMAT_PNG:
      {
        cairo_status_t status;

        surface = bpw_plot_render_image (plot, style, width, height, scale, error);
        if (surface == NULL)
          return FALSE;
        writer = bpw_file_writer_new (path, error);
        if (writer == NULL)
          {
            cairo_surface_destroy (surface);
            return FALSE;
          }
        status = cairo_surface_write_to_png_stream (surface, bpw_plot_export_write_cb, writer);
        cairo_surface_destroy (surface);
        if (bpw_file_writer_has_failed (writer))
          return bpw_file_writer_commit (writer, error);  /* its error */
        if (status != CAIRO_STATUS_SUCCESS)
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Could not write “%s”: %s."),
                         path, cairo_status_to_string (status));
            return FALSE;
          }
        return bpw_file_writer_commit (writer, error);
      }
    case BPW_PLOT_FORMAT_SVG:
      if (!check_size (width, height, 1, FALSE, error))
        return FALSE;
      if ((writer = bpw_file_writer_new (path, error)) == NULL)
        return FALSE;
      surface = cairo_svg_surface_create_for_stream (bpw_plot_export_write_cb, writer, width,
                                                     height);
      if (cairo_surface_status (surface) == CAIRO_STATUS_SUCCESS)
        cairo_svg_surface_set_document_unit (surface, CAIRO_SVG_UNIT_PT);
      break;
    case BPW_PLOT_FORMAT_PDF:
      if (!check_size (width, height, 1, FALSE, error))
        return FALSE;
      if ((writer = bpw_file_writer_new (path, error)) == NULL)
        return FALSE;
      surface = cairo_pdf_surface_create_for_stream (bpw_plot_export_write_cb, writer, width,
                                                     height);
      if (cairo_surface_status (surface) == CAIRO_STATUS_SUCCESS)
        {
          cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR,
                                          "Blueprint Workbench " PACKAGE_VERSION);
          lay_out (plot, style, width, height);
          cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_TITLE,
                                          bpw_plot_get_title (plot));
        }
      break;
    default:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Unknown export format %d."),
                   format);
      return FALSE;
    }

  if (!surface_error (surface, path, error))
    {
      cairo_surface_destroy (surface);
      return FALSE;
    }
  lay_out (plot, style, width, height);
  draw_into (plot, surface);
  ok = bpw_plot_export_finish (surface, writer, error);
  cairo_surface_destroy (surface);
  return ok;
}
