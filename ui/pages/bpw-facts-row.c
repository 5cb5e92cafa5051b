/* bpw-facts-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-facts-row"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "bpw-facts-row.h"

struct _BpwFactsRow
{
  GObject      parent_instance;

  /* Owned */
  char        *name;
  char        *suite;
  char        *workload;
  BpwScenario  scenario;
  BpwParallel  parallel;
  BpwFacts     facts;
  char        *error;
  gboolean     has_facts;
};

G_DEFINE_FINAL_TYPE (BpwFactsRow, bpw_facts_row, G_TYPE_OBJECT)

static const char *
bpw_facts_row_phase_label (BpwWorkloadPhase phase)
{
  switch (phase)
    {
    case BPW_WORKLOAD_TRAIN:
      return C_("phase", "Training");
    case BPW_WORKLOAD_PREFILL:
      return C_("phase", "Prefill");
    case BPW_WORKLOAD_DECODE:
      return C_("phase", "Decode");
    default:
      return "";
    }
}

static const char *
bpw_facts_row_recompute_label (BpwRecompute recompute)
{
  switch (recompute)
    {
    case BPW_RECOMPUTE_NONE:
      return _("no recompute");
    case BPW_RECOMPUTE_SELECTIVE:
      return _("selective recompute");
    case BPW_RECOMPUTE_FULL:
      return _("full recompute");
    default:
      return "";
    }
}

static char *
bpw_facts_row_format_parallel (const BpwParallel *p)
{
  GString *out = g_string_new (NULL);

  /* The degrees are technical abbreviations (tensor, pipeline, data, expert parallel),
   * the same in every language, as in the command line. */
  g_string_append_printf (out, "TP%" G_GINT64_FORMAT " PP%" G_GINT64_FORMAT
                          " DP%" G_GINT64_FORMAT, p->tp, p->pp, p->dp);
  if (p->ep > 1)
    g_string_append_printf (out, " EP%" G_GINT64_FORMAT, p->ep);
  if (p->sp)
    g_string_append (out, " SP");
  if (p->zero > 0)
    g_string_append_printf (out, " ZeRO-%d", p->zero);

  return g_string_free (out, FALSE);
}

static char *
bpw_facts_row_format_shape (const BpwScenario *s)
{
  if (s->phase == BPW_WORKLOAD_DECODE)
    /* Translators: decode batch × one new token, after this many tokens of context */
    return g_strdup_printf (_("%lld × 1 at %lld"),
                            (long long) s->global_batch, (long long) s->context);
  return g_strdup_printf ("%" G_GINT64_FORMAT " × %" G_GINT64_FORMAT,
                          s->global_batch, s->seq);
}

static guint64
bpw_facts_row_memory (BpwFactsRow    *self,
                      BpwFactsColumn  column)
{
  const BpwRankMemory *m = &self->facts.memory;

  switch (column)
    {
    case BPW_FACTS_COLUMN_WEIGHTS:
      return m->weights;
    case BPW_FACTS_COLUMN_GRADIENTS:
      return m->gradients;
    case BPW_FACTS_COLUMN_OPTIMIZER:
      return m->optimizer_state;
    case BPW_FACTS_COLUMN_ACTIVATIONS:
      return m->activations;
    case BPW_FACTS_COLUMN_KV_CACHE:
      return m->kv_cache;
    default:
      g_assert_not_reached ();
    }
}

static char *
bpw_facts_row_conservation_tooltip (BpwFactsRow *self)
{
  const BpwConservation *c = &self->facts.conservation;
  g_autofree char *semantic = bpw_format_count (c->semantic_flops);
  g_autofree char *distributed = bpw_format_count (c->distributed_flops);
  GString *out = g_string_new (NULL);

  if (c->ok)
    g_string_append (out, _("Every rank’s share reconciles with the work graph."));
  else
    g_string_append (out, c->message != NULL ? c->message
                                             : _("The ranks’ shares do not reconcile with the work graph."));

  g_string_append_printf (out, "\n%s %s FLOP", _("Semantic work:"), semantic);
  g_string_append_printf (out, "\n%s %s FLOP", _("Summed over ranks:"), distributed);

  for (guint i = 0; i < BPW_N_ADDITIONS; i++)
    {
      const BpwAdditionTotal *a = &c->additions[i];
      g_autofree char *flops = NULL;

      if (a->addition == BPW_ADDITION_NONE || (a->flops == 0 && a->bytes == 0))
        continue;
      flops = bpw_format_si (bpw_u128_to_double (a->flops), "FLOP");
      g_string_append_printf (out, "\n+ %s (%s): %s", bpw_addition_to_string (a->addition),
                              bpw_addition_describe (a->addition), flops);
    }

  return g_string_free (out, FALSE);
}

static void
bpw_facts_row_finalize (GObject *object)
{
  BpwFactsRow *self = (BpwFactsRow *) object;

  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->suite, g_free);
  g_clear_pointer (&self->workload, g_free);
  g_clear_pointer (&self->error, g_free);
  bpw_scenario_clear (&self->scenario);
  if (self->has_facts)
    bpw_facts_clear (&self->facts);

  G_OBJECT_CLASS (bpw_facts_row_parent_class)->finalize (object);
}

static void
bpw_facts_row_class_init (BpwFactsRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = bpw_facts_row_finalize;
}

static void
bpw_facts_row_init (BpwFactsRow *self)
{
  bpw_scenario_init_defaults (&self->scenario);
  bpw_parallel_init_defaults (&self->parallel);
}

BpwFactsRow *
bpw_facts_row_new (const char        *name,
                   const char        *suite,
                   const char        *workload,
                   const BpwScenario *scenario,
                   const BpwParallel *parallel,
                   BpwFacts          *facts,
                   const GError      *error)
{
  BpwFactsRow *self;

  g_return_val_if_fail (scenario != NULL, NULL);
  g_return_val_if_fail (parallel != NULL, NULL);
  g_return_val_if_fail (facts != NULL || error != NULL, NULL);

  self = g_object_new (BPW_TYPE_FACTS_ROW, NULL);
  self->name = g_strdup (name != NULL ? name : "");
  self->suite = g_strdup (suite != NULL ? suite : "");
  self->workload = g_strdup (workload != NULL ? workload : "");
  bpw_scenario_clear (&self->scenario);
  bpw_scenario_copy (&self->scenario, scenario);
  self->parallel = *parallel;

  if (error != NULL)
    self->error = g_strdup (error->message);
  else
    {
      self->facts = *facts;
      memset (facts, 0, sizeof *facts);
      self->has_facts = TRUE;
    }

  return self;
}

const char *
bpw_facts_row_get_name (BpwFactsRow *self)
{
  g_return_val_if_fail (BPW_IS_FACTS_ROW (self), NULL);
  return self->name;
}

const char *
bpw_facts_row_get_suite (BpwFactsRow *self)
{
  g_return_val_if_fail (BPW_IS_FACTS_ROW (self), NULL);
  return self->suite;
}

const char *
bpw_facts_row_get_workload (BpwFactsRow *self)
{
  g_return_val_if_fail (BPW_IS_FACTS_ROW (self), NULL);
  return self->workload;
}

const BpwScenario *
bpw_facts_row_get_scenario (BpwFactsRow *self)
{
  g_return_val_if_fail (BPW_IS_FACTS_ROW (self), NULL);
  return &self->scenario;
}

const BpwParallel *
bpw_facts_row_get_parallel (BpwFactsRow *self)
{
  g_return_val_if_fail (BPW_IS_FACTS_ROW (self), NULL);
  return &self->parallel;
}

const BpwFacts *
bpw_facts_row_get_facts (BpwFactsRow *self)
{
  g_return_val_if_fail (BPW_IS_FACTS_ROW (self), NULL);
  return self->has_facts ? &self->facts : NULL;
}

const char *
bpw_facts_row_get_error (BpwFactsRow *self)
{
  g_return_val_if_fail (BPW_IS_FACTS_ROW (self), NULL);
  return self->error;
}

char *
bpw_facts_row_format (BpwFactsRow    *self,
                      BpwFactsColumn  column,
                      BpwByteUnits    units)
{
  g_return_val_if_fail (BPW_IS_FACTS_ROW (self), NULL);

  switch (column)
    {
    case BPW_FACTS_COLUMN_SCENARIO:
      return g_strdup (self->name);
    case BPW_FACTS_COLUMN_WORKLOAD:
      return g_strdup (self->workload);
    case BPW_FACTS_COLUMN_PHASE:
      return g_strdup (bpw_facts_row_phase_label (self->scenario.phase));
    case BPW_FACTS_COLUMN_SHAPE:
      return bpw_facts_row_format_shape (&self->scenario);
    case BPW_FACTS_COLUMN_PARALLEL:
      return bpw_facts_row_format_parallel (&self->parallel);
    default:
      break;
    }

  if (!self->has_facts)
    return g_strdup (column == BPW_FACTS_COLUMN_CONSERVATION ? "✗" : "—");

  switch (column)
    {
    case BPW_FACTS_COLUMN_PARAMETERS:
      return bpw_format_parameters (self->facts.parameters);
    case BPW_FACTS_COLUMN_FLOPS_MODEL:
      return bpw_format_si (bpw_u128_to_double (self->facts.flops_model), "FLOP");
    case BPW_FACTS_COLUMN_FLOPS_HARDWARE:
      return bpw_format_si (bpw_u128_to_double (self->facts.flops_hardware), "FLOP");
    case BPW_FACTS_COLUMN_WEIGHTS:
    case BPW_FACTS_COLUMN_GRADIENTS:
    case BPW_FACTS_COLUMN_OPTIMIZER:
    case BPW_FACTS_COLUMN_ACTIVATIONS:
    case BPW_FACTS_COLUMN_KV_CACHE:
      return bpw_format_bytes (bpw_facts_row_memory (self, column), units);
    case BPW_FACTS_COLUMN_CONSERVATION:
      return g_strdup (self->facts.conservation.ok ? "✓" : "✗");
    default:
      g_return_val_if_reached (NULL);
    }
}

char *
bpw_facts_row_dup_tooltip (BpwFactsRow    *self,
                           BpwFactsColumn  column)
{
  g_return_val_if_fail (BPW_IS_FACTS_ROW (self), NULL);

  if (column == BPW_FACTS_COLUMN_SCENARIO)
    {
      if (self->suite[0] != '\0')
        /* Translators: the suite a scenario belongs to */
        return g_strdup_printf (_("%s, in suite %s"), self->name, self->suite);
      return g_strdup (self->name);
    }
  if (column == BPW_FACTS_COLUMN_PHASE)
    return g_strdup_printf ("%s · %s · %s", bpw_facts_row_phase_label (self->scenario.phase),
                            bpw_dtype_to_string (self->scenario.dtype),
                            bpw_facts_row_recompute_label (self->scenario.recompute));
  if (column == BPW_FACTS_COLUMN_SHAPE)
    {
      gint64 micro_batches = bpw_scenario_micro_batches (&self->scenario, &self->parallel);

      return g_strdup_printf (_("Global batch %lld, micro-batch %lld (%lld per pipeline), "
                                "sequence %lld"),
                              (long long) self->scenario.global_batch,
                              (long long) self->scenario.micro_batch,
                              (long long) micro_batches, (long long) self->scenario.seq);
    }
  if (column == BPW_FACTS_COLUMN_PARALLEL)
    {
      gint64 devices = bpw_parallel_devices (&self->parallel);

      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%lld device", "%lld devices",
                                           (gulong) MIN (devices, 1000000)),
                              (long long) devices);
    }
  if (column == BPW_FACTS_COLUMN_WORKLOAD)
    return g_strdup (self->workload);

  if (!self->has_facts)
    return g_strdup (self->error);

  switch (column)
    {
    case BPW_FACTS_COLUMN_PARAMETERS:
      {
        g_autofree char *all = bpw_format_count (self->facts.parameters);
        g_autofree char *active = bpw_format_count (self->facts.active_parameters);

        if (self->facts.active_parameters != self->facts.parameters)
          return g_strdup_printf (_("%s parameters, %s active per token"), all, active);
        return g_strdup_printf (_("%s parameters"), all);
      }
    case BPW_FACTS_COLUMN_FLOPS_MODEL:
      {
        g_autofree char *exact = bpw_format_count (self->facts.flops_model);

        return g_strdup_printf (_("%s FLOP per step, whole job: matrix multiplications of forward "
                                  "and backward, full attention matrix, no recompute "
                                  "(Megatron/PaLM convention)"), exact);
      }
    case BPW_FACTS_COLUMN_FLOPS_HARDWARE:
      {
        g_autofree char *exact = bpw_format_count (self->facts.flops_hardware);

        return g_strdup_printf (_("%s FLOP per step, whole job: everything executed, with "
                                  "recompute, optimizer and non-matmul work"), exact);
      }
    case BPW_FACTS_COLUMN_WEIGHTS:
    case BPW_FACTS_COLUMN_GRADIENTS:
    case BPW_FACTS_COLUMN_OPTIMIZER:
    case BPW_FACTS_COLUMN_ACTIVATIONS:
    case BPW_FACTS_COLUMN_KV_CACHE:
      {
        g_autofree char *exact = bpw_format_count (bpw_facts_row_memory (self, column));

        return g_strdup_printf (_("%s bytes on the most loaded device (pipeline stage %lld)"),
                                exact, (long long) self->facts.memory_stage);
      }
    case BPW_FACTS_COLUMN_CONSERVATION:
      return bpw_facts_row_conservation_tooltip (self);
    default:
      g_return_val_if_reached (NULL);
    }
}

static int
bpw_cmp_u128 (BpwU128 a,
              BpwU128 b)
{
  return (a > b) - (a < b);
}

int
bpw_facts_row_compare (BpwFactsRow    *a,
                       BpwFactsRow    *b,
                       BpwFactsColumn  column)
{
  g_return_val_if_fail (BPW_IS_FACTS_ROW (a) && BPW_IS_FACTS_ROW (b), 0);

  if (bpw_facts_column_is_numeric (column) && (!a->has_facts || !b->has_facts))
    return (int) b->has_facts - (int) a->has_facts;  /* rows without facts go last */

  switch (column)
    {
    case BPW_FACTS_COLUMN_SCENARIO:
      return g_utf8_collate (a->name, b->name);
    case BPW_FACTS_COLUMN_WORKLOAD:
      return g_utf8_collate (a->workload, b->workload);
    case BPW_FACTS_COLUMN_PHASE:
      return (int) a->scenario.phase - (int) b->scenario.phase;
    case BPW_FACTS_COLUMN_SHAPE:
      return bpw_cmp_u128 ((BpwU128) a->scenario.global_batch * (BpwU128) a->scenario.seq,
                           (BpwU128) b->scenario.global_batch * (BpwU128) b->scenario.seq);
    case BPW_FACTS_COLUMN_PARALLEL:
      return bpw_cmp_u128 (bpw_parallel_devices (&a->parallel),
                           bpw_parallel_devices (&b->parallel));
    case BPW_FACTS_COLUMN_PARAMETERS:
      return bpw_cmp_u128 (a->facts.parameters, b->facts.parameters);
    case BPW_FACTS_COLUMN_FLOPS_MODEL:
      return bpw_cmp_u128 (a->facts.flops_model, b->facts.flops_model);
    case BPW_FACTS_COLUMN_FLOPS_HARDWARE:
      return bpw_cmp_u128 (a->facts.flops_hardware, b->facts.flops_hardware);
    case BPW_FACTS_COLUMN_WEIGHTS:
    case BPW_FACTS_COLUMN_GRADIENTS:
    case BPW_FACTS_COLUMN_OPTIMIZER:
    case BPW_FACTS_COLUMN_ACTIVATIONS:
    case BPW_FACTS_COLUMN_KV_CACHE:
      return bpw_cmp_u128 (bpw_facts_row_memory (a, column), bpw_facts_row_memory (b, column));
    case BPW_FACTS_COLUMN_CONSERVATION:
      return (int) a->facts.conservation.ok - (int) b->facts.conservation.ok;
    default:
      g_return_val_if_reached (0);
    }
}

const char *
bpw_facts_column_get_title (BpwFactsColumn column)
{
  switch (column)
    {
    case BPW_FACTS_COLUMN_SCENARIO:
      return _("Scenario");
    case BPW_FACTS_COLUMN_WORKLOAD:
      return _("Workload");
    case BPW_FACTS_COLUMN_PHASE:
      return _("Phase");
    case BPW_FACTS_COLUMN_SHAPE:
      return _("Batch × Seq");
    case BPW_FACTS_COLUMN_PARALLEL:
      return _("Parallel");
    case BPW_FACTS_COLUMN_PARAMETERS:
      return _("Parameters");
    case BPW_FACTS_COLUMN_FLOPS_MODEL:
      return _("Model FLOPs");
    case BPW_FACTS_COLUMN_FLOPS_HARDWARE:
      return _("Hardware FLOPs");
    case BPW_FACTS_COLUMN_WEIGHTS:
      return _("Weights");
    case BPW_FACTS_COLUMN_GRADIENTS:
      return _("Gradients");
    case BPW_FACTS_COLUMN_OPTIMIZER:
      return _("Optimizer");
    case BPW_FACTS_COLUMN_ACTIVATIONS:
      return _("Activations");
    case BPW_FACTS_COLUMN_KV_CACHE:
      return _("KV Cache");
    case BPW_FACTS_COLUMN_CONSERVATION:
      /* Translators: short column title for the conservation check (✓ or ✗) */
      return _("Conserved");
    default:
      g_return_val_if_reached (NULL);
    }
}

gboolean
bpw_facts_column_is_numeric (BpwFactsColumn column)
{
  return column >= BPW_FACTS_COLUMN_PARAMETERS && column <= BPW_FACTS_COLUMN_KV_CACHE;
}
