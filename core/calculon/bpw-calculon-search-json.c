/* bpw-calculon-search-json.c — Calculon's execution JSON, the search document, shard merge
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A best entry holds Calculon's execution (its 23 keys, which `calculon llm` and
 * `bpw evaluate --execution` read back) and its 96 statistics with 17 significant digits,
 * so that a merge of shards re-sorts by sample rate exactly as the whole run does.
 */
#define G_LOG_DOMAIN "bpw-calculon-search-json"

#include "config.h"

#include <json-glib/json-glib.h>

#include "bpw-calculon-model-private.h"
#include "bpw-calculon-search-private.h"
#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-json-dump-private.h"
#include "bpw-search-private.h"

#define FORMAT  "bpw-calculon-search"
#define VERSION 1

static const char *
bpw_calculon_datatype_name (BpwDType dtype)
{
  switch (dtype)
    {
    case BPW_DTYPE_FP8:  return "float8";
    case BPW_DTYPE_FP16: return "float16";
    case BPW_DTYPE_BF16: return "bfloat16";
    case BPW_DTYPE_FP32:
    default:             return "float32";
    }
}

static void
bpw_calculon_execution_write (BpwJsonWriter              *w,
                              const char                 *key,
                              const BpwCalculonExecution *e)
{
  static const char * const recompute[] = {
    [BPW_RECOMPUTE_NONE] = "none", [BPW_RECOMPUTE_SELECTIVE] = "attn_only",
    [BPW_RECOMPUTE_FULL] = "full",
  };
  static const char * const comm[] = { "ar", "p2p_rs_ag", "rs_ag" };
  static const char * const overlap[] = { "none", "ring", "pipe" };

  /* Llm.Execution.fields(), in order. */
  bpw_json_writer_begin_object (w, key);
  bpw_json_writer_int (w, "num_procs", e->num_procs);
  bpw_json_writer_int (w, "tensor_par", e->tensor_par);
  bpw_json_writer_int (w, "pipeline_par", e->pipeline_par);
  bpw_json_writer_int (w, "data_par", e->data_par);
  bpw_json_writer_int (w, "tensor_par_net", e->tensor_par_net);
  bpw_json_writer_int (w, "pipeline_par_net", e->pipeline_par_net);
  bpw_json_writer_int (w, "data_par_net", e->data_par_net);
  bpw_json_writer_int (w, "batch_size", e->batch_size);
  bpw_json_writer_int (w, "microbatch_size", e->microbatch_size);
  bpw_json_writer_string (w, "datatype", bpw_calculon_datatype_name (e->datatype));
  bpw_json_writer_bool (w, "fused_activation", e->fused_activation);
  bpw_json_writer_string (w, "attention_type",
                          e->attention_type == BPW_CALCULON_ATTENTION_MULTIQUERY
                          ? "multiquery" : "multihead");
  bpw_json_writer_string (w, "activation_recompute", recompute[e->activation_recompute]);
  bpw_json_writer_int (w, "pipeline_interleaving", e->pipeline_interleaving);
  bpw_json_writer_bool (w, "optimizer_sharding", e->optimizer_sharding);
  bpw_json_writer_string (w, "tensor_par_comm_type", comm[e->tensor_par_comm_type]);
  bpw_json_writer_string (w, "tensor_par_overlap", overlap[e->tensor_par_overlap]);
  bpw_json_writer_bool (w, "seq_par_ag_redo", e->seq_par_ag_redo);
  bpw_json_writer_bool (w, "data_par_overlap", e->data_par_overlap);
  bpw_json_writer_bool (w, "weight_offload", e->weight_offload);
  bpw_json_writer_bool (w, "activations_offload", e->activations_offload);
  bpw_json_writer_bool (w, "optimizer_offload", e->optimizer_offload);
  bpw_json_writer_bool (w, "training", e->training);
  bpw_json_writer_end_object (w);
}

char *
bpw_calculon_execution_to_json (const BpwCalculonExecution *exe)
{
  BpwJsonWriter w;

  g_return_val_if_fail (exe != NULL, NULL);

  bpw_json_writer_init (&w, TRUE);
  bpw_calculon_execution_write (&w, NULL, exe);
  return bpw_json_writer_finish (&w);
}

char *
bpw_calculon_search_report_to_json (const BpwCalculonSearchReport *report,
                                    const BpwCalculonSpace        *space)
{
  g_return_val_if_fail (report != NULL && space != NULL, NULL);

  return _bpw_calculon_search_report_write (report, space, NULL, NULL);
}

char *
_bpw_calculon_search_report_write (const BpwCalculonSearchReport *report,
                                   const BpwCalculonSpace        *space,
                                   BpwCalculonEntryWriteFunc      extra,
                                   gconstpointer                  user_data)
{
  BpwJsonWriter w;

  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_begin_object (&w, NULL);
  bpw_json_writer_string (&w, "format", FORMAT);
  bpw_json_writer_int (&w, "version", VERSION);
  bpw_json_writer_string (&w, "cost_model", "calculon");
  bpw_json_writer_begin_object (&w, "problem");
  bpw_json_writer_string (&w, "fingerprint", report->fingerprint);
  bpw_json_writer_int (&w, "num_procs", space->num_procs);
  bpw_json_writer_int (&w, "max_batch_size", space->max_batch);
  bpw_json_writer_string (&w, "datatype", bpw_calculon_datatype_name (space->datatype));
  bpw_json_writer_end_object (&w);
  bpw_json_writer_int (&w, "space", (gint64) report->space);
  bpw_json_writer_begin_object (&w, "shard");
  bpw_json_writer_int (&w, "index", (gint64) report->shard_index);
  bpw_json_writer_int (&w, "count", (gint64) report->shard_count);
  bpw_json_writer_int (&w, "begin", (gint64) report->begin);
  bpw_json_writer_int (&w, "end", (gint64) report->end);
  bpw_json_writer_end_object (&w);
  bpw_json_writer_int (&w, "top", report->top_n);
  bpw_json_writer_int (&w, "threads", report->threads);
  bpw_json_writer_int (&w, "evaluated", (gint64) report->evaluated);
  bpw_json_writer_int (&w, "legal", (gint64) report->good);
  bpw_json_writer_int (&w, "good", (gint64) report->good);
  bpw_json_writer_int (&w, "bad", (gint64) report->bad);
  bpw_json_writer_double (&w, "seconds", report->seconds);
  bpw_json_writer_double (&w, "plans_per_s", report->seconds > 0
                                             ? (double) report->evaluated / report->seconds
                                             : 0);
  bpw_json_writer_bool (&w, "cancelled", report->cancelled);
  bpw_json_writer_bool (&w, "complete", !report->cancelled && report->begin == 0
                                        && report->end == report->space);
  bpw_json_writer_begin_array (&w, "best");
  for (guint i = 0; i < report->best->len; i++)
    {
      const BpwCalculonSearchResult *r = &g_array_index (report->best, BpwCalculonSearchResult, i);

      bpw_json_writer_begin_object (&w, NULL);
      bpw_json_writer_int (&w, "index", (gint64) r->index);
      bpw_json_writer_double (&w, "sample_rate", r->stats.sample_rate);
      bpw_json_writer_double (&w, "step_time_s", r->stats.total_time);
      bpw_calculon_execution_write (&w, "execution", &r->exe);
      _bpw_calculon_stats_write (&w, "stats", &r->stats);
      if (extra != NULL)
        extra (&w, i, user_data);
      bpw_json_writer_end_object (&w);
    }
  bpw_json_writer_end_array (&w);
  bpw_json_writer_end_object (&w);
  return bpw_json_writer_finish (&w);
}

/* Merge ---------------------------------------------------------------------------------- */

typedef struct
{
  double    sample_rate;
  gint64    index;
  JsonNode *node;   /* borrowed from its document */
} BpwCalculonEntry;

static int
bpw_calculon_entry_compare (gconstpointer pa,
                            gconstpointer pb)
{
  const BpwCalculonEntry *a = pa, *b = pb;

  if (a->sample_rate != b->sample_rate)
    return a->sample_rate > b->sample_rate ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

static gint64
bpw_calculon_member_int (JsonObject *o,
                         const char *key)
{
  return json_object_get_int_member_with_default (o, key, 0);
}

static gboolean
bpw_calculon_merge_fail (GError    **error,
                         const char *name,
                         const char *message)
{
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "%s: %s", name, message);
  return FALSE;
}

/* Reads one document into @entries and @ranges; FALSE with @error located at @name. */
static gboolean
bpw_calculon_merge_read (JsonObject  *doc,
                         const char  *name,
                         const char  *fingerprint,
                         GArray      *entries,
                         GArray      *ranges,
                         GError     **error)
{
  JsonObject *shard;
  JsonArray *best;
  BpwSearchRange r;

  if (g_strcmp0 (json_object_get_string_member_with_default (
                   json_object_get_object_member (doc, "problem"), "fingerprint", ""),
                 fingerprint) != 0)
    return bpw_calculon_merge_fail (error, name, _("problem.fingerprint: a shard of another "
                                    "search space (model, system, processors, batch or "
                                    "options differ)"));
  shard = json_object_get_object_member (doc, "shard");
  r.begin = bpw_calculon_member_int (shard, "begin");
  r.end = bpw_calculon_member_int (shard, "end");
  g_array_append_val (ranges, r);

  best = json_object_has_member (doc, "best") ? json_object_get_array_member (doc, "best")
                                              : NULL;
  for (guint i = 0; best != NULL && i < json_array_get_length (best); i++)
    {
      JsonNode *node = json_array_get_element (best, i);
      JsonObject *o = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      BpwCalculonEntry e;

      if (o == NULL || !json_object_has_member (o, "sample_rate")
          || !json_object_has_member (o, "index"))
        return bpw_calculon_merge_fail (error, name, _("best: expected entries with "
                                        "sample_rate and index"));
      e.sample_rate = json_object_get_double_member (o, "sample_rate");
      e.index = json_object_get_int_member (o, "index");
      e.node = node;
      g_array_append_val (entries, e);
    }
  return TRUE;
}

char *
bpw_calculon_search_merge_json (const char * const *texts,
                                const char * const *names,
                                guint               n,
                                GError            **error)
{
  g_autoptr(GPtrArray) docs = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GArray) entries = g_array_new (FALSE, FALSE, sizeof (BpwCalculonEntry));
  g_autoptr(GArray) ranges = g_array_new (FALSE, FALSE, sizeof (BpwSearchRange));
  g_autoptr(JsonNode) out = NULL;
  JsonObject *first = NULL, *root, *shard;
  JsonArray *best;
  gint64 space = 0, top = G_MAXINT64, covered = 0, evaluated = 0, good = 0, bad = 0;
  gint64 threads = 0;
  gboolean cancelled = FALSE;
  double seconds = 0;

  if (n == 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("search-merge: no documents"));
      return NULL;
    }
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) local = NULL;
      JsonNode *node = json_from_string (texts[i], &local);
      JsonObject *doc;

      if (node == NULL)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("%s: not JSON: %s"), names[i],
                       local != NULL ? local->message : "empty");
          return NULL;
        }
      g_ptr_array_add (docs, node);
      doc = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      if (doc == NULL
          || g_strcmp0 (json_object_get_string_member_with_default (doc, "format", ""),
                        FORMAT) != 0
          || !json_object_has_member (doc, "problem") || !json_object_has_member (doc, "shard"))
        {
          bpw_calculon_merge_fail (error, names[i], _("expected the output of `bpw search "
                                   "--cost-model calculon --json` (format "
                                   "\"bpw-calculon-search\")"));
          return NULL;
        }
      if (first == NULL)
        first = doc;
      if (!bpw_calculon_merge_read (doc, names[i],
                                    json_object_get_string_member_with_default (
                                      json_object_get_object_member (first, "problem"),
                                      "fingerprint", "?"),
                                    entries, ranges, error))
        return NULL;
      space = bpw_calculon_member_int (doc, "space");
      top = MIN (top, bpw_calculon_member_int (doc, "top"));
      evaluated += bpw_calculon_member_int (doc, "evaluated");
      good += bpw_calculon_member_int (doc, "good");
      bad += bpw_calculon_member_int (doc, "bad");
      threads += bpw_calculon_member_int (doc, "threads");
      seconds += json_object_get_double_member_with_default (doc, "seconds", 0);
      cancelled |= json_object_get_boolean_member_with_default (doc, "cancelled", FALSE);
    }

  if (!_bpw_search_ranges_cover (ranges, &covered, error))
    return NULL;

  /* Each shard's list is its own top n in the one total order, so the union's first n
   * are the whole's. */
  g_array_sort (entries, bpw_calculon_entry_compare);
  out = json_node_copy (g_ptr_array_index (docs, 0));
  root = json_node_get_object (out);
  shard = json_object_new ();
  json_object_set_int_member (shard, "merged", n);
  json_object_set_int_member (shard, "begin", g_array_index (ranges, BpwSearchRange, 0).begin);
  json_object_set_int_member (shard, "end",
                              g_array_index (ranges, BpwSearchRange, ranges->len - 1).end);
  json_object_set_object_member (root, "shard", shard);
  json_object_set_int_member (root, "top", top);
  json_object_set_int_member (root, "threads", threads);
  json_object_set_int_member (root, "evaluated", evaluated);
  json_object_set_int_member (root, "legal", good);
  json_object_set_int_member (root, "good", good);
  json_object_set_int_member (root, "bad", bad);
  json_object_set_double_member (root, "seconds", seconds);
  json_object_set_double_member (root, "plans_per_s", seconds > 0 ? evaluated / seconds : 0);
  json_object_set_boolean_member (root, "cancelled", cancelled);
  json_object_set_boolean_member (root, "complete", !cancelled && covered == space);
  best = json_array_new ();
  for (guint i = 0; i < entries->len && (gint64) i < top; i++)
    json_array_add_element (best,
                            json_node_copy (g_array_index (entries, BpwCalculonEntry, i).node));
  json_object_set_array_member (root, "best", best);
  return _bpw_json_dump (out);
}
