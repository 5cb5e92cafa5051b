/* bpw-study-read.c — reading the native study format, every error located
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-study-read"

#include "config.h"

#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-parallel-read.h"
#include "bpw-quantity.h"
#include "bpw-study-draft.h"
#include "bpw-study-pools.h"
#include "bpw-study-private.h"
#include "bpw-workload-io.h"

static const char * const root_keys[] = {
  "$schema", "format", "version", "name", "description", "workloads", "scenarios", "suites",
  "blueprints", "candidates", "measurements", "owners", "quality_thresholds",
  "quality_evidence", "views", NULL
};
static const char * const workload_keys[] = { "name", "description", "model", NULL };
static const char * const scenario_keys[] = {
  "name", "description", "workload", "suite", "phase", "global_batch", "micro_batch", "seq",
  "context", "recompute", "dtype", "kv_dtype", "optimizer", "weight", "sla", "parallel",
  "serving", "images", NULL
};
static const char * const sla_keys[] = { "step_time", "ttft", "tpot", "p99", NULL };
static const char * const serving_keys[] = {
  "kv_layout", "kv_block", "prefix_hit", "chunk_tokens", "spec_tokens", "spec_accept", "draft",
  "pools", NULL
};
static const char * const kv_layout_names[] = { "paged", "contiguous", NULL };
static const char * const parallel_keys[] = {
  "tp", "pp", "dp", "ep", "sp", "zero", "schedule", "interleave", "cp", "cp_algorithm",
  "pp_split", "pp_lighter", "pp_layers", NULL
};
static const char * const cp_algorithm_names[] = { "ring", "allgather", NULL };
static const char * const suite_keys[] = { "name", "description", "kind", "scenarios", NULL };
static const char * const candidate_keys[] = {
  "name", "description", "blueprint", "mapping", "mappings", "price", NULL
};
static const char * const price_keys[] = { "value", "unit", "source", NULL };
/* Index order = BpwPriceUnit. */
static const char * const price_units[] = { "USD/device", "USD/device-hour", NULL };

/* Index order = enum order of the types they fill. */
static const char * const phase_names[] = { "train", "prefill", "decode", NULL };
static const char * const recompute_names[] = { "none", "selective", "full", NULL };
static const char * const schedule_names[] = { "gpipe", "1f1b", "interleaved", "zb-h1", NULL };
static const char * const dtype_names[] = { "fp32", "bf16", "fp16", "fp8", NULL };
static const char * const optimizer_names[] = { "adam", "sgd", NULL };
static const char * const suite_kind_names[] = {
  "representative", "stress", "projected", NULL
};

typedef gboolean (*ReadItemFunc) (BpwStudy    *self,
                                  BpwJsonDoc  *doc,
                                  JsonNode    *node,
                                  JsonObject  *item,
                                  const char  *path,
                                  GError     **error);

/* Reads the list @member of @root (optional) and calls @func on each element, which must
 * be an object. */
static gboolean
bpw_study_read_list (BpwStudy    *self,
                     BpwJsonDoc  *doc,
                     JsonObject  *root,
                     const char  *member,
                     ReadItemFunc func,
                     GError     **error)
{
  JsonNode *node = json_object_get_member (root, member);
  JsonArray *array;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return bpw_json_doc_error (doc, node, member, error, _("expected a list"));
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      g_autofree char *path = g_strdup_printf ("%s[%u]", member, i);

      if (!JSON_NODE_HOLDS_OBJECT (element))
        return bpw_json_doc_error (doc, element, path, error, _("expected an object"));
      if (!func (self, doc, element, json_node_get_object (element), path, error))
        return FALSE;
    }
  return TRUE;
}

/* A required, non-empty name not used by an earlier item of the same list. */
static gboolean
bpw_study_read_name (BpwJsonDoc  *doc,
                     JsonObject  *item,
                     const char  *path,
                     gboolean   (*taken) (BpwStudy *, const char *, guint *),
                     BpwStudy    *self,
                     const char **out,
                     GError     **error)
{
  g_autofree char *full = g_strdup_printf ("%s.name", path);

  if (!bpw_json_doc_get_string (doc, item, path, "name", TRUE, out, error))
    return FALSE;
  if (**out == '\0')
    return bpw_json_doc_error (doc, json_object_get_member (item, "name"), full, error,
                               _("expected a non-empty name"));
  if (taken != NULL && taken (self, *out, NULL))
    return bpw_json_doc_error (doc, json_object_get_member (item, "name"), full, error,
                               _("the name \"%s\" is already used; names must be unique"), *out);
  return TRUE;
}

static gboolean
bpw_study_read_workload (BpwStudy    *self,
                         BpwJsonDoc  *doc,
                         JsonNode    *node,
                         JsonObject  *item,
                         const char  *path,
                         GError     **error)
{
  BpwStudyWorkload w = { 0 };
  g_autofree char *model_path = g_strdup_printf ("%s.model", path);
  JsonNode *model;
  const char *name = NULL;

  bpw_json_doc_check_unknown (doc, item, path, workload_keys, self->warnings);
  if (!bpw_study_read_name (doc, item, path, bpw_study_lookup_workload, self, &name, error))
    return FALSE;
  model = json_object_get_member (item, "model");
  if (model == NULL)
    return bpw_json_doc_error (doc, node, path, error, _("a workload needs a \"model\": a bundled "
                               "model name, a file path or a model object"));

  bpw_model_spec_init_defaults (&w.spec);
  if (JSON_NODE_HOLDS_OBJECT (model))
    {
      w.spec.name = g_strdup (name);
      w.spec.source = g_strdup (bpw_json_doc_get_filename (doc));
      if (!bpw_workload_read_model_object (doc, json_node_get_object (model), model_path,
                                           &w.spec, self->warnings, error))
        {
          bpw_model_spec_clear (&w.spec);
          return FALSE;
        }
    }
  else if (JSON_NODE_HOLDS_VALUE (model) && json_node_get_value_type (model) == G_TYPE_STRING)
    {
      const char *ref = json_node_get_string (model);
      g_autofree char *file = NULL;

      if (g_path_is_absolute (ref) || self->base_dir == NULL)
        file = g_strdup (ref);
      else
        file = g_build_filename (self->base_dir, ref, NULL);

      if (self->base_dir != NULL && g_file_test (file, G_FILE_TEST_EXISTS))
        {
          /* Errors inside the model file name that file; say which study line led there. */
          if (!bpw_workload_load_with_warnings (file, 0, &w.spec, NULL, self->warnings, error))
            {
              guint line = 0, column = 0;

              bpw_json_doc_locate (doc, model, &line, &column);
              g_prefix_error (error, "%s:%u:%u: %s: ", bpw_json_doc_get_filename (doc), line,
                              column, model_path);
              bpw_model_spec_clear (&w.spec);
              return FALSE;
            }
        }
      else if (!bpw_model_spec_lookup_bundled (ref, &w.spec))
        {
          bpw_model_spec_clear (&w.spec);
          return bpw_json_doc_error (doc, model, model_path, error,
                                     _("\"%s\" is neither a bundled model nor a file%s%s"), ref,
                                     self->base_dir != NULL ? " at " : "",
                                     self->base_dir != NULL ? file : "");
        }
      w.model_ref = g_strdup (ref);
    }
  else
    {
      bpw_model_spec_clear (&w.spec);
      return bpw_json_doc_error (doc, model, model_path, error,
                                 _("expected a bundled model name, a file path or a model object"));
    }
  w.name = g_strdup (name);
  g_array_append_val (self->workloads, w);
  return TRUE;
}

static gboolean
bpw_study_read_parallel (BpwJsonDoc   *doc,
                         JsonObject   *item,
                         const char   *path,
                         BpwParallel  *p,
                         GPtrArray    *warnings,
                         GError      **error)
{
  g_autofree char *ppath = NULL;
  JsonObject *o = NULL;
  gint64 zero = p->zero;
  int schedule = p->schedule;
  int cp_algorithm = p->cp_algorithm;

  if (!bpw_json_doc_get_section (doc, item, path, "parallel", parallel_keys, warnings, &o,
                                 &ppath, error))
    return FALSE;
  if (o == NULL)
    return TRUE;
  if (!bpw_json_doc_get_int (doc, o, ppath, "tp", FALSE, 1, G_MAXINT64, &p->tp, error)
      || !bpw_json_doc_get_int (doc, o, ppath, "pp", FALSE, 1, G_MAXINT64, &p->pp, error)
      || !bpw_json_doc_get_int (doc, o, ppath, "dp", FALSE, 1, G_MAXINT64, &p->dp, error)
      || !bpw_json_doc_get_int (doc, o, ppath, "ep", FALSE, 1, G_MAXINT64, &p->ep, error)
      || !bpw_json_doc_get_bool (doc, o, ppath, "sp", FALSE, &p->sp, error)
      || !bpw_json_doc_get_int (doc, o, ppath, "zero", FALSE, 0, 3, &zero, error)
      || !bpw_json_doc_get_enum (doc, o, ppath, "schedule", FALSE, schedule_names, &schedule,
                                 error)
      || !bpw_json_doc_get_int (doc, o, ppath, "interleave", FALSE, 1, G_MAXINT64,
                                &p->interleave, error)
      || !bpw_json_doc_get_int (doc, o, ppath, "cp", FALSE, 1, G_MAXINT64, &p->cp, error)
      || !bpw_json_doc_get_enum (doc, o, ppath, "cp_algorithm", FALSE, cp_algorithm_names,
                                 &cp_algorithm, error)
      /* An uneven pipeline, as a mapping states it; its sum is checked against the model
       * with the rest of the scenario (bpw_scenario_validate()). */
      || !bpw_parallel_read_pp_split (doc, o, ppath, p, error))
    return FALSE;
  p->cp_algorithm = (BpwCpAlgorithm) cp_algorithm;
  p->zero = (gint) zero;
  p->schedule = (BpwSchedule) schedule;
  return TRUE;
}

static gboolean
bpw_study_read_sla (BpwJsonDoc   *doc,
                    JsonObject   *item,
                    const char   *path,
                    BpwScenario  *s,
                    GPtrArray    *warnings,
                    GError      **error)
{
  g_autofree char *spath = NULL;
  JsonObject *o = NULL;

  if (!bpw_json_doc_get_section (doc, item, path, "sla", sla_keys, warnings, &o, &spath,
                                 error))
    return FALSE;
  if (o == NULL)
    return TRUE;
#define SLA(key, field) \
  bpw_json_doc_get_quantity (doc, o, spath, key, FALSE, BPW_UNIT_SECONDS, 1.0e-6, 1.0e9, \
                             &s->field, NULL, NULL, error)
  return SLA ("step_time", sla_step_time) && SLA ("ttft", sla_ttft)
         && SLA ("tpot", sla_tpot) && SLA ("p99", sla_p99);
#undef SLA
}

/* "scenario.FIELD: r" / "parallel.FIELD: r" from bpw_scenario_validate() point at FIELD;
 * other messages at the scenario object. */
static gboolean
bpw_study_locate_scenario_error (BpwJsonDoc  *doc,
                                 JsonNode    *node,
                                 JsonObject  *item,
                                 const char  *path,
                                 GError      *local_error,
                                 GError     **error)
{
  const char *msg = local_error->message;
  JsonNode *target = node;
  g_autofree char *target_path = g_strdup (path);
  const char *colon = strstr (msg, ": ");

  if (colon != NULL && (g_str_has_prefix (msg, "scenario.") || g_str_has_prefix (msg, "parallel.")))
    {
      g_autofree char *field = g_strndup (msg, colon - msg);
      JsonObject *where = item;
      const char *key = strchr (field, '.') + 1;

      if (g_str_has_prefix (field, "parallel."))
        {
          JsonNode *pnode = json_object_get_member (item, "parallel");

          where = pnode != NULL && JSON_NODE_HOLDS_OBJECT (pnode) ? json_node_get_object (pnode)
                                                                  : NULL;
        }
      /* "parallel.pp_layers[2]": the entry of the list, where it has one. */
      if (strchr (key, '[') != NULL)
        {
          g_autofree char *member = g_strndup (key, strchr (key, '[') - key);
          guint64 index = g_ascii_strtoull (strchr (key, '[') + 1, NULL, 10);
          JsonNode *list = where != NULL ? json_object_get_member (where, member) : NULL;

          if (list != NULL && JSON_NODE_HOLDS_ARRAY (list)
              && index < json_array_get_length (json_node_get_array (list)))
            {
              target = json_array_get_element (json_node_get_array (list), (guint) index);
              g_free (target_path);
              target_path = g_strdup_printf ("%s%s.%s", path,
                                             where == item ? "" : ".parallel", key);
              msg = colon + 2;
            }
        }
      else if (where != NULL && json_object_has_member (where, key))
        {
          target = json_object_get_member (where, key);
          g_free (target_path);
          target_path = g_strdup_printf ("%s%s.%s", path,
                                         where == item ? "" : ".parallel", key);
          msg = colon + 2;
        }
    }
  bpw_json_doc_error (doc, target, target_path, error, "%s", msg);
  if (error != NULL && *error != NULL)
    (*error)->code = local_error->code;
  return FALSE;
}

/* The optional "serving" object: the KV layout and block, the prefix-cache hit rate, the
 * prefill chunk and speculative decoding with a draft model or @target's MTP heads
 * (bpw-serve.h). */
static gboolean
bpw_study_read_serving (BpwStudy           *self,
                        BpwJsonDoc         *doc,
                        JsonObject         *item,
                        const char         *path,
                        const BpwModelSpec *target,
                        BpwServeSettings   *s,
                        GError            **error)
{
  GPtrArray *warnings = self->warnings;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *spath = g_strdup_printf ("%s.serving", path);
  JsonObject *o = bpw_json_doc_get_object (doc, item, path, "serving", FALSE, &local_error);
  int layout = 0;

  if (o == NULL)
    {
      if (local_error == NULL)
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  bpw_json_doc_check_unknown (doc, o, spath, serving_keys, warnings);
  if (!bpw_json_doc_get_enum (doc, o, spath, "kv_layout", FALSE, kv_layout_names, &layout,
                              error)
      || !bpw_json_doc_get_int (doc, o, spath, "kv_block", FALSE, 1, BPW_SERVE_MAX_KV_BLOCK,
                                &s->kv_block, error)
      || !bpw_json_doc_get_double (doc, o, spath, "prefix_hit", FALSE, 0.0, 0.999,
                                   &s->prefix_hit, error)
      || !bpw_json_doc_get_int (doc, o, spath, "chunk_tokens", FALSE, 0, G_MAXINT32,
                                &s->chunk_tokens, error)
      || !bpw_json_doc_get_int (doc, o, spath, "spec_tokens", FALSE, 0,
                                BPW_SERVE_MAX_SPEC_TOKENS, &s->spec_tokens, error)
      || !bpw_json_doc_get_double (doc, o, spath, "spec_accept", FALSE, 0.0, 0.999,
                                   &s->spec_accept, error)
      || !bpw_study_read_draft (self, doc, o, spath, target, s->spec_tokens, s->draft, error)
      || !bpw_study_read_pools (doc, o, spath, &s->pools, warnings, error))
    return FALSE;
  s->kv_contiguous = layout == 1;
  return TRUE;
}

static gboolean
bpw_study_read_scenario (BpwStudy    *self,
                         BpwJsonDoc  *doc,
                         JsonNode    *node,
                         JsonObject  *item,
                         const char  *path,
                         GError     **error)
{
  BpwStudyScenario sc = { 0 };
  g_autoptr(GError) local_error = NULL;
  const char *name = NULL, *workload = NULL, *suite = NULL;
  int phase = 0, recompute = 0, dtype, kv_dtype, optimizer = -1;
  guint index = 0;

  bpw_json_doc_check_unknown (doc, item, path, scenario_keys, self->warnings);
  if (!bpw_study_read_name (doc, item, path, bpw_study_lookup_scenario, self, &name, error)
      || !bpw_json_doc_get_string (doc, item, path, "workload", TRUE, &workload, error)
      || !bpw_json_doc_get_string (doc, item, path, "suite", FALSE, &suite, error))
    return FALSE;
  if (!bpw_study_lookup_workload (self, workload, &index))
    {
      g_autofree char *wpath = g_strdup_printf ("%s.workload", path);

      return bpw_json_doc_error (doc, json_object_get_member (item, "workload"), wpath, error,
                                 _("the study has no workload named \"%s\""), workload);
    }

  bpw_scenario_init_defaults (&sc.scenario);
  bpw_parallel_init_defaults (&sc.parallel);
  dtype = sc.scenario.dtype;
  kv_dtype = sc.scenario.kv_dtype;
  if (!bpw_json_doc_get_enum (doc, item, path, "phase", TRUE, phase_names, &phase, error)
      || !bpw_json_doc_get_int (doc, item, path, "global_batch", TRUE, 1, G_MAXINT64,
                                &sc.scenario.global_batch, error)
      || !bpw_json_doc_get_enum (doc, item, path, "recompute", FALSE, recompute_names,
                                 &recompute, error)
      || !bpw_json_doc_get_enum (doc, item, path, "dtype", FALSE, dtype_names, &dtype, error)
      || !bpw_json_doc_get_enum (doc, item, path, "kv_dtype", FALSE, dtype_names, &kv_dtype,
                                 error)
      || !bpw_json_doc_get_enum (doc, item, path, "optimizer", FALSE, optimizer_names,
                                 &optimizer, error))
    return FALSE;
  /* 0 until read: the default depends on the parallel decomposition, read below. */
  sc.scenario.micro_batch = 0;
  /* −1 until read: absent is the model's default (1 with a vision encoder). */
  sc.scenario.images = -1;
  if (!bpw_json_doc_get_int (doc, item, path, "micro_batch", FALSE, 1, G_MAXINT64,
                             &sc.scenario.micro_batch, error)
      || !bpw_json_doc_get_int (doc, item, path, "seq", FALSE, 1, G_MAXINT64,
                                &sc.scenario.seq, error)
      || !bpw_json_doc_get_int (doc, item, path, "context", phase == BPW_WORKLOAD_DECODE, 0,
                                G_MAXINT64, &sc.scenario.context, error)
      || !bpw_json_doc_get_int (doc, item, path, "images", FALSE, 0, G_MAXINT32,
                                &sc.scenario.images, error)
      || !bpw_json_doc_get_double (doc, item, path, "weight", FALSE, 0.0, 1.0e9,
                                   &sc.scenario.weight, error)
      || !bpw_study_read_sla (doc, item, path, &sc.scenario, self->warnings, error)
      || !bpw_study_read_parallel (doc, item, path, &sc.parallel, self->warnings, error)
      || !bpw_study_read_serving (self, doc, item, path,
                                  &g_array_index (self->workloads, BpwStudyWorkload,
                                                  index).spec,
                                  &sc.serving, error))
    return FALSE;
  sc.scenario.images_set = sc.scenario.images >= 0;
  sc.scenario.images = MAX (sc.scenario.images, 0);
  if (sc.scenario.micro_batch == 0)
    sc.scenario.micro_batch = bpw_scenario_default_micro_batch (phase, sc.scenario.global_batch,
                                                                &sc.parallel);

  sc.scenario.phase = phase;
  sc.scenario.recompute = recompute;
  sc.scenario.dtype = dtype;
  sc.scenario.kv_dtype = kv_dtype;
  sc.scenario.optimizer_set = optimizer >= 0;
  if (optimizer >= 0)
    sc.scenario.optimizer = optimizer;
  sc.workload = index;

  if (!_bpw_study_validate_scenario (self, &sc, &local_error))
    return bpw_study_locate_scenario_error (doc, node, item, path, local_error, error);

  sc.scenario.name = g_strdup (name);
  sc.name = g_strdup (name);
  sc.suite = g_strdup (suite);
  g_array_append_val (self->scenarios, sc);
  return TRUE;
}

static gboolean
bpw_study_lookup_suite (BpwStudy   *self,
                        const char *name,
                        guint      *index)
{
  for (guint i = 0; i < self->suites->len; i++)
    if (g_strcmp0 (g_array_index (self->suites, BpwStudySuite, i).name, name) == 0)
      {
        if (index != NULL)
          *index = i;
        return TRUE;
      }
  return FALSE;
}

static gboolean
bpw_study_read_suite (BpwStudy    *self,
                      BpwJsonDoc  *doc,
                      JsonNode    *node,
                      JsonObject  *item,
                      const char  *path,
                      GError     **error)
{
  BpwStudySuite suite = { 0 };
  g_autofree char *spath = g_strdup_printf ("%s.scenarios", path);
  g_autoptr(GArray) indices = g_array_new (FALSE, FALSE, sizeof (guint));
  const char *name = NULL;
  int kind = BPW_SUITE_REPRESENTATIVE;
  JsonNode *list;

  bpw_json_doc_check_unknown (doc, item, path, suite_keys, self->warnings);
  if (!bpw_study_read_name (doc, item, path, bpw_study_lookup_suite, self, &name, error)
      || !bpw_json_doc_get_enum (doc, item, path, "kind", FALSE, suite_kind_names, &kind, error))
    return FALSE;
  list = json_object_get_member (item, "scenarios");
  if (list != NULL && !JSON_NODE_HOLDS_ARRAY (list))
    return bpw_json_doc_error (doc, list, spath, error, _("expected a list of scenario names"));
  for (guint i = 0; list != NULL && i < json_array_get_length (json_node_get_array (list)); i++)
    {
      JsonNode *element = json_array_get_element (json_node_get_array (list), i);
      g_autofree char *epath = g_strdup_printf ("%s[%u]", spath, i);
      const char *ref;
      guint index = 0;

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
        return bpw_json_doc_error (doc, element, epath, error, _("expected a scenario name"));
      ref = json_node_get_string (element);
      if (!bpw_study_lookup_scenario (self, ref, &index))
        return bpw_json_doc_error (doc, element, epath, error,
                                   _("the study has no scenario named \"%s\""), ref);
      g_array_append_val (indices, index);
    }
  suite.name = g_strdup (name);
  suite.kind = kind;
  suite.n_scenarios = indices->len;
  suite.scenarios = (guint *) g_array_free (g_steal_pointer (&indices), FALSE);
  g_array_append_val (self->suites, suite);
  return TRUE;
}

/* "mappings": {"<scenario>": {mapping}, ...}; each key names a scenario of the study (they
 * are read before the candidates). The members are checked when the candidate runs, as its
 * "mapping" is, against its blueprint. */
static gboolean
bpw_study_read_scenario_mappings (BpwStudy    *self,
                                  BpwJsonDoc  *doc,
                                  JsonNode    *node,
                                  const char  *path,
                                  GError     **error)
{
  JsonObjectIter iter;
  const char *scenario;
  JsonNode *value;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return bpw_json_doc_error (doc, node, path, error,
                               _("expected an object of mapping objects keyed by scenario name"));
  json_object_iter_init_ordered (&iter, json_node_get_object (node));
  while (json_object_iter_next_ordered (&iter, &scenario, &value))
    {
      g_autofree char *spath = bpw_json_doc_member_path (path, scenario);

      if (!bpw_study_lookup_scenario (self, scenario, NULL))
        return bpw_json_doc_error (doc, value, spath, error,
                                   _("the study has no scenario named \"%s\""), scenario);
      if (!JSON_NODE_HOLDS_OBJECT (value))
        return bpw_json_doc_error (doc, value, spath, error, _("expected a mapping object"));
    }
  return TRUE;
}

/* "price": {"value": 2.5, "unit": "USD/device-hour", "source": "..."}: user data, so
 * the source is required. */
static gboolean
bpw_study_read_price (BpwStudy      *self,
                      BpwJsonDoc    *doc,
                      JsonObject    *item,
                      const char    *path,
                      BpwStudyPrice *price,
                      GError       **error)
{
  g_autofree char *ppath = g_strdup_printf ("%s.price", path);
  JsonObject *obj = NULL;
  const char *source = NULL;
  int unit = BPW_PRICE_PER_DEVICE;
  double usd = 0;
  GError *local = NULL;

  obj = bpw_json_doc_get_object (doc, item, path, "price", FALSE, &local);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (obj == NULL)
    return TRUE;
  bpw_json_doc_check_unknown (doc, obj, ppath, price_keys, self->warnings);
  if (!bpw_json_doc_get_double (doc, obj, ppath, "value", TRUE, G_MINDOUBLE,
                                BPW_BLUEPRINT_MAX_COST, &usd, error)
      || !bpw_json_doc_get_enum (doc, obj, ppath, "unit", TRUE, price_units, &unit, error)
      || !bpw_json_doc_get_string (doc, obj, ppath, "source", TRUE, &source, error))
    return FALSE;
  if (source[0] == '\0')
    return bpw_json_doc_error (doc, json_object_get_member (obj, "source"), ppath, error,
                               _("a price needs its source"));
  price->set = TRUE;
  price->usd = usd;
  price->unit = unit;
  price->source = g_strdup (source);
  return TRUE;
}

static gboolean
bpw_study_read_candidate (BpwStudy    *self,
                          BpwJsonDoc  *doc,
                          JsonNode    *node,
                          JsonObject  *item,
                          const char  *path,
                          GError     **error)
{
  BpwStudyCandidate c = { 0 };
  g_autofree char *mpath = g_strdup_printf ("%s.mapping", path);
  g_autofree char *spath = g_strdup_printf ("%s.mappings", path);
  const char *name = NULL, *blueprint = NULL;
  JsonNode *mapping = json_object_get_member (item, "mapping");
  JsonNode *mappings = json_object_get_member (item, "mappings");
  guint n = self->candidates->len;

  bpw_json_doc_check_unknown (doc, item, path, candidate_keys, self->warnings);
  if (!bpw_study_read_name (doc, item, path, NULL, self, &name, error)
      || !bpw_json_doc_get_string (doc, item, path, "blueprint", TRUE, &blueprint, error))
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (g_array_index (self->candidates, BpwStudyCandidate, i).name, name) == 0)
      {
        g_autofree char *npath = g_strdup_printf ("%s.name", path);

        return bpw_json_doc_error (doc, json_object_get_member (item, "name"), npath, error,
                                   _("the name \"%s\" is already used; names must be unique"),
                                   name);
      }
  if (mapping != NULL && !JSON_NODE_HOLDS_OBJECT (mapping))
    return bpw_json_doc_error (doc, mapping, mpath, error, _("expected a mapping object"));
  if (mappings != NULL
      && !bpw_study_read_scenario_mappings (self, doc, mappings, spath, error))
    return FALSE;
  if (!bpw_study_read_price (self, doc, item, path, &c.price, error))
    return FALSE;
  c.name = g_strdup (name);
  c.blueprint = g_strdup (blueprint);
  if (mapping != NULL)
    c.mapping = json_node_copy (mapping);
  else
    {
      g_autoptr(JsonObject) empty = json_object_new ();

      c.mapping = json_node_init_object (json_node_alloc (), empty);
    }
  if (mappings != NULL)
    c.mappings = _bpw_study_json_copy (mappings);
  else
    {
      g_autoptr(JsonObject) none = json_object_new ();

      c.mappings = json_node_init_object (json_node_alloc (), none);
    }
  g_array_append_val (self->candidates, c);
  return TRUE;
}

/* A suite's score is its scenarios' throughputs weighted and divided by the total weight:
 * with every weight zero it is 0/0. Located at the suite's entry in "suites", or at the
 * first member scenario's "suite" for a suite the scenarios declare. */
static gboolean
bpw_study_check_suite_weights (BpwStudy    *self,
                               BpwJsonDoc  *doc,
                               JsonObject  *root,
                               GError     **error)
{
  JsonNode *suites = json_object_get_member (root, "suites");
  JsonNode *scenarios = json_object_get_member (root, "scenarios");

  for (guint i = 0; i < self->suites->len; i++)
    {
      const BpwStudySuite *suite = &g_array_index (self->suites, BpwStudySuite, i);
      double total = 0;
      g_autofree char *path = NULL;
      JsonNode *where = json_object_get_member (root, "format");

      for (guint k = 0; k < suite->n_scenarios; k++)
        total += g_array_index (self->scenarios, BpwStudyScenario,
                                suite->scenarios[k]).scenario.weight;
      if (suite->n_scenarios == 0 || total > 0)
        continue;
      for (guint k = 0; suites != NULL && JSON_NODE_HOLDS_ARRAY (suites)
                        && k < json_array_get_length (json_node_get_array (suites)); k++)
        {
          JsonNode *e = json_array_get_element (json_node_get_array (suites), k);

          if (JSON_NODE_HOLDS_OBJECT (e)
              && g_strcmp0 (json_object_get_string_member_with_default (
                              json_node_get_object (e), "name", NULL), suite->name) == 0)
            {
              where = e;
              path = g_strdup_printf ("suites[%u]", k);
              break;
            }
        }
      if (path == NULL && scenarios != NULL && JSON_NODE_HOLDS_ARRAY (scenarios))
        {
          guint first = suite->scenarios[0];
          JsonNode *e = json_array_get_element (json_node_get_array (scenarios), first);

          if (e != NULL && JSON_NODE_HOLDS_OBJECT (e)
              && json_object_has_member (json_node_get_object (e), "suite"))
            {
              where = json_object_get_member (json_node_get_object (e), "suite");
              path = g_strdup_printf ("scenarios[%u].suite", first);
            }
        }
      return bpw_json_doc_error (doc, where, path != NULL ? path : "suites", error,
                                 _("every scenario of suite \"%s\" has weight 0; its weighted "
                                   "score would be 0/0. Give at least one a positive weight"),
                                 suite->name);
    }
  return TRUE;
}

/* A scenario that names a suite joins it; a suite nobody declared is created. */
static void
bpw_study_link_suites (BpwStudy *self)
{
  for (guint i = 0; i < self->scenarios->len; i++)
    {
      BpwStudyScenario *sc = &g_array_index (self->scenarios, BpwStudyScenario, i);
      BpwStudySuite *suite;
      guint index = 0;
      gboolean member = FALSE;

      if (sc->suite == NULL)
        continue;
      if (!bpw_study_lookup_suite (self, sc->suite, &index))
        {
          BpwStudySuite fresh = { g_strdup (sc->suite), BPW_SUITE_REPRESENTATIVE, NULL, 0 };

          g_array_append_val (self->suites, fresh);
          index = self->suites->len - 1;
        }
      suite = &g_array_index (self->suites, BpwStudySuite, index);
      for (guint k = 0; k < suite->n_scenarios; k++)
        member |= suite->scenarios[k] == i;
      if (!member)
        {
          suite->scenarios = g_renew (guint, suite->scenarios, suite->n_scenarios + 1);
          suite->scenarios[suite->n_scenarios++] = i;
        }
    }
}

gboolean
_bpw_study_read (BpwStudy    *self,
                 BpwJsonDoc  *doc,
                 GError     **error)
{
  JsonNode *root = bpw_json_doc_get_root (doc);
  JsonObject *object;
  JsonNode *node;
  const char *format = NULL, *name = NULL, *description = NULL;
  gint64 version = 0;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return bpw_json_doc_error (doc, root, "", error, _("expected a bpw-study object"));
  object = json_node_get_object (root);
  if (!bpw_json_doc_get_string (doc, object, "", "format", TRUE, &format, error))
    return FALSE;
  if (g_strcmp0 (format, "bpw-study") != 0)
    return bpw_json_doc_error (doc, json_object_get_member (object, "format"), "format", error,
                               _("expected \"bpw-study\", got \"%s\"; this is not a study file"),
                               format);
  if (!bpw_json_doc_get_int (doc, object, "", "version", TRUE, 1, G_MAXINT64, &version, error))
    return FALSE;
  if (version > BPW_STUDY_FORMAT_VERSION)
    return bpw_json_doc_error (doc, json_object_get_member (object, "version"), "version", error,
                               _("version %" PRId64 " is newer than this program reads "
                               "(%d); update Blueprint Workbench"), version,
                               BPW_STUDY_FORMAT_VERSION);
  bpw_json_doc_check_unknown (doc, object, "", root_keys, self->warnings);
  if (!bpw_json_doc_get_string (doc, object, "", "name", FALSE, &name, error)
      || !bpw_json_doc_get_string (doc, object, "", "description", FALSE, &description, error))
    return FALSE;
  if (name != NULL)
    bpw_study_set_name (self, name);
  else
    {
      g_autofree char *base = g_path_get_basename (bpw_json_doc_get_filename (doc));
      char *dot = strstr (base, ".bpw-study");

      if (dot == NULL)
        dot = strrchr (base, '.');
      if (dot != NULL && dot != base)
        *dot = '\0';
      bpw_study_set_name (self, base);
    }
  g_free (self->description);
  self->description = g_strdup (description);

  if (!bpw_study_read_list (self, doc, object, "workloads", bpw_study_read_workload, error)
      || !bpw_study_read_list (self, doc, object, "scenarios", bpw_study_read_scenario, error)
      || !bpw_study_read_list (self, doc, object, "suites", bpw_study_read_suite, error))
    return FALSE;
  bpw_study_link_suites (self);
  if (!bpw_study_check_suite_weights (self, doc, object, error))
    return FALSE;

  node = json_object_get_member (object, "blueprints");
  if (node != NULL && !JSON_NODE_HOLDS_ARRAY (node))
    return bpw_json_doc_error (doc, node, "blueprints", error, _("expected a list of blueprints"));
  for (guint i = 0; node != NULL && i < json_array_get_length (json_node_get_array (node)); i++)
    {
      JsonNode *element = json_array_get_element (json_node_get_array (node), i);
      g_autofree char *path = g_strdup_printf ("blueprints[%u]", i);

      /* An object is a blueprint held in the study (an edited copy, say). */
      if (JSON_NODE_HOLDS_OBJECT (element))
        {
          if (!_bpw_study_read_inline_blueprint (self, doc, element, path, error))
            return FALSE;
          continue;
        }
      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING
          || *json_node_get_string (element) == '\0')
        return bpw_json_doc_error (doc, element, path, error,
                                   _("expected a bundled blueprint name, a file path or a "
                                   "blueprint object"));
      bpw_study_add_blueprint (self, json_node_get_string (element));
    }

  if (!bpw_study_read_list (self, doc, object, "candidates", bpw_study_read_candidate, error)
      || !_bpw_study_read_measurements (self, doc, object, error)
      || !_bpw_study_read_quality (self, doc, object, error))
    return FALSE;

  node = json_object_get_member (object, "views");
  if (node != NULL && !JSON_NODE_HOLDS_OBJECT (node))
    return bpw_json_doc_error (doc, node, "views", error, _("expected an object"));
  if (node != NULL)
    self->views = json_node_copy (node);
  return TRUE;
}
