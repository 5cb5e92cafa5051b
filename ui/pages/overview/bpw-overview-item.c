/* bpw-overview-item.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-overview-item"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "bpw-overview-item-private.h"

G_DEFINE_FINAL_TYPE (BpwOverviewItem, bpw_overview_item, G_TYPE_OBJECT)

/* Bytes of one device's device memory (HBM): capacity per instance times instances. */
static guint64
bpw_overview_item_device_capacity (const BpwBlueprint *bp)
{
  const BpwMemoryLevel *level;
  int index;
  double instances;

  if (bp == NULL || (index = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE)) < 0)
    return 0;
  level = &bp->memory[index];
  if (!level->capacity.set || level->capacity.value <= 0.0)
    return 0;
  instances = level->instances.set && level->instances.value > 0.0 ? level->instances.value : 1.0;
  return (guint64) (level->capacity.value * instances);
}

/* The hardware-independent numbers of the scenario, and what the blueprint says about one
 * device. */
static void
bpw_overview_item_fill_facts (BpwOverviewItem         *self,
                              const BpwOverviewInputs *inputs)
{
  const BpwFacts *facts = bpw_facts_row_get_facts (inputs->scenario);
  const BpwBlueprint *bp = inputs->run != NULL ? inputs->run->blueprint : NULL;
  const BpwRankMemory *m;

  self->devices = bpw_parallel_devices (bpw_facts_row_get_parallel (inputs->scenario));
  self->capacity = bpw_overview_item_device_capacity (bp);
  if (bp != NULL && bp->device != NULL)
    self->device = g_strdup (bp->device);
  if (facts == NULL)
    return;

  m = &facts->memory;
  self->parameters = facts->parameters;
  self->flops_model = facts->flops_model;
  self->memory = m->weights + m->gradients + m->optimizer_state + m->activations + m->kv_cache;
}

/* Targets the step evaluation can judge: step time, TTFT and TPOT (p99 latency needs the
 * serving simulation and is not judged here). */
static BpwSlaResult
bpw_overview_item_judge_sla (const BpwScenario   *s,
                             const BpwEvaluation *e)
{
  gboolean judged = FALSE;
  gboolean met = TRUE;

  if (s->sla_step_time > 0.0 && isfinite (e->step_time_s))
    {
      judged = TRUE;
      met &= e->step_time_s <= s->sla_step_time;
    }
  if (s->sla_ttft > 0.0 && isfinite (e->ttft_s))
    {
      judged = TRUE;
      met &= e->ttft_s <= s->sla_ttft;
    }
  if (s->sla_tpot > 0.0 && isfinite (e->tpot_s))
    {
      judged = TRUE;
      met &= e->tpot_s <= s->sla_tpot;
    }
  return !judged ? BPW_SLA_NONE : met ? BPW_SLA_MET : BPW_SLA_MISSED;
}

/* "Idle power 70 W (measured: …); energy per FLOP (bf16) 785 fJ (measured: …)": the
 * figures a step's energy is modelled from, each with its status and source. */
static char *
bpw_overview_item_energy_source (const BpwBlueprint *bp,
                                 BpwDType            dtype)
{
  const BpwSourced *idle = &bp->idle_power;
  BpwPrecision precision = bpw_precision_from_dtype (dtype);
  const BpwSourced *per_flop = &bp->energy_per_flop[precision];
  GString *out = g_string_new (NULL);

  if (idle->set)
    {
      g_autofree char *value = bpw_quantity_format (idle->value, BPW_UNIT_WATTS);

      /* Translators: %s: a power; then its status (measured, estimate…) and source */
      g_string_append_printf (out, _("Idle power %s"), value);
      g_string_append_printf (out, " (%s%s%s)", bpw_provenance_kind_to_string (idle->kind),
                              idle->source != NULL ? ": " : "",
                              idle->source != NULL ? idle->source : "");
    }
  if (per_flop->set)
    {
      g_autofree char *value = bpw_quantity_format (per_flop->value, BPW_UNIT_JOULES_PER_FLOP);

      if (out->len > 0)
        g_string_append (out, "\n");
      /* Translators: %s: a precision (bf16), then an energy per FLOP */
      g_string_append_printf (out, _("Energy per FLOP (%s) %s"),
                              bpw_precision_to_string (precision), value);
      g_string_append_printf (out, " (%s%s%s)",
                              bpw_provenance_kind_to_string (per_flop->kind),
                              per_flop->source != NULL ? ": " : "",
                              per_flop->source != NULL ? per_flop->source : "");
    }
  else if (bp->tdp.set)
    {
      g_autofree char *value = bpw_quantity_format (bp->tdp.value, BPW_UNIT_WATTS);

      if (out->len > 0)
        g_string_append (out, "\n");
      /* Translators: %s: the board power (TDP) busy time is priced at */
      g_string_append_printf (out, _("No energy per FLOP: busy time at TDP %s (%s)"), value,
                              bpw_provenance_kind_to_string (bp->tdp.kind));
    }
  return g_string_free (out, out->len == 0);
}

/* Evaluates the candidate's mapping for the scenario with the core's analytic estimator:
 * the same numbers as binding the whole plan and evaluating it (the core tests that they
 * agree), in about a millisecond instead of tens, so that an edit updates the Overview at
 * once. A candidate that cannot be set up or evaluated is an evaluation that failed, with
 * the reason; no number stands in for the missing ones. */
static void
bpw_overview_item_fill_evaluation (BpwOverviewItem         *self,
                                   const BpwOverviewInputs *inputs)
{
  BpwOverviewEvaluation result = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwEstimator) estimator = NULL;
  g_autoptr(GPtrArray) reasons = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *reason = NULL;
  g_autofree char *energy_source = NULL;
  BpwEvaluation e;

  if (inputs->run_error != NULL)
    {
      result.failed = TRUE;
      result.reason = inputs->run_error;
      bpw_overview_item_set_evaluation (self, &result);
      return;
    }
  if (inputs->run == NULL)
    return;

  estimator = bpw_estimator_new (&inputs->run->spec, &inputs->run->scenario,
                                 inputs->run->blueprint, &error);
  if (estimator == NULL
      || !bpw_estimator_evaluate (estimator, &inputs->run->mapping, &e, reasons, &error))
    {
      result.failed = TRUE;
      result.reason = error->message;
      bpw_overview_item_set_evaluation (self, &result);
      return;
    }

  g_ptr_array_add (reasons, NULL);
  if (reasons->len > 1)
    reason = g_strjoinv ("\n", (char **) reasons->pdata);
  result.legal = e.legal;
  result.reason = reason;
  result.step_time_s = isfinite (e.step_time_s) ? e.step_time_s : 0.0;
  result.ttft_s = isfinite (e.ttft_s) ? e.ttft_s : 0.0;
  result.tpot_s = isfinite (e.tpot_s) ? e.tpot_s : 0.0;
  result.mfu = isfinite (e.mfu) ? e.mfu : 0.0;
  result.peak_bytes = isfinite (e.peak_bytes) && e.peak_bytes > 0.0 ? (guint64) e.peak_bytes : 0;
  result.bottleneck = bpw_bottleneck_display_name (e.bottleneck);
  result.sla = result.legal ? bpw_overview_item_judge_sla (&inputs->run->scenario, &e)
                            : BPW_SLA_NONE;
  result.energy_j = isfinite (e.energy_j) && e.energy_j > 0.0 ? e.energy_j : NAN;
  result.tokens_per_joule = isfinite (e.tokens_per_joule) && e.tokens_per_joule > 0.0
                            ? e.tokens_per_joule : NAN;
  result.power_w = !isnan (result.energy_j) && e.step_time_s > 0.0
                   ? result.energy_j / e.step_time_s : NAN;
  energy_source = bpw_overview_item_energy_source (inputs->run->blueprint,
                                                   inputs->run->scenario.dtype);
  result.energy_source = energy_source;
  bpw_overview_item_set_evaluation (self, &result);
}

static void
bpw_overview_item_clear_evaluation (BpwOverviewItem *self)
{
  g_clear_pointer ((char **) &self->evaluation.reason, g_free);
  g_clear_pointer ((char **) &self->evaluation.bottleneck, g_free);
  g_clear_pointer ((char **) &self->evaluation.energy_source, g_free);
  memset (&self->evaluation, 0, sizeof self->evaluation);
  self->evaluated = FALSE;
}

static void
bpw_overview_item_finalize (GObject *object)
{
  BpwOverviewItem *self = (BpwOverviewItem *) object;

  bpw_overview_item_clear_evaluation (self);
  g_clear_pointer (&self->candidate, g_free);
  g_clear_pointer (&self->blueprint_ref, g_free);
  g_clear_pointer (&self->device, g_free);
  g_clear_pointer (&self->blueprint_error, g_free);
  g_clear_object (&self->scenario);
  g_clear_pointer (&self->transformations, g_array_unref);
  g_clear_pointer (&self->stack_name, g_free);
  g_clear_pointer (&self->stack_source, g_free);

  G_OBJECT_CLASS (bpw_overview_item_parent_class)->finalize (object);
}

static void
bpw_overview_item_class_init (BpwOverviewItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = bpw_overview_item_finalize;
}

static void
bpw_overview_item_init (BpwOverviewItem *self)
{
}

BpwOverviewItem *
bpw_overview_item_new (const BpwOverviewInputs *inputs)
{
  BpwOverviewItem *self;

  g_return_val_if_fail (inputs != NULL, NULL);
  g_return_val_if_fail (inputs->candidate != NULL, NULL);
  g_return_val_if_fail (BPW_IS_FACTS_ROW (inputs->scenario), NULL);

  self = g_object_new (BPW_TYPE_OVERVIEW_ITEM, NULL);
  self->candidate = g_strdup (inputs->candidate);
  self->blueprint_ref = g_strdup (inputs->blueprint_ref);
  self->blueprint_error = g_strdup (inputs->run_error);
  self->scenario = g_object_ref (inputs->scenario);

  bpw_overview_item_fill_facts (self, inputs);
  bpw_overview_item_fill_evaluation (self, inputs);
  _bpw_overview_item_fill_stack (self, inputs);
  return self;
}

void
bpw_overview_item_set_evaluation (BpwOverviewItem             *self,
                                  const BpwOverviewEvaluation *evaluation)
{
  g_return_if_fail (BPW_IS_OVERVIEW_ITEM (self));

  bpw_overview_item_clear_evaluation (self);
  if (evaluation == NULL)
    return;
  self->evaluation = *evaluation;
  self->evaluation.reason = g_strdup (evaluation->reason);
  self->evaluation.bottleneck = g_strdup (evaluation->bottleneck);
  self->evaluation.energy_source = g_strdup (evaluation->energy_source);
  self->evaluated = TRUE;
}

const BpwOverviewEvaluation *
bpw_overview_item_get_evaluation (BpwOverviewItem *self)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_ITEM (self), NULL);
  return self->evaluated ? &self->evaluation : NULL;
}

const char *
bpw_overview_item_get_candidate (BpwOverviewItem *self)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_ITEM (self), NULL);
  return self->candidate;
}

const char *
bpw_overview_item_get_scenario_name (BpwOverviewItem *self)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_ITEM (self), NULL);
  return bpw_facts_row_get_name (self->scenario);
}

BpwFactsRow *
bpw_overview_item_get_scenario (BpwOverviewItem *self)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_ITEM (self), NULL);
  return self->scenario;
}

gint64
bpw_overview_item_get_devices (BpwOverviewItem *self)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_ITEM (self), 0);
  return self->devices;
}

guint64
bpw_overview_item_get_memory (BpwOverviewItem *self)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_ITEM (self), 0);

  if (self->evaluated && !self->evaluation.failed && self->evaluation.peak_bytes > 0)
    return self->evaluation.peak_bytes;
  return self->memory;
}

guint64
bpw_overview_item_get_capacity (BpwOverviewItem *self)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_ITEM (self), 0);
  return self->capacity;
}
