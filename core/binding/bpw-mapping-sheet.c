/* bpw-mapping-sheet.c — the operator-to-kernel mapping sheet of a plan
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-mapping-sheet"

#include "config.h"

#include <string.h>

#include "bpw-evaluation-precision.h"
#include "bpw-mapping-sheet.h"
#include "bpw-work-graph.h"

static const char *
engine_name (const BpwPlan *plan, BpwEngineKind kind)
{
  const BpwEngineRate *r = kind == BPW_ENGINE_MATRIX ? &plan->rates.matrix : &plan->rates.vector;

  return r->engine != NULL ? r->engine->name : bpw_engine_kind_to_string (kind);
}

static void
add_task_rows (const BpwPlan *plan, gint64 s, gint64 first_layer, gboolean first_block_only,
               GArray *rows)
{
  const BpwWorkGraph *g = plan->dist->graph;
  const GArray *tasks = plan->stages[s].tasks;
  double steps = (double) plan->micro_batches;

  for (guint i = 0; i < tasks->len; i++)
    {
      const BpwPlanTask *t = &g_array_index (tasks, BpwPlanTask, i);
      const BpwOp *op = bpw_work_graph_op (g, t->op);
      double per_step = t->count * (t->phase == BPW_PHASE_OPTIMIZER ? 1.0 : steps);
      BpwSheetRow row;

      if (first_block_only && t->layer >= 0 && t->layer != first_layer)
        continue;
      row = (BpwSheetRow) {
        .stage = s, .lineage = t->op, .name = bpw_work_graph_name (g, op->name),
        .layer = t->layer, .layer_type = t->layer_type, .phase = t->phase,
        .kind = bpw_primitive_to_string (t->primitive),
        .engine = engine_name (plan, t->engine),
        .dtype = bpw_dtype_to_string (op->dtype),
        .flops = t->flops, .device_bytes = t->bytes[BPW_TRAFFIC_DEVICE],
        .host_bytes = t->bytes[BPW_TRAFFIC_HOST] + t->stash_bytes,
        .intensity = t->bytes[BPW_TRAFFIC_DEVICE] > 0 ? t->flops / t->bytes[BPW_TRAFFIC_DEVICE] : 0,
        .tile_m = t->tile_m, .tile_n = t->tile_n, .fusion_group = t->fusion_group,
        .fusion = t->fusion != 0 ? bpw_fusion_to_string (t->fusion) : "",
        .count = per_step, .time_s = t->cost.time_s, .total_s = per_step * t->cost.time_s,
        .bottleneck = t->cost.bottleneck, .stack_s = t->impl_s,
        .stack_kinds = t->impl_kinds, .launch_s = t->launch_s,
        .precision = bpw_plan_task_precision_name (plan, t),
        .dequant_s = t->dequant_s,
        .sparse = t->sparse != 0,
        .fallback = bpw_fallback_to_string (t->fallback), .algorithm = "",
      };
      g_array_append_val (rows, row);
    }
}

static void
add_transfer_rows (const BpwPlan *plan, gint64 s, gint64 first_layer, gboolean first_block_only,
                   GArray *rows)
{
  const BpwWorkGraph *g = plan->dist->graph;
  const GArray *transfers = plan->stages[s].transfers;

  for (guint i = 0; i < transfers->len; i++)
    {
      const BpwPlanTransfer *tr = &g_array_index (transfers, BpwPlanTransfer, i);
      gboolean per_step = bpw_plan_transfer_per_step (tr->group, tr->kind, tr->phase);
      double count = tr->count * (per_step ? 1.0 : (double) plan->micro_batches);
      BpwSheetRow row;

      if (first_block_only && tr->layer >= 0 && tr->layer != first_layer)
        continue;
      row = (BpwSheetRow) {
        .stage = s, .lineage = tr->op, .transfer = TRUE,
        .name = bpw_work_graph_name (g, tr->name), .layer = tr->layer,
        .layer_type = tr->layer_type, .phase = tr->phase,
        .kind = bpw_collective_to_string (tr->kind),
        .engine = plan->blueprint->tiers[tr->tier].name, .dtype = "",
        .precision = "", .fallback = "",
        .device_bytes = tr->wire_bytes, .count = count, .time_s = tr->time_s,
        .total_s = count * tr->exposed_s, .bottleneck = BPW_BOTTLENECK_COMMUNICATION,
        .algorithm = tr->algorithm != 0 ? bpw_collective_algo_to_string (tr->algorithm) : "",
      };
      g_array_append_val (rows, row);
    }
}

GArray *
bpw_mapping_sheet_new (const BpwPlan *plan,
                       gboolean       first_block_only)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (BpwSheetRow));

  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    {
      gint64 first = plan->dist->stages[s].first_layer;

      add_task_rows (plan, s, first, first_block_only, rows);
      add_transfer_rows (plan, s, first, first_block_only, rows);
    }
  return rows;
}

static const char *
layer_label (gint32 layer, char *buf, gsize size)
{
  if (layer == BPW_LAYER_BEFORE_BLOCKS)
    return "embedding side";
  if (layer == BPW_LAYER_AFTER_BLOCKS)
    return "head side";
  g_snprintf (buf, size, "%d", layer);
  return buf;
}

/* CSV: RFC 4180 quoting where a field needs it. */
static void
csv_field (GString *out, const char *s, gboolean last)
{
  if (strpbrk (s, ",\"\n") != NULL)
    {
      g_string_append_c (out, '"');
      for (const char *p = s; *p; p++)
        {
          if (*p == '"')
            g_string_append_c (out, '"');
          g_string_append_c (out, *p);
        }
      g_string_append_c (out, '"');
    }
  else
    g_string_append (out, s);
  g_string_append_c (out, last ? '\n' : ',');
}

char *
bpw_mapping_sheet_to_csv (const GArray *rows)
{
  GString *out = g_string_new ("stage,lineage_id,name,layer,layer_type,phase,kind,engine,dtype,"
                               "flops,device_bytes,host_bytes,arithmetic_intensity_flop_per_byte,"
                               "tile_m,tile_n,fusion,fusion_group,count_per_step,time_s,"
                               "total_s,bottleneck,stack_s,dequant_s,precision,sparsity,fallback\n");

  for (guint i = 0; i < rows->len; i++)
    {
      const BpwSheetRow *r = &g_array_index (rows, BpwSheetRow, i);
      char buf[64];

      g_string_append_printf (out, "%" G_GINT64_FORMAT ",%u,", r->stage, r->lineage);
      csv_field (out, r->name, FALSE);
      csv_field (out, layer_label (r->layer, buf, sizeof buf), FALSE);
      g_string_append_printf (out, "%s,%s,%s,", bpw_layer_type_to_string (r->layer_type),
                              bpw_phase_to_string (r->phase), r->kind);
      csv_field (out, r->engine, FALSE);
      g_string_append_printf (out, "%s,%.17g,%.17g,%.17g,%.6g,%.0f,%.0f,%s,%u,%.17g,%.9g,%.9g,%s,"
                              "%.9g,%.9g,",
                              r->dtype, r->flops, r->device_bytes, r->host_bytes, r->intensity,
                              r->tile_m, r->tile_n, r->fusion, r->fusion_group, r->count,
                              r->time_s, r->total_s, bpw_bottleneck_to_string (r->bottleneck),
                              r->stack_s, r->dequant_s);
      csv_field (out, r->precision, FALSE);
      g_string_append_printf (out, "%s,%s\n", r->transfer ? "" : r->sparse ? "2:4" : "dense",
                              r->fallback);
    }
  return g_string_free (out, FALSE);
}

static char *
si (double value, const char *unit)
{
  static const char * const prefixes[] = { "", "k", "M", "G", "T", "P", "E" };
  guint p = 0;

  while (value >= 1000.0 && p + 1 < G_N_ELEMENTS (prefixes))
    value /= 1000.0, p++;
  return g_strdup_printf ("%.3g %s%s", value, prefixes[p], unit);
}

char *
bpw_mapping_sheet_to_markdown (const GArray *rows,
                               const char   *title)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "# %s\n\nPer operation, as one rank of each pipeline stage runs "
                          "it. Times are per execution; *per step* multiplies by the executions "
                          "per step (exposed time for transfers); *stack time* is the part of the time "
                          "that the blueprint's software stack adds beside the op (implementation "
                          "overhead: casts, unfused element-wise kernels, launch gaps ...), apart "
                          "from its semantic work. *precision* is what a matmul runs in under the "
                          "mapping's precision policy, with the reason when it fell back to bf16 "
                          "(engine, quality, shape, group), and with weight-only weights the dequantisation's "
                          "exposed time; a 2:4 sparse matmul runs at twice the "
                          "engine's dense rate but keeps the dense model's FLOPs, the work being "
                          "the same.\n\n", title);
  g_string_append (out, "| stage | lineage | operation | layer | type | phase | engine | dtype | "
                        "FLOPs | bytes | FLOP/B | tile | fusion | time | per step | bottleneck | "
                        "stack time | precision |\n"
                        "|---:|---:|---|---|---|---|---|---|---:|---:|---:|---|---|---:|---:"
                        "|---|---:|---|\n");
  for (guint i = 0; i < rows->len; i++)
    {
      const BpwSheetRow *r = &g_array_index (rows, BpwSheetRow, i);
      g_autofree char *flops = r->flops > 0 ? si (r->flops, "FLOP") : g_strdup ("");
      g_autofree char *bytes = si (r->device_bytes + r->host_bytes, "B");
      g_autofree char *time = si (r->time_s * 1e6, "µs");
      g_autofree char *total = si (r->total_s * 1e3, "ms");
      g_autofree char *stack = r->stack_s != 0 ? si (r->stack_s * 1e6, "µs") : g_strdup ("");
      g_autofree char *tile = r->tile_m > 0 ? g_strdup_printf ("%.0f×%.0f", r->tile_m, r->tile_n)
                                            : g_strdup ("");
      g_autofree char *dequant = r->dequant_s != 0 ? si (r->dequant_s * 1e6, "µs") : NULL;
      g_autofree char *precision = g_strdup_printf ("%s%s%s%s%s%s%s", r->precision,
                                                    dequant != NULL ? ", dequant " : "",
                                                    dequant != NULL ? dequant : "",
                                                    r->sparse ? " 2:4" : "",
                                                    r->fallback[0] ? " (fallback: " : "",
                                                    r->fallback,
                                                    r->fallback[0] ? ")" : "");
      char buf[64];

      g_string_append_printf (out, "| %" G_GINT64_FORMAT " | %u | %s | %s | %s | %s | %s | %s | "
                              "%s | %s | %.3g | %s | %s | %s | %s | %s | %s | %s |\n",
                              r->stage, r->lineage,
                              r->name, layer_label (r->layer, buf, sizeof buf),
                              bpw_layer_type_to_string (r->layer_type),
                              bpw_phase_to_string (r->phase), r->engine, r->dtype, flops, bytes,
                              r->intensity, tile, r->fusion, time, total,
                              bpw_bottleneck_to_string (r->bottleneck), stack, precision);
    }
  return g_string_free (out, FALSE);
}
