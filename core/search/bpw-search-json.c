/* bpw-search-json.c — the `bpw search --json` document and the merge of shards
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each entry of "best" carries its global index and the estimated (analytic) step time
 * that ranked it (the shortest decimal that reads back to the same double, so that a merge
 * re-sorts exactly as the whole run did), its mapping as a bpw-mapping object, and the `bpw evaluate --json` keys of its
 * simulated plan (of the bound plan without simulation, of the estimate without either).
 */
#define G_LOG_DOMAIN "bpw-search-json"

#include "config.h"

#include "bpw-i18n.h"
#include "bpw-search.h"
#include "bpw-search-private.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-json-dump-private.h"

#define FORMAT  "bpw-search"
#define VERSION 1

static void
set_number_or_null (JsonObject *o, const char *key, double value)
{
  if (isfinite (value))
    json_object_set_double_member (o, key, value);
  else
    json_object_set_null_member (o, key);
}

/* Members of the JSON object @text, appended to @into. */
static void
merge_members (JsonObject *into, const char *text)
{
  g_autoptr(JsonNode) node = json_from_string (text, NULL);
  JsonObject *o;
  g_autoptr(GList) members = NULL;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return;
  o = json_node_get_object (node);
  members = json_object_get_members (o);
  for (GList *l = members; l != NULL; l = l->next)
    json_object_set_member (into, l->data, json_node_copy (json_object_get_member (o, l->data)));
}

JsonNode *
_bpw_search_result_to_node (const BpwSearchResult *r)
{
  JsonObject *o = json_object_new ();
  JsonNode *node = json_node_init_object (json_node_alloc (), o);
  g_autofree char *mapping = bpw_mapping_to_json (&r->mapping);
  g_autofree char *eval = r->simulation_json != NULL
                          ? g_strdup (r->simulation_json)
                          : bpw_evaluation_to_json (&r->evaluation, r->plan, r->reasons);
  JsonNode *m = json_from_string (mapping, NULL);

  json_object_set_int_member (o, "index", (gint64) r->index);
  json_object_set_int_member (o, "algorithm_class", (gint64) r->algorithm_class);
  json_object_set_int_member (o, "equivalent_variants", (gint64) r->equivalent_variants);
  json_object_set_double_member (o, "estimated_step_time_s", r->estimate.step_time_s);
  set_number_or_null (o, "estimated_energy_j", r->estimate.energy_j);
  json_object_set_double_member (o, "estimated_peak_bytes", r->estimate.peak_bytes);
  json_object_set_boolean_member (o, "reevaluated", r->plan != NULL);
  json_object_set_boolean_member (o, "simulated", r->simulated);
  if (m != NULL)
    json_object_set_member (o, "mapping", m);
  merge_members (o, eval);
  json_object_unref (o);
  return node;
}

static JsonArray *
results_to_array (GArray *results)
{
  JsonArray *a = json_array_new ();

  for (guint i = 0; results != NULL && i < results->len; i++)
    json_array_add_element (a, _bpw_search_result_to_node (&g_array_index (results,
                                                                          BpwSearchResult, i)));
  return a;
}

/* The document's text, through the house's writer; takes @root. */
static char *
generate (JsonObject *root)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), root);

  json_object_unref (root);
  return _bpw_json_dump (node);
}

static void
set_counts (JsonObject *o, const guint64 c[7])
{
  JsonObject *pruned = json_object_new ();

  json_object_set_int_member (o, "evaluated", (gint64) c[0]);
  json_object_set_int_member (o, "estimated", (gint64) c[1]);
  json_object_set_int_member (o, "legal", (gint64) c[2]);
  json_object_set_int_member (o, "failed", (gint64) c[3]);
  json_object_set_int_member (pruned, "illegal", (gint64) c[4]);
  json_object_set_int_member (pruned, "bound", (gint64) c[5]);
  json_object_set_int_member (pruned, "dominated", (gint64) c[6]);
  json_object_set_object_member (o, "pruned", pruned);
}

char *
bpw_search_report_to_json (const BpwSearchReport *report,
                           const BpwSearchSpace  *space)
{
  JsonObject *root = json_object_new ();
  JsonObject *problem = json_object_new ();
  JsonObject *shard = json_object_new ();
  const guint64 counts[7] = {
    report->evaluated, report->estimated, report->legal, report->failed,
    report->pruned_illegal, report->pruned_bound, report->pruned_dominated,
  };

  json_object_set_string_member (root, "format", FORMAT);
  json_object_set_int_member (root, "version", VERSION);
  json_object_set_string_member (problem, "model", space->spec.name);
  json_object_set_string_member (problem, "blueprint", space->blueprint->name);
  json_object_set_int_member (problem, "devices", space->devices);
  json_object_set_string_member (problem, "phase",
                                 bpw_workload_phase_to_string (space->scenario.phase));
  json_object_set_int_member (problem, "global_batch", space->scenario.global_batch);
  json_object_set_int_member (problem, "seq", space->scenario.seq);
  json_object_set_int_member (problem, "context", space->scenario.context);
  json_object_set_string_member (problem, "dtype", bpw_dtype_to_string (space->scenario.dtype));
  json_object_set_string_member (problem, "fingerprint", report->fingerprint);
  json_object_set_string_member (problem, "space", space->rules->name);
  json_object_set_object_member (root, "problem", problem);
  json_object_set_int_member (root, "space", (gint64) report->space);
  json_object_set_int_member (shard, "index", (gint64) report->shard_index);
  json_object_set_int_member (shard, "count", (gint64) report->shard_count);
  json_object_set_int_member (shard, "begin", (gint64) report->begin);
  json_object_set_int_member (shard, "end", (gint64) report->end);
  json_object_set_object_member (root, "shard", shard);
  json_object_set_int_member (root, "top", report->top_k);
  json_object_set_int_member (root, "threads", report->threads);
  set_counts (root, counts);
  json_object_set_int_member (root, "templates", (gint64) report->templates);
  json_object_set_double_member (root, "seconds", report->seconds);
  json_object_set_double_member (root, "plans_per_s", report->seconds > 0
                                 ? (double) report->evaluated / report->seconds : 0.0);
  json_object_set_boolean_member (root, "cancelled", report->cancelled);
  json_object_set_boolean_member (root, "complete", !report->cancelled && report->begin == 0 &&
                                  report->end == report->space);
  json_object_set_array_member (root, "best", results_to_array (report->best));
  if (report->pareto_kept)
    json_object_set_array_member (root, "pareto", results_to_array (report->pareto));
  return generate (root);
}

/* ---- merging shards ---- */

typedef struct
{
  BpwSearchKey  key;   /* first: sorted and folded by the search's own functions */
  JsonNode     *node;  /* borrowed from its document */
} Entry;

/* The entry's plan (its lowest-index member's) with the count of its folded result. The
 * copy shares the object of the document, which the merge drops afterwards. */
static JsonNode *
entry_to_node (const Entry *e)
{
  JsonNode *node = json_node_copy (e->node);
  JsonObject *o = json_node_get_object (node);

  json_object_set_int_member (o, "equivalent_variants", (gint64) e->key.variants);
  return node;
}

static gboolean
fail (GError **error, const char *name, const char *what)
{
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "%s: %s", name, what);
  return FALSE;
}

static gboolean
read_entries (JsonObject *doc, const char *key, const char *name, GArray *out, GError **error)
{
  JsonArray *a;

  if (!json_object_has_member (doc, key))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (json_object_get_member (doc, key)))
    return fail (error, name, _("expected an array of plans"));
  a = json_object_get_array_member (doc, key);
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *n = json_array_get_element (a, i);
      JsonObject *o = JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
      JsonNode *e, *p;
      Entry entry;

      if (o == NULL || !json_object_has_member (o, "index") ||
          !json_object_has_member (o, "estimated_step_time_s"))
        return fail (error, name, _("a plan lacks its index or estimated_step_time_s"));
      e = json_object_get_member (o, "estimated_energy_j");
      p = json_object_get_member (o, "estimated_peak_bytes");
      /* As the search keys its hits (the written doubles read back exactly). */
      entry.key.time = json_object_get_double_member (o, "estimated_step_time_s");
      entry.key.energy = e != NULL && JSON_NODE_HOLDS_VALUE (e) ? json_node_get_double (e)
                                                                : INFINITY;
      entry.key.peak = p != NULL && JSON_NODE_HOLDS_VALUE (p) ? json_node_get_double (p)
                                                              : INFINITY;
      entry.key.index = (guint64) json_object_get_int_member (o, "index");
      /* Documents of before the folding: every plan its own result. */
      entry.key.klass = (guint64) json_object_get_int_member_with_default (
        o, "algorithm_class", (gint64) entry.key.index);
      entry.key.variants = (guint64) json_object_get_int_member_with_default (
        o, "equivalent_variants", 1);
      entry.node = n;
      g_array_append_val (out, entry);
    }
  return TRUE;
}

static gint64
member_int (JsonObject *o, const char *key)
{
  return json_object_get_int_member_with_default (o, key, 0);
}

static int
range_compare (gconstpointer pa, gconstpointer pb)
{
  const BpwSearchRange *a = pa, *b = pb;

  return (a->begin > b->begin) - (a->begin < b->begin);
}

gboolean
_bpw_search_ranges_cover (GArray  *ranges,
                          gint64  *covered,
                          GError **error)
{
  *covered = 0;
  g_array_sort (ranges, range_compare);
  for (guint i = 0; i < ranges->len; i++)
    {
      const BpwSearchRange *r = &g_array_index (ranges, BpwSearchRange, i);

      if (i > 0 && r->begin < g_array_index (ranges, BpwSearchRange, i - 1).end)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("search-merge: shards "
                       "overlap at plan %" PRId64 "; give each shard once"), r->begin);
          return FALSE;
        }
      *covered += r->end - r->begin;
    }
  return TRUE;
}

char *
bpw_search_merge_json (const char * const *texts,
                       const char * const *names,
                       guint               n,
                       GError            **error)
{
  g_autoptr(GPtrArray) docs = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GArray) best = g_array_new (FALSE, FALSE, sizeof (Entry));
  g_autoptr(GArray) front = g_array_new (FALSE, FALSE, sizeof (Entry));
  g_autoptr(GArray) ranges = g_array_new (FALSE, FALSE, sizeof (BpwSearchRange));
  JsonObject *first = NULL, *root, *shard;
  JsonArray *best_out, *front_out = NULL;
  guint64 counts[7] = { 0 }, templates = 0, threads = 0;
  gint64 space = 0, top = G_MAXINT64, covered = 0;
  gboolean cancelled = FALSE, pareto = FALSE;
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
      JsonObject *doc, *pruned, *sh;
      BpwSearchRange r;

      if (node == NULL)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("%s: not JSON: %s"), names[i],
                       local != NULL ? local->message : "empty");
          return NULL;
        }
      g_ptr_array_add (docs, node);
      doc = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      if (doc == NULL || g_strcmp0 (json_object_get_string_member_with_default (doc, "format", ""),
                                    FORMAT) != 0 ||
          !json_object_has_member (doc, "problem") || !json_object_has_member (doc, "shard"))
        {
          fail (error, names[i], _("expected the output of `bpw search --json` (format "
                "\"bpw-search\")"));
          return NULL;
        }
      if (first == NULL)
        first = doc;
      else if (g_strcmp0 (json_object_get_string_member_with_default (
                 json_object_get_object_member (doc, "problem"), "fingerprint", ""),
               json_object_get_string_member_with_default (
                 json_object_get_object_member (first, "problem"), "fingerprint", "?")) != 0)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("%s: problem.fingerprint: "
                       "a shard of another search space than %s (model, blueprint, devices, "
                       "scenario or choices differ)"), names[i], names[0]);
          return NULL;
        }
      sh = json_object_get_object_member (doc, "shard");
      r.begin = member_int (sh, "begin");
      r.end = member_int (sh, "end");
      g_array_append_val (ranges, r);
      space = member_int (doc, "space");
      top = MIN (top, member_int (doc, "top"));
      pruned = json_object_has_member (doc, "pruned")
               ? json_object_get_object_member (doc, "pruned") : NULL;
      counts[0] += member_int (doc, "evaluated");
      counts[1] += member_int (doc, "estimated");
      counts[2] += member_int (doc, "legal");
      counts[3] += member_int (doc, "failed");
      if (pruned != NULL)
        {
          counts[4] += member_int (pruned, "illegal");
          counts[5] += member_int (pruned, "bound");
          counts[6] += member_int (pruned, "dominated");
        }
      templates += member_int (doc, "templates");
      threads += member_int (doc, "threads");
      seconds += json_object_get_double_member_with_default (doc, "seconds", 0);
      cancelled |= json_object_get_boolean_member_with_default (doc, "cancelled", FALSE);
      pareto |= json_object_has_member (doc, "pareto");
      if (!read_entries (doc, "best", names[i], best, error) ||
          !read_entries (doc, "pareto", names[i], front, error))
        return NULL;
    }

  if (!_bpw_search_ranges_cover (ranges, &covered, error))
    return NULL;

  /* Best: every shard's list is its own top K of results, and the order of results is
   * the same in every shard, so the union's first K, folded, are the whole's. */
  g_array_sort (best, _bpw_search_key_compare);
  _bpw_search_fold_sorted (best);
  best_out = json_array_new ();
  for (guint i = 0; i < best->len && (gint64) i < top; i++)
    json_array_add_element (best_out, entry_to_node (&g_array_index (best, Entry, i)));
  if (pareto)
    {
      g_array_sort (front, _bpw_search_key_compare);
      _bpw_search_fold_sorted (front);
      front_out = json_array_new ();
      for (guint i = 0; i < front->len; i++)
        {
          const Entry *e = &g_array_index (front, Entry, i);
          gboolean dominated = FALSE;

          for (guint j = 0; j < front->len && !dominated; j++)
            dominated = j != i && _bpw_search_key_dominates (&g_array_index (front, Entry, j).key,
                                                             &e->key);
          if (!dominated)
            json_array_add_element (front_out, entry_to_node (e));
        }
    }

  root = json_object_new ();
  json_object_set_string_member (root, "format", FORMAT);
  json_object_set_int_member (root, "version", VERSION);
  json_object_set_member (root, "problem",
                          json_node_copy (json_object_get_member (first, "problem")));
  json_object_set_int_member (root, "space", space);
  shard = json_object_new ();
  json_object_set_int_member (shard, "index", 0);
  json_object_set_int_member (shard, "count", 1);
  json_object_set_int_member (shard, "begin", g_array_index (ranges, BpwSearchRange, 0).begin);
  json_object_set_int_member (shard, "end", g_array_index (ranges, BpwSearchRange, ranges->len - 1).end);
  json_object_set_int_member (shard, "merged", n);
  json_object_set_object_member (root, "shard", shard);
  json_object_set_int_member (root, "top", top);
  json_object_set_int_member (root, "threads", (gint64) threads);
  set_counts (root, counts);
  json_object_set_int_member (root, "templates", (gint64) templates);
  json_object_set_double_member (root, "seconds", seconds);
  json_object_set_double_member (root, "plans_per_s",
                                 seconds > 0 ? (double) counts[0] / seconds : 0.0);
  json_object_set_boolean_member (root, "cancelled", cancelled);
  json_object_set_boolean_member (root, "complete", !cancelled && covered == space &&
                                  (gint64) counts[0] == space);
  json_object_set_array_member (root, "best", best_out);
  if (front_out != NULL)
    json_object_set_array_member (root, "pareto", front_out);
  return generate (root);
}
