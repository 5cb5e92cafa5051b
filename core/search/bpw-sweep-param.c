/* bpw-sweep-param.c — the blueprint parameters a sweep changes: names, units, values
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the command line's --sweep-param and the workbench's sweep rows share: how a list
 * of values is read and what each parameter is on a blueprint before a point changes it
 * (the write side is bpw-sweep.c's apply(), which this mirrors field by field).
 */
#define G_LOG_DOMAIN "bpw-sweep-param"

#include "config.h"

#include <math.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-sweep-private.h"

static const char * const param_names[BPW_SWEEP_N_PARAMS] = {
  "hbm_bandwidth", "hbm_capacity", "sram_capacity", "link_bandwidth", "matrix_peak",
  "power_cap", "devices",
};

static const BpwUnit param_units[BPW_SWEEP_N_PARAMS] = {
  BPW_UNIT_BYTES_PER_S, BPW_UNIT_BYTES, BPW_UNIT_BYTES, BPW_UNIT_BYTES_PER_S,
  BPW_UNIT_FLOPS_PER_S, BPW_UNIT_WATTS, BPW_UNIT_NONE,
};

const char *
bpw_sweep_param_to_string (BpwSweepParam param)
{
  g_return_val_if_fail (param < BPW_SWEEP_N_PARAMS, "?");
  return param_names[param];
}

gboolean
_bpw_sweep_param_from_string (const char    *name,
                              BpwSweepParam *param)
{
  for (guint p = 0; p < BPW_SWEEP_N_PARAMS; p++)
    if (g_strcmp0 (name, param_names[p]) == 0)
      {
        *param = p;
        return TRUE;
      }
  return FALSE;
}

BpwUnit
bpw_sweep_param_get_unit (BpwSweepParam param)
{
  g_return_val_if_fail (param < BPW_SWEEP_N_PARAMS, BPW_UNIT_NONE);
  return param_units[param];
}

static gboolean
parse_value (BpwSweepParam param, const char *text, double *out, GError **error)
{
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);

  if ((end == text || *end != '\0')
      && !bpw_quantity_parse (text, param_units[param], &v, error))
    return FALSE;
  if (!(v > 0) || !isfinite (v) ||
      (param == BPW_SWEEP_DEVICES && (v != floor (v) || v > (double) (1 << 24))))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("expected %s, got '%s'"),
                   param == BPW_SWEEP_DEVICES ? _("a device count from 1 to 16777216")
                                              : _("a positive value"), text);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

gboolean
bpw_sweep_param_parse_values (BpwSweepParam  param,
                              const char    *text,
                              GArray        *values,
                              GError       **error)
{
  g_auto(GStrv) items = NULL;

  g_return_val_if_fail (param < BPW_SWEEP_N_PARAMS, FALSE);
  g_return_val_if_fail (text != NULL && values != NULL, FALSE);

  items = g_strsplit (text, ",", -1);
  if (items[0] == NULL)
    {
      g_set_error_literal (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                           _("expected values separated by commas, got none"));
      return FALSE;
    }
  for (guint i = 0; items[i] != NULL; i++)
    {
      double v;

      if (!parse_value (param, g_strstrip (items[i]), &v, error))
        return FALSE;
      g_array_append_val (values, v);
    }
  return TRUE;
}

static gboolean
sourced (const BpwSourced *s, double scale, double *value)
{
  if (!s->set)
    return FALSE;
  *value = s->value * scale;
  return TRUE;
}

gboolean
bpw_sweep_param_get_value (BpwSweepParam       param,
                           gint                tier,
                           const BpwBlueprint *bp,
                           BpwDType            dtype,
                           gint64              devices,
                           double             *value)
{
  int i;

  g_return_val_if_fail (bp != NULL && value != NULL, FALSE);

  switch (param)
    {
    case BPW_SWEEP_HBM_BANDWIDTH:
      i = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
      return i >= 0 && sourced (&bp->memory[i].bandwidth, 1.0, value);
    case BPW_SWEEP_HBM_CAPACITY:
      /* A point sets the capacity per device: per instance times the instances. */
      i = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
      return i >= 0 && sourced (&bp->memory[i].capacity, bp->memory[i].instances.set
                                                         ? bp->memory[i].instances.value : 1.0,
                                value);
    case BPW_SWEEP_SRAM_CAPACITY:
      i = bpw_blueprint_first_memory (bp, BPW_MEMORY_SRAM);
      return i >= 0 && sourced (&bp->memory[i].capacity, 1.0, value);
    case BPW_SWEEP_LINK_BANDWIDTH:
      return tier >= 0 && (guint) tier < bp->n_tiers
             && sourced (&bp->tiers[tier].bandwidth, 1.0, value);
    case BPW_SWEEP_MATRIX_PEAK:
      i = bpw_blueprint_first_engine (bp, BPW_ENGINE_MATRIX);
      return i >= 0 && sourced (&bp->engines[i].peak[bpw_precision_from_dtype (dtype)], 1.0,
                                value);
    case BPW_SWEEP_POWER_CAP:
      /* Without a cap of its own, a board is limited at its TDP. */
      return sourced (bp->power_cap.set ? &bp->power_cap : &bp->tdp, 1.0, value);
    case BPW_SWEEP_DEVICES:
      *value = (double) devices;
      return devices > 0;
    case BPW_SWEEP_N_PARAMS:
    default:
      g_return_val_if_reached (FALSE);
    }
}
