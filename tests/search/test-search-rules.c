/* test-search-rules.c — a space's rules (bpw-search-rules.h) shape its enumeration
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The search space knows no cost model: rules given through the limits decide what it
 * narrows and widens. A set of rules of this test's own, no model's, must be obeyed
 * plan by plan, and must give a space its own fingerprint and name.
 */
#include "config.h"

#include <string.h>

#include "bpw-core.h"
#include "bpw-search.h"
#include "bpw-test-search.h"

static guint checks;

static gboolean
refuse_decode (const BpwScenario *scenario,
               GError           **error)
{
  checks++;
  if (scenario->phase != BPW_WORKLOAD_DECODE)
    return TRUE;
  g_set_error_literal (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "no decode here");
  return FALSE;
}

static const BpwSearchRules narrow_rules = {
  .name = "narrow",
  .id = 7,
  .check = refuse_decode,
  .pp_divides_layers = TRUE,
  .zero_stages = (1u << 0) | (1u << 3),
  .fusion_sets = 1u << BPW_SEARCH_FUSION_NONE,
  .gpipe = FALSE,
  .offload_min_layers = 1000,
  .activation_offload = FALSE,
  .network_tiers = TRUE,
};

static void
test_rules_obeyed (void)
{
  g_autoptr(BpwBlueprint) bp = a100 ();
  g_autoptr(BpwSearchSpace) full = NULL, narrow = NULL;
  g_autoptr(GError) error = NULL;
  BpwModelSpec spec;
  BpwScenario s;
  BpwSearchLimits l;
  gboolean saw_tiers = FALSE;

  small_spec (&spec);
  train_scenario (&s, 16, 512);
  bpw_search_limits_init (&l);
  full = bpw_search_space_new (&spec, &s, bp, NULL, 8, &l, &error);
  g_assert_no_error (error);
  g_assert_true (full->rules != NULL);
  g_assert_cmpstr (full->rules->name, ==, "full");

  l.rules = &narrow_rules;
  checks = 0;
  narrow = bpw_search_space_new (&spec, &s, bp, NULL, 8, &l, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (checks, ==, 1);
  g_assert_true (narrow->rules == &narrow_rules);
  g_assert_false (narrow->limits.algorithms);  /* network tiers replace algorithms */
  g_assert_cmpuint (narrow->size, >, 0);
  g_assert_cmpstr (narrow->fingerprint, !=, full->fingerprint);

  for (guint64 i = 0; i < narrow->size; i++)
    {
      BpwMapping m;

      bpw_mapping_init_defaults (&m);
      bpw_search_space_mapping (narrow, i, &m);
      g_assert_cmpint (spec.layers % m.parallel.pp, ==, 0);
      g_assert_true (m.parallel.zero == 0 || m.parallel.zero == 3);
      g_assert_cmpuint (m.fusion, ==, bpw_search_fusion_set_flags (BPW_SEARCH_FUSION_NONE));
      g_assert_cmpint (m.parallel.schedule, !=, BPW_SCHEDULE_GPIPE);
      for (guint t = 0; t < BPW_N_TENSOR_KINDS; t++)
        g_assert_cmpint (m.placement[t], !=, BPW_PLACEMENT_HOST);
      saw_tiers |= m.parallel.tp > 1 && m.tier[BPW_GROUP_TP] != full->base.tier[BPW_GROUP_TP];
      bpw_mapping_clear (&m);
    }
  /* Every tier of TP is a choice where the blueprint has more than one. */
  if (bp->n_tiers > 1)
    g_assert_true (saw_tiers);

  s.phase = BPW_WORKLOAD_DECODE;
  g_assert_null (bpw_search_space_new (&spec, &s, bp, NULL, 8, &l, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_cmpstr (error->message, ==, "no decode here");
  bpw_model_spec_clear (&spec);
}

/* The document names the space by its rules. */
static void
test_rules_named (void)
{
  g_autoptr(BpwBlueprint) bp = a100 ();
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchReport) report = NULL;
  g_autoptr(JsonNode) doc = NULL;
  g_autofree char *json = NULL;
  BpwModelSpec spec;
  BpwScenario s;
  BpwSearchLimits l;

  small_spec (&spec);
  train_scenario (&s, 16, 512);
  bpw_search_limits_init (&l);
  l.rules = &narrow_rules;
  l.tp = 2, l.pp = 1;
  space = new_space (&spec, &s, bp, 8, &l);
  report = run_search (space, 3, 1, FALSE, FALSE, 0, 1);
  json = bpw_search_report_to_json (report, space);
  doc = json_from_string (json, NULL);
  g_assert_nonnull (doc);
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (json_node_get_object (doc), "problem"),
                     "space"), ==, "narrow");
  bpw_model_spec_clear (&spec);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/search-rules/obeyed", test_rules_obeyed);
  g_test_add_func ("/search-rules/named", test_rules_named);
  return g_test_run ();
}
