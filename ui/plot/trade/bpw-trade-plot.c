/* bpw-trade-plot.c — throughput against latency from serving sweeps, one curve per candidate
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Drawing, hit-testing, descriptions and CSV; the layout is in bpw-trade-plot-layout.c.
 */
#define G_LOG_DOMAIN "bpw-trade-plot"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>

#include "bpw-plot-palette.h"
#include "bpw-trade-plot-private.h"

G_DEFINE_FINAL_TYPE (BpwTradePlot, bpw_trade_plot, BPW_TYPE_PLOT)

double
bpw_trade_point_y (const BpwTradeData  *data,
                   const BpwTradePoint *p,
                   BpwTradeY            y)
{
  const BpwTradeSeries *s;

  g_return_val_if_fail (data != NULL && p != NULL, NAN);

  s = &g_array_index (data->series, BpwTradeSeries, p->series);
  switch (y)
    {
    case BPW_TRADE_Y_PER_WATT:
      return s->power_w > 0 ? p->throughput / s->power_w : NAN;
    case BPW_TRADE_Y_PER_DOLLAR:
      {
        BpwPriceUnit unit;

        /* Drawn only when every candidate is priced in one unit; hourly prices give tokens
         * per dollar. */
        if (!bpw_trade_data_cost_unit (data, &unit, NULL) || !(s->cost > 0))
          return NAN;
        return unit == BPW_PRICE_PER_DEVICE_HOUR ? p->throughput * 3600 / s->cost
                                                 : p->throughput / s->cost;
      }
    case BPW_TRADE_Y_THROUGHPUT:
    default:
      return p->throughput;
    }
}

static void
bpw_trade_plot_finalize (GObject *object)
{
  BpwTradePlot *self = BPW_TRADE_PLOT (object);

  g_clear_pointer (&self->marks, g_array_unref);
  g_clear_pointer (&self->front, g_array_unref);
  g_clear_pointer (&self->labels, g_array_unref);
  g_clear_pointer (&self->pareto, g_free);

  G_OBJECT_CLASS (bpw_trade_plot_parent_class)->finalize (object);
}

static void
draw_series (BpwTradePlot *self, cairo_t *cr, const BpwPlotStyle *st)
{
  const double dash[] = { 4.0, 2.5 };
  BpwPlotColor black = { 0, 0, 0, 1 };

  for (guint q = 0; q < 2; q++)
    for (guint s = 0; s < self->data->series->len; s++)
      {
        BpwPlotColor c = bpw_plot_series_color (st, s);
        gboolean started = FALSE;

        for (guint i = 0; i < self->marks->len; i++)
          {
            const BpwTradeMark *m = &g_array_index (self->marks, BpwTradeMark, i);
            const BpwTradePoint *p = &g_array_index (self->data->points, BpwTradePoint,
                                                     m->point);

            if (p->series != s || m->p99 != (q == 1))
              continue;
            if (started)
              cairo_line_to (cr, m->x, m->y);
            else
              cairo_move_to (cr, m->x, m->y);
            started = TRUE;
          }
        cairo_set_dash (cr, q == 1 ? dash : NULL, q == 1 ? 2 : 0, 0);
        cairo_set_line_width (cr, q == 0 ? 1.8 : 1.2);
        bpw_plot_set_source (cr, &c);
        cairo_stroke (cr);
        cairo_set_dash (cr, NULL, 0, 0);
        for (guint i = 0; i < self->marks->len; i++)
          {
            const BpwTradeMark *m = &g_array_index (self->marks, BpwTradeMark, i);
            const BpwTradePoint *p = &g_array_index (self->data->points, BpwTradePoint,
                                                     m->point);
            BpwPlotColor edge = bpw_plot_color_mix (&c, &black, 0.35);

            if (p->series != s || m->p99 != (q == 1))
              continue;
            cairo_new_path (cr);
            cairo_arc (cr, m->x, m->y, DOT_RADIUS, 0, 2 * G_PI);
            bpw_plot_set_source (cr, q == 0 ? &c : &st->background);
            cairo_fill_preserve (cr);
            cairo_set_line_width (cr, q == 0 ? 0.6 : 1.3);
            bpw_plot_set_source (cr, q == 0 ? &edge : &c);
            cairo_stroke (cr);
          }
      }
}

static void
bpw_trade_plot_draw (BpwPlot *plot,
                     cairo_t *cr)
{
  BpwTradePlot *self = BPW_TRADE_PLOT (plot);
  const BpwPlotStyle *st = bpw_plot_get_style (plot);
  BpwPlotText *text = _bpw_plot_get_text (plot);
  const BpwPlotRect *a = &self->scene->area;
  const double dash[] = { 5.0, 3.0 };

  if (isfinite (self->sla_x))
    {
      BpwPlotColor sla = bpw_plot_color_mix (&st->bottleneck[BPW_BOTTLENECK_LATENCY],
                                             &st->background, 0.88);

      cairo_rectangle (cr, a->x, a->y, self->sla_x - a->x, a->height);
      bpw_plot_set_source (cr, &sla);
      cairo_fill (cr);
    }
  bpw_axis_layout_draw_grid (&self->scene->xaxis, cr, st, a);
  bpw_axis_layout_draw_grid (&self->scene->yaxis, cr, st, a);

  cairo_save (cr);
  cairo_rectangle (cr, a->x, a->y, a->width, a->height);
  cairo_clip (cr);
  if (isfinite (self->sla_x))
    {
      cairo_set_dash (cr, dash, 2, 0);
      cairo_set_line_width (cr, 1);
      bpw_plot_set_source (cr, &st->bottleneck[BPW_BOTTLENECK_LATENCY]);
      cairo_move_to (cr, self->sla_x, a->y);
      cairo_line_to (cr, self->sla_x, a->y + a->height);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
  if (self->front->len >= 4)
    {
      BpwPlotColor band = st->accent;

      /* Under the curves: a broad translucent stroke that the series lines cross. */
      band.a = 0.3;
      cairo_move_to (cr, g_array_index (self->front, double, 0),
                     g_array_index (self->front, double, 1));
      for (guint i = 2; i + 1 < self->front->len; i += 2)
        cairo_line_to (cr, g_array_index (self->front, double, i),
                       g_array_index (self->front, double, i + 1));
      cairo_set_line_width (cr, 7);
      cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
      cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
      bpw_plot_set_source (cr, &band);
      cairo_stroke (cr);
    }
  draw_series (self, cr, st);
  cairo_restore (cr);

  bpw_axis_layout_draw (&self->scene->xaxis, cr, text, st, a);
  bpw_axis_layout_draw (&self->scene->yaxis, cr, text, st, a);
  _bpw_plot_draw_labels (text, cr, self->labels);
  _bpw_plot_draw_label (text, cr, &self->scene->title);
  bpw_plot_legend_draw (&self->scene->legend, cr, text, st);
}

static void
append_stats (GString *out, const char *name, const BpwLatencyStats *s)
{
  char p50[BPW_SI_LABEL_MAX], p99[BPW_SI_LABEL_MAX];

  bpw_si_format (p50, sizeof p50, s->p50, "s", 3);
  bpw_si_format (p99, sizeof p99, s->p99, "s", 3);
  g_string_append_printf (out, "\n%s: p50 %s, p99 %s", name, p50, p99);
}

static char *
describe_point (BpwTradePlot *self, guint i, gboolean p99)
{
  const BpwTradeData *data = self->data;
  const BpwTradePoint *p = &g_array_index (data->points, BpwTradePoint, i);
  const BpwTradeSeries *s = &g_array_index (data->series, BpwTradeSeries, p->series);
  GString *out = g_string_new (NULL);
  char rate[BPW_SI_LABEL_MAX], throughput[BPW_SI_LABEL_MAX], per[BPW_SI_LABEL_MAX];

  bpw_si_format_human (rate, sizeof rate, p->arrival_rate, NULL, 3);
  bpw_si_format_human (throughput, sizeof throughput, p->throughput, NULL, 4);
  g_string_append_printf (out, _("%s at %s requests/s (%.0f%% of the estimated saturation), "
                          "%s shown\nThroughput %s output tokens/s on %" PRId64
                          " devices"), s->name, rate,
                          s->saturation > 0 ? 100 * p->arrival_rate / s->saturation : 0.0,
                          p99 ? "p99" : "p50", throughput, s->devices);
  if (s->power_w > 0)
    {
      bpw_si_format_human (per, sizeof per, p->throughput / s->power_w, NULL, 3);
      g_string_append_printf (out, _("; %s tokens/J at the modelled power"), per);
    }
  if (s->cost > 0 && s->cost_unit == BPW_PRICE_PER_DEVICE_HOUR)
    {
      bpw_si_format_human (per, sizeof per, p->throughput * 3600 / s->cost, NULL, 3);
      g_string_append_printf (out, _("; %s tokens per $"), per);
    }
  else if (s->cost > 0)
    {
      bpw_si_format_human (per, sizeof per, p->throughput / s->cost, NULL, 3);
      g_string_append_printf (out, _("; %s tokens/s per $"), per);
    }
  append_stats (out, _("Time to first token"), &p->latency[BPW_TRADE_LATENCY_TTFT]);
  append_stats (out, _("Time per output token"), &p->latency[BPW_TRADE_LATENCY_TPOT]);
  append_stats (out, _("End to end"), &p->latency[BPW_TRADE_LATENCY_E2E]);
  if (s->disaggregated && isfinite (p->prefill_utilisation))
    g_string_append_printf (out, _("\nPools busy: prefill %.1f %%, decode %.1f %%"),
                            100 * p->prefill_utilisation, 100 * p->decode_utilisation);
  g_string_append_printf (out, _("\n%" PRId64 " requests served, %" PRId64
                          " rejected%s"), p->requests, p->rejected,
                          self->pareto != NULL && self->pareto[i] ? _("; on the Pareto front") : "");
  return g_string_free (out, FALSE);
}

static char *
bpw_trade_plot_describe (BpwPlot          *plot,
                         const BpwPlotHit *hit)
{
  BpwTradePlot *self = BPW_TRADE_PLOT (plot);

  if (hit->kind == BPW_PLOT_HIT_ITEM && hit->index >= 0 &&
      (guint) hit->index / 2 < self->data->points->len)
    return describe_point (self, (guint) hit->index / 2, hit->index % 2 == 1);
  if (hit->kind == BPW_PLOT_HIT_LEGEND && hit->index >= 0)
    return g_strdup (self->scene->legend.entries[hit->index].label);
  return NULL;
}

static char *
bpw_trade_plot_to_csv (BpwPlot *plot)
{
  BpwTradePlot *self = BPW_TRADE_PLOT (plot);
  const BpwTradeData *data = self->data;
  GString *out = g_string_new ("candidate,devices,power_w,cost,arrival_rate,requests,rejected,"
                               "throughput_tokens_per_s,y,ttft_p50_s,ttft_p99_s,tpot_p50_s,"
                               "tpot_p99_s,e2e_p50_s,e2e_p99_s,pareto,prefill_utilisation,"
                               "decode_utilisation\n");

  if (self->pareto == NULL)
    _bpw_trade_plot_update_pareto (self);
  for (guint i = 0; i < data->points->len; i++)
    {
      const BpwTradePoint *p = &g_array_index (data->points, BpwTradePoint, i);
      const BpwTradeSeries *s = &g_array_index (data->series, BpwTradeSeries, p->series);

      _bpw_csv_text (out, s->name);
      g_string_append_printf (out, "%" G_GINT64_FORMAT ",", s->devices);
      _bpw_csv_number (out, s->power_w);
      _bpw_csv_number (out, s->cost);
      _bpw_csv_number (out, p->arrival_rate);
      g_string_append_printf (out, "%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",", p->requests,
                              p->rejected);
      _bpw_csv_number (out, p->throughput);
      _bpw_csv_number (out, bpw_trade_point_y (data, p, self->y));
      for (guint m = 0; m < BPW_TRADE_N_LATENCIES; m++)
        {
          _bpw_csv_number (out, p->latency[m].p50);
          _bpw_csv_number (out, p->latency[m].p99);
        }
      g_string_append (out, self->pareto[i] ? "true," : "false,");
      /* Each pool's busy fraction; empty for a colocated point. */
      _bpw_csv_number (out, s->disaggregated ? p->prefill_utilisation : NAN);
      _bpw_csv_number (out, s->disaggregated ? p->decode_utilisation : NAN);
      _bpw_csv_end (out);
    }
  return g_string_free (out, FALSE);
}

static gboolean
bpw_trade_plot_get_bounds (BpwPlot         *plot,
                           BpwPlotViewport *bounds)
{
  BpwTradePlot *self = BPW_TRADE_PLOT (plot);
  double x0 = G_MAXDOUBLE, x1 = 0, y1 = 0;

  for (guint i = 0; i < self->data->points->len; i++)
    {
      const BpwTradePoint *p = &g_array_index (self->data->points, BpwTradePoint, i);
      double y = bpw_trade_point_y (self->data, p, self->y);

      if (!isfinite (y) || !(p->latency[self->metric].p50 > 0))
        continue;
      x0 = MIN (x0, p->latency[self->metric].p50);
      x1 = MAX (x1, p->latency[self->metric].p99);
      y1 = MAX (y1, y);
    }
  *bounds = (BpwPlotViewport) { x0 / 1.6, x1 * 1.6, 0, y1 * 1.08 };
  return x1 > 0 && x0 < G_MAXDOUBLE;
}

static gpointer
new_empty_data (void)
{
  return bpw_trade_data_new (NULL, NULL);
}

static void
bpw_trade_plot_data_changed (BpwPlot *plot)
{
  BpwTradePlot *self = BPW_TRADE_PLOT (plot);

  self->metric = self->data->metric;
  _bpw_trade_plot_update_pareto (self);
}

static void
bpw_trade_plot_class_init (BpwTradePlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  BpwPlotClass *plot_class = BPW_PLOT_CLASS (klass);

  object_class->finalize = bpw_trade_plot_finalize;
  plot_class->get_bounds = bpw_trade_plot_get_bounds;
  plot_class->layout = _bpw_trade_plot_layout;
  plot_class->draw = bpw_trade_plot_draw;
  plot_class->describe = bpw_trade_plot_describe;
  plot_class->to_csv = bpw_trade_plot_to_csv;
  plot_class->data_changed = bpw_trade_plot_data_changed;
  _bpw_plot_class_set_data_type (plot_class, G_STRUCT_OFFSET (BpwTradePlot, data),
                                 G_STRUCT_OFFSET (BpwTradeData, title), new_empty_data,
                                 (GDestroyNotify) bpw_trade_data_free);
}

static void
bpw_trade_plot_init (BpwTradePlot *self)
{
  self->scene = _bpw_plot_get_scene (BPW_PLOT (self));
  self->marks = g_array_new (FALSE, FALSE, sizeof (BpwTradeMark));
  self->front = g_array_new (FALSE, FALSE, sizeof (double));
  self->labels = g_array_new (FALSE, FALSE, sizeof (BpwPlotLabel));
  self->sla_x = NAN;
}

BpwTradePlot *
bpw_trade_plot_new (BpwTradeData *data)
{
  BpwTradePlot *self = g_object_new (BPW_TYPE_TRADE_PLOT, NULL);

  bpw_trade_plot_set_data (self, data);
  return self;
}

void
bpw_trade_plot_set_data (BpwTradePlot *self,
                         BpwTradeData *data)
{
  g_return_if_fail (BPW_IS_TRADE_PLOT (self));

  _bpw_plot_set_data (BPW_PLOT (self), data);
}

const BpwTradeData *
bpw_trade_plot_get_data (BpwTradePlot *self)
{
  g_return_val_if_fail (BPW_IS_TRADE_PLOT (self), NULL);

  return self->data;
}

void
bpw_trade_plot_set_latency (BpwTradePlot    *self,
                            BpwTradeLatency  metric)
{
  g_return_if_fail (BPW_IS_TRADE_PLOT (self));
  g_return_if_fail (metric < BPW_TRADE_N_LATENCIES);

  if (self->metric == metric)
    return;
  self->metric = metric;
  _bpw_trade_plot_update_pareto (self);
  bpw_plot_changed (BPW_PLOT (self));
}

void
bpw_trade_plot_set_y (BpwTradePlot *self,
                      BpwTradeY     y)
{
  g_return_if_fail (BPW_IS_TRADE_PLOT (self));
  g_return_if_fail (y < BPW_TRADE_N_YS);

  if (self->y == y)
    return;
  self->y = y;
  _bpw_trade_plot_update_pareto (self);
  bpw_plot_changed (BPW_PLOT (self));
}

BpwTradeY
bpw_trade_plot_get_y (BpwTradePlot *self)
{
  g_return_val_if_fail (BPW_IS_TRADE_PLOT (self), BPW_TRADE_Y_THROUGHPUT);

  return self->y;
}

gboolean
bpw_trade_plot_is_pareto (BpwTradePlot *self,
                          guint         point)
{
  g_return_val_if_fail (BPW_IS_TRADE_PLOT (self), FALSE);

  return point < self->data->points->len && self->pareto != NULL && self->pareto[point];
}

const BpwTradeMark *
bpw_trade_plot_get_marks (BpwTradePlot *self,
                          guint        *n_marks)
{
  g_return_val_if_fail (BPW_IS_TRADE_PLOT (self), NULL);

  *n_marks = self->marks->len;
  return (const BpwTradeMark *) self->marks->data;
}

double
bpw_trade_plot_map_latency (BpwTradePlot *self,
                            double        latency_s)
{
  g_return_val_if_fail (BPW_IS_TRADE_PLOT (self), NAN);

  return latency_s > 0 ? bpw_scale_map (&self->scene->xscale, latency_s) : NAN;
}
