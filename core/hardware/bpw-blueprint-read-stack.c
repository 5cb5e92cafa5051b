/* bpw-blueprint-read-stack.c — the optional "stack" member of a native blueprint
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The software stack a blueprint was measured with: attention kernel, the fusions it
 * performs, AMP precision, optimizer implementation, element-wise fusion, launch mode per
 * phase and MoE dispatch. Every number is a {value, kind, source} quantity bounded to a sane
 * range; every problem is an error located at the member (file:line:col and JSON path).
 */
#define G_LOG_DOMAIN "bpw-blueprint-read"

#include "config.h"

#include "bpw-blueprint-private.h"
#include "bpw-i18n.h"

static const char * const attention_choices[] = { "flash", "materialized", NULL };
static const char * const master_choices[] = { "fp32", "none", NULL };
static const char * const logits_choices[] = { "fp32", "compute", NULL };
static const char * const optimizer_choices[] = { "fused", "foreach", "per-tensor", NULL };
static const char * const elementwise_choices[] = { "unfused", "fused", NULL };
static const char * const launch_choices[] = { "eager", "graph", NULL };
static const char * const moe_choices[] = { "loop", "grouped", NULL };
static const char * const fusion_names[] = {
  "attention", "bias_activation", "norm_residual", "optimizer", NULL
};
static const char * const phase_names[] = { "train", "prefill", "decode", NULL };

G_STATIC_ASSERT (G_N_ELEMENTS (fusion_names) == BPW_STACK_N_FUSIONS + 1);
G_STATIC_ASSERT (G_N_ELEMENTS (phase_names) == BPW_STACK_N_PHASES + 1);

const char *
bpw_stack_fusion_name (guint i)
{
  return i < BPW_STACK_N_FUSIONS ? fusion_names[i] : NULL;
}

const char *
bpw_stack_attention_to_string (BpwStackAttention attention)
{
  return attention == BPW_STACK_ATTENTION_FLASH ? "flash"
         : attention == BPW_STACK_ATTENTION_MATERIALIZED ? "materialized" : "default";
}

const char *
bpw_stack_launch_to_string (BpwStackLaunch launch)
{
  return launch == BPW_STACK_LAUNCH_GRAPH ? "graph" : "eager";
}

const char *
bpw_stack_optimizer_to_string (BpwStackOptimizer optimizer)
{
  g_return_val_if_fail (optimizer <= BPW_STACK_OPTIMIZER_PER_TENSOR, "?");
  return optimizer_choices[optimizer];
}

const char *
bpw_stack_phase_to_string (BpwStackPhase phase)
{
  g_return_val_if_fail (phase < BPW_STACK_N_PHASES, "?");
  return phase_names[phase];
}

/* An optional sub-object: NULL and TRUE when absent. */
static gboolean
get_object (BpwBlueprintReader *r, JsonObject *parent, const char *path, const char *member,
            JsonObject **out, GError **error)
{
  GError *local = NULL;

  *out = bpw_json_doc_get_object (r->doc, parent, path, member, FALSE, &local);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_fusion (BpwBlueprintReader *r, JsonObject *stack, BpwStack *st, GError **error)
{
  GError *local = NULL;
  JsonArray *arr = bpw_json_doc_get_array (r->doc, stack, "stack", "fusion", FALSE, &local);

  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (arr == NULL)
    return TRUE;
  st->has_fusion = TRUE;
  st->fusion = 0;
  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      JsonNode *node = json_array_get_element (arr, i);
      g_autofree char *p = g_strdup_printf ("stack.fusion[%u]", i);
      const char *name = _bpw_blueprint_read_string_element (r, node, p, error);
      guint f;

      if (name == NULL)
        return FALSE;
      for (f = 0; f < BPW_STACK_N_FUSIONS; f++)
        if (g_strcmp0 (name, fusion_names[f]) == 0)
          break;
      if (f == BPW_STACK_N_FUSIONS)
        return bpw_json_doc_error (r->doc, node, p, error,
                                   _("expected one of attention, bias_activation, "
                                   "norm_residual, optimizer, got \"%s\""), name);
      if (st->fusion & (1u << f))
        return bpw_json_doc_error (r->doc, node, p, error,
                                   _("\"%s\" is listed twice"), name);
      st->fusion |= 1u << f;
    }
  return TRUE;
}

static gboolean
read_precision (BpwBlueprintReader *r, JsonObject *stack, BpwStack *st, GError **error)
{
  static const char * const known[] = { "master_weights", "logits", NULL };
  JsonObject *obj;
  int master = 1, logits = 1;

  if (!get_object (r, stack, "stack", "precision", &obj, error))
    return FALSE;
  if (obj == NULL)
    return TRUE;
  _bpw_blueprint_warn_unknown (r, obj, "stack.precision", known);
  if (!bpw_json_doc_get_enum (r->doc, obj, "stack.precision", "master_weights", FALSE,
                              master_choices, &master, error)
      || !bpw_json_doc_get_enum (r->doc, obj, "stack.precision", "logits", FALSE,
                                 logits_choices, &logits, error))
    return FALSE;
  st->fp32_master = master == 0;
  st->fp32_logits = logits == 0;
  return TRUE;
}

static gboolean
read_optimizer (BpwBlueprintReader *r, JsonObject *stack, BpwStack *st, GError **error)
{
  static const char * const known[] = {
    "implementation", "bytes_per_parameter", "kernels_per_tensor", "kernels_per_parameter", NULL
  };
  const char *path = "stack.optimizer";
  JsonObject *obj;
  int impl = BPW_STACK_OPTIMIZER_FUSED;

  if (!get_object (r, stack, "stack", "optimizer", &obj, error))
    return FALSE;
  if (obj == NULL)
    return TRUE;
  _bpw_blueprint_warn_unknown (r, obj, path, known);
  if (!bpw_json_doc_get_enum (r->doc, obj, path, "implementation", TRUE, optimizer_choices,
                              &impl, error)
      || !_bpw_blueprint_read_value (r, obj, path, "bytes_per_parameter", FALSE, BPW_UNIT_NONE,
                                     G_MINDOUBLE, BPW_STACK_MAX_BYTES_PER_PARAMETER, FALSE,
                                     &st->optimizer_bytes_per_parameter, error)
      || !_bpw_blueprint_read_value (r, obj, path, "kernels_per_tensor", FALSE, BPW_UNIT_NONE,
                                     G_MINDOUBLE, BPW_STACK_MAX_KERNELS_PER_TENSOR, FALSE,
                                     &st->optimizer_kernels_per_tensor, error)
      || !_bpw_blueprint_read_value (r, obj, path, "kernels_per_parameter", FALSE,
                                     BPW_UNIT_NONE, G_MINDOUBLE,
                                     BPW_STACK_MAX_KERNELS_PER_PARAMETER, FALSE,
                                     &st->optimizer_kernels_per_parameter, error))
    return FALSE;
  st->has_optimizer = TRUE;
  st->optimizer = impl;
  return TRUE;
}

static gboolean
read_launch (BpwBlueprintReader *r, JsonObject *stack, BpwStack *st, GError **error)
{
  static const char * const known[] = {
    "train", "prefill", "decode", "eager_gap", "train_eager_gap", "graph_gap",
    "eager_device_gap", NULL
  };
  const char *path = "stack.launch";
  gboolean eager = FALSE, train_eager = FALSE, graph = FALSE;
  JsonObject *obj;

  if (!get_object (r, stack, "stack", "launch", &obj, error))
    return FALSE;
  if (obj == NULL)
    return TRUE;
  _bpw_blueprint_warn_unknown (r, obj, path, known);
  for (guint p = 0; p < BPW_STACK_N_PHASES; p++)
    {
      int mode = BPW_STACK_LAUNCH_EAGER;

      if (!bpw_json_doc_get_enum (r->doc, obj, path, phase_names[p], FALSE, launch_choices,
                                  &mode, error))
        return FALSE;
      st->launch[p] = mode;
      if (p == BPW_STACK_PHASE_TRAIN)
        train_eager = mode == BPW_STACK_LAUNCH_EAGER;
      else
        eager |= mode == BPW_STACK_LAUNCH_EAGER;
      graph |= mode == BPW_STACK_LAUNCH_GRAPH;
    }
  /* A phase not stated runs eagerly; each mode in use needs its gap. A file with one
   * eager_gap (written before training had its own) states it for every phase. */
  train_eager &= !json_object_has_member (obj, "train_eager_gap");
  if (!_bpw_blueprint_read_value (r, obj, path, "eager_gap", eager || train_eager,
                                  BPW_UNIT_SECONDS, G_MINDOUBLE, BPW_BLUEPRINT_MAX_LATENCY,
                                  FALSE, &st->eager_gap, error)
      || !_bpw_blueprint_read_value (r, obj, path, "train_eager_gap", FALSE, BPW_UNIT_SECONDS,
                                     G_MINDOUBLE, BPW_BLUEPRINT_MAX_LATENCY, FALSE,
                                     &st->train_eager_gap, error)
      || !_bpw_blueprint_read_value (r, obj, path, "graph_gap", graph, BPW_UNIT_SECONDS,
                                     G_MINDOUBLE, BPW_BLUEPRINT_MAX_LATENCY, FALSE,
                                     &st->graph_gap, error)
      || !_bpw_blueprint_read_value (r, obj, path, "eager_device_gap", FALSE, BPW_UNIT_SECONDS,
                                     G_MINDOUBLE, BPW_BLUEPRINT_MAX_LATENCY, FALSE,
                                     &st->eager_device_gap, error))
    return FALSE;
  if (!st->train_eager_gap.set && st->eager_gap.set)
    st->train_eager_gap = st->eager_gap;
  st->has_launch = TRUE;
  return TRUE;
}

static gboolean
read_moe_dispatch (BpwBlueprintReader *r, JsonObject *stack, BpwStack *st, GError **error)
{
  static const char * const known[] = { "implementation", "per_expert", NULL };
  const char *path = "stack.moe_dispatch";
  JsonObject *obj;
  int impl = 1;

  if (!get_object (r, stack, "stack", "moe_dispatch", &obj, error))
    return FALSE;
  if (obj == NULL)
    return TRUE;
  _bpw_blueprint_warn_unknown (r, obj, path, known);
  if (!bpw_json_doc_get_enum (r->doc, obj, path, "implementation", TRUE, moe_choices, &impl,
                              error)
      || !_bpw_blueprint_read_value (r, obj, path, "per_expert", FALSE, BPW_UNIT_SECONDS,
                                     G_MINDOUBLE, BPW_BLUEPRINT_MAX_LATENCY, FALSE,
                                     &st->moe_per_expert, error))
    return FALSE;
  st->has_moe_dispatch = TRUE;
  st->moe_loop = impl == 0;
  return TRUE;
}

gboolean
_bpw_blueprint_read_stack (BpwBlueprintReader *r,
                           JsonObject         *root,
                           GError            **error)
{
  static const char * const known[] = {
    "name", "source", "attention", "fusion", "precision", "optimizer", "elementwise",
    "elementwise_rate", "attention_efficiency", "launch", "moe_dispatch", "notes", NULL
  };
  BpwStack *st = &r->bp->stack;
  JsonObject *obj;
  const char *name = NULL, *source = NULL;
  int attention = -1, elementwise = 1;

  if (!get_object (r, root, "", "stack", &obj, error))
    return FALSE;
  if (obj == NULL)
    return TRUE;
  _bpw_blueprint_warn_unknown (r, obj, "stack", known);
  if (!bpw_json_doc_get_string (r->doc, obj, "stack", "name", FALSE, &name, error)
      || !bpw_json_doc_get_string (r->doc, obj, "stack", "source", FALSE, &source, error)
      || !bpw_json_doc_get_enum (r->doc, obj, "stack", "attention", FALSE, attention_choices,
                                 &attention, error)
      || !bpw_json_doc_get_enum (r->doc, obj, "stack", "elementwise", FALSE,
                                 elementwise_choices, &elementwise, error)
      || !_bpw_blueprint_read_value (r, obj, "stack", "elementwise_rate", FALSE, BPW_UNIT_NONE,
                                     G_MINDOUBLE, BPW_STACK_MAX_ELEMENTWISE_RATE, FALSE,
                                     &st->elementwise_rate, error))
    return FALSE;
  st->set = TRUE;
  st->name = bpw_blueprint_intern (r->bp, name);
  st->source = bpw_blueprint_intern (r->bp, source);
  st->attention = attention == 0 ? BPW_STACK_ATTENTION_FLASH
                  : attention == 1 ? BPW_STACK_ATTENTION_MATERIALIZED
                  : BPW_STACK_ATTENTION_DEFAULT;
  st->unfused_elementwise = elementwise == 0;
  {
    JsonObject *table;

    if (!get_object (r, obj, "stack", "attention_efficiency", &table, error)
        || (table != NULL
            && !_bpw_blueprint_read_table (r, table, "stack.attention_efficiency",
                                           &st->attention_efficiency, error)))
      return FALSE;
  }
  if (!read_fusion (r, obj, st, error)
      || !read_precision (r, obj, st, error)
      || !read_optimizer (r, obj, st, error)
      || !read_launch (r, obj, st, error)
      || !read_moe_dispatch (r, obj, st, error))
    return FALSE;
  /* "attention" and the "attention" fusion say one thing twice; a file must not say it two
   * ways, or which one holds would depend on the reader. */
  if (st->has_fusion && st->attention != BPW_STACK_ATTENTION_DEFAULT
      && !!(st->fusion & 1u) != (st->attention == BPW_STACK_ATTENTION_FLASH))
    return bpw_json_doc_error (r->doc, json_object_get_member (obj, "attention"),
                               "stack.attention", error, "%s",
                               st->attention == BPW_STACK_ATTENTION_FLASH
                                 ? _("flash attention disagrees with the stack's fusion list, "
                                     "which does not list \"attention\"")
                                 : _("materialized attention disagrees with the stack's fusion "
                                     "list, which lists \"attention\""));
  return TRUE;
}
