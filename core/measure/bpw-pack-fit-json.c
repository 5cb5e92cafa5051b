/* bpw-pack-fit-json.c — the calibrated blueprint: the fitted rates and the software stack
 * that was measured, as the blueprint's "stack" member
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-pack-fit"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-blueprint-io.h"
#include "bpw-file.h"
#include "bpw-i18n.h"
#include "bpw-pack-fit.h"

static void
set_value (BpwBlueprint *bp, BpwSourced *v, const BpwPackFitValue *fitted)
{
  if (!isnan (fitted->value))
    bpw_blueprint_set_value (bp, v, fitted->value, BPW_PROVENANCE_CALIBRATED, fitted->source);
}

static void
keep_value (BpwBlueprint *bp, BpwSourced *v, const BpwSourced *own)
{
  *v = *own;
  v->source = bpw_blueprint_intern (bp, own->source);
}

static BpwStackLaunch
launch_of (const char *mode)
{
  return g_strcmp0 (mode, "graph") == 0 ? BPW_STACK_LAUNCH_GRAPH : BPW_STACK_LAUNCH_EAGER;
}

BpwBlueprint *
bpw_pack_fit_blueprint (const BpwPackFit *fit)
{
  BpwBlueprint *bp = bpw_blueprint_copy (fit->blueprint);
  BpwStack *st = &bp->stack;

  /* The fit states the whole stack: what @blueprint said of one is replaced. */
  bpw_blueprint_clear_stack (bp);
  {
    const BpwEfficiencyTable *t = &fit->blueprint->stack.attention_efficiency;

    bpw_efficiency_table_set (bp, &st->attention_efficiency, t->points, t->n_points,
                              t->interpolation, t->kind, t->source);
  }
  st->set = TRUE;
  st->name = bpw_blueprint_intern (bp, fit->framework);
  st->source = bpw_blueprint_intern (bp, fit->source);
  st->attention = fit->fused_attention ? BPW_STACK_ATTENTION_FLASH
                                       : BPW_STACK_ATTENTION_MATERIALIZED;
  st->has_fusion = TRUE;
  st->fusion = fit->fused_attention ? 1u : 0u;   /* bit 0: the "attention" fusion */
  st->fp32_master = g_strcmp0 (fit->master_weights, "fp32") == 0;
  st->fp32_logits = g_strcmp0 (fit->logits, "fp32") == 0;
  st->has_optimizer = TRUE;
  st->optimizer = g_strcmp0 (fit->optimizer, "fused") == 0 ? BPW_STACK_OPTIMIZER_FUSED
                  : g_strcmp0 (fit->optimizer, "foreach") == 0 ? BPW_STACK_OPTIMIZER_FOREACH
                  : BPW_STACK_OPTIMIZER_PER_TENSOR;
  set_value (bp, &st->optimizer_bytes_per_parameter, &fit->optimizer_bytes);
  set_value (bp, &st->optimizer_kernels_per_tensor, &fit->optimizer_kernels);
  set_value (bp, &st->optimizer_kernels_per_parameter, &fit->optimizer_launches);
  st->unfused_elementwise = g_strcmp0 (fit->elementwise, "unfused") == 0;
  set_value (bp, &st->elementwise_rate, &fit->elementwise_rate);
  st->has_launch = TRUE;
  for (guint p = 0; p < BPW_STACK_N_PHASES; p++)
    st->launch[p] = launch_of (fit->launch[p]);
  set_value (bp, &st->eager_gap, &fit->eager_gap);
  set_value (bp, &st->train_eager_gap, &fit->train_eager_gap);
  /* No eager run at all: the blueprint's own issue times (an estimate) stay. */
  if (!st->eager_gap.set)
    keep_value (bp, &st->eager_gap, &fit->blueprint->stack.eager_gap);
  if (!st->train_eager_gap.set)
    keep_value (bp, &st->train_eager_gap, &fit->blueprint->stack.train_eager_gap);
  set_value (bp, &st->graph_gap, &fit->graph_gap);
  set_value (bp, &st->eager_device_gap, &fit->eager_device_gap);
  if (fit->moe_implementation != NULL)
    {
      st->has_moe_dispatch = TRUE;
      st->moe_loop = g_strcmp0 (fit->moe_implementation, "loop") == 0;
      set_value (bp, &st->moe_per_expert, &fit->moe_per_expert);
    }
  return bp;
}

char *
bpw_pack_fit_to_json (const BpwPackFit *fit)
{
  g_autoptr(BpwBlueprint) bp = bpw_pack_fit_blueprint (fit);

  return bpw_blueprint_to_json (bp);
}

gboolean
bpw_pack_fit_save (const BpwPackFit *fit,
                   const char       *path,
                   GError          **error)
{
  g_autofree char *text = bpw_pack_fit_to_json (fit);
  g_autoptr(BpwBlueprint) back = bpw_blueprint_load_data (path, text, -1, NULL, error);

  if (back == NULL)
    {
      g_prefix_error (error, _("the calibrated blueprint does not read back: "));
      return FALSE;
    }
  return bpw_file_replace_contents (path, text, -1, error);
}
