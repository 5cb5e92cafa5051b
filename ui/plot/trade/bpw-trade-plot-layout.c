/* bpw-trade-plot-layout.c — the trade chart's layout: data + options + size → scene
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pure: reads the data, the options and the style; writes only the plot's scene arrays.
 */
#define G_LOG_DOMAIN "bpw-trade-plot"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "bpw-plot-palette.h"
#include "bpw-trade-plot-private.h"

static const BpwTradePoint *
point (const BpwTradeData *data, guint i)
{
  return &g_array_index (data->points, BpwTradePoint, i);
}

static gboolean
candidate (BpwTradePlot *self, guint i, double *lat, double *y)
{
  const BpwTradePoint *p = point (self->data, i);

  *lat = p->latency[self->metric].p99;
  *y = bpw_trade_point_y (self->data, p, self->y);
  return p->rejected == 0 && isfinite (*lat) && *lat > 0 && isfinite (*y);
}

void
_bpw_trade_plot_update_pareto (BpwTradePlot *self)
{
  guint n = self->data->points->len;

  g_free (self->pareto);
  self->pareto = g_new0 (gboolean, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      double li, yi;
      gboolean dominated = FALSE;

      if (!candidate (self, i, &li, &yi))
        continue;
      for (guint j = 0; j < n && !dominated; j++)
        {
          double lj, yj;

          if (j != i && candidate (self, j, &lj, &yj))
            dominated = lj <= li && yj >= yi && (lj < li || yj > yi);
        }
      self->pareto[i] = !dominated;
    }
}

static const char *
y_title (BpwTradeY y, const BpwTradeData *data)
{
  BpwPriceUnit unit = BPW_PRICE_PER_DEVICE;

  switch (y)
    {
    case BPW_TRADE_Y_PER_WATT:
      return _("Throughput per watt of modelled power (tokens/J)");
    case BPW_TRADE_Y_PER_DOLLAR:
      if (!bpw_trade_data_cost_unit (data, &unit, NULL))
        return _("Per dollar: no price given");
      return unit == BPW_PRICE_PER_DEVICE_HOUR
             ? _("Tokens per dollar at the candidates’ hourly prices (tokens/$)")
             : _("Throughput per dollar of devices (tokens/s/$)");
    case BPW_TRADE_Y_THROUGHPUT:
    default:
      return _("Throughput (output tokens/s)");
    }
}

static const char *
metric_short (BpwTradeLatency m)
{
  static const char * const names[] = { "TTFT", "TPOT", N_("end-to-end latency") };

  return m < G_N_ELEMENTS (names) ? _(names[m]) : "?";
}

static void
build_legend (BpwTradePlot *self, const BpwPlotStyle *st)
{
  const BpwTradeData *data = self->data;
  BpwPlotColor sla = bpw_plot_color_mix (&st->bottleneck[BPW_BOTTLENECK_LATENCY],
                                         &st->background, 0.88);
  BpwPlotColor front;
  g_autofree char *note = NULL;
  GString *missing = g_string_new (NULL);

  bpw_plot_legend_clear (&self->scene->legend);
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_HEADING, NULL, _("Candidate"));
  for (guint i = 0; i < data->series->len; i++)
    {
      const BpwTradeSeries *s = &g_array_index (data->series, BpwTradeSeries, i);
      BpwPlotColor c = bpw_plot_series_color (st, i);

      if (s->n > 0)
        bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_LINE, &c, s->name);
      else
        g_string_append_printf (missing, " %s: %s", s->name,
                                s->error != NULL ? s->error : _("no points."));
    }
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_HEADING, NULL, _("Latency"));
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_DOT, &st->muted, _("p50 (solid)"));
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_RING, &st->muted, _("p99 (dashed)"));
  front = st->accent;
  front.a = 0.45;
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_LINE, &front, _("Pareto front (p99)"));
  if (data->sla[self->metric] > 0)
    bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_BOX, &sla, _("meets the SLA"));
  /* Legend entries hold 319 bytes: one note per sentence. */
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_NOTE, NULL,
                       _("One point per arrival rate, from light load to past saturation."));
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_NOTE, NULL, data->stream);
  if (missing->len > 0)
    {
      note = g_strdup_printf (_("Not shown:%s"), missing->str);
      bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_NOTE, NULL, note);
    }
  g_string_free (missing, TRUE);
}

/* Data extents of what is drawn: latencies from the smallest p50 to the largest p99, y
 * from 0 to the largest value. */
static gboolean
extents (BpwTradePlot *self, double *x0, double *x1, double *y1)
{
  const BpwTradeData *data = self->data;

  *x0 = G_MAXDOUBLE;
  *x1 = 0;
  *y1 = 0;
  for (guint i = 0; i < data->points->len; i++)
    {
      const BpwTradePoint *p = point (data, i);
      double y = bpw_trade_point_y (data, p, self->y);

      if (!isfinite (y))
        continue;
      if (p->latency[self->metric].p50 > 0)
        *x0 = MIN (*x0, p->latency[self->metric].p50);
      if (isfinite (p->latency[self->metric].p99))
        *x1 = MAX (*x1, p->latency[self->metric].p99);
      *y1 = MAX (*y1, y);
    }
  if (data->sla[self->metric] > 0 && *x1 > 0)
    {
      *x0 = MIN (*x0, data->sla[self->metric]);
      *x1 = MAX (*x1, data->sla[self->metric]);
    }
  return *x1 > 0 && *x0 < G_MAXDOUBLE && *y1 > 0;
}

static void
layout_front (BpwTradePlot *self)
{
  const BpwTradeData *data = self->data;
  g_autoptr(GArray) order = g_array_new (FALSE, FALSE, sizeof (double) * 2);

  g_array_set_size (self->front, 0);
  for (guint i = 0; i < data->points->len; i++)
    if (self->pareto[i])
      {
        double xy[2] = { point (data, i)->latency[self->metric].p99,
                         bpw_trade_point_y (data, point (data, i), self->y) };

        g_array_append_vals (order, xy, 1);
      }
  /* By latency: on the front, y rises with it. */
  for (guint i = 1; i < order->len; i++)
    for (guint j = i; j > 0; j--)
      {
        double *a = (double *) order->data + 2 * (j - 1), *b = a + 2, t0, t1;

        if (a[0] <= b[0])
          break;
        t0 = a[0], t1 = a[1];
        a[0] = b[0], a[1] = b[1];
        b[0] = t0, b[1] = t1;
      }
  /* The staircase of what is attainable within each latency. */
  for (guint i = 0; i < order->len; i++)
    {
      const double *p = (const double *) order->data + 2 * i;
      double xy[2] = { bpw_scale_map (&self->scene->xscale, p[0]),
                       bpw_scale_map (&self->scene->yscale, p[1]) };

      if (i > 0)
        {
          double corner[2] = { xy[0], g_array_index (self->front, double,
                                                     self->front->len - 1) };

          g_array_append_vals (self->front, corner, 2);
        }
      g_array_append_vals (self->front, xy, 2);
    }
  if (self->front->len >= 2)
    {
      double end[2] = { self->scene->area.x + self->scene->area.width,
                        g_array_index (self->front, double, self->front->len - 1) };

      g_array_append_vals (self->front, end, 2);
    }
}

void
_bpw_trade_plot_layout (BpwPlot               *plot,
                        const BpwPlotViewport *viewport,
                        double                 width,
                        double                 height)
{
  BpwTradePlot *self = BPW_TRADE_PLOT (plot);
  const BpwTradeData *data = self->data;
  const BpwPlotStyle *st = bpw_plot_get_style (plot);
  BpwPlotText *text = _bpw_plot_get_text (plot);
  double pad = st->padding, top, x0, x1, y0 = 0, y1, legend_w, x_extent, y_extent;
  g_autofree char *x_title = NULL;

  g_array_set_size (self->marks, 0);
  g_array_set_size (self->labels, 0);
  _bpw_trade_plot_update_pareto (self);
  _bpw_plot_set_title (plot, data->title);
  top = _bpw_plot_title_init (&self->scene->title, text, st, data->title, width) + pad * 1.5;

  build_legend (self, st);
  legend_w = MIN (width * 0.3, 220);
  bpw_plot_legend_layout (&self->scene->legend, text, st, FALSE, 0, 0, legend_w);
  legend_w = self->scene->legend.width;

  if (!extents (self, &x0, &x1, &y1))
    x0 = 1e-3, x1 = 1, y1 = 1;
  x0 /= 1.6;
  x1 *= 1.6;
  y1 *= 1.08;
  bpw_scale_nice_domain (BPW_SCALE_LINEAR, &y0, &y1, 6);
  if (viewport != NULL && viewport->x_max > viewport->x_min && viewport->x_min > 0)
    x0 = viewport->x_min, x1 = viewport->x_max;
  if (viewport != NULL && viewport->y_max > viewport->y_min)
    y0 = viewport->y_min, y1 = viewport->y_max;

  /* The ticks carry their own units ("10 ms", "1 s"): the title names only the scale. */
  x_title = g_strdup_printf (_("%s, p50 and p99 (log scale)"),
                             bpw_trade_latency_name (self->metric));
  x_title[0] = g_ascii_toupper (x_title[0]);
  bpw_axis_layout_init (&self->scene->xaxis, BPW_AXIS_BOTTOM, x_title, "s", TRUE);
  bpw_axis_layout_init (&self->scene->yaxis, BPW_AXIS_LEFT, y_title (self->y, self->data), "", FALSE);
  bpw_scale_init (&self->scene->xscale, BPW_SCALE_LOG, x0, x1, 0, width);
  bpw_axis_layout_compute (&self->scene->xaxis, &self->scene->xscale, text, st);
  x_extent = bpw_axis_layout_extent (&self->scene->xaxis, st);
  self->scene->area.y = top;
  self->scene->area.height = MAX (height - pad - x_extent - top, 1.0);
  bpw_scale_init (&self->scene->yscale, BPW_SCALE_LINEAR, y0, y1,
                  self->scene->area.y + self->scene->area.height,
                  self->scene->area.y);
  bpw_axis_layout_compute (&self->scene->yaxis, &self->scene->yscale, text, st);
  y_extent = bpw_axis_layout_extent (&self->scene->yaxis, st);
  self->scene->area.x = floor (pad + y_extent);
  self->scene->area.width = MAX (width - pad - legend_w - 2 * pad - self->scene->area.x, 1.0);
  bpw_scale_init (&self->scene->xscale, BPW_SCALE_LOG, x0, x1, self->scene->area.x,
                  self->scene->area.x + self->scene->area.width);
  bpw_axis_layout_compute (&self->scene->xaxis, &self->scene->xscale, text, st);
  bpw_plot_legend_move (&self->scene->legend,
                        self->scene->area.x + self->scene->area.width + 2 * pad, top);

  for (guint i = 0; i < data->points->len; i++)
    {
      const BpwTradePoint *p = point (data, i);
      double y = bpw_trade_point_y (data, p, self->y);

      if (!isfinite (y))
        continue;
      for (guint q = 0; q < 2; q++)
        {
          double lat = q == 0 ? p->latency[self->metric].p50 : p->latency[self->metric].p99;
          BpwTradeMark m = { .x = bpw_scale_map (&self->scene->xscale, lat),
                             .y = bpw_scale_map (&self->scene->yscale,
                                                 y), .point = i, .p99 = q == 1,
                             .pareto = self->pareto[i] };
          BpwPlotTarget t = {
            .hit = { .kind = BPW_PLOT_HIT_ITEM, .index = (gint) (2 * i + q), .count = 1,
                     .lineage = BPW_PLOT_NO_LINEAGE,
                     .bounds = { m.x - DOT_RADIUS, m.y - DOT_RADIUS, 2 * DOT_RADIUS,
                                 2 * DOT_RADIUS } },
            .reach = DOT_RADIUS + 2,
          };

          if (!(isfinite (lat) && lat > 0))
            continue;
          g_array_append_val (self->marks, m);
          _bpw_plot_add_target (plot, &t);
        }
    }
  layout_front (self);

  self->sla_x = NAN;
  if (data->sla[self->metric] > 0)
    {
      BpwPlotLabel label;
      char limit[BPW_SI_LABEL_MAX], str[96];
      double x = bpw_scale_map (&self->scene->xscale, data->sla[self->metric]);

      self->sla_x = CLAMP (x, self->scene->area.x, self->scene->area.x + self->scene->area.width);
      bpw_si_format (limit, sizeof limit, data->sla[self->metric], "s", 3);
      g_snprintf (str, sizeof str, _("SLA: %s ≤ %s"), metric_short (self->metric), limit);
      _bpw_plot_label_init (&label, text, BPW_PLOT_FONT_SMALL, str, self->sla_x - 3,
                            self->scene->area.y + 3, 1, 0, 0, &st->foreground);
      label.halo = TRUE;
      label.halo_color = st->background;
      g_array_append_val (self->labels, label);
    }
}
