/* test-mapping.c — the mapping value, its enum names and the Calculon execution import
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "bpw-error.h"
#include "bpw-mapping.h"
#include "bpw-test-mapping.h"

static void
test_defaults (void)
{
  BpwMapping m;

  memset (&m, 0x5a, sizeof m);
  m.name = NULL;
  bpw_mapping_init_defaults (&m);

  /* The header's documented defaults, field by field. */
  g_assert_null (m.name);
  g_assert_cmpint (m.parallel.tp, ==, 1);
  g_assert_cmpint (m.parallel.pp, ==, 1);
  g_assert_cmpint (m.parallel.dp, ==, 1);
  g_assert_cmpint (m.parallel.ep, ==, 1);
  g_assert_false (m.parallel.sp);
  g_assert_cmpint (m.parallel.zero, ==, 0);
  g_assert_cmpint (m.parallel.schedule, ==, BPW_SCHEDULE_1F1B);
  g_assert_cmpint (m.parallel.interleave, ==, 1);
  g_assert_cmpint (m.micro_batch, ==, 0);
  g_assert_cmpint (m.recompute, ==, -1);
  for (guint g = 0; g < BPW_N_GROUPS; g++)
    g_assert_cmpint (m.tier[g], ==, -1);
  for (guint t = 0; t < BPW_MAPPING_MAX_TIERS; t++)
    g_assert_cmpint (m.algorithm[t], ==, 0);
  /* Left to the blueprint (issue 21: flash attention by default where the engines run it;
   * test-stack.c checks what it resolves to). */
  g_assert_cmpuint (m.fusion, ==, BPW_FUSION_AUTOMATIC);
  g_assert_true (m.tiling.automatic);
  for (guint p = 0; p < BPW_N_PRIMITIVES; p++)
    g_assert_cmpint (m.engine[p], ==, -1);
  for (guint k = 0; k < BPW_N_TENSOR_KINDS; k++)
    g_assert_cmpint (m.placement[k], ==, -1);
  g_assert_true (m.dp_overlap);
  g_assert_cmpint (m.tp_overlap, ==, BPW_TP_OVERLAP_NONE);
  g_assert_false (m.sp_gather_again);
  bpw_mapping_clear (&m);
}

static void
test_enum_strings (void)
{
  static const struct { BpwFusion flag; const char *name; } fusions[] = {
    { BPW_FUSION_ATTENTION, "attention" },
    { BPW_FUSION_BIAS_ACTIVATION, "bias_activation" },
    { BPW_FUSION_NORM_RESIDUAL, "norm_residual" },
    { BPW_FUSION_OPTIMIZER, "optimizer" },
  };
  static const struct { BpwTpOverlap value; const char *name; } overlaps[] = {
    { BPW_TP_OVERLAP_NONE, "none" },
    { BPW_TP_OVERLAP_RING, "ring" },
    { BPW_TP_OVERLAP_PIPE, "pipe" },
  };
  BpwFusion f = 0;
  BpwTpOverlap o = BPW_TP_OVERLAP_NONE;

  g_assert_cmpuint (G_N_ELEMENTS (fusions), ==, BPW_N_FUSIONS);
  for (guint i = 0; i < G_N_ELEMENTS (fusions); i++)
    {
      g_assert_cmpstr (bpw_fusion_to_string (fusions[i].flag), ==, fusions[i].name);
      g_assert_true (bpw_fusion_from_string (fusions[i].name, &f));
      g_assert_cmpint (f, ==, fusions[i].flag);
    }
  for (guint i = 0; i < G_N_ELEMENTS (overlaps); i++)
    {
      g_assert_cmpstr (bpw_tp_overlap_to_string (overlaps[i].value), ==, overlaps[i].name);
      g_assert_true (bpw_tp_overlap_from_string (overlaps[i].name, &o));
      g_assert_cmpint (o, ==, overlaps[i].value);
    }

  f = BPW_FUSION_OPTIMIZER;
  g_assert_false (bpw_fusion_from_string ("flash", &f));
  g_assert_false (bpw_fusion_from_string ("", &f));
  g_assert_false (bpw_fusion_from_string (NULL, &f));
  g_assert_false (bpw_fusion_from_string ("Attention", &f));
  g_assert_cmpint (f, ==, BPW_FUSION_OPTIMIZER);
  g_assert_false (bpw_tp_overlap_from_string ("tree", &o));
  g_assert_false (bpw_tp_overlap_from_string (NULL, &o));
  g_assert_cmpint (o, ==, BPW_TP_OVERLAP_PIPE);
}

static void
test_round_trip (void)
{
  BpwMapping m, d;

  bpw_mapping_init_defaults (&d);
  bpw_test_mapping_assert_round_trip (&d);
  bpw_test_mapping_fill_non_default (&m);
  bpw_test_mapping_assert_round_trip (&m);
  g_assert_false (bpw_mapping_equal (&m, &d));
  bpw_mapping_clear (&m);
  bpw_mapping_clear (&d);
}

/* equal() sees a change in any one field; an automatic tiling ignores m, n, k. */
static void
test_equal (void)
{
  BpwMapping a, b;

  bpw_mapping_init_defaults (&a);
  bpw_mapping_init_defaults (&b);
  g_assert_true (bpw_mapping_equal (&a, &b));

#define DIFFERS(stmt) G_STMT_START {                   \
    bpw_mapping_clear (&b);                            \
    bpw_mapping_copy (&b, &a);                         \
    g_assert_true (bpw_mapping_equal (&a, &b));        \
    stmt;                                              \
    g_assert_false (bpw_mapping_equal (&a, &b));       \
  } G_STMT_END

  DIFFERS (b.name = g_strdup ("x"));
  DIFFERS (b.parallel.tp = 2);
  DIFFERS (b.parallel.sp = TRUE);
  DIFFERS (b.parallel.schedule = BPW_SCHEDULE_GPIPE);
  DIFFERS (b.parallel.interleave = 2);
  DIFFERS (b.micro_batch = 2);
  DIFFERS (b.recompute = BPW_RECOMPUTE_NONE);
  DIFFERS (b.tier[BPW_GROUP_EP] = 0);
  DIFFERS (b.algorithm[7] = BPW_COLLECTIVE_ALGO_RING);
  DIFFERS (b.fusion = 0);
  DIFFERS (b.tiling = ((BpwTiling) { FALSE, 1, 1, 1 }));
  DIFFERS (b.engine[BPW_PRIM_ROTARY] = 1);
  DIFFERS (b.placement[BPW_TENSOR_COMMUNICATION] = BPW_PLACEMENT_HOST);
  DIFFERS (b.dp_overlap = FALSE);
  DIFFERS (b.tp_overlap = BPW_TP_OVERLAP_RING);
  DIFFERS (b.sp_gather_again = TRUE);
#undef DIFFERS

  bpw_mapping_clear (&b);
  bpw_mapping_copy (&b, &a);
  b.tiling.m = 77;
  g_assert_true (bpw_mapping_equal (&a, &b));
  bpw_mapping_clear (&a);
  bpw_mapping_clear (&b);
}

static void
test_apply_to_scenario (void)
{
  BpwScenario s;
  BpwMapping m;

  bpw_scenario_init_defaults (&s);
  s.micro_batch = 3;
  s.recompute = BPW_RECOMPUTE_SELECTIVE;
  bpw_mapping_init_defaults (&m);
  bpw_mapping_apply_to_scenario (&m, &s);
  g_assert_cmpint (s.micro_batch, ==, 3);
  g_assert_cmpint (s.recompute, ==, BPW_RECOMPUTE_SELECTIVE);
  m.micro_batch = 2;
  m.recompute = BPW_RECOMPUTE_NONE;
  bpw_mapping_apply_to_scenario (&m, &s);
  g_assert_cmpint (s.micro_batch, ==, 2);
  g_assert_cmpint (s.recompute, ==, BPW_RECOMPUTE_NONE);
  bpw_mapping_clear (&m);
  bpw_scenario_clear (&s);
}

static char *
calculon_run (const char *file)
{
  char *path = g_test_build_filename (G_TEST_DIST, "data", "reference", "calculon", "runs",
                                      file, NULL);

  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  return path;
}

static void
test_calculon_execution (void)
{
  g_autofree char *full = calculon_run ("gpt3-175B_full.execution.json");
  g_autofree char *seqsel = calculon_run ("gpt3-175B_seqsel.execution.json");
  g_autoptr(GError) error = NULL;
  BpwCalculonExecution exec;
  BpwScenario s;
  BpwParallel p;
  BpwMapping m;


  /* gpt3-175B_full: nets 0/1/1, fused activation, no overlaps, full recompute, no
   * offload, ar TP (no SP), no optimizer sharding. */
  bpw_scenario_init_defaults (&s);
  bpw_parallel_init_defaults (&p);
  bpw_mapping_init_defaults (&m);
  g_assert_true (bpw_calculon_execution_load_full (full, &s, &p, &exec, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (bpw_mapping_from_calculon_execution (&exec, &s, &p, &m, &error));
  g_assert_no_error (error);
  g_assert_cmpint (m.parallel.tp, ==, 8);
  g_assert_cmpint (m.parallel.pp, ==, 8);
  g_assert_cmpint (m.parallel.dp, ==, 16);
  g_assert_false (m.parallel.sp);
  g_assert_cmpint (m.parallel.zero, ==, 0);
  g_assert_cmpint (m.micro_batch, ==, 1);
  g_assert_cmpint (m.recompute, ==, BPW_RECOMPUTE_FULL);
  g_assert_cmpint (m.tier[BPW_GROUP_TP], ==, 0);
  g_assert_cmpint (m.tier[BPW_GROUP_PP], ==, 1);
  g_assert_cmpint (m.tier[BPW_GROUP_DP], ==, 1);
  g_assert_cmpint (m.tier[BPW_GROUP_EP], ==, 1);
  g_assert_cmpuint (m.fusion, ==, BPW_FUSION_BIAS_ACTIVATION | BPW_FUSION_OPTIMIZER);
  g_assert_true (m.tiling.automatic);
  g_assert_false (m.dp_overlap);
  g_assert_cmpint (m.tp_overlap, ==, BPW_TP_OVERLAP_NONE);
  g_assert_false (m.sp_gather_again);
  for (guint k = 0; k < BPW_N_TENSOR_KINDS; k++)
    g_assert_cmpint (m.placement[k], ==, -1);
  bpw_test_mapping_assert_round_trip (&m);

  /* gpt3-175B_seqsel: rs_ag (SP), attn_only, seq_par_ag_redo, sharding, DP overlap. */
  g_assert_true (bpw_calculon_execution_load_full (seqsel, &s, &p, &exec, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (bpw_mapping_from_calculon_execution (&exec, &s, &p, &m, &error));
  g_assert_true (m.parallel.sp);
  g_assert_cmpint (m.parallel.zero, ==, 2);
  g_assert_cmpint (m.recompute, ==, BPW_RECOMPUTE_SELECTIVE);
  g_assert_true (m.dp_overlap);
  g_assert_true (m.sp_gather_again);
  g_assert_cmpuint (m.fusion, ==, BPW_FUSION_BIAS_ACTIVATION | BPW_FUSION_OPTIMIZER);
  bpw_mapping_clear (&m);
  bpw_scenario_clear (&s);
}

/* The flags the reference runs leave off: offloads, unfused activation, TP overlap. */
static void
test_calculon_flags (void)
{
  BpwCalculonExecution exec = { 0 };
  g_autoptr(GError) error = NULL;
  BpwScenario s;
  BpwParallel p;
  BpwMapping m, before;

  bpw_scenario_init_defaults (&s);
  bpw_parallel_init_defaults (&p);
  p.tp = 4;
  s.micro_batch = 2;
  exec.tensor_par_net = 1;
  exec.pipeline_par_net = 2;
  exec.data_par_net = 3;
  exec.tensor_par_overlap = BPW_CALCULON_TP_OVERLAP_PIPE;
  exec.weight_offload = TRUE;
  exec.optimizer_offload = TRUE;
  bpw_mapping_init_defaults (&m);
  g_assert_true (bpw_mapping_from_calculon_execution (&exec, &s, &p, &m, &error));
  g_assert_cmpint (m.parallel.tp, ==, 4);
  g_assert_cmpint (m.micro_batch, ==, 2);
  g_assert_cmpint (m.recompute, ==, BPW_RECOMPUTE_NONE);
  g_assert_cmpint (m.tier[BPW_GROUP_TP], ==, 1);
  g_assert_cmpint (m.tier[BPW_GROUP_PP], ==, 2);
  g_assert_cmpint (m.tier[BPW_GROUP_DP], ==, 3);
  g_assert_cmpint (m.tier[BPW_GROUP_EP], ==, 3);
  g_assert_cmpuint (m.fusion, ==, BPW_FUSION_OPTIMIZER);
  g_assert_cmpint (m.tp_overlap, ==, BPW_TP_OVERLAP_PIPE);
  g_assert_cmpint (m.placement[BPW_TENSOR_WEIGHT], ==, BPW_PLACEMENT_HOST);
  g_assert_cmpint (m.placement[BPW_TENSOR_OPTIMIZER_STATE], ==, BPW_PLACEMENT_HOST);
  g_assert_cmpint (m.placement[BPW_TENSOR_MASTER_WEIGHT], ==, BPW_PLACEMENT_HOST);
  g_assert_cmpint (m.placement[BPW_TENSOR_GRADIENT], ==, BPW_PLACEMENT_HOST);
  g_assert_cmpint (m.placement[BPW_TENSOR_ACTIVATION], ==, -1);
  bpw_test_mapping_assert_round_trip (&m);

  exec.weight_offload = exec.optimizer_offload = FALSE;
  exec.activations_offload = TRUE;
  g_assert_true (bpw_mapping_from_calculon_execution (&exec, &s, &p, &m, &error));
  g_assert_cmpint (m.placement[BPW_TENSOR_ACTIVATION], ==, BPW_PLACEMENT_HOST);
  g_assert_cmpint (m.placement[BPW_TENSOR_WEIGHT], ==, -1);

  /* A network a mapping cannot hold is an error, and leaves the mapping alone. */
  bpw_mapping_copy (&before, &m);
  exec.data_par_net = BPW_MAPPING_MAX_TIERS;
  g_assert_false (bpw_mapping_from_calculon_execution (&exec, &s, &p, &m, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "data_par_net 8"));
  g_assert_true (bpw_mapping_equal (&m, &before));
  bpw_mapping_clear (&m);
  bpw_mapping_clear (&before);
  bpw_scenario_clear (&s);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/bpw/core/Mapping/defaults", test_defaults);
  g_test_add_func ("/bpw/core/Mapping/enum-strings", test_enum_strings);
  g_test_add_func ("/bpw/core/Mapping/round-trip", test_round_trip);
  g_test_add_func ("/bpw/core/Mapping/equal", test_equal);
  g_test_add_func ("/bpw/core/Mapping/apply-to-scenario", test_apply_to_scenario);
  g_test_add_func ("/bpw/core/Mapping/calculon-execution", test_calculon_execution);
  g_test_add_func ("/bpw/core/Mapping/calculon-flags", test_calculon_flags);

  return g_test_run ();
}
