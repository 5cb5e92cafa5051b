/* bpw-workload-io-private.h — between the workload loader (bpw-workload-io.c) and the readers
 * it dispatches to
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-workload-io.h"
#include "bpw-workload-reader-private.h"

G_BEGIN_DECLS

/* Runs bpw_model_spec_validate() and turns its "model.FIELD: reason" message into a
 * located one: FIELD is mapped to the key it came from through @key_map (pairs of
 * native field and file key, NULL-terminated; NULL = the same names) and the error points
 * at that key in @object, whose JSON path is @path ("" for the root). Messages that name
 * no field present in the file get the file name as prefix. */
gboolean _bpw_workload_validate_located (BpwJsonDoc         *doc,
                                         JsonObject         *object,
                                         const char         *path,
                                         const char * const *key_map,
                                         const BpwModelSpec *spec,
                                         GError            **error);

/* "a/b/config.json" -> "b"; "a/gpt.json" -> "gpt". Transfer full. */
char    *_bpw_workload_name_from_filename (const char *filename);

/* The readers fill @spec (already defaulted) without validating it; the caller applies
 * a vocabulary override and validates with the returned @key_map. */
gboolean _bpw_workload_read_hf       (BpwJsonDoc          *doc,
                                      JsonObject          *root,
                                      BpwModelSpec        *spec,
                                      const char * const **key_map,
                                      GPtrArray           *warnings,
                                      GError             **error);
gboolean _bpw_workload_read_calculon (BpwJsonDoc          *doc,
                                      JsonObject          *root,
                                      BpwModelSpec        *spec,
                                      BpwScenario         *scenario_hint,
                                      const char * const **key_map,
                                      GPtrArray           *warnings,
                                      GError             **error);

G_END_DECLS
