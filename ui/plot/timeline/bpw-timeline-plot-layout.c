/* bpw-timeline-plot-layout.c — the timeline's layout: data + viewport + size → scene
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pure: reads the data, the options and the style, writes only the plot's scene arrays.
 * Work is bounded by what is visible: tracks outside the rows of the viewport are not
 * laid out, each lane's visible events are found by bisection on the running maximum of
 * ends, and the marks per lane never outnumber the columns (see BpwTimelineMark).
 */
#define G_LOG_DOMAIN "bpw-timeline-plot"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "bpw-plot-palette.h"
#include "bpw-timeline-data-private.h"
#include "bpw-timeline-plot-private.h"

#define TRACK_GAP 0.12       /* of a row, between tracks */
#define MAX_EVENT_LABELS 400
#define TEXT_PAD 3.0

/* ---- text ---- */

static void
text_free (gpointer p)
{
  BpwTimelineText *t = p;

  g_object_unref (t->layout);
  g_free (t);
}

void
_bpw_timeline_plot_clear_caches (BpwTimelinePlot *self)
{
  g_clear_pointer (&self->text_cache, g_hash_table_unref);
  g_clear_object (&self->text_context);
  if (self->legend_sig != NULL)
    g_string_free (g_steal_pointer (&self->legend_sig), TRUE);
  g_clear_pointer (&self->labelled, g_array_unref);
  _bpw_timeline_plot_clear_raster (self);
}

void
_bpw_timeline_plot_clear_raster (BpwTimelinePlot *self)
{
  g_clear_pointer (&self->raster_pattern, cairo_pattern_destroy);
  g_clear_pointer (&self->raster, cairo_surface_destroy);
  g_clear_pointer (&self->raster_line, g_array_unref);
}

/* The cache holds layouts of the text's context: a new style (a new context) or too many
 * strings (zooming through many names) start it afresh, before any label points in. */
static void
text_cache_begin (BpwTimelinePlot *self, BpwPlotText *text)
{
  if (self->text_cache == NULL)
    self->text_cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, text_free);
  if (self->text_context != text->context || g_hash_table_size (self->text_cache) > 4096)
    {
      g_hash_table_remove_all (self->text_cache);
      g_set_object (&self->text_context, text->context);
      /* What was measured in the old fonts. */
      self->x_extent = NAN;
      self->legend_height = NAN;
    }
}

/* What the legend's height depends on, its entries and the width they wrap at, into
 * @out; TRUE when that is what @out held. */
static gboolean
legend_signature (const BpwPlotLegend *legend, double width, GString *out)
{
  g_autoptr(GString) sig = g_string_new (NULL);
  gboolean same;

  g_string_append_printf (sig, "%.17g", width);
  for (guint i = 0; i < legend->n; i++)
    g_string_append_printf (sig, "\x1f%d\x1e%s", legend->entries[i].swatch,
                            legend->entries[i].label);
  same = g_string_equal (sig, out);
  g_string_assign (out, sig->str);
  return same;
}

/* @str laid out in @font, once: as bpw_plot_text_measure () and bpw_plot_text_draw () lay
 * it out, so it measures and draws as they would; but shaping text is most of the cost of
 * a label, and labels (lane names, operation names) repeat from frame to frame. */
static const BpwTimelineText *
text_get (BpwTimelinePlot *self, BpwPlotText *text, BpwPlotFont font, const char *str)
{
  char buf[160];
  g_autofree char *heap = NULL;
  char *key = buf;
  BpwTimelineText *t;
  PangoRectangle logical;
  gsize len = strlen (str);

  if (len + 2 > sizeof buf)
    key = heap = g_malloc (len + 2);
  key[0] = (char) ('A' + font);
  memcpy (key + 1, str, len + 1);
  t = g_hash_table_lookup (self->text_cache, key);
  if (t != NULL)
    return t;
  t = g_new0 (BpwTimelineText, 1);
  t->layout = pango_layout_new (text->context);
  pango_layout_set_font_description (t->layout, text->fonts[font]);
  pango_layout_set_text (t->layout, str, -1);
  pango_layout_get_extents (t->layout, NULL, &logical);
  t->x = (double) logical.x / PANGO_SCALE;
  t->y = (double) logical.y / PANGO_SCALE;
  t->width = (double) logical.width / PANGO_SCALE;
  t->height = (double) logical.height / PANGO_SCALE;
  g_hash_table_insert (self->text_cache, heap != NULL ? g_steal_pointer (&heap)
                                                      : g_strdup (key), t);
  return t;
}

/* A label whose box has its point (@ax, @ay) (0 left/top … 1 right/bottom) at (@x, @y). */
static void
add_text (BpwTimelinePlot *self, const BpwTimelineText *t, double x, double y, double ax,
          double ay, const BpwPlotColor *color)
{
  BpwTimelineLabel label = { t, x - ax * t->width - t->x, y - ay * t->height - t->y, *color };

  if (pango_layout_get_character_count (t->layout) > 0)
    g_array_append_val (self->labels, label);
}

static void
add_label (BpwTimelinePlot *self, BpwPlotText *text, BpwPlotFont font, const char *str,
           double x, double y, double ax, double ay, const BpwPlotColor *color)
{
  add_text (self, text_get (self, text, font, str), x, y, ax, ay, color);
}

static const char *
track_label (BpwTimelinePlot *self, const BpwTimelineTrack *t, char *buf, gsize size)
{
  const BpwTimelineData *data = self->data;

  switch (t->kind)
    {
    case BPW_TIMELINE_TRACK_LANE:
      {
        const BpwTimelineLane *lane = &g_array_index (data->lanes, BpwTimelineLane, t->lane);

        if (lane->link || lane->n_layers < 0 || lane->name[0] == '\0')
          return lane->name;
        /* Translators: a timeline lane, "matrix engine" */
        g_snprintf (buf, size, _("%s engine"), lane->name);
        return buf;
      }
    case BPW_TIMELINE_TRACK_MEMORY:
      return "memory";
    case BPW_TIMELINE_TRACK_LINK:
    default:
      g_snprintf (buf, size, _("%s busy"), t->tier >= 0 && (guint) t->tier < data->n_tiers
                                          ? data->tier_names[t->tier] : _("link"));
      return buf;
    }
}

static const char *
group_label (BpwTimelinePlot *self, guint32 rank, char *buf, gsize size)
{
  const BpwTimelineData *data = self->data;
  const BpwTimelineLane *lane = NULL;
  gint64 stage = rank;
  gsize n;

  for (guint l = 0; l < data->lanes->len; l++)
    if (g_array_index (data->lanes, BpwTimelineLane, l).rank == rank)
      {
        lane = &g_array_index (data->lanes, BpwTimelineLane, l);
        stage = lane->stage;
        break;
      }
  if (stage == (gint64) rank)
    n = g_snprintf (buf, size, _("stage %u"), rank);
  else
    n = g_snprintf (buf, size, _("rank %u · stage %" PRId64), rank, stage);
  /* What runs there, on a second line: "layers 0–11", with the embedding or the head. */
  if (lane != NULL && lane->n_layers >= 0 && n < size)
    {
      g_autofree char *what = NULL;

      if (lane->n_layers > 0 && lane->layers != NULL)
        /* Translators: the transformer blocks a pipeline stage runs, "layers 0–11", or
         * with interleaved model chunks "layers 0–6, 14–20" */
        what = g_strdup_printf (_("layers %s"), lane->layers);
      else if (lane->n_layers > 0)
        /* Translators: the transformer blocks a pipeline stage runs, "layers 0–11" */
        what = g_strdup_printf (_("layers %" PRId64 "–%" PRId64), lane->first_layer,
                                lane->first_layer + lane->n_layers - 1);
      if (lane->embedding)
        {
          g_autofree char *rest = what;

          /* Translators: "embedding + layers 0–11" */
          what = rest != NULL ? g_strdup_printf (_("embedding + %s"), rest)
                              : g_strdup (_("embedding"));
        }
      if (lane->head)
        {
          g_autofree char *rest = what;

          /* Translators: "layers 84–95 + head" */
          what = rest != NULL ? g_strdup_printf (_("%s + head"), rest) : g_strdup (_("head"));
        }
      if (what != NULL)
        g_snprintf (buf + n, size - n, "\n%s", what);
    }
  return buf;
}

static void
label_marks (BpwTimelinePlot *self, BpwPlotText *text, const BpwPlotStyle *st)
{
  const BpwPlotColor dark = { 0.1, 0.1, 0.1, 1 }, light = { 1, 1, 1, 1 };
  guint placed = 0;
  double small_h = text_get (self, text, BPW_PLOT_FONT_SMALL, "Ag")->height;

  /* The marks wide enough, as layout found them: not every mark again. */
  for (guint c = 0; c < self->labelled->len && placed < MAX_EVENT_LABELS; c++)
    {
      const BpwTimelineMark *m = &g_array_index (self->marks, BpwTimelineMark,
                                                 g_array_index (self->labelled, guint, c));
      const BpwTimelineTrack *t = &g_array_index (self->tracks, BpwTimelineTrack, m->track);
      const char *name, *dot;
      const BpwTimelineText *label;
      BpwPlotColor scratch;
      const BpwPlotColor *fill;
      double x0, x1;

      x0 = MAX (m->x0, self->scene->area.x);
      x1 = MIN (m->x1, self->scene->area.x + self->scene->area.width);
      if (t->rect.height < small_h)
        continue;
      name = bpw_timeline_data_name (self->data, self->data->events[m->event].name);
      label = text_get (self, text, BPW_PLOT_FONT_SMALL, name);
      dot = strchr (name, '.');
      if (label->width + 2 * TEXT_PAD > x1 - x0 && dot != NULL && dot[1] != '\0')
        label = text_get (self, text, BPW_PLOT_FONT_SMALL, dot + 1);
      if (label->width + 2 * TEXT_PAD > x1 - x0)
        continue;
      fill = _bpw_timeline_key_color (self, st, m->key, &scratch);
      add_text (self, label, (x0 + x1) / 2, t->rect.y + t->rect.height / 2, 0.5, 0.5,
                bpw_plot_color_luminance (fill) > 0.4 ? &dark : &light);
      placed++;
    }
}

/* @reserve: the largest legend the layout may need, before flows and counts are known. */
static void
build_legend (BpwTimelinePlot *self, const BpwPlotStyle *st, guint32 events, guint marks,
              gboolean reserve)
{
  char a[32], b[32];
  static const char * const headings[BPW_TIMELINE_N_COLORINGS] = {
    N_("Phase"), N_("Bottleneck"), N_("Layer type"),
  };
  g_autofree char *note = NULL;
  BpwPlotColor scratch, c;
  char cap[BPW_SI_LABEL_MAX];

  bpw_plot_legend_clear (&self->scene->legend);
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_HEADING, NULL, _(headings[self->color_by]));
  for (guint k = 0; k < BPW_TIMELINE_MAX_KEYS; k++)
    if (self->present[self->color_by] & (1u << k))
      bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_BOX,
                           _bpw_timeline_key_color (self, st, k, &scratch),
                           _bpw_timeline_key_name (self->color_by, k));
  if (self->show_memory && self->data->memory != NULL)
    {
      g_autofree char *label = NULL;

      char height[BPW_SI_LABEL_MAX];

      bpw_plot_style_format_bytes (st, cap, sizeof cap, self->data->capacity);
      bpw_plot_style_format_bytes (st, height, sizeof height, self->memory_scale);
      label = g_strdup_printf (_("Memory in use (track height %s; capacity %s)"), height, cap);
      c = _bpw_timeline_counter_color (st, BPW_TIMELINE_TRACK_MEMORY);
      bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_BOX, &c, label);
    }
  if (self->show_links && self->data->n_tiers > 0)
    {
      c = _bpw_timeline_counter_color (st, BPW_TIMELINE_TRACK_LINK);
      bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_BOX, &c, _("Link busy (0–100%)"));
    }
  if (self->selected < self->data->n_events && (self->flows->len > 0 || reserve))
    bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_LINE, &st->accent,
                         _("Dependencies of the selection"));
  note = g_strdup_printf (_("One lane per queue of a pipeline stage's rank. Events narrower than "
                          "a column are merged, never dropped: %s events in view drawn as "
                          "%s marks."), bpw_plot_format_count (events, a, sizeof a),
                          bpw_plot_format_count (marks, b, sizeof b));
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_NOTE, NULL, note);
}

/* ---- the whole ---- */

/* The smallest time that maps to column @c or further right, so that an event starts in
 * column c exactly when col_time[c] ≤ start < col_time[c + 1], as (gint) map (start) says:
 * unmap () alone can be an ulp or two off. map () is monotonic, so a few steps settle it. */
static double
column_time (const BpwScale *xs, gint c)
{
  double t = bpw_scale_unmap (xs, c);

  for (guint n = 0; n < 64 && bpw_scale_map (xs, t) < c; n++)
    t = nextafter (t, G_MAXDOUBLE);
  for (guint n = 0; n < 64 && bpw_scale_map (xs, nextafter (t, -G_MAXDOUBLE)) >= c; n++)
    t = nextafter (t, -G_MAXDOUBLE);
  return t;
}

/* Memory tracks share one scale a little above the largest peak, so that changes within a
 * step show, and round in the unit the legend gives it in (26 GB, 24 GiB). */
static double
memory_scale (double peak, const BpwPlotStyle *st)
{
  BpwSiFlags flags = bpw_si_flags_for_unit (bpw_plot_style_bytes_unit (st));
  double v = peak * 1.05, prefix, unit;

  if (!(peak > 0))
    return 0;
  prefix = bpw_si_scale (bpw_si_exponent (v, flags, 2), flags);
  unit = pow (10, floor (log10 (v / prefix)) - 1);
  return ceil (v / prefix / unit) * unit * prefix;
}

static void
reset_scene (BpwTimelinePlot *self)
{
  if (self->labelled == NULL)
    self->labelled = g_array_new (FALSE, FALSE, sizeof (guint));
  g_array_set_size (self->labelled, 0);
  g_array_set_size (self->marks, 0);
  g_array_set_size (self->values, 0);
  g_array_set_size (self->flows, 0);
  g_array_set_size (self->labels, 0);
  g_array_set_size (self->group_rects, 0);
  self->visible_events = 0;
}

/* The largest occupancy in view, under the memory track's name when there is room. */
static void
memory_label (BpwTimelinePlot *self, BpwPlotText *text, const BpwPlotStyle *st,
              const BpwTimelineTrack *tr, double x)
{
  char value[BPW_SI_LABEL_MAX], str[96];
  double max = NAN, small_h;

  for (guint i = 0; i < tr->n_marks; i++)
    {
      double v = g_array_index (self->values, double, tr->first_mark + i);

      if (isfinite (v) && !(v <= max))
        max = v;
    }
  small_h = text_get (self, text, BPW_PLOT_FONT_SMALL, "Ag")->height;
  if (!isfinite (max) || tr->rect.height < 2 * small_h)
    return;
  bpw_plot_style_format_bytes (st, value, sizeof value, max);
  g_snprintf (str, sizeof str, _("max %s"), value);
  add_label (self, text, BPW_PLOT_FONT_SMALL, str, x, tr->rect.y + tr->rect.height / 2, 1, 0,
             &st->muted);
}

static void
layout_text (BpwTimelinePlot *self, BpwPlotText *text, const BpwPlotStyle *st,
             gboolean track_labels, double col_a, double pad)
{
  double small_h = text_get (self, text, BPW_PLOT_FONT_SMALL, "Ag")->height;
  guint t = 0;

  while (t < self->tracks->len)
    {
      const BpwTimelineTrack *first = &g_array_index (self->tracks, BpwTimelineTrack, t);
      double top = G_MAXDOUBLE, bottom = -G_MAXDOUBLE;
      guint32 rank = first->rank;
      char buf[128];

      for (; t < self->tracks->len &&
             g_array_index (self->tracks, BpwTimelineTrack, t).rank == rank; t++)
        {
          const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);

          if (!tr->visible)
            continue;
          top = MAX (MIN (top, tr->rect.y), self->scene->area.y);
          bottom = MIN (MAX (bottom, tr->rect.y + tr->rect.height),
                        self->scene->area.y + self->scene->area.height);
          /* A track the row window cuts shows no label of its own. */
          if (tr->rect.y < self->scene->area.y - 0.5 ||
              tr->rect.y + tr->rect.height > self->scene->area.y + self->scene->area.height + 0.5)
            continue;
          if (track_labels)
            add_label (self, text, BPW_PLOT_FONT_SMALL, track_label (self, tr, buf, sizeof buf),
                       self->scene->area.x - pad / 2, tr->rect.y + tr->rect.height / 2, 1,
                       tr->kind == BPW_TIMELINE_TRACK_MEMORY &&
                       tr->rect.height >= 2 * small_h ? 1 : 0.5,
                       tr->kind == BPW_TIMELINE_TRACK_LANE ? &st->foreground : &st->muted);
          if (track_labels && tr->kind == BPW_TIMELINE_TRACK_MEMORY)
            memory_label (self, text, st, tr, self->scene->area.x - pad / 2);
        }
      if (bottom <= top)
        continue;
      {
        BpwPlotRect band = { pad, top, self->scene->area.x + self->scene->area.width - pad,
                             bottom - top };
        double cy = CLAMP ((top + bottom) / 2, self->scene->area.y + 6,
                           self->scene->area.y + self->scene->area.height - 6);

        g_array_append_val (self->group_rects, band);
        add_label (self, text, BPW_PLOT_FONT_BODY, group_label (self, rank, buf, sizeof buf),
                   pad + (track_labels ? 0 : col_a / 2) + pad / 2, cy, track_labels ? 0 : 0.5,
                   0.5, &st->foreground);
      }
    }
}

void
_bpw_timeline_plot_layout (BpwPlot               *plot,
                           const BpwPlotViewport *viewport,
                           double                 width,
                           double                 height)
{
  BpwTimelinePlot *self = BPW_TIMELINE_PLOT (plot);
  const BpwTimelineData *data = self->data;
  const BpwPlotStyle *st = bpw_plot_get_style (plot);
  BpwPlotText *text = _bpw_plot_get_text (plot);
  double pad = st->padding, top, bottom, x_extent, row_h, y0, y1, col_a = 0, col_b = 0, small_h;
  gboolean track_labels;
  char buf[128];

  reset_scene (self);
  self->memory_scale = memory_scale (self->memory_peak, st);
  text_cache_begin (self, text);
  /* Events appended to finished data (measured lanes) join the summary here. */
  _bpw_timeline_summary_ensure ((BpwTimelineData *) data);
  self->rows = _bpw_timeline_plot_build_tracks (self, self->tracks);
  _bpw_plot_set_title (plot, data->title);
  top = _bpw_plot_title_init (&self->scene->title, text, st, data->title, width) + pad * 1.5;

  /* The note's longest form reserves the legend's height before the counts are known;
   * the same entries at the same width take the same height as last time. */
  build_legend (self, st, data->n_events, data->n_events, TRUE);
  if (self->legend_sig == NULL)
    self->legend_sig = g_string_new (NULL);
  if (!legend_signature (&self->scene->legend, width, self->legend_sig) ||
      !(self->legend_height >= 0))
    {
      bpw_plot_legend_layout (&self->scene->legend, text, st, TRUE, 0, 0, width - 2 * pad);
      self->legend_height = self->scene->legend.height;
    }
  bottom = height - pad - self->legend_height - pad;

  self->t0 = 0;
  self->t1 = data->step_s > 0 ? data->step_s : 1;
  if (viewport != NULL && viewport->x_max > viewport->x_min)
    self->t0 = viewport->x_min, self->t1 = viewport->x_max;
  else if (self->window[1] > self->window[0])
    self->t0 = self->window[0], self->t1 = self->window[1];
  y0 = 0;
  y1 = MAX (self->rows, 1.0);
  if (viewport != NULL && viewport->y_max > viewport->y_min)
    y0 = viewport->y_min, y1 = viewport->y_max;

  bpw_scale_init (&self->scene->xscale, BPW_SCALE_LINEAR, self->t0, self->t1, 0, width);
  bpw_axis_layout_init (&self->scene->xaxis, BPW_AXIS_BOTTOM, _("Time in the step"), "s", TRUE);
  /* The axis' height is its title's and one line of tick labels: the same whatever the
   * range, so measured once per font. */
  if (!(self->x_extent >= 0))
    {
      bpw_axis_layout_compute (&self->scene->xaxis, &self->scene->xscale, text, st);
      self->x_extent = bpw_axis_layout_extent (&self->scene->xaxis, st);
    }
  x_extent = self->x_extent;
  self->scene->area.y = top;
  self->scene->area.height = MAX (bottom - x_extent - top, 1.0);
  /* Rows too thin to read: a window of whole rows, the offset's, as a scrolled view. */
  if (self->min_row_h > 0 && (y1 - y0) * self->min_row_h > self->scene->area.height)
    {
      double shown = MAX (floor (self->scene->area.height / self->min_row_h), 1.0);

      y0 = CLAMP (y0 + self->row_offset, y0, y1 - shown);
      y1 = y0 + shown;
    }
  self->row_first = y0;
  self->row_shown = y1 - y0;
  row_h = self->scene->area.height / (y1 - y0);

  small_h = text_get (self, text, BPW_PLOT_FONT_SMALL, "Ag")->height;
  track_labels = row_h * (1 - TRACK_GAP) >= small_h * 0.95;
  for (guint t = 0; t < self->tracks->len; t++)
    {
      const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);

      col_a = MAX (col_a, text_get (self, text, BPW_PLOT_FONT_BODY,
                                    group_label (self, tr->rank, buf, sizeof buf))->width);
      col_b = MAX (col_b, text_get (self, text, BPW_PLOT_FONT_SMALL,
                                    track_label (self, tr, buf, sizeof buf))->width);
    }
  self->scene->area.x = floor (pad + col_a + pad + (track_labels ? col_b + pad : 0));
  self->scene->area.x = MIN (self->scene->area.x, width * 0.4);
  /* Room for half the last tick label, which is centred on the area's right edge. */
  {
    char last[BPW_SI_LABEL_MAX];
    double w;

    bpw_si_format (last, sizeof last, self->t1, "s", 6);
    w = text_get (self, text, BPW_PLOT_FONT_SMALL, last)->width;
    self->scene->area.width = MAX (floor (width - MAX (pad, w / 2 + 2)) - self->scene->area.x, 1.0);
  }
  bpw_scale_init (&self->scene->xscale, BPW_SCALE_LINEAR, self->t0, self->t1, self->scene->area.x,
                  self->scene->area.x + self->scene->area.width);
  bpw_axis_layout_compute (&self->scene->xaxis, &self->scene->xscale, text, st);
  self->col_first = (gint) floor (self->scene->area.x);
  self->col_end = (gint) ceil (self->scene->area.x + self->scene->area.width);
  g_array_set_size (self->col_time, 0);
  for (gint c = self->col_first; c <= self->col_end; c++)
    {
      double t = column_time (&self->scene->xscale, c);

      g_array_append_val (self->col_time, t);
    }

  for (guint t = 0; t < self->tracks->len; t++)
    {
      BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);

      tr->visible = tr->row + tr->rows > y0 && tr->row < y1;
      tr->rect = (BpwPlotRect) { self->scene->area.x,
                                 self->scene->area.y + (tr->row + TRACK_GAP / 2 - y0) * row_h,
                                 self->scene->area.width, row_h * (tr->rows - TRACK_GAP) };
      tr->first_mark = tr->n_marks = 0;
      if (!tr->visible)
        continue;
      if (tr->kind == BPW_TIMELINE_TRACK_LANE)
        _bpw_timeline_plot_layout_lane (self, t);
      else if (tr->kind == BPW_TIMELINE_TRACK_MEMORY)
        _bpw_timeline_plot_layout_memory (self, tr);
      else
        _bpw_timeline_plot_layout_link (self, tr);
    }

  _bpw_timeline_plot_layout_flows (self);
  layout_text (self, text, st, track_labels, col_a, pad);
  label_marks (self, text, st);

  build_legend (self, st, self->visible_events, self->marks->len, FALSE);
  bpw_plot_legend_layout (&self->scene->legend, text, st, TRUE, 0, 0, width - 2 * pad);
  bpw_plot_legend_move (&self->scene->legend, pad,
                        self->scene->area.y + self->scene->area.height + x_extent + pad);
}
