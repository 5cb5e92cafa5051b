/* bpw-inspector-mapping.c — the Mapping page: a candidate's decisions, and whether they run
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A study candidate holds a mapping object that applies to every scenario, and may hold
 * one per scenario over it; what they leave out comes from each scenario (decomposition,
 * micro-batch, recompute) or from the defaults. The page shows the values the selected
 * scenario runs with, says which layer sets each, and writes an edit as that one member of
 * the candidate's mapping object or, "for this scenario only", of its mapping for the
 * selected scenario (bpw-inspector-mapping-edit.c).
 */
#define G_LOG_DOMAIN "bpw-inspector-mapping"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-inspector-mapping-private.h"
#include "bpw-tooltip.h"

void
_bpw_inspector_mapping_view_init (BpwInspector   *self,
                                  BpwMappingView *view)
{
  const BpwStudyCandidate *c = bpw_study_get_candidate (self->study, self->candidate);

  view->ok = bpw_candidate_run_init (&view->run, self->study, self->candidate, self->scenario,
                                     NULL);
  /* A run that cannot be set up still shows what it can: its blueprint's choices. */
  if (view->run.blueprint == NULL)
    view->run.blueprint = bpw_study_load_blueprint (self->study, c->blueprint, NULL);
  view->own = json_node_get_object (c->mapping);
  view->scenario = bpw_study_candidate_get_scenario_mapping (
    c, bpw_study_get_scenario (self->study, self->scenario)->name);
}

void
_bpw_inspector_mapping_view_clear (BpwMappingView *view)
{
  bpw_candidate_run_clear (&view->run);
}

/* Handlers ---------------------------------------------------------------------------- */

static gboolean
bpw_inspector_mapping_editing (BpwInspector *self)
{
  return !self->refreshing && self->candidate != G_MAXUINT && self->scenario != G_MAXUINT;
}

static void
bpw_inspector_mapping_commit_cb (BpwValueRow  *row,
                                 const char   *text,
                                 BpwInspector *self)
{
  g_autoptr(GError) error = NULL;
  gint64 value = 0;

  if (!bpw_inspector_mapping_editing (self))
    return;
  /* The layer list is a list, not a count. */
  if (_bpw_inspector_mapping_field (GTK_WIDGET (row)) == BPW_MAPPING_FIELD_PP_LAYERS)
    {
      _bpw_inspector_pipeline_commit_layers (self, GTK_WIDGET (row), text);
      return;
    }
  if (!_bpw_inspector_parse_count (text, 1, &value, &error))
    {
      bpw_value_row_set_error (row, error->message);
      return;
    }
  if (_bpw_inspector_mapping_field (GTK_WIDGET (row)) == BPW_MAPPING_FIELD_TILE
      && value > BPW_INSPECTOR_MAX_TILE)
    {
      g_autofree char *message = g_strdup_printf (_("A tile edge is at most %d elements"),
                                                  BPW_INSPECTOR_MAX_TILE);

      bpw_value_row_set_error (row, message);
      return;
    }
  if (_bpw_inspector_mapping_field (GTK_WIDGET (row)) == BPW_MAPPING_FIELD_WEIGHT_GROUP
      && value > BPW_WEIGHT_GROUP_MAX)
    {
      g_autofree char *message = g_strdup_printf (_("A quantisation group is at most %d "
                                                    "elements"), BPW_WEIGHT_GROUP_MAX);

      bpw_value_row_set_error (row, message);
      return;
    }
  _bpw_inspector_mapping_apply (self, GTK_WIDGET (row), value);
}

static void
bpw_inspector_mapping_reset_cb (BpwValueRow  *row,
                                BpwInspector *self)
{
  if (bpw_inspector_mapping_editing (self))
    _bpw_inspector_mapping_unset (self, GTK_WIDGET (row));
}

static void
bpw_inspector_mapping_combo_cb (AdwComboRow  *row,
                                GParamSpec   *pspec,
                                BpwInspector *self)
{
  GtkWidget *widget = GTK_WIDGET (row);

  if (!bpw_inspector_mapping_editing (self))
    return;
  /* A list notifies of a selection the refresh made only once that refresh is over, when
   * an edit's value did not take (another layer overrides it): that is not a choice. */
  if (GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (row), "bpw-shown"))
      == adw_combo_row_get_selected (row) + 1)
    return;
  /* Rows of blueprint choices carry their values; the others are enums in order. */
  if (g_object_get_data (G_OBJECT (row), "bpw-choices") != NULL)
    _bpw_inspector_mapping_apply (self, widget, _bpw_inspector_choice_value (widget));
  else
    _bpw_inspector_mapping_apply (self, widget, adw_combo_row_get_selected (row));
}

static void
bpw_inspector_mapping_switch_cb (GtkSwitch    *toggle,
                                 GParamSpec   *pspec,
                                 BpwInspector *self)
{
  GtkWidget *row = g_object_get_data (G_OBJECT (toggle), "bpw-row");

  if (bpw_inspector_mapping_editing (self))
    _bpw_inspector_mapping_apply (self, row, gtk_switch_get_active (toggle));
}

static void
bpw_inspector_mapping_scope_cb (GtkSwitch    *toggle,
                                GParamSpec   *pspec,
                                BpwInspector *self)
{
  /* Where edits go is a view setting, not an edit. */
  if (bpw_inspector_mapping_editing (self))
    bpw_inspector_set_mapping_scope (self, gtk_switch_get_active (toggle));
}

static void
bpw_inspector_mapping_drop_cb (BpwInspector *self)
{
  if (bpw_inspector_mapping_editing (self))
    _bpw_inspector_mapping_drop_scenario (self, self->scope_row);
}

/* Building ---------------------------------------------------------------------------- */

void
_bpw_inspector_mapping_add (BpwInspector        *self,
                            AdwPreferencesGroup *group,
                            AdwExpanderRow      *expander,
                            GtkWidget           *row,
                            BpwMappingField      field,
                            guint                index,
                            const char          *key)
{
  GtkWidget *toggle = g_object_get_data (G_OBJECT (row), "bpw-switch");

  g_object_set_data (G_OBJECT (row), "bpw-mapping-field", GINT_TO_POINTER (field));
  g_object_set_data (G_OBJECT (row), "bpw-mapping-index", GUINT_TO_POINTER (index));
  if (BPW_IS_VALUE_ROW (row))
    {
      g_signal_connect_object (row, "commit", G_CALLBACK (bpw_inspector_mapping_commit_cb), self,
                               0);
      g_signal_connect_object (row, "reset", G_CALLBACK (bpw_inspector_mapping_reset_cb), self,
                               0);
    }
  else if (toggle != NULL)
    {
      g_object_set_data (G_OBJECT (toggle), "bpw-row", row);
      g_signal_connect_object (toggle, "notify::active",
                               G_CALLBACK (bpw_inspector_mapping_switch_cb), self, 0);
    }
  else
    g_signal_connect_object (row, "notify::selected",
                             G_CALLBACK (bpw_inspector_mapping_combo_cb), self, 0);
  if (expander != NULL)
    {
      adw_expander_row_add_row (expander, row);
      _bpw_inspector_register_row (self, BPW_INSPECTOR_MAPPING, row, key);
    }
  else
    _bpw_inspector_add_row (self, BPW_INSPECTOR_MAPPING, group, row, key);
}

AdwPreferencesGroup *
_bpw_inspector_mapping_group (BpwInspector *self,
                              const char   *title,
                              const char   *description)
{
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());

  adw_preferences_group_set_title (group, title);
  if (description != NULL)
    {
      g_autofree char *escaped = g_markup_escape_text (description, -1);

      adw_preferences_group_set_description (group, escaped);
    }
  _bpw_inspector_add_group (self, BPW_INSPECTOR_MAPPING, group);
  return group;
}

/* Above everything: why this mapping does not run, when it does not. */
static void
bpw_inspector_build_banner (BpwInspector *self)
{
  GtkWidget *icon;

  self->banner_group = _bpw_inspector_mapping_group (self, "", NULL);
  self->banner_row = ADW_ACTION_ROW (adw_action_row_new ());
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (self->banner_row), FALSE);
  adw_action_row_set_subtitle_lines (self->banner_row, 4);
  icon = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
  adw_action_row_add_prefix (self->banner_row, icon);
  g_object_set_data (G_OBJECT (self->banner_row), "bpw-icon", icon);
  gtk_widget_add_css_class (GTK_WIDGET (self->banner_row), "inspector-banner");
  adw_preferences_group_add (self->banner_group, GTK_WIDGET (self->banner_row));
}

/* "For this scenario only": where edits go, and the way back to the candidate's mapping. */
static void
bpw_inspector_build_scope (BpwInspector *self)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *toggle = gtk_switch_new ();
  GtkWidget *drop = gtk_button_new_from_icon_name ("edit-clear-all-symbolic");
  /* Translators: drops the mapping the candidate has for this one scenario */
  const char *drop_label = _("Remove this scenario’s own choices");

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("For this scenario only"));
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 2);
  gtk_widget_add_css_class (drop, "flat");
  gtk_widget_set_valign (drop, GTK_ALIGN_CENTER);
  bpw_tooltip_set (drop, drop_label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (drop), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  drop_label, -1);
  g_signal_connect_object (drop, "clicked", G_CALLBACK (bpw_inspector_mapping_drop_cb), self,
                           G_CONNECT_SWAPPED);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), drop);
  gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), toggle);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), toggle);
  g_object_set_data (G_OBJECT (row), "bpw-switch", toggle);
  g_signal_connect_object (toggle, "notify::active", G_CALLBACK (bpw_inspector_mapping_scope_cb),
                           self, 0);
  self->scope_row = row;
  self->scope_drop = drop;
  /* It edits no member of the mapping: marked, so that the refresh of rows leaves it. */
  g_object_set_data (G_OBJECT (row), "bpw-scope", GINT_TO_POINTER (TRUE));
  _bpw_inspector_add_row (self, BPW_INSPECTOR_MAPPING, self->mapping_header, row, "scope");
}

static void
bpw_inspector_build_decomposition (BpwInspector *self)
{
  const char * const zero[] = { _("Off"), _("Stage 1, optimizer state"),
                                _("Stage 2, and gradients"), _("Stage 3, and weights"), NULL };
  const char * const schedule[] = { "GPipe", "1F1B", _("Interleaved 1F1B"), "ZB-H1", NULL };
  const char * const cp_algorithm[] = { _("Ring attention"), _("All-gather KV"), NULL };
  AdwPreferencesGroup *group = self->mapping_header;
  GPtrArray *rows = self->rows[BPW_INSPECTOR_MAPPING];
  guint first = rows->len;

  _bpw_inspector_add_parallel_rows (self, BPW_INSPECTOR_MAPPING, group,
                                    G_CALLBACK (bpw_inspector_mapping_commit_cb));
  /* The shared rows say which degree they are; on this page they also reset. */
  for (guint i = first; i < rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (rows, i);

      g_object_set_data (G_OBJECT (row), "bpw-mapping-field",
                         GINT_TO_POINTER (BPW_MAPPING_FIELD_PARALLEL));
      g_object_set_data (G_OBJECT (row), "bpw-mapping-index", GUINT_TO_POINTER (i - first));
      g_signal_connect_object (row, "reset", G_CALLBACK (bpw_inspector_mapping_reset_cb), self,
                               0);
    }
  /* Below the context-parallel degree, the last of those rows. */
  _bpw_inspector_mapping_add (self, group, NULL,
                              _bpw_inspector_combo_row (_("Context-parallel algorithm"),
                                                        cp_algorithm),
                              BPW_MAPPING_FIELD_CP_ALGORITHM, 0, "parallel.cp_algorithm");
  _bpw_inspector_mapping_add (self, group, NULL, _bpw_inspector_switch_row (_("Sequence parallel")),
                              BPW_MAPPING_FIELD_SP, 0, "parallel.sp");
  _bpw_inspector_mapping_add (self, group, NULL,
                              _bpw_inspector_switch_row (_("Gather again for backward")),
                              BPW_MAPPING_FIELD_SP_GATHER, 0, "sp_gather_again");
  _bpw_inspector_mapping_add (self, group, NULL, _bpw_inspector_combo_row (_("ZeRO"), zero),
                              BPW_MAPPING_FIELD_ZERO, 0, "parallel.zero");
  _bpw_inspector_mapping_add (self, group, NULL,
                              _bpw_inspector_combo_row (_("Pipeline schedule"), schedule),
                              BPW_MAPPING_FIELD_SCHEDULE, 0, "parallel.schedule");
  _bpw_inspector_mapping_add (self, group, NULL, bpw_value_row_new (_("Interleave")),
                              BPW_MAPPING_FIELD_INTERLEAVE, 0, "parallel.interleave");
  _bpw_inspector_build_mapping_pipeline (self, group);
  _bpw_inspector_mapping_add (self, group, NULL, bpw_value_row_new (_("Micro-batch")),
                              BPW_MAPPING_FIELD_MICRO_BATCH, 0, "micro_batch");
}

static void
bpw_inspector_build_execution (BpwInspector *self)
{
  const char * const recompute[] = { _("As the scenario"), _("None"), _("Selective"),
                                     _("Full"), NULL };
  const char * const overlap[] = { _("None"), _("Ring"), _("Pipelined"), NULL };
  const struct { BpwFusion flag; const char *title; const char *key; } fusions[] = {
    { BPW_FUSION_ATTENTION, _("Fused attention"), "fusion.attention" },
    { BPW_FUSION_BIAS_ACTIVATION, _("Fused bias and activation"), "fusion.bias_activation" },
    { BPW_FUSION_NORM_RESIDUAL, _("Fused norm and residual"), "fusion.norm_residual" },
    { BPW_FUSION_OPTIMIZER, _("Fused optimizer"), "fusion.optimizer" },
  };
  AdwPreferencesGroup *group = _bpw_inspector_mapping_group (self, _("Execution"), NULL);

  _bpw_inspector_mapping_add (self, group, NULL,
                              _bpw_inspector_combo_row (_("Recompute"), recompute),
                              BPW_MAPPING_FIELD_RECOMPUTE, 0, "recompute");
  for (guint i = 0; i < G_N_ELEMENTS (fusions); i++)
    _bpw_inspector_mapping_add (self, group, NULL, _bpw_inspector_switch_row (fusions[i].title),
                                BPW_MAPPING_FIELD_FUSION, fusions[i].flag, fusions[i].key);

  group = _bpw_inspector_mapping_group (self, _("Overlap"),
                                        _("Communication hidden behind computation"));
  _bpw_inspector_mapping_add (self, group, NULL,
                              _bpw_inspector_switch_row (_("Overlap data-parallel traffic")),
                              BPW_MAPPING_FIELD_DP_OVERLAP, 0, "overlap.dp");
  _bpw_inspector_mapping_add (self, group, NULL,
                              _bpw_inspector_combo_row (_("Overlap tensor-parallel traffic"),
                                                        overlap),
                              BPW_MAPPING_FIELD_TP_OVERLAP, 0, "overlap.tp");
}

void
_bpw_inspector_build_mapping (BpwInspector *self)
{
  const BpwStudyCandidate *c;
  g_autoptr(BpwBlueprint) bp = NULL;
  g_autoptr(GError) error = NULL;

  if (self->candidate == G_MAXUINT || self->scenario == G_MAXUINT)
    {
      _bpw_inspector_add_message (self, BPW_INSPECTOR_MAPPING, _("No Candidate Selected"),
                                  _("Select a candidate and a scenario, in the Overview or the "
                                    "sidebar, to see and edit how it maps the scenario."));
      return;
    }
  c = bpw_study_get_candidate (self->study, self->candidate);
  bpw_inspector_build_banner (self);
  self->mapping_header = _bpw_inspector_mapping_group (self, c->name, NULL);
  bpw_inspector_build_scope (self);
  bpw_inspector_build_decomposition (self);
  bpw_inspector_build_execution (self);
  _bpw_inspector_build_mapping_precision (self);

  bp = bpw_study_load_blueprint (self->study, c->blueprint, &error);
  if (bp == NULL)
    _bpw_inspector_add_message (self, BPW_INSPECTOR_MAPPING, _("Interconnect, Engines and Memory"),
                                error->message);
  else
    _bpw_inspector_build_mapping_binding (self, bp);
}

/* Refresh ----------------------------------------------------------------------------- */

static void
bpw_inspector_refresh_banner (BpwInspector *self)
{
  const char *scenario = bpw_study_get_scenario (self->study, self->scenario)->name;
  g_autofree char *title = NULL;
  GtkWidget *icon = g_object_get_data (G_OBJECT (self->banner_row), "bpw-icon");

  gtk_widget_set_visible (GTK_WIDGET (self->banner_group), self->reason != NULL);
  if (self->reason == NULL)
    return;
  /* Translators: the selected mapping cannot run on scenario %s */
  title = g_strdup_printf (self->failed ? _("Cannot run on %s") : _("Not legal on %s"), scenario);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->banner_row), title);
  adw_action_row_set_subtitle (self->banner_row, self->reason);
  bpw_tooltip_set (GTK_WIDGET (self->banner_row), self->reason);
  gtk_image_set_from_icon_name (GTK_IMAGE (icon), self->failed ? "dialog-error-symbolic"
                                                                : "dialog-warning-symbolic");
  if (self->failed)
    gtk_widget_add_css_class (GTK_WIDGET (self->banner_row), "failed");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->banner_row), "failed");
}

static void
bpw_inspector_refresh_scope (BpwInspector         *self,
                             const BpwMappingView *view)
{
  const char *scenario = bpw_study_get_scenario (self->study, self->scenario)->name;
  g_autofree char *description = NULL;
  g_autofree char *subtitle = NULL;

  if (self->scenario_only)
    description = g_markup_printf_escaped (_("Edits apply to %s only"), scenario);
  else
    description = g_markup_printf_escaped (_("Edits apply to every scenario; shown as %s runs "
                                             "them"), scenario);
  adw_preferences_group_set_description (self->mapping_header, description);
  _bpw_inspector_switch_set (self->scope_row, self->scenario_only);
  subtitle = view->scenario != NULL
             ? g_strdup_printf (_("%s has choices of its own"), scenario)
             : g_strdup_printf (_("%s follows the candidate"), scenario);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->scope_row), subtitle);
  gtk_widget_set_visible (self->scope_drop, view->scenario != NULL);
}

/* Which layer sets what @row shows, and whether it can go back to the layer below. */
static void
bpw_inspector_refresh_source (BpwInspector         *self,
                              GtkWidget            *row,
                              const BpwMappingView *view)
{
  BpwMappingField field = _bpw_inspector_mapping_field (row);
  /* An automatic algorithm is the default whichever list says "auto". */
  gboolean chosen = field != BPW_MAPPING_FIELD_ALGORITHM
                    || view->run.mapping.algorithm[_bpw_inspector_mapping_index (row)] != 0;
  gboolean by_scenario = chosen && _bpw_inspector_mapping_is_set (row, view->scenario);
  gboolean by_candidate = chosen && _bpw_inspector_mapping_is_set (row, view->own);
  gboolean from_scenario = field <= BPW_MAPPING_FIELD_RECOMPUTE
                           && field != BPW_MAPPING_FIELD_SP_GATHER;
  const char *source = by_scenario ? _("Set for this scenario")
                       : by_candidate ? _("Set by this candidate")
                       : from_scenario ? _("From the scenario") : _("Default");

  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), source);
  if (BPW_IS_VALUE_ROW (row) && field != BPW_MAPPING_FIELD_TILE)
    {
      gboolean here = self->scenario_only ? by_scenario : by_candidate;
      const char *back = self->scenario_only ? _("Use the candidate’s choice")
                         : from_scenario ? _("Use the scenario’s value")
                         : _("Use the default");

      bpw_value_row_set_can_reset (BPW_VALUE_ROW (row), here, back);
    }
}

static void
bpw_inspector_refresh_mapping_row (BpwInspector         *self,
                                   GtkWidget            *row,
                                   const BpwMappingView *view)
{
  const BpwMapping *m = &view->run.mapping;
  guint index = _bpw_inspector_mapping_index (row);
  gint64 number = 0;

  bpw_inspector_refresh_source (self, row, view);
  if (view->run.blueprint != NULL && _bpw_inspector_refresh_binding_row (self, row, view))
    return;
  if (_bpw_inspector_refresh_pipeline_row (self, row, view))
    return;
  switch (_bpw_inspector_mapping_field (row))
    {
    case BPW_MAPPING_FIELD_PARALLEL:
      {
        const gint64 values[] = { m->parallel.tp, m->parallel.pp, m->parallel.dp,
                                  m->parallel.ep, m->parallel.cp };

        number = values[index];
      }
      break;
    case BPW_MAPPING_FIELD_INTERLEAVE:
      number = m->parallel.interleave;
      gtk_widget_set_sensitive (row, m->parallel.schedule == BPW_SCHEDULE_INTERLEAVED);
      break;
    case BPW_MAPPING_FIELD_MICRO_BATCH:
      number = view->run.scenario.micro_batch;
      break;
    case BPW_MAPPING_FIELD_SP: _bpw_inspector_switch_set (row, m->parallel.sp); return;
    case BPW_MAPPING_FIELD_SP_GATHER:
      _bpw_inspector_switch_set (row, m->sp_gather_again);
      /* Only sequence parallelism gathers its input. */
      gtk_widget_set_sensitive (row, m->parallel.sp);
      return;
    case BPW_MAPPING_FIELD_ZERO: _bpw_inspector_combo_set (row, m->parallel.zero); return;
    case BPW_MAPPING_FIELD_SCHEDULE: _bpw_inspector_combo_set (row, m->parallel.schedule); return;
    case BPW_MAPPING_FIELD_RECOMPUTE:
      _bpw_inspector_combo_set (row, m->recompute >= 0 ? (guint) m->recompute + 1 : 0);
      return;
    case BPW_MAPPING_FIELD_FUSION:
      /* The automatic list shows as what it resolves to on this blueprint. */
      _bpw_inspector_switch_set (row, ((view->run.blueprint != NULL
                                        ? bpw_mapping_resolve_fusion (m->fusion,
                                                                      view->run.blueprint)
                                        : m->fusion) & index) != 0);
      return;
    case BPW_MAPPING_FIELD_DP_OVERLAP: _bpw_inspector_switch_set (row, m->dp_overlap); return;
    case BPW_MAPPING_FIELD_TP_OVERLAP: _bpw_inspector_combo_set (row, m->tp_overlap); return;
    case BPW_MAPPING_FIELD_WEIGHTS:
    case BPW_MAPPING_FIELD_WEIGHT_GROUP:
      _bpw_inspector_refresh_precision_row (row, m, view->run.scenario.dtype);
      return;
    default:
      return;
    }
  {
    g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, number);

    bpw_value_row_set_value (BPW_VALUE_ROW (row), text);
  }
}

void
_bpw_inspector_refresh_mapping (BpwInspector *self)
{
  GPtrArray *rows = self->rows[BPW_INSPECTOR_MAPPING];
  BpwMappingView view;

  if (self->candidate == G_MAXUINT || self->scenario == G_MAXUINT || self->banner_row == NULL)
    return;
  _bpw_inspector_mapping_view_init (self, &view);
  /* The choices were built for the blueprint's tiers, engines and memory levels. */
  if (view.run.blueprint != NULL && self->mapping_shape != NULL)
    {
      g_autofree char *shape = _bpw_inspector_binding_shape (view.run.blueprint);

      if (g_strcmp0 (shape, self->mapping_shape) != 0)
        {
          _bpw_inspector_mapping_view_clear (&view);
          _bpw_inspector_rebuild (self, BPW_INSPECTOR_MAPPING);
          return;
        }
    }
  bpw_inspector_refresh_banner (self);
  bpw_inspector_refresh_scope (self, &view);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (rows, i);

      if (g_object_get_data (G_OBJECT (row), "bpw-scope") != NULL)
        continue;
      bpw_inspector_refresh_mapping_row (self, row, &view);
      if (ADW_IS_COMBO_ROW (row))
        g_object_set_data (G_OBJECT (row), "bpw-shown",
                           GUINT_TO_POINTER (adw_combo_row_get_selected (ADW_COMBO_ROW (row))
                                             + 1));
    }
  if (view.run.blueprint != NULL)
    _bpw_inspector_refresh_binding_summary (self, &view);
  _bpw_inspector_mapping_view_clear (&view);
}
