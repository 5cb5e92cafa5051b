/* test-property-options.c — every bundled model under every option: built or refused, never
 * a crash, and the numbers hold
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Crosses the bundled models and two 128-layer ones (Megatron's 1 T, and a MoE with every
 * bias, dropout and a shared expert) with every recompute policy, pipeline schedule, ZeRO
 * stage and phase. Graphs are built with their arrays first sized for one op, so they move
 * a dozen times or more while the decomposition holds on to them; under ASan (CI's sanitize
 * stage) any pointer kept across an append is a use after free, and in the plain build the
 * copied fields of every recompute op must still equal their forward op's.
 *
 * For each combination: the graph builds or is refused with an error; its sizes stay within
 * the bound the budget is checked against; the distribution's conservation report is ok;
 * parameters and FLOPs equal the analytic facts. Work is bounded by op counts, not time.
 */
#define G_LOG_DOMAIN "bpw-test-property-options"
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "bpw-test-oracle.h"
#include "bpw-decompose-size.h"
#include "bpw-work-graph-private.h"
#include "bpw-workload-io.h"

/* Arrays start at one op: the growth from one to a 128-layer graph is 14 doublings. */
#define RESERVE_ONE_OP 1

static const BpwRecompute recomputes[] = {
  BPW_RECOMPUTE_NONE, BPW_RECOMPUTE_SELECTIVE, BPW_RECOMPUTE_FULL,
};
static const BpwWorkloadPhase phases[] = {
  BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE,
};
static const BpwSchedule schedules[] = {
  BPW_SCHEDULE_GPIPE, BPW_SCHEDULE_1F1B, BPW_SCHEDULE_INTERLEAVED,
};

/* Megatron-LM's 1 T GPT (Narayanan et al. 2021, Table 1): 128 layers, h = 25 600. */
static void
megatron_1t (BpwModelSpec *s)
{
  bpw_oracle_gpt_spec (s, "megatron-1t", 51200, 25600, 128, 160, 160, 4 * 25600, 2048);
}

/* Every optional op of a block at once: biases, dropout, MoE every other layer with a
 * shared expert, so the size bound is checked on its largest block. */
static void
moe_128 (BpwModelSpec *s)
{
  bpw_oracle_gpt_spec (s, "moe-128", 4096, 256, 128, 8, 32, 512, 512);
  s->experts = 8;
  s->top_k = 2;
  s->shared_experts = 1;
  s->moe_every = 2;
  s->moe_first = 1;
  s->capacity_factor = 1.25;
}

/* Chunks per rank for the interleaved schedule: the smallest that divides the layers
 * (Llama 3 405B's 126 layers over pp 2 take 3); 0 when none up to 16 does (DeepSeek-V3's
 * 61), and the model then runs 1F1B in the interleaved schedule's place. */
static gint64
interleave (const BpwModelSpec *m, gint64 pp)
{
  for (gint64 v = 2; v <= 16; v++)
    if (m->layers % (pp * v) == 0)
      return v;
  return 0;
}

typedef struct
{
  guint built;
  guint refused;
  guint64 ops;
} Tally;

#define check_u128(got, want, cfg) \
  bpw_oracle_check_u128 ((got), (want), (cfg), __FILE__, __LINE__, G_STRFUNC)

static char *
describe (const BpwModelSpec *m, const BpwScenario *sc, const BpwParallel *p)
{
  return g_strdup_printf ("%s %s recompute=%s schedule=%d zero=%d", m->name,
                          bpw_workload_phase_to_string (sc->phase),
                          bpw_recompute_to_string (sc->recompute), p->schedule, p->zero);
}

/* What a pointer held across an append would corrupt: recompute ops copy their forward
 * op's FLOPs and shape. Also the graph's sizes against the budget's bound. */
static void
check_graph (const BpwWorkGraph *g, const char *cfg)
{
  BpwWorkGraphSize bound;
  guint recomputed = 0;

  bpw_decompose_size_bound (&g->spec, g->scenario.phase, g->scenario.recompute, &bound);
  if (g->ops->len > bound.ops || g->tensors->len > bound.tensors ||
      g->uses->len > bound.uses || g->deps->len > bound.deps)
    g_error ("[%s] graph of %u ops, %u tensors, %u uses, %u deps passes its bound of %"
             G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ", %"
             G_GUINT64_FORMAT, cfg, g->ops->len, g->tensors->len, g->uses->len, g->deps->len,
             bound.ops, bound.tensors, bound.uses, bound.deps);
  /* The bound is not vacuous: within four times the graph. */
  g_assert_cmpuint (bound.ops, <=, 4 * (guint64) g->ops->len);

  for (guint i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);
      const BpwOp *fwd;

      if (op->phase != BPW_PHASE_RECOMPUTE)
        continue;
      recomputed++;
      g_assert_cmpint (op->forward_of, >=, 0);
      fwd = bpw_work_graph_op (g, op->forward_of);
      if (op->flops != fwd->flops || op->semantic_flops != fwd->semantic_flops ||
          op->batch != fwd->batch || op->m != fwd->m || op->n != fwd->n || op->k != fwd->k)
        g_error ("[%s] recompute op %u (%s) does not copy forward op %d: flops %"
                 G_GUINT64_FORMAT " vs %" G_GUINT64_FORMAT ", m %" G_GUINT64_FORMAT " vs %"
                 G_GUINT64_FORMAT, cfg, i, bpw_work_graph_name (g, op->name), op->forward_of,
                 op->flops, fwd->flops, op->m, fwd->m);
    }
  if (g->scenario.phase == BPW_WORKLOAD_TRAIN && g->scenario.recompute != BPW_RECOMPUTE_NONE)
    g_assert_cmpuint (recomputed, >, 0);
}

static void
check_facts (const BpwModelSpec *m, const BpwScenario *sc, const BpwParallel *p,
             const char *cfg, Tally *tally)
{
  g_autoptr(GError) error = NULL;
  BpwFacts exact, analytic;
  gboolean ok_exact, ok_analytic;

  ok_exact = bpw_facts_compute (m, sc, p, &exact, &error);
  if (!ok_exact)
    {
      g_assert_nonnull (error);
      g_assert_cmpstr (error->message, !=, "");
      bpw_facts_clear (&exact);
      tally->refused++;
      return;
    }
  ok_analytic = bpw_facts_compute_analytic (m, sc, p, &analytic, &error);
  g_assert_no_error (error);
  g_assert_true (ok_analytic);
  if (!exact.conservation.ok)
    g_error ("[%s] conservation: %s", cfg, exact.conservation.message);
  g_assert_cmpuint (exact.parameters, ==, analytic.parameters);
  g_assert_cmpuint (exact.active_parameters, ==, analytic.active_parameters);
  check_u128 (exact.flops_model, analytic.flops_model, cfg);
  check_u128 (exact.flops_semantic, analytic.flops_semantic, cfg);
  check_u128 (exact.flops_hardware, analytic.flops_hardware, cfg);
  for (guint ph = 0; ph < BPW_N_PHASES; ph++)
    check_u128 (exact.flops_by_phase[ph], analytic.flops_by_phase[ph], cfg);
  bpw_facts_clear (&exact);
  bpw_facts_clear (&analytic);
}

/* One model under one phase and recompute policy: the graph once with moving arrays, then
 * its distribution under every schedule and ZeRO stage. */
static void
check_model_options (const BpwModelSpec *m, BpwWorkloadPhase phase, BpwRecompute recompute,
                     Tally *tally)
{
  BpwScenario sc;
  gboolean train = phase == BPW_WORKLOAD_TRAIN;
  gint64 tp = m->vocab % 2 == 0 && m->kv_heads % 2 == 0 ? 2 : 1;

  /* Small sequences and batches: op counts do not depend on them, time does. Eight
   * micro-batches per pipeline replica so the schedules differ. */
  bpw_oracle_scenario (&sc, phase, 32, train ? 2 : 8, phase == BPW_WORKLOAD_DECODE ? 1 : 64,
                       phase == BPW_WORKLOAD_DECODE ? 63 : 0, recompute);
  /* A multimodal model's sequence holds an image's tokens besides the 64 of text. */
  if (phase != BPW_WORKLOAD_DECODE)
    sc.seq += bpw_model_spec_image_tokens (m);

  for (guint s = 0; s < G_N_ELEMENTS (schedules); s++)
    for (gint zero = 0; zero <= 3; zero++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(BpwWorkGraph) graph = NULL;
        g_autoptr(BpwDistWork) dist = NULL;
        g_autofree char *cfg = NULL;
        BpwParallel p;
        BpwConservation report = { 0 };

        /* TP 2 with sequence parallelism where the model divides (GPT-2's vocabulary of
         * 50 257 does not), PP 2, DP 2, EP 2 for MoE. */
        bpw_oracle_parallel (&p, tp, 2, 2, tp > 1, zero);
        p.schedule = schedules[s];
        p.interleave = schedules[s] == BPW_SCHEDULE_INTERLEAVED ? interleave (m, p.pp) : 1;
        if (p.interleave == 0)
          {
            p.schedule = BPW_SCHEDULE_1F1B;
            p.interleave = 1;
          }
        p.ep = m->experts > 0 && m->experts % 2 == 0 ? 2 : 1;
        cfg = describe (m, &sc, &p);

        graph = _bpw_work_graph_new_reserved (m, &sc, RESERVE_ONE_OP, &error);
        g_assert_no_error (error);
        g_assert_nonnull (graph);
        if (s == 0 && zero == 0)
          {
            check_graph (graph, cfg);
            tally->ops += graph->ops->len;
          }
        dist = bpw_dist_work_new (g_steal_pointer (&graph), &p, &error);
        if (dist == NULL)
          {
            /* An illegal plan is a sentence, not a crash. */
            g_assert_nonnull (error);
            g_assert_cmpstr (error->message, !=, "");
            g_test_message ("[%s] refused: %s", cfg, error->message);
            tally->refused++;
            continue;
          }
        g_assert_no_error (error);
        bpw_dist_work_check_conservation (dist, &report);
        if (!report.ok)
          g_error ("[%s] conservation: %s", cfg, report.message);
        bpw_conservation_clear (&report);
        tally->built++;
        if (s == 1 && (zero == 0 || zero == 3))
          check_facts (m, &sc, &p, cfg, tally);
      }
  bpw_scenario_clear (&sc);
}

static void
check_model (const BpwModelSpec *m)
{
  Tally tally = { 0 };

  for (guint ph = 0; ph < G_N_ELEMENTS (phases); ph++)
    for (guint r = 0; r < G_N_ELEMENTS (recomputes); r++)
      check_model_options (m, phases[ph], recomputes[r], &tally);
  g_test_message ("%s: %u built, %u refused, %" G_GUINT64_FORMAT " ops", m->name,
                  tally.built, tally.refused, tally.ops);
  /* Only recomputation in inference is refused (a sentence saying so); everything else
   * builds, so the checks above are not vacuous. */
  g_assert_cmpuint (tally.refused, ==, 2 * 2 * G_N_ELEMENTS (schedules) * 4);
  g_assert_cmpuint (tally.built, ==, (3 + 2) * G_N_ELEMENTS (schedules) * 4);
  /* Bounded work: no graph here passes 128 layers' worth of ops per option. */
  g_assert_cmpuint (tally.ops, <=, G_N_ELEMENTS (phases) * G_N_ELEMENTS (recomputes) *
                                   (guint64) 200 * 130);
}

static void
test_bundled_models (void)
{
  const char * const *names = bpw_model_spec_bundled_names ();

  g_assert_cmpuint (g_strv_length ((char **) names), >, 0);
  for (guint i = 0; names[i] != NULL; i++)
    {
      BpwModelSpec m;

      bpw_model_spec_init_defaults (&m);
      g_assert_true (bpw_model_spec_lookup_bundled (names[i], &m));
      check_model (&m);
      bpw_model_spec_clear (&m);
    }
}

static void
test_megatron_1t (void)
{
  BpwModelSpec m;

  megatron_1t (&m);
  check_model (&m);
  bpw_model_spec_clear (&m);
}

static void
test_moe_128 (void)
{
  BpwModelSpec m;

  moe_128 (&m);
  check_model (&m);
  bpw_model_spec_clear (&m);
}

/* The use after free of issue 21: Megatron's 1 T under full recomputation through the
 * public constructor, whose arrays double inside a recomputed layer. */
static void
test_megatron_1t_full_recompute (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwWorkGraph) graph = NULL;
  BpwModelSpec m;
  BpwScenario sc;

  megatron_1t (&m);
  bpw_oracle_scenario (&sc, BPW_WORKLOAD_TRAIN, 8, 1, 2048, 0, BPW_RECOMPUTE_FULL);
  graph = bpw_work_graph_new (&m, &sc, &error);
  g_assert_no_error (error);
  check_graph (graph, "megatron-1t full recompute");
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&m);
}

/* The budget: a model the bound puts over it is refused before anything is allocated,
 * with a sentence naming the model and the budget. */
static void
test_budget_refused (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwWorkGraph) graph = NULL;
  g_autofree char *budget = g_strdup_printf ("budget of %" G_GUINT64_FORMAT " MiB",
                                             BPW_WORK_GRAPH_BUDGET_MIB);
  BpwWorkGraphSize size;
  BpwModelSpec m;
  BpwScenario sc;

  moe_128 (&m);
  m.layers = BPW_MODEL_MAX_LAYERS;
  m.shared_experts = 4096;
  bpw_decompose_size_bound (&m, BPW_WORKLOAD_TRAIN, BPW_RECOMPUTE_FULL, &size);
  g_assert_cmpuint (size.bytes, >, BPW_WORK_GRAPH_BUDGET_BYTES);
  bpw_oracle_scenario (&sc, BPW_WORKLOAD_TRAIN, 8, 1, 64, 0, BPW_RECOMPUTE_FULL);
  graph = bpw_work_graph_new (&m, &sc, &error);
  g_assert_null (graph);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_true (g_str_has_prefix (error->message, "model.layers: the work graph of “moe-128”"));
  g_assert_nonnull (strstr (error->message, budget));
  g_clear_error (&error);
  g_assert_false (bpw_decompose_check_model_budget (&m, &error));
  g_assert_nonnull (strstr (error->message, budget));
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&m);
}

/* Loading (bpw check) refuses what evaluation could not hold, with the same sentence,
 * located at the layers field. */
static void
test_budget_refused_on_load (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *where = NULL;
  BpwModelSpec m;
  int fd = g_file_open_tmp ("bpw-budget-XXXXXX.json", &path, &error);
  const char *json =
    "{\"format\": \"bpw-workload\", \"version\": 1,\n"
    " \"model\": {\"name\": \"deep\", \"vocab\": 32000, \"hidden\": 256,\n"
    "           \"layers\": 4096, \"heads\": 8, \"ffn\": 512, \"positions\": \"rotary\",\n"
    "           \"moe\": {\"experts\": 8, \"top_k\": 2, \"shared_experts\": 64}}}\n";

  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, json, -1, &error));
  bpw_model_spec_init_defaults (&m);
  g_assert_false (bpw_workload_load (path, &m, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  where = g_strdup_printf ("%s:3:22: model.layers: the work graph of “deep” (4096 layers)", path);
  g_assert_true (g_str_has_prefix (error->message, where));
  g_assert_nonnull (strstr (error->message, "budget of 512 MiB"));
  g_unlink (path);
  bpw_model_spec_clear (&m);
}

/* The schema's maximum of layers fits the budget under every option, for the largest
 * block the decomposition has (every bias, dropout, MoE with a shared expert). */
static void
test_max_layers_fit (void)
{
  g_autoptr(GError) error = NULL;
  BpwModelSpec m;

  moe_128 (&m);
  m.layers = BPW_MODEL_MAX_LAYERS;
  m.moe_every = 1;
  m.moe_first = 0;
  g_assert_true (bpw_decompose_check_model_budget (&m, &error));
  g_assert_no_error (error);
  m.layers = BPW_MODEL_MAX_LAYERS + 1;
  g_assert_false (bpw_model_spec_validate (&m, &error));
  g_assert_nonnull (strstr (error->message, "layers"));
  bpw_model_spec_clear (&m);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/property/megatron-1t-full-recompute", test_megatron_1t_full_recompute);
  g_test_add_func ("/property/bundled-models", test_bundled_models);
  g_test_add_func ("/property/megatron-1t", test_megatron_1t);
  g_test_add_func ("/property/moe-128", test_moe_128);
  g_test_add_func ("/property/budget-refused", test_budget_refused);
  g_test_add_func ("/property/budget-refused-on-load", test_budget_refused_on_load);
  g_test_add_func ("/property/max-layers-fit", test_max_layers_fit);
  return g_test_run ();
}
