/* bpw-roofline-plot-labels.c — where the roofline's text goes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of layout (pure). Order of placement is order of importance: the plan's datasheet
 * ceilings, then calibrated ceilings and other precisions, the baseline's, the ridges and
 * last the names of the dots with the largest shares, each only where it overlaps nothing
 * placed before: lines, dots and other labels.
 */
#define G_LOG_DOMAIN "bpw-roofline-plot"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "bpw-label-placer.h"
#include "bpw-roofline-plot-private.h"

/* Obstacles that labels avoid and leader lines may cross (ceilings; not dots, where a
 * leader would point at the wrong one). */
#define CEILING_TAG  (1u << 0)
#define DOT_TAG      (1u << 1)
/* The baseline's lines: the plan's own ceiling labels may cover them (with their halo). */
#define BASELINE_TAG (1u << 2)

static const BpwPlotColor *
ceiling_color (const BpwRooflineCeiling *c, const BpwPlotStyle *st)
{
  return c->baseline || (!c->primary && !c->host) ? &st->muted : &st->ceiling;
}

static void
ceiling_text (const BpwRooflineData *data, const BpwRooflineCeiling *c, char *buf, gsize size)
{
  char value[BPW_SI_LABEL_MAX];

  bpw_si_format (value, sizeof value, c->value,
                 c->kind == BPW_CEILING_COMPUTE ? "FLOP/s" : "B/s", 3);
  if (c->baseline)
    g_snprintf (buf, size, "%s %s: %s", data->baseline_label != NULL ? data->baseline_label : "",
                c->label, value);
  else if (c->calibrated)
    g_snprintf (buf, size, "%s ×%.2f: %s", c->label, c->efficiency, value);
  else
    g_snprintf (buf, size, "%s: %s", c->label, value);
}

/* Labels get a halo so the grid and the dotted ridge lines do not run through them;
 * dots, ceilings and other labels they avoid. */
static gboolean
try_label_over (BpwRooflinePlot *self, BpwLabelPlacer *placer, BpwPlotLabel *label, guint ignore)
{
  if (!bpw_label_placer_try (placer, &label->quad, ignore))
    return FALSE;
  label->halo = TRUE;
  label->halo_color = bpw_plot_get_style (BPW_PLOT (self))->plot_background;
  g_array_append_val (self->labels, *label);
  return TRUE;
}

static gboolean
try_label (BpwRooflinePlot *self, BpwLabelPlacer *placer, BpwPlotLabel *label)
{
  return try_label_over (self, placer, label, 0);
}

static gboolean
place_ceiling_label (BpwRooflinePlot *self, BpwPlotText *text, const BpwPlotStyle *st,
                     BpwLabelPlacer *placer, const BpwRooflineSegment *s, const char *str)
{
  const BpwRooflineCeiling *c = ceiling (self->data, s->ceiling);
  guint ignore = c->primary && !c->calibrated && !c->baseline ? BASELINE_TAG : 0;
  BpwPlotLabel label;

  if (c->kind == BPW_CEILING_COMPUTE)
    {
      /* Over the right end, under it, then a little higher (dots may poke above the
       * line), then further left along the line where the dots leave a gap, and last
       * just before the line's start (t < 0: right-aligned left of the ridge). */
      static const double along_line[] = { 1.0, 0.8, 0.6, 0.4, 0.2, 0.0, -1 };
      static const double lifts[] = { -LABEL_OFFSET, LABEL_OFFSET, -3 * LABEL_OFFSET };

      for (guint k = 0; k < G_N_ELEMENTS (along_line) * G_N_ELEMENTS (lifts); k++)
        {
          double t = along_line[k / G_N_ELEMENTS (lifts)];
          double lift = lifts[k % G_N_ELEMENTS (lifts)];
          /* Left-aligned ones clear the ridge marker where the line starts. */
          double x = t < 0    ? s->x0 - LABEL_OFFSET - RIDGE_RADIUS
                     : t >= 0.5 ? s->x0 + t * (s->x1 - s->x0) - LABEL_OFFSET
                                : s->x0 + t * (s->x1 - s->x0) + LABEL_OFFSET + RIDGE_RADIUS;

          _bpw_plot_label_init (&label, text, BPW_PLOT_FONT_SMALL, str, x, s->y0 + lift,
                                t < 0 || t >= 0.5 ? 1 : 0, lift < 0 ? 1 : 0, 0,
                                ceiling_color (c, st));
          if (try_label_over (self, placer, &label, ignore))
            return TRUE;
        }
    }
  else
    {
      /* Along the slope, near the lower left where few dots are. */
      static const double along[] = {
        0.04, 0.1, 0.16, 0.22, 0.28, 0.34, 0.4, 0.46, 0.52, 0.58, 0.64, 0.7,
      };
      double angle = atan2 (s->y1 - s->y0, s->x1 - s->x0);
      double nx = -sin (angle) * LABEL_OFFSET, ny = cos (angle) * LABEL_OFFSET;

      for (guint k = 0; k < 2 * G_N_ELEMENTS (along); k++)
        {
          double t = along[k % G_N_ELEMENTS (along)];
          gboolean above = k < G_N_ELEMENTS (along);
          double x = s->x0 + t * (s->x1 - s->x0), y = s->y0 + t * (s->y1 - s->y0);

          _bpw_plot_label_init (&label, text, BPW_PLOT_FONT_SMALL, str,
                                above ? x - nx : x + nx, above ? y - ny : y + ny,
                                0, above ? 1 : 0, angle, ceiling_color (c, st));
          if (try_label_over (self, placer, &label, ignore))
            return TRUE;
        }
    }
  return FALSE;
}

/* Datasheet ceilings of the plan first, then calibrated and other precisions, then the
 * baseline's; each with its full label where it fits, else with its value alone. */
static void
label_ceilings (BpwRooflinePlot *self, BpwPlotText *text, const BpwPlotStyle *st,
                BpwLabelPlacer *placer)
{
  const BpwRooflineData *data = self->data;

  for (int pass = 0; pass < 3; pass++)
    for (guint i = 0; i < self->segments->len; i++)
      {
        const BpwRooflineSegment *s = &g_array_index (self->segments, BpwRooflineSegment, i);
        const BpwRooflineCeiling *c = ceiling (data, s->ceiling);
        int rank = c->baseline ? 2 : c->calibrated || !c->primary ? 1 : 0;
        char full[128], value[BPW_SI_LABEL_MAX];

        if (rank != pass)
          continue;
        ceiling_text (data, c, full, sizeof full);
        if (c->calibrated)
          g_snprintf (value, sizeof value, "×%.2f", c->efficiency);
        else
          bpw_si_format (value, sizeof value, c->value,
                         c->kind == BPW_CEILING_COMPUTE ? "FLOP/s" : "B/s", 3);
        if (!place_ceiling_label (self, text, st, placer, s, full))
          place_ceiling_label (self, text, st, placer, s, value);
      }
}

/* Ridge markers and their drop lines are obstacles for every label; their own labels go
 * at the foot of the drop line, where the plot is usually empty, or else by the knee. */
static void
layout_ridges (BpwRooflinePlot *self, BpwLabelPlacer *placer)
{
  const BpwRooflineData *data = self->data;
  double bottom = self->scene->area.y + self->scene->area.height;

  for (guint i = 0; i < data->ridges->len; i++)
    {
      const BpwRooflineRidge *r = &g_array_index (data->ridges, BpwRooflineRidge, i);
      BpwRooflineRidgeMark mark = {
        .x = bpw_scale_map (&self->scene->xscale, r->intensity),
        .y = bpw_scale_map (&self->scene->yscale, r->value), .bottom = bottom,
      };
      BpwPlotRect box = { mark.x - RIDGE_RADIUS, mark.y - RIDGE_RADIUS, 2 * RIDGE_RADIUS,
                          2 * RIDGE_RADIUS };

      if (!ceiling (data, r->compute)->primary ||
          !_bpw_plot_rect_contains (&self->scene->area, mark.x, mark.y))
        continue;
      g_array_append_val (self->ridges, mark);
      bpw_label_placer_block_rect (placer, &box);
    }
}

static void
label_ridges (BpwRooflinePlot *self, BpwPlotText *text, const BpwPlotStyle *st,
              BpwLabelPlacer *placer)
{
  const BpwRooflineData *data = self->data;
  guint shown = 0;

  for (guint i = 0; i < data->ridges->len; i++)
    {
      const BpwRooflineRidge *r = &g_array_index (data->ridges, BpwRooflineRidge, i);
      const BpwRooflineRidgeMark *m;
      char value[BPW_SI_LABEL_MAX], buf[128];

      if (!ceiling (data, r->compute)->primary || shown >= self->ridges->len)
        continue;
      m = &g_array_index (self->ridges, BpwRooflineRidgeMark, shown++);
      bpw_si_format (value, sizeof value, r->intensity, NULL, 3);
      g_snprintf (buf, sizeof buf, _("ridge %s FLOP/B"), value);
      {
        const double spots[][4] = {
          { 3, m->bottom - 3, 0, 1 }, { -3, m->bottom - 3, 1, 1 },
          { 5, m->y + 5, 0, 0 }, { -5, m->y + 5, 1, 0 }, { 5, m->y - 5, 0, 1 },
          { -5, m->y - 5, 1, 1 },
        };

        for (guint k = 0; k < G_N_ELEMENTS (spots); k++)
          {
            BpwPlotLabel label;

            _bpw_plot_label_init (&label, text, BPW_PLOT_FONT_SMALL, buf, m->x + spots[k][0],
                                  spots[k][1], spots[k][2], spots[k][3], 0, &st->foreground);
            if (try_label (self, placer, &label))
              break;
          }
      }
    }
}

static gint
compare_share (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const BpwRooflineData *data = user_data;
  const BpwRooflineMark *x = a, *y = b;
  double sx = g_array_index (data->points, BpwRooflinePoint, x->point).share;
  double sy = g_array_index (data->points, BpwRooflinePoint, y->point).share;

  return sx > sy ? -1 : sx < sy ? 1 : (x->point > y->point) - (x->point < y->point);
}

/* Next to the dot, else a little further away with a leader line; right, left, above,
 * below, then the diagonals. */
static gboolean
place_mark_label (BpwRooflinePlot *self, BpwPlotText *text, const BpwPlotStyle *st,
                  BpwLabelPlacer *placer, const BpwRooflineMark *m, const char *str)
{
  static const double dirs[8][2] = {
    { 1, 0 }, { -1, 0 }, { 0, -1 }, { 0, 1 },
    { G_SQRT2 / 2, -G_SQRT2 / 2 }, { G_SQRT2 / 2, G_SQRT2 / 2 },
    { -G_SQRT2 / 2, -G_SQRT2 / 2 }, { -G_SQRT2 / 2, G_SQRT2 / 2 },
  };
  const double gaps[] = { 2, 16, 34, 56, 80 };

  for (guint g = 0; g < G_N_ELEMENTS (gaps); g++)
    for (guint k = 0; k < G_N_ELEMENTS (dirs); k++)
      {
        double ux = dirs[k][0], uy = dirs[k][1], d = m->radius + gaps[g];
        double ax = ux > 0.3 ? 0 : ux < -0.3 ? 1 : 0.5, ay = uy > 0.3 ? 0 : uy < -0.3 ? 1 : 0.5;
        double x = m->x + ux * d, y = m->y + uy * d;
        double sx = m->x + ux * (m->radius * 1.45 + 1), sy = m->y + uy * (m->radius * 1.45 + 1);
        BpwPlotQuad leader = { .x = { sx, x }, .y = { sy, y }, .n = 2 };
        BpwPlotLabel label;

        _bpw_plot_label_init (&label, text, BPW_PLOT_FONT_SMALL, str, x, y, ax, ay, 0,
                              &st->foreground);
        if (!bpw_label_placer_is_free (placer, &label.quad, 0) ||
            (g > 0 && !bpw_label_placer_is_free (placer, &leader, CEILING_TAG)))
          continue;
        bpw_label_placer_block (placer, &label.quad);
        label.halo = TRUE;
        label.halo_color = st->plot_background;
        g_array_append_val (self->labels, label);
        if (g > 0)
          {
            bpw_label_placer_block (placer, &leader);
            leader.x[0] = m->x + ux * m->radius;
            leader.y[0] = m->y + uy * m->radius;
            g_array_append_val (self->leaders, leader);
          }
        return TRUE;
      }
  return FALSE;
}

static void
label_marks (BpwRooflinePlot *self, BpwPlotText *text, const BpwPlotStyle *st,
             BpwLabelPlacer *placer)
{
  g_autoptr(GArray) order = g_array_new (FALSE, FALSE, sizeof (BpwRooflineMark));
  guint n = 0;

  for (guint i = 0; i < self->marks->len; i++)
    if (!g_array_index (self->marks, BpwRooflineMark, i).baseline
        && !g_array_index (self->marks, BpwRooflineMark, i).measured)
      g_array_append_val (order, g_array_index (self->marks, BpwRooflineMark, i));
  g_array_sort_with_data (order, compare_share, self->data);
  for (guint i = 0; i < order->len && n < BPW_ROOFLINE_MAX_POINT_LABELS; i++)
    {
      const BpwRooflineMark *m = &g_array_index (order, BpwRooflineMark, i);
      const BpwRooflinePoint *p = &g_array_index (self->data->points, BpwRooflinePoint, m->point);
      char buf[128];

      if (p->share < 0.005)
        break;
      g_snprintf (buf, sizeof buf, "%s %s", p->name, _bpw_plot_phase_short (p->phase));
      if (place_mark_label (self, text, st, placer, m, buf))
        n++;
    }
}


void
_bpw_roofline_plot_place_labels (BpwRooflinePlot    *self,
                                 BpwPlotText        *text,
                                 const BpwPlotStyle *st)
{
  BpwLabelPlacer placer;

  /* Obstacles first: every line and every dot; then labels by importance. */
  bpw_label_placer_init (&placer, &self->scene->area);
  for (guint i = 0; i < self->segments->len; i++)
    {
      const BpwRooflineSegment *s = &g_array_index (self->segments, BpwRooflineSegment, i);
      gboolean baseline = ceiling (self->data, s->ceiling)->baseline;

      bpw_label_placer_block_segment (&placer, s->x0, s->y0, s->x1, s->y1,
                                      CEILING_TAG | (baseline ? BASELINE_TAG : 0));
    }
  for (guint i = 0; i < self->marks->len; i++)
    {
      const BpwRooflineMark *m = &g_array_index (self->marks, BpwRooflineMark, i);
      BpwPlotQuad dot;

      bpw_plot_quad_from_circle (&dot, m->x, m->y, m->radius);
      dot.tag = DOT_TAG;
      bpw_label_placer_block (&placer, &dot);
    }
  layout_ridges (self, &placer);
  label_ceilings (self, text, st, &placer);
  label_ridges (self, text, st, &placer);
  label_marks (self, text, st, &placer);
  bpw_label_placer_clear (&placer);
}
