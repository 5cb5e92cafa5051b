/* test-selection.c — the roofline, engine and lifetimes charts outline the selected
 * operation there and dim everything else
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-selection"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-assignment-plot.h"
#include "bpw-lifetimes-plot.h"
#include "bpw-plot-export.h"
#include "bpw-plot-private.h"
#include "bpw-plot-test-util.h"
#include "bpw-roofline-plot.h"
#include "bpw-simulation.h"

#define WIDTH 720.0
#define HEIGHT 405.0

static BpwPlotStyle style;

static cairo_surface_t *
render (BpwPlot *plot)
{
  g_autoptr(GError) error = NULL;
  cairo_surface_t *image = bpw_plot_render_image (plot, &style, WIDTH, HEIGHT, 1.0, &error);

  g_assert_no_error (error);
  cairo_surface_flush (image);
  return image;
}

static gboolean
inside (const GArray *boxes,
        int           x,
        int           y)
{
  for (guint i = 0; i < boxes->len; i++)
    {
      const BpwPlotRect *b = &g_array_index (boxes, BpwPlotRect, i);

      if (x + 1 > b->x && x < b->x + b->width && y + 1 > b->y && y < b->y + b->height)
        return TRUE;
    }
  return FALSE;
}

/* Pixels of @a and @b that differ; those outside @boxes are counted in @stray, and those
 * of them that got darker in @darker (NULL: not counted). */
static guint
count_changes_full (cairo_surface_t *a,
                    cairo_surface_t *b,
                    const GArray    *boxes,
                    guint           *stray,
                    guint           *darker)
{
  int width = cairo_image_surface_get_width (a), height = cairo_image_surface_get_height (a);
  int stride = cairo_image_surface_get_stride (a);
  const guint8 *pa = cairo_image_surface_get_data (a), *pb = cairo_image_surface_get_data (b);
  guint changed = 0;

  *stray = 0;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        const guint8 *u = pa + y * stride + 4 * x, *v = pb + y * stride + 4 * x;

        if (abs (u[0] - v[0]) <= 2 && abs (u[1] - v[1]) <= 2 && abs (u[2] - v[2]) <= 2)
          continue;
        changed++;
        if (boxes == NULL || !inside (boxes, x, y))
          {
            (*stray)++;
            if (darker != NULL && v[0] + v[1] + v[2] < u[0] + u[1] + u[2] - 6)
              (*darker)++;
          }
      }
  return changed;
}

static guint
count_changes (cairo_surface_t *a,
               cairo_surface_t *b,
               const GArray    *boxes,
               guint           *stray)
{
  return count_changes_full (a, b, boxes, stray, NULL);
}

static void
add_box (GArray *boxes,
         double  x0,
         double  y0,
         double  x1,
         double  y1,
         double  margin)
{
  BpwPlotRect r = { x0 - margin, y0 - margin, x1 - x0 + 2 * margin, y1 - y0 + 2 * margin };

  g_array_append_val (boxes, r);
}

/* Selecting outlines the marks of the lineage (changes in @boxes around them) and dims
 * the rest of the plot: outside the boxes pixels only get lighter (the light style's
 * background), and many do; clearing gives the first image back, pixel for pixel. */
static void
check_outline (BpwPlot         *plot,
               cairo_surface_t *before,
               void           (*select) (BpwPlot *, guint32),
               guint32          lineage,
               const GArray    *boxes)
{
  cairo_surface_t *selected, *cleared;
  guint stray, changed, darker = 0;

  g_assert_cmpuint (boxes->len, >, 0);
  select (plot, lineage);
  selected = render (plot);
  changed = count_changes_full (before, selected, boxes, &stray, &darker);
  g_assert_cmpuint (changed - stray, >, 10);
  g_assert_cmpuint (stray, >, 100);
  g_assert_cmpuint (darker, ==, 0);

  select (plot, BPW_PLOT_NO_LINEAGE);
  cleared = render (plot);
  g_assert_cmpuint (count_changes (before, cleared, NULL, &stray), ==, 0);
  cairo_surface_destroy (selected);
  cairo_surface_destroy (cleared);
}

static void
notify_cb (GObject *object, GParamSpec *pspec, guint *count)
{
  (*count)++;
}

/* The base keeps the selection for every chart: the property follows, and it notifies
 * once per change. */
static void
select_lineage (BpwPlot *plot, guint32 lineage)
{
  guint notified = 0;
  guint32 property;
  gulong id = g_signal_connect (plot, "notify::selected-lineage", G_CALLBACK (notify_cb),
                                &notified);

  bpw_plot_set_selected_lineage (plot, lineage);
  bpw_plot_set_selected_lineage (plot, lineage);
  g_signal_handler_disconnect (plot, id);
  g_object_get (plot, "selected-lineage", &property, NULL);
  g_assert_cmpuint (bpw_plot_get_selected_lineage (plot), ==, lineage);
  g_assert_cmpuint (property, ==, lineage);
  g_assert_cmpuint (notified, ==, 1);
}

/* The largest dot is ringed: a circle 3 units outside it. */
static void
test_roofline (void)
{
  g_autoptr(BpwPlan) plan = bpw_plot_test_default_plan (NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwRooflinePlot) plot = NULL;
  g_autoptr(GArray) boxes = g_array_new (FALSE, FALSE, sizeof (BpwPlotRect));
  const BpwRooflineData *data;
  const BpwRooflineMark *marks;
  cairo_surface_t *before;
  guint n, largest = 0;
  guint32 lineage;

  plot = bpw_roofline_plot_new (bpw_roofline_data_new_from_plan (plan, -1, "A100", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_plot_get_selected_lineage (BPW_PLOT (plot)), ==, BPW_PLOT_NO_LINEAGE);
  before = render (BPW_PLOT (plot));
  data = bpw_roofline_plot_get_data (plot);
  marks = bpw_roofline_plot_get_marks (plot, &n);
  g_assert_cmpuint (n, >, 0);
  for (guint i = 0; i < n; i++)
    if (marks[i].radius > marks[largest].radius)
      largest = i;
  lineage = g_array_index (data->points, BpwRooflinePoint, marks[largest].point).lineage;
  for (guint i = 0; i < n; i++)
    if (g_array_index (data->points, BpwRooflinePoint, marks[i].point).lineage == lineage)
      add_box (boxes, marks[i].x, marks[i].y, marks[i].x, marks[i].y, marks[i].radius + 7);
  check_outline (BPW_PLOT (plot), before, select_lineage, lineage, boxes);
  cairo_surface_destroy (before);
}

/* The widest bar is outlined, one unit outside it. */
static void
test_assignment (void)
{
  g_autoptr(BpwPlan) plan = bpw_plot_test_default_plan (NULL, "llama3-70b-decode");
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwAssignmentPlot) plot = NULL;
  g_autoptr(GArray) boxes = g_array_new (FALSE, FALSE, sizeof (BpwPlotRect));
  const BpwAssignmentData *data;
  const BpwAssignmentMark *marks;
  cairo_surface_t *before;
  guint n, widest = 0;
  guint32 lineage;

  plot = bpw_assignment_plot_new (bpw_assignment_data_new_from_plan (plan, -1, "A100", &error));
  g_assert_no_error (error);
  before = render (BPW_PLOT (plot));
  data = bpw_assignment_plot_get_data (plot);
  marks = bpw_assignment_plot_get_marks (plot, &n);
  g_assert_cmpuint (n, >, 0);
  for (guint i = 0; i < n; i++)
    if (marks[i].x1 - marks[i].x0 > marks[widest].x1 - marks[widest].x0)
      widest = i;
  lineage = g_array_index (data->items, BpwAssignmentItem, marks[widest].item).lineage;
  for (guint i = 0; i < n; i++)
    if (g_array_index (data->items, BpwAssignmentItem, marks[i].item).lineage == lineage)
      {
        BpwPlotRect lane;

        g_assert_true (bpw_assignment_plot_get_lane_rect (plot, marks[i].lane, &lane));
        add_box (boxes, marks[i].x0, lane.y, MAX (marks[i].x1, marks[i].x0 + 1),
                 lane.y + lane.height, 5);
      }
  check_outline (BPW_PLOT (plot), before, select_lineage, lineage, boxes);
  cairo_surface_destroy (before);
}

/* Every buffer the operation allocates is outlined: the bars of its lineage. */
static void
test_lifetimes (void)
{
  g_autoptr(BpwPlan) plan = bpw_plot_test_default_plan (NULL, "llama3-70b-prefill");
  g_autoptr(BpwSimulation) sim = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwLifetimesPlot) plot = NULL;
  g_autoptr(GArray) boxes = g_array_new (FALSE, FALSE, sizeof (BpwPlotRect));
  const BpwLifetimesData *data;
  const BpwLifetimeMark *marks;
  cairo_surface_t *before;
  guint n, widest = G_MAXUINT;
  guint32 lineage;

  sim = bpw_simulation_new (plan, NULL, &error);
  g_assert_no_error (error);
  plot = bpw_lifetimes_plot_new (bpw_lifetimes_data_new_from_simulation (sim, -1, NULL, "A100",
                                                                         &error));
  g_assert_no_error (error);
  before = render (BPW_PLOT (plot));
  data = bpw_lifetimes_plot_get_data (plot);
  marks = bpw_lifetimes_plot_get_marks (plot, &n);
  for (guint i = 0; i < n; i++)
    if (g_array_index (data->buffers, BpwLifetimeBuffer, marks[i].buffer).lineage
        != BPW_SIM_NONE
        && (widest == G_MAXUINT
            || marks[i].x1 - marks[i].x0 > marks[widest].x1 - marks[widest].x0))
      widest = i;
  g_assert_cmpuint (widest, !=, G_MAXUINT);
  lineage = g_array_index (data->buffers, BpwLifetimeBuffer, marks[widest].buffer).lineage;
  for (guint i = 0; i < n; i++)
    if (g_array_index (data->buffers, BpwLifetimeBuffer, marks[i].buffer).lineage == lineage)
      add_box (boxes, marks[i].x0, marks[i].y, MAX (marks[i].x1, marks[i].x0 + 1),
               marks[i].y + marks[i].height, 5);
  check_outline (BPW_PLOT (plot), before, select_lineage, lineage, boxes);
  cairo_surface_destroy (before);
}

static void
add_target (BpwPlot *plot, gint index, double x, double y, double size, double reach)
{
  BpwPlotTarget t = {
    .hit = { .kind = BPW_PLOT_HIT_ITEM, .index = index, .count = 1,
             .lineage = BPW_PLOT_NO_LINEAGE, .bounds = { x, y, size, size } },
    .reach = reach,
  };

  _bpw_plot_add_target (plot, &t);
}

/* The base answers hit-tests from the targets a layout added: of the dots in reach the
 * nearest, whatever their order; of overlapping boxes the last added (drawn on top). */
static void
test_hit_targets (void)
{
  g_autoptr(BpwRooflinePlot) roofline = bpw_roofline_plot_new (NULL);
  BpwPlot *plot = BPW_PLOT (roofline);
  BpwPlotHit hit;

  bpw_plot_layout (plot, &style, NULL, WIDTH, HEIGHT);
  add_target (plot, 1, 300, 200, 4, 5);   /* centre (302, 202) */
  add_target (plot, 2, 306, 200, 4, 5);   /* centre (308, 202), on top */
  g_assert_true (_bpw_plot_hit_targets (plot, 303, 202, &hit));
  g_assert_cmpint (hit.index, ==, 1);
  g_assert_true (_bpw_plot_hit_targets (plot, 307, 202, &hit));
  g_assert_cmpint (hit.index, ==, 2);
  g_assert_false (_bpw_plot_hit_targets (plot, 320, 202, &hit));

  add_target (plot, 3, 400, 100, 20, 0);
  add_target (plot, 4, 410, 110, 20, 0);
  g_assert_true (_bpw_plot_hit_targets (plot, 415, 115, &hit));
  g_assert_cmpint (hit.index, ==, 4);
  g_assert_true (_bpw_plot_hit_targets (plot, 405, 105, &hit));
  g_assert_cmpint (hit.index, ==, 3);
  g_assert_cmpfloat (hit.bounds.width, ==, 20);

  /* A new layout starts from none. */
  bpw_plot_layout (plot, &style, NULL, WIDTH, HEIGHT);
  g_assert_false (_bpw_plot_hit_targets (plot, 415, 115, &hit));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  bpw_plot_style_init_print (&style);

  g_test_add_func ("/bpw/plot/Selection/roofline", test_roofline);
  g_test_add_func ("/bpw/plot/Selection/assignment", test_assignment);
  g_test_add_func ("/bpw/plot/Selection/lifetimes", test_lifetimes);
  g_test_add_func ("/bpw/plot/Selection/hit-targets", test_hit_targets);
  return g_test_run ();
}
