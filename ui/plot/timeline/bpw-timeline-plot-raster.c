/* bpw-timeline-plot-raster.c — painting the timeline's marks and counter bars
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tens of thousands of marks, most a pixel or two wide and a track high, and a bar per
 * column of every counter track. As rectangles, cairo sorts and fills each, and pixman
 * sets up every row of each: that costs more than the rest of the frame. So where the
 * result is pixels anyway, they are written as rows of pixels: straight into an image
 * surface where cairo allows it (_bpw_timeline_plot_draw_pixels ()), else, for marks, as
 * an image that one fill per track stretches over the track. Vector surfaces (SVG, PDF)
 * get the rectangles. A pixel is a rectangle's when its centre lies in it, as cairo
 * decides without antialiasing (span_pixels ()); so every path paints the same pixels.
 */
#define G_LOG_DOMAIN "bpw-timeline-plot"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-timeline-plot-private.h"

/* Premultiplied, as cairo's ARGB32 stores it. */
static guint32
argb32 (const BpwPlotColor *c)
{
  double a = CLAMP (c->a, 0.0, 1.0);

  return (guint32) lround (255 * a) << 24 |
         (guint32) lround (255 * a * CLAMP (c->r, 0.0, 1.0)) << 16 |
         (guint32) lround (255 * a * CLAMP (c->g, 0.0, 1.0)) << 8 |
         (guint32) lround (255 * a * CLAMP (c->b, 0.0, 1.0));
}

/* The rectangle mark @i paints, in user units: from @x, @w wide (≤ 0: nothing). At
 * least a unit wide, but never into the next mark of its track (overlapping events): so
 * marks' rectangles do not overlap, and whatever the order they are painted in, the
 * pixels are the same. */
static inline void
mark_extent (const BpwTimelineMark *marks, guint i, guint track_end, double *x, double *w)
{
  const BpwTimelineMark *m = &marks[i];
  double width = MAX (m->x1 - m->x0, 1.0);

  /* A hairline gap between wide neighbours tells back-to-back events apart. */
  *x = m->x0;
  *w = !m->dense && width > 4 ? width - 0.6 : width;
  if (i + 1 < track_end)
    *w = MIN (*w, marks[i + 1].x0 - m->x0);
}

/* The pixels [*p0, *p1) that cairo fills, without antialiasing, for a rectangle from @v,
 * @w wide along one axis whose pixel is @a · user + @b. cairo_rectangle () takes the
 * corner to 24.8 fixed point (to nearest, ties to even: the magic number of
 * cairo-fixed-private.h) and adds the width, also in fixed point; then an edge half way
 * between two pixels rounds down. So pixels written directly are exactly cairo's. */
static inline gint32
fixed_from (double v)
{
  union { double d; gint64 i; } u;

  u.d = CLAMP (v, -1e6, 1e6) + 26388279066624.0;  /* 1.5 · 2^(52 − 8) */
  return (gint32) u.i;
}

static inline void
span_pixels (double v, double w, double a, double b, gint *p0, gint *p1)
{
  gint32 f = fixed_from (v * a + b);

  *p0 = (f + 127) >> 8;
  *p1 = (f + fixed_from (w * a) + 127) >> 8;
}

/* The marks of lane track @tr into pixels [x0, x1) of a row, @line[p − x0] for pixel p,
 * where pixel = user × @a + @b. */
static void
paint_line (BpwTimelinePlot *self, const BpwTimelineTrack *tr, const guint32 color[],
            guint32 *line, gint x0, gint x1, double a, double b)
{
  const BpwTimelineMark *marks = (const BpwTimelineMark *) self->marks->data;
  guint track_end = tr->first_mark + tr->n_marks;

  for (guint i = tr->first_mark; i < track_end; i++)
    {
      guint32 v = color[marks[i].key % BPW_TIMELINE_MAX_KEYS];
      double x, w;
      gint p0, p1;

      mark_extent (marks, i, track_end, &x, &w);
      span_pixels (x, w, a, b, &p0, &p1);
      for (gint p = MAX (p0, x0); p < MIN (p1, x1); p++)
        line[p - x0] = v;
    }
}

/* Pixels per user unit along x where cairo rasterizes @cr, or 0 where the marks are
 * better drawn as vectors. Images and recordings (which GTK replays onto images) get
 * pixels; with a rotation or a mirror, vectors. */
static double
raster_scale (cairo_t *cr)
{
  cairo_surface_t *target = cairo_get_group_target (cr);
  cairo_surface_type_t type = cairo_surface_get_type (target);
  cairo_matrix_t m;
  double sx = 1, sy = 1;

  cairo_get_matrix (cr, &m);
  if (m.xy != 0 || m.yx != 0 || !(m.xx > 0) || !(m.yy > 0))
    return 0;
  if (type == CAIRO_SURFACE_TYPE_RECORDING)
    return 1;
  if (type != CAIRO_SURFACE_TYPE_IMAGE)
    return 0;
  cairo_surface_get_device_scale (target, &sx, &sy);
  return CLAMP (m.xx * sx, 1.0, 8.0);
}

/* Marks on a raster surface that cannot be written directly (a recording, which GTK
 * replays onto an image): each lane track's marks become one row of pixels of an image,
 * which one fill per track stretches over the track's height. Tens of thousands of marks
 * then cost about one composite of the tracks' area when the recording is replayed. */
static gboolean
draw_marks_raster (BpwTimelinePlot *self, cairo_t *cr, const guint32 color[])
{
  double scale = raster_scale (cr);
  guint rows = 0, row = 0;
  gint width, stride;
  guchar *pixels;

  if (scale == 0 || self->marks->len == 0)
    return scale != 0;
  for (guint t = 0; t < self->tracks->len; t++)
    {
      const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);

      rows += tr->visible && tr->kind == BPW_TIMELINE_TRACK_LANE && tr->n_marks > 0;
    }
  width = (gint) ceil (self->scene->area.width * scale);
  if (self->raster == NULL || cairo_image_surface_get_width (self->raster) < width ||
      cairo_image_surface_get_height (self->raster) < (gint) rows)
    {
      _bpw_timeline_plot_clear_raster (self);
      self->raster = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, MAX (width, 1),
                                                 MAX (rows, 1u));
      self->raster_pattern = cairo_pattern_create_for_surface (self->raster);
      cairo_pattern_set_filter (self->raster_pattern, CAIRO_FILTER_NEAREST);
      if (cairo_surface_status (self->raster) != CAIRO_STATUS_SUCCESS)
        {
          _bpw_timeline_plot_clear_raster (self);
          return FALSE;
        }
    }
  /* A recording (GTK) may still hold the last frame's pixels: flush copies them away. */
  cairo_surface_flush (self->raster);
  pixels = cairo_image_surface_get_data (self->raster);
  stride = cairo_image_surface_get_stride (self->raster);

  cairo_save (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  for (guint t = 0; t < self->tracks->len; t++)
    {
      const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);
      guint32 *line = (guint32 *) (pixels + (gsize) row * stride);

      if (!tr->visible || tr->kind != BPW_TIMELINE_TRACK_LANE || tr->n_marks == 0)
        continue;
      memset (line, 0, (gsize) width * sizeof (guint32));
      paint_line (self, tr, color, line, 0, width, scale, -self->scene->area.x * scale);
      row++;
    }
  cairo_surface_mark_dirty (self->raster);
  row = 0;
  for (guint t = 0; t < self->tracks->len; t++)
    {
      const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);
      cairo_matrix_t m;

      if (!tr->visible || tr->kind != BPW_TIMELINE_TRACK_LANE || tr->n_marks == 0)
        continue;
      /* User space to the image: x by pixels from the area's left; y onto the middle
       * half of row `row`, so that pixman's fixed point, a little off at the track's
       * edges, still samples that row. */
      cairo_matrix_init (&m, scale, 0, 0, 0.5 / tr->rect.height, -self->scene->area.x * scale,
                         row + 0.25 - 0.5 * tr->rect.y / tr->rect.height);
      cairo_pattern_set_matrix (self->raster_pattern, &m);
      cairo_set_source (cr, self->raster_pattern);
      cairo_rectangle (cr, self->scene->area.x, tr->rect.y, self->scene->area.width,
                       tr->rect.height);
      cairo_fill (cr);
      row++;
    }
  cairo_restore (cr);
  return TRUE;
}

/* Marks as rectangles, for vector surfaces (SVG, PDF): one path per colour, since cairo
 * fills many rectangles of one path far faster than one fill per rectangle. */
static void
draw_marks_vector (BpwTimelinePlot *self, cairo_t *cr, const BpwPlotStyle *st)
{
  cairo_save (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  for (guint k = 0; k < BPW_TIMELINE_MAX_KEYS; k++)
    {
      BpwPlotColor scratch;
      gboolean any = FALSE;

      if (!(self->present[self->color_by] & (1u << k)))
        continue;
      for (guint i = 0; i < self->marks->len; i++)
        {
          const BpwTimelineMark *m = &g_array_index (self->marks, BpwTimelineMark, i);
          const BpwTimelineTrack *t;
          double x, w;

          if (m->key != k)
            continue;
          t = &g_array_index (self->tracks, BpwTimelineTrack, m->track);
          mark_extent ((const BpwTimelineMark *) self->marks->data, i,
                       t->first_mark + t->n_marks, &x, &w);
          if (w > 0)
            cairo_rectangle (cr, x, t->rect.y, w, t->rect.height);
          any = TRUE;
        }
      if (!any)
        continue;
      bpw_plot_set_source (cr, _bpw_timeline_key_color (self, st, k, &scratch));
      cairo_fill (cr);
    }
  cairo_restore (cr);
}

/* The pixels of an image surface, where cairo lets them be written directly. */
typedef struct
{
  cairo_surface_t        *target;
  cairo_rectangle_list_t *clip;     /* in user units */
  guchar                 *data;
  gint                    stride, width, height;
  double                  ax, bx, ay, by;  /* pixel = user × a + b, in x and in y */
} Pixels;

/* TRUE when nothing between user rectangles and @cr's pixels needs cairo: an image
 * surface, no rotation, a clip of rectangles, OVER. Then the pixels are @px's until
 * pixels_end (). */
static gboolean
pixels_begin (cairo_t *cr, Pixels *px)
{
  cairo_surface_t *target = cairo_get_group_target (cr);
  cairo_format_t format;
  cairo_matrix_t m;
  double sx, sy, ox, oy;

  if (cairo_surface_get_type (target) != CAIRO_SURFACE_TYPE_IMAGE ||
      cairo_get_operator (cr) != CAIRO_OPERATOR_OVER)
    return FALSE;
  format = cairo_image_surface_get_format (target);
  if (format != CAIRO_FORMAT_ARGB32 && format != CAIRO_FORMAT_RGB24)
    return FALSE;
  cairo_get_matrix (cr, &m);
  if (m.xy != 0 || m.yx != 0 || !(m.xx > 0) || !(m.yy > 0))
    return FALSE;
  cairo_surface_flush (target);
  px->data = cairo_image_surface_get_data (target);
  if (px->data == NULL)
    return FALSE;
  px->clip = cairo_copy_clip_rectangle_list (cr);
  if (px->clip->status != CAIRO_STATUS_SUCCESS)
    {
      cairo_rectangle_list_destroy (px->clip);
      return FALSE;
    }
  /* The CTM, then the surface's device scale and offset. */
  cairo_surface_get_device_scale (target, &sx, &sy);
  cairo_surface_get_device_offset (target, &ox, &oy);
  px->target = target;
  px->ax = m.xx * sx;
  px->bx = m.x0 * sx + ox;
  px->ay = m.yy * sy;
  px->by = m.y0 * sy + oy;
  px->stride = cairo_image_surface_get_stride (target);
  px->width = cairo_image_surface_get_width (target);
  px->height = cairo_image_surface_get_height (target);
  return TRUE;
}

static void
pixels_end (Pixels *px)
{
  cairo_surface_mark_dirty (px->target);
  cairo_rectangle_list_destroy (px->clip);
}

/* The pixels of @rect, as cairo fills it without antialiasing, inside clip rectangle @r
 * and the plot area: [x0, x1) × [y0, y1); FALSE when empty. */
static gboolean
pixels_box (const Pixels *px, gint r, const BpwPlotRect *area, const BpwPlotRect *rect,
            gint *x0, gint *x1, gint *y0, gint *y1)
{
  const cairo_rectangle_t *c = &px->clip->rectangles[r];
  gint cx0, cx1, cy0, cy1, ax0, ax1, ay0, ay1;

  span_pixels (rect->x, rect->width, px->ax, px->bx, x0, x1);
  span_pixels (rect->y, rect->height, px->ay, px->by, y0, y1);
  span_pixels (c->x, c->width, px->ax, px->bx, &cx0, &cx1);
  span_pixels (c->y, c->height, px->ay, px->by, &cy0, &cy1);
  span_pixels (area->x, area->width, px->ax, px->bx, &ax0, &ax1);
  span_pixels (area->y, area->height, px->ay, px->by, &ay0, &ay1);
  *x0 = MAX (MAX (*x0, cx0), MAX (ax0, 0));
  *x1 = MIN (MIN (*x1, cx1), MIN (ax1, px->width));
  *y0 = MAX (MAX (*y0, cy0), MAX (ay0, 0));
  *y1 = MIN (MIN (*y1, cy1), MIN (ay1, px->height));
  return *x1 > *x0 && *y1 > *y0;
}

static inline guint32 *
pixels_row (const Pixels *px, gint y)
{
  return (guint32 *) (px->data + (gsize) y * px->stride);
}

/* Room for @n guint32 in the plot's scratch line. */
static guint32 *
scratch_line (BpwTimelinePlot *self, gint n)
{
  if (self->raster_line == NULL || self->raster_line->len < (guint) n)
    {
      g_clear_pointer (&self->raster_line, g_array_unref);
      self->raster_line = g_array_sized_new (FALSE, FALSE, sizeof (guint32), n);
      g_array_set_size (self->raster_line, n);
    }
  return (guint32 *) self->raster_line->data;
}

/* One lane track's marks into the pixels [x0, x1) × [y0, y1): its row of pixels is built
 * once and copied into every pixel row of the track. Below the marks are the band and
 * the vertical grid lines, the same in every row of the track (@uniform, or as its first
 * and last rows tell); then the marks go over a copy of the first row. */
static void
pixels_marks (BpwTimelinePlot *self, const Pixels *px, const BpwTimelineTrack *tr,
              const guint32 color[], gboolean uniform, gint x0, gint x1, gint y0, gint y1)
{
  guint32 *line = scratch_line (self, x1 - x0), *first_row = pixels_row (px, y0) + x0;
  gsize bytes = (gsize) (x1 - x0) * sizeof (guint32);

  uniform = uniform || memcmp (first_row, pixels_row (px, y1 - 1) + x0, bytes) == 0;
  if (uniform)
    memcpy (line, first_row, bytes);
  else
    memset (line, 0, bytes);
  paint_line (self, tr, color, line, x0, x1, px->ax, px->bx);
  for (gint y = y0; y < y1; y++)
    {
      guint32 *dst = pixels_row (px, y) + x0;

      if (uniform)
        memcpy (dst, line, bytes);
      else
        /* Opaque marks replace; gaps (0) keep what is below. Vectorizes. */
        for (gint j = 0; j < x1 - x0; j++)
          dst[j] = line[j] != 0 ? line[j] : dst[j];
    }
}

/* A counter track's bars into the pixels [x0, x1) × [y0, y1): per pixel column the rows
 * of the bar from the value's height down are @fill, and for memory the first of them
 * @line, as draw_counter () in bpw-timeline-plot-draw.c paints them with cairo. */
static void
pixels_counter (BpwTimelinePlot *self, const Pixels *px, const BpwTimelineTrack *tr,
                guint32 fill, guint32 line_color, gint x0, gint x1, gint y0, gint y1)
{
  double scale = tr->kind == BPW_TIMELINE_TRACK_MEMORY ? self->memory_scale : 1.0;
  double base = tr->rect.y + tr->rect.height;
  gboolean memory = tr->kind == BPW_TIMELINE_TRACK_MEMORY;
  gint n = x1 - x0;
  guint32 *top = scratch_line (self, 3 * n), *below_line = top + n, *bottom = top + 2 * n;

  /* Per pixel column: the bar's first row, the first row below its top line and the
   * first row below the bar; none (0) where the value is unknown. */
  memset (top, 0, 3 * (gsize) n * sizeof (guint32));
  for (guint i = 0; i < tr->n_marks; i++)
    {
      double y = _bpw_timeline_counter_y (tr, g_array_index (self->values, double,
                                                             tr->first_mark + i), scale);
      gint p0, p1, t, b, lt, l;

      if (!isfinite (y) || !(y < base))
        continue;
      span_pixels (self->col_first + (double) i, 1, px->ax, px->bx, &p0, &p1);
      span_pixels (y, base - y, px->ay, px->by, &t, &b);
      span_pixels (y, 0.8, px->ay, px->by, &lt, &l);
      for (gint p = MAX (p0, x0); p < MIN (p1, x1); p++)
        {
          top[p - x0] = (guint32) MAX (t, 0);
          below_line[p - x0] = (guint32) MAX (memory ? l : t, 0);
          bottom[p - x0] = (guint32) MAX (b, 0);
        }
    }
  for (gint y = y0; y < y1; y++)
    {
      guint32 *dst = pixels_row (px, y) + x0;
      guint32 row = (guint32) y;

      for (gint j = 0; j < n; j++)
        dst[j] = row < top[j] || row >= bottom[j] ? dst[j]
                 : row < below_line[j] ? line_color : fill;
    }
}

gboolean
_bpw_timeline_plot_draw_pixels (BpwTimelinePlot    *self,
                                cairo_t            *cr,
                                const BpwPlotStyle *st)
{
  guint32 color[BPW_TIMELINE_MAX_KEYS], fill[2], line_color;
  gboolean opaque;
  Pixels px;

  for (guint k = 0; k < BPW_TIMELINE_MAX_KEYS; k++)
    {
      BpwPlotColor scratch;

      color[k] = argb32 (_bpw_timeline_key_color (self, st, k, &scratch));
      /* Translucent colours need cairo's blending. */
      if ((self->present[self->color_by] & (1u << k)) && color[k] >> 24 != 0xff)
        return FALSE;
    }
  for (guint k = 0; k < 2; k++)
    {
      BpwPlotColor c = _bpw_timeline_counter_color (st, k == 0 ? BPW_TIMELINE_TRACK_MEMORY
                                                                : BPW_TIMELINE_TRACK_LINK);

      fill[k] = argb32 (&c);
    }
  line_color = argb32 (&st->muted);
  if (fill[0] >> 24 != 0xff || fill[1] >> 24 != 0xff || line_color >> 24 != 0xff ||
      !pixels_begin (cr, &px))
    return FALSE;
  /* Every pixel row of a lane track is written below, from the track's first row: the
   * bands need not be filled there but for a margin of two pixels, top and bottom (an
   * opaque band and vertical grid lines: the same in every row). */
  opaque = argb32 (&st->band[0]) >> 24 == 0xff && argb32 (&st->band[1]) >> 24 == 0xff;
  _bpw_timeline_plot_draw_bands (self, cr, st, opaque ? 2.5 / px.ay : -1);
  bpw_axis_layout_draw_grid (&self->scene->xaxis, cr, st, &self->scene->area);
  cairo_surface_flush (px.target);
  for (gint r = 0; r < px.clip->num_rectangles; r++)
    for (guint t = 0; t < self->tracks->len; t++)
      {
        const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);
        gboolean lane = tr->kind == BPW_TIMELINE_TRACK_LANE;
        gint x0, x1, y0, y1;

        if (!tr->visible || (!lane && tr->n_marks == 0) ||
            !pixels_box (&px, r, &self->scene->area, &tr->rect, &x0, &x1, &y0, &y1))
          continue;
        if (lane)
          pixels_marks (self, &px, tr, color, opaque, x0, x1, y0, y1);
        else if ((tr->kind == BPW_TIMELINE_TRACK_MEMORY ? self->memory_scale : 1.0) > 0)
          pixels_counter (self, &px, tr, fill[tr->kind == BPW_TIMELINE_TRACK_MEMORY ? 0 : 1],
                          line_color, x0, x1, y0, y1);
      }
  pixels_end (&px);
  return TRUE;
}

void
_bpw_timeline_plot_draw_marks (BpwTimelinePlot    *self,
                               cairo_t            *cr,
                               const BpwPlotStyle *st)
{
  guint32 color[BPW_TIMELINE_MAX_KEYS];

  if (self->marks->len == 0)
    return;
  for (guint k = 0; k < BPW_TIMELINE_MAX_KEYS; k++)
    {
      BpwPlotColor scratch;

      color[k] = argb32 (_bpw_timeline_key_color (self, st, k, &scratch));
    }
  if (!draw_marks_raster (self, cr, color))
    draw_marks_vector (self, cr, st);
}
