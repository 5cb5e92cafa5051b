/* bpw-pack-fit-attention.c — the matrix engine's efficiency in the stack's fused attention
 * kernel, from the pack's attention microbenchmarks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A flash kernel does not run at the efficiency of a matrix product of its FLOPs: it
 * interleaves its two products with the softmax on chip, and its tiles are those of its
 * own code. On the shared H200 pack the matrix table (scaled by the engine's clock in the
 * runs) priced the traced prefill's attention 20 % faster than it ran. The kit times causal
 * prefill attention by shape; each timing, less the kit's per-call latency and one kernel's
 * fixed cost, gives the efficiency of the kernel's causal FLOPs, scaled by the engine's clock
 * in the runs as the matrix tables are (the microbenchmarks run at the sustained loop's
 * clock). The table is keyed by the FLOPs of one of the kernel's two forward products (QKᵀ
 * or PV, half the causal FLOPs): the plan looks a fused attention task up at its forward
 * product's size (bpw-plan-bind.c), its backward at the forward's. Decode attention is
 * bound by the KV cache's bytes, not by the engine, and calibrates nothing here.
 */
#define G_LOG_DOMAIN "bpw-pack-fit"

#include "config.h"

#include <math.h>

#include "bpw-pack-fit.h"

static int
compare_size (gconstpointer a, gconstpointer b)
{
  double x = ((const BpwEfficiencyPoint *) a)->size, y = ((const BpwEfficiencyPoint *) b)->size;

  return x < y ? -1 : x > y ? 1 : 0;
}

void
_bpw_pack_fit_attention (BpwPackFit               *fit,
                         const BpwMeasurementPack *pack)
{
  BpwBlueprint *bp = fit->blueprint;
  BpwEfficiencyTable *table = &bp->stack.attention_efficiency;
  BpwPrecision precision = bpw_precision_from_dtype (pack->peak.dtype);
  double peak = bpw_blueprint_peak_flops (bp, BPW_ENGINE_MATRIX, precision);
  double clock = isfinite (fit->engine_clock.value) && fit->engine_clock.value > 0
                 ? fit->engine_clock.value : 1.0;
  g_autoptr(GArray) points = g_array_new (FALSE, FALSE, sizeof (BpwEfficiencyPoint));
  g_autoptr(GString) used = g_string_new (NULL);
  g_autofree char *source = NULL;
  guint merged = 0;

  bpw_efficiency_table_set (bp, table, NULL, 0, BPW_INTERPOLATION_LOG_LINEAR,
                            BPW_PROVENANCE_ESTIMATE, NULL);
  if (!(peak > 0))
    return;
  for (guint i = 0; i < pack->n_attention; i++)
    {
      const BpwPackAttention *a = &pack->attention[i];
      double flops = a->rate * a->time_s;
      double t = a->time_s - fit->call_latency_s - fit->kernel_overhead_s;
      BpwEfficiencyPoint pt;

      if (a->kind != BPW_PACK_ATTENTION_PREFILL_CAUSAL || !(flops > 0) || !(t > 0))
        continue;
      pt.size = flops / 2.0;
      pt.efficiency = CLAMP (flops / (peak * t) * clock, BPW_BLUEPRINT_MIN_EFFICIENCY, 1.0);
      g_array_append_val (points, pt);
      g_string_append_printf (used, "%sb %" G_GINT64_FORMAT " × s %" G_GINT64_FORMAT
                              " (%.0f TFLOP/s)", used->len > 0 ? ", " : "", a->batch,
                              a->tokens, a->rate / 1e12);
    }
  if (points->len == 0)
    return;
  /* Equal sizes (two shapes of one product size) become one point of their mean. */
  g_array_sort (points, compare_size);
  for (guint i = 0; i < points->len; i++)
    {
      BpwEfficiencyPoint *p = &g_array_index (points, BpwEfficiencyPoint, i);
      guint same = 1;

      while (i + same < points->len &&
             g_array_index (points, BpwEfficiencyPoint, i + same).size == p->size)
        same++;
      if (same > 1)
        {
          double sum = 0;

          for (guint j = 0; j < same; j++)
            sum += g_array_index (points, BpwEfficiencyPoint, i + j).efficiency;
          p->efficiency = sum / same;
          g_array_remove_range (points, i + 1, same - 1);
          merged += same - 1;
        }
    }
  source = g_strdup_printf ("%s: attention microbenchmarks, causal prefill %s; each time less "
                            "the kit's per-call latency (%.1f us) and the fixed cost per "
                            "kernel (%.2f us), the causal FLOPs over it and the %s peak, "
                            "scaled by the engine's clock in the runs (%.4f); keyed by the "
                            "FLOPs of one forward product (half the causal FLOPs)%s",
                            fit->source, used->str, fit->call_latency_s * 1e6,
                            fit->kernel_overhead_s * 1e6, bpw_precision_to_string (precision),
                            clock, merged > 0 ? "; equal sizes averaged" : "");
  bpw_efficiency_table_set (bp, table, (const BpwEfficiencyPoint *) (void *) points->data,
                            points->len, BPW_INTERPOLATION_LOG_LINEAR, BPW_PROVENANCE_MEASURED,
                            source);
}
