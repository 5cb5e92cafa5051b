/* bpw-study-pools.c — a scenario's disaggregated serving pools in a study file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-study"

#include "config.h"

#include "bpw-study-pools.h"

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-study-draft.h"
#include "bpw-study-private.h"

static const char * const pools_keys[] = {
  "prefill_replicas", "prefill_tp", "prefill_pp", "decode_replicas", "decode_tp",
  "decode_pp", "kv_tier", NULL
};

gboolean
bpw_study_read_pools (BpwJsonDoc     *doc,
                      JsonObject     *serving,
                      const char     *path,
                      BpwServePools  *p,
                      GPtrArray      *warnings,
                      GError        **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *ppath = g_strdup_printf ("%s.pools", path);
  JsonObject *o = bpw_json_doc_get_object (doc, serving, path, "pools", FALSE, &local_error);
  BpwServePools read = { .enabled = TRUE, .prefill_tp = 1, .prefill_pp = 1,
                         .decode_tp = 1, .decode_pp = 1 };
  const char *tier = NULL;

  if (o == NULL)
    {
      if (local_error == NULL)
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  bpw_json_doc_check_unknown (doc, o, ppath, pools_keys, warnings);
  if (!bpw_json_doc_get_int (doc, o, ppath, "prefill_replicas", TRUE, 1,
                             BPW_SERVE_MAX_POOL_REPLICAS, &read.prefill_replicas, error)
      || !bpw_json_doc_get_int (doc, o, ppath, "prefill_tp", FALSE, 1,
                                BPW_SERVE_MAX_POOL_DEGREE, &read.prefill_tp, error)
      || !bpw_json_doc_get_int (doc, o, ppath, "prefill_pp", FALSE, 1,
                                BPW_SERVE_MAX_POOL_DEGREE, &read.prefill_pp, error)
      || !bpw_json_doc_get_int (doc, o, ppath, "decode_replicas", TRUE, 1,
                                BPW_SERVE_MAX_POOL_REPLICAS, &read.decode_replicas, error)
      || !bpw_json_doc_get_int (doc, o, ppath, "decode_tp", FALSE, 1,
                                BPW_SERVE_MAX_POOL_DEGREE, &read.decode_tp, error)
      || !bpw_json_doc_get_int (doc, o, ppath, "decode_pp", FALSE, 1,
                                BPW_SERVE_MAX_POOL_DEGREE, &read.decode_pp, error)
      || !bpw_json_doc_get_string (doc, o, ppath, "kv_tier", TRUE, &tier, error))
    return FALSE;
  if (!bpw_serve_pools_set_tier (&read, tier))
    {
      g_autofree char *tpath = g_strdup_printf ("%s.kv_tier", ppath);

      return bpw_json_doc_error (doc, json_object_get_member (o, "kv_tier"), tpath, error,
                                 _("expected a tier name of 1 to %d bytes"),
                                 BPW_SERVE_TIER_NAME_SIZE - 1);
    }
  *p = read;
  return TRUE;
}

void
bpw_study_write_pools (JsonBuilder         *b,
                       const BpwServePools *p)
{
  const struct { const char *key; gint64 value; } ints[] = {
    { "prefill_replicas", p->prefill_replicas }, { "prefill_tp", p->prefill_tp },
    { "prefill_pp", p->prefill_pp }, { "decode_replicas", p->decode_replicas },
    { "decode_tp", p->decode_tp }, { "decode_pp", p->decode_pp },
  };

  if (!p->enabled)
    return;
  json_builder_set_member_name (b, "pools");
  json_builder_begin_object (b);
  for (guint i = 0; i < G_N_ELEMENTS (ints); i++)
    {
      json_builder_set_member_name (b, ints[i].key);
      json_builder_add_int_value (b, ints[i].value);
    }
  json_builder_set_member_name (b, "kv_tier");
  json_builder_add_string_value (b, p->kv_tier);
  json_builder_end_object (b);
}

gboolean
bpw_study_set_scenario_serving (BpwStudy               *self,
                                guint                   index,
                                const BpwServeSettings *serving,
                                GError                **error)
{
  BpwStudyScenario *sc;
  const char *invalid;

  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (serving != NULL, FALSE);
  g_return_val_if_fail (index < self->scenarios->len, FALSE);

  sc = &g_array_index (self->scenarios, BpwStudyScenario, index);
  if (serving->pools.enabled && (invalid = bpw_serve_pools_invalid_field (&serving->pools)))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("scenario “%s”: serving.pools.%s is out of range (replicas from 1 to "
                   "%d, TP and PP from 1 to %d, a tier named)"), sc->name, invalid,
                   BPW_SERVE_MAX_POOL_REPLICAS, BPW_SERVE_MAX_POOL_DEGREE);
      return FALSE;
    }
  if (!bpw_study_check_draft (self, &bpw_study_get_workload (self, sc->workload)->spec,
                              serving, error))
    {
      g_prefix_error (error, _("scenario “%s”: "), sc->name);
      return FALSE;
    }
  sc->serving = *serving;
  return TRUE;
}
