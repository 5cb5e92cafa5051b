/* bpw-search-test-util.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-search-test-util"

#include "config.h"

#include "bpw-search-test-util.h"

#include "bpw-compare-page.h"

BpwSearchDialog *
bpw_search_test_open (BpwWindow *window,
                      guint      candidate,
                      guint      scenario)
{
  BpwSearchDialog *dialog;

  bpw_window_select (window, candidate, scenario);
  dialog = bpw_search_dialog_new (GTK_WINDOW (window), bpw_window_get_study (window),
                                  bpw_window_get_selected_candidate (window),
                                  bpw_window_get_selected_scenario (window));
  gtk_window_present (GTK_WINDOW (dialog));
  g_assert_cmpuint (bpw_search_dialog_get_candidate (dialog), ==, candidate);
  g_assert_cmpuint (bpw_search_dialog_get_scenario (dialog), ==, scenario);
  return dialog;
}

void
bpw_search_test_small_limits (BpwSearchLimits *limits)
{
  bpw_search_limits_init (limits);
  limits->pp = 1;
  limits->fusion_sets = (1u << BPW_SEARCH_FUSION_DEFAULT) | (1u << BPW_SEARCH_FUSION_ATTENTION);
  limits->algorithms = FALSE;
}

void
bpw_search_test_assert_same_plan (const BpwMapping *a,
                                  const BpwMapping *b)
{
  BpwMapping x, y;

  bpw_mapping_init_defaults (&x);
  bpw_mapping_init_defaults (&y);
  bpw_mapping_clear (&x);
  bpw_mapping_clear (&y);
  bpw_mapping_copy (&x, a);
  bpw_mapping_copy (&y, b);
  g_clear_pointer (&x.name, g_free);
  g_clear_pointer (&y.name, g_free);
  g_assert_true (bpw_mapping_equal (&x, &y));
  bpw_mapping_clear (&x);
  bpw_mapping_clear (&y);
}

gboolean
bpw_search_test_running (gpointer dialog)
{
  return bpw_search_dialog_get_running (dialog);
}

gboolean
bpw_search_test_compare_busy (gpointer page)
{
  return bpw_compare_page_get_busy (page) || bpw_compare_page_get_data (page) == NULL;
}

static void
bpw_search_test_finalized_cb (gpointer  data,
                              GObject  *where_the_object_was)
{
  *(gboolean *) data = TRUE;
}

void
bpw_search_test_watch_finalize (gpointer  object,
                                gboolean *finalized)
{
  *finalized = FALSE;
  g_object_weak_ref (G_OBJECT (object), bpw_search_test_finalized_cb, finalized);
}

gboolean
bpw_search_test_alive (gpointer finalized)
{
  return !*(gboolean *) finalized;
}
