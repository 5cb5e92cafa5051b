/* bpw-scenario.c — scenario defaults and the rules that make a decomposition executable
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-scenario"

#include "config.h"

#include <string.h>

#include "bpw-i18n.h"
#include "bpw-scenario.h"
#include "bpw-model-spec.h"
#include "bpw-error.h"
#include "bpw-stage-split.h"

#define MAX_DEVICES   BPW_SCENARIO_MAX_DEVICES
#define MAX_TOKENS    BPW_SCENARIO_MAX_TOKENS

void
bpw_scenario_init_defaults (BpwScenario *scenario)
{
  *scenario = (BpwScenario) {
    .phase = BPW_WORKLOAD_TRAIN,
    .global_batch = 1,
    .micro_batch = 1,
    .seq = 2048,
    .context = 0,
    .recompute = BPW_RECOMPUTE_NONE,
    .dtype = BPW_DTYPE_BF16,
    .kv_dtype = BPW_DTYPE_BF16,
    .weight = 1.0,
  };
}

/* A default, not a limit: longer tables (rotary models, long-context variants) would make
 * a first look needlessly costly. */
#define BPW_SCENARIO_MAX_DEFAULT_SEQ 8192
#define BPW_SCENARIO_FALLBACK_SEQ    2048

gint64
bpw_scenario_default_seq (const BpwModelSpec *spec)
{
  g_return_val_if_fail (spec != NULL, BPW_SCENARIO_FALLBACK_SEQ);

  if (spec->positions == BPW_POSITION_LEARNED && spec->max_positions > 0 &&
      spec->max_positions <= BPW_SCENARIO_MAX_DEFAULT_SEQ)
    return spec->max_positions;
  return BPW_SCENARIO_FALLBACK_SEQ;
}

void
bpw_scenario_copy (BpwScenario       *dest,
                   const BpwScenario *src)
{
  if (dest == src)
    return;
  *dest = *src;
  dest->name = g_strdup (src->name);
}

void
bpw_scenario_clear (BpwScenario *scenario)
{
  g_clear_pointer (&scenario->name, g_free);
}

void
bpw_parallel_init_defaults (BpwParallel *parallel)
{
  *parallel = (BpwParallel) {
    .tp = 1, .pp = 1, .dp = 1, .ep = 1, .cp = 1,
    .cp_algorithm = BPW_CP_RING,
    .sp = FALSE,
    .zero = 0,
    .schedule = BPW_SCHEDULE_1F1B,
    .interleave = 1,
  };
}

gint64
bpw_parallel_devices (const BpwParallel *parallel)
{
  return parallel->tp * parallel->cp * parallel->pp * parallel->dp;
}

static const char * const cp_algorithm_names[] = { "ring", "allgather" };
G_STATIC_ASSERT (G_N_ELEMENTS (cp_algorithm_names) == BPW_N_CP_ALGORITHMS);

const char *
bpw_cp_algorithm_to_string (BpwCpAlgorithm algorithm)
{
  return (guint) algorithm < BPW_N_CP_ALGORITHMS ? cp_algorithm_names[algorithm] : "unknown";
}

gboolean
bpw_cp_algorithm_from_string (const char     *str,
                              BpwCpAlgorithm *out)
{
  for (guint i = 0; str != NULL && i < BPW_N_CP_ALGORITHMS; i++)
    if (g_strcmp0 (str, cp_algorithm_names[i]) == 0)
      {
        *out = (BpwCpAlgorithm) i;
        return TRUE;
      }
  return FALSE;
}

void
bpw_cp_contiguous_imbalance (gint64  cp,
                             gint64 *numerator,
                             gint64 *denominator)
{
  /* Rank r of cp contiguous chunks of c tokens computes c^2 (r + 1/2) scores; the average
   * over ranks is c^2 cp / 2, the last rank's c^2 (cp - 1/2). */
  *numerator = 2 * MAX (cp, 1) - 1;
  *denominator = MAX (cp, 1);
}

gint64
bpw_scenario_micro_batches (const BpwScenario *scenario,
                            const BpwParallel *parallel)
{
  gint64 per_replica = scenario->global_batch / MAX (parallel->dp, 1);

  return per_replica / MAX (scenario->micro_batch, 1);
}

gint64
bpw_scenario_default_micro_batch (BpwWorkloadPhase   phase,
                                  gint64             global_batch,
                                  const BpwParallel *parallel)
{
  gint64 dp = MAX (parallel->dp, 1), pp = MAX (parallel->pp, 1), per_replica;

  /* Training accumulates gradients over micro-batches of one sequence; inference has no
   * gradients to accumulate, and running the batch sequentially only multiplies the
   * weight reads. A batch that does not divide is left to bpw_scenario_validate(). */
  if (phase == BPW_WORKLOAD_TRAIN || global_batch < dp || global_batch % dp != 0)
    return 1;
  per_replica = global_batch / dp;
  if (pp == 1)
    return per_replica;
  return per_replica % pp == 0 ? per_replica / pp : 1;
}

#define FAIL(...) G_STMT_START {                                                 \
    g_set_error (error, BPW_ERROR, BPW_ERROR_ILLEGAL_PLAN, __VA_ARGS__);         \
    return FALSE;                                                                \
  } G_STMT_END

#define FAIL_INPUT(...) G_STMT_START {                                           \
    g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, __VA_ARGS__);        \
    return FALSE;                                                                \
  } G_STMT_END

static gboolean
bpw_scenario_validate_sizes (const BpwScenario *s,
                             const BpwParallel *p,
                             GError           **error)
{
  if (s->global_batch < 1 || s->global_batch > MAX_TOKENS)
    FAIL_INPUT (_("scenario.global_batch: expected a positive integer, got %" PRId64),
                s->global_batch);
  if (s->micro_batch < 1 || s->micro_batch > s->global_batch)
    FAIL_INPUT (_("scenario.micro_batch: expected an integer between 1 and the global batch %"
                PRId64 ", got %" PRId64), s->global_batch, s->micro_batch);
  if (s->seq < 1 || s->seq > MAX_TOKENS)
    FAIL_INPUT (_("scenario.seq: expected a positive integer, got %" PRId64), s->seq);
  if (s->context < 0 || s->context > MAX_TOKENS)
    FAIL_INPUT (_("scenario.context: expected a non-negative integer, got %" PRId64),
                s->context);
  if ((double) s->global_batch * (double) (s->seq + s->context) > (double) MAX_TOKENS)
    FAIL_INPUT (_("scenario: %" PRId64 " sequences of %" PRId64
                " tokens exceed the 2^40 tokens a step may hold"), s->global_batch,
                s->seq + s->context);
  if (s->dtype >= BPW_N_DTYPES || s->kv_dtype >= BPW_N_DTYPES)
    FAIL_INPUT (_("scenario.dtype: unknown data type"));
  if (!(s->weight >= 0.0 && s->weight <= 1e9))
    FAIL_INPUT (_("scenario.weight: expected a non-negative finite number, got %g"), s->weight);

  if (p->tp < 1 || p->pp < 1 || p->dp < 1 || p->ep < 1)
    FAIL_INPUT (_("parallel: tp, pp, dp and ep must be positive integers (got %" PRId64
                ", %" PRId64 ", %" PRId64 ", %" PRId64 ")"),
                p->tp, p->pp, p->dp, p->ep);
  if (p->cp < 1)
    FAIL_INPUT (_("parallel.cp: expected a positive integer, got %" PRId64), p->cp);
  if ((guint) p->cp_algorithm >= BPW_N_CP_ALGORITHMS)
    FAIL_INPUT (_("parallel.cp_algorithm: expected \xe2\x80\x9cring\xe2\x80\x9d or "
                  "\xe2\x80\x9c" "allgather\xe2\x80\x9d"));
  if (p->tp > MAX_DEVICES || p->pp > MAX_DEVICES || p->dp > MAX_DEVICES ||
      p->cp > MAX_DEVICES ||
      (double) p->tp * p->cp * p->pp * p->dp > (double) MAX_DEVICES)
    FAIL_INPUT (_("parallel: tp \xc3\x97 cp \xc3\x97 pp \xc3\x97 dp exceeds %" PRId64
                  " devices"), MAX_DEVICES);
  if (p->zero < 0 || p->zero > 3)
    FAIL_INPUT (_("parallel.zero: expected a ZeRO stage from 0 to 3, got %d"), p->zero);
  if (p->interleave < 1)
    FAIL_INPUT (_("parallel.interleave: expected a positive integer, got %" PRId64),
                p->interleave);
  /* Sequence parallelism splits the sequence over the tensor-parallel group: with one rank
   * there is nothing to split, and the plan would be priced as if it did something. */
  if (p->sp && p->tp == 1)
    FAIL_INPUT (_("parallel.sp: sequence parallelism needs tensor parallelism (tp \xe2\x89\xa5 2), "
                  "got tp 1"));
  return TRUE;
}

gboolean
bpw_scenario_validate (const BpwScenario  *s,
                       const BpwParallel  *p,
                       const BpwModelSpec *m,
                       GError            **error)
{
  if (!bpw_scenario_validate_sizes (s, p, error))
    return FALSE;

  if (s->global_batch % (p->dp * s->micro_batch) != 0)
    FAIL (_("the global batch of %" PRId64 " sequences does not split into whole "
          "micro-batches: it must be a multiple of dp \xc3\x97 micro-batch = %" PRId64
          " \xc3\x97 %" PRId64), s->global_batch, p->dp, s->micro_batch);
  if (s->phase != BPW_WORKLOAD_TRAIN && s->recompute != BPW_RECOMPUTE_NONE)
    FAIL (_("recomputation applies to training only; use --recompute none for %s"),
          bpw_workload_phase_to_string (s->phase));
  if (s->phase == BPW_WORKLOAD_DECODE && s->context < 1)
    FAIL_INPUT (_("scenario.context: decode needs at least one token in the KV cache"));

  /* A learned position table has one row per position: a longer sequence has no
   * embedding for its last positions. (Decode's context is left alone: the serving model
   * prices a whole batch's cache through it, not one sequence's positions.) */
  if (m->positions == BPW_POSITION_LEARNED && m->max_positions > 0
      && s->phase != BPW_WORKLOAD_DECODE && s->seq > m->max_positions)
    FAIL_INPUT (_("scenario.seq: %" PRId64 " positions exceed the model's learned "
                  "position table of %" PRId64 " (max_position_embeddings)"), s->seq,
                m->max_positions);
  if (s->images_set && s->images > 0 && !bpw_model_spec_has_vision (m))
    FAIL_INPUT (_("scenario.images: the model has no vision encoder"));
  if (s->images_set && (s->images < 0 || s->images > MAX_TOKENS))
    FAIL_INPUT (_("scenario.images: expected an integer between 0 and %" PRId64 ", got %"
                  PRId64), MAX_TOKENS, s->images);
  else if (s->phase != BPW_WORKLOAD_DECODE && bpw_model_spec_has_vision (m)
           && bpw_scenario_images (s, m) * bpw_model_spec_image_tokens (m) >= s->seq)
    FAIL_INPUT (_("scenario.seq: %" PRId64 " tokens leave no room for text after %" PRId64
                  " images of %" PRId64 " tokens each (seq counts the image tokens); give "
                  "a longer sequence or fewer images"),
                s->seq, bpw_scenario_images (s, m), bpw_model_spec_image_tokens (m));
  if (bpw_model_spec_has_vision (m)
      && (m->vision.heads % p->tp != 0 || m->vision.ffn % p->tp != 0))
    FAIL (_("tensor parallelism %" PRId64 " does not divide the vision encoder's %" PRId64
          " heads and MLP width %" PRId64), p->tp, m->vision.heads, m->vision.ffn);
  if (m->heads % p->tp != 0)
    FAIL (_("tensor parallelism %" PRId64 " does not divide the %" PRId64
          " attention heads"), p->tp, m->heads);
  if (m->kv_heads % p->tp != 0 && p->tp % m->kv_heads != 0)
    FAIL (_("tensor parallelism %" PRId64 " neither divides nor is a multiple of the %"
          PRId64 " key/value heads"), p->tp, m->kv_heads);
  if (m->ffn % p->tp != 0 || bpw_model_spec_expert_ffn (m) % p->tp != 0)
    FAIL (_("tensor parallelism %" PRId64 " does not divide the MLP width %"
          PRId64), p->tp, m->ffn);
  if (m->vocab % p->tp != 0)
    FAIL (_("tensor parallelism %" PRId64 " does not divide the vocabulary of %"
          PRId64 "; pad it to a multiple of %" PRId64 " as Megatron-LM does"),
          p->tp, m->vocab, p->tp);
  if (p->sp && s->phase != BPW_WORKLOAD_DECODE && s->seq % p->tp != 0)
    FAIL (_("sequence parallelism splits the %" PRId64 "-token sequence over %"
          PRId64 " ranks; it must be a multiple of tp"), s->seq, p->tp);
  if (p->cp > 1)
    {
      /* Decode adds one token per sequence per step: there is no sequence to split, and
       * splitting the KV cache instead is a different scheme (not modelled). */
      if (s->phase == BPW_WORKLOAD_DECODE)
        FAIL (_("context parallelism splits the sequence being processed; decode processes "
              "one token per sequence, so use cp 1 for decode (got cp %" PRId64 ")"), p->cp);
      if (s->seq % (2 * p->cp) != 0)
        FAIL (_("context parallelism %" PRId64 " cuts the %" PRId64 "-token sequence into "
              "2 \xc3\x97 cp = %" PRId64 " equal chunks (two per rank, balancing the causal "
              "mask); the sequence must be a multiple of %" PRId64), p->cp, s->seq,
              2 * p->cp, 2 * p->cp);
      if (p->sp && (s->seq / p->cp) % p->tp != 0)
        FAIL (_("sequence parallelism splits each context-parallel rank's %" PRId64
              " tokens over %" PRId64 " ranks; seq / cp must be a multiple of tp"),
              s->seq / p->cp, p->tp);
    }
  if (p->pp > m->layers)
    FAIL (_("pipeline parallelism %" PRId64 " exceeds the %" PRId64
          " layers"), p->pp, m->layers);
  if (p->schedule == BPW_SCHEDULE_INTERLEAVED)
    {
      if (p->pp < 2 || p->interleave < 2)
        FAIL (_("the interleaved schedule needs pp \xe2\x89\xa5 2 and interleave \xe2\x89\xa5 2"));
      if (bpw_scenario_micro_batches (s, p) % p->pp != 0)
        FAIL (_("the interleaved schedule needs the micro-batches per pipeline (%" PRId64
              ") to be a multiple of pp %" PRId64), bpw_scenario_micro_batches (s, p),
              p->pp);
    }
  if (p->schedule == BPW_SCHEDULE_ZB_H1 && s->phase == BPW_WORKLOAD_TRAIN &&
      s->recompute == BPW_RECOMPUTE_FULL)
    FAIL (_("the ZB-H1 schedule holds weight-gradient passes back, which would keep every "
          "activation full recomputation re-creates alive until then; use --recompute "
          "selective or none with it"));
  /* Layers that do not divide over the (virtual) stages are split unevenly. */
  if (!bpw_stage_split_check (p, m, error))
    return FALSE;
  if (p->ep > 1)
    {
      if (m->experts == 0)
        FAIL (_("expert parallelism %" PRId64 " needs a mixture-of-experts model"),
              p->ep);
      if (m->experts % p->ep != 0)
        FAIL (_("expert parallelism %" PRId64 " does not divide the %" PRId64
              " experts"), p->ep, m->experts);
      if (p->dp % p->ep != 0)
        FAIL (_("expert parallelism %" PRId64 " is carved out of data parallelism, so "
              "it must divide dp %" PRId64), p->ep, p->dp);
    }
  return TRUE;
}

gboolean
bpw_scenario_values_equal (const BpwScenario *a,
                           const BpwScenario *b)
{
  return a->phase == b->phase && a->global_batch == b->global_batch
         && a->micro_batch == b->micro_batch && a->seq == b->seq && a->context == b->context
         && a->recompute == b->recompute && a->dtype == b->dtype && a->kv_dtype == b->kv_dtype
         && a->optimizer_set == b->optimizer_set && a->launch == b->launch
         && (!a->optimizer_set || a->optimizer == b->optimizer) && a->weight == b->weight
         && a->sla_step_time == b->sla_step_time && a->sla_ttft == b->sla_ttft
         && a->sla_tpot == b->sla_tpot && a->sla_p99 == b->sla_p99
         && !a->images_set == !b->images_set && (!a->images_set || a->images == b->images)
         && !a->train_vision == !b->train_vision;
}

gint64
bpw_scenario_images (const BpwScenario  *scenario,
                     const BpwModelSpec *spec)
{
  if (!bpw_model_spec_has_vision (spec))
    return 0;
  return scenario->images_set ? scenario->images : 1;
}

gboolean
bpw_parallel_equal (const BpwParallel *a,
                    const BpwParallel *b)
{
  return a->tp == b->tp && a->pp == b->pp && a->dp == b->dp && a->ep == b->ep
         && a->cp == b->cp && a->cp_algorithm == b->cp_algorithm
         && !a->sp == !b->sp && a->zero == b->zero && a->schedule == b->schedule
         && a->interleave == b->interleave && a->pp_split == b->pp_split
         && a->pp_lighter == b->pp_lighter && a->n_stage_layers == b->n_stage_layers
         && memcmp (a->stage_layers, b->stage_layers,
                    sizeof a->stage_layers[0] * (gsize) CLAMP (a->n_stage_layers, 0,
                                                               BPW_PARALLEL_MAX_STAGE_LAYERS)) == 0;
}
