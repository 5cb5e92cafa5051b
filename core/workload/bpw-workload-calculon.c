/* bpw-calculon-io.c — Calculon application (model) and execution JSON importers
 *
 * Calculon (github.com/calculon-ai/calculon, Apache-2.0; NOTICE: "Calculon - Co-design for
 * large scale parallel applications / Copyright 2022 Michael Isaev, Nic McDonald / All rights
 * reserved.") defines these formats; this file reads them, it copies no code.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-calculon-io"

#include "config.h"

#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-workload-io-private.h"

static const char * const calculon_model_keys[] = {
  "hidden", "feedforward", "seq_size", "attn_heads", "attn_size", "num_blocks", NULL
};

static const char * const calculon_key_map[] = {
  "hidden", "hidden", "ffn", "feedforward", "heads", "attn_heads", "kv_heads", "attn_heads",
  "head_dim", "attn_size", "layers", "num_blocks", "max_positions", "seq_size", NULL
};

gboolean
_bpw_workload_read_calculon (BpwJsonDoc          *doc,
                             JsonObject          *root,
                             BpwModelSpec        *spec,
                             BpwScenario         *scenario_hint,
                             const char * const **key_map,
                             GPtrArray           *warnings,
                             GError             **error)
{
  gint64 seq = 0;

  *key_map = calculon_key_map;
  /* Calculon ignores extra keys; we say so. */
  _bpw_workload_check_unknown (doc, root, "", calculon_model_keys, warnings);

  if (!bpw_json_doc_get_int (doc, root, "", "hidden", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH,
                             &spec->hidden, error)
      || !bpw_json_doc_get_int (doc, root, "", "feedforward", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH,
                                &spec->ffn, error)
      || !bpw_json_doc_get_int (doc, root, "", "seq_size", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH,
                                &seq, error)
      || !bpw_json_doc_get_int (doc, root, "", "attn_heads", TRUE, 1, BPW_WORKLOAD_MAX_HEADS,
                                &spec->heads, error)
      || !bpw_json_doc_get_int (doc, root, "", "attn_size", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH,
                                &spec->head_dim, error)
      || !bpw_json_doc_get_int (doc, root, "", "num_blocks", TRUE, 1, BPW_WORKLOAD_MAX_LAYERS,
                                &spec->layers, error))
    return FALSE;

  /* Calculon's block: LayerNorm, separate Q/K/V projections of width heads * attn_size
   * (multi-head; multi-query is an execution option), a two-matrix GeLU MLP, dropout after
   * attention and MLP, biases counted by its parameter calculator. Its calculator adds one
   * 51,200-entry token table and seq_size learned positions and no separate output
   * projection, which is a GPT-style tied head: tied = TRUE reproduces its counts (it omits
   * only the final LayerNorm's 2h). */
  spec->vocab = BPW_CALCULON_DEFAULT_VOCAB;
  spec->kv_heads = spec->heads;
  spec->max_positions = seq;
  spec->ffn_kind = BPW_FFN_GELU;
  spec->norm = BPW_NORM_LAYERNORM;
  spec->positions = BPW_POSITION_LEARNED;
  spec->tied_embeddings = TRUE;
  spec->qkv_bias = TRUE;
  spec->linear_bias = TRUE;
  spec->dropout = TRUE;
  spec->experts = 0;

  if (scenario_hint != NULL)
    scenario_hint->seq = seq;
  return TRUE;
}

/* Execution ------------------------------------------------------------------------- */

static const char * const execution_keys[] = {
  "num_procs", "tensor_par", "pipeline_par", "data_par", "tensor_par_net", "pipeline_par_net",
  "data_par_net", "batch_size", "microbatch_size", "datatype", "fused_activation",
  "attention_type", "activation_recompute", "pipeline_interleaving", "optimizer_sharding",
  "tensor_par_comm_type", "tensor_par_overlap", "seq_par_ag_redo", "data_par_overlap",
  "weight_offload", "activations_offload", "optimizer_offload", "training", NULL
};
static const char * const datatype_names[] = {
  "float8", "float16", "bfloat16", "float32", NULL
};
static const BpwDType datatype_values[] = {
  BPW_DTYPE_FP8, BPW_DTYPE_FP16, BPW_DTYPE_BF16, BPW_DTYPE_FP32
};
static const char * const attention_names[] = { "multihead", "multiquery", NULL };
static const char * const recompute_names[] = { "full", "attn_only", "none", NULL };
static const BpwRecompute recompute_values[] = {
  BPW_RECOMPUTE_FULL, BPW_RECOMPUTE_SELECTIVE, BPW_RECOMPUTE_NONE
};
static const char * const comm_type_names[] = { "ar", "p2p_rs_ag", "rs_ag", NULL };
static const char * const overlap_names[] = { "none", "ring", "pipe", NULL };

void
bpw_calculon_execution_apply (const BpwCalculonExecution *exec,
                              BpwScenario                *scenario,
                              BpwParallel                *parallel)
{
  g_return_if_fail (exec != NULL && scenario != NULL && parallel != NULL);

  scenario->phase = exec->training ? BPW_WORKLOAD_TRAIN : BPW_WORKLOAD_PREFILL;
  scenario->global_batch = exec->batch_size;
  scenario->micro_batch = exec->microbatch_size;
  scenario->dtype = exec->datatype;
  scenario->recompute = exec->activation_recompute;

  parallel->tp = exec->tensor_par;
  parallel->pp = exec->pipeline_par;
  parallel->dp = exec->data_par;
  parallel->ep = 1;
  /* Calculon has no context parallelism. */
  parallel->cp = 1;
  parallel->cp_algorithm = BPW_CP_RING;
  /* Over one TP rank Calculon's reduce-scatter and all-gather move nothing: that is no
   * sequence parallelism, which needs TP 2 or more. */
  parallel->sp = exec->tensor_par > 1 && exec->tensor_par_comm_type != BPW_CALCULON_TP_COMM_AR;
  /* Calculon's optimizer sharding divides optimizer state and weight-gradient storage by
   * DP and turns the all-reduce into reduce-scatter + all-gather, weights stay replicated:
   * that is ZeRO stage 2. */
  parallel->zero = exec->optimizer_sharding ? 2 : 0;
  parallel->interleave = exec->pipeline_interleaving;
  parallel->schedule = exec->pipeline_interleaving > 1 ? BPW_SCHEDULE_INTERLEAVED
                                                       : BPW_SCHEDULE_1F1B;
}

gboolean
bpw_calculon_execution_detect (JsonNode *root)
{
  JsonObject *object;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return FALSE;
  object = json_node_get_object (root);
  return json_object_has_member (object, "tensor_par")
         && json_object_has_member (object, "pipeline_par")
         && json_object_has_member (object, "data_par");
}

static gboolean
execution_fail (BpwJsonDoc  *doc,
                JsonObject  *root,
                const char  *key,
                GError     **error,
                const char  *message)
{
  return bpw_json_doc_error (doc, json_object_get_member (root, key), key, error, "%s", message);
}

static gboolean
execution_read (BpwJsonDoc           *doc,
                JsonObject           *root,
                BpwScenario          *scenario,
                BpwParallel          *parallel,
                BpwCalculonExecution *exec,
                GError              **error)
{
  gint64 tp = 0, pp = 0, dp = 0, batch = 0, mbs = 0, v = 0, procs = 0;
  int datatype = 0, attention = 0, recompute = 0, comm = 0, overlap = 0;
  gint64 tp_pp, tp_pp_dp;

#define GET_INT(key, out) \
  bpw_json_doc_get_int (doc, root, "", key, TRUE, 1, G_MAXINT32, out, error)
#define GET_NET(key, out) \
  bpw_json_doc_get_int (doc, root, "", key, TRUE, 0, 1024, out, error)
#define GET_BOOL(key, out) \
  bpw_json_doc_get_bool (doc, root, "", key, TRUE, out, error)
#define GET_ENUM(key, names, out) \
  bpw_json_doc_get_enum (doc, root, "", key, TRUE, names, out, error)

  if (!GET_INT ("num_procs", &procs) || !GET_INT ("tensor_par", &tp)
      || !GET_INT ("pipeline_par", &pp) || !GET_INT ("data_par", &dp)
      || !GET_NET ("tensor_par_net", &exec->tensor_par_net)
      || !GET_NET ("pipeline_par_net", &exec->pipeline_par_net)
      || !GET_NET ("data_par_net", &exec->data_par_net)
      || !GET_INT ("batch_size", &batch) || !GET_INT ("microbatch_size", &mbs)
      || !GET_ENUM ("datatype", datatype_names, &datatype)
      || !GET_BOOL ("fused_activation", &exec->fused_activation)
      || !GET_ENUM ("attention_type", attention_names, &attention)
      || !GET_ENUM ("activation_recompute", recompute_names, &recompute)
      || !GET_INT ("pipeline_interleaving", &v)
      || !GET_BOOL ("optimizer_sharding", &exec->optimizer_sharding)
      || !GET_ENUM ("tensor_par_comm_type", comm_type_names, &comm)
      || !GET_ENUM ("tensor_par_overlap", overlap_names, &overlap)
      || !GET_BOOL ("seq_par_ag_redo", &exec->seq_par_ag_redo)
      || !GET_BOOL ("data_par_overlap", &exec->data_par_overlap)
      || !GET_BOOL ("weight_offload", &exec->weight_offload)
      || !GET_BOOL ("activations_offload", &exec->activations_offload)
      || !GET_BOOL ("optimizer_offload", &exec->optimizer_offload)
      || !GET_BOOL ("training", &exec->training))
    return FALSE;

#undef GET_INT
#undef GET_NET
#undef GET_BOOL
#undef GET_ENUM

  exec->num_procs = procs;
  exec->tensor_par = tp;
  exec->pipeline_par = pp;
  exec->data_par = dp;
  exec->batch_size = batch;
  exec->microbatch_size = mbs;
  exec->pipeline_interleaving = v;
  exec->datatype = datatype_values[datatype];
  exec->attention_type = attention;
  exec->activation_recompute = recompute_values[recompute];
  exec->tensor_par_comm_type = comm;
  exec->tensor_par_overlap = overlap;

  /* Calculon's own consistency checks, each at the key a user would change. */
  if (__builtin_mul_overflow (tp, pp, &tp_pp) || __builtin_mul_overflow (tp_pp, dp, &tp_pp_dp)
      || tp_pp_dp != procs)
    return bpw_json_doc_error (doc, json_object_get_member (root, "num_procs"), "num_procs",
                               error, _("num_procs (%" PRId64 ") must equal tensor_par "
                               "\xc3\x97 pipeline_par \xc3\x97 data_par (%" PRId64
                               " \xc3\x97 %" PRId64 " \xc3\x97 %" PRId64 ")"),
                               procs, tp, pp, dp);
  if (batch % dp != 0)
    return bpw_json_doc_error (doc, json_object_get_member (root, "batch_size"), "batch_size",
                               error, _("batch_size (%" PRId64 ") must be divisible "
                               "by data_par (%" PRId64 ")"), batch, dp);
  if ((batch / dp) % mbs != 0)
    return bpw_json_doc_error (doc, json_object_get_member (root, "microbatch_size"),
                               "microbatch_size", error, _("microbatch_size (%" PRId64
                               ") must divide the batch per data-parallel replica (%"
                               PRId64 ")"), mbs, batch / dp);
  if (pp == 1 && v != 1)
    return execution_fail (doc, root, "pipeline_interleaving", error,
                           "pipeline_interleaving must be 1 without pipeline parallelism");
  if (exec->optimizer_sharding && dp == 1)
    return execution_fail (doc, root, "optimizer_sharding", error,
                           "optimizer_sharding needs data_par > 1");
  if (exec->tensor_par_overlap != BPW_CALCULON_TP_OVERLAP_NONE && tp == 1)
    return execution_fail (doc, root, "tensor_par_overlap", error,
                           "tensor_par_overlap needs tensor_par > 1");
  if (exec->data_par_overlap && (dp == 1 || !exec->training))
    return execution_fail (doc, root, "data_par_overlap", error,
                           "data_par_overlap needs training and data_par > 1");
  if (exec->seq_par_ag_redo && exec->activation_recompute == BPW_RECOMPUTE_FULL)
    return execution_fail (doc, root, "seq_par_ag_redo", error,
                           "seq_par_ag_redo cannot be combined with full recompute");
  if (!exec->training && (exec->optimizer_offload || recompute_values[recompute]
                                                     != BPW_RECOMPUTE_NONE))
    return execution_fail (doc, root, "training", error,
                           "recompute and optimizer offload apply only when training");

  bpw_calculon_execution_apply (exec, scenario, parallel);
  return TRUE;
}

static gboolean
execution_load_doc (BpwJsonDoc           *doc,
                    BpwScenario          *scenario,
                    BpwParallel          *parallel,
                    BpwCalculonExecution *exec,
                    GPtrArray            *warnings,
                    GError              **error)
{
  BpwCalculonExecution local_exec = { 0 };
  BpwScenario tmp_scenario;
  BpwParallel tmp_parallel;
  JsonNode *root = bpw_json_doc_get_root (doc);

  if (!bpw_calculon_execution_detect (root))
    return bpw_json_doc_error (doc, root, "", error,
                               _("not a Calculon execution file: expected tensor_par, "
                               "pipeline_par and data_par"));
  _bpw_workload_check_unknown (doc, json_node_get_object (root), "", execution_keys, warnings);

  /* Work on copies so that a failure leaves the caller's values untouched; only plain
   * fields change, the copy shares the caller's strings. */
  tmp_scenario = *scenario;
  tmp_parallel = *parallel;
  if (!execution_read (doc, json_node_get_object (root), &tmp_scenario, &tmp_parallel,
                       &local_exec, error))
    return FALSE;
  *scenario = tmp_scenario;
  *parallel = tmp_parallel;
  if (exec != NULL)
    *exec = local_exec;
  return TRUE;
}

gboolean
bpw_calculon_execution_load_data (const char           *filename,
                                  const char           *data,
                                  gssize                length,
                                  BpwScenario          *scenario,
                                  BpwParallel          *parallel,
                                  BpwCalculonExecution *exec,
                                  GPtrArray            *warnings,
                                  GError              **error)
{
  g_autoptr(BpwJsonDoc) doc = NULL;

  g_return_val_if_fail (filename != NULL && data != NULL, FALSE);
  g_return_val_if_fail (scenario != NULL && parallel != NULL, FALSE);

  doc = bpw_json_doc_new_from_data (filename, data, length, error);
  if (doc == NULL)
    return FALSE;
  return execution_load_doc (doc, scenario, parallel, exec, warnings, error);
}

gboolean
bpw_calculon_execution_load_full (const char           *path,
                                  BpwScenario          *scenario,
                                  BpwParallel          *parallel,
                                  BpwCalculonExecution *exec,
                                  GPtrArray            *warnings,
                                  GError              **error)
{
  g_autoptr(BpwJsonDoc) doc = NULL;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (scenario != NULL && parallel != NULL, FALSE);

  doc = bpw_json_doc_new_from_file (path, error);
  if (doc == NULL)
    return FALSE;
  return execution_load_doc (doc, scenario, parallel, exec, warnings, error);
}

gboolean
bpw_calculon_execution_load (const char   *path,
                             BpwScenario  *scenario,
                             BpwParallel  *parallel,
                             GError      **error)
{
  return bpw_calculon_execution_load_full (path, scenario, parallel, NULL, NULL, error);
}

void
bpw_calculon_execution_apply_to_model (const BpwCalculonExecution *exec,
                                       BpwDType                    datatype,
                                       BpwModelSpec               *spec)
{
  g_return_if_fail (exec != NULL && spec != NULL);

  /* Calculon's multi-query projects K and V to one head of attn_size. */
  if (exec->attention_type == BPW_CALCULON_ATTENTION_MULTIQUERY)
    spec->kv_heads = 1;
  /* Its weights, gradients and activations are all in the execution's datatype. */
  spec->param_dtype = datatype;
  spec->activation_dtype = datatype;
  spec->gradient_dtype = datatype;
}
