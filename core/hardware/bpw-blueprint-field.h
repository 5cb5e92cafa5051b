/* bpw-blueprint-field.h — one editable value of a blueprint, addressed, parsed and set
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The workbench's inspector edits blueprint values one at a time: a peak of an engine in one
 * precision, a memory level's capacity or bandwidth, a tier's size, bandwidth or latency,
 * the power figures. A field names such a value independently of any one blueprint copy, so
 * that an edit can be replayed on a fresh copy (undo, redo) and refused when the result is
 * not a valid blueprint.
 */
#pragma once

#include "bpw-blueprint.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_BLUEPRINT_FIELD_ENGINE_PEAK,       /* engines[index].peak[precision] */
  BPW_BLUEPRINT_FIELD_ENGINE_BANDWIDTH,  /* engines[index].bandwidth (DMA, collective) */
  BPW_BLUEPRINT_FIELD_MEMORY_CAPACITY,   /* memory[index].capacity, per instance */
  BPW_BLUEPRINT_FIELD_MEMORY_BANDWIDTH,  /* memory[index].bandwidth */
  BPW_BLUEPRINT_FIELD_TIER_SIZE,         /* tiers[index].size, devices */
  BPW_BLUEPRINT_FIELD_TIER_BANDWIDTH,    /* tiers[index].bandwidth */
  BPW_BLUEPRINT_FIELD_TIER_LATENCY,      /* tiers[index].latency */
  BPW_BLUEPRINT_FIELD_TDP,
  BPW_BLUEPRINT_FIELD_IDLE_POWER,
  BPW_BLUEPRINT_FIELD_POWER_CAP,         /* power_cap, W */
  BPW_BLUEPRINT_FIELD_TIER_OVERSUBSCRIPTION, /* tiers[index].oversubscription, a ratio ≥ 1 */
  BPW_N_BLUEPRINT_FIELDS
} BpwBlueprintFieldKind;

typedef struct
{
  BpwBlueprintFieldKind kind;
  guint                 index;      /* engine, memory level or tier; 0 otherwise */
  BpwPrecision          precision;  /* ENGINE_PEAK only */
} BpwBlueprintField;

/* The value @field names in @bp; NULL when @bp has no such engine, level or tier. */
BpwSourced       *bpw_blueprint_field_get   (BpwBlueprint            *bp,
                                             const BpwBlueprintField *field);
const BpwSourced *bpw_blueprint_field_peek  (const BpwBlueprint      *bp,
                                             const BpwBlueprintField *field);
/* The dimension of the value: FLOP/s, bytes, B/s, seconds, watts; NONE for tier sizes. */
BpwUnit           bpw_blueprint_field_unit  (const BpwBlueprintField *field);

/* Reads what a user typed: a quantity with a unit ("4.8 TB/s", "80 GiB", "3 us", "700 W"),
 * or a whole number of devices for a tier size. The message of @error is one sentence
 * without a location. */
gboolean          bpw_blueprint_field_parse (const BpwBlueprintField *field,
                                             const char              *text,
                                             double                  *value,
                                             GError                 **error);

/* Sets the value with its provenance when the blueprint stays valid: positive and finite,
 * a whole tier size, idle power not above the TDP, a power cap above the idle power, and everything bpw_blueprint_validate()
 * checks. On failure @bp is unchanged and @error says why (BPW_ERROR_INVALID_INPUT). */
gboolean          bpw_blueprint_field_set   (BpwBlueprint            *bp,
                                             const BpwBlueprintField *field,
                                             double                   value,
                                             BpwProvenance            kind,
                                             const char              *source,
                                             GError                 **error);

G_END_DECLS
