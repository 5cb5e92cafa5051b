/* test-candidate-mapping.c — a candidate's mapping per scenario (resolution, round trip,
 * errors, undoable edits) and the collective algorithm a tier's choice gives each collective
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-candidate.h"
#include "bpw-error.h"
#include "bpw-estimator.h"
#include "bpw-plan-private.h"
#include "bpw-study-edit.h"

/* Llama-3-8B (32 heads, 8 KV heads, 32 layers) prefill and decode; candidate "tuned" sets
 * TP 4 and micro-batch 2 everywhere, and TP 8 with the KV cache on the host for decode
 * only; candidate "plain" sets nothing. */
#define STUDY_HEAD \
  "{\"format\": \"bpw-study\", \"version\": 1, \"name\": \"per-scenario\",\n" \
  " \"workloads\": [{\"name\": \"llama\", \"model\": \"llama3-8b\"}],\n" \
  " \"scenarios\": [\n" \
  "  {\"name\": \"prefill\", \"workload\": \"llama\", \"phase\": \"prefill\"," \
  " \"global_batch\": 8,\n" \
  "   \"micro_batch\": 8, \"seq\": 1024, \"parallel\": {\"tp\": 2}},\n" \
  "  {\"name\": \"decode\", \"workload\": \"llama\", \"phase\": \"decode\"," \
  " \"global_batch\": 16,\n" \
  "   \"micro_batch\": 16, \"seq\": 1024, \"context\": 2048," \
  " \"parallel\": {\"tp\": 2, \"pp\": 2}}],\n" \
  " \"blueprints\": [\"a100-sxm-80gb\"],\n"

static const char study_text[] =
  STUDY_HEAD
  " \"candidates\": [\n"
  "  {\"name\": \"tuned\", \"blueprint\": \"a100-sxm-80gb\",\n"
  "   \"mapping\": {\"parallel\": {\"tp\": 4}, \"micro_batch\": 2},\n"
  "   \"mappings\": {\"decode\": {\"parallel\": {\"tp\": 8},"
  " \"placement\": {\"kv_cache\": \"host\"}}}},\n"
  "  {\"name\": \"plain\", \"blueprint\": \"a100-sxm-80gb\", \"mapping\": {}}]}\n";

static BpwStudy *
load_text (const char *text)
{
  g_autoptr(GError) error = NULL;
  BpwStudy *study = bpw_study_new_from_data ("per-scenario.json", text, -1, &error);

  g_assert_no_error (error);
  g_assert_nonnull (study);
  return study;
}

static guint
scenario_index (BpwStudy   *study,
                const char *name)
{
  guint index = G_MAXUINT;

  g_assert_true (bpw_study_lookup_scenario (study, name, &index));
  return index;
}

/* The mapping candidate @c runs scenario @s with (a copy to clear). */
static void
resolve (BpwStudy   *study,
         guint       c,
         const char *scenario,
         BpwMapping *mapping,
         BpwScenario *resolved)
{
  g_autoptr(GError) error = NULL;
  BpwCandidateRun run;

  g_assert_true (bpw_candidate_run_init (&run, study, c, scenario_index (study, scenario),
                                         &error));
  g_assert_no_error (error);
  bpw_mapping_copy (mapping, &run.mapping);
  if (resolved != NULL)
    bpw_scenario_copy (resolved, &run.scenario);
  bpw_candidate_run_clear (&run);
}

/* Defaults → scenario → candidate → candidate for this scenario: each layer wins over the
 * ones before it, and only for what it sets. */
static void
test_resolution (void)
{
  g_autoptr(BpwStudy) study = load_text (study_text);
  BpwMapping m;
  BpwScenario s;

  /* prefill: the candidate's TP and micro-batch, the scenario's PP, defaults elsewhere. */
  resolve (study, 0, "prefill", &m, &s);
  g_assert_cmpint (m.parallel.tp, ==, 4);
  g_assert_cmpint (m.parallel.pp, ==, 1);
  g_assert_cmpint (s.micro_batch, ==, 2);
  g_assert_cmpint (m.placement[BPW_TENSOR_KV_CACHE], ==, -1);
  bpw_mapping_clear (&m);
  bpw_scenario_clear (&s);

  /* decode: its own TP and placement over the candidate's, the candidate's micro-batch,
   * the scenario's PP. */
  resolve (study, 0, "decode", &m, &s);
  g_assert_cmpint (m.parallel.tp, ==, 8);
  g_assert_cmpint (m.parallel.pp, ==, 2);
  g_assert_cmpint (s.micro_batch, ==, 2);
  g_assert_cmpint (m.placement[BPW_TENSOR_KV_CACHE], ==, BPW_PLACEMENT_HOST);
  g_assert_cmpint (m.placement[BPW_TENSOR_WEIGHT], ==, -1);
  bpw_mapping_clear (&m);
  bpw_scenario_clear (&s);

  /* A candidate that sets nothing runs the scenario as it is. */
  resolve (study, 1, "decode", &m, &s);
  g_assert_cmpint (m.parallel.tp, ==, 2);
  g_assert_cmpint (m.parallel.pp, ==, 2);
  g_assert_cmpint (s.micro_batch, ==, 16);
  bpw_mapping_clear (&m);
  bpw_scenario_clear (&s);

  g_assert_nonnull (bpw_study_candidate_get_scenario_mapping (bpw_study_get_candidate (study, 0),
                                                              "decode"));
  g_assert_null (bpw_study_candidate_get_scenario_mapping (bpw_study_get_candidate (study, 0),
                                                           "prefill"));
  g_assert_null (bpw_study_candidate_get_scenario_mapping (bpw_study_get_candidate (study, 1),
                                                           "decode"));
}

/* Written and read back: the same objects and the same mappings on every scenario; a
 * candidate without per-scenario mappings writes none. */
static void
test_round_trip (void)
{
  g_autoptr(BpwStudy) study = load_text (study_text);
  g_autofree char *text = bpw_study_to_json (study);
  g_autoptr(BpwStudy) back = load_text (text);
  g_autoptr(JsonNode) root = json_from_string (text, NULL);
  JsonArray *candidates;

  g_assert_nonnull (root);
  candidates = json_object_get_array_member (json_node_get_object (root), "candidates");
  g_assert_true (json_object_has_member (json_array_get_object_element (candidates, 0),
                                         "mappings"));
  g_assert_false (json_object_has_member (json_array_get_object_element (candidates, 1),
                                          "mappings"));

  for (guint c = 0; c < bpw_study_get_n_candidates (study); c++)
    {
      g_assert_true (json_node_equal (bpw_study_get_candidate (study, c)->mappings,
                                      bpw_study_get_candidate (back, c)->mappings));
      for (guint s = 0; s < bpw_study_get_n_scenarios (study); s++)
        {
          const char *name = bpw_study_get_scenario (study, s)->name;
          BpwMapping a, b;

          resolve (study, c, name, &a, NULL);
          resolve (back, c, name, &b, NULL);
          g_assert_true (bpw_mapping_equal (&a, &b));
          bpw_mapping_clear (&a);
          bpw_mapping_clear (&b);
        }
    }
}

typedef struct
{
  const char *candidates;  /* the "candidates" member */
  const char *message;     /* after the file name */
} Broken;

static const Broken broken[] = {
  { " \"candidates\": [{\"name\": \"c\", \"blueprint\": \"a100-sxm-80gb\",\n"
    "  \"mappings\": {\"train\": {}}}]}",
    ":10:25: candidates[0].mappings.train: the study has no scenario named \"train\"" },
  { " \"candidates\": [{\"name\": \"c\", \"blueprint\": \"a100-sxm-80gb\",\n"
    "  \"mappings\": {\"decode\": 8}}]}",
    ":10:26: candidates[0].mappings.decode: expected a mapping object" },
  { " \"candidates\": [{\"name\": \"c\", \"blueprint\": \"a100-sxm-80gb\",\n"
    "  \"mappings\": [{}]}]}",
    ":10:15: candidates[0].mappings: expected an object of mapping objects keyed by scenario "
    "name" },
};

static void
test_broken (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autofree char *text = g_strconcat (STUDY_HEAD, broken[i].candidates, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwStudy) study = bpw_study_new_from_data ("per-scenario.json", text, -1,
                                                           &error);

      g_test_message ("%u -> %s", i, error != NULL ? error->message : "(none)");
      g_assert_null (study);
      g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
      g_assert_cmpstr (error->message + strlen ("per-scenario.json"), ==, broken[i].message);
    }
}

/* An edit of one scenario's mapping: applied, the scenario runs it and no other does;
 * reverted, the candidate has none again; a mapping the blueprint cannot run is refused
 * with its path and the study is unchanged. */
static void
test_edit (void)
{
  g_autoptr(BpwStudy) study = load_text (study_text);
  g_autoptr(JsonNode) prefill = json_from_string ("{\"parallel\": {\"tp\": 8}, "
                                                  "\"tiers\": {\"tp\": \"nvlink\"}}", NULL);
  g_autoptr(JsonNode) bad = json_from_string ("{\"tiers\": {\"dp\": \"nvswitch\"}}", NULL);
  g_autoptr(BpwStudyEdit) edit = NULL;
  g_autoptr(BpwStudyEdit) drop = NULL;
  g_autoptr(BpwStudyEdit) refused = NULL;
  g_autoptr(GError) error = NULL;
  BpwMapping m;

  edit = bpw_study_edit_new_scenario_mapping (study, 0, "prefill", prefill, "TP");
  g_assert_cmpint (bpw_study_edit_get_kind (edit), ==, BPW_STUDY_EDIT_MAPPING);
  g_assert_cmpstr (bpw_study_edit_get_scenario (edit), ==, "prefill");
  g_assert_true (bpw_study_edit_apply (edit, study, &error));
  g_assert_no_error (error);
  resolve (study, 0, "prefill", &m, NULL);
  g_assert_cmpint (m.parallel.tp, ==, 8);
  g_assert_cmpint (m.tier[BPW_GROUP_TP], ==, 0);
  bpw_mapping_clear (&m);
  /* The other scenarios keep theirs. */
  resolve (study, 0, "decode", &m, NULL);
  g_assert_cmpint (m.parallel.tp, ==, 8);
  g_assert_cmpint (m.tier[BPW_GROUP_TP], ==, -1);
  bpw_mapping_clear (&m);

  g_assert_true (bpw_study_edit_revert (edit, study, &error));
  g_assert_no_error (error);
  g_assert_null (bpw_study_candidate_get_scenario_mapping (bpw_study_get_candidate (study, 0),
                                                           "prefill"));
  resolve (study, 0, "prefill", &m, NULL);
  g_assert_cmpint (m.parallel.tp, ==, 4);
  bpw_mapping_clear (&m);

  /* Dropping decode's own mapping, and undoing that. */
  drop = bpw_study_edit_new_scenario_mapping (study, 0, "decode", NULL, "drop");
  g_assert_true (bpw_study_edit_apply (drop, study, &error));
  resolve (study, 0, "decode", &m, NULL);
  g_assert_cmpint (m.parallel.tp, ==, 4);
  g_assert_cmpint (m.placement[BPW_TENSOR_KV_CACHE], ==, -1);
  bpw_mapping_clear (&m);
  g_assert_true (bpw_study_edit_revert (drop, study, &error));
  resolve (study, 0, "decode", &m, NULL);
  g_assert_cmpint (m.parallel.tp, ==, 8);
  g_assert_cmpint (m.placement[BPW_TENSOR_KV_CACHE], ==, BPW_PLACEMENT_HOST);
  bpw_mapping_clear (&m);

  refused = bpw_study_edit_new_scenario_mapping (study, 0, "decode", bad, "tier");
  g_assert_false (bpw_study_edit_apply (refused, study, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "mappings.decode.tiers.dp"));
  g_clear_error (&error);
  g_assert_false (bpw_study_set_candidate_scenario_mapping (study, 0, "train", prefill, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  resolve (study, 0, "decode", &m, NULL);
  g_assert_cmpint (m.parallel.tp, ==, 8);
  bpw_mapping_clear (&m);
}

/* A tier set to tree (or in-network) runs its reductions that way, but an all-to-all has
 * neither: it runs as ring, the only other algorithm the H100's NVLink offers, and costs
 * the ring's α-β time, (n−1)·α + (n−1)/n · S / (β·η). */

/* The algorithm binding chooses for one collective of the tensor-parallel group. */
static BpwCollectiveAlgo
plan_algorithm (const BpwBlueprint *bp, const BpwMapping *mapping, gint tier,
                BpwCollectiveKind kind, double bytes, gint64 ranks)
{
  BpwPlanTransfer tr = { .kind = kind, .group = BPW_GROUP_TP, .bytes = bytes, .ranks = ranks };

  _bpw_plan_price_transfer (bp, mapping, tier, &tr);
  return tr.algorithm;
}

static void
test_all_to_all_algorithm (void)
{
  static const char text[] =
    "{\"format\": \"bpw-study\", \"version\": 1,\n"
    " \"workloads\": [{\"name\": \"mixtral\", \"model\": \"mixtral-8x7b\"}],\n"
    " \"scenarios\": [{\"name\": \"prefill\", \"workload\": \"mixtral\", \"phase\": \"prefill\",\n"
    "   \"global_batch\": 8, \"micro_batch\": 1, \"seq\": 512,\n"
    "   \"parallel\": {\"tp\": 2, \"dp\": 4, \"ep\": 4}}],\n"
    " \"blueprints\": [\"h100-sxm-80gb\"],\n"
    " \"candidates\": [{\"name\": \"c\", \"blueprint\": \"h100-sxm-80gb\", \"mapping\": {}}]}\n";
  const BpwCollectiveAlgo chosen[] = { BPW_COLLECTIVE_ALGO_TREE, BPW_COLLECTIVE_ALGO_IN_NETWORK };
  g_autoptr(BpwStudy) study = load_text (text);
  g_autoptr(GError) error = NULL;
  BpwCandidateRun run;

  g_assert_true (bpw_candidate_run_init (&run, study, 0, 0, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (chosen); i++)
    {
      g_autoptr(BpwPlan) plan = NULL;
      const BpwTier *tier = &run.blueprint->tiers[0];
      double beta = tier->bandwidth.value * tier->efficiency.value;
      guint all_to_all = 0, reductions = 0;

      run.mapping.tier[BPW_GROUP_DP] = 0;
      run.mapping.tier[BPW_GROUP_EP] = 0;
      run.mapping.algorithm[0] = chosen[i];
      plan = bpw_candidate_run_bind (&run, &error);
      g_assert_no_error (error);
      g_assert_nonnull (plan);
      g_assert_true (bpw_plan_check_algorithms (run.blueprint, &run.mapping, NULL));
      for (gint64 s = 0; s < plan->dist->n_stages; s++)
        for (guint k = 0; k < plan->stages[s].transfers->len; k++)
          {
            const BpwPlanTransfer *tr = &g_array_index (plan->stages[s].transfers,
                                                        BpwPlanTransfer, k);
            double n = (double) tr->ranks;

            if (tr->tier != 0)
              continue;
            if (tr->kind == BPW_COLLECTIVE_ALL_TO_ALL)
              {
                all_to_all++;
                g_assert_cmpint (tr->algorithm, ==, BPW_COLLECTIVE_ALGO_RING);
                g_assert_cmpfloat (fabs (tr->time_s - ((n - 1) * tier->latency.value +
                                                       (n - 1) / n * tr->bytes / beta)),
                                   <=, 1e-12 * tr->time_s);
              }
            else if (tr->kind == BPW_COLLECTIVE_ALL_REDUCE)
              {
                reductions++;
                g_assert_cmpint (tr->algorithm, ==, chosen[i]);
              }
          }
      g_assert_cmpuint (all_to_all, >, 0);
      g_assert_cmpuint (reductions, >, 0);

      /* The choice itself, for every kind. */
      g_assert_cmpint (plan_algorithm (run.blueprint, &run.mapping, 0,
                                            BPW_COLLECTIVE_ALL_TO_ALL, 1e6, 8), ==,
                       BPW_COLLECTIVE_ALGO_RING);
      g_assert_cmpint (plan_algorithm (run.blueprint, &run.mapping, 0,
                                            BPW_COLLECTIVE_SEND_RECV, 1e6, 2), ==,
                       BPW_COLLECTIVE_ALGO_RING);
      g_assert_cmpint (plan_algorithm (run.blueprint, &run.mapping, 0,
                                            BPW_COLLECTIVE_ALL_GATHER, 1e6, 8), ==, chosen[i]);
      g_assert_false (bpw_cost_algorithm_applies (tier, chosen[i], BPW_COLLECTIVE_ALL_TO_ALL));
      g_assert_true (bpw_cost_algorithm_applies (tier, chosen[i], BPW_COLLECTIVE_ALL_REDUCE));
    }
  /* Direct, where a tier offers it, is an all-to-all's own. */
  run.blueprint->tiers[0].collectives |= BPW_COLLECTIVE_ALGO_DIRECT;
  run.mapping.algorithm[0] = BPW_COLLECTIVE_ALGO_DIRECT;
  g_assert_cmpint (plan_algorithm (run.blueprint, &run.mapping, 0,
                                        BPW_COLLECTIVE_ALL_TO_ALL, 1e6, 8), ==,
                   BPW_COLLECTIVE_ALGO_DIRECT);
  bpw_candidate_run_clear (&run);
}

/* An algorithm the tier does not offer makes the plan illegal, with a reason that names the
 * tier and what it offers; the analytic estimate agrees. */
static void
test_algorithm_not_offered (void)
{
  g_autoptr(BpwStudy) study = load_text (study_text);
  g_autoptr(GPtrArray) reasons = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwPlan) plan = NULL;
  BpwCandidateRun run;
  const char *want = "The mapping runs collectives on tier “nvlink” as in-network, but the "
                     "tier offers only ring, tree.";

  g_assert_true (bpw_candidate_run_init (&run, study, 1, scenario_index (study, "prefill"),
                                         &error));
  /* The A100's NVLink has no switch reduction. */
  run.mapping.algorithm[0] = BPW_COLLECTIVE_ALGO_IN_NETWORK;
  g_assert_false (bpw_plan_check_algorithms (run.blueprint, &run.mapping, reasons));
  g_assert_cmpuint (reasons->len, ==, 1);
  g_assert_cmpstr (reasons->pdata[0], ==, want);

  plan = bpw_candidate_run_bind (&run, &error);
  g_assert_no_error (error);
  g_assert_false (plan->legal);
  g_assert_true (g_ptr_array_find_with_equal_func (plan->reasons, want, g_str_equal, NULL));
  {
    g_autoptr(BpwEstimator) est = bpw_estimator_new (&run.spec, &run.scenario, run.blueprint,
                                                     &error);
    g_autoptr(GPtrArray) why = g_ptr_array_new_with_free_func (g_free);
    BpwEvaluation eval;

    g_assert_no_error (error);
    g_assert_true (bpw_estimator_evaluate (est, &run.mapping, &eval, why, &error));
    g_assert_no_error (error);
    g_assert_false (eval.legal);
    g_assert_true (g_ptr_array_find_with_equal_func (why, want, g_str_equal, NULL));
  }

  run.mapping.algorithm[0] = BPW_COLLECTIVE_ALGO_TREE;
  g_ptr_array_set_size (reasons, 0);
  g_assert_true (bpw_plan_check_algorithms (run.blueprint, &run.mapping, reasons));
  g_assert_cmpuint (reasons->len, ==, 0);
  bpw_candidate_run_clear (&run);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/CandidateMapping/resolution", test_resolution);
  g_test_add_func ("/bpw/core/CandidateMapping/round-trip", test_round_trip);
  g_test_add_func ("/bpw/core/CandidateMapping/broken", test_broken);
  g_test_add_func ("/bpw/core/CandidateMapping/edit", test_edit);
  g_test_add_func ("/bpw/core/CandidateMapping/all-to-all-algorithm", test_all_to_all_algorithm);
  g_test_add_func ("/bpw/core/CandidateMapping/algorithm-not-offered",
                   test_algorithm_not_offered);
  return g_test_run ();
}
