/* test-sidebar.c — the sidebar lists the study's sections and items, and drives the Sheet
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-sidebar"

#include "config.h"

#include "bpw-ui-test-util.h"

typedef struct
{
  BpwSidebarItemKind  kind;
  const char         *title;
} Expected;

static void
check_items (GListModel     *items,
             const Expected *expected,
             guint           n)
{
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, n);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(BpwSidebarItem) item = g_list_model_get_item (items, i);

      g_test_message ("%u: %s", i, bpw_sidebar_item_get_title (item));
      g_assert_cmpint (bpw_sidebar_item_get_kind (item), ==, expected[i].kind);
      if (expected[i].title != NULL)
        g_assert_cmpstr (bpw_sidebar_item_get_title (item), ==, expected[i].title);
      g_assert_cmpint (bpw_sidebar_item_is_selectable (item), ==,
                       expected[i].kind != BPW_SIDEBAR_ITEM_HEADING
                       && expected[i].kind != BPW_SIDEBAR_ITEM_EMPTY);
    }
}

static void
test_sidebar_default_study (void)
{
  /* The default study as written in data/studies/default.bpw-study.json. */
  static const Expected expected[] = {
    { BPW_SIDEBAR_ITEM_HEADING, NULL },
    { BPW_SIDEBAR_ITEM_WORKLOAD, "gpt3-175b" },
    { BPW_SIDEBAR_ITEM_WORKLOAD, "llama3-70b" },
    { BPW_SIDEBAR_ITEM_HEADING, NULL },
    { BPW_SIDEBAR_ITEM_SCENARIO, "gpt3-175b-train" },
    { BPW_SIDEBAR_ITEM_SCENARIO, "llama3-70b-prefill" },
    { BPW_SIDEBAR_ITEM_SCENARIO, "llama3-70b-decode" },
    { BPW_SIDEBAR_ITEM_SUITE, "representative" },
    { BPW_SIDEBAR_ITEM_HEADING, NULL },
    { BPW_SIDEBAR_ITEM_BLUEPRINT, "a100-sxm-80gb" },
    { BPW_SIDEBAR_ITEM_BLUEPRINT, "h100-sxm-80gb" },
    { BPW_SIDEBAR_ITEM_BLUEPRINT, "h200-sxm-141gb" },
    { BPW_SIDEBAR_ITEM_BLUEPRINT, "mi300x" },
    { BPW_SIDEBAR_ITEM_HEADING, NULL },
    { BPW_SIDEBAR_ITEM_CANDIDATE, "A100 SXM 80 GB" },
    { BPW_SIDEBAR_ITEM_CANDIDATE, "H100 SXM 80 GB" },
    { BPW_SIDEBAR_ITEM_CANDIDATE, "H200 SXM 141 GB" },
    { BPW_SIDEBAR_ITEM_CANDIDATE, "MI300X" },
  };
  BpwWindow *window = bpw_test_open_default ();
  BpwSidebar *sidebar = bpw_window_get_sidebar (window);
  GListModel *items = bpw_sidebar_get_items (sidebar);
  g_autoptr(BpwSidebarItem) workload = NULL;
  g_autoptr(BpwSidebarItem) train = NULL;

  check_items (items, expected, G_N_ELEMENTS (expected));

  /* Subtitles carry what tells the items apart: size, phase and devices. */
  workload = g_list_model_get_item (items, 1);
  g_assert_cmpstr (bpw_sidebar_item_get_subtitle (workload), ==, "175 B parameters");
  train = g_list_model_get_item (items, 4);
  g_assert_cmpstr (bpw_sidebar_item_get_subtitle (train), ==, "Training · 1024 devices");

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_sidebar_selection (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwSidebar *sidebar = bpw_window_get_sidebar (window);
  BpwSheetPage *sheet = bpw_window_get_sheet_page (window);
  BpwSidebarItem *selected;

  g_assert_null (bpw_sidebar_get_selected_item (sidebar));
  g_assert_false (bpw_sidebar_select (sidebar, BPW_SIDEBAR_ITEM_HEADING, 0));
  g_assert_false (bpw_sidebar_select (sidebar, BPW_SIDEBAR_ITEM_SCENARIO, 3));
  g_assert_cmpuint (bpw_sheet_page_get_scenario (sheet), ==, 0);

  /* Picking a scenario in the sidebar makes the Sheet list its operations. */
  g_assert_true (bpw_sidebar_select (sidebar, BPW_SIDEBAR_ITEM_SCENARIO, 2));
  selected = bpw_sidebar_get_selected_item (sidebar);
  g_assert_nonnull (selected);
  g_assert_cmpstr (bpw_sidebar_item_get_title (selected), ==, "llama3-70b-decode");
  g_assert_cmpuint (bpw_sheet_page_get_scenario (sheet), ==, 2);

  /* Candidates do not move the Sheet. */
  g_assert_true (bpw_sidebar_select (sidebar, BPW_SIDEBAR_ITEM_CANDIDATE, 1));
  g_assert_cmpuint (bpw_sheet_page_get_scenario (sheet), ==, 2);

  /* The selection survives a rebuild of the same study. */
  bpw_sidebar_set_study (sidebar, bpw_window_get_study (window));
  selected = bpw_sidebar_get_selected_item (sidebar);
  g_assert_nonnull (selected);
  g_assert_cmpint (bpw_sidebar_item_get_kind (selected), ==, BPW_SIDEBAR_ITEM_CANDIDATE);
  g_assert_cmpuint (bpw_sidebar_item_get_index (selected), ==, 1);

  bpw_test_wait_sheet (sheet);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_sidebar_empty_study (void)
{
  static const Expected expected[] = {
    { BPW_SIDEBAR_ITEM_HEADING, NULL },
    { BPW_SIDEBAR_ITEM_EMPTY, NULL },
    { BPW_SIDEBAR_ITEM_HEADING, NULL },
    { BPW_SIDEBAR_ITEM_EMPTY, NULL },
    { BPW_SIDEBAR_ITEM_HEADING, NULL },
    { BPW_SIDEBAR_ITEM_EMPTY, NULL },
    { BPW_SIDEBAR_ITEM_HEADING, NULL },
    { BPW_SIDEBAR_ITEM_EMPTY, NULL },
  };
  g_autoptr(BpwStudy) study = bpw_study_new ();
  g_autoptr(GListStore) items = bpw_sidebar_item_list_new_for_study (study);

  check_items (G_LIST_MODEL (items), expected, G_N_ELEMENTS (expected));
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

  g_test_add_func ("/bpw/ui/Sidebar/default-study", test_sidebar_default_study);
  g_test_add_func ("/bpw/ui/Sidebar/selection", test_sidebar_selection);
  g_test_add_func ("/bpw/ui/Sidebar/empty-study", test_sidebar_empty_study);

  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
