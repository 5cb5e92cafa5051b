/* bpw-mapping-inspector-test.c — the Mapping page tests' window, rows and numbers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "bpw-mapping-inspector-test.h"

static gboolean
bpw_test_edit_pending (gpointer data)
{
  return bpw_window_get_edit_pending (data) || bpw_window_get_busy (data)
         || bpw_sheet_page_get_busy (bpw_window_get_sheet_page (data));
}

void
wait_edit (BpwWindow *window)
{
  bpw_test_wait (bpw_test_edit_pending, window);
}

guint
candidate_of (BpwStudy   *study,
              const char *blueprint)
{
  for (guint i = 0; i < bpw_study_get_n_candidates (study); i++)
    if (strcmp (bpw_study_get_candidate (study, i)->blueprint, blueprint) == 0)
      return i;
  g_assert_not_reached ();
}

guint
scenario_of (BpwStudy   *study,
             const char *name)
{
  guint index = G_MAXUINT;

  g_assert_true (bpw_study_lookup_scenario (study, name, &index));
  return index;
}

/* One window for all the tests: opening the default study is most of their time. Each
 * test undoes what it did, so that the next finds the study as it was. */
static BpwWindow *shared_window;

/* The window on the default study with @blueprint's candidate on @scenario selected and
 * the Mapping page editing the candidate's own mapping. */
BpwWindow *
open_on (const char *blueprint,
         const char *scenario,
         guint      *candidate)
{
  BpwStudy *study;

  if (shared_window == NULL)
    shared_window = g_object_ref_sink (bpw_test_open_default ());
  study = bpw_window_get_study (shared_window);
  g_assert_false (bpw_window_get_can_undo (shared_window));
  *candidate = candidate_of (study, blueprint);
  bpw_window_select (shared_window, *candidate, scenario_of (study, scenario));
  wait_edit (shared_window);
  bpw_inspector_show_page (bpw_window_get_inspector (shared_window), "mapping");
  bpw_inspector_set_mapping_scope (bpw_window_get_inspector (shared_window), FALSE);
  return shared_window;
}

const BpwOverviewEvaluation *
evaluation (BpwWindow  *window,
            guint       candidate,
            const char *scenario)
{
  BpwStudy *study = bpw_window_get_study (window);
  g_autoptr(BpwOverviewItem) item = g_list_model_get_item (
    bpw_window_get_overview_items (window),
    candidate * bpw_study_get_n_scenarios (study) + scenario_of (study, scenario));

  /* The window keeps the item; its evaluation lives as long. */
  return bpw_overview_item_get_evaluation (item);
}

GtkWidget *
row (BpwWindow  *window,
     const char *key)
{
  GtkWidget *widget = bpw_inspector_lookup_row (bpw_window_get_inspector (window), key);

  if (widget == NULL)
    g_error ("no inspector row %s", key);
  return widget;
}

/* The labels a combo row offers, in order (a new strv). */
char **
choices (GtkWidget *combo)
{
  GListModel *model = adw_combo_row_get_model (ADW_COMBO_ROW (combo));
  GStrvBuilder *builder = g_strv_builder_new ();
  char **labels;

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    g_strv_builder_add (builder, gtk_string_list_get_string (GTK_STRING_LIST (model), i));
  labels = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return labels;
}

/* Picks the choice labelled @label, as a user would. */
void
choose (GtkWidget  *combo,
        const char *label)
{
  g_auto(GStrv) labels = choices (combo);

  for (guint i = 0; labels[i] != NULL; i++)
    if (strcmp (labels[i], label) == 0)
      {
        adw_combo_row_set_selected (ADW_COMBO_ROW (combo), i);
        return;
      }
  g_error ("no choice %s", label);
}

const char *
selected_label (GtkWidget *combo)
{
  GListModel *model = adw_combo_row_get_model (ADW_COMBO_ROW (combo));

  return gtk_string_list_get_string (GTK_STRING_LIST (model),
                                     adw_combo_row_get_selected (ADW_COMBO_ROW (combo)));
}

JsonObject *
candidate_mapping (BpwWindow *window,
                   guint      candidate)
{
  return json_node_get_object (bpw_study_get_candidate (bpw_window_get_study (window),
                                                        candidate)->mapping);
}


Numbers
numbers (BpwWindow  *window,
         guint       candidate,
         const char *scenario)
{
  const BpwOverviewEvaluation *e = evaluation (window, candidate, scenario);
  Numbers n;

  g_assert_nonnull (e);
  n.step_s = strcmp (scenario, DECODE) == 0 ? e->tpot_s : e->step_time_s;
  n.sheet_s = bpw_sheet_page_get_step_time (bpw_window_get_sheet_page (window));
  n.legal = e->legal;
  return n;
}

void
assert_same (Numbers a,
             Numbers b)
{
  g_assert_cmpfloat (a.step_s, ==, b.step_s);
  g_assert_cmpfloat (a.sheet_s, ==, b.sheet_s);
  g_assert_cmpint (a.legal, ==, b.legal);
}

void
close_shared_window (void)
{
  if (shared_window == NULL)
    return;
  gtk_window_destroy (GTK_WINDOW (shared_window));
  g_clear_object (&shared_window);
}

const char *
value_of (GtkWidget *value_row)
{
  return bpw_value_row_get_value (BPW_VALUE_ROW (value_row));
}

static gboolean
bpw_test_tick (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
bpw_test_not_yet (gpointer data)
{
  return !*(gboolean *) data;
}

/* Expanders and the inspector slide in; the pictures wait for them. */
void
pause_for_animation (void)
{
  gboolean slept = FALSE;

  g_timeout_add (800, bpw_test_tick, &slept);
  bpw_test_wait (bpw_test_not_yet, &slept);
}

/* The screen as it is, into @name under $BPW_TEST_SHOT_DIR, with ImageMagick's import
 * (the X server's pixels: exactly what a person would see). */
void
save_screen (GtkWidget  *window,
             const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("BPW_TEST_SHOT_DIR"), name, NULL);
  const char *argv[] = { "import", "-window", "root", path, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  pause_for_animation ();
  bpw_test_wait_for_frame (window);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_test_message ("saved %s", path);
}
