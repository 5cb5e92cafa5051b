/* bpw-workload-io.h — every workload-side input format: native, Hugging Face, Calculon
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-json-doc.h"
#include "bpw-model-spec.h"
#include "bpw-scenario.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_WORKLOAD_FORMAT_UNKNOWN,
  BPW_WORKLOAD_FORMAT_NATIVE,       /* {"format": "bpw-workload", "version": 1, "model": {...}} */
  BPW_WORKLOAD_FORMAT_HF,           /* Hugging Face config.json */
  BPW_WORKLOAD_FORMAT_CALCULON,     /* Calculon application (model) JSON */
} BpwWorkloadFormat;

#define BPW_WORKLOAD_FORMAT_VERSION 1

/* Calculon's hard-coded vocabulary (its parameter calculator counts 51,200 tokens). */
#define BPW_CALCULON_DEFAULT_VOCAB 51200

/* Which of the formats above @root is, judged by content alone. */
BpwWorkloadFormat bpw_workload_detect_format (JsonNode *root);

/* @path_or_name is a bundled model name ("gpt3-175b") or a file in any of the formats above.
 * @spec is overwritten (cleared first); on failure it is left cleared and defaulted.
 * Unknown fields are not errors; bpw_workload_load_with_warnings() returns them. */
gboolean  bpw_workload_load       (const char   *path_or_name,
                                   BpwModelSpec *spec,
                                   GError      **error);
/* @vocab_override (0 = none) replaces the vocabulary of any format (Calculon files have
 * none; their default is BPW_CALCULON_DEFAULT_VOCAB). @scenario_hint (nullable) receives
 * what a model file knows of the scenario: Calculon's seq_size sets scenario_hint->seq. */
gboolean  bpw_workload_load_full  (const char   *path_or_name,
                                   gint64        vocab_override,
                                   BpwModelSpec *spec,
                                   BpwScenario  *scenario_hint,
                                   GError      **error);
/* As bpw_workload_load_full(); @warnings (nullable, element-type utf8, owned strings with a
 * free func) receives "FILE:LINE:COL: PATH: unknown field" lines. */
gboolean  bpw_workload_load_with_warnings (const char   *path_or_name,
                                           gint64        vocab_override,
                                           BpwModelSpec *spec,
                                           BpwScenario  *scenario_hint,
                                           GPtrArray    *warnings,
                                           GError      **error);
/* The same from memory; @filename is used in messages and as spec->source. */
gboolean  bpw_workload_load_data  (const char   *filename,
                                   const char   *data,
                                   gssize        length,
                                   gint64        vocab_override,
                                   BpwModelSpec *spec,
                                   BpwScenario  *scenario_hint,
                                   GPtrArray    *warnings,
                                   GError      **error);

/* Reads one native model object (the value of "model") at JSON path @path from @doc,
 * validates it and locates any error. Used by the study reader for inline models. */
gboolean  bpw_workload_read_model_object (BpwJsonDoc   *doc,
                                          JsonObject   *object,
                                          const char   *path,
                                          BpwModelSpec *spec,
                                          GPtrArray    *warnings,
                                          GError      **error);

/* The native model object / whole native file for @spec. */
JsonNode *bpw_workload_model_to_node (const BpwModelSpec *spec);
char     *bpw_workload_to_json      (const BpwModelSpec *spec);

/* Calculon execution JSON ----------------------------------------------------------- */

typedef enum
{
  BPW_CALCULON_TP_COMM_AR,         /* Megatron all-reduce TP */
  BPW_CALCULON_TP_COMM_P2P_RS_AG,  /* all-reduce inside a chunk, RS/AG at pipeline edges */
  BPW_CALCULON_TP_COMM_RS_AG,      /* sequence parallelism */
} BpwCalculonTpComm;

typedef enum
{
  BPW_CALCULON_TP_OVERLAP_NONE,
  BPW_CALCULON_TP_OVERLAP_RING,
  BPW_CALCULON_TP_OVERLAP_PIPE,
} BpwCalculonTpOverlap;

typedef enum
{
  BPW_CALCULON_ATTENTION_MULTIHEAD,
  BPW_CALCULON_ATTENTION_MULTIQUERY,
} BpwCalculonAttention;

/* The knobs of a Calculon execution that have no place in BpwScenario / BpwParallel,
 * kept so that an evaluation can honour them (or say which it ignores). */
typedef struct
{
  gint64               num_procs;
  /* What BpwScenario and BpwParallel also hold, kept here so that the execution is whole
   * (Calculon's own model, bpw-calculon-model.h, reads nothing else). */
  gint64               tensor_par, pipeline_par, data_par;
  gint64               batch_size, microbatch_size;
  gint64               pipeline_interleaving;
  BpwDType             datatype;
  gint64               tensor_par_net;     /* network tier index for TP traffic */
  gint64               pipeline_par_net;
  gint64               data_par_net;
  BpwCalculonTpComm    tensor_par_comm_type;
  BpwCalculonTpOverlap tensor_par_overlap;
  BpwCalculonAttention attention_type;
  BpwRecompute         activation_recompute;  /* as mapped into the scenario */
  gboolean             fused_activation;
  gboolean             seq_par_ag_redo;
  gboolean             data_par_overlap;
  gboolean             optimizer_sharding;
  gboolean             weight_offload;
  gboolean             activations_offload;
  gboolean             optimizer_offload;
  gboolean             training;
} BpwCalculonExecution;

/* Maps a Calculon execution file onto @scenario and @parallel, setting only the fields
 * the file determines: phase (training ? train : prefill), global_batch, micro_batch,
 * dtype, recompute (full -> full, attn_only -> selective, none -> none); tp, pp, dp,
 * ep = 1, sp (rs_ag or p2p_rs_ag), zero (optimizer_sharding -> 2: Calculon shards the
 * optimizer state *and* the weight-gradient storage over DP, which is ZeRO stage 2),
 * schedule (1f1b, or interleaved with interleave = pipeline_interleaving > 1).
 * Other fields (seq, kv dtype, SLAs) keep their values. All 23 keys are required, as
 * Calculon asserts; its consistency checks (num_procs = tp*pp*dp, batch divisible by dp,
 * micro-batch dividing the local batch) are errors located at the offending key. */
gboolean  bpw_calculon_execution_load      (const char           *path,
                                            BpwScenario          *scenario,
                                            BpwParallel          *parallel,
                                            GError              **error);
/* @exec and @warnings are nullable. */
gboolean  bpw_calculon_execution_load_full (const char           *path,
                                            BpwScenario          *scenario,
                                            BpwParallel          *parallel,
                                            BpwCalculonExecution *exec,
                                            GPtrArray            *warnings,
                                            GError              **error);
gboolean  bpw_calculon_execution_load_data (const char           *filename,
                                            const char           *data,
                                            gssize                length,
                                            BpwScenario          *scenario,
                                            BpwParallel          *parallel,
                                            BpwCalculonExecution *exec,
                                            GPtrArray            *warnings,
                                            GError              **error);
/* Sets the fields of @scenario and @parallel that the execution determines (as
 * bpw_calculon_execution_load() describes); the others keep their values. */
void      bpw_calculon_execution_apply     (const BpwCalculonExecution *exec,
                                            BpwScenario                *scenario,
                                            BpwParallel                *parallel);
/* What the execution changes in the model: multiquery -> kv_heads = 1, and weights,
 * gradients and activations in @datatype (the scenario's dtype after loading). */
void      bpw_calculon_execution_apply_to_model (const BpwCalculonExecution *exec,
                                                 BpwDType                    datatype,
                                                 BpwModelSpec               *spec);
/* TRUE when @root looks like a Calculon execution file (has "tensor_par" and
 * "pipeline_par" and "data_par"). */
gboolean  bpw_calculon_execution_detect    (JsonNode             *root);

G_END_DECLS
