/* test-search-calculon.c — search restricted to Calculon's space finds Calculon's optimum
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tests/data/calculon-search/ holds Calculon's own llm-optimal-execution run (its printed
 * output and its top-20 JSON, with the exact command in the README) for gpt3-13B on 4 GPUs
 * of its a100_80g system, batch 8: 60,192 executions. `bpw search --space calculon` on the
 * same inputs must choose the same decisions as Calculon's best — TP, PP, DP, micro-batch,
 * recompute, optimizer sharding (ZeRO 2), sequence parallelism (rs_ag), interleaving, TP
 * and DP overlap, the three offload flags and the network tier of every group — where two
 * of Calculon's plans tie exactly, either counts. Step times are the two models' own and
 * are only reported (and kept within a loose band): matching them is not the point.
 */
#include "config.h"

#include <math.h>

#include <json-glib/json-glib.h>

#include "bpw-calculon-rules.h"
#include "bpw-core.h"
#include "bpw-search.h"

/* The decisions both tools make, in Calculon's terms. Knobs without effect are -1: the TP
 * comm type and overlap without TP, DP overlap and sharding without DP, a group's tier
 * when its degree is 1. */
typedef struct
{
  gint64 tp, pp, dp, mbs, v;
  gint   recompute;             /* BpwRecompute */
  gint   sharding, sp, tp_overlap, dp_overlap;
  gint   weights, activations, optimizer;
  gint   tier[3];               /* TP, PP, DP */
} Decisions;

static void
decisions_print (GString *out, const Decisions *d)
{
  g_string_append_printf (out, "TP %" G_GINT64_FORMAT " PP %" G_GINT64_FORMAT " DP %"
                          G_GINT64_FORMAT " mbs %" G_GINT64_FORMAT " v %" G_GINT64_FORMAT
                          " recompute %s sharding %d sp %d tp-overlap %d dp-overlap %d "
                          "offload w%d a%d o%d tiers %d/%d/%d", d->tp, d->pp, d->dp, d->mbs,
                          d->v, bpw_recompute_to_string (d->recompute), d->sharding, d->sp,
                          d->tp_overlap, d->dp_overlap, d->weights, d->activations,
                          d->optimizer, d->tier[0], d->tier[1], d->tier[2]);
}

static gboolean
decisions_equal (const Decisions *a, const Decisions *b)
{
  return a->tp == b->tp && a->pp == b->pp && a->dp == b->dp && a->mbs == b->mbs &&
         a->v == b->v && a->recompute == b->recompute && a->sharding == b->sharding &&
         a->sp == b->sp && a->tp_overlap == b->tp_overlap && a->dp_overlap == b->dp_overlap &&
         a->weights == b->weights && a->activations == b->activations &&
         a->optimizer == b->optimizer && a->tier[0] == b->tier[0] && a->tier[1] == b->tier[1] &&
         a->tier[2] == b->tier[2];
}

static void
decisions_normalise (Decisions *d)
{
  if (d->tp == 1)
    d->sp = d->tp_overlap = d->tier[0] = -1;
  if (d->pp == 1)
    d->tier[1] = -1;
  if (d->dp == 1)
    d->sharding = d->dp_overlap = d->tier[2] = -1;
}

static gboolean
from_calculon (JsonObject *exe, Decisions *d)
{
  const char *recompute = json_object_get_string_member (exe, "activation_recompute");
  const char *comm = json_object_get_string_member (exe, "tensor_par_comm_type");
  const char *overlap = json_object_get_string_member (exe, "tensor_par_overlap");

  /* p2p_rs_ag has no counterpart in our space (nor any effect without TP). */
  if (g_strcmp0 (comm, "p2p_rs_ag") == 0 && json_object_get_int_member (exe, "tensor_par") > 1)
    return FALSE;
  *d = (Decisions) {
    .tp = json_object_get_int_member (exe, "tensor_par"),
    .pp = json_object_get_int_member (exe, "pipeline_par"),
    .dp = json_object_get_int_member (exe, "data_par"),
    .mbs = json_object_get_int_member (exe, "microbatch_size"),
    .v = json_object_get_int_member (exe, "pipeline_interleaving"),
    .recompute = g_strcmp0 (recompute, "full") == 0 ? BPW_RECOMPUTE_FULL
                 : g_strcmp0 (recompute, "attn_only") == 0 ? BPW_RECOMPUTE_SELECTIVE
                                                            : BPW_RECOMPUTE_NONE,
    .sharding = json_object_get_boolean_member (exe, "optimizer_sharding"),
    .sp = g_strcmp0 (comm, "rs_ag") == 0,
    .tp_overlap = g_strcmp0 (overlap, "ring") == 0 ? BPW_TP_OVERLAP_RING
                  : g_strcmp0 (overlap, "pipe") == 0 ? BPW_TP_OVERLAP_PIPE : BPW_TP_OVERLAP_NONE,
    .dp_overlap = json_object_get_boolean_member (exe, "data_par_overlap"),
    .weights = json_object_get_boolean_member (exe, "weight_offload"),
    .activations = json_object_get_boolean_member (exe, "activations_offload"),
    .optimizer = json_object_get_boolean_member (exe, "optimizer_offload"),
    .tier = { json_object_get_int_member (exe, "tensor_par_net"),
              json_object_get_int_member (exe, "pipeline_par_net"),
              json_object_get_int_member (exe, "data_par_net") },
  };
  decisions_normalise (d);
  return TRUE;
}

static void
from_mapping (const BpwMapping *m, Decisions *d)
{
  const BpwParallel *p = &m->parallel;

  g_assert_true (p->zero == 0 || p->zero == 2);
  *d = (Decisions) {
    .tp = p->tp, .pp = p->pp, .dp = p->dp, .mbs = m->micro_batch,
    .v = p->schedule == BPW_SCHEDULE_INTERLEAVED ? p->interleave : 1,
    .recompute = m->recompute, .sharding = p->zero == 2, .sp = p->sp,
    .tp_overlap = m->tp_overlap, .dp_overlap = m->dp_overlap,
    .weights = m->placement[BPW_TENSOR_WEIGHT] == BPW_PLACEMENT_HOST,
    .activations = m->placement[BPW_TENSOR_ACTIVATION] == BPW_PLACEMENT_HOST,
    .optimizer = m->placement[BPW_TENSOR_OPTIMIZER_STATE] == BPW_PLACEMENT_HOST,
    .tier = { m->tier[BPW_GROUP_TP], m->tier[BPW_GROUP_PP], m->tier[BPW_GROUP_DP] },
  };
  g_assert_cmpint (p->schedule, !=, BPW_SCHEDULE_GPIPE);
  decisions_normalise (d);
}

/* gpt3-13B and a100_80g of tests/data/calculon-search, training at batch 8 (Calculon's seq
 * 2048 from the model file); the fixture directory into @dir. FALSE (skipped) without
 * BPW_SOURCE_ROOT. */
static gboolean
load_problem (BpwModelSpec *spec, BpwScenario *scenario, BpwBlueprint **bp, char **dir)
{
  const char *root = g_getenv ("BPW_SOURCE_ROOT");
  g_autofree char *model = NULL, *system = NULL;
  g_autoptr(GError) error = NULL;
  BpwScenario hint;

  if (root == NULL)
    {
      g_test_skip ("BPW_SOURCE_ROOT not set");
      return FALSE;
    }
  *dir = g_build_filename (root, "tests", "data", "calculon-search", NULL);
  model = g_build_filename (*dir, "gpt3-13B.json", NULL);
  system = g_build_filename (*dir, "a100_80g.json", NULL);
  bpw_model_spec_init_defaults (spec);
  bpw_scenario_init_defaults (scenario);
  bpw_scenario_init_defaults (&hint);
  g_assert_true (bpw_workload_load_full (model, 0, spec, &hint, &error));
  g_assert_no_error (error);
  scenario->phase = BPW_WORKLOAD_TRAIN;
  scenario->seq = hint.seq;
  scenario->global_batch = 8;
  g_assert_cmpint (scenario->seq, ==, 2048);
  bpw_scenario_clear (&hint);
  *bp = bpw_blueprint_load (system, NULL, &error);
  g_assert_no_error (error);
  return TRUE;
}

static void
test_calculon_optimum (void)
{
  g_autofree char *dir = NULL, *loe = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(BpwBlueprint) bp = NULL;
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchReport) report = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  JsonObject *top, *first;
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwSearchLimits limits;
  BpwSearchOptions options;
  const BpwSearchResult *best;
  Decisions ours, theirs;
  double calculon_time, best_rate;
  gboolean matched = FALSE;
  guint n_tied = 0;

  if (!load_problem (&spec, &scenario, &bp, &dir))
    return;
  loe = g_build_filename (dir, "loe-gpt3-13B-4-8.json", NULL);

  /* Our side: `bpw search gpt3-13B.json --blueprint a100_80g.json --devices 4
   * --global-batch 8 --space calculon`. */
  bpw_search_limits_init (&limits);
  limits.rules = bpw_calculon_search_rules ();
  space = bpw_search_space_new (&spec, &scenario, bp, NULL, 4, &limits, &error);
  g_assert_no_error (error);
  bpw_search_options_init (&options);
  options.threads = 2;
  options.reevaluate = FALSE;
  options.simulate = FALSE;
  report = bpw_search_run (space, &options, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (report->evaluated, ==, report->space);
  g_assert_cmpuint (report->best->len, >, 0);
  best = &g_array_index (report->best, BpwSearchResult, 0);
  from_mapping (&best->mapping, &ours);

  /* Calculon's side: its best, and every plan that ties it exactly. */
  g_assert_true (json_parser_load_from_file (parser, loe, &error));
  g_assert_no_error (error);
  top = json_node_get_object (json_parser_get_root (parser));
  first = json_object_get_object_member (json_object_get_object_member (top, "0"), "stats");
  calculon_time = json_object_get_double_member (first, "total_time");
  best_rate = json_object_get_double_member (first, "sample_rate");
  for (guint i = 0; i < json_object_get_size (top); i++)
    {
      g_autofree char *key = g_strdup_printf ("%u", i);
      JsonObject *entry = json_object_get_object_member (top, key);
      JsonObject *stats = json_object_get_object_member (entry, "stats");

      if (json_object_get_double_member (stats, "sample_rate") != best_rate)
        break;
      n_tied++;
      if (from_calculon (json_object_get_object_member (entry, "execution"), &theirs) &&
          decisions_equal (&theirs, &ours))
        matched = TRUE;
    }
  g_assert_cmpuint (n_tied, >=, 1);

  g_string_append (text, "ours:     ");
  decisions_print (text, &ours);
  g_string_append_printf (text, "\n  step %.4f s (%" G_GUINT64_FORMAT " plans)\nCalculon: ",
                          best->estimate.step_time_s, report->space);
  g_assert_true (from_calculon (json_object_get_object_member (
    json_object_get_object_member (top, "0"), "execution"), &theirs));
  decisions_print (text, &theirs);
  g_string_append_printf (text, "\n  step %.4f s (60192 executions, %u tied best)",
                          calculon_time, n_tied);
  g_test_message ("%s", text->str);
  g_assert_true (matched);
  /* Two models of the same plan: ours also costs the embedding, the LM head and the loss
   * (51,200-token vocabulary) that Calculon leaves out. Only gross disagreement fails. */
  g_assert_cmpfloat (fabs (best->estimate.step_time_s / calculon_time - 1.0), <, 0.25);

  bpw_scenario_clear (&scenario);
  bpw_model_spec_clear (&spec);
}

/* The space itself: Calculon's rules, not the full space's. */
static void
test_calculon_space_rules (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = NULL;
  g_autoptr(BpwSearchSpace) space = NULL;
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwSearchLimits limits;
  gboolean saw_acts = FALSE, saw_tier1 = FALSE;

  if (!load_problem (&spec, &scenario, &bp, &dir))
    return;
  bpw_search_limits_init (&limits);
  limits.rules = bpw_calculon_search_rules ();
  space = bpw_search_space_new (&spec, &scenario, bp, NULL, 4, &limits, &error);
  g_assert_no_error (error);

  for (guint64 i = 0; i < space->size; i++)
    {
      BpwMapping m;
      const BpwParallel *p;

      bpw_mapping_init_defaults (&m);
      bpw_search_space_mapping (space, i, &m);
      p = &m.parallel;
      /* TP divides the hidden size (5140) and the heads (40): 1, 2 or 4 of 4 devices. */
      g_assert_true (spec.hidden % p->tp == 0 && spec.heads % p->tp == 0);
      g_assert_cmpint (spec.layers % p->pp, ==, 0);
      g_assert_true (p->zero == 0 || (p->zero == 2 && p->dp > 1));
      g_assert_cmpint (p->schedule, !=, BPW_SCHEDULE_GPIPE);
      g_assert_cmpuint (m.fusion, ==, BPW_FUSION_BIAS_ACTIVATION | BPW_FUSION_OPTIMIZER);
      for (guint t = 0; t < BPW_MAPPING_MAX_TIERS; t++)
        g_assert_cmpint (m.algorithm[t], ==, 0);
      if (m.placement[BPW_TENSOR_ACTIVATION] == BPW_PLACEMENT_HOST)
        {
          saw_acts = TRUE;
          g_assert_cmpint (m.recompute, !=, BPW_RECOMPUTE_FULL);
        }
      /* Calculon offloads only with 3 or more blocks per processor. */
      if (m.placement[BPW_TENSOR_WEIGHT] == BPW_PLACEMENT_HOST ||
          m.placement[BPW_TENSOR_ACTIVATION] == BPW_PLACEMENT_HOST ||
          m.placement[BPW_TENSOR_OPTIMIZER_STATE] == BPW_PLACEMENT_HOST)
        g_assert_cmpint (spec.layers / p->pp, >=, 3);
      if ((p->tp > 1 && m.tier[BPW_GROUP_TP] == 1) || (p->dp > 1 && m.tier[BPW_GROUP_DP] == 1))
        saw_tier1 = TRUE;
      bpw_mapping_clear (&m);
    }
  g_assert_true (saw_acts);
  g_assert_true (saw_tier1);

  /* Restricting where activations live keeps one side of that choice: the two sides
   * partition the space, plan for plan. */
  {
    guint64 side[2];

    for (gint a = 0; a <= 1; a++)
      {
        g_autoptr(BpwSearchSpace) part = NULL;

        limits.act_offload = a;
        part = bpw_search_space_new (&spec, &scenario, bp, NULL, 4, &limits, &error);
        g_assert_no_error (error);
        side[a] = part->size;
        for (guint64 i = 0; i < part->size; i++)
          {
            BpwMapping m;

            bpw_mapping_init_defaults (&m);
            bpw_search_space_mapping (part, i, &m);
            g_assert_cmpint (m.placement[BPW_TENSOR_ACTIVATION] == BPW_PLACEMENT_HOST, ==, a);
            bpw_mapping_clear (&m);
          }
      }
    g_assert_cmpuint (side[0], >, 0);
    g_assert_cmpuint (side[1], >, 0);
    g_assert_cmpuint (side[0] + side[1], ==, space->size);
    /* Only Calculon's space offloads activations. */
    limits.rules = NULL;
    g_assert_null (bpw_search_space_new (&spec, &scenario, bp, NULL, 4, &limits, &error));
    g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
    g_clear_error (&error);
    limits.rules = bpw_calculon_search_rules ();
    limits.act_offload = -1;
  }

  /* Calculon searches training only. */
  g_clear_pointer (&space, bpw_search_space_free);
  scenario.phase = BPW_WORKLOAD_PREFILL;
  space = bpw_search_space_new (&spec, &scenario, bp, NULL, 4, &limits, &error);
  g_assert_null (space);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  bpw_scenario_clear (&scenario);
  bpw_model_spec_clear (&spec);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/bpw/core/Search/calculon-space-rules", test_calculon_space_rules);
  g_test_add_func ("/bpw/core/Search/calculon-optimum", test_calculon_optimum);
  return g_test_run ();
}
