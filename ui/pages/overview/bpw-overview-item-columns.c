/* bpw-overview-item-columns.c — the Overview's columns: text, tooltips, styles, order
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-overview-item-columns"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-overview-item-private.h"

static gboolean
bpw_overview_item_has_facts (BpwOverviewItem *self)
{
  return bpw_facts_row_get_facts (self->scenario) != NULL;
}

/* Energy figures are known when positive: NaN (or an item built without them) is not. */
static gboolean
bpw_overview_item_known (double value)
{
  return value > 0.0;
}

static gboolean
bpw_overview_item_has_numbers (BpwOverviewItem *self)
{
  return self->evaluated && !self->evaluation.failed && self->evaluation.legal;
}

/* Memory per device as a share of device memory; < 0 when either is unknown. */
static double
bpw_overview_item_share (BpwOverviewItem *self)
{
  guint64 memory = bpw_overview_item_get_memory (self);

  if (memory == 0 || self->capacity == 0)
    return -1.0;
  return (double) memory / (double) self->capacity;
}

static BpwWorkloadPhase
bpw_overview_item_phase (BpwOverviewItem *self)
{
  return bpw_facts_row_get_scenario (self->scenario)->phase;
}

/* Prefill answers with its time to first token; training and decode with the step. */
static double
bpw_overview_item_latency (BpwOverviewItem *self)
{
  if (bpw_overview_item_phase (self) == BPW_WORKLOAD_PREFILL && self->evaluation.ttft_s > 0.0)
    return self->evaluation.ttft_s;
  return self->evaluation.step_time_s;
}

static char *
bpw_overview_item_format_evaluation (BpwOverviewItem   *self,
                                     BpwOverviewColumn  column)
{
  const BpwOverviewEvaluation *e = &self->evaluation;

  if (!self->evaluated)
    return g_strdup ("");
  if (column == BPW_OVERVIEW_COLUMN_LATENCY && e->failed)
    /* Translators: the candidate could not be evaluated (the tooltip says why) */
    return g_strdup (_("Failed"));
  if (column == BPW_OVERVIEW_COLUMN_LATENCY && !e->legal)
    /* Translators: the candidate cannot run the scenario (the tooltip says why) */
    return g_strdup (_("Illegal"));
  if (!bpw_overview_item_has_numbers (self))
    return g_strdup ("");

  switch (column)
    {
    case BPW_OVERVIEW_COLUMN_LATENCY:
      return bpw_format_seconds (bpw_overview_item_latency (self));
    case BPW_OVERVIEW_COLUMN_TPOT:
      return e->tpot_s > 0.0 ? bpw_format_seconds (e->tpot_s) : g_strdup ("");
    case BPW_OVERVIEW_COLUMN_MFU:
      return g_strdup_printf ("%.1f %%", 100.0 * e->mfu);
    case BPW_OVERVIEW_COLUMN_ENERGY:
      /* Not known (no idle power or energy figures) is a dash, never a zero. */
      return !bpw_overview_item_known (e->energy_j) ? g_strdup ("—") : bpw_format_si (e->energy_j, "J");
    case BPW_OVERVIEW_COLUMN_TOKENS_PER_JOULE:
      /* A bare number with its SI prefix ("1.52 k"): the column's title gives the unit. */
      return !bpw_overview_item_known (e->tokens_per_joule) ? g_strdup ("—")
                                          : g_strchomp (bpw_format_si (e->tokens_per_joule, ""));
    case BPW_OVERVIEW_COLUMN_BOTTLENECK:
      return g_strdup (e->bottleneck != NULL ? e->bottleneck : "");
    case BPW_OVERVIEW_COLUMN_SLA:
      switch (e->sla)
        {
        case BPW_SLA_MET:
          /* Translators: the service-level target is met */
          return g_strdup (_("Met"));
        case BPW_SLA_MISSED:
          return g_strdup (_("Missed"));
        case BPW_SLA_NONE:
        default:
          return g_strdup ("");
        }
    default:
      g_return_val_if_reached (NULL);
    }
}

char *
bpw_overview_item_format (BpwOverviewItem   *self,
                          BpwOverviewColumn  column,
                          BpwByteUnits       units)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_ITEM (self), NULL);

  if (bpw_overview_column_is_evaluation (column))
    return bpw_overview_item_format_evaluation (self, column);

  switch (column)
    {
    case BPW_OVERVIEW_COLUMN_CANDIDATE:
      return g_strdup (self->candidate);
    case BPW_OVERVIEW_COLUMN_SCENARIO:
      return g_strdup (bpw_facts_row_get_name (self->scenario));
    case BPW_OVERVIEW_COLUMN_PHASE:
      return bpw_facts_row_format (self->scenario, BPW_FACTS_COLUMN_PHASE, units);
    case BPW_OVERVIEW_COLUMN_DEVICES:
      return g_strdup_printf ("%" G_GINT64_FORMAT, self->devices);
    case BPW_OVERVIEW_COLUMN_CAPACITY:
      return self->capacity > 0 ? bpw_format_bytes (self->capacity, units) : g_strdup ("—");
    case BPW_OVERVIEW_COLUMN_MEMORY:
      {
        guint64 memory = bpw_overview_item_get_memory (self);

        return memory > 0 ? bpw_format_bytes (memory, units) : g_strdup ("—");
      }
    case BPW_OVERVIEW_COLUMN_MEMORY_SHARE:
      {
        double share = bpw_overview_item_share (self);

        return share < 0.0 ? g_strdup ("—") : g_strdup_printf ("%.0f %%", 100.0 * share);
      }
    default:
      break;
    }

  if (!bpw_overview_item_has_facts (self))
    return g_strdup ("—");

  switch (column)
    {
    case BPW_OVERVIEW_COLUMN_PARAMETERS:
      return bpw_format_parameters (self->parameters);
    case BPW_OVERVIEW_COLUMN_MODEL_FLOPS:
      return bpw_format_si (bpw_u128_to_double (self->flops_model), "FLOP");
    default:
      g_return_val_if_reached (NULL);
    }
}

/* The energy columns say that the figure is modelled, at which power, and from which of
 * the blueprint's figures, each with its status (measured, estimate…) and source. */
static char *
bpw_overview_item_energy_tooltip (BpwOverviewItem   *self,
                                  BpwOverviewColumn  column)
{
  const BpwOverviewEvaluation *e = &self->evaluation;
  const char *what = column == BPW_OVERVIEW_COLUMN_ENERGY
                     ? _("Energy per step of the whole job, modelled: idle power over the "
                         "step plus each operation’s FLOPs and bytes at the blueprint’s "
                         "energy figures; not measured")
                     : _("Tokens processed per joule (tokens per step ÷ energy per step), "
                         "modelled; not measured");
  g_autofree char *power = NULL;
  g_autofree char *average = NULL;

  if (!bpw_overview_item_has_numbers (self))
    return g_strdup (what);
  if (!bpw_overview_item_known (e->energy_j))
    return g_strdup_printf ("%s\n%s", what,
                            _("The blueprint gives no idle power or energy figures, so the "
                              "energy cannot be modelled"));
  power = bpw_format_si (e->power_w, "W");
  /* Translators: %s: the modelled average power of the whole job (energy ÷ step time) */
  average = g_strdup_printf (_("Average power %s (all devices)"), power);
  return g_strdup_printf ("%s\n%s\n%s", what, average,
                          e->energy_source != NULL ? e->energy_source : "");
}

static char *
bpw_overview_item_memory_tooltip (BpwOverviewItem *self)
{
  if (self->evaluated && !self->evaluation.failed && self->evaluation.peak_bytes > 0)
    return g_strdup (_("Peak device memory of the most loaded device in the candidate’s plan"));
  if (!bpw_overview_item_has_facts (self))
    return g_strdup (bpw_facts_row_get_error (self->scenario));
  return g_strdup (_("Weights, gradients, optimizer state, stored activations and KV cache on "
                     "the most loaded device; temporary buffers are not included"));
}

char *
bpw_overview_item_dup_tooltip (BpwOverviewItem   *self,
                               BpwOverviewColumn  column)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_ITEM (self), NULL);

  switch (column)
    {
    case BPW_OVERVIEW_COLUMN_CANDIDATE:
      if (self->blueprint_error != NULL)
        return g_strdup (self->blueprint_error);
      if (self->device != NULL)
        /* Translators: candidate tooltip: the device, then the blueprint it comes from */
        return g_strdup_printf (_("%s, blueprint %s"), self->device, self->blueprint_ref);
      return g_strdup_printf (_("Blueprint %s"), self->blueprint_ref);
    case BPW_OVERVIEW_COLUMN_SCENARIO:
      return bpw_facts_row_dup_tooltip (self->scenario, BPW_FACTS_COLUMN_SCENARIO);
    case BPW_OVERVIEW_COLUMN_PHASE:
      return bpw_facts_row_dup_tooltip (self->scenario, BPW_FACTS_COLUMN_PHASE);
    case BPW_OVERVIEW_COLUMN_DEVICES:
      return bpw_facts_row_format (self->scenario, BPW_FACTS_COLUMN_PARALLEL,
                                   BPW_BYTE_UNITS_BINARY);
    case BPW_OVERVIEW_COLUMN_PARAMETERS:
      return bpw_facts_row_dup_tooltip (self->scenario, BPW_FACTS_COLUMN_PARAMETERS);
    case BPW_OVERVIEW_COLUMN_MODEL_FLOPS:
      return bpw_facts_row_dup_tooltip (self->scenario, BPW_FACTS_COLUMN_FLOPS_MODEL);
    case BPW_OVERVIEW_COLUMN_LATENCY:
      if (self->evaluated && (self->evaluation.failed || !self->evaluation.legal))
        return g_strdup (self->evaluation.reason);
      return g_strdup (_("Step time for training and decode, time to first token for "
                         "prefill"));
    case BPW_OVERVIEW_COLUMN_MFU:
      return g_strdup (_("Model FLOPs utilisation: model FLOPs (Megatron/PaLM convention) over "
                         "step time × devices × dense matrix peak"));
    case BPW_OVERVIEW_COLUMN_ENERGY:
    case BPW_OVERVIEW_COLUMN_TOKENS_PER_JOULE:
      return bpw_overview_item_energy_tooltip (self, column);
    case BPW_OVERVIEW_COLUMN_MEMORY:
      return bpw_overview_item_memory_tooltip (self);
    case BPW_OVERVIEW_COLUMN_CAPACITY:
      if (self->blueprint_error != NULL)
        return g_strdup (self->blueprint_error);
      if (self->capacity == 0)
        return g_strdup (_("The blueprint gives no device memory capacity"));
      return g_strdup (_("Device memory of one device, from the blueprint"));
    case BPW_OVERVIEW_COLUMN_MEMORY_SHARE:
      if (bpw_overview_item_share (self) > 1.0)
        return g_strdup (_("Does not fit in device memory"));
      return g_strdup (_("Memory per device as a share of device memory"));
    case BPW_OVERVIEW_COLUMN_SLA:
      return g_strdup (_("Step time, TTFT and TPOT targets of the scenario; p99 latency "
                         "needs the serving simulation"));
    default:
      return NULL;
    }
}

const char *
bpw_overview_item_get_style (BpwOverviewItem   *self,
                             BpwOverviewColumn  column)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_ITEM (self), NULL);

  switch (column)
    {
    case BPW_OVERVIEW_COLUMN_MEMORY_SHARE:
      return bpw_overview_item_share (self) > 1.0 ? "error" : NULL;
    case BPW_OVERVIEW_COLUMN_CANDIDATE:
      return self->blueprint_error != NULL ? "error" : NULL;
    case BPW_OVERVIEW_COLUMN_LATENCY:
      return self->evaluated && (self->evaluation.failed || !self->evaluation.legal)
             ? "error" : NULL;
    case BPW_OVERVIEW_COLUMN_SLA:
      if (!bpw_overview_item_has_numbers (self) || self->evaluation.sla == BPW_SLA_NONE)
        return NULL;
      return self->evaluation.sla == BPW_SLA_MET ? "success" : "error";
    default:
      return NULL;
    }
}

static int
bpw_overview_item_cmp_double (double a,
                              double b)
{
  return (a > b) - (a < b);
}

static int
bpw_overview_item_compare_evaluation (BpwOverviewItem   *a,
                                      BpwOverviewItem   *b,
                                      BpwOverviewColumn  column)
{
  const BpwOverviewEvaluation *x = &a->evaluation;
  const BpwOverviewEvaluation *y = &b->evaluation;
  gboolean na = bpw_overview_item_has_numbers (a);
  gboolean nb = bpw_overview_item_has_numbers (b);

  /* Items without numbers (not evaluated, failed, illegal) go last. */
  if (na != nb)
    return (int) nb - (int) na;
  if (!na)
    return 0;

  switch (column)
    {
    case BPW_OVERVIEW_COLUMN_LATENCY:
      return bpw_overview_item_cmp_double (bpw_overview_item_latency (a),
                                           bpw_overview_item_latency (b));
    case BPW_OVERVIEW_COLUMN_TPOT:
      return bpw_overview_item_cmp_double (x->tpot_s, y->tpot_s);
    case BPW_OVERVIEW_COLUMN_MFU:
      return bpw_overview_item_cmp_double (x->mfu, y->mfu);
    case BPW_OVERVIEW_COLUMN_ENERGY:
      /* Unknown energy sorts after every known one. */
      if (!bpw_overview_item_known (x->energy_j) || !bpw_overview_item_known (y->energy_j))
        return (int) bpw_overview_item_known (y->energy_j)
               - (int) bpw_overview_item_known (x->energy_j);
      return bpw_overview_item_cmp_double (x->energy_j, y->energy_j);
    case BPW_OVERVIEW_COLUMN_TOKENS_PER_JOULE:
      if (!bpw_overview_item_known (x->tokens_per_joule)
          || !bpw_overview_item_known (y->tokens_per_joule))
        return (int) bpw_overview_item_known (y->tokens_per_joule)
               - (int) bpw_overview_item_known (x->tokens_per_joule);
      return bpw_overview_item_cmp_double (x->tokens_per_joule, y->tokens_per_joule);
    case BPW_OVERVIEW_COLUMN_BOTTLENECK:
      return g_strcmp0 (x->bottleneck, y->bottleneck);
    case BPW_OVERVIEW_COLUMN_SLA:
      return (int) x->sla - (int) y->sla;
    default:
      g_return_val_if_reached (0);
    }
}

int
bpw_overview_item_compare (BpwOverviewItem   *a,
                           BpwOverviewItem   *b,
                           BpwOverviewColumn  column)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_ITEM (a) && BPW_IS_OVERVIEW_ITEM (b), 0);

  if (bpw_overview_column_is_evaluation (column))
    return bpw_overview_item_compare_evaluation (a, b, column);

  switch (column)
    {
    case BPW_OVERVIEW_COLUMN_CANDIDATE:
      return g_utf8_collate (a->candidate, b->candidate);
    case BPW_OVERVIEW_COLUMN_SCENARIO:
      return bpw_facts_row_compare (a->scenario, b->scenario, BPW_FACTS_COLUMN_SCENARIO);
    case BPW_OVERVIEW_COLUMN_PHASE:
      return bpw_facts_row_compare (a->scenario, b->scenario, BPW_FACTS_COLUMN_PHASE);
    case BPW_OVERVIEW_COLUMN_DEVICES:
      return (a->devices > b->devices) - (a->devices < b->devices);
    case BPW_OVERVIEW_COLUMN_PARAMETERS:
      return bpw_facts_row_compare (a->scenario, b->scenario, BPW_FACTS_COLUMN_PARAMETERS);
    case BPW_OVERVIEW_COLUMN_MODEL_FLOPS:
      return bpw_facts_row_compare (a->scenario, b->scenario, BPW_FACTS_COLUMN_FLOPS_MODEL);
    case BPW_OVERVIEW_COLUMN_MEMORY:
      {
        guint64 x = bpw_overview_item_get_memory (a);
        guint64 y = bpw_overview_item_get_memory (b);

        return (x > y) - (x < y);
      }
    case BPW_OVERVIEW_COLUMN_CAPACITY:
      return (a->capacity > b->capacity) - (a->capacity < b->capacity);
    case BPW_OVERVIEW_COLUMN_MEMORY_SHARE:
      return bpw_overview_item_cmp_double (bpw_overview_item_share (a),
                                           bpw_overview_item_share (b));
    default:
      g_return_val_if_reached (0);
    }
}

const char *
bpw_overview_column_get_title (BpwOverviewColumn column)
{
  switch (column)
    {
    case BPW_OVERVIEW_COLUMN_CANDIDATE:
      return _("Candidate");
    case BPW_OVERVIEW_COLUMN_SCENARIO:
      return _("Scenario");
    case BPW_OVERVIEW_COLUMN_PHASE:
      return _("Phase");
    case BPW_OVERVIEW_COLUMN_DEVICES:
      return _("Devices");
    case BPW_OVERVIEW_COLUMN_PARAMETERS:
      return _("Parameters");
    case BPW_OVERVIEW_COLUMN_MODEL_FLOPS:
      return _("Model FLOPs / Step");
    case BPW_OVERVIEW_COLUMN_LATENCY:
      return _("Step Time / TTFT");
    case BPW_OVERVIEW_COLUMN_TPOT:
      /* Translators: time per output token */
      return _("TPOT");
    case BPW_OVERVIEW_COLUMN_MFU:
      /* Translators: model FLOPs utilisation */
      return _("MFU");
    case BPW_OVERVIEW_COLUMN_ENERGY:
      /* Translators: modelled energy of one step, in joules */
      return _("Energy / Step");
    case BPW_OVERVIEW_COLUMN_TOKENS_PER_JOULE:
      /* Translators: tokens per joule, a unit: keep it short */
      return _("Tokens / J");
    case BPW_OVERVIEW_COLUMN_MEMORY:
      return _("Memory / Device");
    case BPW_OVERVIEW_COLUMN_CAPACITY:
      return _("Device Memory");
    case BPW_OVERVIEW_COLUMN_MEMORY_SHARE:
      /* Translators: memory per device as a percentage of device memory */
      return _("Share");
    case BPW_OVERVIEW_COLUMN_BOTTLENECK:
      return _("Bottleneck");
    case BPW_OVERVIEW_COLUMN_SLA:
      /* Translators: service-level agreement (latency target) */
      return _("SLA");
    default:
      g_return_val_if_reached (NULL);
    }
}

gboolean
bpw_overview_column_is_numeric (BpwOverviewColumn column)
{
  switch (column)
    {
    case BPW_OVERVIEW_COLUMN_DEVICES:
    case BPW_OVERVIEW_COLUMN_PARAMETERS:
    case BPW_OVERVIEW_COLUMN_MODEL_FLOPS:
    case BPW_OVERVIEW_COLUMN_LATENCY:
    case BPW_OVERVIEW_COLUMN_TPOT:
    case BPW_OVERVIEW_COLUMN_MFU:
    case BPW_OVERVIEW_COLUMN_ENERGY:
    case BPW_OVERVIEW_COLUMN_TOKENS_PER_JOULE:
    case BPW_OVERVIEW_COLUMN_MEMORY:
    case BPW_OVERVIEW_COLUMN_CAPACITY:
    case BPW_OVERVIEW_COLUMN_MEMORY_SHARE:
      return TRUE;
    default:
      return FALSE;
    }
}

gboolean
bpw_overview_column_is_evaluation (BpwOverviewColumn column)
{
  switch (column)
    {
    case BPW_OVERVIEW_COLUMN_LATENCY:
    case BPW_OVERVIEW_COLUMN_TPOT:
    case BPW_OVERVIEW_COLUMN_MFU:
    case BPW_OVERVIEW_COLUMN_ENERGY:
    case BPW_OVERVIEW_COLUMN_TOKENS_PER_JOULE:
    case BPW_OVERVIEW_COLUMN_BOTTLENECK:
    case BPW_OVERVIEW_COLUMN_SLA:
      return TRUE;
    default:
      return FALSE;
    }
}

gboolean
bpw_overview_column_is_preliminary (BpwOverviewColumn column)
{
  return column == BPW_OVERVIEW_COLUMN_PHASE || column == BPW_OVERVIEW_COLUMN_PARAMETERS
         || column == BPW_OVERVIEW_COLUMN_MODEL_FLOPS;
}
