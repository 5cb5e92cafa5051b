/* test-cli-options.c — mapping options of the command line and how they layer
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Built with app/bpw-cli-options.c; the usage-error quark lives in bpw-cli.c (with main),
 * so it is defined here the same way.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "bpw-cli.h"
#include "bpw-cli-options.h"
#include "bpw-error.h"

G_DEFINE_QUARK (bpw-cli-usage-error-quark, bpw_cli_usage_error)

/* A Calculon execution with every knob away from the mapping defaults: nets 1/2/3,
 * unfused activation, pipe TP overlap, no DP overlap, SP with the gather redone,
 * selective recompute, weights offloaded. */
static const char execution_json[] =
  "{\"num_procs\": 32, \"tensor_par\": 4, \"pipeline_par\": 2, \"data_par\": 4,\n"
  " \"tensor_par_net\": 1, \"pipeline_par_net\": 2, \"data_par_net\": 3,\n"
  " \"batch_size\": 64, \"microbatch_size\": 4, \"datatype\": \"bfloat16\",\n"
  " \"fused_activation\": false, \"attention_type\": \"multihead\",\n"
  " \"activation_recompute\": \"attn_only\", \"pipeline_interleaving\": 1,\n"
  " \"optimizer_sharding\": false, \"tensor_par_comm_type\": \"rs_ag\",\n"
  " \"tensor_par_overlap\": \"pipe\", \"seq_par_ag_redo\": true,\n"
  " \"data_par_overlap\": false, \"weight_offload\": true, \"activations_offload\": false,\n"
  " \"optimizer_offload\": false, \"training\": true}\n";

/* Over the execution: dp 2, micro-batch 2, the TP tier, DP overlap back on, one fusion. */
static const char mapping_json[] =
  "{\"format\": \"bpw-mapping\", \"version\": 1, \"name\": \"over\",\n"
  " \"parallel\": {\"dp\": 2}, \"micro_batch\": 2, \"tiers\": {\"tp\": 0},\n"
  " \"overlap\": {\"dp\": true}, \"fusion\": [\"attention\"], \"typo\": 1}\n";

typedef struct
{
  char *dir;
  char *execution;
  char *mapping;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->dir = g_dir_make_tmp ("bpw-cli-options-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
  f->execution = g_build_filename (f->dir, "exec.json", NULL);
  f->mapping = g_build_filename (f->dir, "mapping.json", NULL);
  g_assert_true (g_file_set_contents (f->execution, execution_json, -1, NULL));
  g_assert_true (g_file_set_contents (f->mapping, mapping_json, -1, NULL));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_unlink (f->execution);
  g_unlink (f->mapping);
  g_rmdir (f->dir);
  g_free (f->execution);
  g_free (f->mapping);
  g_free (f->dir);
}

/* Parses @args (NULL-terminated, without argv[0]) with the scenario, parallel and mapping
 * options, then resolves scenario, decomposition and mapping. */
static gboolean
resolve (const char * const *args,
         BpwScenario        *scenario,
         BpwParallel        *parallel,
         BpwMapping         *mapping,
         GPtrArray          *warnings,
         GError            **error)
{
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  BpwCliOptions options;
  BpwModelSpec spec;
  char **av;
  int ac;
  gboolean ok;

  g_ptr_array_add (argv, (gpointer) "bpw");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  ac = (int) argv->len;
  g_ptr_array_add (argv, NULL);
  av = (char **) argv->pdata;

  bpw_cli_options_init (&options);
  bpw_cli_options_add (&options, context);
  bpw_cli_options_add_mapping (&options, context);
  g_option_context_set_help_enabled (context, FALSE);
  bpw_model_spec_init_defaults (&spec);
  ok = g_option_context_parse (context, &ac, &av, error)
       && bpw_cli_options_resolve (&options, &spec, NULL, scenario, parallel, warnings, error)
       && bpw_cli_options_resolve_mapping (&options, scenario, parallel, NULL, NULL, mapping,
                                           warnings, error);
  bpw_model_spec_clear (&spec);
  bpw_cli_options_clear (&options);
  return ok;
}

static void
test_defaults (void)
{
  static const char * const args[] = { NULL };
  g_autoptr(GError) error = NULL;
  BpwScenario s;
  BpwParallel p;
  BpwMapping m, d;

  bpw_scenario_init_defaults (&s);
  bpw_mapping_init_defaults (&m);
  g_assert_true (resolve (args, &s, &p, &m, NULL, &error));
  g_assert_no_error (error);

  /* The defaults, with parallel, micro-batch and recompute stated explicitly. */
  bpw_mapping_init_defaults (&d);
  d.micro_batch = 1;
  d.recompute = BPW_RECOMPUTE_NONE;
  g_assert_true (bpw_mapping_equal (&m, &d));
  bpw_mapping_clear (&m);
  bpw_mapping_clear (&d);
  bpw_scenario_clear (&s);
}

static void
test_execution (Fixture       *f,
                gconstpointer  data)
{
  const char * const args[] = { "--execution", f->execution, NULL };
  g_autoptr(GError) error = NULL;
  BpwScenario s;
  BpwParallel p;
  BpwMapping m;

  bpw_scenario_init_defaults (&s);
  bpw_mapping_init_defaults (&m);
  g_assert_true (resolve (args, &s, &p, &m, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (m.parallel.tp, ==, 4);
  g_assert_cmpint (m.parallel.pp, ==, 2);
  g_assert_cmpint (m.parallel.dp, ==, 4);
  g_assert_true (m.parallel.sp);
  g_assert_cmpint (m.micro_batch, ==, 4);
  g_assert_cmpint (m.recompute, ==, BPW_RECOMPUTE_SELECTIVE);
  g_assert_cmpint (m.tier[BPW_GROUP_TP], ==, 1);
  g_assert_cmpint (m.tier[BPW_GROUP_PP], ==, 2);
  g_assert_cmpint (m.tier[BPW_GROUP_DP], ==, 3);
  g_assert_cmpint (m.tier[BPW_GROUP_EP], ==, 3);
  g_assert_cmpuint (m.fusion, ==, BPW_FUSION_OPTIMIZER);
  g_assert_false (m.dp_overlap);
  g_assert_cmpint (m.tp_overlap, ==, BPW_TP_OVERLAP_PIPE);
  g_assert_true (m.sp_gather_again);
  g_assert_cmpint (m.placement[BPW_TENSOR_WEIGHT], ==, BPW_PLACEMENT_HOST);
  bpw_mapping_clear (&m);
  bpw_scenario_clear (&s);
}

/* defaults < execution < mapping file < options, for the scenario as for the mapping. */
static void
test_layers (Fixture       *f,
             gconstpointer  data)
{
  const char * const file_args[] = {
    "--execution", f->execution, "--mapping", f->mapping, NULL
  };
  const char * const option_args[] = {
    "--execution", f->execution, "--mapping", f->mapping, "--dp", "1", "--micro-batch", "8",
    "--global-batch", "64", "--tp-tier", "5", "--ep-tier", "0", "--fusion",
    "norm_residual, bias_activation", "--tp-overlap", "ring", "--no-dp-overlap", "--tiling",
    "64x32x16", NULL
  };
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  BpwScenario s;
  BpwParallel p;
  BpwMapping m;

  bpw_scenario_init_defaults (&s);
  bpw_mapping_init_defaults (&m);
  g_assert_true (resolve (file_args, &s, &p, &m, warnings, &error));
  g_assert_no_error (error);
  /* The mapping file's parallel and micro-batch reach the scenario too. */
  g_assert_cmpint (p.dp, ==, 2);
  g_assert_cmpint (p.tp, ==, 4);
  g_assert_cmpint (s.micro_batch, ==, 2);
  g_assert_cmpint (s.global_batch, ==, 64);
  g_assert_cmpstr (m.name, ==, "over");
  g_assert_cmpint (m.parallel.dp, ==, 2);
  g_assert_cmpint (m.micro_batch, ==, 2);
  g_assert_cmpint (m.tier[BPW_GROUP_TP], ==, 0);
  g_assert_cmpint (m.tier[BPW_GROUP_PP], ==, 2);
  g_assert_cmpuint (m.fusion, ==, BPW_FUSION_ATTENTION);
  g_assert_true (m.dp_overlap);
  g_assert_cmpint (m.tp_overlap, ==, BPW_TP_OVERLAP_PIPE);
  g_assert_cmpint (m.placement[BPW_TENSOR_WEIGHT], ==, BPW_PLACEMENT_HOST);
  /* The unknown field, reported once (resolve reads the file silently). */
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 0), "typo: unknown field"));

  g_assert_true (resolve (option_args, &s, &p, &m, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (p.dp, ==, 1);
  g_assert_cmpint (s.micro_batch, ==, 8);
  g_assert_cmpint (m.parallel.dp, ==, 1);
  g_assert_cmpint (m.micro_batch, ==, 8);
  g_assert_cmpint (m.tier[BPW_GROUP_TP], ==, 5);
  g_assert_cmpint (m.tier[BPW_GROUP_PP], ==, 2);
  g_assert_cmpint (m.tier[BPW_GROUP_EP], ==, 0);
  g_assert_cmpuint (m.fusion, ==, BPW_FUSION_NORM_RESIDUAL | BPW_FUSION_BIAS_ACTIVATION);
  g_assert_cmpint (m.tp_overlap, ==, BPW_TP_OVERLAP_RING);
  g_assert_false (m.dp_overlap);
  g_assert_false (m.tiling.automatic);
  g_assert_cmpint (m.tiling.m, ==, 64);
  g_assert_cmpint (m.tiling.n, ==, 32);
  g_assert_cmpint (m.tiling.k, ==, 16);
  bpw_mapping_clear (&m);
  bpw_scenario_clear (&s);
}

static void
test_usage_errors (void)
{
  static const char * const cases[][3] = {
    { "--fusion", "flash", "--fusion: expected a comma-separated list" },
    { "--fusion", "attention,", "--fusion: expected" },
    { "--tiling", "0x1x1", "--tiling: expected auto or MxNxK" },
    { "--tiling", "12x12", "--tiling: expected auto or MxNxK" },
    { "--tiling", "-8x8x8", "--tiling: expected auto or MxNxK" },
    { "--tp-tier", "8", "--tp-tier: expected an integer from 0 to 7, got 8" },
    { "--dp-tier", "-1", "--dp-tier: expected an integer from 0 to 7, got -1" },
    { "--tp-overlap", "tree", "--tp-overlap: expected none, ring or pipe, got 'tree'" },
    { "--dp-overlap", "--no-dp-overlap", "contradict" },
    { "--images", "-1", "--images: expected an integer from 0" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char * const args[] = { cases[i][0], cases[i][1], NULL };
      g_autoptr(GError) error = NULL;
      BpwScenario s;
      BpwParallel p;
      BpwMapping m, before;

      bpw_scenario_init_defaults (&s);
      bpw_mapping_init_defaults (&m);
      bpw_mapping_copy (&before, &m);
      g_assert_false (resolve (args, &s, &p, &m, NULL, &error));
      g_assert_error (error, BPW_CLI_USAGE_ERROR, 0);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, cases[i][2]));
      g_assert_true (bpw_mapping_equal (&m, &before));
      bpw_mapping_clear (&m);
      bpw_mapping_clear (&before);
      bpw_scenario_clear (&s);
    }
}

/* --images and --train-vision reach the scenario; without them the model decides (1 image
 * per sequence with a vision encoder) and the encoder stays frozen. */
static void
test_images (void)
{
  static const char * const given[] = { "--images", "2", "--train-vision", NULL };
  static const char * const none[] = { NULL };
  g_autoptr(GError) error = NULL;
  BpwScenario s;
  BpwParallel p;
  BpwMapping m;

  bpw_scenario_init_defaults (&s);
  bpw_mapping_init_defaults (&m);
  g_assert_true (resolve (given, &s, &p, &m, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (s.images_set);
  g_assert_cmpint (s.images, ==, 2);
  g_assert_true (s.train_vision);
  bpw_mapping_clear (&m);
  bpw_scenario_clear (&s);

  bpw_scenario_init_defaults (&s);
  bpw_mapping_init_defaults (&m);
  g_assert_true (resolve (none, &s, &p, &m, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (s.images_set);
  g_assert_false (s.train_vision);
  bpw_mapping_clear (&m);
  bpw_scenario_clear (&s);
}

static void
test_bad_mapping_file (Fixture       *f,
                       gconstpointer  data)
{
  const char * const args[] = { "--mapping", f->mapping, NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *want = NULL;
  BpwScenario s;
  BpwParallel p;
  BpwMapping m;

  /* "tiers": {"tp": 9} sits on line 1 at the column of the 9. */
  g_assert_true (g_file_set_contents (f->mapping, "{\"format\": \"bpw-mapping\", \"version\": 1, "
                                      "\"tiers\": {\"tp\": 9}}", -1, NULL));
  want = g_strdup_printf ("%s:1:%d: tiers.tp: ", f->mapping,
                          (int) strlen ("{\"format\": \"bpw-mapping\", \"version\": 1, "
                                        "\"tiers\": {\"tp\": ") + 1);
  bpw_scenario_init_defaults (&s);
  bpw_mapping_init_defaults (&m);
  g_assert_false (resolve (args, &s, &p, &m, NULL, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_true (g_str_has_prefix (error->message, want));
  bpw_mapping_clear (&m);
  bpw_scenario_clear (&s);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/bpw/cli/Options/mapping-defaults", test_defaults);
  g_test_add ("/bpw/cli/Options/mapping-from-execution", Fixture, NULL, fixture_setup,
              test_execution, fixture_teardown);
  g_test_add ("/bpw/cli/Options/mapping-layers", Fixture, NULL, fixture_setup, test_layers,
              fixture_teardown);
  g_test_add_func ("/bpw/cli/Options/mapping-usage-errors", test_usage_errors);
  g_test_add_func ("/bpw/cli/Options/images", test_images);
  g_test_add ("/bpw/cli/Options/mapping-bad-file", Fixture, NULL, fixture_setup,
              test_bad_mapping_file, fixture_teardown);

  return g_test_run ();
}
