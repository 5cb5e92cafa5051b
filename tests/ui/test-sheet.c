/* test-sheet.c — the Sheet lists a candidate's bound plan, exactly, sorted and filtered
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-sheet"

#include "config.h"

#include <string.h>

#include "bpw-tooltip.h"
#include "bpw-ui-test-util.h"

static BpwSheetItem *
find_row (GListModel *rows,
          const char *operation,
          BpwPhase    phase,
          gint64      stage)
{
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(BpwSheetItem) row = g_list_model_get_item (rows, i);

      if (strcmp (bpw_sheet_item_get_operation (row), operation) == 0
          && bpw_sheet_item_get_phase (row) == phase && bpw_sheet_item_get_stage (row) == stage
          && !bpw_sheet_item_is_transfer (row))
        return row;
    }
  return NULL;
}

/* The plan's evaluation of @candidate on @scenario, as the page binds it. */
static BpwEvaluation
bp_plan_evaluation (BpwStudy *study, guint candidate, guint scenario)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwPlan) plan = NULL;
  BpwCandidateRun run;
  BpwEvaluation e;

  g_assert_true (bpw_candidate_run_init (&run, study, candidate, scenario, &error));
  g_assert_no_error (error);
  plan = bpw_candidate_run_bind (&run, &error);
  g_assert_no_error (error);
  bpw_evaluation_from_plan (plan, &e);
  bpw_candidate_run_clear (&run);
  return e;
}

/* The summary by layer type shows a row per layer type that takes time, with the plan's
 * numbers: its share of the step, MFU, stall and dominant class. */
static void
check_layer_summary (BpwSheetPage *sheet, BpwEvaluation e)
{
  BpwLayerSummary *summary = bpw_sheet_page_get_layer_summary (sheet);
  guint row = 0;

  g_assert_true (gtk_widget_get_visible (gtk_widget_get_parent (GTK_WIDGET (summary))));
  for (guint b = 0; b < BPW_N_LAYER_BUCKETS; b++)
    {
      double time = bpw_evaluation_layer_time (&e, b);
      g_autofree char *share = NULL, *mfu = NULL;

      if (time <= 0)
        continue;
      share = g_strdup_printf ("%.1f %%", 100.0 * time / e.step_time_s);
      mfu = g_strdup_printf ("%.1f %%", 100.0 * e.layer_mfu[b]);
      g_assert_cmpstr (bpw_layer_summary_get_cell (summary, row, BPW_LAYER_SUMMARY_TYPE), ==,
                       bpw_layer_bucket_display_name (b));
      g_assert_cmpstr (bpw_layer_summary_get_cell (summary, row, BPW_LAYER_SUMMARY_SHARE), ==,
                       share);
      g_assert_cmpstr (bpw_layer_summary_get_cell (summary, row, BPW_LAYER_SUMMARY_MFU), ==,
                       mfu);
      g_assert_cmpstr (bpw_layer_summary_get_cell (summary, row, BPW_LAYER_SUMMARY_BOTTLENECK),
                       ==, bpw_bottleneck_display_name (bpw_evaluation_layer_bottleneck (&e, b)));
      g_assert_nonnull (strstr (bpw_layer_summary_get_cell (summary, row,
                                                            BPW_LAYER_SUMMARY_CLASSES), "%"));
      if (b < BPW_N_LAYER_TYPES)
        {
          g_autofree char *stall = g_strdup_printf ("%.1f %%", 100.0 * e.stall_fraction[b]);

          g_assert_cmpstr (bpw_layer_summary_get_cell (summary, row, BPW_LAYER_SUMMARY_STALL),
                           ==, stall);
        }
      row++;
    }
  /* Training: embedding, attention, MLP, norms, head, loss, optimizer and the rest. */
  g_assert_cmpuint (row, >=, 6);
  g_assert_cmpuint (bpw_layer_summary_get_n_rows (summary), ==, row);
  g_assert_cmpstr (bpw_layer_summary_get_cell (summary, row - 1, BPW_LAYER_SUMMARY_TYPE), ==,
                   bpw_layer_bucket_display_name (BPW_LAYER_OTHER));
}

/* GPT-3 175B training on the A100 candidate (TP 8, PP 8, DP 16, SP): the mapping sheet of
 * the bound plan, checked against closed forms. */
static void
test_sheet_training (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwSheetPage *sheet = bpw_window_get_sheet_page (window);
  const BpwStudyScenario *s = bpw_study_get_scenario (study, 0);
  const BpwModelSpec *spec = &bpw_study_get_workload (study, s->workload)->spec;
  const BpwParallel *p = &s->parallel;
  g_autoptr(BpwBlueprint) a100 = bpw_study_load_blueprint (
    study, bpw_study_get_candidate (study, 0)->blueprint, NULL);
  g_autoptr(BpwWorkGraph) graph = NULL;
  g_autoptr(GError) error = NULL;
  GListModel *rows;
  BpwSheetItem *qkv;
  double tokens, width, micro_batches;
  gboolean stages[8] = { FALSE };

  bpw_test_wait_sheet (sheet);
  g_assert_cmpuint (bpw_sheet_page_get_candidate (sheet), ==, 0);
  g_assert_cmpuint (bpw_sheet_page_get_scenario (sheet), ==, 0);
  g_assert_cmpint (p->pp, ==, 8);
  rows = bpw_sheet_page_get_rows (sheet);
  g_assert_cmpuint (g_list_model_get_n_items (rows), >, 20);

  /* Every stage is there, one rank of each. */
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(BpwSheetItem) row = g_list_model_get_item (rows, i);

      g_assert_cmpint (bpw_sheet_item_get_stage (row), >=, 0);
      g_assert_cmpint (bpw_sheet_item_get_stage (row), <, 8);
      stages[bpw_sheet_item_get_stage (row)] = TRUE;
      /* A task's step time is its executions times its time; transfers count what is
       * exposed, never more than they take. */
      if (!bpw_sheet_item_is_transfer (row))
        g_assert_cmpfloat_with_epsilon (bpw_sheet_item_get_per_step (row),
                                        bpw_sheet_item_get_count (row)
                                        * bpw_sheet_item_get_time (row),
                                        1e-9 * bpw_sheet_item_get_per_step (row) + 1e-15);
      else
        g_assert_cmpfloat (bpw_sheet_item_get_per_step (row), <=,
                           bpw_sheet_item_get_count (row) * bpw_sheet_item_get_time (row)
                           * (1 + 1e-12));
    }
  for (guint i = 0; i < 8; i++)
    g_assert_true (stages[i]);

  /* The QKV projection of stage 0's first block: with sequence parallelism its input is
   * gathered, so one TP rank multiplies all micro_batch × seq tokens by its 1/TP share of
   * the (heads + 2 kv_heads) × head_dim columns; once per micro-batch of the pipeline. */
  tokens = (double) s->scenario.micro_batch * s->scenario.seq;
  width = (double) (spec->heads + 2 * spec->kv_heads) * spec->head_dim / p->tp;
  micro_batches = (double) s->scenario.global_batch / (p->dp * s->scenario.micro_batch);
  qkv = find_row (rows, "attn.qkv", BPW_PHASE_FORWARD, 0);
  g_assert_nonnull (qkv);
  g_assert_cmpint (bpw_sheet_item_get_layer_type (qkv), ==, BPW_LAYER_ATTENTION);
  g_assert_cmpint (bpw_sheet_item_get_layer (qkv), ==, 0);
  g_assert_cmpfloat (bpw_sheet_item_get_flops (qkv), ==, 2.0 * tokens * spec->hidden * width);
  g_assert_cmpfloat (bpw_sheet_item_get_count (qkv), ==, micro_batches);
  g_assert_cmpstr (bpw_sheet_item_get_engine (qkv), ==,
                   a100->engines[bpw_blueprint_first_engine (a100, BPW_ENGINE_MATRIX)].name);
  g_assert_cmpfloat (bpw_sheet_item_get_time (qkv), >, 0.0);

  /* Lineage: the row names the operation of the scenario's work graph it implements. */
  graph = bpw_work_graph_new (spec, &s->scenario, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_sheet_item_get_lineage (qkv), <, graph->ops->len);
  g_assert_cmpstr (bpw_work_graph_name (graph, bpw_work_graph_op (graph,
                                        bpw_sheet_item_get_lineage (qkv))->name), ==,
                   "attn.qkv");
  g_assert_true (find_row (rows, "attn.qkv.wgrad", BPW_PHASE_BACKWARD_WEIGHT, 0) != NULL);
  g_assert_cmpfloat (bpw_sheet_page_get_step_time (sheet), >, 0.0);
  check_layer_summary (sheet, bp_plan_evaluation (study, 0, 0));

  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
row_mentions_mlp (BpwSheetItem *row)
{
  return strstr (bpw_sheet_item_get_operation (row), "mlp") != NULL
         || bpw_sheet_item_get_layer_type (row) == BPW_LAYER_MLP;
}

static void
test_sheet_filter_and_sort (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwSheetPage *sheet = bpw_window_get_sheet_page (window);
  GListModel *rows, *visible;
  GtkColumnView *column_view;
  GListModel *columns;
  guint total, expected = 0;

  bpw_test_wait_sheet (sheet);
  rows = bpw_sheet_page_get_rows (sheet);
  visible = bpw_sheet_page_get_visible_rows (sheet);
  total = g_list_model_get_n_items (rows);
  g_assert_cmpuint (g_list_model_get_n_items (visible), ==, total);

  for (guint i = 0; i < total; i++)
    {
      g_autoptr(BpwSheetItem) row = g_list_model_get_item (rows, i);

      expected += row_mentions_mlp (row);
    }
  g_assert_cmpuint (expected, >, 0);
  g_assert_cmpuint (expected, <, total);

  /* Case does not matter; the filter reduces the rows to those that match. */
  bpw_sheet_page_set_filter_text (sheet, "MLP");
  g_assert_cmpuint (g_list_model_get_n_items (visible), ==, expected);
  for (guint i = 0; i < g_list_model_get_n_items (visible); i++)
    {
      g_autoptr(BpwSheetItem) row = g_list_model_get_item (visible, i);

      g_assert_true (row_mentions_mlp (row));
    }

  bpw_sheet_page_set_filter_text (sheet, "no such operation");
  g_assert_cmpuint (g_list_model_get_n_items (visible), ==, 0);
  bpw_sheet_page_set_filter_text (sheet, "");
  g_assert_cmpuint (g_list_model_get_n_items (visible), ==, total);

  /* Sorting by a column header: FLOPs, largest first. */
  column_view = GTK_COLUMN_VIEW (bpw_test_find_widget (GTK_WIDGET (sheet),
                                                       GTK_TYPE_COLUMN_VIEW));
  columns = gtk_column_view_get_columns (column_view);
  {
    g_autoptr(GtkColumnViewColumn) flops = g_list_model_get_item (columns,
                                                                  BPW_SHEET_COLUMN_FLOPS);

    gtk_column_view_sort_by_column (column_view, flops, GTK_SORT_DESCENDING);
  }
  for (guint i = 1; i < total; i++)
    {
      g_autoptr(BpwSheetItem) a = g_list_model_get_item (visible, i - 1);
      g_autoptr(BpwSheetItem) b = g_list_model_get_item (visible, i);

      g_assert_true (bpw_sheet_item_get_flops (a) >= bpw_sheet_item_get_flops (b));
    }

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Decode is inference: forward work only, one new token per sequence. */
static void
test_sheet_decode (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwSheetPage *sheet = bpw_window_get_sheet_page (window);
  GListModel *rows;

  bpw_test_wait_sheet (sheet);
  bpw_sheet_page_select_scenario (sheet, 2);
  g_assert_true (bpw_sheet_page_get_busy (sheet));
  bpw_test_wait_sheet (sheet);
  g_assert_cmpuint (bpw_sheet_page_get_scenario (sheet), ==, 2);

  rows = bpw_sheet_page_get_rows (sheet);
  g_assert_cmpuint (g_list_model_get_n_items (rows), >, 0);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(BpwSheetItem) row = g_list_model_get_item (rows, i);

      g_assert_cmpint (bpw_sheet_item_get_phase (row), ==, BPW_PHASE_FORWARD);
    }

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The Sheet shows the time the blueprint's software stack adds to each operation (the
 * implementation transformations), row for row the core's, and names them on hover. */
static void
test_sheet_stack_time (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwSheetPage *sheet = bpw_window_get_sheet_page (window);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(GArray) expected = NULL;
  BpwCandidateRun run;
  GListModel *rows;
  guint with_stack = 0;

  bpw_test_wait_sheet (sheet);
  g_assert_true (bpw_candidate_run_init (&run, study, bpw_sheet_page_get_candidate (sheet),
                                         bpw_sheet_page_get_scenario (sheet), &error));
  g_assert_no_error (error);
  plan = bpw_candidate_run_bind (&run, &error);
  g_assert_no_error (error);
  bpw_candidate_run_clear (&run);
  expected = bpw_mapping_sheet_new (plan, TRUE);

  /* A narrow header; its tooltip and the Columns menu give the name in full. */
  g_assert_cmpstr (bpw_sheet_column_get_title (BPW_SHEET_COLUMN_STACK), ==, "Stack");
  g_assert_cmpstr (bpw_sheet_column_get_name (BPW_SHEET_COLUMN_STACK), ==, "Stack Time");
  g_assert_true (g_str_has_prefix (bpw_sheet_column_get_description (BPW_SHEET_COLUMN_STACK),
                                   "Stack time"));
  g_assert_nonnull (bpw_test_find_column (GTK_WIDGET (sheet), "Stack"));
  rows = bpw_sheet_page_get_rows (sheet);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, expected->len);
  for (guint i = 0; i < expected->len; i++)
    {
      const BpwSheetRow *r = &g_array_index (expected, BpwSheetRow, i);
      g_autoptr(BpwSheetItem) row = g_list_model_get_item (rows, i);
      g_autofree char *tip = bpw_sheet_item_dup_tooltip (row, BPW_SHEET_COLUMN_STACK);
      g_autofree char *text = bpw_sheet_item_format (row, BPW_SHEET_COLUMN_STACK,
                                                     BPW_BYTE_UNITS_BINARY);

      g_assert_cmpstr (bpw_sheet_item_get_operation (row), ==, r->name);
      g_assert_cmpfloat (bpw_sheet_item_get_stack_time (row), ==, r->stack_s);
      if (r->stack_s == 0.0)
        continue;
      with_stack++;
      g_assert_cmpstr (text, !=, "");
      /* The tooltip names each transformation the core charged to the row. */
      g_assert_nonnull (tip);
      for (guint k = 0; bpw_plan_implementation_name (k) != NULL; k++)
        g_assert_true ((strstr (tip, bpw_plan_implementation_name (k)) != NULL)
                       == ((r->stack_kinds & (1u << k)) != 0));
    }
  /* The default study's blueprints state their software stack: it costs something. */
  g_assert_cmpuint (with_stack, >, 0);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The window width a design review uses: the Sheet must show every column there. */
#define REVIEW_WIDTH 1590

/* The title button of @column in @view's header row, or NULL. GTK 4.8 has no API for it:
 * the header is the view's child that is not its list, one title per column, in order. */
static GtkWidget *
find_header_title (GtkColumnView       *view,
                   GtkColumnViewColumn *column)
{
  GListModel *columns = gtk_column_view_get_columns (view);

  for (GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (view)); header != NULL;
       header = gtk_widget_get_next_sibling (header))
    {
      guint c = 0;

      if (GTK_IS_LIST_VIEW (header))
        continue;
      for (GtkWidget *title = gtk_widget_get_first_child (header); title != NULL;
           title = gtk_widget_get_next_sibling (title), c++)
        {
          g_autoptr(GtkColumnViewColumn) at = g_list_model_get_item (columns, c);

          if (at == column)
            return title;
        }
    }
  return NULL;
}

/* A presented window of @width on the default study, showing the Sheet. */
static BpwWindow *
open_sheet_window (int width)
{
  BpwWindow *window = bpw_window_new (NULL, NULL);
  g_autoptr(GError) error = NULL;

  gtk_window_set_default_size (GTK_WINDOW (window), width, 1000);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (bpw_window_open_bundled (window, "default", &error));
  g_assert_no_error (error);
  bpw_test_wait_window (window);
  adw_view_stack_set_visible_child_name (bpw_window_get_view_stack (window), "sheet");
  bpw_test_wait_sheet (bpw_window_get_sheet_page (window));
  return window;
}

/* The label under @root that shows @text, or NULL. */
static GtkLabel *
find_label (GtkWidget  *root,
            const char *text)
{
  if (GTK_IS_LABEL (root) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (root)), text) == 0)
    return GTK_LABEL (root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found = find_label (child, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static int
natural_width (GtkWidget *widget)
{
  int natural = 0;

  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
  return natural;
}

/* The widest the column view asks to be, over every row of the plan: a column view
 * measures only the cells it has made, so the list is scrolled through a page at a time,
 * one painted frame each. */
static int
sheet_widest_natural (GtkColumnView *view)
{
  GtkAdjustment *vadj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view));
  int widest = 0;
  double value = 0;

  bpw_test_wait_for_frame (GTK_WIDGET (view));
  g_assert_cmpfloat (gtk_adjustment_get_page_size (vadj), >, 0);
  for (;;)
    {
      gtk_adjustment_set_value (vadj, value);
      bpw_test_wait_for_frame (GTK_WIDGET (view));
      widest = MAX (widest, natural_width (GTK_WIDGET (view)));
      if (value + gtk_adjustment_get_page_size (vadj) >= gtk_adjustment_get_upper (vadj))
        break;
      value += gtk_adjustment_get_page_size (vadj);
    }
  gtk_adjustment_set_value (vadj, 0);
  return widest;
}

/* In a 1590-px window every shown column of the Sheet fits at once, whatever the row: the
 * column view's natural width, over all rows of each candidate's training plan (training
 * has every phase; the candidates differ in engine and link names), fits the page, so
 * nothing scrolls sideways. */
static void
test_sheet_fits_review_width (void)
{
  BpwWindow *window = open_sheet_window (REVIEW_WIDTH);
  BpwSheetPage *sheet = bpw_window_get_sheet_page (window);
  GtkColumnView *view = GTK_COLUMN_VIEW (bpw_test_find_widget (GTK_WIDGET (sheet),
                                                               GTK_TYPE_COLUMN_VIEW));
  GtkWidget *scrolled = gtk_widget_get_ancestor (GTK_WIDGET (view), GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *hadj = gtk_scrollable_get_hadjustment (GTK_SCROLLABLE (view));

  bpw_test_wait_for_frame (GTK_WIDGET (view));
  g_assert_cmpint (gdk_surface_get_width (gtk_native_get_surface (GTK_NATIVE (window))), ==,
                   REVIEW_WIDTH);
  for (guint c = 0; c < bpw_study_get_n_candidates (bpw_window_get_study (window)); c++)
    {
      int widest;

      bpw_sheet_page_select (sheet, c, 0);
      bpw_test_wait_sheet (sheet);
      widest = sheet_widest_natural (view);
      g_test_message ("candidate %u: widest natural width %d, page %d", c, widest,
                      gtk_widget_get_width (scrolled));
      g_assert_cmpint (widest, <=, gtk_widget_get_width (scrolled));
      g_assert_cmpfloat (gtk_adjustment_get_upper (hadj), <=,
                         gtk_adjustment_get_page_size (hadj));
    }

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Every column but the operation's can be hidden and shown again, from the Columns button
 * or a header's context menu; the lineage starts hidden, its id in the name's tooltip. Each
 * header explains its column on hover; the operation's name is ellipsized in a narrow
 * window, its tooltip giving it whole. */
static void
test_sheet_columns (void)
{
  BpwWindow *window = open_sheet_window (REVIEW_WIDTH);
  BpwSheetPage *sheet = bpw_window_get_sheet_page (window);
  GtkColumnView *view = GTK_COLUMN_VIEW (bpw_test_find_widget (GTK_WIDGET (sheet),
                                                               GTK_TYPE_COLUMN_VIEW));
  GtkMenuButton *button = GTK_MENU_BUTTON (bpw_test_find_widget (GTK_WIDGET (sheet),
                                                                 GTK_TYPE_MENU_BUTTON));
  GListModel *columns = gtk_column_view_get_columns (view);
  GMenuModel *menu = gtk_menu_button_get_menu_model (button);
  g_autoptr(GtkColumnViewColumn) lineage = g_list_model_get_item (columns,
                                                                  BPW_SHEET_COLUMN_LINEAGE);
  g_autoptr(BpwSheetItem) first = g_list_model_get_item (bpw_sheet_page_get_rows (sheet), 0);
  g_autofree char *tip = bpw_sheet_item_dup_tooltip (first, BPW_SHEET_COLUMN_OPERATION);
  g_autofree char *lineage_id = g_strdup_printf ("lineage %u",
                                                 bpw_sheet_item_get_lineage (first));
  GtkLabel *name;
  int narrow;

  bpw_test_wait_for_frame (GTK_WIDGET (view));
  g_assert_cmpuint (g_list_model_get_n_items (columns), ==, BPW_N_SHEET_COLUMNS);
  g_assert_nonnull (menu);
  g_assert_cmpint (g_menu_model_get_n_items (menu), ==, BPW_N_SHEET_COLUMNS - 1);
  for (guint c = 0; c < BPW_N_SHEET_COLUMNS; c++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, c);
      GtkWidget *title = find_header_title (view, column);

      g_assert_true (gtk_column_view_column_get_header_menu (column) == menu);
      g_assert_nonnull (title);
      g_assert_cmpstr (gtk_widget_get_tooltip_text (title), ==,
                       bpw_sheet_column_get_description (c));
      g_assert_true (gtk_column_view_column_get_visible (column)
                     == (c != BPW_SHEET_COLUMN_LINEAGE));
    }
  /* The name's cell gives way when the window is narrow, and says it whole on hover. */
  name = find_label (GTK_WIDGET (view), bpw_sheet_item_get_operation (first));
  g_assert_nonnull (name);
  g_assert_cmpint (gtk_label_get_ellipsize (name), ==, PANGO_ELLIPSIZE_END);
  g_assert_cmpstr (bpw_tooltip_get (GTK_WIDGET (name)), ==, tip);
  g_assert_true (g_str_has_prefix (tip, bpw_sheet_item_get_operation (first)));
  g_assert_nonnull (strstr (tip, lineage_id));

  /* The menu's last entry shows the lineage; again hides it. */
  {
    g_autofree char *action = NULL;

    g_assert_true (g_menu_model_get_item_attribute (menu, BPW_N_SHEET_COLUMNS - 2,
                                                    G_MENU_ATTRIBUTE_ACTION, "s", &action));
    narrow = natural_width (GTK_WIDGET (view));
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (button), action, NULL));
    g_assert_true (gtk_column_view_column_get_visible (lineage));
    bpw_test_wait_for_frame (GTK_WIDGET (view));
    g_assert_cmpint (natural_width (GTK_WIDGET (view)), >, narrow);
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (button), action, NULL));
    g_assert_false (gtk_column_view_column_get_visible (lineage));
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A decode plan with weight-only INT4 (groups of 128) on the attention projections and
 * the MLP: their rows' Precision says so, with the compute precision; the LM head, which
 * keeps its weights, says bf16. */
static void
test_sheet_weight_only_precision (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("h100-sxm-80gb", NULL, &error);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autoptr(GPtrArray) items = NULL;
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwMapping mapping;
  BpwWorkGraph *graph;
  BpwDistWork *dist;
  guint int4 = 0, bf16 = 0;

  g_assert_no_error (error);
  bpw_model_spec_init_defaults (&spec);
  g_assert_true (bpw_workload_load ("llama3-8b", &spec, &error));
  bpw_scenario_init_defaults (&scenario);
  scenario.phase = BPW_WORKLOAD_DECODE;
  scenario.global_batch = scenario.micro_batch = 1;
  scenario.context = 64;
  bpw_mapping_init_defaults (&mapping);
  mapping.micro_batch = 1;
  bpw_precision_policy_set_weights (&mapping.precision, BPW_WEIGHT_FORMAT_INT4, 128);
  graph = bpw_work_graph_new (&spec, &scenario, &error);
  g_assert_no_error (error);
  dist = bpw_dist_work_new (graph, &mapping.parallel, &error);
  g_assert_no_error (error);
  plan = bpw_plan_new (dist, bp, &mapping, &error);
  g_assert_no_error (error);

  g_assert_cmpstr (bpw_sheet_column_get_title (BPW_SHEET_COLUMN_PRECISION), ==, "Precision");
  rows = bpw_mapping_sheet_new (plan, TRUE);
  items = bpw_sheet_item_list_from_sheet (rows);
  for (guint i = 0; i < items->len; i++)
    {
      g_autofree char *text = bpw_sheet_item_format (items->pdata[i], BPW_SHEET_COLUMN_PRECISION,
                                                     BPW_BYTE_UNITS_BINARY);
      g_autofree char *tip = bpw_sheet_item_dup_tooltip (items->pdata[i],
                                                         BPW_SHEET_COLUMN_PRECISION);

      int4 += strcmp (text, "int4 w/ g128 (bf16 compute)") == 0;
      bf16 += strcmp (text, "bf16") == 0 && bpw_sheet_item_get_flops (items->pdata[i]) > 0;
      if (tip != NULL)
        g_assert_nonnull (strstr (tip, "dequantised"));
    }
  g_assert_cmpuint (int4, >=, 3);
  g_assert_cmpuint (bf16, >, 0);
  bpw_mapping_clear (&mapping);
  bpw_scenario_clear (&scenario);
  bpw_model_spec_clear (&spec);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *scratch = NULL;
  int exit_code = 0;
  int result;

  if (!bpw_test_init_gui (&argc, &argv, &scratch, &exit_code))
    return exit_code;

  g_test_add_func ("/bpw/ui/Sheet/training", test_sheet_training);
  g_test_add_func ("/bpw/ui/Sheet/filter-and-sort", test_sheet_filter_and_sort);
  g_test_add_func ("/bpw/ui/Sheet/decode", test_sheet_decode);
  g_test_add_func ("/bpw/ui/Sheet/stack-time", test_sheet_stack_time);
  g_test_add_func ("/bpw/ui/Sheet/weight-only-precision", test_sheet_weight_only_precision);
  g_test_add_func ("/bpw/ui/Sheet/fits-review-width", test_sheet_fits_review_width);
  g_test_add_func ("/bpw/ui/Sheet/columns", test_sheet_columns);

  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
