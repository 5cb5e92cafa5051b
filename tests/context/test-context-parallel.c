/* test-context-parallel.c — context parallelism: conservation, messages, exposure, mapping
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The closed forms here are written from the algorithms, not read from the implementation:
 * one rank's K and V block is B = (mb · seq / cp) · 2 · ⌈kv / min(tp, kv)⌉ · d · e bytes;
 * the ring sends cp − 1 blocks per layer forward and cp − 1 blocks plus cp dK/dV blocks
 * backward; all-gather receives the cp B buffer, backward gathers it again and
 * reduce-scatters dK/dV of cp B. Ring steps hide behind one block's attention:
 * exposed = max(0, comm − compute) per step.
 */
#define G_LOG_DOMAIN "bpw-test-context-parallel"
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-test-plan.h"

/* ---- small models ---- */

typedef enum { MODEL_MHA, MODEL_GQA, MODEL_MOE, N_MODELS } Model;

static void
small_spec (BpwModelSpec *s, Model model)
{
  bpw_model_spec_init_defaults (s);
  g_free (s->name);
  s->name = g_strdup (model == MODEL_MHA ? "mha" : model == MODEL_GQA ? "gqa" : "moe");
  s->vocab = 512;
  s->hidden = 256;
  s->layers = 4;
  s->heads = 8;
  s->kv_heads = model == MODEL_MHA ? 8 : 2;
  s->head_dim = 32;
  s->ffn = 1024;
  s->max_positions = 4096;
  if (model != MODEL_MHA)
    {
      s->ffn_kind = BPW_FFN_SWIGLU;
      s->norm = BPW_NORM_RMSNORM;
      s->positions = BPW_POSITION_ROTARY;
      s->tied_embeddings = FALSE;
    }
  if (model == MODEL_MOE)
    {
      s->experts = 4;
      s->top_k = 2;
      s->moe_every = 1;
      s->moe_first = 0;
    }
}

static void
scenario_for (BpwScenario *sc, gint64 dp, gint64 seq)
{
  bpw_scenario_init_defaults (sc);
  sc->global_batch = dp * 2;
  sc->micro_batch = 1;
  sc->seq = seq;
}

static BpwDistWork *
distribute (const BpwModelSpec *spec, const BpwScenario *sc, const BpwParallel *p,
            GError **error)
{
  BpwWorkGraph *graph = bpw_work_graph_new (spec, sc, error);

  if (graph == NULL)
    return NULL;
  return bpw_dist_work_new (graph, p, error);
}

/* ---- conservation over a matrix of decompositions ---- */

static void
test_conservation (void)
{
  static const gint64 cps[] = { 1, 2, 4, 8 };
  guint checked = 0;

  for (Model model = 0; model < N_MODELS; model++)
    for (gint64 tp = 1; tp <= 2; tp++)
      for (gint64 pp = 1; pp <= 2; pp++)
        for (gint64 dp = 1; dp <= 2; dp++)
          for (gint zero = 0; zero <= 1; zero++)
            for (int algo = 0; algo < BPW_N_CP_ALGORITHMS; algo++)
              {
                BpwModelSpec spec;
                BpwScenario sc;
                BpwConservation base = { 0 };

                small_spec (&spec, model);
                scenario_for (&sc, dp, 128);
                for (guint c = 0; c < G_N_ELEMENTS (cps); c++)
                  {
                    g_autoptr(GError) error = NULL;
                    g_autoptr(BpwDistWork) d = NULL;
                    BpwParallel p;
                    BpwConservation r;
                    g_autofree char *cfg = NULL;

                    bpw_parallel_init_defaults (&p);
                    p.tp = tp, p.pp = pp, p.dp = dp, p.zero = zero, p.cp = cps[c];
                    p.ep = model == MODEL_MOE ? dp : 1;
                    p.cp_algorithm = (BpwCpAlgorithm) algo;
                    cfg = g_strdup_printf ("%s tp%" G_GINT64_FORMAT " pp%" G_GINT64_FORMAT
                                           " dp%" G_GINT64_FORMAT " zero%d cp%" G_GINT64_FORMAT
                                           " %s", spec.name, tp, pp, dp, zero, p.cp,
                                           bpw_cp_algorithm_to_string (p.cp_algorithm));
                    d = distribute (&spec, &sc, &p, &error);
                    g_assert_no_error (error);
                    g_assert_cmpint (bpw_dist_work_n_ranks (d), ==, tp * p.cp * pp * dp);
                    bpw_dist_work_check_conservation (d, &r);
                    if (!r.ok)
                      g_error ("[%s] %s", cfg, r.message);
                    if (c == 0)
                      base = r, base.message = NULL;
                    else
                      {
                        BpwU128 rep = r.additions[BPW_ADDITION_DP_REPLICATED].flops;
                        BpwU128 rep0 = base.additions[BPW_ADDITION_DP_REPLICATED].flops;
                        BpwU128 repb = r.additions[BPW_ADDITION_DP_REPLICATED].bytes;
                        BpwU128 repb0 = base.additions[BPW_ADDITION_DP_REPLICATED].bytes;

                        /* The graph does not move; over the ranks the work is conserved
                         * except the optimizer that every CP rank repeats without ZeRO. */
                        g_assert_true (r.graph_flops == base.graph_flops);
                        g_assert_true (r.semantic_flops == base.semantic_flops);
                        g_assert_true (r.distributed_flops - rep == base.distributed_flops - rep0);
                        g_assert_true (r.distributed_bytes - repb ==
                                       base.distributed_bytes - repb0);
                        if (zero >= 1)
                          g_assert_true (r.distributed_flops == base.distributed_flops);
                        else
                          g_assert_true (rep > rep0);
                      }
                    /* Every rank's share of a micro-batch op is 1/cp: the tasks say so. */
                    for (gint64 s = 0; s < d->n_stages; s++)
                      for (guint i = 0; i < d->stages[s].tasks->len; i++)
                        {
                          const BpwTask *t = &g_array_index (d->stages[s].tasks, BpwTask, i);
                          const BpwOp *op = bpw_work_graph_op (d->graph, t->op);

                          if (op->phase == BPW_PHASE_OPTIMIZER)
                            g_assert_cmpuint (t->cp_parts, ==, 1);
                          else
                            g_assert_cmpuint (t->cp_parts, ==, (guint) p.cp);
                        }
                    bpw_conservation_clear (&r);
                    checked++;
                  }
                bpw_scenario_clear (&sc);
                bpw_model_spec_clear (&spec);
              }
  g_test_message ("%u decompositions reconciled", checked);
  g_assert_cmpuint (checked, ==, N_MODELS * 2 * 2 * 2 * 2 * BPW_N_CP_ALGORITHMS * 4);
}

/* ---- message bytes ---- */

typedef struct
{
  guint64 bytes, count;
  guint   n;
} Seen;

static void
collect (const BpwDistWork *d, const char *name, BpwPhase phase, Seen *out)
{
  memset (out, 0, sizeof *out);
  for (gint64 s = 0; s < d->n_stages; s++)
    for (guint i = 0; i < d->stages[s].collectives->len; i++)
      {
        const BpwCollective *c = &g_array_index (d->stages[s].collectives, BpwCollective, i);

        if (strcmp (bpw_work_graph_name (d->graph, c->name), name) != 0 || c->phase != phase)
          continue;
        g_assert_cmpint (c->group, ==, BPW_GROUP_CP);
        g_assert_cmpint (c->group_size, ==, d->parallel.cp);
        g_assert_cmpint (c->layer_type, ==, BPW_LAYER_ATTENTION);
        if (out->n > 0)
          g_assert_cmpuint (c->bytes, ==, out->bytes);
        out->bytes = c->bytes;
        out->count = c->count;
        out->n++;
      }
}

static void
test_message_bytes (void)
{
  struct { Model model; gint64 tp, cp; } cases[] = {
    { MODEL_GQA, 2, 4 }, { MODEL_GQA, 4, 2 }, { MODEL_MHA, 2, 8 }, { MODEL_MOE, 1, 2 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (int algo = 0; algo < BPW_N_CP_ALGORITHMS; algo++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(BpwDistWork) d = NULL;
        BpwModelSpec spec;
        BpwScenario sc;
        BpwParallel p;
        gint64 seq = 256, m = 2, cp = cases[i].cp, tp = cases[i].tp;
        guint64 kv_rank, block;
        Seen a, b, c;

        small_spec (&spec, cases[i].model);
        scenario_for (&sc, 1, seq);
        bpw_parallel_init_defaults (&p);
        p.tp = tp;
        p.cp = cp;
        p.cp_algorithm = (BpwCpAlgorithm) algo;
        d = distribute (&spec, &sc, &p, &error);
        g_assert_no_error (error);
        kv_rank = (guint64) ((spec.kv_heads + MIN (tp, spec.kv_heads) - 1) / MIN (tp, spec.kv_heads));
        block = (guint64) (seq / cp) * 2 * kv_rank * (guint64) spec.head_dim * 2;
        if (algo == BPW_CP_RING)
          {
            collect (d, "cp.ring_kv", BPW_PHASE_FORWARD, &a);
            collect (d, "cp.ring_kv", BPW_PHASE_BACKWARD_ACTIVATION, &b);
            collect (d, "cp.ring_dkv", BPW_PHASE_BACKWARD_ACTIVATION, &c);
            g_assert_cmpuint (a.count, ==, (guint64) (m * (cp - 1)));
            g_assert_cmpuint (b.count, ==, (guint64) (m * (cp - 1)));
            g_assert_cmpuint (c.count, ==, (guint64) (m * cp));
          }
        else
          {
            collect (d, "cp.kv_gather", BPW_PHASE_FORWARD, &a);
            collect (d, "cp.kv_regather", BPW_PHASE_BACKWARD_ACTIVATION, &b);
            collect (d, "cp.dkv_reduce_scatter", BPW_PHASE_BACKWARD_ACTIVATION, &c);
            block *= (guint64) cp;
            g_assert_cmpuint (a.count, ==, (guint64) m);
            g_assert_cmpuint (b.count, ==, (guint64) m);
            g_assert_cmpuint (c.count, ==, (guint64) m);
          }
        /* One of each per attention layer, each of B (ring) or cp B (gathered buffer). */
        g_assert_cmpuint (a.n, ==, (guint) spec.layers);
        g_assert_cmpuint (b.n, ==, (guint) spec.layers);
        g_assert_cmpuint (c.n, ==, (guint) spec.layers);
        g_assert_cmpuint (a.bytes, ==, block);
        g_assert_cmpuint (b.bytes, ==, block);
        g_assert_cmpuint (c.bytes, ==, block);

        /* Activation-sized messages of the other groups carry the rank's seq / cp tokens;
         * gradients are reduced over the dp × cp ranks that hold the same weights. */
        for (guint k = 0; k < d->stages[0].collectives->len; k++)
          {
            const BpwCollective *x = &g_array_index (d->stages[0].collectives, BpwCollective, k);
            const char *name = bpw_work_graph_name (d->graph, x->name);

            if (strcmp (name, "tp.output_reduce") == 0)
              g_assert_cmpuint (x->bytes, ==, (guint64) (seq / cp) * (guint64) spec.hidden * 2);
            if (x->group == BPW_GROUP_DP)
              g_assert_cmpint (x->group_size, ==, cp);
          }
        bpw_scenario_clear (&sc);
        bpw_model_spec_clear (&spec);
      }
}

/* ---- legality ---- */

static void
test_legality (void)
{
  g_autoptr(GError) error = NULL;
  BpwModelSpec spec;
  BpwScenario sc;
  BpwParallel p;
  gint64 num, den;

  small_spec (&spec, MODEL_GQA);
  scenario_for (&sc, 1, 100);
  bpw_parallel_init_defaults (&p);
  p.cp = 4;
  /* 100 is a multiple of 4 but not of 2 cp = 8: the balanced chunks do not fit. */
  g_assert_false (bpw_scenario_validate (&sc, &p, &spec, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_ILLEGAL_PLAN);
  g_assert_nonnull (strstr (error->message, "multiple of 8"));
  g_clear_error (&error);

  sc.seq = 128;
  g_assert_true (bpw_scenario_validate (&sc, &p, &spec, &error));
  g_assert_no_error (error);

  sc.phase = BPW_WORKLOAD_DECODE;
  sc.seq = 1;
  sc.context = 64;
  g_assert_false (bpw_scenario_validate (&sc, &p, &spec, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_ILLEGAL_PLAN);
  g_assert_nonnull (strstr (error->message, "decode"));
  g_clear_error (&error);

  sc.phase = BPW_WORKLOAD_TRAIN;
  sc.seq = 128;
  sc.context = 0;
  p.cp = 0;
  g_assert_false (bpw_scenario_validate (&sc, &p, &spec, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  p.cp = 4;
  p.tp = 2;
  p.pp = 2;
  p.dp = 3;
  g_assert_cmpint (bpw_parallel_devices (&p), ==, 2 * 4 * 2 * 3);

  /* Contiguous chunks: the last rank does (2 cp − 1) / cp of the average. */
  bpw_cp_contiguous_imbalance (16, &num, &den);
  g_assert_cmpint (num, ==, 31);
  g_assert_cmpint (den, ==, 16);
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&spec);
}

/* ---- memory ---- */

static void
test_memory (void)
{
  BpwModelSpec spec;
  BpwScenario sc;
  BpwRankMemory mem[3];
  guint64 stored[3], block = 0;

  small_spec (&spec, MODEL_GQA);
  scenario_for (&sc, 1, 256);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwDistWork) d = NULL;
      BpwParallel p;

      bpw_parallel_init_defaults (&p);
      p.cp = i == 0 ? 1 : 4;
      p.cp_algorithm = i == 2 ? BPW_CP_ALLGATHER : BPW_CP_RING;
      d = distribute (&spec, &sc, &p, &error);
      g_assert_no_error (error);
      mem[i] = d->stages[0].memory;
      stored[i] = bpw_dist_work_layer_stored_bytes (d, 0);
    }
  /* Weights and their state are whole on every CP rank; activations are split. */
  g_assert_cmpuint (mem[1].weights, ==, mem[0].weights);
  g_assert_cmpuint (mem[1].optimizer_state, ==, mem[0].optimizer_state);
  g_assert_cmpuint (stored[1] * 4, ==, stored[0]);
  /* The transient K/V: one block in flight for the ring, the cp − 1 gathered blocks for
   * all-gather: B = 64 tokens · 2 · 2 heads · 32 · 2 bytes. */
  block = 64 * 2 * 2 * 32 * 2;
  g_assert_cmpuint (mem[2].activations - mem[1].activations, ==, (4 - 1) * block - block);
  g_assert_cmpuint (mem[1].activations, <, mem[0].activations);
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&spec);
}

/* ---- binding: exposure, estimator, simulation ---- */

static BpwPlan *
bind_llama (const char *blueprint, gint64 cp, BpwCpAlgorithm algo, gint64 seq,
            BpwModelSpec *spec, BpwScenario *sc, BpwMapping *m, BpwBlueprint **bp)
{
  g_autoptr(GError) error = NULL;
  BpwWorkGraph *graph;
  BpwDistWork *d;
  BpwPlan *plan;

  bpw_model_spec_init_defaults (spec);
  g_assert_true (bpw_workload_load ("llama3-8b", spec, &error));
  g_assert_no_error (error);
  bpw_scenario_init_defaults (sc);
  sc->global_batch = 2;
  sc->micro_batch = 1;
  sc->seq = seq;
  bpw_mapping_init_defaults (m);
  m->parallel.cp = cp;
  m->parallel.cp_algorithm = algo;
  *bp = bpw_blueprint_load (blueprint, NULL, &error);
  g_assert_no_error (error);
  bpw_mapping_apply_to_scenario (m, sc);
  graph = bpw_work_graph_new (spec, sc, &error);
  g_assert_no_error (error);
  d = bpw_dist_work_new (graph, &m->parallel, &error);
  g_assert_no_error (error);
  plan = bpw_plan_new (d, *bp, m, &error);
  g_assert_no_error (error);
  return plan;
}

static void
assert_close (double a, double b, double rel)
{
  if (!(fabs (a - b) <= rel * MAX (fabs (a), fabs (b)) + 1e-15))
    g_error ("%.12g and %.12g differ by more than %g relative", a, b, rel);
}

static void
test_exposed_closed_form (void)
{
  /* A short sequence (little attention to hide behind) and a long one (the ring hidden). */
  static const gint64 seqs[] = { 1024, 32768 };

  for (guint q = 0; q < G_N_ELEMENTS (seqs); q++)
    for (int algo = 0; algo < BPW_N_CP_ALGORITHMS; algo++)
      {
        BpwModelSpec spec;
        BpwScenario sc;
        BpwMapping m;
        BpwBlueprint *bp = NULL;
        g_autoptr(BpwPlan) plan = bind_llama ("h100-sxm-80gb", 8, algo, seqs[q], &spec, &sc,
                                              &m, &bp);
        const BpwPlanStage *ps = &plan->stages[0];
        guint n = 0;
        double exposed = 0, total = 0;

        for (guint i = 0; i < ps->transfers->len; i++)
          {
            const BpwPlanTransfer *tr = &g_array_index (ps->transfers, BpwPlanTransfer, i);
            const BpwTier *tier;
            double core = 0, window, pu, want;

            if (tr->group != BPW_GROUP_CP)
              continue;
            n++;
            tier = &bp->tiers[tr->tier];
            pu = tier->processor_usage.set ? tier->processor_usage.value : 0.0;
            total += tr->time_s * tr->count;
            exposed += tr->exposed_s * tr->count;
            if (algo == BPW_CP_ALLGATHER)
              {
                /* Attention waits for the whole gathered K and V: nothing hides it. */
                g_assert_cmpfloat (tr->exposed_s, ==, tr->time_s);
                continue;
              }
            for (guint k = 0; k < ps->tasks->len; k++)
              {
                const BpwPlanTask *t = &g_array_index (ps->tasks, BpwPlanTask, k);

                if (t->layer == tr->layer && t->phase == tr->phase &&
                    t->layer_type == BPW_LAYER_ATTENTION &&
                    (t->primitive == BPW_PRIM_BATCHED_MATMUL || t->primitive == BPW_PRIM_SOFTMAX ||
                     t->primitive == BPW_PRIM_DROPOUT))
                  core += (t->cost.time_s - t->launch_s) * t->count;
              }
            /* One step hides behind one of the cp blocks; backward's two blocks share it. The
             * blocks' device work hides it, not the device's idle waiting for eager launches
             * (the stack's launch_s, charged after the transfers are priced). */
            window = core / 8 / (tr->phase == BPW_PHASE_BACKWARD_ACTIVATION ? 2 : 1);
            assert_close (tr->served_s, window, 1e-12);
            want = MIN (tr->time_s, MAX (0.0, tr->time_s - window) + pu * MIN (tr->time_s, window));
            assert_close (tr->exposed_s, want, 1e-12);
          }
        g_test_message ("seq %" G_GINT64_FORMAT " %s: CP communication %.3f ms per micro-batch, "
                        "%.3f ms exposed", seqs[q], bpw_cp_algorithm_to_string (algo),
                        total * 1e3, exposed * 1e3);
        /* Forward and backward of every layer. */
        g_assert_cmpuint (n, >=, 2 * (guint) spec.layers);
        if (algo == BPW_CP_RING && q == 1)
          g_assert_cmpfloat (exposed, <, total);
        bpw_blueprint_free (bp);
        bpw_mapping_clear (&m);
        bpw_scenario_clear (&sc);
        bpw_model_spec_clear (&spec);
      }
}

static void
test_estimator_and_simulation_agree (void)
{
  for (int algo = 0; algo < BPW_N_CP_ALGORITHMS; algo++)
    {
      g_autoptr(GError) error = NULL;
      BpwModelSpec spec;
      BpwScenario sc;
      BpwMapping m;
      BpwBlueprint *bp = NULL;
      g_autoptr(BpwPlan) plan = bind_llama ("h100-sxm-80gb", 4, algo, 8192, &spec, &sc, &m, &bp);
      g_autoptr(BpwEstimator) est = NULL;
      g_autoptr(BpwSimulation) sim = NULL;
      BpwSimOptions options = { 0 };
      BpwEvaluation full, fast, simulated;
      guint cp_events = 0;

      bpw_evaluation_from_plan (plan, &full);
      est = bpw_test_estimate (&spec, &sc, bp, &m, &fast);
      g_test_message ("%s: plan %.6f s, estimator %.6f s", bpw_cp_algorithm_to_string (algo),
                      full.step_time_s, fast.step_time_s);
      assert_close (full.step_time_s, fast.step_time_s, 1e-9);
      assert_close (full.peak_bytes, fast.peak_bytes, 1e-6);
      assert_close (full.mfu, fast.mfu, 1e-9);

      /* No pipeline, no DP: the simulated step is the analytic one, and the timeline holds
       * the CP collectives. */
      sim = bpw_simulation_new (plan, &options, &error);
      g_assert_no_error (error);
      bpw_simulation_evaluation (sim, &full, &simulated);
      assert_close (simulated.step_time_s, full.step_time_s, 1e-9);
      for (guint i = 0; i < sim->events->len; i++)
        {
          const BpwSimEvent *e = &g_array_index (sim->events, BpwSimEvent, i);
          const BpwPlanTransfer *tr;

          if (e->kind != BPW_SIM_EVENT_TRANSFER)
            continue;
          tr = &g_array_index (plan->stages[e->stage].transfers, BpwPlanTransfer, e->item);
          if (tr->group == BPW_GROUP_CP)
            cp_events++;
        }
      /* Forward and backward of every layer for both micro-batches. */
      g_assert_cmpuint (cp_events, >=, 2 * 2 * (guint) spec.layers);
      bpw_blueprint_free (bp);
      bpw_mapping_clear (&m);
      bpw_scenario_clear (&sc);
      bpw_model_spec_clear (&spec);
    }
}

/* The estimator's two-block templates agree with the bound plan with CP beside TP, SP,
 * PP, DP and ZeRO, for both algorithms. */
static void
test_estimator_with_other_groups (void)
{
  static const struct { gint64 tp, pp, dp, cp; gboolean sp; gint zero; } cases[] = {
    { 2, 2, 2, 2, TRUE, 1 }, { 1, 4, 1, 4, FALSE, 0 }, { 4, 1, 2, 8, TRUE, 3 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (int algo = 0; algo < BPW_N_CP_ALGORITHMS; algo++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("h100-sxm-80gb", NULL, &error);
        g_autoptr(BpwEstimator) est = NULL;
        g_autoptr(BpwPlan) plan = NULL;
        BpwModelSpec spec;
        BpwScenario sc;
        BpwMapping m;
        BpwEvaluation full, fast;
        BpwWorkGraph *graph;
        BpwDistWork *d;

        g_assert_no_error (error);
        /* The bundled stack less its launch gaps: they depend on a stage's whole kernel
         * sequence, which the estimator's two-block template does not replay. */
        bp->stack.has_launch = FALSE;
        bpw_model_spec_init_defaults (&spec);
        g_assert_true (bpw_workload_load ("llama3-8b", &spec, &error));
        bpw_scenario_init_defaults (&sc);
        sc.seq = 16384;
        sc.global_batch = 4 * cases[i].dp;
        sc.micro_batch = 1;
        bpw_mapping_init_defaults (&m);
        m.parallel.tp = cases[i].tp;
        m.parallel.pp = cases[i].pp;
        m.parallel.dp = cases[i].dp;
        m.parallel.cp = cases[i].cp;
        m.parallel.sp = cases[i].sp;
        m.parallel.zero = cases[i].zero;
        m.parallel.cp_algorithm = (BpwCpAlgorithm) algo;
        m.fusion = BPW_FUSION_ATTENTION;
        graph = bpw_work_graph_new (&spec, &sc, &error);
        g_assert_no_error (error);
        d = bpw_dist_work_new (graph, &m.parallel, &error);
        g_assert_no_error (error);
        plan = bpw_plan_new (d, bp, &m, &error);
        g_assert_no_error (error);
        bpw_evaluation_from_plan (plan, &full);
        est = bpw_test_estimate (&spec, &sc, bp, &m, &fast);
        g_test_message ("tp %" G_GINT64_FORMAT " pp %" G_GINT64_FORMAT " dp %" G_GINT64_FORMAT
                        " cp %" G_GINT64_FORMAT " %s: plan %.6f s, estimator %.6f s",
                        cases[i].tp, cases[i].pp, cases[i].dp, cases[i].cp,
                        bpw_cp_algorithm_to_string (algo), full.step_time_s, fast.step_time_s);
        assert_close (full.step_time_s, fast.step_time_s, 1e-9);
        assert_close (full.peak_bytes, fast.peak_bytes, 1e-6);
        bpw_mapping_clear (&m);
        bpw_scenario_clear (&sc);
        bpw_model_spec_clear (&spec);
      }
}

/* Llama 3's long-context configuration (TP 8, CP 16, PP 16, DP 8 at 131 072 tokens,
 * 16 M tokens a step) on a model whose layers divide over 16 stages (80 of Llama 3 70B;
 * 405B's 126 need uneven stages). */
static void
test_llama3_long_context (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("h100-sxm-80gb", NULL, &error);
  g_autoptr(BpwEstimator) est = NULL;
  BpwModelSpec spec;
  BpwScenario sc;
  BpwMapping m;
  BpwEvaluation e;

  g_assert_no_error (error);
  bpw_model_spec_init_defaults (&spec);
  g_assert_true (bpw_workload_load ("llama3-70b", &spec, &error));
  g_assert_no_error (error);
  bpw_scenario_init_defaults (&sc);
  sc.seq = 131072;
  sc.global_batch = 128;
  sc.micro_batch = 1;
  sc.recompute = BPW_RECOMPUTE_NONE;
  bpw_mapping_init_defaults (&m);
  m.parallel.tp = 8;
  m.parallel.cp = 16;
  m.parallel.pp = 16;
  m.parallel.dp = 8;
  m.parallel.sp = TRUE;
  m.parallel.zero = 1;
  m.fusion = BPW_FUSION_ATTENTION;
  g_assert_cmpint (bpw_parallel_devices (&m.parallel), ==, 16384);
  est = bpw_test_estimate (&spec, &sc, bp, &m, &e);
  g_test_message ("llama3-70b, 131072 tokens, TP 8 CP 16 PP 16 DP 8 on 16384 H100: step "
                  "%.2f s, MFU %.1f %%, peak %.1f GiB, legal %d", e.step_time_s, 100 * e.mfu,
                  e.peak_bytes / (1024.0 * 1024 * 1024), e.legal);
  g_assert_true (isfinite (e.step_time_s) && e.step_time_s > 0);
  g_assert_cmpfloat (e.mfu, >, 0);
  g_assert_cmpfloat (e.mfu, <, 1);
  bpw_mapping_clear (&m);
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&spec);
}

/* ---- search ---- */

/* With cp free, the space holds every cp whose 2 cp chunks divide the sequence, both
 * algorithms above 1, and every plan of it decodes to a mapping the scenario accepts;
 * fixed to 1 (the default) it is the space without context parallelism. */
static void
test_search_space (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("h100-sxm-80gb", NULL, &error);
  BpwSearchSpace *space, *plain;
  BpwSearchLimits limits;
  BpwModelSpec spec;
  BpwScenario sc;
  gboolean seen[4][BPW_N_CP_ALGORITHMS] = { { FALSE } };
  guint64 size;

  g_assert_no_error (error);
  small_spec (&spec, MODEL_GQA);
  scenario_for (&sc, 4, 24);  /* 24 = 2 · 12: cp 1, 2, 3, 4, 6 and 12 divide into chunks */
  bpw_search_limits_init (&limits);
  g_assert_cmpint (limits.cp, ==, 1);
  limits.zero = 0;
  limits.sp = 0;
  limits.recompute = BPW_RECOMPUTE_NONE;
  limits.micro_batch = 1;
  limits.tp_overlap = BPW_TP_OVERLAP_NONE;
  limits.dp_overlap = 1;
  limits.fusion_sets = 1;
  limits.algorithms = FALSE;
  plain = bpw_search_space_new (&spec, &sc, bp, NULL, 8, &limits, &error);
  g_assert_no_error (error);
  limits.cp = 0;
  space = bpw_search_space_new (&spec, &sc, bp, NULL, 8, &limits, &error);
  g_assert_no_error (error);
  size = bpw_search_space_size (space);
  g_test_message ("8 devices: %" G_GUINT64_FORMAT " plans with cp free, %" G_GUINT64_FORMAT
                  " without", size, bpw_search_space_size (plain));
  g_assert_cmpuint (size, >, bpw_search_space_size (plain));
  for (guint64 i = 0; i < size; i++)
    {
      BpwMapping m;
      BpwScenario s = sc;
      guint c;

      bpw_mapping_init_defaults (&m);
      bpw_search_space_mapping (space, i, &m);
      g_assert_cmpint (bpw_parallel_devices (&m.parallel), ==, 8);
      g_assert_cmpint (sc.seq % (2 * m.parallel.cp), ==, 0);
      s.name = NULL;
      s.micro_batch = m.micro_batch;
      g_assert_true (bpw_scenario_validate (&s, &m.parallel, &spec, NULL));
      /* 8 devices: cp 1, 2 or 4 (8 does not divide 24 into 16 chunks). */
      c = m.parallel.cp == 1 ? 0 : m.parallel.cp == 2 ? 1 : m.parallel.cp == 4 ? 2 : 3;
      g_assert_cmpuint (c, <, 3);
      seen[c][m.parallel.cp_algorithm] = TRUE;
      if (m.parallel.cp == 1)
        g_assert_cmpint (m.parallel.cp_algorithm, ==, BPW_CP_RING);
      bpw_mapping_clear (&m);
    }
  g_assert_true (seen[0][BPW_CP_RING]);
  g_assert_true (seen[1][BPW_CP_RING] && seen[1][BPW_CP_ALLGATHER]);
  g_assert_true (seen[2][BPW_CP_RING] && seen[2][BPW_CP_ALLGATHER]);
  bpw_search_space_free (space);
  bpw_search_space_free (plain);
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&spec);
}

/* ---- mapping files ---- */

static void
test_mapping_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  BpwMapping a, b;

  bpw_mapping_init_defaults (&a);
  a.parallel.cp = 16;
  a.parallel.cp_algorithm = BPW_CP_ALLGATHER;
  a.tier[BPW_GROUP_CP] = 1;
  json = bpw_mapping_to_json (&a);
  g_assert_nonnull (strstr (json, "\"cp\": 16"));
  g_assert_nonnull (strstr (json, "\"cp_algorithm\": \"allgather\""));
  bpw_mapping_init_defaults (&b);
  g_assert_true (bpw_mapping_load_data ("cp.json", json, -1, &b, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (bpw_mapping_equal (&a, &b));
  g_assert_cmpint (b.tier[BPW_GROUP_CP], ==, 1);
  bpw_mapping_clear (&a);
  bpw_mapping_clear (&b);
}

static void
test_mapping_errors (void)
{
  static const struct { const char *json, *at, *path, *detail; } cases[] = {
    { "{\"format\": \"bpw-mapping\", \"version\": 1,\n \"parallel\": {\"cp\": 0}}",
      "cp.json:2:21: ", "parallel.cp", "" },
    { "{\"format\": \"bpw-mapping\", \"version\": 1,\n \"parallel\": {\"cp_algorithm\": \"ringg\"}}",
      "cp.json:2:31: ", "parallel.cp_algorithm", "allgather" },
    { "{\"format\": \"bpw-mapping\", \"version\": 1,\n \"tiers\": {\"cp\": -3}}",
      "cp.json:2:18: ", "tiers.cp", "" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *prefix = g_strconcat (cases[i].at, cases[i].path, ": ", NULL);
      BpwMapping m;

      bpw_mapping_init_defaults (&m);
      g_assert_false (bpw_mapping_load_data ("cp.json", cases[i].json, -1, &m, NULL, &error));
      g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
      g_test_message ("%s", error->message);
      if (!g_str_has_prefix (error->message, prefix) || !strstr (error->message, cases[i].detail))
        g_error ("case %u: expected \"%s…%s\", got \"%s\"", i, prefix, cases[i].detail,
                 error->message);
      bpw_mapping_clear (&m);
    }
}

/* A study's scenario carries cp and its algorithm through a load and a save. */
static void
test_study_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) bundled = bpw_study_new_bundled ("default", &error);
  g_autoptr(BpwStudy) study = NULL;
  g_autoptr(BpwStudy) again = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *text = NULL;
  g_autofree char *edited = NULL;
  g_autofree char *saved = NULL;
  JsonObject *scenario, *parallel;
  const BpwStudyScenario *sc;

  g_assert_no_error (error);
  text = bpw_study_to_json (bundled);
  g_assert_null (strstr (text, "\"cp\""));
  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  scenario = json_array_get_object_element (
    json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                  "scenarios"), 0);
  parallel = json_object_get_object_member (scenario, "parallel");
  json_object_set_int_member (parallel, "cp", 2);
  json_object_set_string_member (parallel, "cp_algorithm", "allgather");
  edited = json_to_string (json_parser_get_root (parser), TRUE);

  study = bpw_study_new_from_data ("cp.bpw-study.json", edited, -1, &error);
  g_assert_no_error (error);
  sc = bpw_study_get_scenario (study, 0);
  g_assert_cmpint (sc->parallel.cp, ==, 2);
  g_assert_cmpint (sc->parallel.cp_algorithm, ==, BPW_CP_ALLGATHER);
  saved = bpw_study_to_json (study);
  again = bpw_study_new_from_data ("again.bpw-study.json", saved, -1, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_parallel_equal (&bpw_study_get_scenario (again, 0)->parallel,
                                     &sc->parallel));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/context-parallel/conservation", test_conservation);
  g_test_add_func ("/context-parallel/message-bytes", test_message_bytes);
  g_test_add_func ("/context-parallel/legality", test_legality);
  g_test_add_func ("/context-parallel/memory", test_memory);
  g_test_add_func ("/context-parallel/exposed-closed-form", test_exposed_closed_form);
  g_test_add_func ("/context-parallel/estimator-simulation", test_estimator_and_simulation_agree);
  g_test_add_func ("/context-parallel/estimator-other-groups", test_estimator_with_other_groups);
  g_test_add_func ("/context-parallel/llama3-long-context", test_llama3_long_context);
  g_test_add_func ("/context-parallel/search-space", test_search_space);
  g_test_add_func ("/context-parallel/mapping-round-trip", test_mapping_round_trip);
  g_test_add_func ("/context-parallel/study-round-trip", test_study_round_trip);
  g_test_add_func ("/context-parallel/mapping-errors", test_mapping_errors);
  return g_test_run ();
}
