/* bpw-simulation.c — the simulated plan: lifecycle, lanes, expansion to every rank
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-simulation"

#include "config.h"

#include <string.h>

#include "bpw-i18n.h"
#include "bpw-simulation-private.h"
#include "bpw-error.h"

/* A column of more events than this (about 115 bytes each while simulating) is refused
 * rather than exhausting memory, and so is an expansion to every rank beyond it. */
#define MAX_EVENTS (G_GUINT64_CONSTANT (1) << 25)

static guint32
lane_of (const BpwSimulation *sim, const BpwSimEvent *e)
{
  return e->rank * sim->n_queues + e->queue;
}

static gint
compare_start (gconstpointer a, gconstpointer b, gpointer data)
{
  const BpwSimEvent *events = data;
  guint32 i = *(const guint32 *) a, j = *(const guint32 *) b;

  if (events[i].start != events[j].start)
    return events[i].start < events[j].start ? -1 : 1;
  return (i > j) - (i < j);
}

/* Per lane, event indices sorted by start. Events are created close to start order, so
 * most lanes are already sorted and only the others are sorted. */
static void
build_lanes (BpwSimulation *sim)
{
  guint32 n_lanes = sim->n_ranks * sim->n_queues;
  guint32 n = sim->events->len;
  g_autofree guint32 *fill = g_new0 (guint32, n_lanes + 1);
  const BpwSimEvent *events = (const BpwSimEvent *) sim->events->data;

  sim->lane_first = g_new0 (guint32, n_lanes + 1);
  sim->lane_events = g_new (guint32, MAX (n, 1));
  for (guint32 i = 0; i < n; i++)
    sim->lane_first[lane_of (sim, &events[i]) + 1]++;
  for (guint32 l = 0; l < n_lanes; l++)
    sim->lane_first[l + 1] += sim->lane_first[l];
  memcpy (fill, sim->lane_first, n_lanes * sizeof (guint32));
  for (guint32 i = 0; i < n; i++)
    sim->lane_events[fill[lane_of (sim, &events[i])]++] = i;

  for (guint32 l = 0; l < n_lanes; l++)
    {
      guint32 *lane = sim->lane_events + sim->lane_first[l];
      guint32 len = sim->lane_first[l + 1] - sim->lane_first[l];
      gboolean sorted = TRUE;

      for (guint32 i = 1; i < len && sorted; i++)
        sorted = events[lane[i - 1]].start <= events[lane[i]].start;
      if (!sorted)
        g_qsort_with_data (lane, (gint) len, sizeof (guint32), compare_start, (gpointer) events);
    }
}

/* Copies of the column for every other rank: the column itself stands for the ranks of
 * DP replica 0 and TP rank 0; predecessors map to the same replica and TP rank. */
static gboolean
expand (BpwSimulation *sim, GError **error)
{
  const BpwParallel *par = &sim->plan->dist->parallel;
  guint32 pp = (guint32) par->pp, tp = (guint32) par->tp;
  guint32 devices = (guint32) bpw_parallel_devices (par);
  guint32 n = (guint32) sim->column_events;
  g_autofree guint32 *pos = g_new (guint32, MAX (n, 1));
  g_autofree guint32 *per_stage = g_new0 (guint32, pp);
  g_autofree guint64 *base = g_new0 (guint64, devices + 1);
  guint64 total = n;

  for (guint32 i = 0; i < n; i++)
    {
      BpwSimEvent *e = &g_array_index (sim->events, BpwSimEvent, i);

      pos[i] = per_stage[e->rank]++;
    }
  for (guint32 g = 0; g < devices; g++)
    {
      guint32 stage = (g / tp) % pp;
      gboolean column = g % tp == 0 && g / (tp * pp) == 0;

      base[g] = total;
      if (!column)
        total += per_stage[stage];
    }
  if (total > MAX_EVENTS)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_UNSUPPORTED,
                   _("simulating all %u ranks would hold %" PRIu64 " events (%"
                   PRIu64 " MiB); the ranks of a stage are identical, so simulate "
                   "the pipeline column instead"), devices, total,
                   total * sizeof (BpwSimEvent) >> 20);
      return FALSE;
    }

  g_array_set_size (sim->events, (guint) total);
  for (guint32 g = 0; g < devices; g++)
    {
      guint32 stage = (g / tp) % pp;
      guint64 out = base[g];

      if (g % tp == 0 && g / (tp * pp) == 0)
        continue;
      for (guint32 i = 0; i < n; i++)
        {
          BpwSimEvent e = g_array_index (sim->events, BpwSimEvent, i);

          if (e.rank != stage)
            continue;
          if (e.pred != BPW_SIM_NONE)
            {
              guint32 pr = g_array_index (sim->events, BpwSimEvent, e.pred).rank;
              guint32 gp = g + (pr - stage) * tp;

              if (gp % tp != 0 || gp / (tp * pp) != 0)
                e.pred = (guint32) (base[gp] + pos[e.pred]);
            }
          e.rank = g;
          g_array_index (sim->events, BpwSimEvent, out++) = e;
        }
    }
  for (guint32 i = 0; i < n; i++)
    g_array_index (sim->events, BpwSimEvent, i).rank *= tp;
  return TRUE;
}

BpwSimulation *
bpw_simulation_new (const BpwPlan        *plan,
                    const BpwSimOptions  *options,
                    GError              **error)
{
  g_autoptr(BpwSimulation) sim = g_new0 (BpwSimulation, 1);
  SimProgram *program;
  guint64 estimate = 0;
  gint off_tiers;

  g_return_val_if_fail (plan != NULL, NULL);

  /* Without its transfers a pipeline's stages would wait for sends that never come. */
  off_tiers = bpw_plan_group_off_tiers (plan);
  if (off_tiers >= 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("the mapping puts %s on tier %d, which blueprint “%s” does not have: "
                   "its communication cannot be priced, so the step cannot be simulated"),
                   bpw_group_to_string (off_tiers), plan->mapping.tier[off_tiers],
                   plan->blueprint->name);
      return NULL;
    }

  sim->plan = plan;
  if (options != NULL)
    sim->options = *options;
  program = _bpw_sim_program_new (plan);
  sim->program = program;
  _bpw_sim_program_order (program, plan);
  for (gint64 s = 0; s < program->n_stages; s++)
    estimate += program->runs[s].n_task_slots + program->runs[s].n_xfer_slots +
                2 * (guint64) program->micro_batches * program->chunks + 64;
  if (estimate > MAX_EVENTS)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_UNSUPPORTED,
                   _("the step has about %" PRIu64 " task and transfer executions to "
                   "simulate (%" PRId64 " micro-batches per pipeline), more than the "
                   "%" PRIu64 " the simulator holds; use larger micro-batches or "
                   "the closed-form estimate (--analytic)"), estimate, program->micro_batches,
                   MAX_EVENTS);
      return NULL;
    }
  sim->events = g_array_sized_new (FALSE, FALSE, sizeof (BpwSimEvent), (guint) estimate);
  sim->n_queues = 2 + plan->blueprint->n_tiers * BPW_N_GROUPS;
  sim->queue_names = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (sim->queue_names, g_strdup ("matrix"));
  g_ptr_array_add (sim->queue_names, g_strdup ("vector"));
  for (guint t = 0; t < plan->blueprint->n_tiers; t++)
    for (guint g = 0; g < BPW_N_GROUPS; g++)
      g_ptr_array_add (sim->queue_names, g_strdup_printf ("%s %s", plan->blueprint->tiers[t].name,
                                                          bpw_group_to_string (g)));
  sim->n_ranks = (guint32) program->n_stages;
  sim->critical_path = g_array_new (FALSE, FALSE, sizeof (guint32));

  if (!_bpw_sim_run (sim, program, error))
    return NULL;
  sim->column_events = sim->events->len;
  for (guint i = 0; i < sim->events->len; i++)
    sim->step_time_s = MAX (sim->step_time_s, g_array_index (sim->events, BpwSimEvent, i).end);

  _bpw_simulation_compute_memory (sim);
  _bpw_simulation_compute_metrics (sim);
  if (sim->options.all_ranks)
    {
      if (!expand (sim, error))
        return NULL;
      /* The column keeps its indices (the critical path and the runs refer to them). */
      sim->n_ranks = (guint32) bpw_parallel_devices (&plan->dist->parallel);
      sim->expanded = TRUE;
    }
  build_lanes (sim);
  return g_steal_pointer (&sim);
}

void
bpw_simulation_free (BpwSimulation *sim)
{
  if (sim == NULL)
    return;
  g_clear_pointer (&sim->events, g_array_unref);
  g_clear_pointer (&sim->critical_path, g_array_unref);
  g_clear_pointer (&sim->queue_names, g_ptr_array_unref);
  g_free (sim->lane_first);
  g_free (sim->lane_events);
  g_free (sim->ranks);
  g_free (sim->memory);
  _bpw_sim_program_free (sim->program);
  g_free (sim);
}
