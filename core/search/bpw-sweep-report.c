/* bpw-sweep-report.c — the `bpw search --sweep-param` JSON document and text table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-sweep-report"

#include "config.h"

#include "bpw-sweep-private.h"

#include <math.h>

#include "bpw-json-dump-private.h"
#include "bpw-search-private.h"

static void
set_or_null (JsonObject *o, const char *key, double v)
{
  if (isfinite (v))
    json_object_set_double_member (o, key, v);
  else
    json_object_set_null_member (o, key);
}

static JsonNode *
best_node (const BpwSearchReport *r)
{
  if (r == NULL || r->best->len == 0)
    return json_node_new (JSON_NODE_NULL);
  return _bpw_search_result_to_node (&g_array_index (r->best, BpwSearchResult, 0));
}

char *
bpw_sweep_to_json (BpwSweep *sweep)
{
  g_autoptr(JsonNode) root_node = NULL;
  JsonObject *root = json_object_new ();
  JsonObject *problem = json_object_new ();
  JsonArray *params = json_array_new (), *points = json_array_new ();

  json_object_set_string_member (root, "format", "bpw-sweep");
  json_object_set_int_member (root, "version", 1);
  json_object_set_string_member (problem, "model", sweep->spec.name);
  json_object_set_string_member (problem, "blueprint", sweep->blueprint->name);
  json_object_set_int_member (problem, "devices", sweep->devices);
  json_object_set_string_member (problem, "phase",
                                 bpw_workload_phase_to_string (sweep->scenario.phase));
  json_object_set_int_member (problem, "global_batch", sweep->scenario.global_batch);
  json_object_set_int_member (problem, "seq", sweep->scenario.seq);
  json_object_set_object_member (root, "problem", problem);
  for (guint i = 0; i < sweep->axes->len; i++)
    {
      const Axis *a = &g_array_index (sweep->axes, Axis, i);
      JsonObject *o = json_object_new ();
      JsonArray *v = json_array_new ();

      json_object_set_string_member (o, "name", a->name);
      for (guint j = 0; j < a->values->len; j++)
        json_array_add_double_element (v, g_array_index (a->values, double, j));
      json_object_set_array_member (o, "values", v);
      json_array_add_object_element (params, o);
    }
  json_object_set_array_member (root, "parameters", params);
  json_object_set_member (root, "baseline", best_node (sweep->baseline));
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const BpwSweepPoint *p = &g_array_index (sweep->points, BpwSweepPoint, i);
      JsonObject *o = json_object_new (), *values = json_object_new (), *gain = json_object_new ();
      double g[3];

      for (guint j = 0; j < sweep->axes->len; j++)
        json_object_set_double_member (values, g_array_index (sweep->axes, Axis, j).name,
                                       p->values[j]);
      json_object_set_object_member (o, "parameters", values);
      json_object_set_int_member (o, "devices", p->devices);
      json_object_set_boolean_member (o, "searched", p->searched);
      if (p->report != NULL)
        {
          json_object_set_int_member (o, "evaluated", (gint64) p->report->evaluated);
          json_object_set_int_member (o, "space", (gint64) p->report->space);
          json_object_set_double_member (o, "seconds", p->report->seconds);
        }
      json_object_set_member (o, "best", best_node (p->report));
      json_object_set_boolean_member (o, "baseline_mapping_applies", p->baseline_applies);
      if (p->baseline_applies)
        {
          json_object_set_boolean_member (o, "baseline_mapping_legal", p->baseline_legal);
          json_object_set_double_member (o, "baseline_mapping_step_time_s",
                                         p->baseline.step_time_s);
        }
      _bpw_sweep_gains (sweep, p, g);
      set_or_null (gain, "total", g[0]);
      set_or_null (gain, "architecture", g[1]);
      set_or_null (gain, "mapping", g[2]);
      json_object_set_object_member (o, "gain", gain);
      if (p->blueprint->cost.set)
        json_object_set_double_member (o, "cost", _bpw_sweep_point_cost (p));
      json_object_set_boolean_member (o, "pareto", p->pareto);
      json_array_add_object_element (points, o);
    }
  json_object_set_array_member (root, "points", points);
  root_node = json_node_init_object (json_node_alloc (), root);
  json_object_unref (root);
  return _bpw_json_dump (root_node);
}

char *
bpw_sweep_to_text (BpwSweep *sweep)
{
  GString *out = g_string_new (NULL);
  const BpwSearchReport *b = sweep->baseline;

  g_string_append_printf (out, "Sweep: %s on %" G_GINT64_FORMAT " x %s\n", sweep->spec.name,
                          sweep->devices, sweep->blueprint->name);
  if (b != NULL && b->best->len > 0)
    g_string_append_printf (out, "  baseline best: %.4f s (analytic), %s\n",
                            g_array_index (b->best, BpwSearchResult, 0).estimate.step_time_s,
                            g_array_index (b->best, BpwSearchResult, 0).mapping.name);
  else
    g_string_append (out, "  baseline: no legal plan\n");
  g_string_append (out, "\n  point");
  for (guint j = 0; j < sweep->axes->len; j++)
    g_string_append_printf (out, "  %14s", g_array_index (sweep->axes, Axis, j).name);
  g_string_append (out, "   best (s)  baseline map (s)  gain  = arch  x mapping  pareto  "
                        "TP  PP   DP\n");
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const BpwSweepPoint *p = &g_array_index (sweep->points, BpwSweepPoint, i);
      double g[3];

      _bpw_sweep_gains (sweep, p, g);
      g_string_append_printf (out, "  %5u", i);
      for (guint j = 0; j < sweep->axes->len; j++)
        g_string_append_printf (out, "  %14.4g", p->values[j]);
      if (_bpw_sweep_has_best (p))
        {
          const BpwSearchResult *r = &g_array_index (p->report->best, BpwSearchResult, 0);

          g_string_append_printf (out, "  %9.4f", r->estimate.step_time_s);
          if (p->baseline_applies && p->baseline_legal)
            g_string_append_printf (out, "  %16.4f", p->baseline.step_time_s);
          else
            g_string_append_printf (out, "  %16s", p->baseline_applies ? "illegal" : "n/a");
          g_string_append_printf (out, "  %5.3f = %5.3f x %5.3f   %-6s %3" G_GINT64_FORMAT
                                  " %3" G_GINT64_FORMAT " %4" G_GINT64_FORMAT "\n", g[0], g[1],
                                  g[2], p->pareto ? "yes" : "no", r->mapping.parallel.tp,
                                  r->mapping.parallel.pp, r->mapping.parallel.dp);
        }
      else
        g_string_append (out, "  no legal plan\n");
    }
  g_string_append (out, "\ngain = baseline step / best step; arch: the baseline's best "
                        "mapping on the changed blueprint;\nmapping: re-searched best over "
                        "that (NaN where the baseline mapping cannot run).\n");
  return g_string_free (out, FALSE);
}
