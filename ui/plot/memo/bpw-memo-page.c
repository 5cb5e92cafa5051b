/* bpw-memo-page.c — flowing text, tables and figures onto the pages of a PDF
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-memo"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include <cairo-pdf.h>

#include "bpw-memo-page.h"

#define GAP 6.0
#define CELL_PAD 5.0

void
bpw_memo_page_begin (BpwMemoPage     *page,
                     cairo_surface_t *surface,
                     double           width,
                     double           height,
                     const char      *footer)
{
  memset (page, 0, sizeof *page);
  page->surface = surface;
  page->cr = cairo_create (surface);
  page->width = width;
  page->height = height;
  page->margin = 42;
  g_strlcpy (page->footer, footer != NULL ? footer : "", sizeof page->footer);
  bpw_plot_style_init_print (&page->figure_style);
  /* Text a little larger than in the figures, headings bold. */
  bpw_plot_style_init_print (&page->style);
  page->style.font_size[BPW_PLOT_FONT_BODY] = 10;
  page->style.font_size[BPW_PLOT_FONT_SMALL] = 8.5;
  page->style.font_size[BPW_PLOT_FONT_TITLE] = 20;
  page->style.font_size[BPW_PLOT_FONT_AXIS] = 13;
  page->style.bold[BPW_PLOT_FONT_AXIS] = TRUE;
  bpw_plot_text_init (&page->text, &page->style);
  page->y = page->margin;
}

static void
draw_footer (BpwMemoPage *page)
{
  char number[32];
  double y = page->height - page->margin / 2;

  g_snprintf (number, sizeof number, "%u", page->page);
  bpw_plot_text_draw (&page->text, page->cr, BPW_PLOT_FONT_SMALL, page->footer, 0,
                      page->margin, y, 0, 0.5, 0, &page->style.muted);
  bpw_plot_text_draw (&page->text, page->cr, BPW_PLOT_FONT_SMALL, number, 0,
                      page->width - page->margin, y, 1, 0.5, 0, &page->style.muted);
}

void
bpw_memo_page_new (BpwMemoPage *page)
{
  if (page->page > 0)
    {
      draw_footer (page);
      cairo_show_page (page->cr);
    }
  page->page++;
  page->y = page->margin;
}

void
bpw_memo_page_end (BpwMemoPage *page)
{
  if (page->page > 0)
    draw_footer (page);
  cairo_destroy (page->cr);
  page->cr = NULL;
  bpw_plot_text_clear (&page->text);
}

double
bpw_memo_page_room (BpwMemoPage *page)
{
  return page->height - page->margin - page->y;
}

static double
text_width (BpwMemoPage *page)
{
  return page->width - 2 * page->margin;
}

static void
ensure (BpwMemoPage *page, double h)
{
  if (page->page == 0 || (bpw_memo_page_room (page) < h && page->y > page->margin))
    bpw_memo_page_new (page);
}

void
bpw_memo_page_need (BpwMemoPage *page,
                    double       height)
{
  height = MIN (height, page->height - 2 * page->margin);
  if (page->page == 0 || (bpw_memo_page_room (page) < height && page->y > page->margin))
    bpw_memo_page_new (page);
}

void
bpw_memo_page_heading (BpwMemoPage *page,
                       guint        level,
                       const char  *text)
{
  BpwPlotFont font = level == 0 ? BPW_PLOT_FONT_TITLE : BPW_PLOT_FONT_AXIS;
  double w, h;

  bpw_plot_text_measure (&page->text, font, text, text_width (page), &w, &h);
  if (level == 1 && bpw_memo_page_room (page) < (page->height - 2 * page->margin) / 4)
    bpw_memo_page_new (page);
  ensure (page, h + 40);
  if (page->y > page->margin)
    page->y += level == 2 ? GAP : 2 * GAP;
  if (level == 1)
    {
      g_autofree char *link = g_strdup_printf ("page=%u pos=[%g %g]", page->page,
                                               page->margin, page->y);

      page->outline = cairo_pdf_surface_add_outline (page->surface, CAIRO_PDF_OUTLINE_ROOT,
                                                     text, link, 0);
    }
  else if (level == 2)
    {
      g_autofree char *link = g_strdup_printf ("page=%u pos=[%g %g]", page->page,
                                               page->margin, page->y);

      cairo_pdf_surface_add_outline (page->surface, page->outline, text, link, 0);
    }
  bpw_plot_text_draw (&page->text, page->cr, font, text, text_width (page), page->margin,
                      page->y, 0, 0, 0, &page->style.foreground);
  page->y += h + (level == 0 ? GAP : GAP / 2);
}

void
bpw_memo_page_paragraph (BpwMemoPage        *page,
                         BpwPlotFont         font,
                         const BpwPlotColor *color,
                         const char         *text)
{
  double w, h;

  bpw_plot_text_measure (&page->text, font, text, text_width (page), &w, &h);
  ensure (page, h);
  bpw_plot_text_draw (&page->text, page->cr, font, text, text_width (page), page->margin,
                      page->y, 0, 0, 0, color != NULL ? color : &page->style.foreground);
  page->y += h + GAP;
}

/* Natural @widths wider than @room in all: the columns narrower than an equal share of
 * what is left keep their width, and the others share the rest equally and wrap (the
 * review packet's tables have several columns of sentences). */
static void
fit_widths (double *widths, gboolean *wraps, guint n, double room)
{
  g_autofree gboolean *fixed = g_new0 (gboolean, MAX (n, 1));
  double total = 0, left = room;
  guint open = n;
  gboolean changed = TRUE;

  for (guint k = 0; k < n; k++)
    total += widths[k];
  if (total <= room)
    return;
  while (changed && open > 0)
    {
      double share = left / open;

      changed = FALSE;
      for (guint k = 0; k < n; k++)
        if (!fixed[k] && widths[k] <= share)
          {
            fixed[k] = TRUE;
            left -= widths[k];
            open--;
            changed = TRUE;
          }
    }
  for (guint k = 0; k < n; k++)
    if (!fixed[k])
      {
        widths[k] = MAX (left / open, 40.0);
        wraps[k] = TRUE;
      }
}

static double
row_height (BpwMemoPage *page, const char * const *row, guint n, const double *widths,
            const gboolean *wraps)
{
  double h = 0;

  for (guint k = 0; k < n; k++)
    {
      double w, hk;

      bpw_plot_text_measure (&page->text, BPW_PLOT_FONT_SMALL, row[k],
                             wraps[k] ? widths[k] - 2 * CELL_PAD : 0, &w, &hk);
      h = MAX (h, hk);
    }
  return h + 4;
}

static void
draw_row (BpwMemoPage *page, const char * const *row, guint n, const double *widths,
          const gboolean *wraps, const BpwMemoAlign *align, gboolean header, gboolean band,
          double h)
{
  double x = page->margin;

  if (header || band)
    {
      cairo_rectangle (page->cr, page->margin, page->y, text_width (page), h);
      bpw_plot_set_source (page->cr, header ? &page->style.band[1] : &page->style.band[0]);
      cairo_fill (page->cr);
    }
  for (guint k = 0; k < n; k++)
    {
      gboolean right = align != NULL && align[k] == BPW_MEMO_RIGHT;

      bpw_plot_text_draw (&page->text, page->cr, BPW_PLOT_FONT_SMALL, row[k],
                          wraps[k] ? widths[k] - 2 * CELL_PAD : 0,
                          right ? x + widths[k] - CELL_PAD : x + CELL_PAD, page->y + 2,
                          right ? 1 : 0, 0, 0,
                          header ? &page->style.muted : &page->style.foreground);
      x += widths[k];
    }
  page->y += h;
}

void
bpw_memo_page_table (BpwMemoPage        *page,
                     const char * const *cells,
                     guint               n_rows,
                     guint               n_columns,
                     const BpwMemoAlign *align)
{
  g_autofree double *widths = g_new0 (double, MAX (n_columns, 1));
  g_autofree gboolean *wraps = g_new0 (gboolean, MAX (n_columns, 1));
  double total = 0, head_h;

  if (n_rows == 0 || n_columns == 0)
    return;
  for (guint i = 0; i < n_rows * n_columns; i++)
    {
      double w;

      bpw_plot_text_measure (&page->text, BPW_PLOT_FONT_SMALL, cells[i], 0, &w, NULL);
      widths[i % n_columns] = MAX (widths[i % n_columns], w + 2 * CELL_PAD);
    }
  fit_widths (widths, wraps, n_columns, text_width (page));
  for (guint k = 0; k < n_columns; k++)
    total += widths[k];
  /* The last column takes what is left, wrapping when it is short of room. */
  widths[n_columns - 1] = MAX (widths[n_columns - 1] + text_width (page) - total, 60.0);
  wraps[n_columns - 1] = TRUE;
  head_h = row_height (page, cells, n_columns, widths, wraps);
  ensure (page, 3 * head_h);
  draw_row (page, cells, n_columns, widths, wraps, align, TRUE, FALSE, head_h);
  for (guint r = 1; r < n_rows; r++)
    {
      const char * const *row = cells + r * n_columns;
      double h = row_height (page, row, n_columns, widths, wraps);

      if (bpw_memo_page_room (page) < h)
        {
          bpw_memo_page_new (page);
          draw_row (page, cells, n_columns, widths, wraps, align, TRUE, FALSE, head_h);
        }
      draw_row (page, row, n_columns, widths, wraps, align, FALSE, r % 2 == 0, h);
    }
  page->y += GAP;
}

void
bpw_memo_page_figure (BpwMemoPage           *page,
                      BpwPlot               *plot,
                      const BpwPlotViewport *viewport,
                      double                 height,
                      const char            *caption)
{
  double w = text_width (page), cw, ch = 0;

  if (caption != NULL)
    bpw_plot_text_measure (&page->text, BPW_PLOT_FONT_SMALL, caption, w, &cw, &ch);
  height = MIN (height, page->height - 2 * page->margin - ch - GAP);
  ensure (page, height + ch + GAP);
  bpw_plot_layout (plot, &page->figure_style, viewport, w, height);
  cairo_save (page->cr);
  cairo_translate (page->cr, page->margin, page->y);
  cairo_rectangle (page->cr, 0, 0, w, height);
  cairo_clip (page->cr);
  bpw_plot_draw (plot, page->cr);
  cairo_restore (page->cr);
  page->y += height + GAP / 2;
  if (caption != NULL)
    bpw_memo_page_paragraph (page, BPW_PLOT_FONT_SMALL, &page->style.muted, caption);
}
