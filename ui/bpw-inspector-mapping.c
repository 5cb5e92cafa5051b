/* bpw-inspector-mapping.c — the Mapping page: a candidate's decisions, and whether they run
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A study candidate holds a mapping object that applies to every scenario; what it leaves
 * out comes from each scenario (decomposition, recompute) or from the defaults. The page
 * shows the values the selected scenario runs with, says which the candidate sets, and
 * writes an edit as that one member of the candidate's mapping object.
 */
#define G_LOG_DOMAIN "bpw-inspector-mapping"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-inspector-private.h"
#include "bpw-tooltip.h"

typedef enum
{
  FIELD_PARALLEL,   /* "bpw-parallel": 1 tp, 2 pp, 3 dp, 4 ep */
  FIELD_SP,
  FIELD_ZERO,
  FIELD_SCHEDULE,
  FIELD_INTERLEAVE,
  FIELD_RECOMPUTE,
  FIELD_FUSION,     /* "bpw-flag": the BpwFusion flag */
  FIELD_DP_OVERLAP,
  FIELD_TP_OVERLAP,
} BpwMappingField;

static const char * const parallel_members[] = { NULL, "tp", "pp", "dp", "ep" };

static BpwMappingField
bpw_mapping_row_field (GtkWidget *row)
{
  if (g_object_get_data (G_OBJECT (row), "bpw-parallel") != NULL)
    return FIELD_PARALLEL;
  return GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), "bpw-mapping-field"));
}

static JsonObject *
bpw_mapping_member_object (JsonObject *root,
                           const char *member)
{
  JsonNode *node = json_object_get_member (root, member);

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      json_object_set_object_member (root, member, json_object_new ());
      node = json_object_get_member (root, member);
    }
  return json_node_get_object (node);
}

/* TRUE when the candidate's mapping object itself sets what @row shows. */
static gboolean
bpw_mapping_row_is_set (GtkWidget  *row,
                        JsonObject *root)
{
  const char *outer = NULL, *inner = NULL;
  JsonNode *node;

  switch (bpw_mapping_row_field (row))
    {
    case FIELD_PARALLEL:
      outer = "parallel";
      inner = parallel_members[GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (row),
                                                                    "bpw-parallel"))];
      break;
    case FIELD_SP: outer = "parallel"; inner = "sp"; break;
    case FIELD_ZERO: outer = "parallel"; inner = "zero"; break;
    case FIELD_SCHEDULE: outer = "parallel"; inner = "schedule"; break;
    case FIELD_INTERLEAVE: outer = "parallel"; inner = "interleave"; break;
    case FIELD_RECOMPUTE: outer = "recompute"; break;
    case FIELD_FUSION: outer = "fusion"; break;
    case FIELD_DP_OVERLAP: outer = "overlap"; inner = "dp"; break;
    case FIELD_TP_OVERLAP: outer = "overlap"; inner = "tp"; break;
    default: g_assert_not_reached ();
    }
  node = json_object_get_member (root, outer);
  if (node == NULL || inner == NULL)
    return node != NULL;
  return JSON_NODE_HOLDS_OBJECT (node) && json_object_has_member (json_node_get_object (node),
                                                                  inner);
}

/* The mapping the selected scenario runs with; FALSE (defaults in @mapping) when the
 * candidate cannot be set up there. */
static gboolean
bpw_inspector_effective_mapping (BpwInspector *self,
                                 BpwMapping   *mapping)
{
  BpwCandidateRun run;
  gboolean ok;

  ok = bpw_candidate_run_init (&run, self->study, self->candidate, self->scenario, NULL);
  bpw_mapping_copy (mapping, &run.mapping);
  bpw_candidate_run_clear (&run);
  return ok;
}

static void
bpw_inspector_mapping_apply (BpwInspector *self,
                             GtkWidget    *row,
                             gint64        value)
{
  const BpwStudyCandidate *c = bpw_study_get_candidate (self->study, self->candidate);
  /* A copy of its own: json_node_copy() would share the study's object. */
  g_autofree char *text = json_to_string (c->mapping, FALSE);
  g_autoptr(JsonNode) node = json_from_string (text, NULL);
  JsonObject *root = json_node_get_object (node);
  BpwMapping effective;
  BpwStudyEdit *edit;

  bpw_mapping_init_defaults (&effective);
  bpw_inspector_effective_mapping (self, &effective);
  switch (bpw_mapping_row_field (row))
    {
    case FIELD_PARALLEL:
      json_object_set_int_member (bpw_mapping_member_object (root, "parallel"),
                                  parallel_members[GPOINTER_TO_UINT (
                                    g_object_get_data (G_OBJECT (row), "bpw-parallel"))],
                                  value);
      break;
    case FIELD_SP:
      json_object_set_boolean_member (bpw_mapping_member_object (root, "parallel"), "sp", value);
      break;
    case FIELD_ZERO:
      json_object_set_int_member (bpw_mapping_member_object (root, "parallel"), "zero", value);
      break;
    case FIELD_SCHEDULE:
      json_object_set_string_member (bpw_mapping_member_object (root, "parallel"), "schedule",
                                     bpw_schedule_to_string ((BpwSchedule) value));
      break;
    case FIELD_INTERLEAVE:
      json_object_set_int_member (bpw_mapping_member_object (root, "parallel"), "interleave",
                                  value);
      break;
    case FIELD_RECOMPUTE:
      /* The first choice is "as the scenario says": no member at all. */
      if (value == 0)
        json_object_remove_member (root, "recompute");
      else
        json_object_set_string_member (root, "recompute",
                                       bpw_recompute_to_string ((BpwRecompute) (value - 1)));
      break;
    case FIELD_FUSION:
      {
        guint flag = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (row), "bpw-flag"));
        guint fusion = value ? effective.fusion | flag : effective.fusion & ~flag;
        JsonArray *list = json_array_new ();

        for (guint f = 0; f < BPW_N_FUSIONS; f++)
          if (fusion & (1u << f))
            json_array_add_string_element (list, bpw_fusion_to_string (1u << f));
        json_object_set_array_member (root, "fusion", list);
      }
      break;
    case FIELD_DP_OVERLAP:
      json_object_set_boolean_member (bpw_mapping_member_object (root, "overlap"), "dp", value);
      break;
    case FIELD_TP_OVERLAP:
      json_object_set_string_member (bpw_mapping_member_object (root, "overlap"), "tp",
                                     bpw_tp_overlap_to_string ((BpwTpOverlap) value));
      break;
    default:
      g_assert_not_reached ();
    }
  bpw_mapping_clear (&effective);

  edit = bpw_study_edit_new_mapping (self->study, self->candidate, node,
                                     adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
  _bpw_inspector_apply (self, row, edit);
}

static void
bpw_inspector_mapping_commit_cb (BpwValueRow  *row,
                                 const char   *text,
                                 BpwInspector *self)
{
  g_autoptr(GError) error = NULL;
  gint64 value = 0;

  if (self->refreshing || self->candidate == G_MAXUINT)
    return;
  if (!_bpw_inspector_parse_count (text, 1, &value, &error))
    {
      bpw_value_row_set_error (row, error->message);
      return;
    }
  bpw_inspector_mapping_apply (self, GTK_WIDGET (row), value);
}

static void
bpw_inspector_mapping_combo_cb (AdwComboRow  *row,
                                GParamSpec   *pspec,
                                BpwInspector *self)
{
  if (!self->refreshing && self->candidate != G_MAXUINT)
    bpw_inspector_mapping_apply (self, GTK_WIDGET (row), adw_combo_row_get_selected (row));
}

static void
bpw_inspector_mapping_switch_cb (GtkSwitch    *toggle,
                                 GParamSpec   *pspec,
                                 BpwInspector *self)
{
  GtkWidget *row = g_object_get_data (G_OBJECT (toggle), "bpw-row");

  if (!self->refreshing && self->candidate != G_MAXUINT)
    bpw_inspector_mapping_apply (self, row, gtk_switch_get_active (toggle));
}

static void
bpw_inspector_mapping_add (BpwInspector        *self,
                           AdwPreferencesGroup *group,
                           GtkWidget           *row,
                           BpwMappingField      field,
                           const char          *key)
{
  GtkWidget *toggle = g_object_get_data (G_OBJECT (row), "bpw-switch");

  g_object_set_data (G_OBJECT (row), "bpw-mapping-field", GINT_TO_POINTER (field));
  if (BPW_IS_VALUE_ROW (row))
    g_signal_connect_object (row, "commit", G_CALLBACK (bpw_inspector_mapping_commit_cb), self,
                             0);
  else if (toggle != NULL)
    {
      g_object_set_data (G_OBJECT (toggle), "bpw-row", row);
      g_signal_connect_object (toggle, "notify::active",
                               G_CALLBACK (bpw_inspector_mapping_switch_cb), self, 0);
    }
  else
    g_signal_connect_object (row, "notify::selected",
                             G_CALLBACK (bpw_inspector_mapping_combo_cb), self, 0);
  _bpw_inspector_add_row (self, BPW_INSPECTOR_MAPPING, group, row, key);
}

static AdwPreferencesGroup *
bpw_inspector_mapping_group (BpwInspector *self,
                             const char   *title)
{
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());

  adw_preferences_group_set_title (group, title);
  _bpw_inspector_add_group (self, BPW_INSPECTOR_MAPPING, group);
  return group;
}

void
_bpw_inspector_build_mapping (BpwInspector *self)
{
  const char * const zero[] = { _("Off"), _("Stage 1, optimizer state"),
                                _("Stage 2, and gradients"), _("Stage 3, and weights"), NULL };
  const char * const schedule[] = { "GPipe", "1F1B", _("Interleaved 1F1B"), NULL };
  const char * const recompute[] = { _("As the scenario"), _("None"), _("Selective"),
                                     _("Full"), NULL };
  const char * const overlap[] = { _("None"), _("Ring"), _("Pipelined"), NULL };
  const struct { BpwFusion flag; const char *title; const char *key; } fusions[] = {
    { BPW_FUSION_ATTENTION, _("Fused attention"), "fusion.attention" },
    { BPW_FUSION_BIAS_ACTIVATION, _("Fused bias and activation"), "fusion.bias_activation" },
    { BPW_FUSION_NORM_RESIDUAL, _("Fused norm and residual"), "fusion.norm_residual" },
    { BPW_FUSION_OPTIMIZER, _("Fused optimizer"), "fusion.optimizer" },
  };
  AdwPreferencesGroup *group;
  GtkWidget *icon;

  if (self->candidate == G_MAXUINT || self->scenario == G_MAXUINT)
    {
      _bpw_inspector_add_message (self, BPW_INSPECTOR_MAPPING, _("No Candidate Selected"),
                                  _("Select a candidate and a scenario, in the Overview or the "
                                    "sidebar, to see and edit how it maps the scenario."));
      return;
    }

  /* Above everything: why this mapping does not run, when it does not. */
  self->banner_group = bpw_inspector_mapping_group (self, "");
  self->banner_row = ADW_ACTION_ROW (adw_action_row_new ());
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (self->banner_row), FALSE);
  adw_action_row_set_subtitle_lines (self->banner_row, 4);
  icon = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
  adw_action_row_add_prefix (self->banner_row, icon);
  g_object_set_data (G_OBJECT (self->banner_row), "bpw-icon", icon);
  gtk_widget_add_css_class (GTK_WIDGET (self->banner_row), "inspector-banner");
  adw_preferences_group_add (self->banner_group, GTK_WIDGET (self->banner_row));

  self->mapping_header = bpw_inspector_mapping_group (
    self, bpw_study_get_candidate (self->study, self->candidate)->name);
  _bpw_inspector_add_parallel_rows (self, BPW_INSPECTOR_MAPPING, self->mapping_header,
                                    G_CALLBACK (bpw_inspector_mapping_commit_cb));
  bpw_inspector_mapping_add (self, self->mapping_header,
                             _bpw_inspector_switch_row (_("Sequence parallel")), FIELD_SP,
                             "parallel.sp");
  bpw_inspector_mapping_add (self, self->mapping_header,
                             _bpw_inspector_combo_row (_("ZeRO"), zero), FIELD_ZERO,
                             "parallel.zero");
  bpw_inspector_mapping_add (self, self->mapping_header,
                             _bpw_inspector_combo_row (_("Pipeline schedule"), schedule),
                             FIELD_SCHEDULE, "parallel.schedule");
  bpw_inspector_mapping_add (self, self->mapping_header, bpw_value_row_new (_("Interleave")),
                             FIELD_INTERLEAVE, "parallel.interleave");

  group = bpw_inspector_mapping_group (self, _("Execution"));
  bpw_inspector_mapping_add (self, group, _bpw_inspector_combo_row (_("Recompute"), recompute),
                             FIELD_RECOMPUTE, "recompute");
  for (guint i = 0; i < G_N_ELEMENTS (fusions); i++)
    {
      GtkWidget *row = _bpw_inspector_switch_row (fusions[i].title);

      g_object_set_data (G_OBJECT (row), "bpw-flag", GUINT_TO_POINTER (fusions[i].flag));
      bpw_inspector_mapping_add (self, group, row, FIELD_FUSION, fusions[i].key);
    }
  bpw_inspector_mapping_add (self, group,
                             _bpw_inspector_switch_row (_("Overlap data-parallel reduction")),
                             FIELD_DP_OVERLAP, "overlap.dp");
  bpw_inspector_mapping_add (self, group,
                             _bpw_inspector_combo_row (_("Overlap tensor-parallel traffic"),
                                                       overlap),
                             FIELD_TP_OVERLAP, "overlap.tp");
}

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

void
_bpw_inspector_refresh_mapping (BpwInspector *self)
{
  GPtrArray *rows = self->rows[BPW_INSPECTOR_MAPPING];
  JsonObject *root;
  BpwMapping m;

  if (self->candidate == G_MAXUINT || self->scenario == G_MAXUINT || self->banner_row == NULL)
    return;
  bpw_inspector_refresh_banner (self);
  {
    g_autofree char *description = g_markup_printf_escaped (
      _("Applies on every scenario; shown as %s runs it"),
      bpw_study_get_scenario (self->study, self->scenario)->name);

    adw_preferences_group_set_description (self->mapping_header, description);
  }

  root = json_node_get_object (bpw_study_get_candidate (self->study, self->candidate)->mapping);
  bpw_mapping_init_defaults (&m);
  bpw_inspector_effective_mapping (self, &m);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (rows, i);
      BpwMappingField field = bpw_mapping_row_field (row);
      gboolean set = bpw_mapping_row_is_set (row, root);
      gboolean from_scenario = field == FIELD_PARALLEL || field == FIELD_SP
                               || field == FIELD_ZERO || field == FIELD_SCHEDULE
                               || field == FIELD_INTERLEAVE || field == FIELD_RECOMPUTE;
      gint64 number = 0;

      if (ADW_IS_ACTION_ROW (row))
        adw_action_row_set_subtitle (ADW_ACTION_ROW (row),
                                     set ? _("Set by this candidate")
                                     : from_scenario ? _("From the scenario") : _("Default"));
      switch (field)
        {
        case FIELD_PARALLEL:
          {
            guint which = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (row), "bpw-parallel"));
            const gint64 values[] = { 0, m.parallel.tp, m.parallel.pp, m.parallel.dp,
                                      m.parallel.ep };

            number = values[which];
          }
          break;
        case FIELD_INTERLEAVE:
          number = m.parallel.interleave;
          gtk_widget_set_sensitive (row, m.parallel.schedule == BPW_SCHEDULE_INTERLEAVED);
          break;
        case FIELD_SP: _bpw_inspector_switch_set (row, m.parallel.sp); continue;
        case FIELD_ZERO: _bpw_inspector_combo_set (row, m.parallel.zero); continue;
        case FIELD_SCHEDULE: _bpw_inspector_combo_set (row, m.parallel.schedule); continue;
        case FIELD_RECOMPUTE:
          _bpw_inspector_combo_set (row, set && m.recompute >= 0 ? (guint) m.recompute + 1 : 0);
          continue;
        case FIELD_FUSION:
          _bpw_inspector_switch_set (row, (m.fusion & GPOINTER_TO_UINT (
                                             g_object_get_data (G_OBJECT (row), "bpw-flag")))
                                          != 0);
          continue;
        case FIELD_DP_OVERLAP: _bpw_inspector_switch_set (row, m.dp_overlap); continue;
        case FIELD_TP_OVERLAP: _bpw_inspector_combo_set (row, m.tp_overlap); continue;
        default: g_assert_not_reached ();
        }
      {
        g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, number);

        bpw_value_row_set_value (BPW_VALUE_ROW (row), text);
      }
    }
  bpw_mapping_clear (&m);
}
