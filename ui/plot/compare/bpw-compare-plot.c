/* bpw-compare-plot.c — N candidates side by side: breakdowns, deltas, the fit matrix
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Drawing, hit-testing, descriptions and CSV; the layout is in
 * bpw-compare-plot-layout.c.
 */
#define G_LOG_DOMAIN "bpw-compare-plot"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "bpw-compare-plot-private.h"
#include "bpw-error.h"
#include "bpw-plot-palette.h"

G_DEFINE_FINAL_TYPE (BpwComparePlot, bpw_compare_plot, BPW_TYPE_PLOT)

BpwPlotColor
bpw_compare_fit_color (const BpwPlotStyle  *st,
                         const BpwCompareFit *f)
{
  BpwPlotColor c;
  double strength;

  if (!f->ok || !f->legal)
    return bpw_plot_color_mix (&st->muted, &st->background, 0.7);
  if (f->has_sla)
    {
      /* A margin of 50 % or more is full strength; a bare pass or fail still shows. */
      strength = 0.3 + 0.7 * MIN (fabs (f->sla_margin) / 0.5, 1.0);
      bpw_plot_color_parse (f->sla_pass ? "#2e9e5b" : "#d1493f", &c);
    }
  else
    {
      strength = 0.25 + 0.75 * CLAMP (isfinite (f->relative) ? f->relative : 0, 0.0, 1.0);
      /* Slate, not the compute blue of the bars beside it. */
      bpw_plot_color_parse ("#4f6072", &c);
    }
  return bpw_plot_color_mix (&st->background, &c, strength);
}

static void
bpw_compare_plot_finalize (GObject *object)
{
  BpwComparePlot *self = BPW_COMPARE_PLOT (object);

  g_clear_pointer (&self->segments, g_array_unref);
  g_clear_pointer (&self->cells, g_array_unref);
  g_clear_pointer (&self->table, g_array_unref);
  g_clear_pointer (&self->labels, g_array_unref);
  g_clear_pointer (&self->row_rects, g_array_unref);

  G_OBJECT_CLASS (bpw_compare_plot_parent_class)->finalize (object);
}

static void
draw_table (BpwComparePlot *self, cairo_t *cr, BpwPlotText *text, const BpwPlotStyle *st)
{
  guint cols = BPW_COMPARE_TABLE_COLUMNS;
  const BpwPlotColor better = st->bottleneck[BPW_BOTTLENECK_LATENCY];
  const BpwPlotColor worse = st->bottleneck[BPW_BOTTLENECK_CAPACITY];

  for (guint r = 0; r * cols < self->table->len; r++)
    {
      const BpwCompareTableCell *first = &g_array_index (self->table, BpwCompareTableCell,
                                                         r * cols);

      if (r == 0 || r % 2 == 0)
        {
          cairo_rectangle (cr, self->table_area.x, first->rect.y, self->table_area.width,
                           first->rect.height);
          bpw_plot_set_source (cr, r == 0 ? &st->band[1] : &st->band[0]);
          cairo_fill (cr);
        }
    }
  for (guint i = 0; i < self->table->len; i++)
    {
      const BpwCompareTableCell *c = &g_array_index (self->table, BpwCompareTableCell, i);
      double x = c->ax > 0 ? c->rect.x + c->rect.width - 6 : c->rect.x + 6;

      if (c->header)
        bpw_plot_text_draw (text, cr, BPW_PLOT_FONT_SMALL, c->text, 0, x,
                            c->rect.y + c->rect.height / 2, c->ax, 0.5, 0, &st->muted);
      else
        bpw_plot_text_draw (text, cr, BPW_PLOT_FONT_SMALL, c->text, 0, x,
                            c->rect.y + c->rect.height / 2, c->ax, 0.5, 0,
                            c->tone > 0 ? &better : c->tone < 0 ? &worse : &st->foreground);
    }
}

static void
bpw_compare_plot_draw (BpwPlot *plot,
                       cairo_t *cr)
{
  BpwComparePlot *self = BPW_COMPARE_PLOT (plot);
  const BpwPlotStyle *st = bpw_plot_get_style (plot);
  BpwPlotText *text = _bpw_plot_get_text (plot);
  guint n_scen = self->data->n_scenarios;

  for (guint r = 0; r < self->row_rects->len; r++)
    {
      const BpwPlotRect *row = &g_array_index (self->row_rects, BpwPlotRect, r);

      if (r == self->data->baseline)
        {
          cairo_rectangle (cr, row->x, row->y, self->scene->area.x + self->scene->area.width -
                           row->x, row->height);
          bpw_plot_set_source (cr, &st->band[0]);
          cairo_fill (cr);
        }
    }
  bpw_axis_layout_draw_grid (&self->scene->xaxis, cr, st, &self->scene->area);
  for (guint p = 0; p < BPW_N_BREAKDOWNS; p++)
    {
      BpwPlotColor c = bpw_plot_breakdown_color (st, p);
      gboolean any = FALSE;

      for (guint i = 0; i < self->segments->len; i++)
        {
          const BpwCompareSegment *s = &g_array_index (self->segments, BpwCompareSegment, i);

          if (s->part != p)
            continue;
          cairo_rectangle (cr, s->rect.x, s->rect.y, MAX (s->rect.width, 0.5), s->rect.height);
          any = TRUE;
        }
      if (any)
        {
          bpw_plot_set_source (cr, &c);
          cairo_fill (cr);
        }
    }
  for (guint i = 0; i < self->cells->len; i++)
    {
      const BpwPlotRect *r = &g_array_index (self->cells, BpwPlotRect, i);
      BpwPlotColor fill = bpw_compare_fit_color (st, bpw_compare_data_cell (
                                                          self->data, i / MAX (n_scen, 1u),
                                                          i % MAX (n_scen, 1u)));

      cairo_rectangle (cr, r->x, r->y, r->width, r->height);
      bpw_plot_set_source (cr, &fill);
      cairo_fill (cr);
    }
  bpw_axis_layout_draw (&self->scene->xaxis, cr, text, st, &self->scene->area);
  draw_table (self, cr, text, st);
  _bpw_plot_draw_labels (text, cr, self->labels);
  _bpw_plot_draw_label (text, cr, &self->scene->title);
  bpw_plot_legend_draw (&self->scene->legend, cr, text, st);
}

static char *
describe_cell (BpwComparePlot *self, guint c, guint s)
{
  const BpwCompareData *data = self->data;
  const BpwCompareFit *f = bpw_compare_data_cell (data, c, s);
  char value[BPW_SI_LABEL_MAX], limit[BPW_SI_LABEL_MAX], peak[BPW_SI_LABEL_MAX];
  char rate[BPW_SI_LABEL_MAX];

  if (!f->ok)
    return g_strdup_printf (_("%s on %s: not evaluated: %s"), data->candidates[c],
                            data->scenarios[s], f->error != NULL ? f->error : "");
  bpw_si_format (value, sizeof value, f->value, "s", 4);
  bpw_si_format (limit, sizeof limit, f->sla_limit, "s", 4);
  bpw_plot_format_bytes (BPW_PLOT (self), peak, sizeof peak, f->eval.peak_bytes);
  bpw_si_format_human (rate, sizeof rate, f->eval.tokens_per_s, NULL, 4);
  return g_strdup_printf (_("%s on %s (%" PRId64 " devices)\n%s %s%s%s\n"
                          "%s tokens/s (%.2f× the best), MFU %.1f%%, peak memory %s\n"
                          "Bottleneck: %s%s%s"),
                          data->candidates[c], data->scenarios[s], f->devices, f->metric, value,
                          f->has_sla ? (f->sla_pass ? _(", meets the SLA of ") : _(", fails the SLA of "))
                                     : _(", no SLA"),
                          f->has_sla ? limit : "", rate,
                          isfinite (f->relative) ? f->relative : 0, 100 * f->eval.mfu, peak,
                          bpw_bottleneck_display_name (f->eval.bottleneck),
                          f->legal ? "" : _("\nIllegal: "), f->legal || f->error == NULL ? ""
                                                                                     : f->error);
}

static char *
bpw_compare_plot_describe (BpwPlot          *plot,
                           const BpwPlotHit *hit)
{
  BpwComparePlot *self = BPW_COMPARE_PLOT (plot);
  const BpwCompareData *data = self->data;
  guint cells = data->n_candidates * data->n_scenarios;

  if (hit->kind == BPW_PLOT_HIT_ITEM && hit->index >= 0 &&
      (guint) hit->index < data->n_candidates * BPW_N_BREAKDOWNS)
    {
      guint c = hit->index / BPW_N_BREAKDOWNS, p = hit->index % BPW_N_BREAKDOWNS;
      const BpwCompareFit *f = bpw_compare_data_cell (data, c, data->scenario);
      char part[BPW_SI_LABEL_MAX];

      bpw_si_format (part, sizeof part, f->eval.breakdown_s[p], "s", 4);
      return g_strdup_printf (_("%s on %s: %s %s, %.1f%% of the step"),
                              data->candidates[c], data->scenarios[data->scenario],
                              bpw_plot_breakdown_name (p), part,
                              f->eval.step_time_s > 0
                                ? 100 * f->eval.breakdown_s[p] / f->eval.step_time_s : 0.0);
    }
  if (hit->kind == BPW_PLOT_HIT_CELL && hit->index >= 0 && (guint) hit->index < cells)
    return describe_cell (self, hit->index / data->n_scenarios,
                          hit->index % data->n_scenarios);
  if (hit->kind == BPW_PLOT_HIT_CELL && hit->index >= 0 &&
      (guint) hit->index < cells + data->n_candidates)
    return describe_cell (self, hit->index - cells, data->scenario);
  if (hit->kind == BPW_PLOT_HIT_LEGEND && hit->index >= 0)
    return g_strdup (self->scene->legend.entries[hit->index].label);
  return NULL;
}

static char *
bpw_compare_plot_to_csv (BpwPlot *plot)
{
  BpwComparePlot *self = BPW_COMPARE_PLOT (plot);
  const BpwCompareData *data = self->data;
  GString *out = g_string_new ("series,candidate,scenario,key,value,sla_limit_s,sla_margin,"
                               "sla_pass,legal,feasible,tokens_per_s,relative,mfu,"
                               "peak_bytes,step_time_s\n");

  for (guint c = 0; c < data->n_candidates; c++)
    for (guint s = 0; s < data->n_scenarios; s++)
      {
        const BpwCompareFit *f = bpw_compare_data_cell (data, c, s);

        _bpw_csv_text (out, "fit");
        _bpw_csv_text (out, data->candidates[c]);
        _bpw_csv_text (out, data->scenarios[s]);
        _bpw_csv_text (out, f->metric);
        _bpw_csv_number (out, f->ok ? f->value : NAN);
        _bpw_csv_number (out, f->has_sla ? f->sla_limit : NAN);
        _bpw_csv_number (out, f->has_sla ? f->sla_margin : NAN);
        g_string_append_printf (out, "%s,%s,%s,", f->has_sla ? (f->sla_pass ? "true" : "false")
                                                             : "",
                                f->legal ? "true" : "false", f->feasible ? "true" : "false");
        _bpw_csv_number (out, f->ok ? f->eval.tokens_per_s : NAN);
        _bpw_csv_number (out, f->relative);
        _bpw_csv_number (out, f->ok ? f->eval.mfu : NAN);
        _bpw_csv_number (out, f->ok ? f->eval.peak_bytes : NAN);
        _bpw_csv_number (out, f->ok ? f->eval.step_time_s : NAN);
        _bpw_csv_end (out);
      }
  for (guint c = 0; c < data->n_candidates; c++)
    {
      const BpwCompareFit *f = bpw_compare_data_cell (data, c, data->scenario);

      for (guint p = 0; f->ok && p < BPW_N_BREAKDOWNS; p++)
        {
          _bpw_csv_text (out, "breakdown");
          _bpw_csv_text (out, data->candidates[c]);
          _bpw_csv_text (out, data->scenarios[data->scenario]);
          _bpw_csv_text (out, bpw_breakdown_to_string (p));
          _bpw_csv_number (out, f->eval.breakdown_s[p]);
          _bpw_csv_end (out);
        }
    }
  for (guint i = 0; i < data->suites->len; i++)
    {
      const BpwCompareDataSuite *s = &g_array_index (data->suites, BpwCompareDataSuite, i);

      for (guint c = 0; c < data->n_candidates; c++)
        {
          _bpw_csv_text (out, "suite");
          _bpw_csv_text (out, data->candidates[c]);
          _bpw_csv_text (out, s->name);
          _bpw_csv_text (out, s->pareto[c] ? "pareto" : "score");
          _bpw_csv_number (out, s->score[c]);
          g_string_append_printf (out, ",,,,%s,", s->feasible[c] ? "true" : "false");
          _bpw_csv_end (out);
        }
    }
  return g_string_free (out, FALSE);
}

static gboolean
bpw_compare_plot_get_bounds (BpwPlot         *plot,
                             BpwPlotViewport *bounds)
{
  BpwComparePlot *self = BPW_COMPARE_PLOT (plot);

  *bounds = (BpwPlotViewport) { 0, 1, 0, self->data->n_candidates };
  return self->data->n_candidates > 0;
}

static void
bpw_compare_plot_class_init (BpwComparePlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  BpwPlotClass *plot_class = BPW_PLOT_CLASS (klass);

  object_class->finalize = bpw_compare_plot_finalize;
  plot_class->get_bounds = bpw_compare_plot_get_bounds;
  plot_class->layout = _bpw_compare_plot_layout;
  plot_class->draw = bpw_compare_plot_draw;
  plot_class->describe = bpw_compare_plot_describe;
  plot_class->to_csv = bpw_compare_plot_to_csv;
  _bpw_plot_class_set_data_type (plot_class, G_STRUCT_OFFSET (BpwComparePlot, data),
                                 G_STRUCT_OFFSET (BpwCompareData, title), NULL,
                                 (GDestroyNotify) bpw_compare_data_free);
}

static void
bpw_compare_plot_init (BpwComparePlot *self)
{
  self->scene = _bpw_plot_get_scene (BPW_PLOT (self));
  self->segments = g_array_new (FALSE, FALSE, sizeof (BpwCompareSegment));
  self->cells = g_array_new (FALSE, FALSE, sizeof (BpwPlotRect));
  self->table = g_array_new (FALSE, TRUE, sizeof (BpwCompareTableCell));
  self->labels = g_array_new (FALSE, FALSE, sizeof (BpwPlotLabel));
  self->row_rects = g_array_new (FALSE, FALSE, sizeof (BpwPlotRect));
}

BpwComparePlot *
bpw_compare_plot_new (BpwCompareData *data)
{
  BpwComparePlot *self;

  g_return_val_if_fail (data != NULL, NULL);

  self = g_object_new (BPW_TYPE_COMPARE_PLOT, NULL);
  _bpw_plot_set_data (BPW_PLOT (self), data);
  return self;
}

BpwComparePlot *
bpw_compare_plot_new_for_study (BpwStudy   *study,
                                const char *scenario,
                                const char *baseline,
                                GError    **error)
{
  g_autoptr(BpwComparison) cmp = NULL;
  BpwCompareOptions options;
  BpwCompareData *data;
  guint s = 0, b = 0;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);

  if (scenario != NULL && !bpw_study_lookup_scenario (study, scenario, &s))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("The study has no scenario “%s”."), scenario);
      return NULL;
    }
  for (b = 0; baseline != NULL && b < bpw_study_get_n_candidates (study); b++)
    if (strcmp (bpw_study_get_candidate (study, b)->name, baseline) == 0)
      break;
  if (baseline != NULL && b == bpw_study_get_n_candidates (study))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("The study has no candidate “%s”."), baseline);
      return NULL;
    }
  bpw_compare_options_init (&options);
  cmp = bpw_compare_study (study, &options, NULL, error);
  if (cmp == NULL)
    return NULL;
  data = bpw_compare_data_new_from_comparison (cmp, study);
  data->scenario = s;
  data->baseline = b;
  return bpw_compare_plot_new (data);
}

const BpwCompareData *
bpw_compare_plot_get_data (BpwComparePlot *self)
{
  g_return_val_if_fail (BPW_IS_COMPARE_PLOT (self), NULL);

  return self->data;
}

void
bpw_compare_plot_set_scenario (BpwComparePlot *self,
                               guint           scenario)
{
  g_return_if_fail (BPW_IS_COMPARE_PLOT (self));
  g_return_if_fail (scenario < self->data->n_scenarios);

  self->data->scenario = scenario;
  bpw_plot_changed (BPW_PLOT (self));
}

void
bpw_compare_plot_set_baseline (BpwComparePlot *self,
                               guint           candidate)
{
  g_return_if_fail (BPW_IS_COMPARE_PLOT (self));
  g_return_if_fail (candidate < self->data->n_candidates);

  self->data->baseline = candidate;
  bpw_plot_changed (BPW_PLOT (self));
}

const BpwCompareSegment *
bpw_compare_plot_get_segments (BpwComparePlot *self,
                               guint          *n_segments)
{
  g_return_val_if_fail (BPW_IS_COMPARE_PLOT (self), NULL);

  *n_segments = self->segments->len;
  return (const BpwCompareSegment *) self->segments->data;
}

gboolean
bpw_compare_plot_get_cell_rect (BpwComparePlot *self,
                                guint           candidate,
                                guint           scenario,
                                BpwPlotRect    *rect)
{
  guint i;

  g_return_val_if_fail (BPW_IS_COMPARE_PLOT (self), FALSE);

  i = candidate * self->data->n_scenarios + scenario;
  if (candidate >= self->data->n_candidates || scenario >= self->data->n_scenarios ||
      i >= self->cells->len)
    return FALSE;
  *rect = g_array_index (self->cells, BpwPlotRect, i);
  return TRUE;
}

guint
bpw_compare_plot_get_n_table_rows (BpwComparePlot *self)
{
  g_return_val_if_fail (BPW_IS_COMPARE_PLOT (self), 0);

  return self->table->len / BPW_COMPARE_TABLE_COLUMNS;
}

const char *
bpw_compare_plot_get_table_text (BpwComparePlot *self,
                                 guint           row,
                                 guint           column)
{
  g_return_val_if_fail (BPW_IS_COMPARE_PLOT (self), NULL);

  if (column >= BPW_COMPARE_TABLE_COLUMNS ||
      (row + 1) * BPW_COMPARE_TABLE_COLUMNS > self->table->len)
    return NULL;
  return g_array_index (self->table, BpwCompareTableCell,
                        row * BPW_COMPARE_TABLE_COLUMNS + column).text;
}
