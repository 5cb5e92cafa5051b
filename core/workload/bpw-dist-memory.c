/* bpw-dist-memory.c — bytes each rank of a pipeline stage holds
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Persistent state follows ZeRO (Rajbhandari et al. 2020, §5): stage 1 shards optimizer
 * state (moments and master weights), stage 2 also gradients, stage 3 also weights, over
 * the data-parallel group (dp / ep for expert parameters). Activations follow the reads of
 * the backward pass: a tensor is stored when backward reads it, and a stage holds the
 * stored tensors of every micro-batch in flight under its pipeline schedule.
 */
#define G_LOG_DOMAIN "bpw-dist-memory"

#include "config.h"

#include "bpw-dist-work-private.h"

/* Micro-batches whose activations a stage holds at its peak. */
gint64
_bpw_dist_work_in_flight (BpwWorkloadPhase phase,
                          BpwSchedule      schedule,
                          gint64           micro_batches,
                          gint64           pp,
                          gint64           stage)
{
  if (phase != BPW_WORKLOAD_TRAIN)
    return MIN (micro_batches, pp);
  switch (schedule)
    {
    case BPW_SCHEDULE_GPIPE:
      return micro_batches;
    case BPW_SCHEDULE_ZB_H1:
      /* Stage s holds p − s forwards as in 1F1B and s weight-gradient passes back, whose
       * inputs live until W: p micro-batches on every stage, 1F1B's first stage's peak
       * (Qi et al.). The output gradients a B pass leaves to its W are not counted: the
       * simulation holds them, a few per cent more (test-pipeline). */
      return MIN (micro_batches, pp);
    case BPW_SCHEDULE_1F1B:
    case BPW_SCHEDULE_INTERLEAVED:
    default:
      return MIN (micro_batches, pp - stage);
    }
}

gint64
_bpw_dist_work_chunks_in_flight (gint64 micro_batches,
                                 gint64 pp,
                                 gint64 v,
                                 gint64 stage)
{
  gint64 units = micro_batches * v;
  gint64 warmup = micro_batches == pp ? units
                  : MIN ((pp - stage - 1) * 2 + (v - 1) * pp, units);

  return MAX (MIN (units, warmup + 1), 1);
}

static gint64
in_flight (const BpwDistWork *dist, gint64 stage)
{
  return _bpw_dist_work_in_flight (dist->graph->scenario.phase, dist->parallel.schedule,
                                   dist->micro_batches_per_pipeline, dist->parallel.pp, stage);
}

/* One tensor's per-rank bytes into its category of @mem; stored activations, KV cache and
 * the activations live during one layer's (re)computation go to their own sums. */
void
_bpw_dist_work_account_tensor (const BpwDistWork *dist,
                               const BpwTensor   *t,
                               BpwRankMemory     *mem,
                               guint64           *stored,
                               guint64           *kv,
                               guint64           *live)
{
  const BpwParallel *p = &dist->parallel;
  gboolean train = dist->graph->scenario.phase == BPW_WORKLOAD_TRAIN;
  gboolean expert = t->split == BPW_SPLIT_EXPERT;
  /* ZeRO shards over the ranks that hold the same weights: dp × cp (Megatron-LM's
   * distributed optimizer over the DP × CP group). */
  guint64 dp_group = (expert ? (guint64) (p->dp / p->ep) : (guint64) p->dp) * (guint64) p->cp;
  guint64 bytes = _bpw_dist_work_tensor_rank_bytes (dist, t);

  switch ((BpwTensorKind) t->kind)
    {
    case BPW_TENSOR_WEIGHT:
      mem->parameters = sat_add (mem->parameters,
                                 ceil_div (t->elements, _bpw_dist_work_tensor_parts (dist, t)));
      mem->weights = sat_add (mem->weights, p->zero >= 3 ? ceil_div (bytes, dp_group) : bytes);
      break;
    case BPW_TENSOR_GRADIENT:
      mem->gradients = sat_add (mem->gradients,
                                p->zero >= 2 ? ceil_div (bytes, dp_group) : bytes);
      break;
    case BPW_TENSOR_OPTIMIZER_STATE:
    case BPW_TENSOR_MASTER_WEIGHT:
      mem->optimizer_state = sat_add (mem->optimizer_state,
                                      p->zero >= 1 ? ceil_div (bytes, dp_group) : bytes);
      break;
    case BPW_TENSOR_KV_CACHE:
      *kv = sat_add (*kv, bytes);
      break;
    case BPW_TENSOR_ACTIVATION:
      if (t->stored == BPW_STORED_CHECKPOINT)
        *stored = sat_add (*stored, bytes);
      else if (t->layer >= 0 && t->stored == (train ? BPW_STORED_RECOMPUTED : BPW_STORED_NO))
        *live = sat_add (*live, bytes);
      break;
    case BPW_TENSOR_ACTIVATION_GRAD:
    case BPW_TENSOR_COMMUNICATION:
    case BPW_N_TENSOR_KINDS:
    default:
      break;
    }
}

static void
stage_memory (BpwDistWork *dist, BpwStage *st)
{
  const BpwWorkGraph *g = dist->graph;
  const BpwParallel *p = &dist->parallel;
  const BpwModelSpec *m = &g->spec;
  gboolean train = g->scenario.phase == BPW_WORKLOAD_TRAIN;
  BpwRankMemory *mem = &st->memory;
  g_autofree guint64 *layer_live = g_new0 (guint64, st->n_layers + 1);
  guint64 stored = 0, kv = 0;
  gint64 flight = in_flight (dist, st->index);

  for (guint i = 0; i < g->tensors->len; i++)
    {
      const BpwTensor *t = bpw_work_graph_tensor (g, i);
      guint64 live = 0;

      gint64 stage, slot;

      bpw_dist_work_place_layer (dist, t->layer, &stage, NULL, &slot);
      if (stage != st->index)
        continue;
      _bpw_dist_work_account_tensor (dist, t, mem, &stored, &kv, &live);
      if (live > 0 && slot >= 0)
        layer_live[slot] = sat_add (layer_live[slot], live);
    }

  /* Tied embeddings, or MTP modules: the last stage of a pipeline keeps its own copy of the
   * table. */
  if (_bpw_dist_work_last_stage_embedding (dist) && st->has_head)
    {
      guint64 elements = ceil_div ((guint64) m->vocab * m->hidden, p->tp);
      guint moments = (g->scenario.optimizer_set ? g->scenario.optimizer : m->optimizer)
                      == BPW_OPTIMIZER_ADAM ? 2 : 1;
      guint64 w = elements * bpw_dtype_bytes (m->param_dtype);

      mem->parameters = sat_add (mem->parameters, elements);
      mem->weights = sat_add (mem->weights, p->zero >= 3 ? ceil_div (w, p->dp * p->cp) : w);
      if (train)
        {
          guint64 gr = elements * bpw_dtype_bytes (m->gradient_dtype);
          guint64 os = elements * moments * bpw_dtype_bytes (m->optimizer_dtype) +
                       (m->master_dtype != m->param_dtype
                        ? elements * bpw_dtype_bytes (m->master_dtype) : 0);

          mem->gradients = sat_add (mem->gradients,
                                    p->zero >= 2 ? ceil_div (gr, p->dp * p->cp) : gr);
          mem->optimizer_state = sat_add (mem->optimizer_state,
                                          p->zero >= 1 ? ceil_div (os, p->dp * p->cp) : os);
        }
    }

  mem->in_flight = flight;
  if (train)
    {
      guint64 working = 0;

      /* Interleaving v chunks per rank holds its chunks in flight, each 1/v of the stage
       * (stage 0: p + (p − 1)/v micro-batches, Korthikanti §4.2.3); the product is taken
       * in 128 bits so that only a result beyond 64 bits saturates. */
      if (p->schedule == BPW_SCHEDULE_INTERLEAVED && p->interleave > 1)
        {
          gint64 chunks = _bpw_dist_work_chunks_in_flight (dist->micro_batches_per_pipeline,
                                                           p->pp, p->interleave, st->index);
          BpwU128 num = (BpwU128) stored * (guint64) chunks;
          guint64 den = (guint64) p->interleave;
          BpwU128 q = num / den + (num % den != 0);

          stored = q > G_MAXUINT64 ? G_MAXUINT64 : (guint64) q;
          mem->in_flight = (chunks + p->interleave - 1) / p->interleave;
        }
      else
        stored = sat_mul (stored, (guint64) flight);
      /* Recomputation re-creates one layer's activations at a time during backward. */
      if (g->scenario.recompute != BPW_RECOMPUTE_NONE)
        for (gint64 l = 0; l < st->n_layers; l++)
          working = MAX (working, layer_live[l]);
      mem->activations = sat_add (sat_add (stored, working),
                                  _bpw_dist_work_cp_kv_buffer_bytes (dist));
    }
  else
    {
      /* Inference keeps no activations for backward; the largest layer's tensors bound
       * what is live while it runs, for each micro-batch in flight in the pipeline. */
      guint64 largest = 0;

      for (gint64 l = 0; l < st->n_layers; l++)
        largest = MAX (largest, layer_live[l]);
      mem->activations = sat_add (sat_mul (largest, (guint64) flight),
                                  _bpw_dist_work_cp_kv_buffer_bytes (dist));
    }
  /* Every sequence of the replica is resident in the cache. */
  mem->kv_cache = sat_mul (kv, (guint64) dist->micro_batches_per_pipeline);
}

gboolean
_bpw_dist_work_compute_memory (BpwDistWork *dist)
{
  BpwU128 heaviest = 0;
  gboolean fits = TRUE;

  for (gint64 s = 0; s < dist->n_stages; s++)
    {
      BpwRankMemory *mem = &dist->stages[s].memory;
      BpwU128 total;

      stage_memory (dist, &dist->stages[s]);
      /* Five 64-bit terms cannot overflow 128 bits. */
      total = (BpwU128) mem->weights + mem->gradients + mem->optimizer_state +
              mem->activations + mem->kv_cache;
      if (s == 0 || total > heaviest)
        {
          heaviest = total;
          dist->heaviest_stage = s;
        }
      if (mem->parameters == G_MAXUINT64 || mem->weights == G_MAXUINT64 ||
          mem->gradients == G_MAXUINT64 || mem->optimizer_state == G_MAXUINT64 ||
          mem->activations == G_MAXUINT64 || mem->kv_cache == G_MAXUINT64)
        fits = FALSE;
    }
  return fits;
}
