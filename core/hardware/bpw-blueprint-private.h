/* bpw-blueprint-private.h — shared between the blueprint loader, importer and writer
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-blueprint-io.h"
#include "bpw-blueprint-reader-private.h"

G_BEGIN_DECLS

BpwBlueprint *_bpw_blueprint_read_native     (BpwJsonDoc  *doc,
                                              JsonObject  *root,
                                              GPtrArray   *warnings,
                                              GError     **error);
BpwBlueprint *_bpw_blueprint_import_calculon (BpwJsonDoc  *doc,
                                              JsonObject  *root,
                                              GPtrArray   *warnings,
                                              GError     **error);

/* One entry of "tiers" (bpw-blueprint-read-tier.c). */
gboolean      _bpw_blueprint_read_tier       (BpwBlueprintReader *r,
                                              JsonNode           *node,
                                              const char         *path,
                                              GError            **error);
/* "capabilities": dtypes and sparsity (bpw-blueprint-read-tier.c). */
gboolean      _bpw_blueprint_read_capabilities (BpwBlueprintReader *r,
                                                JsonObject         *root,
                                                GError            **error);

/* "stack": the software stack measured (bpw-blueprint-read-stack.c). Absent: untouched. */
gboolean      _bpw_blueprint_read_stack      (BpwBlueprintReader *r,
                                              JsonObject         *root,
                                              GError            **error);

G_END_DECLS
