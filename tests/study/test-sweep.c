/* test-sweep.c — the sweep's parameters on their own, and the progress a sweep reports
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-sweep"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"

static void
small_spec (BpwModelSpec *spec)
{
  bpw_model_spec_init_defaults (spec);
  spec->name = g_strdup ("sweep-test");
  spec->layers = 4;
  spec->hidden = 512;
  spec->heads = 8;
  spec->kv_heads = 8;
  spec->head_dim = 64;
  spec->ffn = 2048;
  spec->vocab = 4096;
  spec->max_positions = 1024;
}

/* The small model on 8 devices of 16 sequences of 512 tokens, one fusion set, the best
 * of each search estimated only. */
static void
small_problem (BpwModelSpec     *spec,
               BpwScenario      *s,
               BpwMapping       *base,
               BpwSearchLimits  *limits,
               BpwSearchOptions *options)
{
  small_spec (spec);
  bpw_scenario_init_defaults (s);
  s->global_batch = 16;
  s->seq = 512;
  bpw_mapping_init_defaults (base);
  bpw_search_limits_init (limits);
  limits->fusion_sets = 1u << BPW_SEARCH_FUSION_DEFAULT;
  bpw_search_options_init (options);
  options->reevaluate = FALSE;
}

/* Values read with their units, in SI; every refusal names the value. */
static void
test_parse_values (void)
{
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GError) error = NULL;

  g_assert_true (bpw_sweep_param_parse_values (BPW_SWEEP_HBM_BANDWIDTH, " 2 TB/s,4e12 ,500 GB/s",
                                               values, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (values->len, ==, 3);
  g_assert_cmpfloat (g_array_index (values, double, 0), ==, 2e12);
  g_assert_cmpfloat (g_array_index (values, double, 1), ==, 4e12);
  g_assert_cmpfloat (g_array_index (values, double, 2), ==, 5e11);

  g_array_set_size (values, 0);
  g_assert_true (bpw_sweep_param_parse_values (BPW_SWEEP_HBM_CAPACITY, "80 GiB", values,
                                               &error));
  g_assert_cmpfloat (g_array_index (values, double, 0), ==, 80.0 * (1u << 30));

  g_assert_false (bpw_sweep_param_parse_values (BPW_SWEEP_HBM_BANDWIDTH, "2 TB/s, 80 GiB",
                                                values, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "80 GiB"));
  g_clear_error (&error);
  g_assert_false (bpw_sweep_param_parse_values (BPW_SWEEP_DEVICES, "8, 12.5", values, &error));
  g_assert_nonnull (strstr (error->message, "12.5"));
  g_clear_error (&error);
  g_assert_false (bpw_sweep_param_parse_values (BPW_SWEEP_POWER_CAP, "-700 W", values, &error));
  g_clear_error (&error);
  g_assert_false (bpw_sweep_param_parse_values (BPW_SWEEP_MATRIX_PEAK, "", values, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
}

/* What a parameter is on a blueprint is what a point of that value sets it to: a sweep
 * of the blueprint's own value changes nothing. */
static void
test_param_value (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("h100-sxm-80gb", NULL, &error);
  g_autoptr(BpwSweep) sweep = NULL;
  g_autoptr(GPtrArray) params = g_ptr_array_new_with_free_func (g_free);
  BpwSearchLimits limits;
  BpwModelSpec spec;
  BpwScenario s;
  BpwMapping base;
  const BpwSweepParam all[] = {
    BPW_SWEEP_HBM_BANDWIDTH, BPW_SWEEP_HBM_CAPACITY, BPW_SWEEP_LINK_BANDWIDTH,
    BPW_SWEEP_MATRIX_PEAK, BPW_SWEEP_POWER_CAP, BPW_SWEEP_DEVICES,
  };
  double v;
  int level;

  g_assert_no_error (error);
  small_spec (&spec);
  bpw_scenario_init_defaults (&s);
  bpw_mapping_init_defaults (&base);
  bpw_search_limits_init (&limits);
  level = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
  g_assert_true (bpw_sweep_param_get_value (BPW_SWEEP_HBM_BANDWIDTH, 0, bp, s.dtype, 8, &v));
  g_assert_cmpfloat (v, ==, bp->memory[level].bandwidth.value);
  g_assert_true (bpw_sweep_param_get_value (BPW_SWEEP_DEVICES, 0, bp, s.dtype, 8, &v));
  g_assert_cmpfloat (v, ==, 8);
  g_assert_false (bpw_sweep_param_get_value (BPW_SWEEP_LINK_BANDWIDTH, (gint) bp->n_tiers, bp,
                                             s.dtype, 8, &v));

  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    {
      char number[G_ASCII_DTOSTR_BUF_SIZE];

      if (!bpw_sweep_param_get_value (all[i], 0, bp, s.dtype, 8, &v))
        continue;
      g_ascii_dtostr (number, sizeof number, v);
      g_ptr_array_add (params, g_strdup_printf ("%s=%s", bpw_sweep_param_to_string (all[i]),
                                                number));
    }
  g_assert_cmpuint (params->len, ==, G_N_ELEMENTS (all));
  g_ptr_array_add (params, NULL);
  sweep = bpw_sweep_new (&spec, &s, bp, &base, 8, &limits, (const char * const *) params->pdata,
                         &error);
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_sweep_get_n_points (sweep), ==, 1);
  g_assert_cmpuint (bpw_sweep_get_n_params (sweep), ==, G_N_ELEMENTS (all));
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    {
      gint tier = -1;

      g_assert_cmpint (bpw_sweep_get_param (sweep, i, &tier), ==, all[i]);
      g_assert_cmpint (tier, ==, 0);
      g_assert_cmpstr (bpw_sweep_get_param_name (sweep, i), ==,
                       bpw_sweep_param_to_string (all[i]));
    }
  /* The point's blueprint is the baseline's: every value set to what it was. (The sweep
   * records where a value came from, so the values are compared, not the provenance.) */
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    {
      double before, after;

      g_assert_true (bpw_sweep_param_get_value (all[i], 0, bp, s.dtype, 8, &before));
      g_assert_true (bpw_sweep_param_get_value (all[i], 0,
                                                bpw_sweep_get_point (sweep, 0)->blueprint,
                                                s.dtype, bpw_sweep_get_point (sweep, 0)->devices,
                                                &after));
      g_assert_cmpfloat (after, ==, before);
    }
  bpw_mapping_clear (&base);
  bpw_model_spec_clear (&spec);
}

typedef struct
{
  guint    reports;
  guint    done;
  guint    search;
  guint64  decided;
  double   ended[8];   /* each search's best step time, as its end reported it */
  gboolean monotone;
} Watch;

static void
watch_cb (const BpwSweepProgress *p,
          gpointer                user_data)
{
  Watch *w = user_data;

  w->monotone &= p->done >= w->done && p->search >= w->search && p->decided >= w->decided
                 && p->done <= p->n_searches && p->n_searches == 3;
  w->monotone &= p->done == p->search || p->done == p->search + 1;
  if (p->done == p->search + 1 && p->search < G_N_ELEMENTS (w->ended))
    w->ended[p->search] = p->current.has_best ? p->current.best_step_time_s : NAN;
  w->done = p->done;
  w->search = p->search;
  w->decided = p->decided;
  w->reports++;
}

/* Watching a sweep changes nothing in it; each search's end reports that search's best,
 * and the counts only grow, up to every search done. */
static void
test_progress (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  const char *params[] = { "hbm_bandwidth=1 TB/s,2 TB/s", "devices=8", NULL };
  g_autoptr(BpwSweep) plain = NULL;
  g_autoptr(BpwSweep) watched = NULL;
  BpwSearchLimits limits;
  BpwSearchOptions options;
  BpwModelSpec spec;
  BpwScenario s;
  BpwMapping base;
  Watch w = { .monotone = TRUE };
  guint64 decided = 0;

  g_assert_no_error (error);
  small_problem (&spec, &s, &base, &limits, &options);
  options.progress_ms = 1;
  plain = bpw_sweep_new (&spec, &s, bp, &base, 8, &limits, params, &error);
  watched = bpw_sweep_new (&spec, &s, bp, &base, 8, &limits, params, &error);
  g_assert_no_error (error);
  options.threads = 1;
  g_assert_true (bpw_sweep_run (plain, &options, NULL, &error));
  options.threads = 2;
  g_assert_true (bpw_sweep_run_with_progress (watched, &options, watch_cb, &w, NULL, &error));
  g_assert_no_error (error);

  g_assert_true (w.monotone);
  g_assert_cmpuint (w.done, ==, 3);
  g_assert_cmpuint (w.reports, >=, 6);   /* a start and an end per search at least */
  g_assert_cmpfloat (w.ended[0], ==, g_array_index (bpw_sweep_get_baseline (plain)->best,
                                                    BpwSearchResult, 0).estimate.step_time_s);
  decided = bpw_sweep_get_baseline (plain)->evaluated;
  for (guint i = 0; i < 2; i++)
    {
      const BpwSweepPoint *p = bpw_sweep_get_point (plain, i);
      const BpwSweepPoint *q = bpw_sweep_get_point (watched, i);
      double gp[3], gq[3];

      g_assert_cmpfloat (w.ended[i + 1], ==, g_array_index (p->report->best, BpwSearchResult,
                                                            0).estimate.step_time_s);
      g_assert_cmpuint (g_array_index (q->report->best, BpwSearchResult, 0).index, ==,
                        g_array_index (p->report->best, BpwSearchResult, 0).index);
      g_assert_cmpint (q->pareto, ==, p->pareto);
      bpw_sweep_get_gains (plain, i, &gp[0], &gp[1], &gp[2]);
      bpw_sweep_get_gains (watched, i, &gq[0], &gq[1], &gq[2]);
      for (guint k = 0; k < 3; k++)
        g_assert_true (gp[k] == gq[k] || (isnan (gp[k]) && isnan (gq[k])));
      /* total = architecture × mapping, and total is the step-time ratio. */
      g_assert_cmpfloat_with_epsilon (gp[0], gp[1] * gp[2], 1e-12 * gp[0]);
      g_assert_cmpfloat (gp[0], ==, w.ended[0] / w.ended[i + 1]);
      decided += p->report->evaluated;
    }
  g_assert_cmpuint (w.decided, ==, decided);
  bpw_mapping_clear (&base);
  bpw_model_spec_clear (&spec);
}

/* A baseline handed to a sweep is the one it would have searched: the run searches the
 * points only, and every result and gain is the same as a sweep that searched it itself.
 * A report of another space is dropped and the baseline searched again. */
static void
test_take_baseline (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  const char *params[] = { "hbm_bandwidth=1 TB/s,2 TB/s", NULL };
  g_autoptr(BpwSweep) searched = NULL;
  g_autoptr(BpwSweep) handed = NULL;
  g_autoptr(BpwSweep) other = NULL;
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchSpace) other_space = NULL;
  BpwSearchReport *baseline;
  BpwSearchLimits limits;
  BpwSearchOptions options;
  BpwModelSpec spec;
  BpwScenario s;
  BpwMapping base;

  g_assert_no_error (error);
  small_problem (&spec, &s, &base, &limits, &options);
  options.threads = 1;
  searched = bpw_sweep_new (&spec, &s, bp, &base, 8, &limits, params, &error);
  handed = bpw_sweep_new (&spec, &s, bp, &base, 8, &limits, params, &error);
  other = bpw_sweep_new (&spec, &s, bp, &base, 8, &limits, params, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_sweep_run (searched, &options, NULL, &error));
  g_assert_false (bpw_sweep_get_baseline_reused (searched));

  space = bpw_search_space_new (&spec, &s, bp, &base, 8, &limits, &error);
  g_assert_no_error (error);
  baseline = bpw_search_run (space, &options, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  bpw_sweep_take_baseline (handed, baseline);
  g_assert_true (bpw_sweep_run (handed, &options, NULL, &error));
  g_assert_true (bpw_sweep_get_baseline_reused (handed));
  g_assert_true (bpw_sweep_get_baseline (handed) == baseline);
  g_assert_cmpuint (g_array_index (baseline->best, BpwSearchResult, 0).index, ==,
                    g_array_index (bpw_sweep_get_baseline (searched)->best, BpwSearchResult,
                                   0).index);
  for (guint i = 0; i < bpw_sweep_get_n_points (searched); i++)
    {
      const BpwSweepPoint *p = bpw_sweep_get_point (searched, i);
      const BpwSweepPoint *q = bpw_sweep_get_point (handed, i);
      double gp[3], gq[3];

      g_assert_cmpuint (g_array_index (q->report->best, BpwSearchResult, 0).index, ==,
                        g_array_index (p->report->best, BpwSearchResult, 0).index);
      g_assert_cmpuint (q->report->evaluated, ==, p->report->evaluated);
      bpw_sweep_get_gains (searched, i, &gp[0], &gp[1], &gp[2]);
      bpw_sweep_get_gains (handed, i, &gq[0], &gq[1], &gq[2]);
      for (guint k = 0; k < 3; k++)
        g_assert_true (gp[k] == gq[k] || (isnan (gp[k]) && isnan (gq[k])));
    }

  /* Another space (the micro-batch fixed): not this sweep's baseline. */
  limits.micro_batch = 1;
  other_space = bpw_search_space_new (&spec, &s, bp, &base, 8, &limits, &error);
  g_assert_no_error (error);
  bpw_sweep_take_baseline (other, bpw_search_run (other_space, &options, NULL, NULL, NULL,
                                                  &error));
  g_assert_no_error (error);
  g_assert_true (bpw_sweep_run (other, &options, NULL, &error));
  g_assert_false (bpw_sweep_get_baseline_reused (other));
  g_assert_cmpstr (bpw_sweep_get_baseline (other)->fingerprint, ==,
                   bpw_sweep_get_baseline (searched)->fingerprint);
  g_assert_cmpuint (g_array_index (bpw_sweep_get_baseline (other)->best, BpwSearchResult,
                                   0).index, ==,
                    g_array_index (bpw_sweep_get_baseline (searched)->best, BpwSearchResult,
                                   0).index);
  bpw_mapping_clear (&base);
  bpw_model_spec_clear (&spec);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/bpw/core/Sweep/parse-values", test_parse_values);
  g_test_add_func ("/bpw/core/Sweep/param-value", test_param_value);
  g_test_add_func ("/bpw/core/Sweep/progress", test_progress);
  g_test_add_func ("/bpw/core/Sweep/take-baseline", test_take_baseline);

  return g_test_run ();
}
