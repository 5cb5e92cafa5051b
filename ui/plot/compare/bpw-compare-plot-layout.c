/* bpw-compare-plot-layout.c — the comparison chart's layout: data + size → scene
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pure: reads the data and the style, writes only the plot's scene arrays. Candidates
 * are rows shared by the bars and the heat map; the table below repeats them with the
 * numbers behind the bars.
 */
#define G_LOG_DOMAIN "bpw-compare-plot"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "bpw-compare-plot-private.h"
#include "bpw-plot-palette.h"

#define CELL_PAD 6.0
#define MAX_BAR 22.0

static void
add_label (BpwComparePlot *self, BpwPlotText *text, BpwPlotFont font, const char *str,
           double x, double y, double ax, double ay, const BpwPlotColor *color)
{
  BpwPlotLabel label;

  _bpw_plot_label_init (&label, text, font, str, x, y, ax, ay, 0, color);
  g_array_append_val (self->labels, label);
}

static const BpwCompareFit *
fit (const BpwComparePlot *self, guint c, guint s)
{
  return bpw_compare_data_cell (self->data, c, s);
}

/* "0.599 s" and "✓ +40%", "✗ −82%", "no SLA", "illegal". */
static void
cell_texts (const BpwCompareFit *f, char *value, gsize vsize, char *status, gsize ssize)
{
  if (!f->ok)
    {
      g_strlcpy (value, "—", vsize);
      g_strlcpy (status, _("not run"), ssize);
      return;
    }
  bpw_si_format (value, vsize, f->value, "s", 3);
  if (!f->legal)
    g_strlcpy (status, _("illegal"), ssize);
  else if (f->has_sla)
    g_snprintf (status, ssize, "%s %s%.0f%%", f->sla_pass ? "✓" : "✗",
                f->sla_margin >= 0 ? "+" : "−", fabs (100 * f->sla_margin));
  else
    g_snprintf (status, ssize, _("%.2f× best"), f->relative);
}

static void
build_legend (BpwComparePlot *self, const BpwPlotStyle *st)
{
  const BpwCompareData *data = self->data;
  gboolean present[BPW_N_BREAKDOWNS] = { FALSE };
  BpwCompareFit pass = { .ok = TRUE, .legal = TRUE, .has_sla = TRUE, .sla_pass = TRUE,
                         .sla_margin = 0.5 };
  BpwCompareFit fail = pass, none = pass, illegal = pass;
  BpwPlotColor c;
  g_autofree char *note = NULL;

  fail.sla_pass = FALSE;
  fail.sla_margin = -0.5;
  none.has_sla = FALSE;
  none.relative = 1;
  illegal.legal = FALSE;
  for (guint k = 0; k < data->n_candidates; k++)
    for (guint p = 0; p < BPW_N_BREAKDOWNS; p++)
      if (fit (self, k, data->scenario)->eval.breakdown_s[p] > 0)
        present[p] = TRUE;
  bpw_plot_legend_clear (&self->scene->legend);
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_HEADING, NULL, _("Step time"));
  for (guint p = 0; p < BPW_N_BREAKDOWNS; p++)
    if (present[p])
      {
        c = bpw_plot_breakdown_color (st, p);
        bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_BOX, &c, bpw_plot_breakdown_name (p));
      }
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_HEADING, NULL, _("Fit"));
  c = bpw_compare_fit_color (st, &pass);
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_BOX, &c, _("meets the SLA"));
  c = bpw_compare_fit_color (st, &fail);
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_BOX, &c, _("fails it (shade: margin)"));
  c = bpw_compare_fit_color (st, &none);
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_BOX, &c, _("no SLA (shade: tokens/s ÷ best)"));
  c = bpw_compare_fit_color (st, &illegal);
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_BOX, &c, _("illegal"));
  /* Legend entries hold 319 bytes: one note per sentence. */
  note = g_strdup_printf (_("Bars and table: %s, analytic estimate, mappings as given; Δ against "
                          "%s."), data->scenarios[data->scenario], data->candidates[data->baseline]);
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_NOTE, NULL, note);
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_NOTE, NULL,
                       _("Cells: the SLA metric (step time where there is none) and the margin, "
                       "(limit − value) ÷ limit."));
}

static void
set_cell (BpwCompareTableCell *cell, const char *str, double ax, gint tone)
{
  g_strlcpy (cell->text, str, sizeof cell->text);
  cell->ax = ax;
  cell->tone = tone;
}

/* "+12.3%" of @value against @base; @lower_better picks the tone. */
static void
delta_cell (BpwCompareTableCell *cell, double value, double base, gboolean lower_better,
            gboolean is_base)
{
  char buf[32];
  double d;

  if (is_base || !isfinite (value) || !(base > 0))
    {
      set_cell (cell, is_base ? _("baseline") : "—", 1, 0);
      return;
    }
  d = value / base - 1;
  g_snprintf (buf, sizeof buf, "%s%.1f%%", d >= 0 ? "+" : "−", fabs (100 * d));
  set_cell (cell, buf, 1, fabs (d) < 5e-4 ? 0 : ((d < 0) == lower_better ? 1 : -1));
}

static void
fill_table (BpwComparePlot *self)
{
  static const char * const head[BPW_COMPARE_TABLE_COLUMNS] = {
    N_("Candidate"), N_("Step time"), "Δ", N_("Tokens/s"), "Δ", N_("MFU"), N_("Peak memory"), N_("Score"), N_("Status"),
  };
  const BpwCompareData *data = self->data;
  const BpwCompareFit *base = fit (self, data->baseline, data->scenario);
  const BpwCompareDataSuite *suite = data->suites->len > 0
                                       ? &g_array_index (data->suites, BpwCompareDataSuite, 0)
                                       : NULL;

  g_array_set_size (self->table, (data->n_candidates + 1) * BPW_COMPARE_TABLE_COLUMNS);
  memset (self->table->data, 0, self->table->len * sizeof (BpwCompareTableCell));
  for (guint k = 0; k < BPW_COMPARE_TABLE_COLUMNS; k++)
    {
      BpwCompareTableCell *cell = &g_array_index (self->table, BpwCompareTableCell, k);

      set_cell (cell, _(head[k]), k == 0 || k == BPW_COMPARE_TABLE_COLUMNS - 1 ? 0 : 1, 0);
      cell->header = TRUE;
    }
  for (guint c = 0; c < data->n_candidates; c++)
    {
      BpwCompareTableCell *row = &g_array_index (self->table, BpwCompareTableCell,
                                                 (c + 1) * BPW_COMPARE_TABLE_COLUMNS);
      const BpwCompareFit *f = fit (self, c, data->scenario);
      char buf[64];
      gboolean is_base = c == data->baseline;

      set_cell (&row[0], data->candidates[c], 0, 0);
      bpw_si_format (buf, sizeof buf, f->eval.step_time_s, "s", 4);
      set_cell (&row[1], f->ok ? buf : "—", 1, 0);
      delta_cell (&row[2], f->ok ? f->eval.step_time_s : NAN, base->eval.step_time_s, TRUE,
                  is_base);
      bpw_si_format_human (buf, sizeof buf, f->eval.tokens_per_s, NULL, 4);
      set_cell (&row[3], f->ok ? buf : "—", 1, 0);
      delta_cell (&row[4], f->ok ? f->eval.tokens_per_s : NAN, base->eval.tokens_per_s, FALSE,
                  is_base);
      g_snprintf (buf, sizeof buf, "%.1f%%", 100 * f->eval.mfu);
      set_cell (&row[5], f->ok && isfinite (f->eval.mfu) ? buf : "—", 1, 0);
      bpw_plot_format_bytes (BPW_PLOT (self), buf, sizeof buf, f->eval.peak_bytes);
      set_cell (&row[6], f->ok ? buf : "—", 1, 0);
      g_snprintf (buf, sizeof buf, "%.3f", suite != NULL ? suite->score[c] : NAN);
      set_cell (&row[7], suite != NULL && isfinite (suite->score[c]) ? buf : "—", 1, 0);
      if (suite != NULL)
        g_snprintf (buf, sizeof buf, "%s%s", suite->feasible[c] ? _("feasible") : _("infeasible"),
                    suite->pareto[c] ? _(", Pareto") : "");
      else
        g_strlcpy (buf, f->feasible ? _("feasible") : _("infeasible"), sizeof buf);
      set_cell (&row[8], buf, 0, suite != NULL && suite->pareto[c] ? 1
                                 : suite != NULL && !suite->feasible[c] ? -1 : 0);
    }
}

/* Column widths from the text; the table's rows from @y, @row_h each. */
static void
place_table (BpwComparePlot *self, BpwPlotText *text, double x, double y, double width,
             double row_h)
{
  guint rows = self->table->len / BPW_COMPARE_TABLE_COLUMNS;
  double widths[BPW_COMPARE_TABLE_COLUMNS] = { 0 }, total = 0, cx;

  for (guint i = 0; i < self->table->len; i++)
    {
      BpwCompareTableCell *cell = &g_array_index (self->table, BpwCompareTableCell, i);
      double w;

      bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, cell->text, 0, &w, NULL);
      widths[i % BPW_COMPARE_TABLE_COLUMNS] = MAX (widths[i % BPW_COMPARE_TABLE_COLUMNS],
                                                   w + 2 * CELL_PAD);
    }
  for (guint k = 0; k < BPW_COMPARE_TABLE_COLUMNS; k++)
    total += widths[k];
  /* Spare width goes to the status column; missing width is taken from the names. */
  if (width >= total)
    widths[BPW_COMPARE_TABLE_COLUMNS - 1] += width - total;
  else
    widths[0] = MAX (widths[0] + width - total, 40.0);
  self->table_area = (BpwPlotRect) { x, y, width, rows * row_h };
  for (guint r = 0; r < rows; r++)
    {
      cx = x;
      for (guint k = 0; k < BPW_COMPARE_TABLE_COLUMNS; k++)
        {
          BpwCompareTableCell *cell = &g_array_index (self->table, BpwCompareTableCell,
                                                      r * BPW_COMPARE_TABLE_COLUMNS + k);

          cell->rect = (BpwPlotRect) { cx, y + r * row_h, widths[k], row_h };
          cx += widths[k];
        }
    }
  self->table_columns = BPW_COMPARE_TABLE_COLUMNS;
}

static void
layout_rows (BpwComparePlot *self, BpwPlotText *text, const BpwPlotStyle *st, double col_w,
             double row_y, double row_h)
{
  const BpwCompareData *data = self->data;
  double bar_h = MIN (row_h * 0.62, MAX_BAR);

  for (guint c = 0; c < data->n_candidates; c++)
    {
      const BpwCompareFit *f = fit (self, c, data->scenario);
      BpwPlotRect row = { st->padding, row_y + c * row_h, 0, row_h };
      double cy = row.y + row_h / 2, x = self->scene->area.x;
      char value[BPW_SI_LABEL_MAX];

      row.width = self->heat_area.x + self->heat_area.width - row.x;
      g_array_append_val (self->row_rects, row);
      add_label (self, text, BPW_PLOT_FONT_BODY, data->candidates[c], self->scene->area.x - 6, cy,
                 1, 0.5, &st->foreground);
      for (guint p = 0; f->ok && p < BPW_N_BREAKDOWNS; p++)
        {
          double w = bpw_scale_map (&self->scene->xscale,
                                    f->eval.breakdown_s[p]) - self->scene->area.x;
          BpwCompareSegment seg = { { x, cy - bar_h / 2, w, bar_h }, c, p };

          if (!(f->eval.breakdown_s[p] > 0))
            continue;
          g_array_append_val (self->segments, seg);
          x += w;
        }
      bpw_si_format (value, sizeof value, f->eval.step_time_s, "s", 3);
      if (!f->ok)
        add_label (self, text, BPW_PLOT_FONT_SMALL, _("not evaluated"), x + 4, cy, 0, 0.5,
                   &st->muted);
      else
        {
          g_autofree char *str = f->legal ? g_strdup (value)
                                          : g_strdup_printf (_("%s (illegal)"), value);

          add_label (self, text, BPW_PLOT_FONT_SMALL, str, x + 4, cy, 0, 0.5,
                     f->legal ? &st->foreground : &st->muted);
        }
      for (guint s = 0; s < data->n_scenarios; s++)
        {
          const BpwCompareFit *g = fit (self, c, s);
          BpwPlotRect cell = { self->heat_area.x + s * col_w + 1, row.y + 1, col_w - 2,
                               row_h - 2 };
          BpwPlotColor fill = bpw_compare_fit_color (st, g);
          const BpwPlotColor dark = { 0.1, 0.1, 0.1, 1 }, light = { 1, 1, 1, 1 };
          const BpwPlotColor *ink = bpw_plot_color_luminance (&fill) > 0.35 ? &dark : &light;
          char status[48];
          double body_h;

          g_array_append_val (self->cells, cell);
          cell_texts (g, value, sizeof value, status, sizeof status);
          bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, "Ag", 0, NULL, &body_h);
          if (cell.height >= 2 * body_h)
            {
              add_label (self, text, BPW_PLOT_FONT_SMALL, value, cell.x + cell.width / 2,
                         cell.y + cell.height / 2, 0.5, 1, ink);
              add_label (self, text, BPW_PLOT_FONT_SMALL, status, cell.x + cell.width / 2,
                         cell.y + cell.height / 2, 0.5, 0, ink);
            }
          else
            {
              g_autofree char *both = g_strdup_printf ("%s %s", value, status);

              add_label (self, text, BPW_PLOT_FONT_SMALL, both, cell.x + cell.width / 2,
                         cell.y + cell.height / 2, 0.5, 0.5, ink);
            }
        }
    }
}

/* The table's rows, the heat map's cells, then the bars: where they touch, the last added
 * (a bar before a cell before a row) is the one hit. */
static void
add_targets (BpwComparePlot *self)
{
  const BpwCompareData *data = self->data;
  BpwPlot *plot = BPW_PLOT (self);

  for (guint r = data->n_candidates; r >= 1; r--)
    {
      const BpwCompareTableCell *c = &g_array_index (self->table, BpwCompareTableCell,
                                                     r * BPW_COMPARE_TABLE_COLUMNS);
      BpwPlotTarget t = {
        .hit = { .kind = BPW_PLOT_HIT_CELL,
                 .index = (gint) (data->n_candidates * data->n_scenarios + r - 1), .count = 1,
                 .lineage = BPW_PLOT_NO_LINEAGE,
                 .bounds = { self->table_area.x, c->rect.y, self->table_area.width,
                             c->rect.height } },
      };

      _bpw_plot_add_target (plot, &t);
    }
  for (guint i = self->cells->len; i-- > 0;)
    {
      BpwPlotTarget t = {
        .hit = { .kind = BPW_PLOT_HIT_CELL, .index = (gint) i, .count = 1,
                 .lineage = BPW_PLOT_NO_LINEAGE,
                 .bounds = g_array_index (self->cells, BpwPlotRect, i) },
      };

      _bpw_plot_add_target (plot, &t);
    }
  for (guint i = self->segments->len; i-- > 0;)
    {
      const BpwCompareSegment *s = &g_array_index (self->segments, BpwCompareSegment, i);
      BpwPlotTarget t = {
        .hit = { .kind = BPW_PLOT_HIT_ITEM,
                 .index = (gint) (s->candidate * BPW_N_BREAKDOWNS + s->part), .count = 1,
                 .lineage = BPW_PLOT_NO_LINEAGE, .bounds = s->rect },
      };

      _bpw_plot_add_target (plot, &t);
    }
}

void
_bpw_compare_plot_layout (BpwPlot               *plot,
                          const BpwPlotViewport *viewport,
                          double                 width,
                          double                 height)
{
  BpwComparePlot *self = BPW_COMPARE_PLOT (plot);
  const BpwCompareData *data = self->data;
  const BpwPlotStyle *st = bpw_plot_get_style (plot);
  BpwPlotText *text = _bpw_plot_get_text (plot);
  double pad = st->padding, top, bottom, small_h, axis_h, names = 0, col_w = 0, heat_w, x_extent;
  double tmax = 0, t0 = 0, row_y, row_h;
  g_autofree char *header = NULL;
  guint n = MAX (data->n_candidates, 1u);

  g_array_set_size (self->segments, 0);
  g_array_set_size (self->cells, 0);
  g_array_set_size (self->labels, 0);
  g_array_set_size (self->row_rects, 0);
  _bpw_plot_set_title (plot, data->title);
  top = _bpw_plot_title_init (&self->scene->title, text, st, data->title, width) + pad;
  build_legend (self, st);
  bpw_plot_legend_layout (&self->scene->legend, text, st, TRUE, 0, 0, width - 2 * pad);
  bottom = height - pad - self->scene->legend.height - pad;
  bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, "Ag", 0, NULL, &small_h);
  bpw_plot_text_measure (text, BPW_PLOT_FONT_AXIS, "Ag", 0, NULL, &axis_h);

  fill_table (self);
  place_table (self, text, pad, 0, width - 2 * pad, small_h + 5);
  bottom -= self->table_area.height + pad;
  place_table (self, text, pad, bottom + pad, width - 2 * pad, small_h + 5);

  for (guint c = 0; c < data->n_candidates; c++)
    {
      double w;

      bpw_plot_text_measure (text, BPW_PLOT_FONT_BODY, data->candidates[c], 0, &w, NULL);
      names = MAX (names, w);
      for (guint s = 0; s < data->n_scenarios; s++)
        {
          const BpwCompareFit *f = fit (self, c, s);
          char value[BPW_SI_LABEL_MAX], status[48];
          double w1, w2;

          cell_texts (f, value, sizeof value, status, sizeof status);
          bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, value, 0, &w1, NULL);
          bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, status, 0, &w2, NULL);
          col_w = MAX (col_w, MAX (w1, w2) + 2 * CELL_PAD);
        }
      if (fit (self, c, data->scenario)->ok)
        tmax = MAX (tmax, fit (self, c, data->scenario)->eval.step_time_s);
    }
  for (guint s = 0; s < data->n_scenarios; s++)
    {
      double w;

      bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, data->scenarios[s], 0, &w, NULL);
      col_w = MAX (col_w, w + CELL_PAD);
    }
  heat_w = MIN (col_w * data->n_scenarios, width * 0.45);
  col_w = data->n_scenarios > 0 ? heat_w / data->n_scenarios : 0;

  /* Room after the longest bar for its value. */
  tmax = tmax > 0 ? tmax * 1.18 : 1;
  bpw_scale_nice_domain (BPW_SCALE_LINEAR, &t0, &tmax, 5);
  bpw_axis_layout_init (&self->scene->xaxis, BPW_AXIS_BOTTOM, NULL, "s", TRUE);
  bpw_scale_init (&self->scene->xscale, BPW_SCALE_LINEAR, t0, tmax, 0, width);
  bpw_axis_layout_compute (&self->scene->xaxis, &self->scene->xscale, text, st);
  x_extent = bpw_axis_layout_extent (&self->scene->xaxis, st);

  self->heat_area = (BpwPlotRect) { width - pad - heat_w, top + axis_h + 4, heat_w, 0 };
  self->scene->area = (BpwPlotRect) { floor (pad + MIN (names, width * 0.25) + 10),
                                    self->heat_area.y, 0, 0 };
  self->scene->area.width = MAX (self->heat_area.x - 2 * pad - self->scene->area.x, 1.0);
  self->scene->area.height = MAX (bottom - x_extent - self->scene->area.y, 1.0);
  self->heat_area.height = self->scene->area.height;
  bpw_scale_init (&self->scene->xscale, BPW_SCALE_LINEAR, t0, tmax, self->scene->area.x,
                  self->scene->area.x + self->scene->area.width);
  bpw_axis_layout_compute (&self->scene->xaxis, &self->scene->xscale, text, st);

  header = g_strdup_printf (_("Step time breakdown: %s"), data->scenarios[data->scenario]);
  add_label (self, text, BPW_PLOT_FONT_AXIS, header, self->scene->area.x, top, 0, 0,
             &st->foreground);
  for (guint s = 0; s < data->n_scenarios; s++)
    add_label (self, text, BPW_PLOT_FONT_SMALL, data->scenarios[s],
               self->heat_area.x + (s + 0.5) * col_w, self->heat_area.y - 3, 0.5, 1,
               &st->foreground);
  row_y = self->scene->area.y;
  row_h = self->scene->area.height / n;
  layout_rows (self, text, st, col_w, row_y, row_h);
  bpw_plot_legend_move (&self->scene->legend, pad, height - pad - self->scene->legend.height);
  add_targets (self);
}
