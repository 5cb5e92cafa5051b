/* bpw-search-dialog-pages.c — "Show in Trade-offs and Compare": search results as outside
 * candidates of the window's Trade-offs and Compare pages
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A plan found, or a point of a sweep, is a candidate the study does not have: the pages
 * take it through their workers (bpw_study_worker_add_candidate_for_scenario()), next to
 * the study's own, without changing the study. It runs the searched scenario with its
 * plan and every other scenario as the searched candidate does, on its own blueprint (a
 * sweep point's changed one), so that each page compares like with like. The pages keep
 * it until their "Clear Added" button removes it.
 */
#define G_LOG_DOMAIN "bpw-search-dialog-pages"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-search-dialog-private.h"
#include "bpw-sweep-item.h"
#include "bpw-toast.h"

/* The sweep's points on its Pareto front with a plan: what the pages get from a sweep. */
static guint
bpw_search_dialog_sweep_front (BpwSearchDialog *self)
{
  guint n = 0;

  for (guint i = 0; self->sweep != NULL && i < bpw_sweep_get_n_points (self->sweep); i++)
    {
      const BpwSweepPoint *p = bpw_sweep_get_point (self->sweep, i);

      n += p->pareto && p->report != NULL && p->report->best->len > 0;
    }
  return n;
}

/* Each once: the pages would list a second copy under a numbered name. */
gboolean
_bpw_search_dialog_can_show (BpwSearchDialog *self)
{
  BpwSearchItem *item = bpw_search_dialog_get_selected_result (self);

  if (self->sweep_shown)
    return !self->sweep_in_pages && bpw_search_dialog_sweep_front (self) > 0;
  return item != NULL && g_object_get_data (G_OBJECT (item), "bpw-in-pages") == NULL;
}

/* "H100 SXM 80 GB · best TP8 PP1 DP1", "… · #2 TP8 PP1 DP1". */
static char *
bpw_search_dialog_result_name (BpwSearchDialog *self,
                               BpwSearchItem   *item)
{
  const BpwParallel *p = &bpw_search_item_get_mapping (item)->parallel;
  g_autofree char *tp = g_strdup_printf ("%" G_GINT64_FORMAT, p->tp);
  g_autofree char *pp = g_strdup_printf ("%" G_GINT64_FORMAT, p->pp);
  g_autofree char *dp = g_strdup_printf ("%" G_GINT64_FORMAT, p->dp);

  if (bpw_search_item_get_rank (item) == 1)
    /* Translators: a searched plan shown on the Trade-offs and Compare pages:
     * "H100 SXM 80 GB · best TP8 PP1 DP1" */
    return g_strdup_printf (_("%s · best TP%s PP%s DP%s"), self->candidate_name, tp, pp, dp);
  /* Translators: the second, third, … plan of a search: "H100 SXM 80 GB · #2 TP8 PP1 DP1" */
  return g_strdup_printf (_("%s · #%u TP%s PP%s DP%s"), self->candidate_name,
                          bpw_search_item_get_rank (item), tp, pp, dp);
}

/* One candidate for "win.show-in-pages": it runs the searched scenario with @mapping on
 * @blueprint, the others as the searched candidate does. */
static void
bpw_search_dialog_add_both (GVariantBuilder    *builder,
                            BpwSearchDialog    *self,
                            const char         *name,
                            const BpwBlueprint *blueprint,
                            const BpwMapping   *mapping)
{
  g_autofree char *blueprint_text = bpw_blueprint_to_json (blueprint);
  g_autofree char *mapping_text = bpw_mapping_to_json (mapping);

  g_variant_builder_add (builder, "(sssss)", name, blueprint_text, mapping_text,
                         self->candidate_name, self->scenario_name);
}

/* Adds the sweep's front; returns how many. */
static guint
bpw_search_dialog_show_sweep (BpwSearchDialog *self,
                              GVariantBuilder *builder)
{
  guint added = 0;

  for (guint i = 0; i < bpw_sweep_get_n_points (self->sweep); i++)
    {
      const BpwSweepPoint *p = bpw_sweep_get_point (self->sweep, i);
      g_autoptr(BpwSweepItem) item = NULL;
      g_autofree char *label = NULL;
      g_autofree char *name = NULL;

      if (!p->pareto || p->report == NULL || p->report->best->len == 0)
        continue;
      item = bpw_sweep_item_new (self->sweep, i);
      label = bpw_sweep_item_dup_label (item);
      /* Translators: a sweep point as a candidate: "H100 SXM 80 GB · HBM 4.8 TB/s" */
      name = g_strdup_printf (_("%s · %s"), self->candidate_name, label);
      bpw_search_dialog_add_both (builder, self, name, p->blueprint,
                                  &g_array_index (p->report->best, BpwSearchResult, 0).mapping);
      added++;
    }
  return added;
}

/* The toast that says so, with a button to the page that shows the scenario searched:
 * Trade-offs sweeps serving scenarios only. */
static void
bpw_search_dialog_toast_shown (BpwSearchDialog *self,
                               const char      *title)
{
  gboolean serving = self->run.scenario.phase != BPW_WORKLOAD_TRAIN;
  AdwToast *toast = adw_toast_new (title);

  adw_toast_set_button_label (toast, serving ? _("Open Trade-offs") : _("Open Compare"));
  adw_toast_set_action_name (toast, "search.show-page");
  adw_toast_set_action_target (toast, "s", serving ? "tradeoffs" : "compare");
  adw_toast_set_timeout (toast, 8);
  bpw_toast_show (self->toast_overlay, toast);
}

guint
bpw_search_dialog_show_in_pages (BpwSearchDialog  *self,
                                 GError          **error)
{
  GVariantBuilder builder;
  BpwSearchItem *item;
  g_autofree char *title = NULL;
  guint added = 0;

  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), 0);

  if (self->window == NULL || !_bpw_search_dialog_can_show (self)
      || bpw_search_dialog_get_running (self))
    {
      g_set_error_literal (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, self->sweep_shown
                           ? _("The sweep has no point to show, or they are shown already.")
                           : _("Select a plan of the results that is not shown yet."));
      return 0;
    }

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sssss)"));
  if (self->sweep_shown)
    {
      added = bpw_search_dialog_show_sweep (self, &builder);
      self->sweep_in_pages = TRUE;
      title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                            "%u sweep point added to Trade-offs and Compare",
                                            "%u sweep points added to Trade-offs and Compare",
                                            added), added);
    }
  else
    {
      g_autofree char *name = NULL;

      item = bpw_search_dialog_get_selected_result (self);
      name = bpw_search_dialog_result_name (self, item);
      bpw_search_dialog_add_both (&builder, self, name, self->run.blueprint,
                                  bpw_search_item_get_mapping (item));
      added = 1;
      g_object_set_data (G_OBJECT (item), "bpw-in-pages", GINT_TO_POINTER (TRUE));
      /* Translators: a toast, "“H100 · best TP8 PP1 DP1” added to Trade-offs and Compare" */
      title = g_strdup_printf (_("“%s” added to Trade-offs and Compare"), name);
    }
  gtk_widget_activate_action_variant (GTK_WIDGET (self->window), "win.show-in-pages",
                                      g_variant_builder_end (&builder));
  bpw_search_dialog_toast_shown (self, title);
  _bpw_search_dialog_update_buttons (self);
  return added;
}

/* The toast's button: the dialog has done its part; the page takes over. */
static void
bpw_search_dialog_show_page_action (GSimpleAction *action,
                                    GVariant      *parameter,
                                    gpointer       user_data)
{
  BpwSearchDialog *self = user_data;

  if (self->window == NULL)
    return;
  gtk_widget_activate_action_variant (GTK_WIDGET (self->window), "win.show-page", parameter);
  gtk_window_destroy (GTK_WINDOW (self));
}

void
_bpw_search_dialog_pages_init (BpwSearchDialog *self)
{
  static const GActionEntry actions[] = {
    { "show-page", bpw_search_dialog_show_page_action, "s", NULL, NULL, { 0 } },
  };

  /* The dialog's "search." actions: the sweep rows add theirs. */
  self->actions = g_simple_action_group_new ();
  g_action_map_add_action_entries (G_ACTION_MAP (self->actions), actions,
                                   G_N_ELEMENTS (actions), self);
  gtk_widget_insert_action_group (GTK_WIDGET (self), "search", G_ACTION_GROUP (self->actions));
}
