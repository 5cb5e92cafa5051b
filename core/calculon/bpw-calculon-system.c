/* bpw-calculon-system.c — Calculon's system (processors, memories, networks) from a blueprint
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A blueprint imported from a Calculon system file (bpw-blueprint-calculon.c) holds every
 * number of the file in SI units: peak × 1e12, thresholds × 1e9 and × 1e6, capacities ×
 * 2^30, bandwidths × 1e9, which are exactly the products Calculon's classes form. So reading
 * them back gives Calculon's own doubles, and its model its own results. The same file
 * holds what those classes compute: efficiency by size, network and processing times.
 */
#define G_LOG_DOMAIN "bpw-calculon-system"

#include "config.h"

#include <string.h>

#include "bpw-calculon-model-private.h"
#include "bpw-error.h"
#include "bpw-i18n.h"

static gboolean
bpw_calculon_system_fail (GError    **error,
                          const char *blueprint,
                          const char *what)
{
  g_set_error (error, BPW_ERROR, BPW_ERROR_UNSUPPORTED,
               _("%s: Calculon's model needs %s (a Calculon system file has it)"), blueprint,
               what);
  return FALSE;
}

static gboolean
bpw_calculon_curve_from_table (const BpwEfficiencyTable *table,
                               BpwCalculonCurve         *curve,
                               const char               *blueprint,
                               const char               *what,
                               GError                  **error)
{
  memset (curve, 0, sizeof *curve);
  if (table->n_points == 0)
    return TRUE;   /* efficiency 1 */
  if (table->interpolation != BPW_INTERPOLATION_STEP)
    {
      g_autofree char *message = g_strdup_printf (_("a step efficiency table for %s, not an "
                                                  "interpolated one"), what);

      return bpw_calculon_system_fail (error, blueprint, message);
    }
  if (table->n_points > BPW_CALCULON_MAX_ROWS)
    {
      g_autofree char *message = g_strdup_printf (_("at most %d rows in the efficiency table "
                                                  "for %s"), BPW_CALCULON_MAX_ROWS, what);

      return bpw_calculon_system_fail (error, blueprint, message);
    }
  /* Calculon scans its rows from the largest threshold down. */
  curve->n_rows = table->n_points;
  for (guint i = 0; i < table->n_points; i++)
    {
      curve->threshold[i] = table->points[table->n_points - 1 - i].size;
      curve->efficiency[i] = table->points[table->n_points - 1 - i].efficiency;
    }
  return TRUE;
}

static gboolean
bpw_calculon_engine_from_blueprint (const BpwBlueprint *bp,
                                    BpwEngineKind       kind,
                                    BpwPrecision        precision,
                                    double             *flops,
                                    BpwCalculonCurve   *curve,
                                    GError            **error)
{
  const char *what = kind == BPW_ENGINE_MATRIX ? _("a matrix engine") : _("a vector engine");
  int e = bpw_blueprint_first_engine (bp, kind);

  if (e < 0 || !bp->engines[e].peak[precision].set || !(bp->engines[e].peak[precision].value > 0))
    {
      g_autofree char *message = g_strdup_printf (_("%s with a peak in the datatype"), what);

      return bpw_calculon_system_fail (error, bp->name, message);
    }
  /* Calculon's Processor.throughput() asserts the datatype is one the file lists. */
  if (precision == BPW_PRECISION_BF16 && bp->engines[e].peak[precision].source != NULL
      && g_str_has_suffix (bp->engines[e].peak[precision].source, BPW_BLUEPRINT_BF16_FROM_FP16))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_UNSUPPORTED,
                   _("%s: the Calculon system has no bfloat16 entry, which Calculon's model "
                     "refuses; give --dtype fp16, or a bfloat16 entry in the system file"),
                   bp->name);
      return FALSE;
    }
  *flops = bp->engines[e].peak[precision].value;
  return bpw_calculon_curve_from_table (&bp->engines[e].efficiency[precision], curve, bp->name,
                                        what, error);
}

gboolean
bpw_calculon_system_from_blueprint (const BpwBlueprint *bp,
                                    BpwDType            datatype,
                                    BpwCalculonSystem  *sys,
                                    GError            **error)
{
  static const BpwCollectiveKind ops[BPW_CALCULON_N_OPS] = {
    [BPW_CALCULON_OP_P2P] = BPW_COLLECTIVE_SEND_RECV,
    [BPW_CALCULON_OP_REDUCE_SCATTER] = BPW_COLLECTIVE_REDUCE_SCATTER,
    [BPW_CALCULON_OP_ALL_GATHER] = BPW_COLLECTIVE_ALL_GATHER,
    [BPW_CALCULON_OP_ALL_REDUCE] = BPW_COLLECTIVE_ALL_REDUCE,
  };
  static const char * const op_names[BPW_CALCULON_N_OPS] = {
    "p2p", "reduce_scatter", "all_gather", "all_reduce"
  };
  BpwPrecision precision = bpw_precision_from_dtype (datatype);
  int mem1 = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
  int mem2 = bpw_blueprint_first_memory (bp, BPW_MEMORY_HOST);

  g_return_val_if_fail (bp != NULL && sys != NULL, FALSE);

  memset (sys, 0, sizeof *sys);
  if (!bpw_calculon_engine_from_blueprint (bp, BPW_ENGINE_MATRIX, precision, &sys->matrix_flops,
                                           &sys->matrix, error)
      || !bpw_calculon_engine_from_blueprint (bp, BPW_ENGINE_VECTOR, precision,
                                              &sys->vector_flops, &sys->vector, error))
    return FALSE;

  if (mem1 < 0 || !(bp->memory[mem1].bandwidth.value > 0))
    return bpw_calculon_system_fail (error, bp->name, _("a device memory with bandwidth"));
  sys->mem1_capacity = bp->memory[mem1].capacity.value;
  sys->mem1_bandwidth = bp->memory[mem1].bandwidth.value;
  if (!bpw_calculon_curve_from_table (&bp->memory[mem1].efficiency, &sys->mem1, bp->name,
                                      _("device memory"), error))
    return FALSE;
  /* No host level: Calculon's mem2 with "GiB": 0, where the search never offloads. */
  if (mem2 >= 0)
    {
      sys->mem2_capacity = bp->memory[mem2].capacity.value;
      sys->mem2_bandwidth = bp->memory[mem2].bandwidth.value;
      if (!bpw_calculon_curve_from_table (&bp->memory[mem2].efficiency, &sys->mem2, bp->name,
                                          _("host memory"), error))
        return FALSE;
    }
  sys->roofline = bp->processing == BPW_PROCESSING_OVERLAP;

  if (bp->n_tiers == 0 || bp->n_tiers > BPW_CALCULON_MAX_NETWORKS)
    return bpw_calculon_system_fail (error, bp->name, _("1 to 8 network tiers"));
  sys->n_networks = bp->n_tiers;
  for (guint t = 0; t < bp->n_tiers; t++)
    {
      const BpwTier *tier = &bp->tiers[t];
      BpwCalculonNetwork *net = &sys->networks[t];

      net->bandwidth = tier->bandwidth.value;
      net->efficiency = tier->efficiency.set ? tier->efficiency.value : 1;
      net->latency = tier->latency.set ? tier->latency.value : 0;
      net->processor_usage = tier->processor_usage.set ? tier->processor_usage.value : 0;
      net->size = (gint64) tier->size.value;
      net->must_be_filled = tier->must_be_filled;
      if (!(net->bandwidth > 0) || net->size < 1)
        {
          g_autofree char *message = g_strdup_printf (_("a bandwidth and size on tier '%s'"),
                                                      tier->name);

          return bpw_calculon_system_fail (error, bp->name, message);
        }
      for (guint op = 0; op < BPW_CALCULON_N_OPS; op++)
        {
          const BpwOpFactor *f = &tier->ops[ops[op]];

          if (!f->set)
            {
              g_autofree char *message = g_strdup_printf (_("the op factors of tier '%s' "
                                                          "(ops.%s)"), tier->name,
                                                          op_names[op]);

              return bpw_calculon_system_fail (error, bp->name, message);
            }
          net->scalar[op] = f->scalar;
          net->offset[op] = f->has_offset ? f->offset : 0;
        }
    }
  return TRUE;
}

/* Calculon's System, Network, Processor and Memory (system.py, network.py, processor.py,
 * memory.py @ caa4b11) ------------------------------------------------------------------------------ */

double
_bpw_calculon_curve_efficiency (const BpwCalculonCurve *curve,
                                double                  size)
{
  for (guint i = 0; i < curve->n_rows; i++)
    if (size >= curve->threshold[i])
      return curve->efficiency[i];
  /* Calculon asserts here; a blueprint's step table keeps its first point below it. */
  return curve->n_rows > 0 ? curve->efficiency[curve->n_rows - 1] : 1;
}

double
_bpw_calculon_network_time (const BpwCalculonNetwork *net,
                            BpwCalculonOp             op,
                            double                    size,
                            gint64                    comm_size)
{
  double chunk;

  size *= net->scalar[op];
  chunk = 1.0 / (double) comm_size * size;
  size += chunk * net->offset[op];
  return net->latency + size / (net->bandwidth * net->efficiency);
}

double
_bpw_calculon_processing_time (const BpwCalculonSystem *sys,
                               double                   flops_time,
                               double                   mem_time)
{
  if (sys->roofline)
    return mem_time > flops_time ? mem_time : flops_time;
  return flops_time + mem_time;
}
