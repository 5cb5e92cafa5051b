/* bpw-inspector-serving.c — the Scenario page's serving rows: prefill/decode disaggregation
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An inference scenario's serving may run its prefills and decodes on pools of their own
 * (bpw-serve-pools.h); the trade curves then draw each candidate's disaggregated series
 * beside its colocated one. A switch turns the pools on; rows set each pool's replicas,
 * TP and PP and the tier the KV caches cross. Every change is one undoable edit of the
 * scenario's serving settings.
 */
#define G_LOG_DOMAIN "bpw-inspector-serving"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-inspector-private.h"
#include "bpw-serve-disagg.h"
#include "bpw-study-pools.h"

typedef enum
{
  POOLS_ENABLED = 1,
  POOLS_PREFILL_REPLICAS,
  POOLS_PREFILL_TP,
  POOLS_PREFILL_PP,
  POOLS_DECODE_REPLICAS,
  POOLS_DECODE_TP,
  POOLS_DECODE_PP,
  POOLS_KV_TIER,
} PoolsField;

#define FIELD_KEY "bpw-serving-field"

static gint64 *
pools_count (BpwServePools *p, PoolsField field)
{
  switch (field)
    {
    case POOLS_PREFILL_REPLICAS: return &p->prefill_replicas;
    case POOLS_PREFILL_TP: return &p->prefill_tp;
    case POOLS_PREFILL_PP: return &p->prefill_pp;
    case POOLS_DECODE_REPLICAS: return &p->decode_replicas;
    case POOLS_DECODE_TP: return &p->decode_tp;
    case POOLS_DECODE_PP: return &p->decode_pp;
    case POOLS_ENABLED:
    case POOLS_KV_TIER:
    default:
      return NULL;
    }
}

/* The blueprint the tier is checked against and taken from: the one the inspector shows,
 * else the first candidate's. NULL when none loads. */
static BpwBlueprint *
shown_blueprint (BpwInspector *self)
{
  const char *name = self->blueprint;

  if (name == NULL && bpw_study_get_n_candidates (self->study) > 0)
    name = bpw_study_get_candidate (self->study, 0)->blueprint;
  return name != NULL ? bpw_study_load_blueprint (self->study, name, NULL) : NULL;
}

static void
apply (BpwInspector *self, GtkWidget *row, const BpwServeSettings *serving)
{
  BpwStudyEdit *edit = bpw_study_edit_new_scenario_serving (
    self->study, self->scenario, serving,
    adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));

  _bpw_inspector_apply (self, row, edit);
}

/* Turned on, the pools start as one replica each of the scenario's TP × PP, their KV
 * caches over the shown blueprint's outermost tier (the network between nodes). */
static void
switch_cb (GtkSwitch *toggle, GParamSpec *pspec, BpwInspector *self)
{
  GtkWidget *row = g_object_get_data (G_OBJECT (toggle), "bpw-row");
  const BpwStudyScenario *s;
  BpwServeSettings serving;
  BpwServePools *p = &serving.pools;

  if (self->refreshing || self->scenario == G_MAXUINT)
    return;
  s = bpw_study_get_scenario (self->study, self->scenario);
  serving = s->serving;
  p->enabled = gtk_switch_get_active (toggle);
  if (p->enabled && bpw_serve_pools_invalid_field (p) != NULL)
    {
      g_autoptr(BpwBlueprint) bp = shown_blueprint (self);

      p->prefill_replicas = p->decode_replicas = 1;
      p->prefill_tp = p->decode_tp = MAX (s->parallel.tp, 1);
      p->prefill_pp = p->decode_pp = MAX (s->parallel.pp, 1);
      if (bp == NULL || bp->n_tiers == 0
          || !bpw_serve_pools_set_tier (p, bp->tiers[bp->n_tiers - 1].name))
        {
          bpw_inspector_refresh (self);
          _bpw_inspector_row_set_error (row, _("No candidate’s blueprint has a tier to carry "
                                               "KV caches between the pools"));
          return;
        }
    }
  apply (self, row, &serving);
}

static void
commit_cb (BpwValueRow *row, const char *text, BpwInspector *self)
{
  PoolsField field = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), FIELD_KEY));
  g_autoptr(GError) error = NULL;
  BpwServeSettings serving;
  gint64 *count;

  if (self->refreshing || self->scenario == G_MAXUINT)
    return;
  serving = bpw_study_get_scenario (self->study, self->scenario)->serving;
  count = pools_count (&serving.pools, field);
  if (count != NULL)
    {
      gint64 top = field == POOLS_PREFILL_REPLICAS || field == POOLS_DECODE_REPLICAS
                   ? BPW_SERVE_MAX_POOL_REPLICAS : BPW_SERVE_MAX_POOL_DEGREE;

      if (!_bpw_inspector_parse_count (text, 1, count, &error) || *count > top)
        {
          g_autofree char *message = g_strdup_printf (_("Expected a whole number from 1 to "
                                                        "%lld"), (long long) top);

          bpw_value_row_set_error (row, message);
          return;
        }
    }
  else
    {
      g_autofree char *tier = g_strstrip (g_strdup (text != NULL ? text : ""));
      g_autoptr(BpwBlueprint) bp = shown_blueprint (self);
      BpwServeLink link;

      if (!bpw_serve_pools_set_tier (&serving.pools, tier))
        {
          bpw_value_row_set_error (row, _("Expected the name of one of the blueprint’s tiers"));
          return;
        }
      /* Checked against the blueprint shown; every candidate's is checked when it serves. */
      if (bp != NULL && !bpw_serve_link_lookup (bp, tier, &link, &error))
        {
          bpw_value_row_set_error (row, error->message);
          return;
        }
    }
  apply (self, GTK_WIDGET (row), &serving);
}

static void
add_count (BpwInspector *self, AdwPreferencesGroup *group, const char *title,
           const char *subtitle, const char *key, PoolsField field)
{
  GtkWidget *row = bpw_value_row_new (title);

  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  g_object_set_data (G_OBJECT (row), FIELD_KEY, GINT_TO_POINTER (field));
  g_signal_connect_object (row, "commit", G_CALLBACK (commit_cb), self, 0);
  _bpw_inspector_add_row (self, BPW_INSPECTOR_SCENARIO, group, row, key);
}

void
_bpw_inspector_build_serving (BpwInspector *self)
{
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  GtkWidget *row = _bpw_inspector_switch_row (_("Disaggregate prefill and decode"));
  GtkWidget *toggle = g_object_get_data (G_OBJECT (row), "bpw-switch");

  adw_preferences_group_set_title (group, _("Disaggregated Serving"));
  adw_preferences_group_set_description (group, _("Prefills and decodes on pools of their "
                                                  "own, each request’s KV cache crossing a "
                                                  "tier between them; the trade curves draw "
                                                  "them beside colocated serving"));
  _bpw_inspector_add_group (self, BPW_INSPECTOR_SCENARIO, group);
  g_object_set_data (G_OBJECT (row), FIELD_KEY, GINT_TO_POINTER (POOLS_ENABLED));
  g_object_set_data (G_OBJECT (toggle), "bpw-row", row);
  g_signal_connect_object (toggle, "notify::active", G_CALLBACK (switch_cb), self, 0);
  _bpw_inspector_add_row (self, BPW_INSPECTOR_SCENARIO, group, row, "serving.pools");
  add_count (self, group, _("Prefill replicas"), _("Replicas that only prefill"),
             "serving.pools.prefill_replicas", POOLS_PREFILL_REPLICAS);
  add_count (self, group, _("Prefill TP"), _("Tensor-parallel devices of a prefill replica"),
             "serving.pools.prefill_tp", POOLS_PREFILL_TP);
  add_count (self, group, _("Prefill PP"), _("Pipeline stages of a prefill replica"),
             "serving.pools.prefill_pp", POOLS_PREFILL_PP);
  add_count (self, group, _("Decode replicas"), _("Replicas that only decode"),
             "serving.pools.decode_replicas", POOLS_DECODE_REPLICAS);
  add_count (self, group, _("Decode TP"), _("Tensor-parallel devices of a decode replica"),
             "serving.pools.decode_tp", POOLS_DECODE_TP);
  add_count (self, group, _("Decode PP"), _("Pipeline stages of a decode replica"),
             "serving.pools.decode_pp", POOLS_DECODE_PP);
  row = bpw_value_row_new (_("KV tier"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("The blueprint tier KV caches cross "
                                                       "from prefill to decode"));
  g_object_set_data (G_OBJECT (row), FIELD_KEY, GINT_TO_POINTER (POOLS_KV_TIER));
  g_signal_connect_object (row, "commit", G_CALLBACK (commit_cb), self, 0);
  _bpw_inspector_add_row (self, BPW_INSPECTOR_SCENARIO, group, row, "serving.pools.kv_tier");
}

gboolean
_bpw_inspector_refresh_serving_row (BpwInspector           *self,
                                    GtkWidget              *row,
                                    const BpwStudyScenario *s)
{
  PoolsField field = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), FIELD_KEY));
  BpwServePools pools = s->serving.pools;
  gint64 *count = pools_count (&pools, field);

  if (field == 0)
    return FALSE;
  if (field == POOLS_ENABLED)
    _bpw_inspector_switch_set (row, pools.enabled);
  else
    {
      g_autofree char *text = count != NULL
                              ? g_strdup_printf ("%" G_GINT64_FORMAT, *count)
                              : g_strdup (pools.kv_tier);

      bpw_value_row_set_value (BPW_VALUE_ROW (row), text);
      /* The pools' values mean nothing while serving is colocated. */
      gtk_widget_set_sensitive (row, pools.enabled);
    }
  return TRUE;
}
