/* bpw-plot-palette.c — colours of series and of step-time parts, shared by the charts
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-plot-palette"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "bpw-plot-palette.h"

/* Categorical colours for candidates and other series. Red and green say pass and fail
 * (the Compare page's SLA cells), so no series wears them: a candidate must not look as
 * if it failed or passed by its colour alone. */
static const char * const series_colors[] = {
  "#4e79a7", "#f28e2b", "#b07aa1", "#c9a227", "#1f9eb8", "#6b5b95", "#79706e",
};

static BpwPlotColor
lighten_for (const BpwPlotStyle *style, const char *spec)
{
  BpwPlotColor c = style->muted, white = { 1, 1, 1, 1 };

  if (bpw_plot_color_parse (spec, &c) && style->dark)
    c = bpw_plot_color_mix (&c, &white, 0.2);
  return c;
}

BpwPlotColor
bpw_plot_series_color (const BpwPlotStyle *style,
                       guint               index)
{
  return lighten_for (style, series_colors[index % G_N_ELEMENTS (series_colors)]);
}

BpwPlotColor
bpw_plot_breakdown_color (const BpwPlotStyle *style,
                          BpwBreakdown        part)
{
  switch (part)
    {
    case BPW_BREAKDOWN_COMPUTE:
      return style->bottleneck[BPW_BOTTLENECK_COMPUTE];
    case BPW_BREAKDOWN_MEMORY_STALL:
      return style->bottleneck[BPW_BOTTLENECK_MEMORY];
    case BPW_BREAKDOWN_LATENCY:
      return style->bottleneck[BPW_BOTTLENECK_LATENCY];
    case BPW_BREAKDOWN_EXPOSED_COMMUNICATION:
      return style->bottleneck[BPW_BOTTLENECK_COMMUNICATION];
    case BPW_BREAKDOWN_BUBBLE:
      return style->bottleneck[BPW_BOTTLENECK_BUBBLE];
    case BPW_BREAKDOWN_RECOMPUTE:
      return lighten_for (style, "#76b7b2");  /* the timeline's recompute teal */
    case BPW_BREAKDOWN_OPTIMIZER:
    default:
      return lighten_for (style, "#b07aa1");  /* the timeline's optimizer purple */
    }
}

const char *
bpw_plot_breakdown_name (BpwBreakdown part)
{
  static const char * const names[BPW_N_BREAKDOWNS] = {
    [BPW_BREAKDOWN_COMPUTE] = N_("Compute"), [BPW_BREAKDOWN_MEMORY_STALL] = N_("Memory stall"),
    [BPW_BREAKDOWN_LATENCY] = N_("Latency"), [BPW_BREAKDOWN_EXPOSED_COMMUNICATION] =
      N_("Exposed communication"), [BPW_BREAKDOWN_BUBBLE] = N_("Pipeline bubble"),
    [BPW_BREAKDOWN_RECOMPUTE] = N_("Recompute"), [BPW_BREAKDOWN_OPTIMIZER] = N_("Optimizer"),
  };

  return part < BPW_N_BREAKDOWNS ? _(names[part]) : "?";
}

const char *
bpw_plot_format_count (guint64  n,
                       char    *buf,
                       gsize    size)
{
  char digits[24];
  gsize len, o = 0;

  g_return_val_if_fail (buf != NULL && size > 0, buf);

  g_snprintf (digits, sizeof digits, "%" G_GUINT64_FORMAT, n);
  len = strlen (digits);
  for (gsize i = 0; i < len && o + 2 < size; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        buf[o++] = ',';
      buf[o++] = digits[i];
    }
  buf[o] = '\0';
  return buf;
}
