/* bpw-test-oracle.h — the oracle tests' own closed forms and assertion helpers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Independent of the implementation: every formula here is written from the published sources
 * (REFERENCES.md §1–§3), using only the spec's fields.
 */
#pragma once

#include "bpw-core.h"

G_BEGIN_DECLS

/* ---- non-fatal assertions that print both values (g_test_set_nonfatal_assertions) ---- */

char    *bpw_oracle_u128_str        (BpwU128             value);
void     bpw_oracle_check_u128      (BpwU128             got,
                                     BpwU128             want,
                                     const char         *what,
                                     const char         *file,
                                     int                 line,
                                     const char         *func);
void     bpw_oracle_check_near      (double              got,
                                     double              want,
                                     double              tol_rel,
                                     double              tol_abs,
                                     const char         *what,
                                     const char         *file,
                                     int                 line,
                                     const char         *func);
void     bpw_oracle_check_range     (double              got,
                                     double              low,
                                     double              high,
                                     const char         *what,
                                     const char         *file,
                                     int                 line,
                                     const char         *func);

#define oracle_check_range(got, low, high, what) \
  bpw_oracle_check_range ((double) (got), (double) (low), (double) (high), (what), \
                          __FILE__, __LINE__, G_STRFUNC)
#define oracle_check_u128(got, want, what) \
  bpw_oracle_check_u128 ((got), (want), (what), __FILE__, __LINE__, G_STRFUNC)
#define oracle_check_rel(got, want, tol, what) \
  bpw_oracle_check_near ((double) (got), (double) (want), (tol), 0.0, (what), \
                         __FILE__, __LINE__, G_STRFUNC)
/* Exact up to a few bytes where a division by DP or TP may round either way. */
#define oracle_check_bytes(got, want, what) \
  bpw_oracle_check_near ((double) (got), (double) (want), 0.0, 64.0, (what), \
                         __FILE__, __LINE__, G_STRFUNC)

/* ---- closed forms ---- */

guint    bpw_oracle_dtype_bytes     (BpwDType            dtype);
guint    bpw_oracle_grad_bytes      (const BpwModelSpec *spec);
/* Moments plus a master copy when it differs from the weights: ZeRO's K. */
guint    bpw_oracle_optimizer_bytes (const BpwModelSpec *spec);

gboolean bpw_oracle_is_moe_layer    (const BpwModelSpec *spec,
                                     gint64              layer);
gint64   bpw_oracle_expert_ffn      (const BpwModelSpec *spec);
guint64  bpw_oracle_layer_parameters (const BpwModelSpec *spec,
                                      gint64              layer,
                                      gboolean            active);
guint64  bpw_oracle_parameters      (const BpwModelSpec *spec,
                                     gboolean            active);
/* Forward matmul FLOPs of one token (full s x s attention matrix, logits included). */
BpwU128  bpw_oracle_forward_matmul_per_token (const BpwModelSpec *spec,
                                              gint64              seq);
/* Megatron/PaLM model FLOPs: 3 x forward matmuls over batch x seq tokens. */
BpwU128  bpw_oracle_model_flops     (const BpwModelSpec *spec,
                                     gint64              batch,
                                     gint64              seq);

/* ---- setup ---- */

/* A GPT-3-style spec: MHA, GeLU, LayerNorm, learned positions, tied, biases, dropout, bf16
 * weights and gradients, Adam with fp32 moments and master copy. */
void     bpw_oracle_gpt_spec        (BpwModelSpec       *spec,
                                     const char         *name,
                                     gint64              vocab,
                                     gint64              hidden,
                                     gint64              layers,
                                     gint64              heads,
                                     gint64              head_dim,
                                     gint64              ffn,
                                     gint64              positions);
/* Llama-2-7B (Touvron et al. 2023): MHA, SwiGLU, RMSNorm, rotary, untied, no bias. */
void     bpw_oracle_llama2_7b_spec  (BpwModelSpec       *spec);
/* Megatron Eq. (2) plus the final LayerNorm, for GPT-style specs with f = 4h and a·d = h. */
guint64  bpw_oracle_gpt_parameters  (const BpwModelSpec *spec);
/* One Llama-style block (GQA, SwiGLU, two RMSNorms, no bias). */
guint64  bpw_oracle_llama_layer_parameters (const BpwModelSpec *spec);
/* Calculon's models/<file> from tests/data/reference/calculon as a GPT-style spec with
 * vocabulary 51200, fp16. FALSE when the file is missing. */
gboolean bpw_oracle_calculon_spec   (const char         *file,
                                     BpwModelSpec       *spec,
                                     gint64             *seq);
void     bpw_oracle_lookup          (const char         *name,
                                     BpwModelSpec       *spec);
void     bpw_oracle_scenario        (BpwScenario        *scenario,
                                     BpwWorkloadPhase    phase,
                                     gint64              batch,
                                     gint64              micro,
                                     gint64              seq,
                                     gint64              context,
                                     BpwRecompute        recompute);
void     bpw_oracle_parallel        (BpwParallel        *parallel,
                                     gint64              tp,
                                     gint64              pp,
                                     gint64              dp,
                                     gboolean            sp,
                                     gint                zero);
gboolean bpw_oracle_compute         (const BpwModelSpec *spec,
                                     const BpwScenario  *scenario,
                                     const BpwParallel  *parallel,
                                     BpwFacts           *facts);
BpwDistWork *bpw_oracle_distribute  (const BpwModelSpec *spec,
                                     const BpwScenario  *scenario,
                                     const BpwParallel  *parallel);
/* The report's total for one named addition, wherever in the array it sits. */
BpwU128  bpw_oracle_addition_flops  (const BpwConservation *report,
                                     BpwAddition            addition);

G_END_DECLS
