/* bpw-inspector-scenario.c — the Scenario page: batch, sequence, precision, decomposition
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-inspector-scenario"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-inspector-private.h"

typedef enum
{
  FIELD_GLOBAL_BATCH,
  FIELD_MICRO_BATCH,
  FIELD_SEQ,
  FIELD_CONTEXT,
  FIELD_RECOMPUTE,
  FIELD_DTYPE,
  FIELD_KV_DTYPE,
  FIELD_TP,
  FIELD_PP,
  FIELD_DP,
  FIELD_EP,
  FIELD_CP,
  FIELD_CP_ALGORITHM,
} BpwScenarioField;

static const char * const parallel_keys[] = { "parallel.tp", "parallel.pp", "parallel.dp",
                                              "parallel.ep", "parallel.cp" };

static const char *
bpw_inspector_phase_label (BpwWorkloadPhase phase)
{
  switch (phase)
    {
    case BPW_WORKLOAD_PREFILL:
      return _("Prefill");
    case BPW_WORKLOAD_DECODE:
      return _("Decode");
    case BPW_WORKLOAD_TRAIN:
    default:
      return _("Training");
    }
}

gboolean
_bpw_inspector_parse_count (const char  *text,
                            gint64       min,
                            gint64      *value,
                            GError     **error)
{
  g_autofree char *stripped = g_strstrip (g_strdup (text != NULL ? text : ""));
  gint64 number = 0;

  if (!g_ascii_string_to_signed (stripped, 10, min, G_MAXINT32, &number, NULL))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("Expected a whole number of at least %lld, got “%s”"), (long long) min,
                   stripped);
      return FALSE;
    }
  *value = number;
  return TRUE;
}

static void
bpw_inspector_scenario_apply (BpwInspector     *self,
                              GtkWidget        *row,
                              BpwScenarioField  field,
                              gint64            value)
{
  const BpwStudyScenario *s = bpw_study_get_scenario (self->study, self->scenario);
  BpwScenario scenario;
  BpwParallel parallel = s->parallel;
  BpwStudyEdit *edit;

  bpw_scenario_copy (&scenario, &s->scenario);
  switch (field)
    {
    case FIELD_GLOBAL_BATCH: scenario.global_batch = value; break;
    case FIELD_MICRO_BATCH: scenario.micro_batch = value; break;
    case FIELD_SEQ: scenario.seq = value; break;
    case FIELD_CONTEXT: scenario.context = value; break;
    case FIELD_RECOMPUTE: scenario.recompute = (BpwRecompute) value; break;
    case FIELD_DTYPE: scenario.dtype = (BpwDType) value; break;
    case FIELD_KV_DTYPE: scenario.kv_dtype = (BpwDType) value; break;
    case FIELD_TP: parallel.tp = value; break;
    case FIELD_PP: parallel.pp = value; break;
    case FIELD_DP: parallel.dp = value; break;
    case FIELD_EP: parallel.ep = value; break;
    case FIELD_CP: parallel.cp = value; break;
    case FIELD_CP_ALGORITHM: parallel.cp_algorithm = (BpwCpAlgorithm) value; break;
    default: g_assert_not_reached ();
    }
  edit = bpw_study_edit_new_scenario (self->study, self->scenario, &scenario, &parallel,
                                      adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
  bpw_scenario_clear (&scenario);
  _bpw_inspector_apply (self, row, edit);
}

static void
bpw_inspector_scenario_commit_cb (BpwValueRow  *row,
                                  const char   *text,
                                  BpwInspector *self)
{
  BpwScenarioField field = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), "bpw-field"));
  g_autoptr(GError) error = NULL;
  gint64 value = 0;

  if (self->refreshing || self->scenario == G_MAXUINT)
    return;
  /* A context may be empty (0 tokens); everything else counts at least one. */
  if (!_bpw_inspector_parse_count (text, field == FIELD_CONTEXT ? 0 : 1, &value, &error))
    {
      bpw_value_row_set_error (row, error->message);
      return;
    }
  bpw_inspector_scenario_apply (self, GTK_WIDGET (row), field, value);
}

static void
bpw_inspector_scenario_combo_cb (AdwComboRow  *row,
                                 GParamSpec   *pspec,
                                 BpwInspector *self)
{
  BpwScenarioField field = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), "bpw-field"));

  if (self->refreshing || self->scenario == G_MAXUINT)
    return;
  bpw_inspector_scenario_apply (self, GTK_WIDGET (row), field,
                                adw_combo_row_get_selected (row));
}

/* The parallel rows of the Scenario page carry their field for the commit above. */
static void
bpw_inspector_parallel_commit_cb (BpwValueRow  *row,
                                  const char   *text,
                                  BpwInspector *self)
{
  bpw_inspector_scenario_commit_cb (row, text, self);
}

void
_bpw_inspector_add_parallel_rows (BpwInspector        *self,
                                  BpwInspectorPage     page,
                                  AdwPreferencesGroup *group,
                                  GCallback            commit)
{
  const char * const titles[] = {
    /* Translators: tensor parallelism, the number of devices a layer is split over */
    _("Tensor parallel (TP)"),
    _("Pipeline parallel (PP)"),
    _("Data parallel (DP)"),
    /* Translators: expert parallelism (mixture of experts) */
    _("Expert parallel (EP)"),
    /* Translators: context parallelism, the number of devices a sequence is split over */
    _("Context parallel (CP)"),
  };

  G_STATIC_ASSERT (G_N_ELEMENTS (parallel_keys) == FIELD_CP - FIELD_TP + 1);

  for (guint i = 0; i < G_N_ELEMENTS (titles); i++)
    {
      GtkWidget *row = bpw_value_row_new (titles[i]);

      g_object_set_data (G_OBJECT (row), "bpw-field", GINT_TO_POINTER (FIELD_TP + i));
      g_object_set_data (G_OBJECT (row), "bpw-parallel", GUINT_TO_POINTER (i + 1));
      g_signal_connect_object (row, "commit", commit, self, 0);
      _bpw_inspector_add_row (self, page, group, row, parallel_keys[i]);
    }
}

static void
bpw_inspector_scenario_value (BpwInspector        *self,
                              AdwPreferencesGroup *group,
                              const char          *title,
                              const char          *subtitle,
                              const char          *key,
                              BpwScenarioField     field)
{
  GtkWidget *row = bpw_value_row_new (title);

  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  g_object_set_data (G_OBJECT (row), "bpw-field", GINT_TO_POINTER (field));
  g_signal_connect_object (row, "commit", G_CALLBACK (bpw_inspector_scenario_commit_cb), self,
                           0);
  _bpw_inspector_add_row (self, BPW_INSPECTOR_SCENARIO, group, row, key);
}

static void
bpw_inspector_scenario_combo (BpwInspector        *self,
                              AdwPreferencesGroup *group,
                              const char          *title,
                              const char * const  *labels,
                              const char          *key,
                              BpwScenarioField     field)
{
  GtkWidget *row = _bpw_inspector_combo_row (title, labels);

  g_object_set_data (G_OBJECT (row), "bpw-field", GINT_TO_POINTER (field));
  g_signal_connect_object (row, "notify::selected",
                           G_CALLBACK (bpw_inspector_scenario_combo_cb), self, 0);
  _bpw_inspector_add_row (self, BPW_INSPECTOR_SCENARIO, group, row, key);
}

void
_bpw_inspector_build_scenario (BpwInspector *self)
{
  const char * const recompute[] = { _("None"), _("Selective"), _("Full"), NULL };
  const char * const dtypes[] = { "FP32", "BF16", "FP16", "FP8", NULL };
  const char * const cp_algorithm[] = { _("Ring attention"), _("All-gather KV"), NULL };
  const BpwStudyScenario *s;
  AdwPreferencesGroup *group;
  gboolean train, decode;

  if (self->scenario == G_MAXUINT)
    {
      _bpw_inspector_add_message (self, BPW_INSPECTOR_SCENARIO, _("No Scenario Selected"),
                                  _("Select a scenario in the sidebar, the Overview or the "
                                    "Sheet to see and edit it."));
      return;
    }
  s = bpw_study_get_scenario (self->study, self->scenario);
  train = s->scenario.phase == BPW_WORKLOAD_TRAIN;
  decode = s->scenario.phase == BPW_WORKLOAD_DECODE;

  group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (group, s->name);
  g_object_set_data (G_OBJECT (group), "bpw-header", GINT_TO_POINTER (TRUE));
  _bpw_inspector_add_group (self, BPW_INSPECTOR_SCENARIO, group);
  bpw_inspector_scenario_value (self, group, _("Global batch"),
                                train ? _("Sequences per step") : _("Requests in flight"),
                                "global_batch", FIELD_GLOBAL_BATCH);
  bpw_inspector_scenario_value (self, group, _("Micro-batch"), _("Sequences per micro-batch"),
                                "micro_batch", FIELD_MICRO_BATCH);
  bpw_inspector_scenario_value (self, group, _("Sequence length"),
                                train ? _("Tokens per sequence") : _("Prompt tokens"), "seq",
                                FIELD_SEQ);
  if (decode)
    bpw_inspector_scenario_value (self, group, _("Context"),
                                  _("Tokens already in the KV cache"), "context",
                                  FIELD_CONTEXT);
  bpw_inspector_scenario_combo (self, group, _("Recompute"), recompute, "recompute",
                                FIELD_RECOMPUTE);
  bpw_inspector_scenario_combo (self, group, _("Precision"), dtypes, "dtype", FIELD_DTYPE);
  if (!train)
    bpw_inspector_scenario_combo (self, group, _("KV cache precision"), dtypes, "kv_dtype",
                                  FIELD_KV_DTYPE);

  group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (group, _("Parallel Decomposition"));
  adw_preferences_group_set_description (group, _("The scenario’s own; a candidate’s mapping "
                                                  "may override it"));
  _bpw_inspector_add_group (self, BPW_INSPECTOR_SCENARIO, group);
  _bpw_inspector_add_parallel_rows (self, BPW_INSPECTOR_SCENARIO, group,
                                    G_CALLBACK (bpw_inspector_parallel_commit_cb));
  bpw_inspector_scenario_combo (self, group, _("Context-parallel algorithm"), cp_algorithm,
                                "parallel.cp_algorithm", FIELD_CP_ALGORITHM);
  if (!train)
    {
      _bpw_inspector_build_serving_features (self);
      _bpw_inspector_build_serving (self);
    }
}

void
_bpw_inspector_refresh_scenario (BpwInspector *self)
{
  GPtrArray *rows = self->rows[BPW_INSPECTOR_SCENARIO];
  const BpwStudyScenario *s;
  AdwPreferencesGroup *header;

  if (self->scenario == G_MAXUINT || rows->len == 0)
    return;
  s = bpw_study_get_scenario (self->study, self->scenario);
  header = g_ptr_array_index (self->groups[BPW_INSPECTOR_SCENARIO], 0);
  {
    gint64 devices = bpw_parallel_devices (&s->parallel);
    const BpwStudyWorkload *w = bpw_study_get_workload (self->study, s->workload);
    const char *workload = w->name;
    g_autofree char *window = bpw_model_spec_describe_window (&w->spec);
    g_autofree char *count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%lld device",
                                                           "%lld devices",
                                                           (gulong) MIN (devices, 1000000)),
                                              (long long) devices);
    /* A windowed model says so beside its name: its FLOPs and KV cache follow the window. */
    g_autofree char *description = g_markup_printf_escaped ("%s · %s%s%s · %s",
                                                            bpw_inspector_phase_label (
                                                              s->scenario.phase),
                                                            workload,
                                                            window != NULL ? ", " : "",
                                                            window != NULL ? window : "",
                                                            count);

    adw_preferences_group_set_description (header, description);
  }

  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (rows, i);
      BpwScenarioField field = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row),
                                                                   "bpw-field"));
      gint64 number = 0;

      if (_bpw_inspector_refresh_serving_row (self, row, s)
          || _bpw_inspector_refresh_serving_feature (self, row, s))
        continue;
      switch (field)
        {
        case FIELD_RECOMPUTE:
          _bpw_inspector_combo_set (row, s->scenario.recompute);
          continue;
        case FIELD_DTYPE:
          _bpw_inspector_combo_set (row, s->scenario.dtype);
          continue;
        case FIELD_KV_DTYPE:
          _bpw_inspector_combo_set (row, s->scenario.kv_dtype);
          continue;
        case FIELD_CP_ALGORITHM:
          _bpw_inspector_combo_set (row, s->parallel.cp_algorithm);
          /* Only a sequence split over ranks needs the others' keys and values. */
          gtk_widget_set_sensitive (row, s->parallel.cp > 1);
          adw_action_row_set_subtitle (ADW_ACTION_ROW (row),
                                       s->parallel.cp > 1
                                       ? _("How each rank gets the whole sequence’s keys and "
                                           "values")
                                       : _("Needs context parallelism (CP above 1)"));
          continue;
        case FIELD_GLOBAL_BATCH: number = s->scenario.global_batch; break;
        case FIELD_MICRO_BATCH: number = s->scenario.micro_batch; break;
        case FIELD_SEQ: number = s->scenario.seq; break;
        case FIELD_CONTEXT: number = s->scenario.context; break;
        case FIELD_TP: number = s->parallel.tp; break;
        case FIELD_PP: number = s->parallel.pp; break;
        case FIELD_DP: number = s->parallel.dp; break;
        case FIELD_EP: number = s->parallel.ep; break;
        case FIELD_CP: number = s->parallel.cp; break;
        default: g_assert_not_reached ();
        }
      {
        g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, number);

        bpw_value_row_set_value (BPW_VALUE_ROW (row), text);
      }
    }
}
