/* test-conservation.c — distributed work reconciles with the work graph over a matrix of plans
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For every combination of TP, SP, PP, DP, ZeRO, recompute (and EP, capacity for MoE) the
 * report must say ok, and the test re-derives the reconciliation itself from the per-stage
 * tasks: every op's work summed over the ranks equals the graph op's work, or exceeds it only
 * through a named addition. Model FLOPs and parameters are checked against closed forms and
 * must not move with the decomposition.
 */
#define G_LOG_DOMAIN "bpw-test-conservation"
#include "config.h"

#include <string.h>

#include "bpw-test-oracle.h"

static void
config_check_u128 (BpwU128 got, BpwU128 want, const char *what, const char *config,
                   const char *file, int line, const char *func)
{
  g_autofree char *g = NULL;
  g_autofree char *w = NULL;
  g_autofree char *msg = NULL;

  if (got == want)
    return;
  g = bpw_oracle_u128_str (got);
  w = bpw_oracle_u128_str (want);
  msg = g_strdup_printf ("[%s] %s: got %s, expected %s", config, what, g, w);
  g_assertion_message (G_LOG_DOMAIN, file, line, func, msg);
}

static void
config_check_true (gboolean cond, const char *what, const char *config,
                   const char *file, int line, const char *func)
{
  g_autofree char *msg = NULL;

  if (cond)
    return;
  msg = g_strdup_printf ("[%s] %s", config, what);
  g_assertion_message (G_LOG_DOMAIN, file, line, func, msg);
}

#define check_u128(got, want, what) \
  config_check_u128 ((got), (want), (what), cfg, __FILE__, __LINE__, G_STRFUNC)
#define check_true(cond, what) \
  config_check_true ((cond), (what), cfg, __FILE__, __LINE__, G_STRFUNC)

/* ---- small models, so the matrix stays fast ---- */

static void
small_gpt (BpwModelSpec *s)
{
  bpw_oracle_gpt_spec (s, "gpt-small", 1024, 256, 8, 8, 32, 1024, 128);
}

static void
small_moe (BpwModelSpec *s)
{
  small_gpt (s);
  g_free (s->name);
  s->name = g_strdup ("moe-small");
  s->layers = 4;
  s->kv_heads = 2;
  s->ffn = 512;
  s->ffn_kind = BPW_FFN_SWIGLU;
  s->norm = BPW_NORM_RMSNORM;
  s->positions = BPW_POSITION_ROTARY;
  s->tied_embeddings = FALSE;
  s->qkv_bias = FALSE;
  s->linear_bias = FALSE;
  s->dropout = FALSE;
  s->experts = 8;
  s->top_k = 2;
  s->moe_ffn = 0;
  s->moe_every = 1;
  s->moe_first = 0;
}

/* ---- one configuration ---- */

typedef struct
{
  gint64        tp, pp, dp, ep;
  gboolean      sp;
  gint          zero;
  BpwRecompute  rc;
  double        capacity;
  BpwWorkloadPhase phase;
} Config;

static char *
config_str (const BpwModelSpec *s, const Config *c)
{
  return g_strdup_printf ("%s %s tp%" G_GINT64_FORMAT "%s pp%" G_GINT64_FORMAT " dp%"
                          G_GINT64_FORMAT " ep%" G_GINT64_FORMAT " zero%d %s cf%.2f",
                          s->name, bpw_workload_phase_to_string (c->phase), c->tp,
                          c->sp ? "+sp" : "", c->pp, c->dp, c->ep, c->zero,
                          bpw_recompute_to_string (c->rc), c->capacity);
}

static void
setup (const Config *c, BpwScenario *sc, BpwParallel *p, gint64 *batch, gint64 *seq)
{
  bpw_scenario_init_defaults (sc);
  sc->phase = c->phase;
  *seq = 128;
  /* Four micro-batches per pipeline: enough to fill PP 4 under 1F1B. */
  *batch = c->dp * 4;
  sc->global_batch = *batch;
  sc->micro_batch = 1;
  sc->seq = c->phase == BPW_WORKLOAD_DECODE ? 1 : *seq;
  sc->context = c->phase == BPW_WORKLOAD_DECODE ? 64 : 0;
  sc->recompute = c->phase == BPW_WORKLOAD_TRAIN ? c->rc : BPW_RECOMPUTE_NONE;
  sc->dtype = BPW_DTYPE_BF16;
  sc->kv_dtype = BPW_DTYPE_BF16;

  bpw_parallel_init_defaults (p);
  p->tp = c->tp;
  p->pp = c->pp;
  p->dp = c->dp;
  p->ep = c->ep;
  p->sp = c->sp;
  p->zero = c->zero;
  p->schedule = BPW_SCHEDULE_1F1B;
  p->interleave = 1;
}

/* Sums every rank's tasks per lineage id and compares with the graph, independently of the
 * implementation's own check. */
static void
reconcile (const BpwDistWork *d, const BpwConservation *rep, const char *cfg)
{
  const BpwWorkGraph *g = d->graph;
  guint n = g->ops->len;
  g_autofree BpwU128 *ranks = g_new0 (BpwU128, n);
  g_autofree gboolean *added = g_new0 (gboolean, n);
  BpwU128 graph = 0, semantic = 0, dist = 0;
  gint64 rank_per_stage = d->parallel.tp * d->parallel.dp;
  gint64 k;
  guint i, bad = 0;

  check_true (bpw_dist_work_n_ranks (d) == d->parallel.tp * d->parallel.pp * d->parallel.dp,
              "ranks = tp * pp * dp");
  for (k = 0; k < d->n_stages; k++)
    {
      const BpwStage *st = &d->stages[k];
      guint t;

      for (t = 0; t < st->tasks->len; t++)
        {
          const BpwTask *task = &g_array_index (st->tasks, BpwTask, t);
          BpwU128 w = (BpwU128) task->flops * task->count * rank_per_stage;

          check_true (task->op < n, "task names an op of the graph");
          if (task->op >= n)
            continue;
          ranks[task->op] += w;
          dist += w;
          if (task->addition != BPW_ADDITION_NONE)
            added[task->op] = TRUE;
        }
    }
  for (i = 0; i < n; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);
      BpwU128 want = (BpwU128) op->flops * op->count;

      g_assert_cmpuint (op->lineage, ==, i);
      graph += want;
      /* Recompute is an addition as a whole: none of its work is the model's mathematics. */
      if (op->addition != BPW_ADDITION_RECOMPUTE)
        semantic += (BpwU128) op->semantic_flops * op->count;
      check_true (op->semantic_flops <= op->flops, "semantic <= executed per op");
      if (ranks[i] < want || (!added[i] && ranks[i] != want))
        {
          if (bad++ < 5)
            {
              g_autofree char *a = bpw_oracle_u128_str (ranks[i]);
              g_autofree char *b = bpw_oracle_u128_str (want);

              g_test_message ("[%s] op %u %s: ranks sum %s, graph %s", cfg, i,
                              bpw_work_graph_name (g, op->name), a, b);
            }
        }
    }
  check_true (bad == 0, "every op's rank shares add up to the graph op (see messages)");
  check_u128 (rep->graph_flops, graph, "report graph_flops = sum of graph ops");
  check_u128 (rep->semantic_flops, semantic, "report semantic_flops = sum of semantic ops");
  check_u128 (rep->distributed_flops, dist, "report distributed_flops = sum over every rank");
}

static void
check_config (const BpwModelSpec *s, const Config *c, gboolean check_analytic)
{
  g_autofree char *cfg = config_str (s, c);
  g_autoptr (GError) error = NULL;
  g_autoptr (BpwDistWork) d = NULL;
  BpwModelSpec spec;
  BpwScenario sc;
  BpwParallel p;
  BpwFacts f;
  BpwConservation rep;
  BpwU128 phases = 0, additions = 0;
  gint64 batch, seq;
  gboolean train = c->phase == BPW_WORKLOAD_TRAIN;
  guint i;

  bpw_model_spec_copy (&spec, s);
  spec.capacity_factor = c->capacity;
  setup (c, &sc, &p, &batch, &seq);
  memset (&f, 0, sizeof f);
  if (!bpw_facts_compute (&spec, &sc, &p, &f, &error))
    {
      check_true (FALSE, error != NULL ? error->message : "facts failed without an error");
      goto out;
    }

  check_true (f.conservation.ok, f.conservation.message != NULL ? f.conservation.message
                                                                : "conservation.ok is FALSE");
  check_true (f.conservation.n_mismatched_ops == 0, "no mismatched ops");
  check_true (f.conservation.first_mismatch == -1, "first_mismatch = -1");
  g_assert_cmpuint (f.parameters, ==, bpw_oracle_parameters (&spec, FALSE));

  for (i = 0; i < BPW_N_PHASES; i++)
    phases += f.flops_by_phase[i];
  check_u128 (f.flops_hardware, phases, "flops.hardware = sum of flops.by_phase");
  check_u128 (f.flops_hardware, f.conservation.distributed_flops,
              "flops.hardware = FLOPs executed on every rank");
  for (i = 0; i < BPW_N_ADDITIONS; i++)
    additions += f.conservation.additions[i].flops;
  check_u128 (f.conservation.distributed_flops, f.conservation.semantic_flops + additions,
              "distributed = semantic + named additions");
  check_true (f.conservation.semantic_flops <= f.conservation.graph_flops
              && f.conservation.graph_flops <= f.conservation.distributed_flops,
              "semantic <= graph <= distributed");
  check_true (f.flops_semantic == f.conservation.semantic_flops, "facts semantic = report's");

  if (c->rc == BPW_RECOMPUTE_NONE || !train)
    {
      check_u128 (f.flops_by_phase[BPW_PHASE_RECOMPUTE], 0, "no recompute phase");
      check_u128 (bpw_oracle_addition_flops (&f.conservation, BPW_ADDITION_RECOMPUTE), 0,
                  "no recompute addition");
    }
  else
    {
      check_true (f.flops_by_phase[BPW_PHASE_RECOMPUTE] > 0, "recompute phase present");
      check_true (bpw_oracle_addition_flops (&f.conservation, BPW_ADDITION_RECOMPUTE) > 0
                  && bpw_oracle_addition_flops (&f.conservation, BPW_ADDITION_RECOMPUTE)
                     <= f.flops_by_phase[BPW_PHASE_RECOMPUTE],
                  "recompute addition named, and within the executed recompute phase");
    }
  if (c->tp == 1)
    check_u128 (bpw_oracle_addition_flops (&f.conservation, BPW_ADDITION_TP_REPLICATED), 0,
                "nothing is TP-replicated without TP");
  else if (!c->sp && train)
    check_true (bpw_oracle_addition_flops (&f.conservation, BPW_ADDITION_TP_REPLICATED) > 0,
                "norms and dropout are replicated under TP without SP");
  if (c->dp == 1 || c->zero >= 1 || !train)
    check_u128 (bpw_oracle_addition_flops (&f.conservation, BPW_ADDITION_DP_REPLICATED), 0,
                "no DP-replicated optimizer with DP 1, ZeRO or inference");
  else
    check_true (bpw_oracle_addition_flops (&f.conservation, BPW_ADDITION_DP_REPLICATED) > 0,
                "each DP replica repeats the optimizer without ZeRO");
  if (spec.experts == 0 || spec.capacity_factor == 0.0)
    check_u128 (bpw_oracle_addition_flops (&f.conservation, BPW_ADDITION_MOE_CAPACITY), 0,
                "no capacity padding when dense or dropless");

  if (train)
    {
      BpwU128 model = bpw_oracle_model_flops (&spec, batch, seq);

      check_u128 (f.flops_model, model, "flops.model closed form");
      check_u128 (f.tokens_per_step, (BpwU128) batch * seq, "tokens per step");
      check_true (f.micro_batches == 4, "micro-batches per pipeline");
      check_true (f.flops_by_phase[BPW_PHASE_FORWARD] >= model / 3, "forward >= matmul part");
      check_true (f.flops_by_phase[BPW_PHASE_BACKWARD_ACTIVATION]
                  + f.flops_by_phase[BPW_PHASE_BACKWARD_WEIGHT] >= 2 * (model / 3),
                  "backward >= 2x forward matmuls");
      check_true (f.flops_by_phase[BPW_PHASE_BACKWARD_WEIGHT] > 0, "weight gradients");
      check_true (f.flops_by_phase[BPW_PHASE_OPTIMIZER] > 0, "optimizer step");
      if (c->tp == 1 && c->dp > 1 && c->zero == 0)
        {
          /* Each extra replica repeats the optimizer: dp replicas hold a dense parameter,
           * dp / ep an expert's (its EP peers hold other experts). */
          BpwU128 extra = 0;

          d = bpw_dist_work_new (bpw_work_graph_new (&spec, &sc, NULL), &p, NULL);
          for (i = 0; d != NULL && i < d->graph->ops->len; i++)
            {
              const BpwOp *op = bpw_work_graph_op (d->graph, i);
              gint64 replicas = op->split == BPW_SPLIT_EXPERT ? c->dp / c->ep : c->dp;

              if (op->phase == BPW_PHASE_OPTIMIZER)
                extra += (BpwU128) op->flops * op->count * (BpwU128) (replicas - 1);
            }
          check_u128 (bpw_oracle_addition_flops (&f.conservation, BPW_ADDITION_DP_REPLICATED),
                      extra, "DP-replicated optimizer = (replicas - 1) x graph's");
          g_clear_pointer (&d, bpw_dist_work_free);
        }
    }
  else
    {
      check_u128 (f.flops_by_phase[BPW_PHASE_BACKWARD_ACTIVATION]
                  + f.flops_by_phase[BPW_PHASE_BACKWARD_WEIGHT]
                  + f.flops_by_phase[BPW_PHASE_OPTIMIZER], 0,
                  "inference has no backward or optimizer work");
      check_true (f.memory.gradients == 0 && f.memory.optimizer_state == 0,
                  "inference holds no gradients or optimizer state");
      check_true (f.memory.kv_cache > 0, "inference holds a KV cache");
      check_true (f.flops_by_phase[BPW_PHASE_FORWARD] > 0, "forward work");
    }

  /* The test's own reconciliation, from a fresh distribution of the same plan. */
  d = bpw_dist_work_new (bpw_work_graph_new (&spec, &sc, &error), &p, &error);
  check_true (d != NULL, error != NULL ? error->message : "distribution failed");
  if (d != NULL)
    {
      memset (&rep, 0, sizeof rep);
      bpw_dist_work_check_conservation (d, &rep);
      check_true (rep.ok, "fresh distribution reconciles");
      reconcile (d, &rep, cfg);
      check_u128 (rep.distributed_flops, f.conservation.distributed_flops, "same plan, same sum");
      bpw_conservation_clear (&rep);
    }

  if (check_analytic)
    {
      BpwFacts a;
      g_autoptr (GError) aerror = NULL;

      memset (&a, 0, sizeof a);
      if (!bpw_facts_compute_analytic (&spec, &sc, &p, &a, &aerror))
        check_true (FALSE, aerror != NULL ? aerror->message : "analytic facts failed");
      else
        {
          check_true (a.parameters == f.parameters && a.active_parameters == f.active_parameters,
                      "analytic parameters");
          check_u128 (a.flops_model, f.flops_model, "analytic flops.model");
          for (i = 0; i < BPW_N_LAYER_TYPES; i++)
            check_u128 (a.flops_model_by_layer_type[i], f.flops_model_by_layer_type[i],
                        bpw_layer_type_to_string (i));
          check_u128 (a.flops_hardware, f.flops_hardware, "analytic flops.hardware");
          for (i = 0; i < BPW_N_PHASES; i++)
            check_u128 (a.flops_by_phase[i], f.flops_by_phase[i], bpw_phase_to_string (i));
          /* Per-device memory needs the stages; the analytic path leaves it out. */
          check_u128 (a.flops_semantic, f.flops_semantic, "analytic flops.semantic");
          check_u128 (a.tokens_per_step, f.tokens_per_step, "analytic tokens_per_step");
          check_u128 (a.micro_batches, f.micro_batches, "analytic micro_batches");
          check_u128 (a.kv_bytes_per_token, f.kv_bytes_per_token, "analytic kv_bytes_per_token");
        }
      bpw_facts_clear (&a);
    }

out:
  bpw_facts_clear (&f);
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&spec);
}

/* ---- matrices ---- */

static void
run_dense_matrix (gboolean analytic)
{
  static const gint64 tps[] = { 1, 2, 8 };
  static const gint64 pps[] = { 1, 4 };
  static const gint64 dps[] = { 1, 16 };
  static const BpwRecompute rcs[] = {
    BPW_RECOMPUTE_NONE, BPW_RECOMPUTE_SELECTIVE, BPW_RECOMPUTE_FULL,
  };
  BpwModelSpec s;
  guint a, b, c, r;
  gint sp, zero;

  small_gpt (&s);
  for (a = 0; a < G_N_ELEMENTS (tps); a++)
    for (sp = 0; sp <= (tps[a] > 1); sp++)
      for (b = 0; b < G_N_ELEMENTS (pps); b++)
        for (c = 0; c < G_N_ELEMENTS (dps); c++)
          for (zero = 0; zero <= (dps[c] > 1 ? 3 : 0); zero++)
            for (r = 0; r < G_N_ELEMENTS (rcs); r++)
              {
                Config cfg = { tps[a], pps[b], dps[c], 1, sp, zero, rcs[r], 0.0,
                               BPW_WORKLOAD_TRAIN };

                check_config (&s, &cfg, analytic);
              }
  bpw_model_spec_clear (&s);
}

static void
test_dense_matrix (void)
{
  run_dense_matrix (FALSE);
}

static void
test_moe_matrix (void)
{
  static const struct { gint64 ep, dp; } eps[] = { { 1, 8 }, { 2, 8 }, { 8, 8 }, { 8, 16 } };
  static const gint64 tps[] = { 1, 2 };
  static const gint64 pps[] = { 1, 4 };
  static const gint zeros[] = { 0, 1, 3 };
  static const BpwRecompute rcs[] = { BPW_RECOMPUTE_NONE, BPW_RECOMPUTE_FULL };
  static const double cfs[] = { 0.0, 1.25 };
  BpwModelSpec s;
  guint e, a, b, z, r, k;

  small_moe (&s);
  for (e = 0; e < G_N_ELEMENTS (eps); e++)
    for (a = 0; a < G_N_ELEMENTS (tps); a++)
      for (b = 0; b < G_N_ELEMENTS (pps); b++)
        for (z = 0; z < G_N_ELEMENTS (zeros); z++)
          for (r = 0; r < G_N_ELEMENTS (rcs); r++)
            for (k = 0; k < G_N_ELEMENTS (cfs); k++)
              {
                Config cfg = { tps[a], pps[b], eps[e].dp, eps[e].ep, tps[a] > 1, zeros[z],
                               rcs[r], cfs[k], BPW_WORKLOAD_TRAIN };

                check_config (&s, &cfg, FALSE);
              }
  bpw_model_spec_clear (&s);
}

/* Capacity factor 1.25 at 128 tokens per micro-batch, top-2 of 8: 40 slots per expert instead
 * of 32 tokens on average; the 8 x 8 padded rows run through the SwiGLU expert (6hf FLOPs per
 * row forward, 3x with backward) in every layer. */
static void
test_moe_capacity (void)
{
  BpwModelSpec s;
  BpwScenario sc;
  BpwParallel p;
  BpwFacts f;
  g_autoptr (GError) error = NULL;
  BpwU128 rows, want;

  small_moe (&s);
  s.capacity_factor = 1.25;
  bpw_scenario_init_defaults (&sc);
  sc.phase = BPW_WORKLOAD_TRAIN;
  sc.global_batch = 8;
  sc.micro_batch = 1;
  sc.seq = 128;
  sc.recompute = BPW_RECOMPUTE_NONE;
  sc.dtype = sc.kv_dtype = BPW_DTYPE_BF16;
  bpw_parallel_init_defaults (&p);
  p.tp = p.pp = 1;
  p.dp = 2;
  p.ep = 2;
  p.zero = 1;
  rows = (BpwU128) s.experts * 40 - 128 * s.top_k;
  want = 8 * (BpwU128) s.layers * 3 * rows * 6 * s.hidden * s.ffn;
  memset (&f, 0, sizeof f);
  if (bpw_facts_compute (&s, &sc, &p, &f, &error))
    {
      BpwU128 got = bpw_oracle_addition_flops (&f.conservation, BPW_ADDITION_MOE_CAPACITY);
      g_autofree char *gs = bpw_oracle_u128_str (got);
      g_autofree char *ws = bpw_oracle_u128_str (want);

      g_test_message ("capacity addition %s, matmul part %s", gs, ws);
      g_assert_true (f.conservation.ok);
      g_assert_true (got >= want);
      g_assert_true (got <= want + want / 20);
      g_assert_true (f.flops_model == bpw_oracle_model_flops (&s, 8, 128));
    }
  g_assert_no_error (error);
  bpw_facts_clear (&f);
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&s);
}

static void
test_inference (void)
{
  static const BpwWorkloadPhase phases[] = { BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE };
  BpwModelSpec dense, moe;
  guint i;

  small_gpt (&dense);
  small_moe (&moe);
  for (i = 0; i < G_N_ELEMENTS (phases); i++)
    {
      Config c1 = { 1, 1, 1, 1, FALSE, 0, BPW_RECOMPUTE_NONE, 0.0, phases[i] };
      Config c2 = { 2, 2, 2, 1, FALSE, 0, BPW_RECOMPUTE_NONE, 0.0, phases[i] };
      Config c3 = { 8, 1, 2, 1, TRUE, 0, BPW_RECOMPUTE_NONE, 0.0, phases[i] };
      Config c4 = { 2, 2, 8, 8, TRUE, 0, BPW_RECOMPUTE_NONE, 0.0, phases[i] };

      check_config (&dense, &c1, TRUE);
      check_config (&dense, &c2, TRUE);
      check_config (&dense, &c3, TRUE);
      check_config (&moe, &c1, TRUE);
      check_config (&moe, &c4, TRUE);
    }
  bpw_model_spec_clear (&dense);
  bpw_model_spec_clear (&moe);
}

/* The check must be able to fail: one FLOP added to, or one task taken from, a rank's share. */
static void
test_detects_tampering (void)
{
  BpwModelSpec s;
  Config c = { 2, 2, 2, 1, FALSE, 1, BPW_RECOMPUTE_SELECTIVE, 0.0, BPW_WORKLOAD_TRAIN };
  BpwScenario sc;
  BpwParallel p;
  BpwConservation rep;
  g_autoptr (GError) error = NULL;
  g_autoptr (BpwDistWork) d = NULL;
  BpwTask *task = NULL, saved;
  GArray *tasks = NULL;
  gint64 batch, seq;
  guint t;

  small_gpt (&s);
  setup (&c, &sc, &p, &batch, &seq);
  d = bpw_dist_work_new (bpw_work_graph_new (&s, &sc, &error), &p, &error);
  g_assert_no_error (error);
  g_assert_nonnull (d);
  if (d == NULL)
    goto out;
  memset (&rep, 0, sizeof rep);
  bpw_dist_work_check_conservation (d, &rep);
  g_assert_true (rep.ok);
  bpw_conservation_clear (&rep);

  tasks = d->stages[d->n_stages - 1].tasks;
  /* A plain split share: no addition may explain a change to it. */
  for (t = 0; t < tasks->len && task == NULL; t++)
    if (g_array_index (tasks, BpwTask, t).flops > 0
        && g_array_index (tasks, BpwTask, t).addition == BPW_ADDITION_NONE)
      task = &g_array_index (tasks, BpwTask, t);
  g_assert_nonnull (task);
  if (task == NULL)
    goto out;
  saved = *task;

  task->flops += 1;
  memset (&rep, 0, sizeof rep);
  bpw_dist_work_check_conservation (d, &rep);
  g_assert_false (rep.ok);
  g_assert_cmpuint (rep.n_mismatched_ops, >=, 1);
  g_assert_cmpint (rep.first_mismatch, ==, saved.op);
  g_assert_nonnull (rep.message);
  g_test_message ("tampered: %s", rep.message != NULL ? rep.message : "(no message)");
  bpw_conservation_clear (&rep);

  *task = saved;
  t--;
  g_array_remove_index (tasks, t);
  memset (&rep, 0, sizeof rep);
  bpw_dist_work_check_conservation (d, &rep);
  g_assert_false (rep.ok);
  g_assert_cmpuint (rep.n_mismatched_ops, >=, 1);
  g_assert_cmpint (rep.first_mismatch, ==, saved.op);
  bpw_conservation_clear (&rep);

  g_array_insert_val (tasks, t, saved);
  memset (&rep, 0, sizeof rep);
  bpw_dist_work_check_conservation (d, &rep);
  g_assert_true (rep.ok);
  bpw_conservation_clear (&rep);
out:
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&s);
}

static void
test_analytic_agrees (void)
{
  run_dense_matrix (TRUE);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_set_nonfatal_assertions ();

  g_test_add_func ("/bpw/core/Conservation/dense-matrix", test_dense_matrix);
  g_test_add_func ("/bpw/core/Conservation/moe-matrix", test_moe_matrix);
  g_test_add_func ("/bpw/core/Conservation/moe-capacity", test_moe_capacity);
  g_test_add_func ("/bpw/core/Conservation/inference", test_inference);
  g_test_add_func ("/bpw/core/Conservation/detects-tampering", test_detects_tampering);
  g_test_add_func ("/bpw/core/Conservation/analytic-agrees", test_analytic_agrees);

  return g_test_run ();
}
