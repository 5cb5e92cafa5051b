/* bpw-measurement-pack.c — reading a measurement pack, every problem located, all at once
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-measurement-pack"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-json-doc.h"
#include "bpw-measurement-pack.h"
#include "bpw-workload-io.h"

#define FORMAT_NAME "bpw-measurement-pack"
#define MATMUL_PREFIX "matmul_"
/* Integers a pack may hold: sizes, counts and byte counts, all below 2^53. */
#define BIG ((gint64) 1 << 53)
/* Problems named in one report; the count of the others follows them. */
#define MAX_PROBLEMS 50

/* Precisions a shape sweep may be measured in: "matmul_<dtype>". */
static const BpwDType sweep_dtypes[] = { BPW_DTYPE_FP32, BPW_DTYPE_BF16, BPW_DTYPE_FP16,
                                         BPW_DTYPE_FP8 };

typedef struct
{
  BpwJsonDoc         *doc;
  BpwMeasurementPack *pack;
  GPtrArray          *warnings;   /* nullable */
  GArray             *matmuls, *copies, *attention, *runs;
  GError             *error;       /* the problem just found, until noted() lists it */
  GPtrArray          *problems;    /* located messages, the first MAX_PROBLEMS */
  guint               n_problems;  /* all of them */
  GQuark              domain;      /* the first problem's, for the caller's exit status */
  int                 code;
} PackReader;

gboolean
bpw_measurement_pack_detect (JsonNode *root)
{
  JsonNode *format;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return FALSE;
  format = json_object_get_member (json_node_get_object (root), "format");
  return format != NULL && JSON_NODE_HOLDS_VALUE (format) &&
         json_node_get_value_type (format) == G_TYPE_STRING &&
         g_strcmp0 (json_node_get_string (format), FORMAT_NAME) == 0;
}

static void
run_clear (BpwPackRun *run)
{
  g_free (run->name);
  g_free (run->trace_path);
  g_free (run->model_path);
  g_free (run->note);
  bpw_scenario_clear (&run->scenario);
}

void
bpw_measurement_pack_free (BpwMeasurementPack *pack)
{
  if (pack == NULL)
    return;
  g_free (pack->filename);
  g_free (pack->directory);
  g_free (pack->device_name);
  g_free (pack->compute_capability);
  g_free (pack->driver);
  g_free (pack->cuda);
  g_free (pack->framework);
  g_free (pack->python);
  g_free (pack->attention_impl);
  g_free (pack->precision);
  g_free (pack->optimizer);
  g_free (pack->fusion);
  g_free (pack->launch);
  g_free (pack->other_models);
  g_free (pack->peak.name);
  for (guint i = 0; i < pack->n_matmuls; i++)
    g_free (pack->matmuls[i].name);
  g_free (pack->matmuls);
  g_free (pack->copies);
  g_free (pack->attention);
  g_free (pack->note);
  for (guint i = 0; i < pack->n_runs; i++)
    run_clear (&pack->runs[i]);
  g_free (pack->runs);
  g_free (pack);
}

guint *
bpw_measurement_pack_matmuls_of (const BpwMeasurementPack *pack,
                                 BpwDType                  dtype,
                                 guint                    *n)
{
  guint *indices = g_new (guint, pack->n_matmuls + 1);

  *n = 0;
  for (guint i = 0; i < pack->n_matmuls; i++)
    if (pack->matmuls[i].dtype == dtype)
      indices[(*n)++] = i;
  return indices;
}

/* ---- problems ---- */

/* Moves the problem just raised in r->error (if any) to the list of problems, so that the
 * reading goes on and the pack's every problem is named at once. TRUE when there was none. */
static gboolean
noted (PackReader *r)
{
  if (r->error == NULL)
    return TRUE;
  if (r->n_problems == 0)
    {
      r->domain = r->error->domain;
      r->code = r->error->code;
    }
  /* Hostile input may hold a problem in every element: the list stays bounded. */
  if (r->problems->len < MAX_PROBLEMS)
    g_ptr_array_add (r->problems, g_strdup (r->error->message));
  r->n_problems++;
  g_clear_error (&r->error);
  return FALSE;
}

static gboolean
get_int (PackReader *r, JsonObject *o, const char *path, const char *member, gboolean required,
         gint64 min, gint64 max, gint64 *out)
{
  bpw_json_doc_get_int (r->doc, o, path, member, required, min, max, out, &r->error);
  return noted (r);
}

static gboolean
get_enum (PackReader *r, JsonObject *o, const char *path, const char *member,
          gboolean required, const char * const *choices, int *out)
{
  bpw_json_doc_get_enum (r->doc, o, path, member, required, choices, out, &r->error);
  return noted (r);
}

/* An object member: NULL when absent (a problem when @required) or not an object. */
static JsonObject *
get_object (PackReader *r, JsonObject *o, const char *path, const char *member,
            gboolean required)
{
  JsonObject *object = bpw_json_doc_get_object (r->doc, o, path, member, required, &r->error);

  noted (r);
  return object;
}

static JsonArray *
get_array (PackReader *r, JsonObject *o, const char *path, const char *member,
           gboolean required)
{
  JsonArray *array = bpw_json_doc_get_array (r->doc, o, path, member, required, &r->error);

  noted (r);
  return array;
}

/* ---- members ---- */

/* A string member, copied; NULL when absent. */
static gboolean
read_string (PackReader *r, JsonObject *o, const char *path, const char *member,
             gboolean required, char **out)
{
  const char *value = NULL;

  if (!bpw_json_doc_get_string (r->doc, o, path, member, required, &value, &r->error))
    return noted (r);
  if (required && *value == '\0')
    {
      g_autofree char *at = bpw_json_doc_member_path (path, member);

      bpw_json_doc_error (r->doc, json_object_get_member (o, member), at, &r->error,
                          _("must not be empty"));
      return noted (r);
    }
  *out = g_strdup (value);
  return TRUE;
}

/* Milliseconds in the file, seconds here; a time must be positive. */
static gboolean
read_ms (PackReader *r, JsonObject *o, const char *path, const char *member, gboolean required,
         double *out_s)
{
  double ms = NAN;

  if (!bpw_json_doc_get_double (r->doc, o, path, member, required, G_MINDOUBLE, G_MAXDOUBLE,
                                &ms, &r->error))
    return noted (r);
  *out_s = ms * 1e-3;
  return TRUE;
}

static gboolean
read_positive (PackReader *r, JsonObject *o, const char *path, const char *member,
               gboolean required, double *out)
{
  bpw_json_doc_get_double (r->doc, o, path, member, required, G_MINDOUBLE, G_MAXDOUBLE, out,
                           &r->error);
  return noted (r);
}

static void
unknown (PackReader *r, JsonObject *o, const char *path, const char * const *known)
{
  if (r->warnings != NULL)
    bpw_json_doc_check_unknown (r->doc, o, path, known, r->warnings);
}

/* Element @i of @array as an object, or a located problem. */
static JsonObject *
element_object (PackReader *r, JsonArray *array, guint i, const char *path)
{
  JsonNode *node = json_array_get_element (array, i);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_autofree char *got = bpw_json_doc_describe_node (node);

      bpw_json_doc_error (r->doc, node, path, &r->error, _("expected an object, got %s"), got);
      noted (r);
      return NULL;
    }
  return json_node_get_object (node);
}

/* ---- device and stack ---- */

static void
read_device (PackReader *r, JsonObject *root)
{
  static const char * const known[] = { "name", "count", "sms", "memory_bytes",
                                        "compute_capability", "driver", "cuda", "power_limit_w",
                                        "sm_clock_max_mhz", "memory_clock_max_mhz", NULL };
  BpwMeasurementPack *p = r->pack;
  JsonObject *o = get_object (r, root, NULL, "device", TRUE);

  if (o == NULL)
    return;
  p->device_count = 1;
  p->power_limit_w = p->sm_clock_max_mhz = p->memory_clock_max_mhz = NAN;
  read_string (r, o, "device", "name", TRUE, &p->device_name);
  get_int (r, o, "device", "count", FALSE, 1, 1 << 20, &p->device_count);
  get_int (r, o, "device", "sms", FALSE, 1, 1 << 20, &p->sms);
  get_int (r, o, "device", "memory_bytes", FALSE, 1, BIG, &p->memory_bytes);
  read_string (r, o, "device", "compute_capability", FALSE, &p->compute_capability);
  read_string (r, o, "device", "driver", FALSE, &p->driver);
  read_string (r, o, "device", "cuda", FALSE, &p->cuda);
  read_positive (r, o, "device", "power_limit_w", FALSE, &p->power_limit_w);
  read_positive (r, o, "device", "sm_clock_max_mhz", FALSE, &p->sm_clock_max_mhz);
  read_positive (r, o, "device", "memory_clock_max_mhz", FALSE, &p->memory_clock_max_mhz);
  unknown (r, o, "device", known);
}

static void
read_stack (PackReader *r, JsonObject *root)
{
  static const char * const known[] = { "framework", "python", "attention", "precision",
                                        "optimizer", "fusion", "launch", "other_models", NULL };
  BpwMeasurementPack *p = r->pack;
  char **fields[] = { &p->python, &p->attention_impl, &p->precision, &p->optimizer, &p->fusion,
                      &p->launch, &p->other_models };
  JsonObject *o = get_object (r, root, NULL, "stack", TRUE);

  if (o == NULL)
    return;
  read_string (r, o, "stack", "framework", TRUE, &p->framework);
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    read_string (r, o, "stack", known[i + 1], FALSE, fields[i]);
  unknown (r, o, "stack", known);
}

/* ---- microbenchmarks ---- */

/* Every member of one product, each problem named; TRUE when all were well. */
static gboolean
read_matmul (PackReader *r, JsonObject *o, const char *path, BpwDType dtype, gboolean named,
             BpwPackMatmul *out)
{
  static const char * const known[] = { "name", "m", "n", "k", "ms", "tflops", NULL };
  gboolean ok;

  *out = (BpwPackMatmul) { .dtype = dtype };
  ok = get_int (r, o, path, "m", TRUE, 1, BIG, &out->m);
  ok = get_int (r, o, path, "n", TRUE, 1, BIG, &out->n) && ok;
  ok = get_int (r, o, path, "k", TRUE, 1, BIG, &out->k) && ok;
  ok = read_ms (r, o, path, "ms", TRUE, &out->time_s) && ok;
  ok = read_positive (r, o, path, "tflops", TRUE, &out->flops_per_s) && ok;
  if (named)
    ok = read_string (r, o, path, "name", FALSE, &out->name) && ok;
  if (!ok)
    {
      g_clear_pointer (&out->name, g_free);
      return FALSE;
    }
  out->flops_per_s *= 1e12;
  if (named)
    unknown (r, o, path, known);
  return TRUE;
}

static void
read_peak (PackReader *r, JsonObject *micro)
{
  static const char * const known[] = { "m", "n", "k", "dtype", "ms", "tflops",
                                        "board_power_w_mean", "sm_clock_mhz_mean", NULL };
  const char *path = "microbenchmarks.matmul_peak";
  BpwMeasurementPack *p = r->pack;
  JsonObject *o = get_object (r, micro, "microbenchmarks", "matmul_peak", TRUE);
  const char *dtype_name = NULL;
  BpwDType dtype = BPW_DTYPE_BF16;

  if (o == NULL)
    return;
  if (!bpw_json_doc_get_string (r->doc, o, path, "dtype", TRUE, &dtype_name, &r->error))
    noted (r);
  else if (!bpw_dtype_from_string (dtype_name, &dtype) || dtype == BPW_DTYPE_U8)
    {
      bpw_json_doc_error (r->doc, json_object_get_member (o, "dtype"),
                          "microbenchmarks.matmul_peak.dtype", &r->error,
                          _("unknown precision '%s' (expected fp32, bf16, fp16 or fp8)"),
                          dtype_name);
      noted (r);
    }
  p->peak_power_w = p->peak_sm_clock_mhz = NAN;
  read_matmul (r, o, path, dtype, FALSE, &p->peak);
  read_positive (r, o, path, "board_power_w_mean", FALSE, &p->peak_power_w);
  read_positive (r, o, path, "sm_clock_mhz_mean", FALSE, &p->peak_sm_clock_mhz);
  unknown (r, o, path, known);
}

static void
read_sweep (PackReader *r, JsonObject *micro, const char *member)
{
  g_autofree char *path = bpw_json_doc_member_path ("microbenchmarks", member);
  const char *dtype_name = member + strlen (MATMUL_PREFIX);
  JsonArray *array;
  BpwDType dtype;
  gboolean known_dtype = FALSE;

  if (bpw_dtype_from_string (dtype_name, &dtype))
    for (guint i = 0; i < G_N_ELEMENTS (sweep_dtypes); i++)
      known_dtype |= sweep_dtypes[i] == dtype;
  if (!known_dtype)
    {
      bpw_json_doc_error (r->doc, json_object_get_member (micro, member), path, &r->error,
                          _("unknown precision '%s' in the member's name (expected "
                            "matmul_fp32, matmul_bf16, matmul_fp16 or matmul_fp8)"),
                          dtype_name);
      noted (r);
      return;
    }
  array = get_array (r, micro, "microbenchmarks", member, TRUE);
  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      g_autofree char *at = g_strdup_printf ("%s[%u]", path, i);
      JsonObject *o = element_object (r, array, i, at);
      BpwPackMatmul point;

      if (o != NULL && read_matmul (r, o, at, dtype, TRUE, &point))
        g_array_append_val (r->matmuls, point);
    }
}

static void
read_copy (PackReader *r, JsonObject *o, const char *path)
{
  static const char * const known[] = { "bytes_each_way", "ms", "tbps_read_plus_write", NULL };
  BpwPackCopy copy = { 0 };
  gboolean ok;

  ok = get_int (r, o, path, "bytes_each_way", TRUE, 1, BIG, &copy.bytes);
  ok = read_ms (r, o, path, "ms", TRUE, &copy.time_s) && ok;
  ok = read_positive (r, o, path, "tbps_read_plus_write", TRUE, &copy.bytes_per_s) && ok;
  if (!ok)
    return;
  copy.bytes_per_s *= 1e12;
  unknown (r, o, path, known);
  g_array_append_val (r->copies, copy);
}

/* One copy (an object) or a sweep of copies by size (an array of them). */
static void
read_copies (PackReader *r, JsonObject *micro)
{
  const char *path = "microbenchmarks.memory_copy";
  JsonNode *node;

  if (!bpw_json_doc_get_member (r->doc, micro, "microbenchmarks", "memory_copy", TRUE, &node,
                                &r->error))
    {
      noted (r);
      return;
    }
  if (JSON_NODE_HOLDS_OBJECT (node))
    read_copy (r, json_node_get_object (node), path);
  else if (JSON_NODE_HOLDS_ARRAY (node) && json_array_get_length (json_node_get_array (node)) > 0)
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          g_autofree char *at = g_strdup_printf ("%s[%u]", path, i);
          JsonObject *o = element_object (r, array, i, at);

          if (o != NULL)
            read_copy (r, o, at);
        }
    }
  else
    {
      g_autofree char *got = bpw_json_doc_describe_node (node);

      bpw_json_doc_error (r->doc, node, path, &r->error,
                          _("expected an object or a non-empty array of objects, got %s"), got);
      noted (r);
    }
}

static void
read_attention_point (PackReader *r, JsonObject *o, const char *path)
{
  static const char * const kinds[] = { "prefill_causal", "decode", NULL };
  static const char * const known_prefill[] = { "kind", "b", "s", "ms", "tflops_causal", NULL };
  static const char * const known_decode[] = { "kind", "b", "context", "ms", "kv_bytes", "tbps",
                                               NULL };
  BpwPackAttention a = { 0 };
  int kind = 0;
  gboolean ok, prefill;

  /* Without its kind the point's other members cannot be named. */
  if (!get_enum (r, o, path, "kind", TRUE, kinds, &kind))
    return;
  a.kind = kind;
  prefill = a.kind == BPW_PACK_ATTENTION_PREFILL_CAUSAL;
  ok = get_int (r, o, path, "b", TRUE, 1, BIG, &a.batch);
  ok = read_ms (r, o, path, "ms", TRUE, &a.time_s) && ok;
  ok = get_int (r, o, path, prefill ? "s" : "context", TRUE, 1, BIG, &a.tokens) && ok;
  ok = read_positive (r, o, path, prefill ? "tflops_causal" : "tbps", TRUE, &a.rate) && ok;
  if (!prefill)
    ok = get_int (r, o, path, "kv_bytes", TRUE, 1, BIG, &a.kv_bytes) && ok;
  if (!ok)
    return;
  a.rate *= 1e12;
  unknown (r, o, path, prefill ? known_prefill : known_decode);
  g_array_append_val (r->attention, a);
}

static void
read_microbenchmarks (PackReader *r, JsonObject *root)
{
  JsonObject *micro = get_object (r, root, NULL, "microbenchmarks", TRUE);
  JsonArray *attention;
  g_autoptr(GList) members = NULL;

  if (micro == NULL)
    return;
  read_peak (r, micro);
  read_copies (r, micro);

  /* The sweeps in the order the file has them. */
  members = json_object_get_members (micro);
  for (GList *m = members; m != NULL; m = m->next)
    if (g_str_has_prefix (m->data, MATMUL_PREFIX) && strcmp (m->data, "matmul_peak") != 0)
      read_sweep (r, micro, m->data);

  attention = get_array (r, micro, "microbenchmarks", "attention", FALSE);
  for (guint i = 0; attention != NULL && i < json_array_get_length (attention); i++)
    {
      g_autofree char *at = g_strdup_printf ("microbenchmarks.attention[%u]", i);
      JsonObject *o = element_object (r, attention, i, at);

      if (o != NULL)
        read_attention_point (r, o, at);
    }
  read_string (r, micro, "microbenchmarks", "board_power_note", FALSE, &r->pack->note);

  /* Every matmul_<dtype> member was read above: known, as the fixed ones. */
  if (r->warnings != NULL)
    {
      g_autoptr(GPtrArray) known = g_ptr_array_new ();

      g_ptr_array_add (known, (gpointer) "memory_copy");
      g_ptr_array_add (known, (gpointer) "attention");
      g_ptr_array_add (known, (gpointer) "board_power_note");
      for (GList *m = members; m != NULL; m = m->next)
        if (g_str_has_prefix (m->data, MATMUL_PREFIX))
          g_ptr_array_add (known, m->data);
      g_ptr_array_add (known, NULL);
      unknown (r, micro, "microbenchmarks", (const char * const *) known->pdata);
    }
}

/* ---- runs ---- */

/* @member of @o, a path relative to the pack's folder, resolved and checked to exist. */
static gboolean
read_file_member (PackReader *r, JsonObject *o, const char *path, const char *member,
                  char **out)
{
  g_autofree char *relative = NULL;
  g_autofree char *at = bpw_json_doc_member_path (path, member);
  char *resolved;

  if (!read_string (r, o, path, member, TRUE, &relative))
    return FALSE;
  resolved = g_path_is_absolute (relative) ? g_strdup (relative)
             : g_build_filename (r->pack->directory, relative, NULL);
  if (!g_file_test (resolved, G_FILE_TEST_IS_REGULAR))
    {
      bpw_json_doc_error (r->doc, json_object_get_member (o, member), at, &r->error,
                          _("'%s' does not exist (looked for %s)"), relative, resolved);
      g_free (resolved);
      return noted (r);
    }
  *out = resolved;
  return TRUE;
}

static gboolean
read_scenario (PackReader *r, JsonObject *run, const char *run_path, BpwScenario *s)
{
  static const char * const phases[] = { "train", "prefill", "decode", NULL };
  static const char * const dtypes[] = { "fp32", "bf16", "fp16", "fp8", NULL };
  static const char * const recomputes[] = { "none", "selective", "full", NULL };
  static const char * const optimizers[] = { "adam", "sgd", NULL };
  static const char * const known[] = { "phase", "global_batch", "micro_batch", "seq",
                                        "context", "dtype", "recompute", "optimizer", NULL };
  static const BpwWorkloadPhase phase_values[] = { BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL,
                                                   BPW_WORKLOAD_DECODE };
  static const BpwDType dtype_values[] = { BPW_DTYPE_FP32, BPW_DTYPE_BF16, BPW_DTYPE_FP16,
                                           BPW_DTYPE_FP8 };
  static const BpwRecompute recompute_values[] = { BPW_RECOMPUTE_NONE, BPW_RECOMPUTE_SELECTIVE,
                                                   BPW_RECOMPUTE_FULL };
  static const BpwOptimizerKind optimizer_values[] = { BPW_OPTIMIZER_ADAM, BPW_OPTIMIZER_SGD };
  g_autofree char *path = bpw_json_doc_member_path (run_path, "scenario");
  JsonObject *o = get_object (r, run, run_path, "scenario", TRUE);
  int phase = -1, dtype = -1, recompute = -1, optimizer = -1;
  gboolean ok, decode;

  if (o == NULL)
    return FALSE;
  ok = get_enum (r, o, path, "phase", TRUE, phases, &phase);
  /* A decode step has a context, the others a sequence; with the phase in doubt the one
   * the object has is read, so that its own problems are named too. */
  decode = phase >= 0 ? phase_values[phase] == BPW_WORKLOAD_DECODE
           : json_object_has_member (o, "context");
  if (phase >= 0)
    s->phase = phase_values[phase];
  if (get_int (r, o, path, "global_batch", TRUE, 1, BIG, &s->global_batch))
    {
      s->micro_batch = s->global_batch;
      ok = get_int (r, o, path, "micro_batch", FALSE, 1, s->global_batch, &s->micro_batch) && ok;
    }
  else
    ok = FALSE;
  ok = get_int (r, o, path, decode ? "context" : "seq", TRUE, 1, BIG,
                decode ? &s->context : &s->seq) && ok;
  ok = get_enum (r, o, path, "dtype", TRUE, dtypes, &dtype) && ok;
  ok = get_enum (r, o, path, "recompute", FALSE, recomputes, &recompute) && ok;
  ok = get_enum (r, o, path, "optimizer", FALSE, optimizers, &optimizer) && ok;
  if (!ok)
    return FALSE;
  if (decode)
    s->seq = 1;
  s->dtype = dtype_values[dtype];
  if (recompute >= 0)
    s->recompute = recompute_values[recompute];
  if (optimizer >= 0)
    {
      s->optimizer_set = TRUE;
      s->optimizer = optimizer_values[optimizer];
    }
  unknown (r, o, path, known);
  return TRUE;
}

static gboolean
read_run (PackReader *r, JsonObject *o, const char *path, BpwPackRun *run)
{
  static const char * const known[] = { "name", "trace", "model", "scenario", "measured_ms",
                                        "peak_memory_bytes", "note", NULL };
  BpwModelSpec spec;
  gboolean ok, model;

  run->measured_s = NAN;
  run->peak_bytes = NAN;
  bpw_scenario_init_defaults (&run->scenario);
  ok = read_string (r, o, path, "name", TRUE, &run->name);
  ok = read_file_member (r, o, path, "trace", &run->trace_path) && ok;
  model = read_file_member (r, o, path, "model", &run->model_path);
  ok = read_scenario (r, o, path, &run->scenario) && model && ok;
  ok = read_ms (r, o, path, "measured_ms", FALSE, &run->measured_s) && ok;
  ok = read_positive (r, o, path, "peak_memory_bytes", FALSE, &run->peak_bytes) && ok;
  ok = read_string (r, o, path, "note", FALSE, &run->note) && ok;
  unknown (r, o, path, known);
  if (!model)
    return FALSE;

  /* The model must be one the workbench reads; its own errors are located in its file. */
  bpw_model_spec_init_defaults (&spec);
  ok = bpw_workload_load (run->model_path, &spec, &r->error) && ok;
  noted (r);
  bpw_model_spec_clear (&spec);
  return ok;
}

static void
read_runs (PackReader *r, JsonObject *root)
{
  JsonArray *runs = get_array (r, root, NULL, "runs", TRUE);

  for (guint i = 0; runs != NULL && i < json_array_get_length (runs); i++)
    {
      g_autofree char *at = g_strdup_printf ("runs[%u]", i);
      JsonObject *o = element_object (r, runs, i, at);
      BpwPackRun run = { 0 };
      gboolean ok;

      if (o == NULL)
        continue;
      ok = read_run (r, o, at, &run);
      for (guint k = 0; run.name != NULL && k < r->runs->len; k++)
        if (g_strcmp0 (g_array_index (r->runs, BpwPackRun, k).name, run.name) == 0)
          {
            bpw_json_doc_error (r->doc, json_object_get_member (o, "name"), at, &r->error,
                                _("a second run named '%s'"), run.name);
            ok = noted (r);
            break;
          }
      if (ok)
        g_array_append_val (r->runs, run);
      else
        run_clear (&run);
    }
}

/* ---- the pack ---- */

static void
read_pack (PackReader *r)
{
  static const char * const known[] = { "$schema", "format", "version", "device", "stack",
                                        "microbenchmarks", "runs", NULL };
  JsonNode *root = bpw_json_doc_get_root (r->doc);
  JsonObject *o;
  const char *format = NULL;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      bpw_json_doc_error (r->doc, root, NULL, &r->error, _("expected an object"));
      noted (r);
      return;
    }
  o = json_node_get_object (root);
  /* Past a wrong format the members below would be a list of noise: stop there. */
  if (!bpw_json_doc_get_string (r->doc, o, NULL, "format", TRUE, &format, &r->error))
    {
      noted (r);
      return;
    }
  if (strcmp (format, FORMAT_NAME) != 0)
    {
      bpw_json_doc_error (r->doc, json_object_get_member (o, "format"), "format", &r->error,
                          _("expected \"%s\", got \"%s\""), FORMAT_NAME, format);
      noted (r);
      return;
    }
  get_int (r, o, NULL, "version", TRUE, 1, 1, &r->pack->version);
  read_device (r, o);
  read_stack (r, o);
  read_microbenchmarks (r, o);
  read_runs (r, o);
  unknown (r, o, NULL, known);
}

/* One error naming every problem, one a line, the first MAX_PROBLEMS of them. */
static void
report_problems (PackReader *r, GError **error)
{
  g_autoptr(GString) message = g_string_new (NULL);

  for (guint i = 0; i < r->problems->len; i++)
    {
      if (i > 0)
        g_string_append_c (message, '\n');
      g_string_append (message, g_ptr_array_index (r->problems, i));
    }
  if (r->n_problems > r->problems->len)
    {
      guint more = r->n_problems - r->problems->len;

      g_string_append_c (message, '\n');
      g_string_append_printf (message, _("%s: problems not listed: %u more"),
                              bpw_json_doc_get_filename (r->doc), more);
    }
  g_set_error_literal (error, r->domain, r->code, message->str);
}

static void
take_array (GArray *array, gpointer *out, guint *n)
{
  *n = array->len;
  *out = g_array_free (array, FALSE);
}

BpwMeasurementPack *
bpw_measurement_pack_load_file (const char  *path,
                                GPtrArray   *warnings,
                                GError     **error)
{
  g_autoptr(BpwJsonDoc) doc = bpw_json_doc_new_from_file (path, error);
  PackReader r = { .doc = doc, .warnings = warnings };
  gboolean ok;

  if (doc == NULL)
    return NULL;
  r.pack = g_new0 (BpwMeasurementPack, 1);
  r.pack->filename = g_strdup (path);
  r.pack->directory = g_path_get_dirname (path);
  r.matmuls = g_array_new (FALSE, FALSE, sizeof (BpwPackMatmul));
  r.copies = g_array_new (FALSE, FALSE, sizeof (BpwPackCopy));
  r.attention = g_array_new (FALSE, FALSE, sizeof (BpwPackAttention));
  r.runs = g_array_new (FALSE, FALSE, sizeof (BpwPackRun));
  r.problems = g_ptr_array_new_with_free_func (g_free);
  read_pack (&r);
  ok = r.n_problems == 0;
  if (!ok)
    report_problems (&r, error);
  g_ptr_array_unref (r.problems);
  take_array (r.matmuls, (gpointer *) &r.pack->matmuls, &r.pack->n_matmuls);
  take_array (r.copies, (gpointer *) &r.pack->copies, &r.pack->n_copies);
  take_array (r.attention, (gpointer *) &r.pack->attention, &r.pack->n_attention);
  take_array (r.runs, (gpointer *) &r.pack->runs, &r.pack->n_runs);
  if (!ok)
    g_clear_pointer (&r.pack, bpw_measurement_pack_free);
  return r.pack;
}
