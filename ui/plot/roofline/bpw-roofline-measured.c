/* bpw-roofline-measured.c — measured operations on the roofline, beside the predicted ones
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A profile measures time, not work: a measured point takes its FLOPs and bytes from the
 * modelled operations its kernels were matched with (bpw-correlate.h) and its time from
 * the kernels. So it sits at the operation's modelled intensity and attains what the
 * hardware did with the modelled work; the vertical distance to the predicted point is
 * the prediction's error for that operation.
 */
#define G_LOG_DOMAIN "bpw-roofline-measured"

#include "config.h"

#include <math.h>

#include "bpw-roofline-data.h"

typedef struct
{
  guint   point;         /* index into the data's points */
  double  flops, bytes;  /* Σ over the rows merged */
  double  measured_s;
} Merge;

static const char *
bpw_roofline_measured_engine (const BpwPlan *plan, guint kind)
{
  int e = bpw_blueprint_first_engine (plan->blueprint, (BpwEngineKind) kind);

  return e >= 0 ? plan->blueprint->engines[e].name : "";
}

/* The point a row joins: one per operation name and phase, so that the blocks and
 * micro-batches of a step, which repeat the same operations, are one point. */
static Merge *
bpw_roofline_measured_merge (BpwRooflineData         *data,
                             const BpwCorrelation    *corr,
                             const BpwCorrelationRow *row,
                             GHashTable              *index,
                             GArray                  *merges)
{
  const BpwSimulation *sim = corr->sim;
  const BpwModelledOp *op = bpw_correlation_row_op (corr, row, 0);
  const BpwSimEvent *e = bpw_simulation_event (sim, op->event);
  g_autofree char *name = bpw_correlation_row_name (corr, row);
  g_autofree char *key = g_strdup_printf ("%d|%s", e->phase, name);
  gpointer found;
  BpwRooflinePoint p;
  Merge m;

  if (g_hash_table_lookup_extended (index, key, NULL, &found))
    return &g_array_index (merges, Merge, GPOINTER_TO_UINT (found));
  p = (BpwRooflinePoint) {
    .lineage = op->lineage, .stage = bpw_simulation_rank_stage (sim, e->rank), .merged = 0,
    .phase = e->phase, .bottleneck = bpw_simulation_event_bottleneck (sim, e),
    .measured = TRUE, .name = name, .dtype = data->precision,
  };
  if (e->kind == BPW_SIM_EVENT_TASK)
    {
      const BpwPlanTask *t = &g_array_index (sim->plan->stages[e->stage].tasks, BpwPlanTask,
                                             e->item);

      p.layer_type = t->layer_type;
      p.kind = bpw_primitive_to_string (t->primitive);
      p.engine = bpw_roofline_measured_engine (sim->plan, t->engine);
    }
  m = (Merge) { .point = bpw_roofline_data_add_point (data, &p) };
  /* add_point counts at least one; the rows merged are counted below. */
  g_array_index (data->points, BpwRooflinePoint, m.point).merged = 0;
  g_array_append_val (merges, m);
  g_hash_table_insert (index, g_steal_pointer (&key), GUINT_TO_POINTER (merges->len - 1));
  return &g_array_index (merges, Merge, merges->len - 1);
}

guint
bpw_roofline_data_add_measured (BpwRooflineData      *data,
                                const BpwCorrelation *corr,
                                const char           *label)
{
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GArray) merges = g_array_new (FALSE, FALSE, sizeof (Merge));
  double total = 0;

  g_return_val_if_fail (data != NULL && corr != NULL, 0);

  g_free (data->measured_label);
  if (label != NULL)
    data->measured_label = g_strdup (label);
  else
    data->measured_label = g_path_get_basename (corr->profile->filename);
  for (guint i = 0; i < corr->rows->len; i++)
    {
      const BpwCorrelationRow *row = bpw_correlation_row (corr, i);
      const BpwModelledOp *op;
      Merge *m;

      if (row->status != BPW_ROW_MATCHED || row->n_ops == 0 || !(row->measured_s > 0))
        continue;
      op = bpw_correlation_row_op (corr, row, 0);
      if (data->stage >= 0
          && bpw_simulation_rank_stage (corr->sim,
                                        bpw_simulation_event (corr->sim, op->event)->rank)
             != data->stage)
        continue;
      if (!(row->flops > 0) || !(row->bytes > 0))
        {
          data->measured_skipped++;
          continue;
        }
      m = bpw_roofline_measured_merge (data, corr, row, index, merges);
      m->flops += row->flops;
      m->bytes += row->bytes;
      m->measured_s += row->measured_s;
      g_array_index (data->points, BpwRooflinePoint, m->point).merged++;
      total += row->measured_s;
    }
  for (guint i = 0; i < merges->len; i++)
    {
      const Merge *m = &g_array_index (merges, Merge, i);
      BpwRooflinePoint *p = &g_array_index (data->points, BpwRooflinePoint, m->point);

      p->flops = m->flops / p->merged;
      p->bytes = m->bytes / p->merged;
      p->intensity = m->flops / m->bytes;
      p->attained = m->flops / m->measured_s;
      p->time_s = m->measured_s / p->merged;
      p->total_s = m->measured_s;
      p->share = total > 0 ? m->measured_s / total : 0;
    }
  return merges->len;
}
