/* test-assignment-plot.c — the assignment chart: grouping, layout, level of detail,
 * hit-testing, CSV and export
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-assignment-plot"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "bpw-assignment-plot.h"
#include "bpw-evaluation.h"
#include "bpw-error.h"
#include "bpw-mapping-sheet.h"
#include "bpw-plot-export.h"
#include "bpw-plot-test-util.h"

#define W 720.0
#define H 405.0

typedef struct
{
  const char   *name;
  guint         lane;
  BpwPhase      phase;
  BpwLayerType  type;
  double        seconds;
} Spec;

/* Added out of order on purpose: grouping must put forward before backward, and within a
 * phase keep the layer types in the order they first appear. */
static const Spec specs[] = {
  { "a.qkv", 0, BPW_PHASE_FORWARD, BPW_LAYER_ATTENTION, 3 },
  { "a.norm", 1, BPW_PHASE_FORWARD, BPW_LAYER_NORM, 1 },
  { "a.soft", 1, BPW_PHASE_FORWARD, BPW_LAYER_ATTENTION, 2 },
  { "a.qkv.dgrad", 0, BPW_PHASE_BACKWARD_ACTIVATION, BPW_LAYER_ATTENTION, 4 },
  { "m.fc1", 0, BPW_PHASE_FORWARD, BPW_LAYER_MLP, 5 },
  { "tp.reduce", 2, BPW_PHASE_FORWARD, BPW_LAYER_ATTENTION, 1 },
};

static BpwAssignmentData *
synthetic_data (void)
{
  BpwAssignmentData *data = bpw_assignment_data_new ("Synthetic assignment", "cand");

  bpw_assignment_data_add_lane (data, BPW_LANE_MATRIX, "mx", -1);
  bpw_assignment_data_add_lane (data, BPW_LANE_VECTOR, "vec", -1);
  bpw_assignment_data_add_lane (data, BPW_LANE_LINK, "link", 0);
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      BpwAssignmentItem it = {
        .lineage = 10 + i, .lane = specs[i].lane, .merged = 2, .layer_type = specs[i].type,
        .phase = specs[i].phase, .transfer = specs[i].lane == 2,
        .bottleneck = specs[i].lane == 0 ? BPW_BOTTLENECK_COMPUTE
                      : specs[i].lane == 1 ? BPW_BOTTLENECK_MEMORY
                                           : BPW_BOTTLENECK_COMMUNICATION,
        .name = specs[i].name, .kind = "k", .dtype = "bf16",
        .fusion = i == 1 ? "bias_activation" : "", .fusion_group = i == 1 ? 42 : 0,
        .tile_m = specs[i].lane == 0 ? 128 : 0, .tile_n = specs[i].lane == 0 ? 256 : 0,
        .time_s = specs[i].seconds / 2, .total_s = specs[i].seconds,
      };

      bpw_assignment_data_add_item (data, &it);
    }
  bpw_assignment_data_finish (data);
  return data;
}

static void
test_grouping (void)
{
  g_autoptr(BpwAssignmentData) data = synthetic_data ();
  const char *order[] = { "a.qkv", "a.soft", "tp.reduce", "a.norm", "m.fc1", "a.qkv.dgrad" };
  const double starts[] = { 0, 3, 5, 6, 7, 12 };
  const struct { BpwPhase phase; BpwLayerType type; double start, total; guint n; } groups[] = {
    { BPW_PHASE_FORWARD, BPW_LAYER_ATTENTION, 0, 6, 3 },
    { BPW_PHASE_FORWARD, BPW_LAYER_NORM, 6, 1, 1 },
    { BPW_PHASE_FORWARD, BPW_LAYER_MLP, 7, 5, 1 },
    { BPW_PHASE_BACKWARD_ACTIVATION, BPW_LAYER_ATTENTION, 12, 4, 1 },
  };
  const double busy[] = { 12, 3, 1 };

  g_assert_cmpuint (data->items->len, ==, G_N_ELEMENTS (order));
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    {
      const BpwAssignmentItem *it = &g_array_index (data->items, BpwAssignmentItem, i);

      g_assert_cmpstr (it->name, ==, order[i]);
      g_assert_cmpfloat (it->start_s, ==, starts[i]);
    }
  g_assert_cmpuint (data->groups->len, ==, G_N_ELEMENTS (groups));
  for (guint i = 0; i < G_N_ELEMENTS (groups); i++)
    {
      const BpwAssignmentGroup *g = &g_array_index (data->groups, BpwAssignmentGroup, i);

      g_assert_cmpint (g->phase, ==, groups[i].phase);
      g_assert_cmpint (g->layer_type, ==, groups[i].type);
      g_assert_cmpfloat (g->start_s, ==, groups[i].start);
      g_assert_cmpfloat (g->total_s, ==, groups[i].total);
      g_assert_cmpuint (g->n, ==, groups[i].n);
    }
  for (guint l = 0; l < 3; l++)
    g_assert_cmpfloat (g_array_index (data->lanes, BpwAssignmentLane, l).busy_s, ==, busy[l]);
  g_assert_cmpfloat (data->total_s, ==, 16);
}

static BpwAssignmentPlot *
laid_out (BpwAssignmentData *data, double width, double height)
{
  BpwAssignmentPlot *plot = bpw_assignment_plot_new (data);
  BpwPlotStyle style;

  bpw_plot_style_init_print (&style);
  bpw_plot_layout (BPW_PLOT (plot), &style, NULL, width, height);
  return plot;
}

static void
test_layout (void)
{
  g_autoptr(BpwAssignmentPlot) plot = laid_out (synthetic_data (), W, H);
  g_autoptr(BpwAssignmentPlot) again = laid_out (synthetic_data (), W, H);
  const BpwAssignmentData *data = bpw_assignment_plot_get_data (plot);
  const BpwPlotRect *area = bpw_plot_get_area (BPW_PLOT (plot));
  const BpwAssignmentMark *marks, *marks2;
  guint n, n2;

  marks = bpw_assignment_plot_get_marks (plot, &n);
  marks2 = bpw_assignment_plot_get_marks (again, &n2);
  g_assert_cmpuint (n, ==, data->items->len);
  g_assert_cmpuint (n, ==, n2);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpfloat (marks[i].x0, ==, marks2[i].x0);
      g_assert_cmpfloat (marks[i].x1, ==, marks2[i].x1);
      g_assert_cmpint (marks[i].col0, ==, marks2[i].col0);
      g_assert_cmpuint (marks[i].item, ==, marks2[i].item);
    }
  for (guint i = 0; i < n; i++)
    {
      const BpwAssignmentItem *it = &g_array_index (data->items, BpwAssignmentItem, marks[i].item);
      BpwPlotRect lane;

      /* Closed form: 16 s end to end across the area's width. */
      g_assert_cmpuint (marks[i].count, ==, 1);
      g_assert_cmpuint (marks[i].lane, ==, it->lane);
      g_assert_cmpfloat_with_epsilon (marks[i].x0, area->x + it->start_s / 16 * area->width, 1e-9);
      g_assert_cmpfloat_with_epsilon (marks[i].x1,
                                      area->x + (it->start_s + it->total_s) / 16 * area->width,
                                      1e-9);
      g_assert_true (bpw_assignment_plot_get_lane_rect (plot, marks[i].lane, &lane));
      g_assert_cmpfloat (lane.y, >=, area->y);
      g_assert_cmpfloat (lane.y + lane.height, <=, area->y + area->height + 1e-9);
    }
}

static void
test_hit_test (void)
{
  g_autoptr(BpwAssignmentPlot) plot = laid_out (synthetic_data (), W, H);
  const BpwAssignmentData *data = bpw_assignment_plot_get_data (plot);
  g_autofree char *text = NULL;
  BpwPlotRect lane;
  BpwPlotHit hit;

  for (guint i = 0; i < data->items->len; i++)
    {
      const BpwAssignmentItem *it = &g_array_index (data->items, BpwAssignmentItem, i);
      double x = bpw_plot_map_x (BPW_PLOT (plot), it->start_s + it->total_s / 2);

      g_assert_true (bpw_assignment_plot_get_lane_rect (plot, it->lane, &lane));
      g_assert_true (bpw_plot_hit_test (BPW_PLOT (plot), x, lane.y + lane.height / 2, &hit));
      g_assert_cmpint (hit.kind, ==, BPW_PLOT_HIT_ITEM);
      g_assert_cmpint (hit.index, ==, (gint) i);
      g_assert_cmpuint (hit.lineage, ==, it->lineage);
    }

  /* The vector lane is idle while a.qkv runs on the matrix engine (0..3 s). */
  g_assert_true (bpw_assignment_plot_get_lane_rect (plot, 1, &lane));
  g_assert_false (bpw_plot_hit_test (BPW_PLOT (plot), bpw_plot_map_x (BPW_PLOT (plot), 1.5),
                                     lane.y + lane.height / 2, &hit));

  /* Hover details: tiling and fusion group. */
  g_assert_true (bpw_assignment_plot_get_lane_rect (plot, 0, &lane));
  g_assert_true (bpw_plot_hit_test (BPW_PLOT (plot), bpw_plot_map_x (BPW_PLOT (plot), 1),
                                    lane.y + 1, &hit));
  text = bpw_plot_describe (BPW_PLOT (plot), &hit);
  g_assert_nonnull (strstr (text, "a.qkv"));
  g_assert_nonnull (strstr (text, "128 × 256"));
  g_clear_pointer (&text, g_free);
  g_assert_true (bpw_assignment_plot_get_lane_rect (plot, 1, &lane));
  g_assert_true (bpw_plot_hit_test (BPW_PLOT (plot), bpw_plot_map_x (BPW_PLOT (plot), 6.5),
                                    lane.y + 1, &hit));
  text = bpw_plot_describe (BPW_PLOT (plot), &hit);
  g_assert_nonnull (strstr (text, "a.norm"));
  g_assert_nonnull (strstr (text, "bias_activation, group 42"));
}

/* 1,000,000 operations at 2000 units wide: at most one bar per lane per unit of width,
 * and every operation is counted by exactly one bar. */
static void
test_lod_bounded (void)
{
  BpwAssignmentData *data = bpw_assignment_data_new ("Many", "cand");
  g_autoptr(BpwAssignmentPlot) plot = NULL;
  const guint n_items = 1000000, n_lanes = 3;
  const BpwAssignmentMark *marks;
  guint n, counted[3] = { 0 }, expected[3] = { 0 };
  const BpwPlotRect *area;

  bpw_assignment_data_add_lane (data, BPW_LANE_MATRIX, "mx", -1);
  bpw_assignment_data_add_lane (data, BPW_LANE_VECTOR, "vec", -1);
  bpw_assignment_data_add_lane (data, BPW_LANE_LINK, "link", 0);
  g_array_set_size (data->items, 0);
  for (guint i = 0; i < n_items; i++)
    {
      /* A few long operations among many short ones, lanes in a pseudo-random pattern. */
      guint lane = (i * 7 + i / 3) % n_lanes;
      BpwAssignmentItem it = {
        .lineage = i, .lane = lane, .layer_type = (i / 1000) % 3 == 0 ? BPW_LAYER_MLP
                                                                       : BPW_LAYER_ATTENTION,
        .phase = i < n_items / 2 ? BPW_PHASE_FORWARD : BPW_PHASE_BACKWARD_ACTIVATION,
        .name = "op", .kind = "k", .dtype = "", .fusion = "",
        .total_s = i % 50000 == 0 ? 1e-2 : 1e-6 * (1 + i % 7),
      };

      bpw_assignment_data_add_item (data, &it);
      expected[lane]++;
    }
  bpw_assignment_data_finish (data);
  plot = laid_out (data, 2000, 1000);
  area = bpw_plot_get_area (BPW_PLOT (plot));
  marks = bpw_assignment_plot_get_marks (plot, &n);
  g_assert_cmpuint (n, <=, n_lanes * ((guint) ceil (area->width) + 1));
  g_assert_cmpuint (n, >, n_lanes * 100);
  for (guint i = 0; i < n; i++)
    {
      counted[marks[i].lane] += marks[i].count;
      g_assert_cmpint (marks[i].col1, >, marks[i].col0);
      g_assert_cmpfloat (marks[i].x0, >=, marks[i].col0);
      /* Disjoint and in order within a lane (hit-testing searches them by bisection). */
      if (i > 0 && marks[i - 1].lane == marks[i].lane)
        g_assert_cmpint (marks[i].col0, >=, marks[i - 1].col1);
    }
  for (guint l = 0; l < n_lanes; l++)
    g_assert_cmpuint (counted[l], ==, expected[l]);
}

static void
test_csv (void)
{
  g_autoptr(BpwAssignmentPlot) plot = laid_out (synthetic_data (), W, H);
  const BpwAssignmentData *data = bpw_assignment_plot_get_data (plot);
  g_autofree char *csv = bpw_plot_to_csv (BPW_PLOT (plot));
  g_auto(GStrv) lines = g_strsplit (csv, "\n", -1);
  g_auto(GStrv) header = bpw_plot_test_csv_fields (lines[0]);
  guint rows = 0;

  g_assert_cmpstr (header[1], ==, "lane");
  g_assert_cmpstr (header[10], ==, "start_s");
  g_assert_cmpstr (header[11], ==, "total_s");
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++, rows++)
    {
      g_auto(GStrv) f = bpw_plot_test_csv_fields (lines[i]);
      const BpwAssignmentItem *it = &g_array_index (data->items, BpwAssignmentItem, rows);

      g_assert_cmpuint (g_strv_length (f), ==, g_strv_length (header));
      g_assert_cmpstr (f[1], ==, g_array_index (data->lanes, BpwAssignmentLane, it->lane).name);
      g_assert_cmpstr (f[5], ==, it->name);
      g_assert_cmpfloat (g_ascii_strtod (f[10], NULL), ==, it->start_s);
      g_assert_cmpfloat (g_ascii_strtod (f[11], NULL), ==, it->total_s);
      g_assert_cmpuint (strtoul (f[18], NULL, 10), ==, it->fusion_group);
    }
  g_assert_cmpuint (rows, ==, data->items->len);
}

static void
test_default_study (void)
{
  g_autoptr(BpwPlan) plan = bpw_plot_test_default_plan (NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) rows = bpw_mapping_sheet_new (plan, FALSE);
  g_autoptr(BpwAssignmentPlot) plot = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bpw-plot-XXXXXX", &error);
  g_autofree char *pdf = g_build_filename (dir, "a.pdf", NULL);
  g_autofree char *svg = g_build_filename (dir, "a.svg", NULL);
  g_autofree char *root = NULL;
  g_autofree char *text = NULL;
  BpwAssignmentData *data;
  BpwEvaluation eval;
  guint in_stage = 0, merged = 0;
  double busy = 0;

  bpw_evaluation_from_plan (plan, &eval);
  data = bpw_assignment_data_new_from_plan (plan, -1, "A100", &error);
  g_assert_no_error (error);
  g_assert_cmpint (data->stage, ==, eval.slowest_stage);
  g_assert_true (data->slowest);
  g_assert_cmpuint (data->lanes->len, ==, 2 + plan->blueprint->n_tiers);
  for (guint i = 0; i < rows->len; i++)
    {
      const BpwSheetRow *r = &g_array_index (rows, BpwSheetRow, i);

      if (r->stage != data->stage)
        continue;
      in_stage++;
      busy += r->count * r->time_s;
    }
  for (guint i = 0; i < data->items->len; i++)
    {
      const BpwAssignmentItem *it = &g_array_index (data->items, BpwAssignmentItem, i);
      const BpwAssignmentLane *lane = &g_array_index (data->lanes, BpwAssignmentLane, it->lane);

      merged += it->merged;
      /* Transfers on link lanes, tasks on engines; matrix products on the matrix engine. */
      g_assert_cmpint (it->transfer, ==, lane->kind == BPW_LANE_LINK);
      if (strcmp (it->kind, "matmul") == 0)
        g_assert_cmpint (lane->kind, ==, BPW_LANE_MATRIX);
      if (i > 0)
        g_assert_cmpint (it->phase, >=,
                         g_array_index (data->items, BpwAssignmentItem, i - 1).phase);
    }
  g_assert_cmpuint (merged, ==, in_stage);
  g_assert_cmpfloat_with_epsilon (data->total_s, busy, 1e-9 * busy);

  plot = bpw_assignment_plot_new (data);
  g_assert_no_error (error);
  g_assert_true (bpw_plot_export (BPW_PLOT (plot), NULL, BPW_PLOT_FORMAT_SVG, W, H, 1, svg,
                                  &error));
  root = bpw_plot_test_xml_root (svg, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (root, ==, "svg");
  g_assert_true (bpw_plot_export (BPW_PLOT (plot), NULL, BPW_PLOT_FORMAT_PDF, W, H, 1, pdf,
                                  &error));
  g_assert_no_error (error);
  text = bpw_plot_test_pdf_text (pdf);
  if (text != NULL)
    {
      g_assert_nonnull (strstr (text, plan->rates.matrix.engine->name));
      g_assert_nonnull (strstr (text, plan->blueprint->tiers[0].name));
      g_assert_nonnull (strstr (text, "Bottleneck"));
      g_assert_nonnull (strstr (text, "Forward"));
    }
  g_unlink (pdf);
  g_unlink (svg);
  g_rmdir (dir);
}

static void
test_stage_choice (void)
{
  g_autoptr(BpwPlan) plan = bpw_plot_test_default_plan (NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwAssignmentData) first = bpw_assignment_data_new_from_plan (plan, 0, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpint (first->stage, ==, 0);
  g_assert_false (first->slowest);
  g_assert_null (bpw_assignment_data_new_from_plan (plan, plan->dist->n_stages, NULL, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/plot/AssignmentPlot/grouping", test_grouping);
  g_test_add_func ("/bpw/plot/AssignmentPlot/layout", test_layout);
  g_test_add_func ("/bpw/plot/AssignmentPlot/hit-test", test_hit_test);
  g_test_add_func ("/bpw/plot/AssignmentPlot/lod-bounded", test_lod_bounded);
  g_test_add_func ("/bpw/plot/AssignmentPlot/csv", test_csv);
  g_test_add_func ("/bpw/plot/AssignmentPlot/default-study", test_default_study);
  g_test_add_func ("/bpw/plot/AssignmentPlot/stage-choice", test_stage_choice);

  return g_test_run ();
}
