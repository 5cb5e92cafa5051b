/* bpw-evaluation-precision.c — time by precision, fallbacks and modes of a plan
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-evaluation-precision"

#include "config.h"

#include <string.h>

#include "bpw-evaluation-precision.h"
#include "bpw-evaluation.h"

/* Executions of @task per step over the whole job (as the binding counts them). */
static double
executions (const BpwPlan *plan, const BpwPlanTask *task)
{
  double ranks = (double) (plan->dist->parallel.tp * plan->dist->parallel.dp);

  return (task->phase == BPW_PHASE_OPTIMIZER ? 1.0 : (double) plan->micro_batches) *
         task->count * ranks;
}

static const char *
task_precision_name (const BpwPlan *plan, const BpwPlanTask *task)
{
  const char *compute = task->format != BPW_NUMBER_FORMAT_DEFAULT
                        ? bpw_number_format_to_string (task->format)
                        : bpw_precision_to_string (plan->precision);

  if (task->weights != BPW_WEIGHT_FORMAT_NATIVE)
    {
      g_autofree char *name =
        bpw_weight_only_describe (task->weights,
                                  plan->mapping.precision.classes[task->op_class].group,
                                  compute);

      return g_intern_string (name);
    }
  return compute;
}

const char *
bpw_plan_task_precision_name (const BpwPlan     *plan,
                              const BpwPlanTask *task)
{
  return task_precision_name (plan, task);
}

GArray *
bpw_plan_precision_shares (const BpwPlan *plan)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (BpwPrecisionShare));

  g_return_val_if_fail (plan != NULL, out);

  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    {
      GArray *tasks = plan->stages[s].tasks;

      for (guint i = 0; i < tasks->len; i++)
        {
          const BpwPlanTask *t = &g_array_index (tasks, BpwPlanTask, i);
          const char *name = task_precision_name (plan, t);
          double n = executions (plan, t);
          BpwPrecisionShare *share = NULL;

          for (guint j = 0; share == NULL && j < out->len; j++)
            {
              BpwPrecisionShare *x = &g_array_index (out, BpwPrecisionShare, j);

              if (strcmp (x->name, name) == 0 && !x->sparse == !t->sparse)
                share = x;
            }
          if (share == NULL)
            {
              BpwPrecisionShare fresh = { .name = name, .sparse = t->sparse != 0 };

              g_array_append_val (out, fresh);
              share = &g_array_index (out, BpwPrecisionShare, out->len - 1);
            }
          share->time_s += t->cost.time_s * n;
          share->flops += t->flops * n;
        }
    }
  return out;
}

GArray *
bpw_plan_precision_fallbacks (const BpwPlan *plan)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (BpwPrecisionFallback));

  g_return_val_if_fail (plan != NULL, out);

  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    {
      GArray *tasks = plan->stages[s].tasks;

      for (guint i = 0; i < tasks->len; i++)
        {
          const BpwPlanTask *t = &g_array_index (tasks, BpwPlanTask, i);
          BpwNumberFormat wanted;
          BpwPrecisionFallback *f = NULL;

          if (t->fallback == BPW_FALLBACK_NONE)
            continue;
          wanted = plan->mapping.precision.classes[t->op_class].format;
          for (guint j = 0; f == NULL && j < out->len; j++)
            {
              BpwPrecisionFallback *x = &g_array_index (out, BpwPrecisionFallback, j);

              if (x->cls == t->op_class && x->wanted == wanted && x->reason == t->fallback)
                f = x;
            }
          if (f == NULL)
            {
              BpwPrecisionFallback fresh = {
                .cls = t->op_class, .wanted = wanted, .reason = t->fallback
              };

              g_array_append_val (out, fresh);
              f = &g_array_index (out, BpwPrecisionFallback, out->len - 1);
            }
          f->operations++;
          f->executions += executions (plan, t);
        }
    }
  return out;
}

/* The plan's step time with @mapping and @scenario_dtype instead of its own. */
static gboolean
step_time_with (const BpwPlan    *plan,
                const BpwMapping *mapping,
                BpwDType          scenario_dtype,
                double           *step_time_s,
                GError          **error)
{
  const BpwWorkGraph *g = plan->dist->graph;
  BpwScenario scenario = g->scenario;
  g_autoptr(BpwPlan) other = NULL;
  BpwWorkGraph *graph;
  BpwDistWork *dist;
  BpwEvaluation eval;

  scenario.dtype = scenario_dtype;
  graph = bpw_work_graph_new (&g->spec, &scenario, error);
  if (graph == NULL)
    return FALSE;
  dist = bpw_dist_work_new (graph, &plan->dist->parallel, error);
  if (dist == NULL)
    return FALSE;
  other = bpw_plan_new (dist, plan->blueprint, mapping, error);
  if (other == NULL)
    return FALSE;
  bpw_evaluation_from_plan (other, &eval);
  *step_time_s = eval.step_time_s;
  return TRUE;
}

static void
add_mode (GPtrArray *modes, const char *mode)
{
  for (guint i = 0; i < modes->len; i++)
    if (strcmp (modes->pdata[i], mode) == 0)
      return;
  g_ptr_array_add (modes, (gpointer) mode);
}

GArray *
bpw_evaluation_precision_modes (const BpwPlan *plan,
                                GError       **error)
{
  g_autoptr(GPtrArray) modes = g_ptr_array_new ();
  g_autoptr(GArray) out = g_array_new (FALSE, TRUE, sizeof (BpwPrecisionMode));
  BpwNumberFormat implied = bpw_number_format_of_precision (plan->precision);
  BpwEvaluation own;

  g_return_val_if_fail (plan != NULL, NULL);

  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    {
      GArray *tasks = plan->stages[s].tasks;

      for (guint i = 0; i < tasks->len; i++)
        {
          const BpwPlanTask *t = &g_array_index (tasks, BpwPlanTask, i);

          if (bpw_number_format_is_reduced (t->format))
            add_mode (modes, bpw_number_format_to_string (t->format));
          if (t->sparse)
            add_mode (modes, BPW_MODE_SPARSITY_2_4);
          if (t->weights != BPW_WEIGHT_FORMAT_NATIVE)
            add_mode (modes, bpw_weight_only_mode (t->weights, plan->mapping.precision
                                                                 .classes[t->op_class].group));
        }
    }
  if (modes->len == 0)
    return g_steal_pointer (&out);

  bpw_evaluation_from_plan (plan, &own);
  for (guint i = 0; i < modes->len; i++)
    {
      const char *mode = modes->pdata[i];
      gboolean sparsity = strcmp (mode, BPW_MODE_SPARSITY_2_4) == 0;
      gboolean weights = g_str_has_prefix (mode, BPW_MODE_WEIGHTS_PREFIX);
      BpwDType dtype = plan->dist->graph->scenario.dtype;
      BpwMapping without;
      BpwPrecisionMode m = { .mode = mode };
      double base = 0;
      gboolean ok;

      bpw_mapping_copy (&without, &plan->mapping);
      for (guint c = 0; c < BPW_N_POLICY_CLASSES; c++)
        {
          BpwClassPrecision *cp = &without.precision.classes[c];

          if (sparsity)
            cp->sparse_2_4 = FALSE;
          else if (weights)
            {
              if (strcmp (bpw_weight_only_mode (cp->weights, cp->group), mode) == 0)
                cp->weights = BPW_WEIGHT_FORMAT_NATIVE;
            }
          else if (strcmp (bpw_number_format_to_string (cp->format), mode) == 0)
            cp->format = BPW_NUMBER_FORMAT_BF16;
        }
      if (!sparsity && !weights && strcmp (bpw_number_format_to_string (implied), mode) == 0)
        dtype = BPW_DTYPE_BF16;
      ok = step_time_with (plan, &without, dtype, &base, error);
      bpw_mapping_clear (&without);
      if (!ok)
        return NULL;
      m.time_ratio = own.step_time_s > 0 ? base / own.step_time_s : 1.0;
      g_array_append_val (out, m);
    }
  return g_steal_pointer (&out);
}
