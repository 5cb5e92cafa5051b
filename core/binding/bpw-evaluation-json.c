/* bpw-evaluation-json.c — the `bpw evaluate --json` object
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-evaluation-json"

#include "config.h"

#include <math.h>

#include "bpw-evaluation.h"
#include "bpw-evaluation-precision.h"
#include "bpw-json-writer.h"
#include "bpw-plan-collectives.h"

static void
number_or_null (BpwJsonWriter *w, const char *key, double value)
{
  if (isnan (value) || isinf (value))
    bpw_json_writer_null (w, key);
  else
    bpw_json_writer_double (w, key, value);
}

static void
write_plan (BpwJsonWriter *w, const BpwPlan *plan)
{
  const BpwMapping *m = &plan->mapping;
  static const char * const groups[BPW_N_GROUPS] = { "tp", "pp", "dp", "ep", "cp" };

  bpw_json_writer_begin_object (w, "plan");
  bpw_json_writer_string (w, "blueprint", plan->blueprint->name);
  bpw_json_writer_int (w, "devices", plan->devices);
  bpw_json_writer_int (w, "micro_batches", plan->micro_batches);
  {
    const BpwModelSpec *spec = &plan->dist->graph->spec;

    /* The window the attention FLOPs and KV cache of this plan follow, when there is one. */
    if (bpw_model_spec_window_layers (spec) > 0)
      {
        bpw_json_writer_begin_object (w, "sliding_window");
        bpw_json_writer_int (w, "tokens", spec->window);
        bpw_json_writer_int (w, "first_layer", spec->window_first);
        bpw_json_writer_int (w, "layers", bpw_model_spec_window_layers (spec));
        bpw_json_writer_end_object (w);
      }
  }
  bpw_json_writer_begin_object (w, "tiers");
  for (guint g = 0; g < BPW_N_GROUPS; g++)
    if (m->tier[g] >= 0 && (guint) m->tier[g] < plan->blueprint->n_tiers
        && (g != BPW_GROUP_CP || m->parallel.cp > 1))
      bpw_json_writer_string (w, groups[g], plan->blueprint->tiers[m->tier[g]].name);
  bpw_json_writer_end_object (w);
  bpw_plan_write_collectives (w, plan);
  bpw_json_writer_begin_array (w, "transformations");
  for (guint i = 0; i < plan->transformations->len; i++)
    {
      const BpwTransformation *t = &g_array_index (plan->transformations, BpwTransformation, i);

      bpw_json_writer_begin_object (w, NULL);
      bpw_json_writer_string (w, "name", t->name);
      bpw_json_writer_string (w, "description", t->description);
      bpw_json_writer_double (w, "flops", t->flops);
      bpw_json_writer_double (w, "bytes", t->bytes);
      bpw_json_writer_double (w, "count", t->count);
      if (t->implementation)
        {
          bpw_json_writer_string (w, "kind", "implementation");
          bpw_json_writer_double (w, "time_s", t->time_s);
        }
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_array (w);
  bpw_json_writer_begin_array (w, "memory_by_stage");
  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    {
      const BpwPlanMemory *pm = &plan->stages[s].memory;

      bpw_json_writer_begin_object (w, NULL);
      bpw_json_writer_double (w, "weights", pm->weights);
      bpw_json_writer_double (w, "gradients", pm->gradients);
      bpw_json_writer_double (w, "optimizer_state", pm->optimizer_state);
      bpw_json_writer_double (w, "activations", pm->activations);
      bpw_json_writer_double (w, "kv_cache", pm->kv_cache);
      bpw_json_writer_double (w, "temporaries", pm->temporaries);
      bpw_json_writer_double (w, "communication", pm->communication);
      bpw_json_writer_double (w, "optimizer_step", pm->optimizer_step);
      bpw_json_writer_double (w, "device_total", pm->device_total);
      bpw_json_writer_double (w, "host_total", pm->host_total);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_array (w);
  bpw_json_writer_end_object (w);
}

/* The classes a step's time falls into (DESIGN.md's bottleneck classes less capacity,
 * which is not a time, and dependency, which the model does not separate). */
static const BpwBottleneck time_classes[] = {
  BPW_BOTTLENECK_COMPUTE, BPW_BOTTLENECK_MEMORY, BPW_BOTTLENECK_LATENCY,
  BPW_BOTTLENECK_COMMUNICATION, BPW_BOTTLENECK_BUBBLE,
};

/* mfu_by_layer_type, time_s_by_layer_type and bottleneck_by_layer_type: every bucket
 * (layer type or "other") that takes time. */
static void
write_layers (BpwJsonWriter *w, const BpwEvaluation *e)
{
  bpw_json_writer_begin_object (w, "mfu_by_layer_type");
  for (guint b = 0; b < BPW_N_LAYER_BUCKETS; b++)
    if (bpw_evaluation_layer_time (e, b) > 0 && !isnan (e->layer_mfu[b]))
      bpw_json_writer_double (w, bpw_layer_bucket_to_string (b), e->layer_mfu[b]);
  bpw_json_writer_end_object (w);
  bpw_json_writer_begin_object (w, "time_s_by_layer_type");
  for (guint b = 0; b < BPW_N_LAYER_BUCKETS; b++)
    if (bpw_evaluation_layer_time (e, b) > 0)
      bpw_json_writer_double (w, bpw_layer_bucket_to_string (b), bpw_evaluation_layer_time (e, b));
  bpw_json_writer_end_object (w);
  bpw_json_writer_begin_object (w, "bottleneck_by_layer_type");
  for (guint b = 0; b < BPW_N_LAYER_BUCKETS; b++)
    {
      if (bpw_evaluation_layer_time (e, b) <= 0)
        continue;
      bpw_json_writer_begin_object (w, bpw_layer_bucket_to_string (b));
      for (guint i = 0; i < G_N_ELEMENTS (time_classes); i++)
        bpw_json_writer_double (w, bpw_bottleneck_to_string (time_classes[i]),
                                e->layer_class_s[b][time_classes[i]]);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_object (w);
}

/* "precision": time and FLOPs by precision, the fallbacks with their reasons and counts,
 * and the modes the plan is credited for with their predicted gain (a mode whose gain
 * cannot be computed is listed with null). */
static void
write_precision (BpwJsonWriter *w, const BpwPlan *plan)
{
  g_autoptr(GArray) shares = bpw_plan_precision_shares (plan);
  g_autoptr(GArray) fallbacks = bpw_plan_precision_fallbacks (plan);
  g_autoptr(GArray) modes = bpw_evaluation_precision_modes (plan, NULL);

  bpw_json_writer_begin_object (w, "precision");
  bpw_json_writer_string (w, "policy", plan->mapping.precision.set ? "mapping" : "scenario");
  bpw_json_writer_string (w, "sparse_convention", "2:4 sparse weight matmuls run at twice "
                          "the engine's dense peak and read half the weight bytes plus 2 bits "
                          "of metadata per kept element; their FLOPs are the dense model's");
  bpw_json_writer_begin_array (w, "by_precision");
  for (guint i = 0; i < shares->len; i++)
    {
      const BpwPrecisionShare *p = &g_array_index (shares, BpwPrecisionShare, i);

      bpw_json_writer_begin_object (w, NULL);
      bpw_json_writer_string (w, "precision", p->name);
      bpw_json_writer_string (w, "sparsity", p->sparse ? "2:4" : "dense");
      bpw_json_writer_double (w, "time_s", p->time_s);
      bpw_json_writer_double (w, "flops", p->flops);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_array (w);
  bpw_json_writer_begin_array (w, "fallbacks");
  for (guint i = 0; i < fallbacks->len; i++)
    {
      const BpwPrecisionFallback *f = &g_array_index (fallbacks, BpwPrecisionFallback, i);

      bpw_json_writer_begin_object (w, NULL);
      bpw_json_writer_string (w, "class", bpw_matmul_class_to_string (f->cls));
      bpw_json_writer_string (w, "wanted", bpw_number_format_to_string (f->wanted));
      bpw_json_writer_string (w, "precision", "bf16");
      bpw_json_writer_string (w, "reason", bpw_fallback_to_string (f->reason));
      bpw_json_writer_string (w, "explanation", bpw_fallback_explanation (f->reason));
      bpw_json_writer_int (w, "operations", f->operations);
      bpw_json_writer_double (w, "executions", f->executions);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_array (w);
  bpw_json_writer_begin_array (w, "modes");
  for (guint i = 0; modes != NULL && i < modes->len; i++)
    {
      const BpwPrecisionMode *m = &g_array_index (modes, BpwPrecisionMode, i);

      bpw_json_writer_begin_object (w, NULL);
      bpw_json_writer_string (w, "mode", m->mode);
      number_or_null (w, "time_ratio", m->time_ratio);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_array (w);
  bpw_json_writer_end_object (w);
}

char *
bpw_evaluation_to_json (const BpwEvaluation *e,
                        const BpwPlan       *plan,
                        GPtrArray           *reasons)
{
  BpwJsonWriter w;

  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_begin_object (&w, NULL);
  bpw_json_writer_bool (&w, "legal", e->legal);
  bpw_json_writer_begin_array (&w, "reasons");
  for (guint i = 0; reasons != NULL && i < reasons->len; i++)
    bpw_json_writer_string (&w, NULL, reasons->pdata[i]);
  bpw_json_writer_end_array (&w);
  bpw_json_writer_double (&w, "step_time_s", e->step_time_s);
  bpw_json_writer_double (&w, "mfu", e->mfu);
  bpw_json_writer_double (&w, "hfu", e->hfu);
  bpw_json_writer_string (&w, "mfu_convention", "model FLOPs (matmuls of forward and "
                          "backward, full attention matrix or its sliding-window band, logits, no "
                          "recompute) / (step "
                          "time x devices x dense matrix peak); HFU counts executed matmul "
                          "FLOPs including recompute; by layer type L: model FLOPs of L / "
                          "(time of L x devices x dense matrix peak), where the time of L "
                          "is the mean over all devices of the time L's operations take "
                          "(its tasks and the exposed TP and EP collectives serving them) "
                          "and \"other\" the rest of the step (pipeline bubble, pipeline "
                          "sends, DP and ZeRO traffic; no model FLOPs): the time shares "
                          "add up to 1 and the time-weighted mean of the layer types' MFU "
                          "is the step MFU");
  bpw_json_writer_double (&w, "model_flops", e->model_flops);
  bpw_json_writer_double (&w, "hardware_flops", e->hardware_flops);
  bpw_json_writer_begin_object (&w, "memory");
  bpw_json_writer_double (&w, "peak_bytes", e->peak_bytes);
  bpw_json_writer_int (&w, "peak_stage", e->peak_stage);
  bpw_json_writer_double (&w, "capacity_bytes", e->capacity_bytes);
  bpw_json_writer_end_object (&w);
  bpw_json_writer_begin_object (&w, "breakdown_s");
  for (guint b = 0; b < BPW_N_BREAKDOWNS; b++)
    bpw_json_writer_double (&w, bpw_breakdown_to_string (b), e->breakdown_s[b]);
  bpw_json_writer_end_object (&w);
  bpw_json_writer_begin_object (&w, "memory_stall_fraction_by_layer_type");
  for (guint l = 0; l < BPW_N_LAYER_TYPES; l++)
    if (!isnan (e->stall_fraction[l]))
      bpw_json_writer_double (&w, bpw_layer_type_to_string (l), e->stall_fraction[l]);
  bpw_json_writer_end_object (&w);
  write_layers (&w, e);
  bpw_json_writer_string (&w, "bottleneck", bpw_bottleneck_to_string (e->bottleneck));
  bpw_json_writer_int (&w, "slowest_stage", e->slowest_stage);
  bpw_json_writer_double (&w, "communication_on_link_s", e->comm_link_s);
  number_or_null (&w, "energy_j", e->energy_j);
  number_or_null (&w, "average_power_w", e->average_power_w);
  number_or_null (&w, "tokens_per_s", e->tokens_per_s);
  number_or_null (&w, "tokens_per_joule", e->tokens_per_joule);
  number_or_null (&w, "ttft_s", e->ttft_s);
  number_or_null (&w, "tpot_s", e->tpot_s);
  if (plan != NULL)
    {
      write_plan (&w, plan);
      write_precision (&w, plan);
    }
  bpw_json_writer_end_object (&w);
  return bpw_json_writer_finish (&w);
}
