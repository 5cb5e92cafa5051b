/* bpw-study-write.c — writing the native study format
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-study-write"

#include "config.h"

#include "bpw-quantity.h"
#include "bpw-study-pools.h"
#include "bpw-study-private.h"
#include "bpw-workload-io.h"

char *
_bpw_study_model_ref_for (BpwStudy               *self,
                          const BpwStudyWorkload *w,
                          const char             *target_dir)
{
  g_autofree char *resolved = NULL;

  if (w->model_ref == NULL)
    return NULL;
  /* A path relative to the old folder would dangle in another one: write it absolute. */
  if (target_dir == NULL || self->base_dir == NULL || g_path_is_absolute (w->model_ref)
      || g_strcmp0 (target_dir, self->base_dir) == 0)
    return g_strdup (w->model_ref);
  resolved = g_build_filename (self->base_dir, w->model_ref, NULL);
  if (!g_file_test (resolved, G_FILE_TEST_EXISTS))
    return g_strdup (w->model_ref);  /* a bundled name */
  return g_canonicalize_filename (resolved, NULL);
}

#define INT(key, value) \
  G_STMT_START { json_builder_set_member_name (b, key); \
                 json_builder_add_int_value (b, value); } G_STMT_END
#define STR(key, value) \
  G_STMT_START { json_builder_set_member_name (b, key); \
                 json_builder_add_string_value (b, value); } G_STMT_END

/* The "serving" object, only where a feature differs from the default. */
static void
bpw_study_write_serving (JsonBuilder            *b,
                         const BpwServeSettings *s)
{
  if (bpw_serve_settings_is_default (s))
    return;
  json_builder_set_member_name (b, "serving");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "kv_layout");
  json_builder_add_string_value (b, s->kv_contiguous ? "contiguous" : "paged");
  json_builder_set_member_name (b, "kv_block");
  json_builder_add_int_value (b, s->kv_block > 0 ? s->kv_block : BPW_SERVE_KV_BLOCK);
  json_builder_set_member_name (b, "prefix_hit");
  json_builder_add_double_value (b, s->prefix_hit);
  json_builder_set_member_name (b, "chunk_tokens");
  json_builder_add_int_value (b, s->chunk_tokens);
  json_builder_set_member_name (b, "spec_tokens");
  json_builder_add_int_value (b, s->spec_tokens);
  json_builder_set_member_name (b, "spec_accept");
  json_builder_add_double_value (b, s->spec_accept);
  if (s->draft[0] != '\0')
    {
      json_builder_set_member_name (b, "draft");
      json_builder_add_string_value (b, s->draft);
    }
  bpw_study_write_pools (b, &s->pools);
  json_builder_end_object (b);
}

static void
bpw_study_write_sla (JsonBuilder       *b,
                     const BpwScenario *s)
{
  const struct { const char *key; double value; } slas[] = {
    { "step_time", s->sla_step_time }, { "ttft", s->sla_ttft },
    { "tpot", s->sla_tpot }, { "p99", s->sla_p99 },
  };
  gboolean any = FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (slas); i++)
    any |= slas[i].value > 0.0;
  if (!any)
    return;
  json_builder_set_member_name (b, "sla");
  json_builder_begin_object (b);
  for (guint i = 0; i < G_N_ELEMENTS (slas); i++)
    if (slas[i].value > 0.0)
      {
        g_autofree char *text = bpw_quantity_format (slas[i].value, BPW_UNIT_SECONDS);
        double back = 0.0;

        json_builder_set_member_name (b, slas[i].key);
        /* The unit string is what people write; a plain number when 4 digits would lose
         * precision, so that a save and load never changes a value. */
        if (bpw_quantity_parse (text, BPW_UNIT_SECONDS, &back, NULL) && back == slas[i].value)
          json_builder_add_string_value (b, text);
        else
          json_builder_add_double_value (b, slas[i].value);
      }
  json_builder_end_object (b);
}

/* The pipeline split as a mapping file writes it; the automatic one is left out, so that
 * studies of even pipelines read as before. */
static void
bpw_study_write_pp_split (JsonBuilder       *b,
                          const BpwParallel *p)
{
  switch (p->pp_split)
    {
    case BPW_PP_SPLIT_EXPLICIT:
      json_builder_set_member_name (b, "pp_layers");
      json_builder_begin_array (b);
      for (gint32 i = 0; i < p->n_stage_layers; i++)
        json_builder_add_int_value (b, p->stage_layers[i]);
      json_builder_end_array (b);
      break;
    case BPW_PP_SPLIT_LIGHTER:
      INT ("pp_lighter", p->pp_lighter);
      break;
    case BPW_PP_SPLIT_EVEN:
      STR ("pp_split", "even");
      break;
    case BPW_PP_SPLIT_BALANCED:
      STR ("pp_split", "balanced");
      break;
    case BPW_PP_SPLIT_AUTO:
    default:
      break;
    }
}

static void
bpw_study_write_scenario (BpwStudy               *self,
                          JsonBuilder            *b,
                          const BpwStudyScenario *sc)
{
  const BpwScenario *s = &sc->scenario;
  const BpwParallel *p = &sc->parallel;

  json_builder_begin_object (b);
  STR ("name", sc->name);
  STR ("workload", bpw_study_get_workload (self, sc->workload)->name);
  if (sc->suite != NULL)
    STR ("suite", sc->suite);
  STR ("phase", bpw_workload_phase_to_string (s->phase));
  INT ("global_batch", s->global_batch);
  INT ("micro_batch", s->micro_batch);
  INT ("seq", s->seq);
  INT ("context", s->context);
  if (s->images_set)
    INT ("images", s->images);
  STR ("recompute", bpw_recompute_to_string (s->recompute));
  STR ("dtype", bpw_dtype_to_string (s->dtype));
  STR ("kv_dtype", bpw_dtype_to_string (s->kv_dtype));
  if (s->optimizer_set)
    STR ("optimizer", bpw_optimizer_to_string (s->optimizer));
  json_builder_set_member_name (b, "weight");
  json_builder_add_double_value (b, s->weight);
  bpw_study_write_sla (b, s);
  bpw_study_write_serving (b, &sc->serving);
  json_builder_set_member_name (b, "parallel");
  json_builder_begin_object (b);
  INT ("tp", p->tp);
  INT ("pp", p->pp);
  INT ("dp", p->dp);
  INT ("ep", p->ep);
  json_builder_set_member_name (b, "sp");
  json_builder_add_boolean_value (b, p->sp);
  INT ("zero", p->zero);
  STR ("schedule", bpw_schedule_to_string (p->schedule));
  INT ("interleave", p->interleave);
  /* Context parallelism only when used, so that studies without it read as before. */
  if (p->cp != 1)
    INT ("cp", p->cp);
  if (p->cp_algorithm != BPW_CP_RING)
    STR ("cp_algorithm", bpw_cp_algorithm_to_string (p->cp_algorithm));
  bpw_study_write_pp_split (b, p);
  json_builder_end_object (b);
  json_builder_end_object (b);
}

JsonNode *
_bpw_study_to_node (BpwStudy   *self,
                    const char *target_dir)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  STR ("format", "bpw-study");
  INT ("version", BPW_STUDY_FORMAT_VERSION);
  STR ("name", self->name);
  if (self->description != NULL)
    STR ("description", self->description);

  json_builder_set_member_name (b, "workloads");
  json_builder_begin_array (b);
  for (guint i = 0; i < self->workloads->len; i++)
    {
      const BpwStudyWorkload *w = &g_array_index (self->workloads, BpwStudyWorkload, i);
      g_autofree char *ref = _bpw_study_model_ref_for (self, w, target_dir);

      json_builder_begin_object (b);
      STR ("name", w->name);
      json_builder_set_member_name (b, "model");
      if (ref != NULL)
        json_builder_add_string_value (b, ref);
      else
        json_builder_add_value (b, bpw_workload_model_to_node (&w->spec));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "scenarios");
  json_builder_begin_array (b);
  for (guint i = 0; i < self->scenarios->len; i++)
    bpw_study_write_scenario (self, b, &g_array_index (self->scenarios, BpwStudyScenario, i));
  json_builder_end_array (b);

  json_builder_set_member_name (b, "suites");
  json_builder_begin_array (b);
  for (guint i = 0; i < self->suites->len; i++)
    {
      const BpwStudySuite *suite = &g_array_index (self->suites, BpwStudySuite, i);

      json_builder_begin_object (b);
      STR ("name", suite->name);
      STR ("kind", bpw_suite_kind_to_string (suite->kind));
      json_builder_set_member_name (b, "scenarios");
      json_builder_begin_array (b);
      for (guint k = 0; k < suite->n_scenarios; k++)
        json_builder_add_string_value (b, bpw_study_get_scenario (self,
                                                                  suite->scenarios[k])->name);
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "blueprints");
  json_builder_begin_array (b);
  for (guint i = 0; i + 1 < self->blueprints->len; i++)
    {
      const char *name = g_ptr_array_index (self->blueprints, i);
      JsonNode *object = _bpw_study_inline_blueprint_to_node (self, name);

      /* Inline blueprints are written whole, so that the study carries its edits. */
      if (object != NULL)
        json_builder_add_value (b, object);
      else
        json_builder_add_string_value (b, name);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "candidates");
  json_builder_begin_array (b);
  for (guint i = 0; i < self->candidates->len; i++)
    {
      const BpwStudyCandidate *c = &g_array_index (self->candidates, BpwStudyCandidate, i);

      json_builder_begin_object (b);
      STR ("name", c->name);
      STR ("blueprint", c->blueprint);
      json_builder_set_member_name (b, "mapping");
      json_builder_add_value (b, json_node_copy (c->mapping));
      if (c->mappings != NULL && json_object_get_size (json_node_get_object (c->mappings)) > 0)
        {
          json_builder_set_member_name (b, "mappings");
          json_builder_add_value (b, json_node_copy (c->mappings));
        }
      if (c->price.set)
        {
          json_builder_set_member_name (b, "price");
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "value");
          json_builder_add_double_value (b, c->price.usd);
          STR ("unit", bpw_price_unit_to_string (c->price.unit));
          STR ("source", c->price.source);
          json_builder_end_object (b);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  _bpw_study_write_measurements (self, b, target_dir);
  _bpw_study_write_quality (self, b);

  if (self->views != NULL)
    {
      json_builder_set_member_name (b, "views");
      json_builder_add_value (b, json_node_copy (self->views));
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}
