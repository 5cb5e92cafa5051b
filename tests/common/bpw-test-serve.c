/* bpw-test-serve.c — a model on a bundled blueprint, its serving model and a request stream
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "bpw-test-serve.h"

void
bpw_test_setup_load (BpwTestSetup *setup,
                     const char   *model,
                     const char   *blueprint)
{
  g_autoptr(GError) error = NULL;

  bpw_model_spec_init_defaults (&setup->spec);
  g_assert_true (bpw_workload_load (model, &setup->spec, &error));
  g_assert_no_error (error);
  bpw_scenario_init_defaults (&setup->scenario);
  bpw_mapping_init_defaults (&setup->mapping);
  setup->bp = bpw_blueprint_load (blueprint, NULL, &error);
  g_assert_no_error (error);
  memset (&setup->bp->stack, 0, sizeof setup->bp->stack);
}

void
bpw_test_setup_clear (BpwTestSetup *setup)
{
  bpw_model_spec_clear (&setup->spec);
  bpw_scenario_clear (&setup->scenario);
  bpw_mapping_clear (&setup->mapping);
  g_clear_pointer (&setup->bp, bpw_blueprint_free);
}

BpwServeModel *
bpw_test_serve_model_new (const BpwTestSetup *setup,
                          const BpwMapping   *mapping,
                          gint64              max_batch,
                          gint64              longest_prompt,
                          gint64              longest_request)
{
  g_autoptr(GError) error = NULL;
  BpwServeModel *m = bpw_serve_model_new (&setup->spec, &setup->scenario, setup->bp, mapping,
                                          max_batch, longest_prompt, longest_request, &error);

  g_assert_no_error (error);
  g_assert_nonnull (m);
  return m;
}

BpwServeOptions
bpw_test_stream (double      rate,
                 gint64      requests,
                 guint64     seed,
                 const char *prompt,
                 const char *output)
{
  BpwServeOptions o = { .arrival_rate = rate, .requests = requests, .seed = seed,
                        .replicas = 1 };

  g_assert_true (bpw_length_dist_parse (prompt, "--prompt-len", &o.prompt, NULL));
  g_assert_true (bpw_length_dist_parse (output, "--output-len", &o.output, NULL));
  return o;
}

void
bpw_test_serve (BpwServeModel         *model,
                const BpwServeOptions *options,
                BpwServeResult        *result)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (bpw_serve_run (model, options, result, &error));
  g_assert_no_error (error);
}
