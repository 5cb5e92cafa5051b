/* bpw-simulation-json.c — `bpw evaluate --json` of a simulated step
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The evaluation object is the analytic one's (same keys, same conventions), continued
 * with what only a simulation knows: the analytic step it is compared with, the named
 * effects that make up the difference, and the schedule's own figures.
 */
#define G_LOG_DOMAIN "bpw-simulation-json"

#include "config.h"

#include <string.h>

#include "bpw-simulation-private.h"
#include "bpw-json-writer.h"

/* Reopens the pretty-printed object @json just before its closing brace. */
static void
reopen (BpwJsonWriter *w, const char *json)
{
  gsize len = strlen (json);

  while (len > 0 && json[len - 1] != '}')
    len--;
  if (len > 0)
    len--;
  while (len > 0 && g_ascii_isspace (json[len - 1]))
    len--;
  bpw_json_writer_init (w, TRUE);
  g_string_append_len (w->out, json, (gssize) len);
  w->depth = 1;
  w->need_comma[1] = TRUE;
}

static void
write_memory (BpwJsonWriter *w, const BpwSimulation *sim)
{
  bpw_json_writer_begin_array (w, "memory_by_stage");
  for (gint64 s = 0; s < sim->plan->dist->n_stages; s++)
    {
      const BpwSimMemory *m = &sim->memory[s];

      bpw_json_writer_begin_object (w, NULL);
      bpw_json_writer_double (w, "peak_bytes", m->peak);
      bpw_json_writer_double (w, "peak_time_s", m->peak_time);
      bpw_json_writer_double (w, "analytic_bytes", m->analytic);
      bpw_json_writer_double (w, "simulated_vs_analytic_bytes", m->peak - m->analytic);
      bpw_json_writer_begin_object (w, "live_at_peak");
      for (guint c = 0; c < BPW_N_MEM_CATEGORIES; c++)
        bpw_json_writer_double (w, bpw_memory_category_to_string (c), m->at_peak[c]);
      bpw_json_writer_end_object (w);
      bpw_json_writer_begin_object (w, "category_peak");
      for (guint c = 0; c < BPW_N_MEM_CATEGORIES; c++)
        bpw_json_writer_double (w, bpw_memory_category_to_string (c), m->category_peak[c]);
      bpw_json_writer_end_object (w);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_array (w);
}

static void
write_critical_path (BpwJsonWriter *w, const BpwSimulation *sim)
{
  double by_kind[3] = { 0 };  /* tasks, transfers, waiting */
  guint tasks = 0;
  double at = 0;

  for (guint i = 0; i < sim->critical_path->len; i++)
    {
      const BpwSimEvent *e = bpw_simulation_event (sim, g_array_index (sim->critical_path,
                                                                       guint32, i));
      double lo = MAX (at, e->start);

      by_kind[2] += MAX (0.0, e->start - at);
      by_kind[e->kind == BPW_SIM_EVENT_TASK ? 0 : 1] += MAX (0.0, e->end - lo);
      tasks += e->kind == BPW_SIM_EVENT_TASK;
      at = MAX (at, e->end);
    }
  bpw_json_writer_begin_object (w, "critical_path");
  bpw_json_writer_int (w, "events", sim->critical_path->len);
  bpw_json_writer_int (w, "tasks", tasks);
  bpw_json_writer_double (w, "task_s", by_kind[0]);
  bpw_json_writer_double (w, "transfer_s", by_kind[1]);
  bpw_json_writer_double (w, "wait_s", by_kind[2]);
  bpw_json_writer_end_object (w);
}

static void
write_utilisation (BpwJsonWriter *w, const BpwSimulation *sim)
{
  guint32 rank = (guint32) sim->reference_rank;

  if (sim->expanded)
    rank *= (guint32) sim->plan->dist->parallel.tp;
  bpw_json_writer_begin_object (w, "utilisation");
  for (guint32 q = 0; q < sim->n_queues; q++)
    {
      guint32 n;
      const guint32 *lane = bpw_simulation_lane (sim, rank, q, &n);
      double busy = 0;

      for (guint32 i = 0; i < n; i++)
        {
          const BpwSimEvent *e = bpw_simulation_event (sim, lane[i]);

          busy += e->end - e->start;
        }
      bpw_json_writer_double (w, bpw_simulation_queue_name (sim, q),
                              sim->step_time_s > 0 ? busy / sim->step_time_s : 0);
    }
  bpw_json_writer_end_object (w);
}

char *
bpw_simulation_evaluation_to_json (const BpwSimulation *sim,
                                   const BpwEvaluation *eval,
                                   const BpwEvaluation *analytic,
                                   GPtrArray           *reasons)
{
  g_autofree char *base = bpw_evaluation_to_json (eval, sim->plan, reasons);
  BpwSimDifference d;
  BpwJsonWriter w;

  bpw_simulation_difference (sim, analytic, &d);
  reopen (&w, base);
  bpw_json_writer_double (&w, "analytic_step_time_s", analytic->step_time_s);
  bpw_json_writer_begin_object (&w, "simulated_vs_analytic");
  bpw_json_writer_double (&w, "difference_s", d.difference_s);
  bpw_json_writer_double (&w, "relative", analytic->step_time_s > 0
                          ? d.difference_s / analytic->step_time_s : 0);
  bpw_json_writer_begin_object (&w, "by_effect_s");
  bpw_json_writer_double (&w, "bubble", d.bubble_s);
  bpw_json_writer_double (&w, "overlap", d.overlap_s);
  bpw_json_writer_double (&w, "contention", d.contention_s);
  bpw_json_writer_double (&w, "work", d.work_s);
  bpw_json_writer_end_object (&w);
  bpw_json_writer_begin_object (&w, "analytic_breakdown_s");
  for (guint b = 0; b < BPW_N_BREAKDOWNS; b++)
    bpw_json_writer_double (&w, bpw_breakdown_to_string (b), analytic->breakdown_s[b]);
  bpw_json_writer_end_object (&w);
  bpw_json_writer_double (&w, "analytic_peak_bytes", analytic->peak_bytes);
  bpw_json_writer_end_object (&w);

  bpw_json_writer_begin_object (&w, "simulation");
  bpw_json_writer_int (&w, "events", sim->events->len);
  bpw_json_writer_int (&w, "column_events", (gint64) sim->column_events);
  bpw_json_writer_int (&w, "ranks", sim->n_ranks);
  bpw_json_writer_string (&w, "symmetry", sim->expanded
                          ? "every rank (copies of the pipeline column)"
                          : "one pipeline column: the ranks of a stage are identical");
  bpw_json_writer_int (&w, "reference_stage", sim->reference_rank);
  bpw_json_writer_double (&w, "bubble_fraction", bpw_simulation_bubble_fraction (sim));
  bpw_json_writer_double (&w, "contention_s", sim->ranks[sim->reference_rank].contention_s);
  write_critical_path (&w, sim);
  write_utilisation (&w, sim);
  write_memory (&w, sim);
  bpw_json_writer_end_object (&w);
  bpw_json_writer_end_object (&w);
  return bpw_json_writer_finish (&w);
}
