/* bpw-overview-item-stack.c — the software stack's implementation transformations of an
 * Overview item
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Kernels that the work graph does not contain (casts of fp32 master weights, unfused
 * element-wise chains, the optimizer's implementation, launch gaps ...) are priced by the
 * binding as named implementation transformations with their own time. The estimator
 * behind the Overview's numbers keeps only totals, so the item binds the full plan once,
 * in the worker, and keeps the list for the Conservation card.
 */
#define G_LOG_DOMAIN "bpw-overview-item"

#include "config.h"

#include "bpw-overview-item-private.h"

static void
bpw_overview_transformation_clear (gpointer data)
{
  BpwOverviewTransformation *t = data;

  g_free (t->name);
  g_free (t->description);
}

void
_bpw_overview_item_fill_stack (BpwOverviewItem         *self,
                               const BpwOverviewInputs *inputs)
{
  g_autoptr(BpwPlan) plan = NULL;
  const BpwStack *stack;

  if (inputs->run == NULL || inputs->run_error != NULL)
    return;
  stack = &inputs->run->blueprint->stack;
  if (stack->set)
    {
      self->stack_name = g_strdup (stack->name);
      self->stack_source = g_strdup (stack->source);
    }
  /* A plan that cannot be bound has its reason in the evaluation already. */
  plan = bpw_candidate_run_bind (inputs->run, NULL);
  if (plan == NULL)
    return;
  self->transformations = g_array_new (FALSE, TRUE, sizeof (BpwOverviewTransformation));
  g_array_set_clear_func (self->transformations, bpw_overview_transformation_clear);
  for (guint i = 0; i < plan->transformations->len; i++)
    {
      const BpwTransformation *t = &g_array_index (plan->transformations, BpwTransformation, i);
      BpwOverviewTransformation copy = {
        .bytes = t->bytes, .kernels = t->count, .time_s = t->time_s,
      };

      if (!t->implementation)
        continue;
      copy.name = g_strdup (t->name);
      copy.description = g_strdup (t->description);
      g_array_append_val (self->transformations, copy);
    }
}

GArray *
bpw_overview_item_get_transformations (BpwOverviewItem *self)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_ITEM (self), NULL);
  return self->transformations;
}

const char *
bpw_overview_item_get_stack_name (BpwOverviewItem *self)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_ITEM (self), NULL);
  return self->stack_name;
}

const char *
bpw_overview_item_get_stack_source (BpwOverviewItem *self)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_ITEM (self), NULL);
  return self->stack_source;
}
