/* test-review-prices.c — prices set in the Review Data window, one undoable edit each, and
 * the Trade-offs page's per-dollar view following them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-review-prices"

#include "config.h"

#include <string.h>

#include "bpw-review-dialog.h"
#include "bpw-tradeoffs-page.h"
#include "bpw-ui-test-util.h"

#define QUOTE "cloud price page, 2026-12"

static gboolean
tradeoffs_busy (gpointer data)
{
  return bpw_tradeoffs_page_get_busy (data);
}

/* The page's stack: chart, error, computing or empty. */
static const char *
visible_child (BpwTradeoffsPage *page)
{
  GtkWidget *status = bpw_test_find_widget (GTK_WIDGET (page), ADW_TYPE_STATUS_PAGE);
  GtkWidget *stack = gtk_widget_get_ancestor (status, GTK_TYPE_STACK);

  return gtk_stack_get_visible_child_name (GTK_STACK (stack));
}

/* The page shown, its curves swept again after the study changed, per dollar. */
static BpwTradeoffsPage *
tradeoffs_settled (BpwWindow *window)
{
  BpwTradeoffsPage *page = BPW_TRADEOFFS_PAGE (bpw_test_find_widget (GTK_WIDGET (window),
                                                                     BPW_TYPE_TRADEOFFS_PAGE));

  adw_view_stack_set_visible_child_name (bpw_window_get_view_stack (window), "tradeoffs");
  bpw_test_wait_for_frame (GTK_WIDGET (page));
  g_assert_true (bpw_tradeoffs_page_get_busy (page));
  bpw_test_wait (tradeoffs_busy, page);
  bpw_tradeoffs_page_set_measure (page, BPW_TRADE_Y_PER_DOLLAR);
  return page;
}

/* Per dollar is drawn: every series priced, all per device-hour. */
static void
assert_per_dollar_drawn (BpwTradeoffsPage *page)
{
  BpwTradePlot *plot = bpw_tradeoffs_page_get_plot (page);
  g_autoptr(GError) error = NULL;
  BpwPriceUnit unit = BPW_PRICE_PER_DEVICE;

  g_assert_cmpstr (visible_child (page), ==, "chart");
  g_assert_true (bpw_trade_data_cost_unit (bpw_trade_plot_get_data (plot), &unit, &error));
  g_assert_no_error (error);
  g_assert_cmpint (unit, ==, BPW_PRICE_PER_DEVICE_HOUR);
}

/* Per dollar is refused, naming the candidate without a price. */
static void
assert_per_dollar_unpriced (BpwTradeoffsPage *page,
                            const char       *candidate)
{
  GtkWidget *status = bpw_test_find_widget (GTK_WIDGET (page), ADW_TYPE_STATUS_PAGE);
  GtkStack *stack = GTK_STACK (gtk_widget_get_ancestor (status, GTK_TYPE_STACK));
  g_autofree char *expected = g_strdup_printf ("No price given for candidate “%s”", candidate);
  const char *said;

  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "error");
  status = bpw_test_find_widget (gtk_stack_get_visible_child (stack), ADW_TYPE_STATUS_PAGE);
  said = adw_status_page_get_description (ADW_STATUS_PAGE (status));
  g_assert_nonnull (strstr (said, expected));
}

static GtkWindow *
review_window (BpwWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);

      if (BPW_IS_REVIEW_DIALOG (w) && gtk_window_get_transient_for (w) == GTK_WINDOW (window))
        return w;
    }
  return NULL;
}

/* The first descendant of @root of @type whose title (a preferences row's) or label (a
 * button's) is @text. */
static GtkWidget *
find_titled (GtkWidget  *root,
             GType       type,
             const char *text)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (G_TYPE_CHECK_INSTANCE_TYPE (child, type)
          && ((ADW_IS_PREFERENCES_ROW (child)
               && g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (child)),
                             text) == 0)
              || (GTK_IS_BUTTON (child)
                  && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (child)), text) == 0)))
        return child;
      found = find_titled (child, type, text);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* As a user would: open the candidate's form, type the amount and source, pick the unit,
 * press Set. */
static void
type_price (GtkWindow  *review,
            const char *candidate,
            const char *amount,
            const char *source)
{
  GtkWidget *row = find_titled (GTK_WIDGET (review), ADW_TYPE_EXPANDER_ROW, candidate);
  GtkWidget *set;

  g_assert_nonnull (row);
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), TRUE);
  gtk_editable_set_text (GTK_EDITABLE (find_titled (row, ADW_TYPE_ENTRY_ROW,
                                                    "Amount (US dollars)")), amount);
  adw_combo_row_set_selected (ADW_COMBO_ROW (find_titled (row, ADW_TYPE_COMBO_ROW, "Unit")),
                              BPW_PRICE_PER_DEVICE_HOUR);
  gtk_editable_set_text (GTK_EDITABLE (find_titled (row, ADW_TYPE_ENTRY_ROW,
                                                    "Source (quote, list price, cloud page)")),
                         source);
  set = find_titled (row, GTK_TYPE_BUTTON, "_Set");
  g_assert_nonnull (set);
  g_signal_emit_by_name (set, "clicked");
}

static void
test_review_prices (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  guint n = bpw_study_get_n_candidates (study);
  const char *last = bpw_study_get_candidate (study, n - 1)->name;
  g_autoptr(GError) error = NULL;
  BpwTradeoffsPage *page;
  GtkWindow *review;

  g_assert_cmpuint (n, >=, 2);
  /* The default study names no price: per dollar is refused. */
  page = tradeoffs_settled (window);
  assert_per_dollar_unpriced (page, bpw_study_get_candidate (study, 0)->name);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.review-data", NULL));
  review = review_window (window);
  g_assert_nonnull (review);

  /* A price the study would not read back is refused, and changes nothing. */
  g_assert_false (bpw_review_dialog_set_price (BPW_REVIEW_DIALOG (review), 0, "-2",
                                               BPW_PRICE_PER_DEVICE_HOUR, QUOTE, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_false (bpw_review_dialog_set_price (BPW_REVIEW_DIALOG (review), 0, "2.5",
                                               BPW_PRICE_PER_DEVICE_HOUR, "", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_false (bpw_study_get_candidate (study, 0)->price.set);

  /* Every candidate priced per device-hour: the first through its form, typed with a
   * decimal comma, the others through the dialog's call. Each is an edit of its own. */
  type_price (review, bpw_study_get_candidate (study, 0)->name, "2,49", QUOTE);
  g_assert_true (bpw_study_get_candidate (study, 0)->price.set);
  g_assert_cmpfloat (bpw_study_get_candidate (study, 0)->price.usd, ==, 2.49);
  g_assert_cmpint (bpw_study_get_candidate (study, 0)->price.unit, ==,
                   BPW_PRICE_PER_DEVICE_HOUR);
  g_assert_cmpstr (bpw_study_get_candidate (study, 0)->price.source, ==, QUOTE);
  for (guint i = 1; i < n; i++)
    {
      g_autofree char *amount = g_strdup_printf ("%u.25", i + 1);

      g_assert_true (bpw_review_dialog_set_price (BPW_REVIEW_DIALOG (review), i, amount,
                                                  BPW_PRICE_PER_DEVICE_HOUR, QUOTE, &error));
      g_assert_no_error (error);
    }
  /* The form shows the price set. */
  g_assert_nonnull (find_titled (find_titled (GTK_WIDGET (review), ADW_TYPE_EXPANDER_ROW, last),
                                 GTK_TYPE_BUTTON, "_Clear"));
  g_assert_true (gtk_widget_get_sensitive (find_titled (find_titled (GTK_WIDGET (review),
                                                                     ADW_TYPE_EXPANDER_ROW,
                                                                     last),
                                                        GTK_TYPE_BUTTON, "_Clear")));

  page = tradeoffs_settled (window);
  assert_per_dollar_drawn (page);

  /* Undo takes back the last price only: per dollar is refused again, naming it. */
  g_assert_true (bpw_window_undo (window));
  g_assert_false (bpw_study_get_candidate (study, n - 1)->price.set);
  g_assert_true (bpw_study_get_candidate (study, n - 2)->price.set);
  page = tradeoffs_settled (window);
  assert_per_dollar_unpriced (page, last);
  /* The dialog follows the undo: the last candidate's Clear is off again. */
  g_assert_false (gtk_widget_get_sensitive (find_titled (find_titled (GTK_WIDGET (review),
                                                                      ADW_TYPE_EXPANDER_ROW,
                                                                      last),
                                                         GTK_TYPE_BUTTON, "_Clear")));

  /* Redo, and per dollar draws again; clearing the first price refuses it once more. */
  g_assert_true (bpw_window_redo (window));
  page = tradeoffs_settled (window);
  assert_per_dollar_drawn (page);
  g_assert_true (bpw_review_dialog_clear_price (BPW_REVIEW_DIALOG (review), 0, &error));
  g_assert_no_error (error);
  g_assert_false (bpw_study_get_candidate (study, 0)->price.set);
  page = tradeoffs_settled (window);
  assert_per_dollar_unpriced (page, bpw_study_get_candidate (study, 0)->name);

  gtk_window_destroy (review);
  gtk_window_destroy (GTK_WINDOW (window));
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

  g_test_add_func ("/bpw/ui/ReviewPrices/per-dollar", test_review_prices);
  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
