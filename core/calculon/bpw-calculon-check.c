/* bpw-calculon-check.c — what Calculon's model accepts: the application and the execution
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Calculon asserts these (Llm.Application, Llm.Execution, Llm.compile() of
 * calculon-ai/calculon @ caa4b11, Apache License 2.0; see bpw-calculon-model.h for the
 * NOTICE and the changes); here they are located errors, so that a hand-written execution
 * says what is wrong instead of stopping the program.
 */
#define G_LOG_DOMAIN "bpw-calculon-check"

#include "config.h"

#include <stdarg.h>

#include "bpw-calculon-model-private.h"
#include "bpw-error.h"
#include "bpw-i18n.h"

static gboolean
bpw_calculon_check_fail (GError    **error,
                         const char *field,
                         const char *format,
                         ...) G_GNUC_PRINTF (3, 4);

static gboolean
bpw_calculon_check_fail (GError    **error,
                         const char *field,
                         const char *format,
                         ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "%s: %s", field, message);
  return FALSE;
}

/* The model's largest integers (a layer's FLOPs, the attention scores of a micro-batch and
 * their FLOPs, a reduction's element count × TP) stay exact in 64 bits, as they are in
 * Python, with room for the byte and user factors. Checked with every head on one rank,
 * the most a TP up to @max_tensor_par can leave there. */
gboolean
_bpw_calculon_sizes_fit (const BpwCalculonApp *app,
                         gint64                microbatch_size,
                         gint64                max_tensor_par)
{
  const gint64 limit = G_GINT64_CONSTANT (1) << 56;
  gint64 qkv, widest, batch_seq, rows, flops, reduce, heads, square, scores, bmm;

#define MUL(a, b, out) (!__builtin_mul_overflow ((a), (b), (out)) && *(out) < limit)
  if (!MUL (3 * MIN (app->attn_heads, limit), app->attn_size, &qkv))
    return FALSE;
  widest = MAX (MAX (app->hidden, app->feedforward), qkv);
  return MUL (microbatch_size, app->seq_size, &batch_seq)
         && MUL (batch_seq, widest, &rows)
         && MUL (rows, 4 * MIN (widest, limit), &flops)
         && MUL (rows, max_tensor_par, &reduce)
         && MUL (microbatch_size, app->attn_heads, &heads)
         && MUL (app->seq_size, app->seq_size + MIN (app->attn_size, limit), &square)
         && MUL (heads, square, &scores)
         && MUL (scores, 4 * MIN (app->attn_size, limit), &bmm);
#undef MUL
}

gboolean
bpw_calculon_execution_check (const BpwCalculonApp       *app,
                              const BpwCalculonSystem    *system,
                              const BpwCalculonExecution *exe,
                              GError                    **error)
{
  gint64 tp = exe->tensor_par;
  gint64 nets[3] = { exe->tensor_par_net, exe->pipeline_par_net, exe->data_par_net };
  static const char * const net_keys[3] = { "tensor_par_net", "pipeline_par_net",
                                            "data_par_net" };

  g_return_val_if_fail (app != NULL && system != NULL && exe != NULL, FALSE);

  if (exe->tensor_par < 1 || exe->pipeline_par < 1 || exe->data_par < 1
      || exe->tensor_par * exe->pipeline_par * exe->data_par != exe->num_procs)
    return bpw_calculon_check_fail (error, "num_procs", _("tensor * pipeline * data "
                                    "parallelism must equal num_procs"));
  if (exe->batch_size < 1 || exe->microbatch_size < 1 || exe->batch_size % exe->data_par != 0
      || (exe->batch_size / exe->data_par) % exe->microbatch_size != 0)
    return bpw_calculon_check_fail (error, "microbatch_size", _("the micro-batch must divide "
                                    "the batch per data-parallel replica"));
  for (guint g = 0; g < 3; g++)
    if (nets[g] < 0 || nets[g] >= (gint64) system->n_networks)
      return bpw_calculon_check_fail (error, net_keys[g], _("tier %" PRId64
                                      " does not exist: the system has %u"), nets[g],
                                      system->n_networks);
  if (!_bpw_calculon_sizes_fit (app, exe->microbatch_size, tp))
    return bpw_calculon_check_fail (error, "microbatch_size", _("the model is too large for "
                                    "exact 64-bit sizes at this micro-batch"));
  if (app->hidden % tp != 0)
    return bpw_calculon_check_fail (error, "tensor_par", _("hidden (%" PRId64 ") must "
                                    "split evenly between %" PRId64 " TP partitions"),
                                    app->hidden, tp);
  if (app->feedforward % tp != 0)
    return bpw_calculon_check_fail (error, "tensor_par", _("feedforward (%" PRId64
                                    ") must split evenly between %" PRId64
                                    " TP partitions"), app->feedforward, tp);
  if (app->attn_heads % tp != 0)
    return bpw_calculon_check_fail (error, "tensor_par", _("attn_heads (%" PRId64
                                    ") must split evenly between %" PRId64
                                    " TP partitions"), app->attn_heads, tp);
  if (exe->tensor_par_comm_type != BPW_CALCULON_TP_COMM_AR
      && (exe->microbatch_size * app->seq_size) % tp != 0)
    return bpw_calculon_check_fail (error, "microbatch_size", _("micro-batch \xc3\x97 seq_size "
                                    "must split evenly between %" PRId64
                                    " TP partitions"), tp);
  if (exe->pipeline_par == 1 && exe->pipeline_interleaving != 1)
    return bpw_calculon_check_fail (error, "pipeline_interleaving", _("must be 1 with PP=1"));
  if (exe->pipeline_interleaving < 1)
    return bpw_calculon_check_fail (error, "pipeline_interleaving", _("must be at least 1"));
  if (exe->optimizer_sharding && exe->data_par == 1)
    return bpw_calculon_check_fail (error, "optimizer_sharding", _("needs DP > 1"));
  if (exe->tensor_par_overlap != BPW_CALCULON_TP_OVERLAP_NONE && tp == 1)
    return bpw_calculon_check_fail (error, "tensor_par_overlap", _("needs TP > 1"));
  if (exe->seq_par_ag_redo && (exe->tensor_par_comm_type != BPW_CALCULON_TP_COMM_RS_AG
                               || exe->activation_recompute == BPW_RECOMPUTE_FULL))
    return bpw_calculon_check_fail (error, "seq_par_ag_redo", _("needs rs_ag and no full "
                                    "recompute"));
  if (exe->data_par_overlap && (!exe->training || exe->data_par == 1))
    return bpw_calculon_check_fail (error, "data_par_overlap", _("needs training and DP > 1"));
  if (!exe->training && (exe->optimizer_offload
                         || exe->activation_recompute != BPW_RECOMPUTE_NONE))
    return bpw_calculon_check_fail (error, "training", _("recompute and optimizer offload "
                                    "apply only when training"));
  if ((exe->weight_offload || exe->activations_offload || exe->optimizer_offload)
      && !(system->mem2_bandwidth > 0))
    return bpw_calculon_check_fail (error, "weight_offload", _("offloading needs a second "
                                    "memory tier (mem2) with bandwidth"));
  return TRUE;
}

gboolean
bpw_calculon_app_from_spec (const BpwModelSpec *spec,
                            gint64              seq,
                            BpwCalculonApp     *app,
                            GError            **error)
{
  g_return_val_if_fail (spec != NULL && app != NULL, FALSE);

  if (spec->experts > 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_UNSUPPORTED, _("%s: Calculon's model has no "
                   "mixture of experts"), spec->name);
      return FALSE;
    }
  if (spec->ffn_kind != BPW_FFN_GELU)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_UNSUPPORTED, _("%s: Calculon's MLP is two "
                   "matrices with a GeLU; this model's is gated"), spec->name);
      return FALSE;
    }
  if (spec->kv_heads != spec->heads && spec->kv_heads != 1)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_UNSUPPORTED, _("%s: Calculon's attention is "
                   "multi-head or multi-query; this model groups %" PRId64
                   " KV heads"), spec->name, spec->kv_heads);
      return FALSE;
    }
  if (bpw_model_spec_window_layers (spec) > 0 && seq > spec->window)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_UNSUPPORTED, _("%s: Calculon's attention "
                   "covers the whole sequence; this model attends through a window of %"
                   PRId64 " tokens"), spec->name, spec->window);
      return FALSE;
    }
  *app = (BpwCalculonApp) {
    .hidden = spec->hidden,
    .feedforward = spec->ffn,
    .seq_size = seq,
    .attn_heads = spec->heads,
    .attn_size = spec->head_dim,
    .num_blocks = spec->layers,
  };
  return TRUE;
}
