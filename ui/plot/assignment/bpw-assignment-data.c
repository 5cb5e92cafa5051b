/* bpw-assignment-data.c — which engine or link each operation of a stage runs on
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-assignment-data"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <string.h>

#include "bpw-assignment-data.h"
#include "bpw-error.h"
#include "bpw-evaluation.h"
#include "bpw-mapping-sheet.h"

BpwAssignmentData *
bpw_assignment_data_new (const char *title,
                         const char *label)
{
  BpwAssignmentData *data = g_new0 (BpwAssignmentData, 1);

  data->title = g_strdup (title != NULL ? title : _("Assignment"));
  data->label = g_strdup (label != NULL ? label : "");
  data->n_stages = 1;
  data->lanes = g_array_new (FALSE, FALSE, sizeof (BpwAssignmentLane));
  data->items = g_array_new (FALSE, FALSE, sizeof (BpwAssignmentItem));
  data->groups = g_array_new (FALSE, FALSE, sizeof (BpwAssignmentGroup));
  data->strings = g_string_chunk_new (4096);
  return data;
}

void
bpw_assignment_data_free (BpwAssignmentData *data)
{
  if (data == NULL)
    return;
  g_free (data->title);
  g_free (data->label);
  g_array_unref (data->lanes);
  g_array_unref (data->items);
  g_array_unref (data->groups);
  g_string_chunk_free (data->strings);
  g_free (data);
}

static const char *
intern (BpwAssignmentData *data, const char *str)
{
  return g_string_chunk_insert_const (data->strings, str != NULL ? str : "");
}

guint
bpw_assignment_data_add_lane (BpwAssignmentData *data,
                              BpwLaneKind        kind,
                              const char        *name,
                              gint               tier)
{
  BpwAssignmentLane lane = { .kind = kind, .name = intern (data, name), .tier = tier };

  g_array_append_val (data->lanes, lane);
  return data->lanes->len - 1;
}

void
bpw_assignment_data_add_item (BpwAssignmentData       *data,
                              const BpwAssignmentItem *item)
{
  BpwAssignmentItem it = *item;

  g_return_if_fail (item->lane < data->lanes->len);

  it.name = intern (data, it.name);
  it.kind = intern (data, it.kind);
  it.dtype = intern (data, it.dtype);
  it.fusion = intern (data, it.fusion);
  it.merged = MAX (it.merged, 1u);
  g_array_append_val (data->items, it);
}

typedef struct
{
  guint  phase;
  guint  group_rank;  /* first appearance of its layer type within the phase */
  guint  index;       /* insertion order: stable */
} SortKey;

static gint
compare_keys (gconstpointer a, gconstpointer b)
{
  const SortKey *x = a, *y = b;

  if (x->phase != y->phase)
    return x->phase < y->phase ? -1 : 1;
  if (x->group_rank != y->group_rank)
    return x->group_rank < y->group_rank ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

void
bpw_assignment_data_finish (BpwAssignmentData *data)
{
  guint n = data->items->len;
  g_autofree SortKey *keys = g_new (SortKey, MAX (n, 1u));
  g_autoptr(GArray) sorted = g_array_sized_new (FALSE, FALSE, sizeof (BpwAssignmentItem), n);
  guint first_seen[BPW_N_PHASES][BPW_N_LAYER_TYPES];
  guint seen = 0;
  double t = 0;

  memset (first_seen, 0xff, sizeof first_seen);
  for (guint i = 0; i < n; i++)
    {
      const BpwAssignmentItem *it = &g_array_index (data->items, BpwAssignmentItem, i);
      guint p = MIN (it->phase, BPW_N_PHASES - 1), l = MIN (it->layer_type, BPW_N_LAYER_TYPES - 1);

      if (first_seen[p][l] == G_MAXUINT)
        first_seen[p][l] = seen++;
      keys[i] = (SortKey) { .phase = p, .group_rank = first_seen[p][l], .index = i };
    }
  qsort (keys, n, sizeof *keys, compare_keys);
  for (guint i = 0; i < n; i++)
    g_array_append_val (sorted, g_array_index (data->items, BpwAssignmentItem, keys[i].index));

  g_array_set_size (data->groups, 0);
  for (guint i = 0; i < data->lanes->len; i++)
    g_array_index (data->lanes, BpwAssignmentLane, i).busy_s = 0;
  for (guint i = 0; i < n; i++)
    {
      BpwAssignmentItem *it = &g_array_index (sorted, BpwAssignmentItem, i);
      BpwAssignmentGroup *g = data->groups->len > 0
                                ? &g_array_index (data->groups, BpwAssignmentGroup,
                                                  data->groups->len - 1)
                                : NULL;

      if (g == NULL || g->phase != it->phase || g->layer_type != it->layer_type)
        {
          BpwAssignmentGroup fresh = { .phase = it->phase, .layer_type = it->layer_type,
                                       .first = i, .start_s = t };

          g_array_append_val (data->groups, fresh);
          g = &g_array_index (data->groups, BpwAssignmentGroup, data->groups->len - 1);
        }
      it->group = data->groups->len - 1;
      it->start_s = t;
      t += it->total_s;
      g->n++;
      g->total_s += it->total_s;
      g_array_index (data->lanes, BpwAssignmentLane, it->lane).busy_s += it->total_s;
    }
  g_array_set_size (data->items, 0);
  g_array_append_vals (data->items, sorted->data, sorted->len);
  data->total_s = t;
}

static guint
lane_for (BpwAssignmentData *data, const char *name, BpwLaneKind kind, gint tier)
{
  for (guint i = 0; i < data->lanes->len; i++)
    if (strcmp (g_array_index (data->lanes, BpwAssignmentLane, i).name, name) == 0)
      return i;
  return bpw_assignment_data_add_lane (data, kind, name, tier);
}

BpwAssignmentData *
bpw_assignment_data_new_from_plan (const BpwPlan  *plan,
                                   gint64          stage,
                                   const char     *label,
                                   GError        **error)
{
  const char *scenario = plan->dist->graph->scenario.name;
  g_autoptr(GArray) rows = NULL;
  g_autoptr(GHashTable) index = NULL;
  g_autofree char *title = NULL;
  BpwAssignmentData *data;
  gboolean slowest = stage < 0;

  g_return_val_if_fail (plan != NULL, NULL);

  if (slowest)
    {
      BpwEvaluation eval;

      bpw_evaluation_from_plan (plan, &eval);
      stage = CLAMP (eval.slowest_stage, 0, plan->dist->n_stages - 1);
    }
  if (stage >= plan->dist->n_stages)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("Stage %" PRId64 " does not exist: the plan has %" PRId64
                   " pipeline stages, numbered from 0."), stage, plan->dist->n_stages);
      return NULL;
    }
  if (label == NULL)
    label = plan->blueprint->name;
  title = plan->dist->n_stages > 1
            ? g_strdup_printf (_("Assignment: %s%s%s, pipeline stage %" PRId64 " (of 0–%"
                               PRId64 ")%s"), scenario != NULL ? scenario : "",
                               scenario != NULL ? _(" on ") : "", label, stage,
                               plan->dist->n_stages - 1, slowest ? _(", the slowest") : "")
            : g_strdup_printf (_("Assignment: %s%s%s"), scenario != NULL ? scenario : "",
                               scenario != NULL ? _(" on ") : "", label);
  data = bpw_assignment_data_new (title, label);
  data->stage = stage;
  data->n_stages = plan->dist->n_stages;
  data->slowest = slowest;

  /* Lanes in a fixed order (matrix, vector, then links innermost first), so that charts of
   * different stages and candidates read alike; a lane without work stays, empty. */
  if (plan->rates.matrix.engine != NULL)
    lane_for (data, plan->rates.matrix.engine->name, BPW_LANE_MATRIX, -1);
  if (plan->rates.vector.engine != NULL)
    lane_for (data, plan->rates.vector.engine->name, BPW_LANE_VECTOR, -1);
  for (guint t = 0; t < plan->blueprint->n_tiers; t++)
    lane_for (data, plan->blueprint->tiers[t].name, BPW_LANE_LINK, (gint) t);

  rows = bpw_mapping_sheet_new (plan, FALSE);
  index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < rows->len; i++)
    {
      const BpwSheetRow *r = &g_array_index (rows, BpwSheetRow, i);
      g_autofree char *key = NULL;
      gpointer found;
      BpwAssignmentItem it;

      if (r->stage != stage)
        continue;
      /* Blocks repeat the same operations: one item per name, phase, kind and engine. */
      key = g_strdup_printf ("%s|%d|%d|%s|%s|%d", r->name, r->phase, r->layer_type, r->kind,
                             r->engine, r->transfer);
      if (g_hash_table_lookup_extended (index, key, NULL, &found))
        {
          BpwAssignmentItem *o = &g_array_index (data->items, BpwAssignmentItem,
                                                 GPOINTER_TO_UINT (found));

          o->merged++;
          o->total_s += r->count * r->time_s;
          continue;
        }
      it = (BpwAssignmentItem) {
        .lineage = r->lineage, .merged = 1, .layer_type = r->layer_type, .phase = r->phase,
        .bottleneck = r->bottleneck, .transfer = r->transfer, .name = r->name, .kind = r->kind,
        .dtype = r->dtype, .fusion = r->fusion, .fusion_group = r->fusion_group,
        .tile_m = r->tile_m, .tile_n = r->tile_n, .flops = r->flops, .bytes = r->device_bytes,
        .time_s = r->time_s, .total_s = r->count * r->time_s,
        .lane = lane_for (data, r->engine, r->transfer ? BPW_LANE_LINK : BPW_LANE_VECTOR, -1),
      };
      bpw_assignment_data_add_item (data, &it);
      g_hash_table_insert (index, g_steal_pointer (&key),
                           GUINT_TO_POINTER (data->items->len - 1));
    }
  bpw_assignment_data_finish (data);
  return data;
}
