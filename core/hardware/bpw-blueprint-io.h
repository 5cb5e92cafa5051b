/* bpw-blueprint-io.h — blueprint files: native JSON, Calculon system import, bundled blueprints
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-blueprint.h"
#include "bpw-json-doc.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_BLUEPRINT_FORMAT_UNKNOWN,
  BPW_BLUEPRINT_FORMAT_NATIVE,    /* {"format": "bpw-blueprint", "version": 1, ...} */
  BPW_BLUEPRINT_FORMAT_CALCULON,  /* Calculon system JSON: matrix, vector, mem1, networks */
} BpwBlueprintFormat;

#define BPW_BLUEPRINT_FORMAT_VERSION 1

/* Which format @root is, judged by content alone. */
BpwBlueprintFormat bpw_blueprint_detect_format (JsonNode *root);

/* Loads a blueprint of either format. Every wrong field gives a located error
 * "FILE:LINE:COL: JSON.PATH: reason"; unknown fields are appended to @warnings (nullable,
 * owned strings) instead. The result passes bpw_blueprint_validate(). */
BpwBlueprint *bpw_blueprint_load_doc   (BpwJsonDoc   *doc,
                                        GPtrArray    *warnings,
                                        GError      **error);
BpwBlueprint *bpw_blueprint_load_data  (const char   *filename,
                                        const char   *data,
                                        gssize        length,
                                        GPtrArray    *warnings,
                                        GError      **error);
BpwBlueprint *bpw_blueprint_load_file  (const char   *path,
                                        GPtrArray    *warnings,
                                        GError      **error);
/* A bundled name ("h100-sxm-80gb") or a file path: what `bpw --blueprint BP` accepts.
 * An existing file wins over a bundled name. */
BpwBlueprint *bpw_blueprint_load       (const char   *path_or_name,
                                        GPtrArray    *warnings,
                                        GError      **error);

/* Native JSON (format version BPW_BLUEPRINT_FORMAT_VERSION); every value is written as
 * {"value": n, "kind": k, "source": s} in SI base units, so that loading it gives a blueprint
 * bpw_blueprint_equal() to @bp. */
char         *bpw_blueprint_to_json    (const BpwBlueprint *bp);
gboolean      bpw_blueprint_save_file  (const BpwBlueprint *bp,
                                        const char         *path,
                                        GError            **error);

/* Bundled blueprints, compiled into the core as the bpw_core_data GResource. */
const char * const *bpw_blueprint_bundled_names (void);
BpwBlueprint *bpw_blueprint_load_bundled (const char  *name,
                                          GError     **error);

G_END_DECLS
