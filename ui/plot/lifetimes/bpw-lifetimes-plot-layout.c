/* bpw-lifetimes-plot-layout.c — the lifetimes chart's layout: data + viewport + size → scene
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pure: reads the data and the style, writes only the plot's scene arrays. The curve is
 * one stack of category values per column (the instant of the column's largest total, so
 * a peak narrower than a column keeps its height); bars are merged per row (see the
 * header), so the work after the pass over the buffers is bounded by rows × columns.
 */
#define G_LOG_DOMAIN "bpw-lifetimes-plot"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "bpw-lifetimes-plot-private.h"
#include "bpw-plot-palette.h"

#define MAX_TRACK_HEIGHT 7.0
#define GROUP_GAP 3.0
#define CURVE_SHARE 0.42

static void
add_label (BpwLifetimesPlot *self, BpwPlotText *text, BpwPlotFont font, const char *str,
           double x, double y, double ax, double ay, const BpwPlotColor *color)
{
  BpwPlotLabel label;

  _bpw_plot_label_init (&label, text, font, str, x, y, ax, ay, 0, color);
  g_array_append_val (self->labels, label);
}

static const char *
group_name (const BpwLifetimesData *data, const BpwLifetimeGroup *g, char *buf, gsize size)
{
  if (g->level == BPW_LIFETIME_HOST)
    g_snprintf (buf, size, _("Host: offloaded"));
  else
    g_snprintf (buf, size, "%s", bpw_lifetime_category_name (g->category));
  return buf;
}

static const char *
group_detail (const BpwLifetimesData *data, const BpwLifetimeGroup *g, const BpwPlotStyle *st,
              char *buf, gsize size)
{
  char bytes[BPW_SI_LABEL_MAX];

  bpw_plot_style_format_bytes (st, bytes, sizeof bytes, g->peak_bytes);
  if (g->n == 1 && g_array_index (data->buffers, BpwLifetimeBuffer, g->first).persistent)
    g_snprintf (buf, size, "%s", bytes);
  else
    {
      char count[32];

      g_snprintf (buf, size, _("%s buffers, max %s"),
                  bpw_plot_format_count (g->n, count, sizeof count), bytes);
    }
  return buf;
}

/* Width of a group's label: two lines when the group is tall enough, else one. */
static double
group_label_width (BpwPlotText *text, const BpwLifetimesData *data, const BpwLifetimeGroup *g,
                   const BpwPlotStyle *st)
{
  char name[96], detail[96];
  g_autofree char *both = NULL;
  double w0, w1, w2;

  group_name (data, g, name, sizeof name);
  group_detail (data, g, st, detail, sizeof detail);
  both = g_strdup_printf ("%s · %s", name, detail);
  bpw_plot_text_measure (text, BPW_PLOT_FONT_BODY, name, 0, &w0, NULL);
  bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, detail, 0, &w1, NULL);
  bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, both, 0, &w2, NULL);
  return g->tracks > 2 ? MAX (w0, w1) : w2;
}

/* ---- the occupancy curve ---- */

static void
layout_curve (BpwLifetimesPlot *self)
{
  const GArray *curve = self->data->curve;
  guint lo = 0, hi = curve->len, n = 0;

  g_array_set_size (self->stack, 0);
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (curve, BpwMemorySample, mid).time <= self->t0)
        lo = mid + 1;
      else
        hi = mid;
    }
  n = lo > 0 ? lo - 1 : 0;
  for (gint c = self->col_first; c < self->col_end; c++)
    {
      double ta = bpw_scale_unmap (&self->scene->xscale,
                                   c), tb = bpw_scale_unmap (&self->scene->xscale, c + 1);
      double stack[BPW_N_MEM_CATEGORIES];
      const BpwMemorySample *best = NULL;

      if (curve->len > 0 && tb > 0 && ta < self->data->step_s)
        {
          while (n + 1 < curve->len && g_array_index (curve, BpwMemorySample, n + 1).time <= ta)
            n++;
          best = &g_array_index (curve, BpwMemorySample, n);
          while (n + 1 < curve->len && g_array_index (curve, BpwMemorySample, n + 1).time < tb)
            {
              const BpwMemorySample *s = &g_array_index (curve, BpwMemorySample, ++n);

              if (s->total > best->total)
                best = s;
            }
        }
      for (guint k = 0; k < BPW_N_MEM_CATEGORIES; k++)
        stack[k] = best == NULL ? NAN : (k > 0 ? stack[k - 1] : 0) + best->bytes[k];
      g_array_append_vals (self->stack, stack, BPW_N_MEM_CATEGORIES);
    }
}

/* ---- bars ---- */

typedef struct
{
  BpwLifetimeMark  m;
  double           bytes;
  gboolean         active;
} Run;

static void
run_flush (BpwLifetimesPlot *self, Run *r)
{
  if (!r->active)
    return;
  r->active = FALSE;
  r->m.x1 = MAX (r->m.x1, r->m.x0 + 1);
  g_array_append_val (self->marks, r->m);
}

static void
layout_group (BpwLifetimesPlot *self, guint gi, const BpwPlotRect *rect, GArray *runs)
{
  const BpwLifetimesData *data = self->data;
  const BpwLifetimeGroup *g = &g_array_index (data->groups, BpwLifetimeGroup, gi);
  guint rows = MAX (g->tracks, 1u);
  double row_h, left = self->scene->area.x, right = self->scene->area.x + self->scene->area.width;

  /* Tracks share rows of one unit when there are more tracks than rows. */
  if (rows * 1.0 > rect->height)
    rows = MAX ((guint) floor (rect->height), 1u);
  row_h = MIN (rect->height / rows, MAX_TRACK_HEIGHT);
  g_array_set_size (runs, rows);
  memset (runs->data, 0, rows * sizeof (Run));
  for (guint32 i = g->first; i < g->first + g->n; i++)
    {
      const BpwLifetimeBuffer *b = &g_array_index (data->buffers, BpwLifetimeBuffer, i);
      guint row = (guint) ((guint64) b->track * rows / MAX (g->tracks, 1u));
      Run *r = &g_array_index (runs, Run, row);
      double x0, x1;

      if (b->freed < self->t0 || b->allocated > self->t1)
        continue;
      self->visible++;
      x0 = MAX (bpw_scale_map (&self->scene->xscale, b->allocated), left);
      x1 = MIN (bpw_scale_map (&self->scene->xscale, b->freed), right);
      if (r->active && r->m.at_peak == b->at_peak && x0 <= r->m.x1 + 1)
        {
          r->m.x1 = MAX (r->m.x1, x1);
          r->m.count++;
          if (b->bytes > r->bytes)
            r->m.buffer = i, r->bytes = b->bytes;
          continue;
        }
      run_flush (self, r);
      *r = (Run) {
        .m = { .x0 = x0, .x1 = x1, .y = rect->y + row * row_h, .height = MAX (row_h - 0.5, 0.8),
               .group = gi, .buffer = i, .count = 1, .at_peak = b->at_peak },
        .bytes = b->bytes, .active = TRUE,
      };
    }
  for (guint row = 0; row < rows; row++)
    run_flush (self, &g_array_index (runs, Run, row));
}

/* Heights of the groups: at least a line of text each, the rest by the square root of
 * their tracks, at most MAX_TRACK_HEIGHT per track. */
static void
layout_groups (BpwLifetimesPlot *self, double min_h)
{
  const BpwLifetimesData *data = self->data;
  guint n = data->groups->len;
  double free_h = self->scene->area.height - GROUP_GAP * (n > 0 ? n - 1 : 0), weight = 0, y;
  g_autoptr(GArray) runs = g_array_new (FALSE, TRUE, sizeof (Run));
  g_autofree double *h = g_new0 (double, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    {
      const BpwLifetimeGroup *g = &g_array_index (data->groups, BpwLifetimeGroup, i);

      h[i] = min_h;
      free_h -= h[i];
      if (g->tracks * MAX_TRACK_HEIGHT > h[i])
        weight += sqrt (g->tracks);
    }
  for (guint i = 0; i < n && free_h > 0 && weight > 0; i++)
    {
      const BpwLifetimeGroup *g = &g_array_index (data->groups, BpwLifetimeGroup, i);
      double cap = g->tracks * MAX_TRACK_HEIGHT;

      if (cap > h[i])
        h[i] = MIN (h[i] + free_h * sqrt (g->tracks) / weight, cap);
    }
  y = self->scene->area.y;
  g_array_set_size (self->group_rects, 0);
  for (guint i = 0; i < n; i++)
    {
      BpwPlotRect r = { self->scene->area.x, y, self->scene->area.width, h[i] };

      g_array_append_val (self->group_rects, r);
      layout_group (self, i, &r, runs);
      y += h[i] + GROUP_GAP;
    }
  /* The groups may leave part of the area empty: the area ends with the last group. */
  self->scene->area.height = MAX (y - GROUP_GAP - self->scene->area.y, 1.0);
}

/* ---- text ---- */

static void
build_legend (BpwLifetimesPlot *self, const BpwPlotStyle *st)
{
  const BpwLifetimesData *data = self->data;
  gboolean present[BPW_N_MEM_CATEGORIES] = { FALSE };
  char cap[BPW_SI_LABEL_MAX];
  g_autofree char *capacity = NULL;
  g_autofree char *note = NULL;
  char count[32];
  guint32 buffers = 0;

  for (guint i = 0; i < data->groups->len; i++)
    {
      const BpwLifetimeGroup *g = &g_array_index (data->groups, BpwLifetimeGroup, i);

      present[g->category] = TRUE;
      buffers += g->n;
    }
  bpw_plot_legend_clear (&self->scene->legend);
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_HEADING, NULL, _("Category"));
  for (guint c = 0; c < BPW_N_MEM_CATEGORIES; c++)
    if (present[c])
      {
        BpwPlotColor color = _bpw_lifetimes_color (st, c, FALSE);

        bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_BOX, &color,
                             bpw_lifetime_category_name (c));
      }
  bpw_plot_style_format_bytes (st, cap, sizeof cap, data->capacity);
  capacity = g_strdup_printf (_("capacity %s"), cap);
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_DASH, &st->bottleneck[BPW_BOTTLENECK_CAPACITY],
                       capacity);
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_DOTTED, &st->foreground, _("peak"));
  /* Legend entries hold 319 bytes: one sentence each. */
  note = g_strdup_printf (_("Above: device memory of one rank by category. Below: one bar per "
                          "buffer from allocation to free (%s buffers), full colour when live "
                          "at the peak."), bpw_plot_format_count (buffers, count, sizeof count));
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_NOTE, NULL, note);
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_NOTE, NULL,
                       _("Bars closer than a column, or on tracks sharing a row, are merged."));
}

/* "Peak 24.1 GB at 1.42 s" and what is live there, largest first, beside the peak line. */
static void
layout_peak (BpwLifetimesPlot *self, BpwPlotText *text, const BpwPlotStyle *st)
{
  const BpwLifetimesData *data = self->data;
  guint order[BPW_N_MEM_CATEGORIES];
  char peak[BPW_SI_LABEL_MAX], at[BPW_SI_LABEL_MAX], first[160];
  GString *parts = g_string_new (NULL);
  double x = bpw_scale_map (&self->scene->xscale, data->peak_time), w0, w1, y, tx;
  gboolean right;

  for (guint c = 0; c < BPW_N_MEM_CATEGORIES; c++)
    order[c] = c;
  for (guint i = 1; i < BPW_N_MEM_CATEGORIES; i++)
    for (guint j = i; j > 0 && data->at_peak[order[j]] > data->at_peak[order[j - 1]]; j--)
      {
        guint t = order[j];

        order[j] = order[j - 1];
        order[j - 1] = t;
      }
  for (guint i = 0; i < BPW_N_MEM_CATEGORIES && data->at_peak[order[i]] >= 1; i++)
    {
      char b[BPW_SI_LABEL_MAX];
      g_autofree char *name = g_ascii_strdown (bpw_lifetime_category_name (order[i]), -1);

      /* Labels hold 127 bytes: the four largest, then how many more. */
      if (i == 4)
        {
          guint more = 0;

          for (guint j = i; j < BPW_N_MEM_CATEGORIES && data->at_peak[order[j]] >= 1; j++)
            more++;
          g_string_append_printf (parts, _(" + %u more"), more);
          break;
        }
      bpw_plot_style_format_bytes (st, b, sizeof b, data->at_peak[order[i]]);
      g_string_append_printf (parts, "%s%s %s", parts->len > 0 ? ", " : "", name, b);
    }
  bpw_plot_style_format_bytes (st, peak, sizeof peak, data->peak);
  bpw_si_format (at, sizeof at, data->peak_time, "s", 4);
  g_snprintf (first, sizeof first, _("Peak %s at %s:"), peak, at);
  bpw_plot_text_measure (text, BPW_PLOT_FONT_BODY, first, 0, &w0, NULL);
  bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, parts->str, 0, &w1, NULL);
  /* Beside the peak line where it fits, else against the side of the area with room. */
  w0 = MAX (w0, w1) + 6;
  right = x + w0 <= self->curve_area.x + self->curve_area.width || x - w0 < self->curve_area.x;
  tx = right ? MIN (x + 6, self->curve_area.x + self->curve_area.width - w0) : x - 6;
  y = self->curve_area.y + 2;
  _bpw_plot_label_init (&self->peak_label[0], text, BPW_PLOT_FONT_BODY, first, tx, y,
                        right ? 0 : 1, 0, 0, &st->foreground);
  _bpw_plot_label_init (&self->peak_label[1], text, BPW_PLOT_FONT_SMALL, parts->str, tx,
                        self->peak_label[0].bounds.y + self->peak_label[0].bounds.height + 1,
                        right ? 0 : 1, 0, 0, &st->foreground);
  for (guint i = 0; i < 2; i++)
    {
      self->peak_label[i].halo = TRUE;
      self->peak_label[i].halo_color = st->background;
      /* Out of view when the peak is: the viewport may exclude it. */
      if (x < self->curve_area.x || x > self->curve_area.x + self->curve_area.width)
        self->peak_label[i].text[0] = '\0';
    }
  g_string_free (parts, TRUE);
}

static void
layout_group_labels (BpwLifetimesPlot *self, BpwPlotText *text, const BpwPlotStyle *st,
                     double body_h, double small_h)
{
  const BpwLifetimesData *data = self->data;

  for (guint i = 0; i < data->groups->len; i++)
    {
      const BpwLifetimeGroup *g = &g_array_index (data->groups, BpwLifetimeGroup, i);
      const BpwPlotRect *r = &g_array_index (self->group_rects, BpwPlotRect, i);
      double x = self->scene->area.x - st->padding, cy = r->y + r->height / 2;
      char name[96], detail[96];

      group_name (data, g, name, sizeof name);
      group_detail (data, g, st, detail, sizeof detail);
      if (r->height >= body_h + small_h)
        {
          add_label (self, text, BPW_PLOT_FONT_BODY, name, x, cy, 1, 1, &st->foreground);
          add_label (self, text, BPW_PLOT_FONT_SMALL, detail, x, cy, 1, 0, &st->muted);
        }
      else
        {
          g_autofree char *both = g_strdup_printf ("%s · %s", name, detail);

          add_label (self, text, BPW_PLOT_FONT_SMALL, both, x, cy, 1, 0.5, &st->foreground);
        }
    }
}

/* ---- the whole ---- */

/* The bars; they do not overlap within a row. */
static void
add_targets (BpwLifetimesPlot *self)
{
  for (guint i = 0; i < self->marks->len; i++)
    {
      const BpwLifetimeMark *m = &g_array_index (self->marks, BpwLifetimeMark, i);
      const BpwLifetimeBuffer *b = &g_array_index (self->data->buffers, BpwLifetimeBuffer,
                                                   m->buffer);
      BpwPlotTarget t = {
        .hit = { .kind = BPW_PLOT_HIT_ITEM, .index = (gint) m->buffer, .count = m->count,
                 .lineage = b->lineage == BPW_SIM_NONE ? BPW_PLOT_NO_LINEAGE : b->lineage,
                 .bounds = { m->x0, m->y, MAX (m->x1 - m->x0, 1.0), m->height } },
      };

      _bpw_plot_add_target (BPW_PLOT (self), &t);
    }
}

void
_bpw_lifetimes_plot_layout (BpwPlot               *plot,
                            const BpwPlotViewport *viewport,
                            double                 width,
                            double                 height)
{
  BpwLifetimesPlot *self = BPW_LIFETIMES_PLOT (plot);
  const BpwLifetimesData *data = self->data;
  const BpwPlotStyle *st = bpw_plot_get_style (plot);
  BpwPlotText *text = _bpw_plot_get_text (plot);
  double pad = st->padding, top, bottom, x_extent, y_extent, gutter = 0, body_h, small_h;
  double ymax, region;

  g_array_set_size (self->marks, 0);
  g_array_set_size (self->labels, 0);
  self->visible = 0;
  _bpw_plot_set_title (plot, data->title);
  top = _bpw_plot_title_init (&self->scene->title, text, st, data->title, width) + pad * 1.5;
  build_legend (self, st);
  bpw_plot_legend_layout (&self->scene->legend, text, st, TRUE, 0, 0, width - 2 * pad);
  bottom = height - pad - self->scene->legend.height - pad;
  bpw_plot_text_measure (text, BPW_PLOT_FONT_BODY, "Ag", 0, NULL, &body_h);
  bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, "Ag", 0, NULL, &small_h);

  self->t0 = 0;
  self->t1 = data->step_s > 0 ? data->step_s : 1;
  if (viewport != NULL && viewport->x_max > viewport->x_min)
    self->t0 = viewport->x_min, self->t1 = viewport->x_max;
  else if (self->window[1] > self->window[0])
    self->t0 = self->window[0], self->t1 = self->window[1];

  /* The capacity bounds the curve's axis unless it is far above the peak: then the
   * axis fits the peak, and the legend still gives the capacity. */
  /* Headroom above the peak holds its annotation clear of the curve. */
  ymax = data->peak * 1.32;
  if (data->capacity > 0 && data->capacity <= 2 * data->peak)
    ymax = MAX (ymax, data->capacity * 1.05);
  ymax = MAX (ymax, 1.0);
  for (guint i = 0; i < data->groups->len; i++)
    gutter = MAX (gutter, group_label_width (text, data,
                                             &g_array_index (data->groups, BpwLifetimeGroup, i),
                                             st));
  bpw_axis_layout_init (&self->scene->xaxis, BPW_AXIS_BOTTOM, _("Time in the step"), "s", TRUE);
  bpw_scale_init (&self->scene->xscale, BPW_SCALE_LINEAR, self->t0, self->t1, 0, width);
  bpw_axis_layout_compute (&self->scene->xaxis, &self->scene->xscale, text, st);
  x_extent = bpw_axis_layout_extent (&self->scene->xaxis, st);

  region = bottom - x_extent - top;
  self->curve_area.y = top;
  self->curve_area.height = MAX (floor (region * CURVE_SHARE), 1.0);
  bpw_axis_layout_init (&self->scene->yaxis, BPW_AXIS_LEFT, _("Device memory"),
                        bpw_plot_style_bytes_unit (st), TRUE);
  bpw_scale_init (&self->scene->yscale, BPW_SCALE_LINEAR, 0, ymax,
                  self->curve_area.y + self->curve_area.height, self->curve_area.y);
  bpw_axis_layout_compute (&self->scene->yaxis, &self->scene->yscale, text, st);
  y_extent = bpw_axis_layout_extent (&self->scene->yaxis, st);
  gutter = MIN (MAX (gutter + pad, y_extent), width * 0.35);

  self->curve_area.x = floor (pad + gutter);
  /* Room for half the last tick label, which is centred on the area's right edge. */
  {
    char last[BPW_SI_LABEL_MAX];
    double w;

    bpw_si_format (last, sizeof last, self->t1, "s", 6);
    bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, last, 0, &w, NULL);
    self->curve_area.width = MAX (floor (width - MAX (pad, w / 2 + 2)) - self->curve_area.x,
                                  1.0);
  }
  self->scene->area = (BpwPlotRect) { self->curve_area.x,
                                    self->curve_area.y + self->curve_area.height + pad * 1.5,
                                    self->curve_area.width, 0 };
  self->scene->area.height = MAX (bottom - x_extent - self->scene->area.y, 1.0);
  bpw_scale_init (&self->scene->xscale, BPW_SCALE_LINEAR, self->t0, self->t1, self->curve_area.x,
                  self->curve_area.x + self->curve_area.width);
  bpw_axis_layout_compute (&self->scene->xaxis, &self->scene->xscale, text, st);
  self->col_first = (gint) floor (self->curve_area.x);
  self->col_end = (gint) ceil (self->curve_area.x + self->curve_area.width);

  self->capacity_y = data->capacity > 0 && data->capacity <= ymax
                       ? bpw_scale_map (&self->scene->yscale, data->capacity) : NAN;
  layout_curve (self);
  layout_groups (self, MAX (small_h + 2, 6.0));
  layout_group_labels (self, text, st, body_h, small_h);
  layout_peak (self, text, st);
  {
    char cap[BPW_SI_LABEL_MAX], str[96];
    double right = self->curve_area.x + self->curve_area.width - 3;

    bpw_plot_style_format_bytes (st, cap, sizeof cap, data->capacity);
    g_snprintf (str, sizeof str, isfinite (self->capacity_y) ? _("capacity %s")
                                                              : _("capacity %s: above the chart"),
                cap);
    if (data->capacity > 0)
      {
        BpwPlotLabel label;

        _bpw_plot_label_init (&label, text, BPW_PLOT_FONT_SMALL, str, right,
                              isfinite (self->capacity_y) ? self->capacity_y - 1
                                                          : self->curve_area.y + 1,
                              1, isfinite (self->capacity_y) ? 1 : 0, 0,
                              &st->bottleneck[BPW_BOTTLENECK_CAPACITY]);
        /* Under the peak's annotation when they would overlap. */
        for (guint i = 0; i < 2; i++)
          if (self->peak_label[i].text[0] != '\0' &&
              _bpw_plot_rect_intersects (&label.bounds, &self->peak_label[i].bounds))
            {
              double dy = self->peak_label[1].bounds.y + self->peak_label[1].bounds.height + 2 -
                          label.bounds.y;

              label.y += dy;
              label.bounds.y += dy;
            }
        label.halo = TRUE;
        label.halo_color = st->background;
        g_array_append_val (self->labels, label);
      }
  }
  bpw_plot_legend_move (&self->scene->legend, pad,
                        self->scene->area.y + self->scene->area.height + x_extent + pad);
  add_targets (self);
}
