/* bpw-search-dialog-space.c — the rows of the space page and the limits they stand for
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every row offers "Any" and the values the full legal space holds for that decision:
 * they are read from the space itself (its groups and nodes), so a row never offers a TP
 * the model's heads do not divide or a micro-batch the batch does not. Rows with a single
 * value have nothing to choose and stay hidden (EP of a dense model, recompute when
 * serving). The space of the current choices is rebuilt on every change, so the page
 * always says how many plans Start will search, or why there are none.
 */
#define G_LOG_DOMAIN "bpw-search-dialog-space"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-search-dialog-private.h"
#include "bpw-calculon-rules.h"

typedef struct
{
  const char *title;
  const char *subtitle;
} BpwSearchChoiceText;

static BpwSearchChoiceText
bpw_search_choice_text (BpwSearchChoice choice)
{
  switch (choice)
    {
    case BPW_SEARCH_CHOICE_TP:
      return (BpwSearchChoiceText) { _("_Tensor Parallel (TP)"), NULL };
    case BPW_SEARCH_CHOICE_PP:
      return (BpwSearchChoiceText) { _("_Pipeline Parallel (PP)"), NULL };
    case BPW_SEARCH_CHOICE_DP:
      return (BpwSearchChoiceText) { _("_Data Parallel (DP)"), NULL };
    case BPW_SEARCH_CHOICE_EP:
      return (BpwSearchChoiceText) { _("_Expert Parallel (EP)"), NULL };
    case BPW_SEARCH_CHOICE_CP:
      /* Translators: context parallelism, the devices a sequence is split over */
      return (BpwSearchChoiceText) { _("Co_ntext Parallel (CP)"), NULL };
    case BPW_SEARCH_CHOICE_ZERO:
      return (BpwSearchChoiceText) { _("_ZeRO Stage"), NULL };
    case BPW_SEARCH_CHOICE_SP:
      return (BpwSearchChoiceText) { _("_Sequence Parallel"), NULL };
    case BPW_SEARCH_CHOICE_MICRO_BATCH:
      return (BpwSearchChoiceText) { _("_Micro-Batch"), NULL };
    case BPW_SEARCH_CHOICE_RECOMPUTE:
      return (BpwSearchChoiceText) { _("_Recompute"), NULL };
    case BPW_SEARCH_CHOICE_SCHEDULE:
      return (BpwSearchChoiceText) { _("Pipeline Sc_hedule"), NULL };
    case BPW_SEARCH_CHOICE_TP_OVERLAP:
      return (BpwSearchChoiceText) { _("TP O_verlap"),
                                     _("Tensor-parallel communication behind the matmuls") };
    case BPW_SEARCH_CHOICE_DP_OVERLAP:
      return (BpwSearchChoiceText) { _("DP Ove_rlap"),
                                     _("Gradients reduced behind the backward, weights gathered behind the next forward") };
    case BPW_N_SEARCH_CHOICES:
    default:
      break;
    }
  {
    BpwSearchChoiceText unknown = { "?", NULL };

    g_return_val_if_reached (unknown);
  }
}

static char *
bpw_search_choice_label (BpwSearchChoice choice,
                         gint64          value)
{
  switch (choice)
    {
    case BPW_SEARCH_CHOICE_SP:
    case BPW_SEARCH_CHOICE_DP_OVERLAP:
      return g_strdup (value ? C_("switch", "On") : C_("switch", "Off"));
    case BPW_SEARCH_CHOICE_RECOMPUTE:
      return g_strdup (bpw_search_recompute_label ((BpwRecompute) value));
    case BPW_SEARCH_CHOICE_SCHEDULE:
      return g_strdup (bpw_search_schedule_label ((BpwSchedule) value));
    case BPW_SEARCH_CHOICE_TP_OVERLAP:
      return g_strdup (bpw_search_tp_overlap_label ((BpwTpOverlap) value));
    default:
      return g_strdup_printf ("%" G_GINT64_FORMAT, value);
    }
}

static void
bpw_search_values_add (GArray *values,
                       gint64  value)
{
  for (guint i = 0; i < values->len; i++)
    if (g_array_index (values, gint64, i) == value)
      return;
  g_array_append_val (values, value);
}

static int
bpw_search_values_compare (gconstpointer a,
                           gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* The values each decision takes somewhere in @space, ascending; CP's from @cp_space,
 * the same space with CP free (nullable: none but @space's). */
static void
bpw_search_dialog_collect_values (BpwSearchDialog      *self,
                                  const BpwSearchSpace *space,
                                  const BpwSearchSpace *cp_space,
                                  gboolean             *offload,
                                  gboolean             *algorithms)
{
  GArray **v = self->choice_values;

  *offload = FALSE;
  *algorithms = FALSE;
  for (guint c = 0; c < BPW_N_SEARCH_CHOICES; c++)
    {
      g_clear_pointer (&v[c], g_array_unref);
      v[c] = g_array_new (FALSE, FALSE, sizeof (gint64));
    }
  for (guint g = 0; g < space->groups->len; g++)
    {
      const BpwSearchGroup *group = &g_array_index (space->groups, BpwSearchGroup, g);

      bpw_search_values_add (v[BPW_SEARCH_CHOICE_TP], group->tp);
      bpw_search_values_add (v[BPW_SEARCH_CHOICE_PP], group->pp);
      bpw_search_values_add (v[BPW_SEARCH_CHOICE_DP], group->dp);
      bpw_search_values_add (v[BPW_SEARCH_CHOICE_EP], group->ep);
      bpw_search_values_add (v[BPW_SEARCH_CHOICE_ZERO], group->zero);
      bpw_search_values_add (v[BPW_SEARCH_CHOICE_CP], group->cp);
      *offload |= group->offload != BPW_SEARCH_OFFLOAD_NONE;
      *algorithms |= group->n_alg_tiers > 0;
    }
  for (guint g = 0; cp_space != NULL && g < cp_space->groups->len; g++)
    bpw_search_values_add (v[BPW_SEARCH_CHOICE_CP],
                           g_array_index (cp_space->groups, BpwSearchGroup, g).cp);
  for (guint n = 0; n < space->nodes->len; n++)
    {
      const BpwSearchNode *node = &g_array_index (space->nodes, BpwSearchNode, n);

      bpw_search_values_add (v[BPW_SEARCH_CHOICE_SP], node->sp);
      bpw_search_values_add (v[BPW_SEARCH_CHOICE_MICRO_BATCH], node->micro_batch);
      bpw_search_values_add (v[BPW_SEARCH_CHOICE_RECOMPUTE], node->recompute);
      for (guint i = 0; i < node->n_plain; i++)
        bpw_search_values_add (v[BPW_SEARCH_CHOICE_SCHEDULE], node->plain[i]);
      if (node->n_schedules > node->n_plain)
        bpw_search_values_add (v[BPW_SEARCH_CHOICE_SCHEDULE], BPW_SCHEDULE_INTERLEAVED);
      for (guint i = 0; i < node->n_tp_overlaps; i++)
        bpw_search_values_add (v[BPW_SEARCH_CHOICE_TP_OVERLAP], node->tp_overlap[i]);
      for (guint i = 0; i < node->n_dp_overlaps; i++)
        bpw_search_values_add (v[BPW_SEARCH_CHOICE_DP_OVERLAP], node->dp_overlap[i]);
    }
  for (guint c = 0; c < BPW_N_SEARCH_CHOICES; c++)
    g_array_sort (v[c], bpw_search_values_compare);
}

static void   bpw_search_dialog_set_choice (BpwSearchDialog *self, BpwSearchChoice choice,
                                            gint64 value, gint64 any);
static gint64 bpw_search_choice_any        (BpwSearchChoice choice);

/* The space of @limits with CP free, whose groups give the CP row its values: the full
 * space keeps CP at 1 (bpw_search_limits_init()), since each CP multiplies the plans. */
static BpwSearchSpace *
bpw_search_dialog_new_cp_space (BpwSearchDialog       *self,
                                const BpwSearchLimits *limits)
{
  BpwSearchLimits free_cp = *limits;

  free_cp.cp = 0;
  return bpw_search_space_new (&self->run.spec, &self->run.scenario, self->run.blueprint,
                               &self->run.mapping, self->devices, &free_cp, NULL);
}

void
_bpw_search_dialog_choice_changed_cb (BpwSearchDialog *self)
{
  if (!self->updating)
    _bpw_search_dialog_space_update (self);
}

/* The row's list: "Any" and the values of self->choice_values. */
static void
bpw_search_dialog_fill_choice (BpwSearchDialog *self,
                               BpwSearchChoice  choice)
{
  BpwSearchChoiceText text = bpw_search_choice_text (choice);
  GArray *values = self->choice_values[choice];
  g_autoptr(GtkStringList) model = gtk_string_list_new (NULL);
  g_autoptr(GString) listed = g_string_new (NULL);
  AdwComboRow *row = self->choice_rows[choice];

  /* Translators: a decision left free for the search */
  gtk_string_list_append (model, C_("choice", "Any"));
  for (guint i = 0; i < values->len; i++)
    {
      g_autofree char *label = bpw_search_choice_label (choice, g_array_index (values, gint64, i));

      gtk_string_list_append (model, label);
      g_string_append_printf (listed, "%s%s", i > 0 ? ", " : "", label);
    }
  /* The row says which values "Any" searches, unless it explains the decision. */
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row),
                               text.subtitle != NULL ? text.subtitle : listed->str);
  adw_combo_row_set_model (row, G_LIST_MODEL (model));
  gtk_widget_set_visible (GTK_WIDGET (row), values->len > 1);
}

static void
bpw_search_dialog_add_choice (BpwSearchDialog *self,
                              BpwSearchChoice  choice)
{
  BpwSearchChoiceText text = bpw_search_choice_text (choice);
  AdwComboRow *row;

  row = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), text.title);
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), TRUE);
  self->choice_rows[choice] = row;
  bpw_search_dialog_fill_choice (self, choice);
  g_signal_connect_object (row, "notify::selected",
                           G_CALLBACK (_bpw_search_dialog_choice_changed_cb), self,
                           G_CONNECT_SWAPPED);
  adw_preferences_group_add (self->space_group, GTK_WIDGET (row));
}

/* The whole space, or what Calculon's llm-optimal-execution searches (`bpw search --space
 * calculon`): a space of training runs only. */
static void
bpw_search_dialog_add_space_row (BpwSearchDialog *self)
{
  g_autoptr(GtkStringList) model = gtk_string_list_new (NULL);
  gboolean train = self->run.scenario.phase == BPW_WORKLOAD_TRAIN;

  /* Translators: the search space: every legal plan */
  gtk_string_list_append (model, C_("space", "Full"));
  /* Translators: the search space of Calculon's llm-optimal-execution */
  gtk_string_list_append (model, _("Calculon’s options"));
  self->space_row = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->space_row), _("Search Space"));
  adw_combo_row_set_model (self->space_row, G_LIST_MODEL (model));
  gtk_widget_set_sensitive (GTK_WIDGET (self->space_row), train);
  if (!train)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (self->space_row),
                                 _("Calculon’s options hold training runs only"));
  g_signal_connect_object (self->space_row, "notify::selected",
                           G_CALLBACK (_bpw_search_dialog_choice_changed_cb), self,
                           G_CONNECT_SWAPPED);
  adw_preferences_group_add (self->space_group, GTK_WIDGET (self->space_row));
}

/* Calculon's search makes every decision itself but TP, PP and where activations live: the
 * other rows say so, and free. */
static void
bpw_search_dialog_sync_calculon_rows (BpwSearchDialog *self,
                                      gboolean         calculon_model)
{
  for (guint c = 0; c < BPW_N_SEARCH_CHOICES; c++)
    {
      gboolean own = c == BPW_SEARCH_CHOICE_TP || c == BPW_SEARCH_CHOICE_PP;
      GtkWidget *row = GTK_WIDGET (self->choice_rows[c]);

      if (row == NULL || own)
        continue;
      /* Calculon's model has no context parallelism: CP stays 1. */
      if (calculon_model)
        bpw_search_dialog_set_choice (self, c,
                                      c == BPW_SEARCH_CHOICE_CP ? 1 : bpw_search_choice_any (c),
                                      bpw_search_choice_any (c));
      gtk_widget_set_sensitive (row, !calculon_model);
      gtk_widget_set_tooltip_text (row, calculon_model
                                        ? _("Calculon’s search tries every value itself")
                                        : NULL);
    }
  for (guint f = 0; f < BPW_SEARCH_N_FUSION_SETS; f++)
    if (calculon_model && self->fusion_switches[f] != NULL)
      gtk_switch_set_active (self->fusion_switches[f], TRUE);
  for (guint o = 0; o < BPW_SEARCH_N_OFFLOADS; o++)
    if (self->offload_switches[o] != NULL)
      {
        if (calculon_model)
          gtk_switch_set_active (self->offload_switches[o], TRUE);
        gtk_widget_set_sensitive (gtk_widget_get_ancestor (GTK_WIDGET (self->offload_switches[o]),
                                                           ADW_TYPE_ACTION_ROW), !calculon_model);
      }
  gtk_widget_set_sensitive (GTK_WIDGET (self->fusion_row), !calculon_model);
  /* Calculon ranks by sample rate only. */
  if (calculon_model)
    adw_combo_row_set_selected (self->objective_row, BPW_SEARCH_OBJECTIVE_STEP_TIME);
  gtk_widget_set_sensitive (GTK_WIDGET (self->objective_row),
                            !calculon_model && self->run.blueprint->idle_power.set);
}

/* What the space row stands for, and what it rules out. */
static void
bpw_search_dialog_sync_space_row (BpwSearchDialog *self,
                                  gboolean         calculon)
{
  if (self->run.scenario.phase == BPW_WORKLOAD_TRAIN)
    {
      adw_action_row_set_subtitle (ADW_ACTION_ROW (self->space_row), calculon
                                   ? _("What Calculon’s llm-optimal-execution searches")
                                   : _("Every legal plan of the scenario on its devices"));
      /* The rules in full, where the row has room for them. */
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->space_row), calculon
                                   ? _("TP divides the hidden size and PP the layers, ZeRO is "
                                       "0 or 2, weights, optimizer state and activations are "
                                       "offloaded each on its own, there is no GPipe, and a "
                                       "tier is chosen for each parallel group")
                                   : NULL);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->cost_row), calculon);
  /* Only Calculon's space offloads activations. */
  for (guint a = 0; a < G_N_ELEMENTS (self->activation_switches); a++)
    if (self->activation_switches[a] != NULL)
      gtk_widget_set_visible (gtk_widget_get_ancestor (GTK_WIDGET (self->activation_switches[a]),
                                                       ADW_TYPE_ACTION_ROW), calculon);
  /* Calculon's space chooses tiers, not collective algorithms. */
  if (self->algorithms_switch != NULL)
    gtk_widget_set_sensitive (gtk_widget_get_ancestor (GTK_WIDGET (self->algorithms_switch),
                                                       ADW_TYPE_ACTION_ROW), !calculon);
}

static GtkSwitch *
bpw_search_dialog_add_switch_row (BpwSearchDialog *self,
                                  AdwExpanderRow  *expander,
                                  const char      *title,
                                  const char      *subtitle)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *toggle = gtk_switch_new ();

  gtk_switch_set_active (GTK_SWITCH (toggle), TRUE);
  gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), TRUE);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), toggle);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), toggle);
  g_signal_connect_object (toggle, "notify::active",
                           G_CALLBACK (_bpw_search_dialog_choice_changed_cb), self,
                           G_CONNECT_SWAPPED);
  if (expander != NULL)
    adw_expander_row_add_row (expander, row);
  else
    adw_preferences_group_add (self->space_group, row);
  return GTK_SWITCH (toggle);
}

static AdwExpanderRow *
bpw_search_dialog_add_expander (BpwSearchDialog *self,
                                const char      *title,
                                const char      *subtitle)
{
  AdwExpanderRow *row = ADW_EXPANDER_ROW (adw_expander_row_new ());

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), TRUE);
  adw_expander_row_set_subtitle (row, subtitle);
  adw_preferences_group_add (self->space_group, GTK_WIDGET (row));
  return row;
}

void
_bpw_search_dialog_space_init (BpwSearchDialog *self)
{
  static const char *fusion_help[BPW_SEARCH_N_FUSION_SETS] = {
    N_("Every operation runs on its own"),
    N_("Bias with activation, and the optimizer update"),
    N_("Default, and FlashAttention-style attention"),
    N_("Attention, and norm, dropout and residual"),
  };
  static const char *offload_help[BPW_SEARCH_N_OFFLOADS] = {
    N_("Everything in device memory"),
    N_("Weights on host memory, streamed per layer"),
    N_("Optimizer state, master weights and gradients on host memory"),
    N_("Weights and optimizer state on host memory"),
  };
  g_autoptr(BpwSearchSpace) full = NULL;
  g_autoptr(BpwSearchSpace) cp_space = NULL;
  g_autoptr(GError) error = NULL;
  BpwSearchLimits limits;
  gboolean offload, algorithms, energy;

  bpw_search_limits_init (&limits);
  full = bpw_search_space_new (&self->run.spec, &self->run.scenario, self->run.blueprint,
                               &self->run.mapping, self->devices, &limits, &error);
  if (full == NULL)
    {
      self->space_error = g_strdup (error->message);
      return;
    }

  self->updating = TRUE;
  bpw_search_dialog_add_space_row (self);
  _bpw_search_dialog_add_cost_row (self);
  self->error_row = ADW_ACTION_ROW (adw_action_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->error_row),
                                 _("These Choices Admit No Plan"));
  adw_action_row_set_icon_name (self->error_row, "dialog-warning-symbolic");
  gtk_widget_add_css_class (GTK_WIDGET (self->error_row), "search-space-error");
  gtk_widget_set_visible (GTK_WIDGET (self->error_row), FALSE);
  adw_preferences_group_add (self->space_group, GTK_WIDGET (self->error_row));
  cp_space = bpw_search_dialog_new_cp_space (self, &limits);
  bpw_search_dialog_collect_values (self, full, cp_space, &offload, &algorithms);
  for (guint c = 0; c < BPW_N_SEARCH_CHOICES; c++)
    bpw_search_dialog_add_choice (self, c);
  /* CP starts at 1, as the command line's search: "Any" multiplies the plans. */
  bpw_search_dialog_set_choice (self, BPW_SEARCH_CHOICE_CP, 1, 0);

  self->fusion_row = bpw_search_dialog_add_expander (self, _("_Fusion"),
                                                     _("The sets of fused operations to try"));
  for (guint f = 0; f < BPW_SEARCH_N_FUSION_SETS; f++)
    self->fusion_switches[f] =
      bpw_search_dialog_add_switch_row (self, self->fusion_row, bpw_search_fusion_set_label (f),
                                        _(fusion_help[f]));

  self->offload_row = bpw_search_dialog_add_expander (self, _("_Offload"),
                                                      _("What may live on host memory"));
  for (guint o = 0; o < BPW_SEARCH_N_OFFLOADS; o++)
    self->offload_switches[o] =
      bpw_search_dialog_add_switch_row (self, self->offload_row, bpw_search_offload_label (o),
                                        _(offload_help[o]));
  self->activation_switches[0] =
    bpw_search_dialog_add_switch_row (self, self->offload_row, _("Activations on _Device"),
                                      _("Stored activations stay in device memory"));
  self->activation_switches[1] =
    bpw_search_dialog_add_switch_row (self, self->offload_row, _("Activations on _Host"),
                                      _("Stored activations stream to host memory and back, "
                                        "a layer at a time"));
  /* Without host memory there is nothing to offload to. */
  gtk_widget_set_visible (GTK_WIDGET (self->offload_row), offload);

  self->algorithms_switch =
    bpw_search_dialog_add_switch_row (self, NULL, _("_Collective Algorithms"),
                                      _("Try every algorithm each tier offers, not only the "
                                        "automatic choice"));
  gtk_widget_set_visible (gtk_widget_get_ancestor (GTK_WIDGET (self->algorithms_switch),
                                                   ADW_TYPE_ACTION_ROW), algorithms);

  /* Energy is known only with the blueprint's idle power (the estimate adds each task's
   * dynamic energy to it); without it, ranking by energy would rank unknowns. */
  energy = self->run.blueprint->idle_power.set;
  if (!energy)
    {
      adw_combo_row_set_selected (self->objective_row, BPW_SEARCH_OBJECTIVE_STEP_TIME);
      gtk_widget_set_sensitive (GTK_WIDGET (self->objective_row), FALSE);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (self->objective_row),
                                   _("Energy per step needs the blueprint’s idle power"));
    }
  _bpw_search_dialog_show_columns (self, self->choice_values[BPW_SEARCH_CHOICE_EP]->len > 1,
                                   self->choice_values[BPW_SEARCH_CHOICE_CP]->len > 1,
                                   offload, energy);
  self->updating = FALSE;
  _bpw_search_dialog_space_update (self);
}

/* The value of @choice's row; @any when "Any" (or the row was never built). */
static gint64
bpw_search_dialog_choice_value (BpwSearchDialog *self,
                                BpwSearchChoice  choice,
                                gint64           any)
{
  guint selected;

  if (self->choice_rows[choice] == NULL)
    return any;
  selected = adw_combo_row_get_selected (self->choice_rows[choice]);
  if (selected == 0 || selected == GTK_INVALID_LIST_POSITION
      || selected > self->choice_values[choice]->len)
    return any;
  return g_array_index (self->choice_values[choice], gint64, selected - 1);
}

static void
bpw_search_dialog_set_choice (BpwSearchDialog *self,
                              BpwSearchChoice  choice,
                              gint64           value,
                              gint64           any)
{
  GArray *values = self->choice_values[choice];
  guint position = 0;

  if (self->choice_rows[choice] == NULL)
    return;
  for (guint i = 0; value != any && i < values->len; i++)
    if (g_array_index (values, gint64, i) == value)
      position = i + 1;
  adw_combo_row_set_selected (self->choice_rows[choice], position);
}

/* What a row's "Any" stands for in the limits. */
static gint64
bpw_search_choice_any (BpwSearchChoice choice)
{
  return choice <= BPW_SEARCH_CHOICE_CP || choice == BPW_SEARCH_CHOICE_MICRO_BATCH ? 0 : -1;
}

static gboolean
is_calculon_space (const BpwSearchLimits *limits)
{
  return limits->rules == bpw_calculon_search_rules ();
}

/* Switching between the full space and Calculon's changes which values a row may take
 * (Calculon's ZeRO is 0 or 2, it has no GPipe, its TP also divides the hidden size): the
 * rows list the values of the space chosen, keeping each choice that space holds. */
static void
bpw_search_dialog_refill_choices (BpwSearchDialog *self,
                                  gboolean         calculon)
{
  g_autoptr(BpwSearchSpace) base = NULL;
  g_autoptr(BpwSearchSpace) cp_space = NULL;
  gint64 kept[BPW_N_SEARCH_CHOICES];
  BpwSearchLimits limits;
  gboolean offload, algorithms, updating = self->updating;

  bpw_search_limits_init (&limits);
  limits.rules = calculon ? bpw_calculon_search_rules () : NULL;
  base = bpw_search_space_new (&self->run.spec, &self->run.scenario, self->run.blueprint,
                               &self->run.mapping, self->devices, &limits, NULL);
  self->rows_calculon = calculon;
  if (base == NULL)
    return;  /* the space of the current choices says why */
  for (guint c = 0; c < BPW_N_SEARCH_CHOICES; c++)
    kept[c] = bpw_search_dialog_choice_value (self, c, bpw_search_choice_any (c));
  self->updating = TRUE;
  cp_space = calculon ? NULL : bpw_search_dialog_new_cp_space (self, &limits);
  bpw_search_dialog_collect_values (self, base, cp_space, &offload, &algorithms);
  for (guint c = 0; c < BPW_N_SEARCH_CHOICES; c++)
    {
      bpw_search_dialog_fill_choice (self, c);
      bpw_search_dialog_set_choice (self, c, kept[c], bpw_search_choice_any (c));
    }
  self->updating = updating;
}

static guint
bpw_search_dialog_mask (GtkSwitch **switches,
                        guint       n)
{
  guint mask = 0;

  for (guint i = 0; i < n; i++)
    if (switches[i] != NULL && gtk_switch_get_active (switches[i]))
      mask |= 1u << i;
  return mask;
}

void
bpw_search_dialog_get_limits (BpwSearchDialog *self,
                              BpwSearchLimits *limits)
{
  guint all_fusions = (1u << BPW_SEARCH_N_FUSION_SETS) - 1;
  guint all_offloads = (1u << BPW_SEARCH_N_OFFLOADS) - 1;
  guint mask;

  g_return_if_fail (BPW_IS_SEARCH_DIALOG (self));
  g_return_if_fail (limits != NULL);

  bpw_search_limits_init (limits);
  limits->tp = bpw_search_dialog_choice_value (self, BPW_SEARCH_CHOICE_TP, 0);
  limits->pp = bpw_search_dialog_choice_value (self, BPW_SEARCH_CHOICE_PP, 0);
  limits->dp = bpw_search_dialog_choice_value (self, BPW_SEARCH_CHOICE_DP, 0);
  limits->ep = bpw_search_dialog_choice_value (self, BPW_SEARCH_CHOICE_EP, 0);
  limits->cp = bpw_search_dialog_choice_value (self, BPW_SEARCH_CHOICE_CP, 0);
  limits->micro_batch = bpw_search_dialog_choice_value (self, BPW_SEARCH_CHOICE_MICRO_BATCH, 0);
  limits->zero = (gint) bpw_search_dialog_choice_value (self, BPW_SEARCH_CHOICE_ZERO, -1);
  limits->sp = (gint) bpw_search_dialog_choice_value (self, BPW_SEARCH_CHOICE_SP, -1);
  limits->recompute = (gint) bpw_search_dialog_choice_value (self, BPW_SEARCH_CHOICE_RECOMPUTE,
                                                             -1);
  limits->schedule = (gint) bpw_search_dialog_choice_value (self, BPW_SEARCH_CHOICE_SCHEDULE,
                                                            -1);
  limits->tp_overlap = (gint) bpw_search_dialog_choice_value (self,
                                                              BPW_SEARCH_CHOICE_TP_OVERLAP, -1);
  limits->dp_overlap = (gint) bpw_search_dialog_choice_value (self,
                                                              BPW_SEARCH_CHOICE_DP_OVERLAP, -1);
  /* Every set on is the default (0: all); none on is no space (the page says so). */
  mask = bpw_search_dialog_mask (self->fusion_switches, BPW_SEARCH_N_FUSION_SETS);
  limits->fusion_sets = mask == all_fusions ? 0 : mask;
  mask = bpw_search_dialog_mask (self->offload_switches, BPW_SEARCH_N_OFFLOADS);
  limits->offloads = mask == all_offloads ? 0 : mask;
  limits->algorithms = self->algorithms_switch == NULL
                       || gtk_switch_get_active (self->algorithms_switch);
  limits->rules = self->space_row != NULL && adw_combo_row_get_selected (self->space_row) == 1
                  ? bpw_calculon_search_rules () : NULL;
  /* Calculon's model and space have no context parallelism. */
  if (is_calculon_space (limits))
    limits->cp = 1;
  /* Calculon's space only: both on is the default (-1: free); none on is no space (the
   * page says so). */
  mask = bpw_search_dialog_mask (self->activation_switches, 2);
  if (is_calculon_space (limits))
    limits->act_offload = mask == 1 ? 0 : mask == 2 ? 1 : -1;
}

void
bpw_search_dialog_set_limits (BpwSearchDialog       *self,
                              const BpwSearchLimits *limits)
{
  g_return_if_fail (BPW_IS_SEARCH_DIALOG (self));
  g_return_if_fail (limits != NULL);

  self->updating = TRUE;
  bpw_search_dialog_set_choice (self, BPW_SEARCH_CHOICE_TP, limits->tp, 0);
  bpw_search_dialog_set_choice (self, BPW_SEARCH_CHOICE_PP, limits->pp, 0);
  bpw_search_dialog_set_choice (self, BPW_SEARCH_CHOICE_DP, limits->dp, 0);
  bpw_search_dialog_set_choice (self, BPW_SEARCH_CHOICE_EP, limits->ep, 0);
  bpw_search_dialog_set_choice (self, BPW_SEARCH_CHOICE_CP, limits->cp, 0);
  bpw_search_dialog_set_choice (self, BPW_SEARCH_CHOICE_MICRO_BATCH, limits->micro_batch, 0);
  bpw_search_dialog_set_choice (self, BPW_SEARCH_CHOICE_ZERO, limits->zero, -1);
  bpw_search_dialog_set_choice (self, BPW_SEARCH_CHOICE_SP, limits->sp, -1);
  bpw_search_dialog_set_choice (self, BPW_SEARCH_CHOICE_RECOMPUTE, limits->recompute, -1);
  bpw_search_dialog_set_choice (self, BPW_SEARCH_CHOICE_SCHEDULE, limits->schedule, -1);
  bpw_search_dialog_set_choice (self, BPW_SEARCH_CHOICE_TP_OVERLAP, limits->tp_overlap, -1);
  bpw_search_dialog_set_choice (self, BPW_SEARCH_CHOICE_DP_OVERLAP, limits->dp_overlap, -1);
  for (guint f = 0; f < BPW_SEARCH_N_FUSION_SETS; f++)
    if (self->fusion_switches[f] != NULL)
      gtk_switch_set_active (self->fusion_switches[f],
                             limits->fusion_sets == 0 || (limits->fusion_sets & (1u << f)));
  for (guint o = 0; o < BPW_SEARCH_N_OFFLOADS; o++)
    if (self->offload_switches[o] != NULL)
      gtk_switch_set_active (self->offload_switches[o],
                             limits->offloads == 0 || (limits->offloads & (1u << o)));
  for (guint a = 0; a < G_N_ELEMENTS (self->activation_switches); a++)
    if (self->activation_switches[a] != NULL)
      gtk_switch_set_active (self->activation_switches[a],
                             limits->act_offload < 0 || limits->act_offload == (gint) a);
  if (self->algorithms_switch != NULL)
    gtk_switch_set_active (self->algorithms_switch, limits->algorithms);
  /* Calculon's space is one of training runs: the row is insensitive otherwise. */
  if (self->space_row != NULL && gtk_widget_get_sensitive (GTK_WIDGET (self->space_row)))
    adw_combo_row_set_selected (self->space_row, is_calculon_space (limits) ? 1 : 0);
  self->updating = FALSE;
  _bpw_search_dialog_space_update (self);
}

void
_bpw_search_dialog_space_update (BpwSearchDialog *self)
{
  g_autoptr(GError) error = NULL;
  BpwSearchLimits limits;

  if (!self->has_run || self->choice_values[0] == NULL)
    return;
  g_clear_pointer (&self->space, bpw_search_space_free);
  g_clear_pointer (&self->space_error, g_free);

  bpw_search_dialog_get_limits (self, &limits);
  if (is_calculon_space (&limits) != self->rows_calculon)
    {
      bpw_search_dialog_refill_choices (self, is_calculon_space (&limits));
      bpw_search_dialog_get_limits (self, &limits);
    }
  bpw_search_dialog_sync_space_row (self, is_calculon_space (&limits));
  if (!self->updating)
    {
      self->updating = TRUE;
      bpw_search_dialog_sync_calculon_rows (self, _bpw_search_dialog_calculon_model (self));
      self->updating = FALSE;
      bpw_search_dialog_get_limits (self, &limits);
    }
  g_clear_pointer (&self->calculon_space, bpw_calculon_space_free);
  if (bpw_search_dialog_mask (self->fusion_switches, BPW_SEARCH_N_FUSION_SETS) == 0)
    self->space_error = g_strdup (_("Choose at least one fusion set"));
  else if (gtk_widget_get_visible (GTK_WIDGET (self->offload_row))
           && bpw_search_dialog_mask (self->offload_switches, BPW_SEARCH_N_OFFLOADS) == 0)
    self->space_error = g_strdup (_("Choose at least one offload choice"));
  else if (is_calculon_space (&limits)
           && gtk_widget_get_visible (GTK_WIDGET (self->offload_row))
           && bpw_search_dialog_mask (self->activation_switches, 2) == 0)
    self->space_error = g_strdup (_("Choose where activations may live"));
  else
    {
      /* Building the space only enumerates groups and nodes (the plans are indices), a
       * few milliseconds even for millions of plans. */
      self->space = bpw_search_space_new (&self->run.spec, &self->run.scenario,
                                          self->run.blueprint, &self->run.mapping,
                                          self->devices, &limits, &error);
      if (self->space == NULL)
        self->space_error = g_strdup (error->message);
      else if (_bpw_search_dialog_calculon_model (self))
        {
          self->calculon_space = _bpw_search_dialog_new_calculon_space (self, &limits, &error);
          if (self->calculon_space == NULL)
            {
              self->space_error = g_strdup (error->message);
              g_clear_pointer (&self->space, bpw_search_space_free);
            }
        }
    }

  if (self->space != NULL)
    {
      guint64 size = self->calculon_space != NULL
                     ? bpw_calculon_space_size (self->calculon_space)
                     : bpw_search_space_size (self->space);
      g_autofree char *count = bpw_format_count (size);
      g_autofree char *text = NULL;

      text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s plan", "%s plans",
                                           (gulong) size), count);

      gtk_label_set_text (self->size_label, text);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->size_label),
                                   self->calculon_space != NULL
                                   ? _("Executions of Calculon’s search for these choices")
                                   : _("Plans in the space of these choices"));
      gtk_widget_remove_css_class (GTK_WIDGET (self->size_label), "error");
      gtk_widget_add_css_class (GTK_WIDGET (self->size_label), "dim-label");
    }
  else
    {
      gtk_label_set_text (self->size_label, _("No plans"));
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->size_label), NULL);
      gtk_widget_remove_css_class (GTK_WIDGET (self->size_label), "dim-label");
      gtk_widget_add_css_class (GTK_WIDGET (self->size_label), "error");
    }
  /* The reason in full, above the rows that caused it. */
  adw_action_row_set_subtitle (self->error_row, self->space_error != NULL ? self->space_error
                                                                          : "");
  gtk_widget_set_visible (GTK_WIDGET (self->error_row), self->space_error != NULL);
  _bpw_search_dialog_update_buttons (self);
}

guint64
bpw_search_dialog_get_space_size (BpwSearchDialog *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), 0);
  if (self->calculon_space != NULL)
    return bpw_calculon_space_size (self->calculon_space);
  return self->space != NULL ? bpw_search_space_size (self->space) : 0;
}
