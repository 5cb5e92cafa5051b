/* bpw-blueprint-reader-private.h — one blueprint load in progress and the helpers every
 * blueprint reader shares (bpw-blueprint-reader.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-blueprint.h"
#include "bpw-json-doc.h"
#include "bpw-quantity.h"

G_BEGIN_DECLS

/* One load in progress: the document, the blueprint being filled, the warning sink. */
typedef struct
{
  BpwJsonDoc   *doc;
  BpwBlueprint *bp;
  GPtrArray    *warnings;  /* nullable */
} BpwBlueprintReader;

/* Reads @member of @object as a quantity into @out (untouched when absent). A value
 * without provenance becomes an unsourced estimate. @integer demands a whole number. */
/* An efficiency table: {"points": [[size, efficiency], ...], "interpolation", "kind",
 * "source"} at @path. */
gboolean      _bpw_blueprint_read_table      (BpwBlueprintReader *r,
                                              JsonObject         *obj,
                                              const char         *path,
                                              BpwEfficiencyTable *table,
                                              GError            **error);
gboolean      _bpw_blueprint_read_value      (BpwBlueprintReader *r,
                                              JsonObject         *object,
                                              const char         *path,
                                              const char         *member,
                                              gboolean            required,
                                              BpwUnit             unit,
                                              double              min,
                                              double              max,
                                              gboolean            integer,
                                              BpwSourced         *out,
                                              GError            **error);
/* Array elements with located errors ("expected a string, got 3"). */
const char   *_bpw_blueprint_read_string_element (BpwBlueprintReader *r,
                                                  JsonNode           *node,
                                                  const char         *path,
                                                  GError            **error);
/* A number in [@min, @max] (open at @min when @open_min); @what is "a positive size". */
gboolean      _bpw_blueprint_read_number_element (BpwBlueprintReader *r,
                                                  JsonNode           *node,
                                                  const char         *path,
                                                  const char         *what,
                                                  double              min,
                                                  double              max,
                                                  gboolean            open_min,
                                                  double             *out,
                                                  GError            **error);
/* Appends a warning for each member of @object not in @known; nothing when the load
 * collects no warnings. */
void          _bpw_blueprint_warn_unknown    (BpwBlueprintReader *r,
                                              JsonObject         *object,
                                              const char         *path,
                                              const char * const *known);

G_END_DECLS
