/* bpw-review-candidates.c — the baseline, the candidates and where their time goes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every figure here is the counted comparison's (bpw-review-packet.h): each candidate's
 * mapping as the study gives it, at the precisions that are validated.
 */
#define G_LOG_DOMAIN "bpw-review"

#include "config.h"

#include <math.h>

#include "bpw-review-private.h"

#define RESIDUE 1e-9

static void
bpw_review_set_calibration (BpwReviewBuild *b,
                            JsonObject     *o,
                            guint           c)
{
  const BpwCalibrationStatus *status = &b->calibration->statuses[c];

  if (status->label == NULL)
    {
      json_object_set_string_member (o, "calibration", BPW_REVIEW_NOT_RECORDED);
      return;
    }
  json_object_set_string_member (o, "calibration",
                                 bpw_calibration_level_to_string (status->level));
  json_object_set_string_member (o, "calibration_label", status->label);
}

JsonNode *
_bpw_review_baseline (BpwReviewBuild *b)
{
  JsonObject *o = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (o, "candidate",
                                 bpw_study_get_candidate (b->study, b->baseline)->name);
  json_object_set_string_member (o, "blueprint",
                                 bpw_study_get_candidate (b->study, b->baseline)->blueprint);
  bpw_review_set_calibration (b, o, b->baseline);
  json_node_take_object (node, o);
  return node;
}

JsonNode *
_bpw_review_candidates (BpwReviewBuild *b)
{
  const BpwCompareSuite *suite = _bpw_review_suite (b);
  JsonArray *array = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (guint c = 0; c < bpw_comparison_get_n_candidates (b->cmp); c++)
    {
      const BpwStudyCandidate *cand = bpw_study_get_candidate (b->study, c);
      JsonObject *o = json_object_new ();
      JsonArray *cells = json_array_new ();

      json_object_set_string_member (o, "name", cand->name);
      json_object_set_string_member (o, "blueprint", cand->blueprint);
      bpw_review_set_calibration (b, o, c);
      if (suite != NULL)
        {
          json_object_set_string_member (o, "suite", suite->name);
          _bpw_review_set_double (o, "score", suite->score[c]);
          _bpw_review_set_double (o, "perf_per_watt", suite->perf_per_watt[c]);
          json_object_set_boolean_member (o, "feasible", suite->feasible[c]);
          json_object_set_boolean_member (o, "pareto", suite->pareto[c]);
        }
      for (guint s = 0; s < bpw_comparison_get_n_scenarios (b->cmp); s++)
        {
          const BpwCompareCell *cell = bpw_comparison_get_cell (b->cmp, c, s);
          JsonObject *co = json_object_new ();

          json_object_set_string_member (co, "scenario",
                                         bpw_study_get_scenario (b->study, s)->name);
          json_object_set_boolean_member (co, "evaluated", cell->ok);
          if (cell->ok)
            {
              json_object_set_boolean_member (co, "legal", cell->eval.legal);
              json_object_set_boolean_member (co, "feasible", cell->feasible);
              json_object_set_int_member (co, "devices", cell->devices);
              _bpw_review_set_double (co, "step_time_s", cell->eval.step_time_s);
              _bpw_review_set_double (co, "tokens_per_s", cell->eval.tokens_per_s);
              _bpw_review_set_double (co, "mfu", cell->eval.mfu);
              _bpw_review_set_double (co, "peak_memory_bytes", cell->eval.peak_bytes);
              _bpw_review_set_double (co, "average_power_w", cell->eval.average_power_w);
              _bpw_review_set_double (co, "energy_j", cell->eval.energy_j);
            }
          else
            json_object_set_string_member (co, "error", cell->error);
          json_array_add_object_element (cells, co);
        }
      json_object_set_array_member (o, "scenarios", cells);
      json_array_add_object_element (array, o);
    }
  json_node_take_array (node, array);
  return node;
}

/* The class that takes most of a bucket's time, or -1 when it takes none. */
static int
bpw_review_dominant_class (const double *classes)
{
  int best = -1;

  for (int k = 0; k < BPW_N_BOTTLENECKS; k++)
    if (classes[k] > 0 && (best < 0 || classes[k] > classes[best]))
      best = k;
  return best;
}

static const char *
bpw_review_bucket_name (guint bucket)
{
  return bucket == BPW_LAYER_OTHER ? "other" : bpw_layer_type_to_string (bucket);
}

JsonNode *
_bpw_review_bottlenecks (BpwReviewBuild *b)
{
  JsonArray *array = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (guint c = 0; c < bpw_comparison_get_n_candidates (b->cmp); c++)
    for (guint s = 0; s < bpw_comparison_get_n_scenarios (b->cmp); s++)
      {
        const BpwCompareCell *cell = bpw_comparison_get_cell (b->cmp, c, s);
        const char *candidate = bpw_study_get_candidate (b->study, c)->name;
        const char *scenario = bpw_study_get_scenario (b->study, s)->name;
        g_autofree char *chart = NULL;
        JsonObject *o;
        JsonArray *layers;

        if (!cell->ok)
          continue;
        o = json_object_new ();
        layers = json_array_new ();
        json_object_set_string_member (o, "candidate", candidate);
        json_object_set_string_member (o, "scenario", scenario);
        _bpw_review_set_double (o, "step_time_s", cell->eval.step_time_s);
        _bpw_review_set_double (o, "mfu", cell->eval.mfu);
        json_object_set_string_member (o, "bottleneck",
                                       bpw_bottleneck_to_string (cell->eval.bottleneck));
        for (guint l = 0; l < BPW_N_LAYER_BUCKETS; l++)
          {
            const double *classes = cell->eval.layer_class_s[l];
            JsonObject *lo, *co;
            double total = 0;
            int dominant;

            for (int k = 0; k < BPW_N_BOTTLENECKS; k++)
              total += classes[k];
            /* "other" is the step less the layer types: a part below 10^-9 of the step
             * is the rounding of that subtraction, not time. */
            if (!(total > RESIDUE * cell->eval.step_time_s))
              continue;
            dominant = bpw_review_dominant_class (classes);
            lo = json_object_new ();
            co = json_object_new ();
            json_object_set_string_member (lo, "layer_type", bpw_review_bucket_name (l));
            json_object_set_double_member (lo, "time_s", total);
            json_object_set_double_member (lo, "time_share", total / cell->eval.step_time_s);
            _bpw_review_set_double (lo, "mfu", cell->eval.layer_mfu[l]);
            json_object_set_string_member (lo, "bottleneck", bpw_bottleneck_to_string (dominant));
            for (int k = 0; k < BPW_N_BOTTLENECKS; k++)
              if (classes[k] > 0)
                json_object_set_double_member (co, bpw_bottleneck_to_string (k), classes[k]);
            json_object_set_object_member (lo, "time_s_by_class", co);
            json_array_add_object_element (layers, lo);
          }
        json_object_set_array_member (o, "layer_types", layers);
        /* The chart that shows it: the step's timeline coloured by bottleneck class. */
        chart = g_strdup_printf ("timeline by bottleneck: bpw export STUDY --view timeline "
                                 "--color-by bottleneck --candidate '%s' --scenario '%s'",
                                 candidate, scenario);
        json_object_set_string_member (o, "chart", chart);
        json_array_add_object_element (array, o);
      }
  json_node_take_array (node, array);
  return node;
}
