/* bpw-blueprint-field.c — one editable value of a blueprint
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-blueprint-field"

#include "config.h"

#include "bpw-blueprint-field.h"

#include <math.h>

#include "bpw-error.h"
#include "bpw-i18n.h"

/* Tier sizes are device counts held in a double: whole numbers up to 2^53 are exact. */
#define BPW_MAX_EXACT_COUNT 9007199254740992.0

const BpwSourced *
bpw_blueprint_field_peek (const BpwBlueprint      *bp,
                          const BpwBlueprintField *field)
{
  g_return_val_if_fail (bp != NULL && field != NULL, NULL);

  switch (field->kind)
    {
    case BPW_BLUEPRINT_FIELD_ENGINE_PEAK:
      if (field->index >= bp->n_engines || (guint) field->precision >= BPW_N_PRECISIONS)
        return NULL;
      return &bp->engines[field->index].peak[field->precision];
    case BPW_BLUEPRINT_FIELD_ENGINE_BANDWIDTH:
      return field->index < bp->n_engines ? &bp->engines[field->index].bandwidth : NULL;
    case BPW_BLUEPRINT_FIELD_MEMORY_CAPACITY:
      return field->index < bp->n_memory ? &bp->memory[field->index].capacity : NULL;
    case BPW_BLUEPRINT_FIELD_MEMORY_BANDWIDTH:
      return field->index < bp->n_memory ? &bp->memory[field->index].bandwidth : NULL;
    case BPW_BLUEPRINT_FIELD_TIER_SIZE:
      return field->index < bp->n_tiers ? &bp->tiers[field->index].size : NULL;
    case BPW_BLUEPRINT_FIELD_TIER_BANDWIDTH:
      return field->index < bp->n_tiers ? &bp->tiers[field->index].bandwidth : NULL;
    case BPW_BLUEPRINT_FIELD_TIER_LATENCY:
      return field->index < bp->n_tiers ? &bp->tiers[field->index].latency : NULL;
    case BPW_BLUEPRINT_FIELD_TIER_OVERSUBSCRIPTION:
      return field->index < bp->n_tiers ? &bp->tiers[field->index].oversubscription : NULL;
    case BPW_BLUEPRINT_FIELD_TDP:
      return &bp->tdp;
    case BPW_BLUEPRINT_FIELD_IDLE_POWER:
      return &bp->idle_power;
    case BPW_BLUEPRINT_FIELD_POWER_CAP:
      return &bp->power_cap;
    case BPW_N_BLUEPRINT_FIELDS:
    default:
      return NULL;
    }
}

BpwSourced *
bpw_blueprint_field_get (BpwBlueprint            *bp,
                         const BpwBlueprintField *field)
{
  return (BpwSourced *) bpw_blueprint_field_peek (bp, field);
}

BpwUnit
bpw_blueprint_field_unit (const BpwBlueprintField *field)
{
  g_return_val_if_fail (field != NULL, BPW_UNIT_NONE);

  switch (field->kind)
    {
    case BPW_BLUEPRINT_FIELD_ENGINE_PEAK:
      return BPW_UNIT_FLOPS_PER_S;
    case BPW_BLUEPRINT_FIELD_ENGINE_BANDWIDTH:
    case BPW_BLUEPRINT_FIELD_MEMORY_BANDWIDTH:
    case BPW_BLUEPRINT_FIELD_TIER_BANDWIDTH:
      return BPW_UNIT_BYTES_PER_S;
    case BPW_BLUEPRINT_FIELD_MEMORY_CAPACITY:
      return BPW_UNIT_BYTES;
    case BPW_BLUEPRINT_FIELD_TIER_LATENCY:
      return BPW_UNIT_SECONDS;
    case BPW_BLUEPRINT_FIELD_TDP:
    case BPW_BLUEPRINT_FIELD_IDLE_POWER:
    case BPW_BLUEPRINT_FIELD_POWER_CAP:
      return BPW_UNIT_WATTS;
    case BPW_BLUEPRINT_FIELD_TIER_SIZE:
    case BPW_BLUEPRINT_FIELD_TIER_OVERSUBSCRIPTION:
    case BPW_N_BLUEPRINT_FIELDS:
    default:
      return BPW_UNIT_NONE;
    }
}

gboolean
bpw_blueprint_field_parse (const BpwBlueprintField *field,
                           const char              *text,
                           double                  *value,
                           GError                 **error)
{
  g_autofree char *stripped = NULL;
  double number = 0.0;

  g_return_val_if_fail (field != NULL && value != NULL, FALSE);

  stripped = g_strstrip (g_strdup (text != NULL ? text : ""));
  if (field->kind == BPW_BLUEPRINT_FIELD_TIER_SIZE)
    {
      char *end = NULL;

      number = g_ascii_strtod (stripped, &end);
      if (stripped[0] == '\0' || end == NULL || *end != '\0' || !isfinite (number)
          || number != floor (number) || number < 1.0 || number > BPW_MAX_EXACT_COUNT)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("expected a whole number of devices such as 8, got \"%s\""), stripped);
          return FALSE;
        }
      *value = number;
      return TRUE;
    }
  if (!bpw_quantity_parse (stripped, bpw_blueprint_field_unit (field), &number, error))
    return FALSE;
  *value = number;
  return TRUE;
}

static const char *
bpw_blueprint_field_what (const BpwBlueprintField *field)
{
  switch (field->kind)
    {
    case BPW_BLUEPRINT_FIELD_ENGINE_PEAK:
      return _("a peak");
    case BPW_BLUEPRINT_FIELD_MEMORY_CAPACITY:
      return _("a capacity");
    case BPW_BLUEPRINT_FIELD_TIER_SIZE:
      return _("a tier size");
    case BPW_BLUEPRINT_FIELD_TIER_LATENCY:
      return _("a latency");
    case BPW_BLUEPRINT_FIELD_TIER_OVERSUBSCRIPTION:
      return _("an oversubscription");
    case BPW_BLUEPRINT_FIELD_TDP:
    case BPW_BLUEPRINT_FIELD_IDLE_POWER:
    case BPW_BLUEPRINT_FIELD_POWER_CAP:
      return _("a power");
    case BPW_BLUEPRINT_FIELD_ENGINE_BANDWIDTH:
    case BPW_BLUEPRINT_FIELD_MEMORY_BANDWIDTH:
    case BPW_BLUEPRINT_FIELD_TIER_BANDWIDTH:
    case BPW_N_BLUEPRINT_FIELDS:
    default:
      return _("a bandwidth");
    }
}

gboolean
bpw_blueprint_field_set (BpwBlueprint            *bp,
                         const BpwBlueprintField *field,
                         double                   value,
                         BpwProvenance            kind,
                         const char              *source,
                         GError                 **error)
{
  g_autoptr(BpwBlueprint) trial = NULL;
  BpwSourced *target;

  g_return_val_if_fail (bp != NULL && field != NULL, FALSE);

  if (bpw_blueprint_field_peek (bp, field) == NULL)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("the blueprint “%s” has no such engine, memory level or tier"), bp->name);
      return FALSE;
    }
  if ((guint) kind > BPW_PROVENANCE_MEASURED)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("unknown provenance kind %d"),
                   (int) kind);
      return FALSE;
    }
  /* Idle power may be zero (a device that powers down); every other value is a rate, a
   * size or a time that must be positive. */
  if (!isfinite (value) || value < 0.0
      || (value == 0.0 && field->kind != BPW_BLUEPRINT_FIELD_IDLE_POWER))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("%s must be positive"),
                   bpw_blueprint_field_what (field));
      return FALSE;
    }
  if (field->kind == BPW_BLUEPRINT_FIELD_TIER_SIZE
      && (value != floor (value) || value > BPW_MAX_EXACT_COUNT))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("a tier size is a whole number of devices"));
      return FALSE;
    }

  /* Try on a copy, so that a refused value leaves @bp exactly as it was. */
  trial = bpw_blueprint_copy (bp);
  target = bpw_blueprint_field_get (trial, field);
  bpw_blueprint_set_value (trial, target, value, kind, source);
  if (trial->tdp.set && trial->idle_power.set && trial->idle_power.value > trial->tdp.value)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("idle power (%.4g W) would exceed the TDP (%.4g W)"),
                   trial->idle_power.value, trial->tdp.value);
      return FALSE;
    }
  if (trial->power_cap.set && trial->idle_power.set
      && trial->power_cap.value <= trial->idle_power.value)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("the power cap (%.4g W) must exceed the idle power (%.4g W)"),
                   trial->power_cap.value, trial->idle_power.value);
      return FALSE;
    }
  if (!bpw_blueprint_validate (trial, error))
    return FALSE;

  bpw_blueprint_set_value (bp, bpw_blueprint_field_get (bp, field), value, kind, source);
  return TRUE;
}
