/* bpw-axis-layout.c — ticks, labels and title of one axis, laid out and drawn
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-axis-layout"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-axis-layout.h"

/* Space between neighbouring labels, and between ticks, labels and title. */
#define LABEL_GAP 6.0
#define TEXT_GAP 3.0

void
bpw_axis_layout_init (BpwAxisLayout *axis,
                      BpwAxisSide    side,
                      const char    *title,
                      const char    *unit,
                      gboolean       unit_on_ticks)
{
  g_return_if_fail (axis != NULL);

  memset (axis, 0, sizeof *axis);
  axis->side = side;
  g_strlcpy (axis->title, title != NULL ? title : "", sizeof axis->title);
  g_strlcpy (axis->unit, unit != NULL ? unit : "", sizeof axis->unit);
  axis->unit_on_ticks = unit_on_ticks;
  axis->tick_length = 4.0;
}

static gboolean
is_decade (double value)
{
  double e = round (log10 (value));

  return value > 0 && fabs (value / pow (10.0, e) - 1.0) < 1e-9;
}

/* Decimals that tell ticks @step apart once scaled by @exponent's prefix. */
static int
step_decimals (double step, int exponent, BpwSiFlags flags)
{
  return bpw_si_decimals_for_step (step / bpw_si_scale (exponent, flags), 0);
}

static void
format_labels (BpwAxisLayout *axis)
{
  BpwSiFlags flags = bpw_si_flags_for_unit (axis->unit);
  const char *unit = axis->unit_on_ticks ? axis->unit : NULL;
  gboolean per_tick = axis->scale.kind == BPW_SCALE_LOG;
  double max_abs = 0, step = 0, previous = NAN;
  int exponent, decimals;

  for (guint i = 0; i < axis->n_ticks; i++)
    if (axis->ticks[i].major)
      {
        max_abs = MAX (max_abs, fabs (axis->ticks[i].value));
        if (isfinite (previous) && step == 0)
          step = axis->ticks[i].value - previous;
        previous = axis->ticks[i].value;
      }
  /* Linear axes share one prefix and one number of decimals (0, 0.5, 1, 1.5 ms); log axes
   * change prefix from decade to decade (100 GFLOP/s, 1 TFLOP/s). */
  exponent = bpw_si_exponent (max_abs, flags, 3);
  decimals = step > 0 ? step_decimals (step, exponent, flags) : 0;
  for (guint i = 0; i < axis->n_ticks; i++)
    {
      BpwAxisTick *t = &axis->ticks[i];
      int e = per_tick ? bpw_si_exponent (t->value, flags, 3) : exponent;
      int d = per_tick ? step_decimals (t->value, e, flags) : decimals;

      if (t->major)
        bpw_si_format_fixed (t->label, sizeof t->label, t->value, e, MIN (d, 6), unit);
      else
        t->label[0] = '\0';
    }
}

/* TRUE when the labels chosen by @keep (every @k-th candidate) do not collide. */
static gboolean
select_labels (BpwAxisLayout *axis, gboolean decades_only, guint k, gboolean apply)
{
  double last_end = -G_MAXDOUBLE;
  guint candidate = 0;
  gboolean ok = TRUE;

  for (guint i = 0; i < axis->n_ticks; i++)
    {
      BpwAxisTick *t = &axis->ticks[i];
      double half, lo, hi;
      gboolean keep;

      if (!t->major || (decades_only && !is_decade (t->value)))
        {
          if (apply)
            t->labelled = FALSE;
          continue;
        }
      keep = candidate++ % k == 0;
      if (apply)
        t->labelled = keep;
      if (!keep)
        continue;
      half = (axis->side == BPW_AXIS_BOTTOM ? t->label_width : t->label_height) / 2;
      lo = MIN (t->position - half, t->position + half);
      hi = MAX (t->position - half, t->position + half);
      /* Positions descend along a left axis (y grows downwards); compare in order of
       * the data, which is the order of the ticks, on either side. */
      if (axis->side == BPW_AXIS_LEFT)
        {
          double a = -hi, b = -lo;

          lo = a;
          hi = b;
        }
      if (lo < last_end + LABEL_GAP)
        ok = FALSE;
      last_end = hi;
    }
  return ok;
}

void
bpw_axis_layout_compute (BpwAxisLayout      *axis,
                         const BpwScale     *scale,
                         BpwPlotText        *text,
                         const BpwPlotStyle *style)
{
  BpwTick ticks[BPW_AXIS_MAX_TICKS];
  double length = fabs (scale->r1 - scale->r0);
  guint target, n;
  gboolean decades_only = FALSE;
  guint k = 1;

  g_return_if_fail (axis != NULL && scale != NULL && text != NULL);

  axis->scale = *scale;
  /* Log labels are short ("10", "1 T") and thinned below when they collide, so ask for
   * every decade; linear labels ("1.25 ms") need more room. */
  if (scale->kind == BPW_SCALE_LOG)
    target = (guint) CLAMP (length / (axis->side == BPW_AXIS_BOTTOM ? 35.0 : 22.0), 2, 40);
  else
    target = (guint) CLAMP (length / (axis->side == BPW_AXIS_BOTTOM ? 80.0 : 45.0), 2, 12);
  if (scale->kind == BPW_SCALE_LINEAR && bpw_si_flags_for_unit (axis->unit) & BPW_SI_BINARY)
    {
      /* Binary sizes tick at round numbers of the prefix the axis shows (8, 16, 24 GiB),
       * not at round numbers of bytes. */
      BpwSiFlags flags = bpw_si_flags_for_unit (axis->unit);
      double base = bpw_si_scale (bpw_si_exponent (MAX (fabs (scale->d0), fabs (scale->d1)),
                                                   flags, 3), flags);
      BpwScale in_prefix;

      bpw_scale_init (&in_prefix, BPW_SCALE_LINEAR, scale->d0 / base, scale->d1 / base,
                      scale->r0, scale->r1);
      n = bpw_scale_ticks (&in_prefix, target, TRUE, ticks, BPW_AXIS_MAX_TICKS);
      for (guint i = 0; i < n; i++)
        ticks[i].value *= base;
    }
  else
    n = bpw_scale_ticks (scale, target, TRUE, ticks, BPW_AXIS_MAX_TICKS);
  axis->n_ticks = n;
  for (guint i = 0; i < n; i++)
    axis->ticks[i] = (BpwAxisTick) {
      .value = ticks[i].value, .position = bpw_scale_map (scale, ticks[i].value),
      .major = ticks[i].major,
    };
  format_labels (axis);

  axis->label_extent = 0;
  for (guint i = 0; i < n; i++)
    if (axis->ticks[i].major)
      bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, axis->ticks[i].label, 0,
                             &axis->ticks[i].label_width, &axis->ticks[i].label_height);

  if (scale->kind == BPW_SCALE_LOG && !select_labels (axis, FALSE, 1, FALSE))
    decades_only = TRUE;
  while (!select_labels (axis, decades_only, k, FALSE) && k < n)
    k++;
  select_labels (axis, decades_only, k, TRUE);

  for (guint i = 0; i < n; i++)
    if (axis->ticks[i].labelled)
      axis->label_extent = MAX (axis->label_extent, axis->side == BPW_AXIS_BOTTOM
                                                      ? axis->ticks[i].label_height
                                                      : axis->ticks[i].label_width);
  axis->title_height = 0;
  if (axis->title[0] != '\0')
    bpw_plot_text_measure (text, BPW_PLOT_FONT_AXIS, axis->title, 0, NULL, &axis->title_height);
}

double
bpw_axis_layout_extent (const BpwAxisLayout *axis,
                        const BpwPlotStyle  *style)
{
  double extent = axis->tick_length + TEXT_GAP + axis->label_extent;

  if (axis->title_height > 0)
    extent += TEXT_GAP * 2 + axis->title_height;
  return extent;
}

void
bpw_axis_layout_draw_grid (const BpwAxisLayout *axis,
                           cairo_t             *cr,
                           const BpwPlotStyle  *style,
                           const BpwPlotRect   *area)
{
  cairo_save (cr);
  cairo_set_line_width (cr, style->grid_width);
  for (int pass = 0; pass < 2; pass++)
    {
      /* Minor lines first, so major ones are drawn over them where they cross. */
      bpw_plot_set_source (cr, pass == 0 ? &style->grid_minor : &style->grid);
      for (guint i = 0; i < axis->n_ticks; i++)
        {
          const BpwAxisTick *t = &axis->ticks[i];

          if (t->major != (pass == 1))
            continue;
          if (axis->side == BPW_AXIS_BOTTOM)
            {
              cairo_move_to (cr, t->position, area->y);
              cairo_line_to (cr, t->position, area->y + area->height);
            }
          else
            {
              cairo_move_to (cr, area->x, t->position);
              cairo_line_to (cr, area->x + area->width, t->position);
            }
        }
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}

void
bpw_axis_layout_draw (const BpwAxisLayout *axis,
                      cairo_t             *cr,
                      BpwPlotText         *text,
                      const BpwPlotStyle  *style,
                      const BpwPlotRect   *area)
{
  gboolean bottom = axis->side == BPW_AXIS_BOTTOM;
  double edge = bottom ? area->y + area->height : area->x;
  double label_at = bottom ? edge + axis->tick_length + TEXT_GAP
                           : edge - axis->tick_length - TEXT_GAP;

  cairo_save (cr);
  cairo_set_line_width (cr, style->grid_width * 2);
  bpw_plot_set_source (cr, &style->muted);
  if (bottom)
    {
      cairo_move_to (cr, area->x, edge);
      cairo_line_to (cr, area->x + area->width, edge);
    }
  else
    {
      cairo_move_to (cr, edge, area->y);
      cairo_line_to (cr, edge, area->y + area->height);
    }
  for (guint i = 0; i < axis->n_ticks; i++)
    {
      const BpwAxisTick *t = &axis->ticks[i];
      double len = t->major ? axis->tick_length : axis->tick_length / 2;

      if (bottom)
        {
          cairo_move_to (cr, t->position, edge);
          cairo_line_to (cr, t->position, edge + len);
        }
      else
        {
          cairo_move_to (cr, edge, t->position);
          cairo_line_to (cr, edge - len, t->position);
        }
    }
  cairo_stroke (cr);

  for (guint i = 0; i < axis->n_ticks; i++)
    {
      const BpwAxisTick *t = &axis->ticks[i];

      if (!t->labelled)
        continue;
      if (bottom)
        bpw_plot_text_draw (text, cr, BPW_PLOT_FONT_SMALL, t->label, 0, t->position, label_at,
                            0.5, 0, 0, &style->muted);
      else
        bpw_plot_text_draw (text, cr, BPW_PLOT_FONT_SMALL, t->label, 0, label_at, t->position,
                            1, 0.5, 0, &style->muted);
    }

  if (axis->title[0] != '\0')
    {
      double offset = axis->tick_length + TEXT_GAP + axis->label_extent + TEXT_GAP * 2;

      if (bottom)
        bpw_plot_text_draw (text, cr, BPW_PLOT_FONT_AXIS, axis->title, 0,
                            area->x + area->width / 2, edge + offset, 0.5, 0, 0,
                            &style->foreground);
      else
        bpw_plot_text_draw (text, cr, BPW_PLOT_FONT_AXIS, axis->title, 0,
                            edge - offset - axis->title_height, area->y + area->height / 2,
                            0.5, 0, -G_PI / 2, &style->foreground);
    }
  cairo_restore (cr);
}
