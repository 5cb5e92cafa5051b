/* bpw-axis-layout.h — ticks, labels and title of one axis, laid out and drawn
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Fixed-size storage (no allocation): labels are formatted once at layout into the tick
 * array and only painted by draw. Labels that would collide are thinned out at layout,
 * keeping every k-th major label, so a narrow plot shows fewer labels, never overlapping
 * ones.
 */
#pragma once

#include "bpw-plot.h"
#include "bpw-plot-text.h"
#include "bpw-scale.h"
#include "bpw-si-format.h"

G_BEGIN_DECLS

#define BPW_AXIS_MAX_TICKS 160

typedef enum
{
  BPW_AXIS_BOTTOM,
  BPW_AXIS_LEFT,
} BpwAxisSide;

typedef struct
{
  double    value;      /* data units */
  double    position;   /* pixels along the axis */
  gboolean  major;
  gboolean  labelled;
  double    label_width, label_height;
  char      label[BPW_SI_LABEL_MAX];
} BpwAxisTick;

typedef struct
{
  BpwAxisSide  side;
  BpwScale     scale;
  char         title[128];           /* "Arithmetic intensity (FLOP/B)"; empty for none */
  char         unit[16];             /* "s", "FLOP/s", "FLOP/B": picks SI prefixes */
  gboolean     unit_on_ticks;        /* "1 ms" on each tick, or "1" with the unit in the title */
  double       tick_length;
  double       title_height;         /* measured at layout */
  double       label_extent;         /* widest (left) or tallest (bottom) label */
  guint        n_ticks;
  BpwAxisTick  ticks[BPW_AXIS_MAX_TICKS];
} BpwAxisLayout;

void    bpw_axis_layout_init     (BpwAxisLayout      *axis,
                                  BpwAxisSide         side,
                                  const char         *title,
                                  const char         *unit,
                                  gboolean            unit_on_ticks);
/* Ticks and labels for @scale, whose pixel range is the axis' extent on the page. */
void    bpw_axis_layout_compute  (BpwAxisLayout      *axis,
                                  const BpwScale     *scale,
                                  BpwPlotText        *text,
                                  const BpwPlotStyle *style);
/* Room the axis needs outside the plot area: ticks, labels and title. */
double  bpw_axis_layout_extent   (const BpwAxisLayout *axis,
                                  const BpwPlotStyle  *style);

/* Grid lines across @area (behind the data), then the axis line, ticks, labels and title
 * along @area's edge. */
void    bpw_axis_layout_draw_grid (const BpwAxisLayout *axis,
                                   cairo_t             *cr,
                                   const BpwPlotStyle  *style,
                                   const BpwPlotRect   *area);
void    bpw_axis_layout_draw     (const BpwAxisLayout *axis,
                                  cairo_t             *cr,
                                  BpwPlotText         *text,
                                  const BpwPlotStyle  *style,
                                  const BpwPlotRect   *area);

G_END_DECLS
