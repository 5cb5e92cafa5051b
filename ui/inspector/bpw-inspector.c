/* bpw-inspector.c — the pane, what it shows, its rows and their refresh
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-inspector"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "bpw-inspector-private.h"
#include "bpw-tooltip.h"

G_DEFINE_FINAL_TYPE (BpwInspector, bpw_inspector, GTK_TYPE_WIDGET)

static const char * const page_names[BPW_N_INSPECTOR_PAGES] = {
  "blueprint", "scenario", "mapping"
};

static void
bpw_inspector_clear_page (BpwInspector     *self,
                          BpwInspectorPage  page)
{
  for (guint i = 0; i < self->groups[page]->len; i++)
    adw_preferences_page_remove (self->pages[page], g_ptr_array_index (self->groups[page], i));
  g_ptr_array_set_size (self->groups[page], 0);
  g_ptr_array_set_size (self->rows[page], 0);
  switch (page)
    {
    case BPW_INSPECTOR_BLUEPRINT:
      self->blueprint_header = NULL;
      self->revert_button = NULL;
      break;
    case BPW_INSPECTOR_MAPPING:
      self->banner_group = NULL;
      self->banner_row = NULL;
      self->mapping_header = NULL;
      self->scope_row = NULL;
      self->scope_drop = NULL;
      self->engines_row = NULL;
      self->placement_row = NULL;
      g_clear_pointer (&self->mapping_shape, g_free);
      break;
    case BPW_INSPECTOR_SCENARIO:
    case BPW_N_INSPECTOR_PAGES:
    default:
      break;
    }
}

void
_bpw_inspector_rebuild (BpwInspector     *self,
                        BpwInspectorPage  page)
{
  gboolean refreshing = self->refreshing;

  bpw_inspector_clear_page (self, page);
  if (self->study == NULL)
    return;
  /* Filling the new widgets with the study's values is not an edit. */
  self->refreshing = TRUE;
  switch (page)
    {
    case BPW_INSPECTOR_BLUEPRINT:
      _bpw_inspector_build_blueprint (self);
      _bpw_inspector_refresh_blueprint (self);
      break;
    case BPW_INSPECTOR_SCENARIO:
      _bpw_inspector_build_scenario (self);
      _bpw_inspector_refresh_scenario (self);
      break;
    case BPW_INSPECTOR_MAPPING:
      _bpw_inspector_build_mapping (self);
      _bpw_inspector_refresh_mapping (self);
      break;
    case BPW_N_INSPECTOR_PAGES:
    default:
      g_assert_not_reached ();
    }
  self->refreshing = refreshing;
}

static void
bpw_inspector_dispose (GObject *object)
{
  BpwInspector *self = (BpwInspector *) object;
  GtkWidget *child;

  for (int p = 0; p < BPW_N_INSPECTOR_PAGES; p++)
    {
      g_clear_pointer (&self->groups[p], g_ptr_array_unref);
      g_clear_pointer (&self->rows[p], g_ptr_array_unref);
    }
  gtk_widget_dispose_template (GTK_WIDGET (self), BPW_TYPE_INSPECTOR);
  /* The template's box has no id, so disposing the template leaves it. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->study);

  G_OBJECT_CLASS (bpw_inspector_parent_class)->dispose (object);
}

static void
bpw_inspector_finalize (GObject *object)
{
  BpwInspector *self = (BpwInspector *) object;

  g_free (self->blueprint);
  g_free (self->selected_blueprint);
  g_free (self->source);
  g_free (self->reason);
  g_free (self->mapping_shape);

  G_OBJECT_CLASS (bpw_inspector_parent_class)->finalize (object);
}

static void
bpw_inspector_class_init (BpwInspectorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_inspector_dispose;
  object_class->finalize = bpw_inspector_finalize;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "inspector");
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/bpw/Workbench/ui/bpw-inspector.ui");
  gtk_widget_class_bind_template_child (widget_class, BpwInspector, stack);
  gtk_widget_class_bind_template_child_full (widget_class, "blueprint_page", FALSE,
                                             G_STRUCT_OFFSET (BpwInspector,
                                                              pages[BPW_INSPECTOR_BLUEPRINT]));
  gtk_widget_class_bind_template_child_full (widget_class, "scenario_page", FALSE,
                                             G_STRUCT_OFFSET (BpwInspector,
                                                              pages[BPW_INSPECTOR_SCENARIO]));
  gtk_widget_class_bind_template_child_full (widget_class, "mapping_page", FALSE,
                                             G_STRUCT_OFFSET (BpwInspector,
                                                              pages[BPW_INSPECTOR_MAPPING]));
}

static void
bpw_inspector_init (BpwInspector *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  for (int p = 0; p < BPW_N_INSPECTOR_PAGES; p++)
    {
      self->groups[p] = g_ptr_array_new ();
      self->rows[p] = g_ptr_array_new ();
    }
  self->candidate = G_MAXUINT;
  self->scenario = G_MAXUINT;
  self->kind = BPW_PROVENANCE_ESTIMATE;
  /* Translators: the provenance source of a value typed into the inspector */
  self->source = g_strdup (_("edited in the workbench"));
}

/* Shared with the page files ------------------------------------------------------- */

void
_bpw_inspector_add_group (BpwInspector        *self,
                          BpwInspectorPage     page,
                          AdwPreferencesGroup *group)
{
  adw_preferences_page_add (self->pages[page], group);
  g_ptr_array_add (self->groups[page], group);
}

void
_bpw_inspector_register_row (BpwInspector     *self,
                             BpwInspectorPage  page,
                             GtkWidget        *row,
                             const char       *key)
{
  g_object_set_data_full (G_OBJECT (row), "bpw-key",
                          g_strdup_printf ("%s/%s", page_names[page], key), g_free);
  g_ptr_array_add (self->rows[page], row);
}

void
_bpw_inspector_add_row (BpwInspector        *self,
                        BpwInspectorPage     page,
                        AdwPreferencesGroup *group,
                        GtkWidget           *row,
                        const char          *key)
{
  adw_preferences_group_add (group, row);
  _bpw_inspector_register_row (self, page, row, key);
}

void
_bpw_inspector_row_set_error (GtkWidget  *row,
                              const char *message)
{
  if (BPW_IS_VALUE_ROW (row))
    {
      bpw_value_row_set_error (BPW_VALUE_ROW (row), message);
      return;
    }
  if (message != NULL)
    gtk_widget_add_css_class (row, "error");
  else
    gtk_widget_remove_css_class (row, "error");
  g_object_set_data_full (G_OBJECT (row), "bpw-error", g_strdup (message), g_free);
  bpw_tooltip_set (row, message);
}

gboolean
_bpw_inspector_apply (BpwInspector *self,
                      GtkWidget    *row,
                      BpwStudyEdit *edit)
{
  g_autoptr(GError) error = NULL;

  if (self->apply == NULL)
    {
      bpw_study_edit_free (edit);
      return FALSE;
    }
  if (self->apply (edit, self->apply_data, &error))
    return TRUE;

  /* A value row keeps what was typed, to correct it; a switch or a list goes back to the
   * study's value and says why it did. */
  if (!BPW_IS_VALUE_ROW (row))
    bpw_inspector_refresh (self);
  _bpw_inspector_row_set_error (row, error->message);
  return FALSE;
}

char *
_bpw_inspector_provenance (const BpwSourced *value)
{
  const char *kind;

  if (value == NULL || !value->set)
    /* Translators: a blueprint value nobody has given */
    return g_strdup (_("Not known"));
  switch (value->kind)
    {
    case BPW_PROVENANCE_DATASHEET:
      kind = _("Datasheet");
      break;
    case BPW_PROVENANCE_CALIBRATED:
      kind = _("Calibrated");
      break;
    case BPW_PROVENANCE_MEASURED:
      kind = _("Measured");
      break;
    case BPW_PROVENANCE_ESTIMATE:
    default:
      kind = _("Estimate");
      break;
    }
  if (value->source == NULL || value->source[0] == '\0')
    return g_strdup (kind);
  return g_strdup_printf ("%s · %s", kind, value->source);
}

char *
_bpw_inspector_format (BpwInspector *self,
                       double        value,
                       BpwUnit       unit)
{
  static const char * const binary[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  static const char * const decimal[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };
  gboolean is_binary = self->units == BPW_BYTE_UNITS_BINARY;
  double base = is_binary ? 1024.0 : 1000.0;
  guint p = 0;

  if (unit != BPW_UNIT_BYTES || !isfinite (value) || value < 0.0)
    return bpw_quantity_format (value, unit);
  /* Sizes follow the GiB/GB preference, as every table of the workbench does. */
  while (value >= base && p + 1 < G_N_ELEMENTS (binary))
    {
      value /= base;
      p++;
    }
  return g_strdup_printf ("%.4g %s", value, is_binary ? binary[p] : decimal[p]);
}

GtkWidget *
_bpw_inspector_combo_row (const char         *title,
                          const char * const *labels)
{
  g_autoptr(GtkStringList) model = gtk_string_list_new (labels);

  return g_object_new (ADW_TYPE_COMBO_ROW, "title", title, "model", model,
                       "use-markup", FALSE, NULL);
}

GtkWidget *
_bpw_inspector_switch_row (const char *title)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *toggle = gtk_switch_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  /* Its subtitle is a provenance: whole, wrapped. */
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 0);
  gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), toggle);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), toggle);
  g_object_set_data (G_OBJECT (row), "bpw-switch", toggle);
  return row;
}

void
_bpw_inspector_combo_set (GtkWidget *row,
                          guint      selected)
{
  adw_combo_row_set_selected (ADW_COMBO_ROW (row), selected);
}

void
_bpw_inspector_switch_set (GtkWidget *row,
                           gboolean   active)
{
  gtk_switch_set_active (g_object_get_data (G_OBJECT (row), "bpw-switch"), active);
}

gboolean
_bpw_inspector_switch_get (GtkWidget *row)
{
  return gtk_switch_get_active (g_object_get_data (G_OBJECT (row), "bpw-switch"));
}

void
_bpw_inspector_add_message (BpwInspector     *self,
                            BpwInspectorPage  page,
                            const char       *title,
                            const char       *description)
{
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  g_autofree char *escaped = g_markup_escape_text (description, -1);

  adw_preferences_group_set_title (group, title);
  adw_preferences_group_set_description (group, escaped);
  _bpw_inspector_add_group (self, page, group);
}

/* Public API ------------------------------------------------------------------------ */

GtkWidget *
bpw_inspector_new (void)
{
  return g_object_new (BPW_TYPE_INSPECTOR, NULL);
}

void
bpw_inspector_set_apply_func (BpwInspector          *self,
                              BpwInspectorApplyFunc  func,
                              gpointer               user_data)
{
  g_return_if_fail (BPW_IS_INSPECTOR (self));

  self->apply = func;
  self->apply_data = user_data;
}

void
bpw_inspector_set_study (BpwInspector *self,
                         BpwStudy     *study)
{
  g_return_if_fail (BPW_IS_INSPECTOR (self));
  g_return_if_fail (study == NULL || BPW_IS_STUDY (study));

  g_set_object (&self->study, study);
  self->candidate = G_MAXUINT;
  self->scenario = G_MAXUINT;
  g_clear_pointer (&self->blueprint, g_free);
  g_clear_pointer (&self->selected_blueprint, g_free);
  g_clear_pointer (&self->reason, g_free);
  for (int p = 0; p < BPW_N_INSPECTOR_PAGES; p++)
    _bpw_inspector_rebuild (self, p);
}

void
bpw_inspector_set_selection (BpwInspector *self,
                             guint         candidate,
                             guint         scenario,
                             const char   *blueprint)
{
  g_autofree char *shown = NULL;
  gboolean candidate_changed, scenario_changed;

  g_return_if_fail (BPW_IS_INSPECTOR (self));

  if (self->study == NULL)
    return;
  if (candidate >= bpw_study_get_n_candidates (self->study))
    candidate = G_MAXUINT;
  if (scenario >= bpw_study_get_n_scenarios (self->study))
    scenario = G_MAXUINT;
  if (blueprint != NULL)
    shown = g_strdup (blueprint);
  else if (candidate != G_MAXUINT)
    shown = g_strdup (bpw_study_get_candidate (self->study, candidate)->blueprint);

  candidate_changed = candidate != self->candidate;
  scenario_changed = scenario != self->scenario;
  self->candidate = candidate;
  self->scenario = scenario;
  g_free (self->selected_blueprint);
  self->selected_blueprint = g_strdup (blueprint);

  if (g_strcmp0 (shown, self->blueprint) != 0
      || self->groups[BPW_INSPECTOR_BLUEPRINT]->len == 0)
    {
      g_free (self->blueprint);
      self->blueprint = g_steal_pointer (&shown);
      _bpw_inspector_rebuild (self, BPW_INSPECTOR_BLUEPRINT);
    }
  if (scenario_changed || self->groups[BPW_INSPECTOR_SCENARIO]->len == 0)
    _bpw_inspector_rebuild (self, BPW_INSPECTOR_SCENARIO);
  if (candidate_changed || scenario_changed || self->groups[BPW_INSPECTOR_MAPPING]->len == 0)
    {
      /* Edits go where this scenario's choices already are. */
      if (candidate_changed || scenario_changed)
        self->scenario_only = candidate != G_MAXUINT && scenario != G_MAXUINT
                              && bpw_study_candidate_get_scenario_mapping (
                                   bpw_study_get_candidate (self->study, candidate),
                                   bpw_study_get_scenario (self->study, scenario)->name) != NULL;
      _bpw_inspector_rebuild (self, BPW_INSPECTOR_MAPPING);
    }
}

void
bpw_inspector_refresh (BpwInspector *self)
{
  g_return_if_fail (BPW_IS_INSPECTOR (self));

  if (self->study == NULL)
    return;
  self->refreshing = TRUE;
  for (int p = 0; p < BPW_N_INSPECTOR_PAGES; p++)
    for (guint i = 0; i < self->rows[p]->len; i++)
      _bpw_inspector_row_set_error (g_ptr_array_index (self->rows[p], i), NULL);
  _bpw_inspector_refresh_blueprint (self);
  _bpw_inspector_refresh_scenario (self);
  _bpw_inspector_refresh_mapping (self);
  self->refreshing = FALSE;
}

void
bpw_inspector_set_evaluation (BpwInspector                *self,
                              const BpwOverviewEvaluation *evaluation)
{
  const char *reason = NULL;

  g_return_if_fail (BPW_IS_INSPECTOR (self));

  self->failed = evaluation != NULL && evaluation->failed;
  if (evaluation != NULL && (evaluation->failed || !evaluation->legal))
    reason = evaluation->reason != NULL ? evaluation->reason : _("The plan is not legal.");
  g_free (self->reason);
  self->reason = g_strdup (reason);
  self->refreshing = TRUE;
  _bpw_inspector_refresh_mapping (self);
  self->refreshing = FALSE;
}

void
bpw_inspector_set_units (BpwInspector *self,
                         BpwByteUnits  units)
{
  g_return_if_fail (BPW_IS_INSPECTOR (self));

  if (self->units == units)
    return;
  self->units = units;
  bpw_inspector_refresh (self);
}

void
bpw_inspector_show_page (BpwInspector *self,
                         const char   *name)
{
  g_return_if_fail (BPW_IS_INSPECTOR (self));
  gtk_stack_set_visible_child_name (self->stack, name);
}

const char *
bpw_inspector_get_page (BpwInspector *self)
{
  g_return_val_if_fail (BPW_IS_INSPECTOR (self), NULL);
  return gtk_stack_get_visible_child_name (self->stack);
}

const char *
bpw_inspector_get_blueprint (BpwInspector *self)
{
  g_return_val_if_fail (BPW_IS_INSPECTOR (self), NULL);
  return self->blueprint;
}

GtkWidget *
bpw_inspector_lookup_row (BpwInspector *self,
                          const char   *key)
{
  g_return_val_if_fail (BPW_IS_INSPECTOR (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  for (int p = 0; p < BPW_N_INSPECTOR_PAGES; p++)
    for (guint i = 0; i < self->rows[p]->len; i++)
      {
        GtkWidget *row = g_ptr_array_index (self->rows[p], i);

        if (g_strcmp0 (g_object_get_data (G_OBJECT (row), "bpw-key"), key) == 0)
          return row;
      }
  return NULL;
}

const char *
bpw_inspector_get_banner (BpwInspector *self)
{
  g_return_val_if_fail (BPW_IS_INSPECTOR (self), NULL);
  return self->reason;
}

void
bpw_inspector_set_mapping_scope (BpwInspector *self,
                                 gboolean      scenario_only)
{
  g_return_if_fail (BPW_IS_INSPECTOR (self));

  if (!self->scenario_only == !scenario_only)
    return;
  self->scenario_only = scenario_only;
  self->refreshing = TRUE;
  _bpw_inspector_refresh_mapping (self);
  self->refreshing = FALSE;
}

gboolean
bpw_inspector_get_mapping_scope (BpwInspector *self)
{
  g_return_val_if_fail (BPW_IS_INSPECTOR (self), FALSE);
  return self->scenario_only;
}
