/* bpw-assignment-plot-layout.c — the assignment chart's layout: data + size → scene
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pure: reads the data and the style, writes only the plot's scene arrays. Text is placed
 * only where it fits: a band or bar too narrow for its label goes without, and the
 * hover description carries the details.
 */
#define G_LOG_DOMAIN "bpw-assignment-plot"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "bpw-assignment-plot-private.h"

#define BAND_GAP 2.0
#define LANE_GAP 4.0
#define MAX_LANE_HEIGHT 64.0
#define TEXT_PAD 4.0

static const char *
lane_role (const BpwAssignmentLane *lane, char *buf, gsize size)
{
  char busy[BPW_SI_LABEL_MAX];

  bpw_si_format (busy, sizeof busy, lane->busy_s, "s", 3);
  if (lane->kind == BPW_LANE_LINK)
    g_snprintf (buf, size, _("link, tier %d · %s"), lane->tier, busy);
  else
    g_snprintf (buf, size, _("%s engine · %s"), lane->kind == BPW_LANE_MATRIX ? _("matrix") : _("vector"),
                busy);
  return buf;
}

static void
build_legend (BpwAssignmentPlot *self, const BpwPlotStyle *st)
{
  const BpwAssignmentData *data = self->data;
  gboolean present[BPW_N_BOTTLENECKS] = { FALSE };
  g_autofree char *note = NULL;
  guint merged = 0;

  bpw_plot_legend_clear (&self->scene->legend);
  for (guint i = 0; i < data->items->len; i++)
    {
      const BpwAssignmentItem *it = &g_array_index (data->items, BpwAssignmentItem, i);

      present[MIN (it->bottleneck, BPW_N_BOTTLENECKS - 1)] = TRUE;
      merged += it->merged;
    }
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_HEADING, NULL, _("Bottleneck"));
  for (guint b = 0; b < BPW_N_BOTTLENECKS; b++)
    if (present[b])
      bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_BOX, &st->bottleneck[b],
                           _bpw_plot_bottleneck_name (b));
  note = g_strdup_printf (_("Bar width ∝ time the operation keeps its engine or link busy per "
                          "step on one rank; the same operation of every block is one bar "
                          "(%u operations as %u bars). Bands: phase, then layer type."),
                          merged, data->items->len);
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_NOTE, NULL, note);
}

static void
add_label (BpwAssignmentPlot *self, BpwPlotText *text, BpwPlotFont font, const char *str,
           double x, double y, double ax, double ay, const BpwPlotColor *color)
{
  BpwPlotLabel label;

  _bpw_plot_label_init (&label, text, font, str, x, y, ax, ay, 0, color);
  g_array_append_val (self->labels, label);
}

/* Centres the first of @candidates that fits inside @rect; none when none fits. */
static void
label_in_rect (BpwAssignmentPlot *self, BpwPlotText *text, BpwPlotFont font,
               const char * const *candidates, guint n, const BpwPlotRect *rect,
               const BpwPlotColor *color)
{
  for (guint i = 0; i < n; i++)
    {
      double w, h;

      if (candidates[i] == NULL)
        continue;
      bpw_plot_text_measure (text, font, candidates[i], 0, &w, &h);
      if (w + 2 * TEXT_PAD <= rect->width && h <= rect->height + 1)
        {
          add_label (self, text, font, candidates[i], rect->x + rect->width / 2,
                     rect->y + rect->height / 2, 0.5, 0.5, color);
          return;
        }
    }
}

static void
add_band (BpwAssignmentPlot *self, guint row, guint index, double t0, double t1, double y,
          double h)
{
  double x0 = CLAMP (bpw_scale_map (&self->scene->xscale, t0), self->scene->area.x,
                     self->scene->area.x + self->scene->area.width);
  double x1 = CLAMP (bpw_scale_map (&self->scene->xscale, t1), self->scene->area.x,
                     self->scene->area.x + self->scene->area.width);
  BpwAssignmentBand band = { .rect = { x0, y, x1 - x0, h }, .row = row, .index = index };

  if (x1 > x0)
    g_array_append_val (self->bands, band);
}

static void
layout_bands (BpwAssignmentPlot *self, BpwPlotText *text, const BpwPlotStyle *st, double top,
              double band_h)
{
  const BpwAssignmentData *data = self->data;

  for (guint g = 0; g < data->groups->len;)
    {
      const BpwAssignmentGroup *first = &g_array_index (data->groups, BpwAssignmentGroup, g);
      double t0 = first->start_s, t1 = t0;
      guint end = g;

      while (end < data->groups->len &&
             g_array_index (data->groups, BpwAssignmentGroup, end).phase == first->phase)
        {
          t1 += g_array_index (data->groups, BpwAssignmentGroup, end).total_s;
          end++;
        }
      if (g > 0)
        {
          double x = bpw_scale_map (&self->scene->xscale, t0);

          if (x > self->scene->area.x && x < self->scene->area.x + self->scene->area.width)
            g_array_append_val (self->separators, x);
        }
      add_band (self, 0, first->phase, t0, t1, top, band_h);
      g = end;
    }
  for (guint g = 0; g < data->groups->len; g++)
    {
      const BpwAssignmentGroup *grp = &g_array_index (data->groups, BpwAssignmentGroup, g);

      add_band (self, 1, g, grp->start_s, grp->start_s + grp->total_s, top + band_h + BAND_GAP,
                band_h);
    }

  for (guint i = 0; i < self->bands->len; i++)
    {
      const BpwAssignmentBand *b = &g_array_index (self->bands, BpwAssignmentBand, i);
      char with_share[96];

      if (b->row == 0)
        {
          double share = 0;
          const char *candidates[3];

          for (guint g = 0; g < data->groups->len; g++)
            {
              const BpwAssignmentGroup *grp = &g_array_index (data->groups, BpwAssignmentGroup, g);

              if (grp->phase == b->index && data->total_s > 0)
                share += grp->total_s / data->total_s;
            }
          g_snprintf (with_share, sizeof with_share, "%s · %.0f%%",
                      _bpw_plot_phase_name (b->index), share * 100);
          candidates[0] = with_share;
          candidates[1] = _bpw_plot_phase_name (b->index);
          candidates[2] = _bpw_plot_phase_short (b->index);
          label_in_rect (self, text, BPW_PLOT_FONT_SMALL, candidates, 3, &b->rect,
                         &st->foreground);
        }
      else
        {
          const BpwAssignmentGroup *grp = &g_array_index (data->groups, BpwAssignmentGroup,
                                                          b->index);
          const char *candidates[1] = { _bpw_plot_layer_type_name (grp->layer_type) };

          label_in_rect (self, text, BPW_PLOT_FONT_SMALL, candidates, 1, &b->rect,
                         &st->foreground);
        }
    }
}

/* Bars lane by lane, merged per pixel column (see BpwAssignmentMark). A wide item that
 * starts inside the previous bar's last column takes that column over: the previous bar
 * gives it up, or, when it owned only that column, joins the wide item. */
static void
layout_marks (BpwAssignmentPlot *self)
{
  const BpwAssignmentData *data = self->data;
  double left = self->scene->area.x, right = self->scene->area.x + self->scene->area.width;

  for (guint lane = 0; lane < data->lanes->len; lane++)
    {
      guint first = self->marks->len;

      g_array_append_val (self->lane_first, first);
      for (guint i = 0; i < data->items->len; i++)
        {
          const BpwAssignmentItem *it = &g_array_index (data->items, BpwAssignmentItem, i);
          double x0 = bpw_scale_map (&self->scene->xscale, it->start_s);
          double x1 = bpw_scale_map (&self->scene->xscale, it->start_s + it->total_s);
          BpwAssignmentMark *last = self->marks->len > first
                                      ? &g_array_index (self->marks, BpwAssignmentMark,
                                                        self->marks->len - 1)
                                      : NULL;
          BpwAssignmentMark mark;
          gint c0, c1;

          if (it->lane != lane || x1 < left || x0 > right || !(it->total_s > 0))
            continue;
          x0 = MAX (x0, left);
          x1 = MIN (x1, right);
          c0 = (gint) floor (x0);
          c1 = MAX ((gint) ceil (x1), c0 + 1);
          mark = (BpwAssignmentMark) { .x0 = x0, .x1 = x1, .col0 = c0, .col1 = c1, .lane = lane,
                                       .item = i, .count = 1 };
          if (last != NULL && c0 < last->col1)
            {
              const BpwAssignmentItem *rep = &g_array_index (data->items, BpwAssignmentItem,
                                                             last->item);

              if (x1 - x0 < 1)
                {
                  last->x1 = MAX (last->x1, x1);
                  last->col1 = MAX (last->col1, c1);
                  last->count++;
                  if (it->total_s > rep->total_s)
                    last->item = i;
                  continue;
                }
              if (last->col0 < c0)
                last->col1 = c0;
              else
                {
                  mark.x0 = last->x0;
                  mark.count += last->count;
                  if (rep->total_s > it->total_s)
                    mark.item = last->item;
                  *last = mark;
                  continue;
                }
            }
          g_array_append_val (self->marks, mark);
        }
    }
  g_array_append_val (self->lane_first, self->marks->len);
}

static void
label_marks (BpwAssignmentPlot *self, BpwPlotText *text)
{
  BpwPlotColor dark = { 0.1, 0.1, 0.1, 1 }, light = { 1, 1, 1, 1 };
  const BpwPlotStyle *st = bpw_plot_get_style (BPW_PLOT (self));

  for (guint i = 0; i < self->marks->len; i++)
    {
      const BpwAssignmentMark *m = &g_array_index (self->marks, BpwAssignmentMark, i);
      const BpwAssignmentItem *it = &g_array_index (self->data->items, BpwAssignmentItem, m->item);
      const BpwPlotRect *lane = &g_array_index (self->lane_rects, BpwPlotRect, m->lane);
      const BpwPlotColor *fill = &st->bottleneck[MIN (it->bottleneck, BPW_N_BOTTLENECKS - 1)];
      BpwPlotRect rect = { m->x0, lane->y, m->x1 - m->x0, lane->height };
      /* The name without its layer prefix ("attn.qkv" → "qkv"), which the band above
       * already says, else in full. */
      const char *dot = strchr (it->name, '.');
      const char *candidates[2] = { dot != NULL && dot[1] != '\0' ? dot + 1 : NULL, it->name };

      if (m->count > 1 || rect.width < 24)
        continue;
      label_in_rect (self, text, BPW_PLOT_FONT_SMALL, candidates, 2, &rect,
                     bpw_plot_color_luminance (fill) > 0.4 ? &dark : &light);
    }
}

static void
layout_lane_labels (BpwAssignmentPlot *self, BpwPlotText *text, const BpwPlotStyle *st,
                    double x)
{
  const BpwAssignmentData *data = self->data;
  double body_h, small_h;

  bpw_plot_text_measure (text, BPW_PLOT_FONT_BODY, "Ag", 0, NULL, &body_h);
  bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, "Ag", 0, NULL, &small_h);
  for (guint l = 0; l < data->lanes->len; l++)
    {
      const BpwAssignmentLane *lane = &g_array_index (data->lanes, BpwAssignmentLane, l);
      const BpwPlotRect *r = &g_array_index (self->lane_rects, BpwPlotRect, l);
      double cy = r->y + r->height / 2;
      char role[96];

      if (r->height >= body_h + small_h)
        {
          add_label (self, text, BPW_PLOT_FONT_BODY, lane->name, x, cy, 0, 1, &st->foreground);
          add_label (self, text, BPW_PLOT_FONT_SMALL, lane_role (lane, role, sizeof role), x, cy,
                     0, 0, &st->muted);
        }
      else
        add_label (self, text, BPW_PLOT_FONT_BODY, lane->name, x, cy, 0, 0.5, &st->foreground);
    }
}

void
_bpw_assignment_plot_layout (BpwPlot               *plot,
                             const BpwPlotViewport *viewport,
                             double                 width,
                             double                 height)
{
  BpwAssignmentPlot *self = BPW_ASSIGNMENT_PLOT (plot);
  const BpwAssignmentData *data = self->data;
  const BpwPlotStyle *st = bpw_plot_get_style (plot);
  BpwPlotText *text = _bpw_plot_get_text (plot);
  double pad = st->padding, top, bottom, left = 0, band_h, x_extent, lane_h, t0, t1;
  guint n_lanes = MAX (data->lanes->len, 1u);

  g_array_set_size (self->marks, 0);
  g_array_set_size (self->lane_first, 0);
  g_array_set_size (self->lane_rects, 0);
  g_array_set_size (self->bands, 0);
  g_array_set_size (self->labels, 0);
  g_array_set_size (self->separators, 0);

  _bpw_plot_set_title (plot, data->title);
  top = _bpw_plot_title_init (&self->scene->title, text, st, data->title, width) + pad * 1.5;

  build_legend (self, st);
  bpw_plot_legend_layout (&self->scene->legend, text, st, TRUE, 0, 0, width - 2 * pad);
  bottom = height - pad - self->scene->legend.height - pad;

  for (guint l = 0; l < data->lanes->len; l++)
    {
      const BpwAssignmentLane *lane = &g_array_index (data->lanes, BpwAssignmentLane, l);
      char role[96];
      double w1, w2;

      bpw_plot_text_measure (text, BPW_PLOT_FONT_BODY, lane->name, 0, &w1, NULL);
      bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, lane_role (lane, role, sizeof role), 0,
                             &w2, NULL);
      left = MAX (left, MAX (w1, w2));
    }
  left = MIN (left, width * 0.3) + 2 * pad;
  bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, "Ag", 0, NULL, &band_h);
  band_h += 6;

  t0 = 0;
  t1 = data->total_s > 0 ? data->total_s : 1;
  if (viewport != NULL && viewport->x_max > viewport->x_min)
    t0 = viewport->x_min, t1 = viewport->x_max;
  self->scene->area.x = left;
  self->scene->area.width = MAX (width - pad - left, 1.0);
  bpw_scale_init (&self->scene->xscale, BPW_SCALE_LINEAR, t0, t1, self->scene->area.x,
                  self->scene->area.x + self->scene->area.width);
  bpw_axis_layout_init (&self->scene->xaxis, BPW_AXIS_BOTTOM,
                        _("Busy time per step on one rank, operations end to end"), "s", TRUE);
  bpw_axis_layout_compute (&self->scene->xaxis, &self->scene->xscale, text, st);
  x_extent = bpw_axis_layout_extent (&self->scene->xaxis, st);

  self->scene->area.y = top + 2 * band_h + BAND_GAP + LANE_GAP;
  lane_h = MIN (MAX ((bottom - x_extent - self->scene->area.y) / n_lanes, 1.0), MAX_LANE_HEIGHT);
  self->scene->area.height = lane_h * n_lanes;
  for (guint l = 0; l < data->lanes->len; l++)
    {
      BpwPlotRect r = { self->scene->area.x, self->scene->area.y + l * lane_h + LANE_GAP / 2,
                        self->scene->area.width,
                        MAX (lane_h - LANE_GAP, 1.0) };

      g_array_append_val (self->lane_rects, r);
    }

  /* Right under the axis, also when the lanes are capped and leave room below. */
  bpw_plot_legend_move (&self->scene->legend, pad,
                        self->scene->area.y + self->scene->area.height + x_extent + pad);

  layout_bands (self, text, st, top, band_h);
  layout_marks (self);
  label_marks (self, text);
  layout_lane_labels (self, text, st, pad);
}
