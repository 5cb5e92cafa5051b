/* bpw-workload-reader-private.h — size limits, unknown-key warnings and the derived head
 * dimension, shared by the native, Hugging Face and Calculon workload readers
 * (bpw-workload-reader.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-json-doc.h"
#include "bpw-model-spec.h"

G_BEGIN_DECLS

/* Upper bounds for single sizes read from any file. The readers only ask for a positive
 * integer ("expected a positive integer, got -4"); the ranges and every derived count are
 * checked once, by bpw_model_spec_validate(), whose messages are then located. */
#define BPW_WORKLOAD_MAX_WIDTH   G_MAXINT64
#define BPW_WORKLOAD_MAX_LAYERS  G_MAXINT64
#define BPW_WORKLOAD_MAX_HEADS   G_MAXINT64

/* bpw_json_doc_check_unknown() for a caller that may not want the warnings. */
static inline void
_bpw_workload_check_unknown (BpwJsonDoc         *doc,
                             JsonObject         *object,
                             const char         *path,
                             const char * const *known,
                             GPtrArray          *warnings)
{
  if (warnings != NULL)
    bpw_json_doc_check_unknown (doc, object, path, known, warnings);
}

/* head_dim = hidden / heads when the file does not give it; a located error otherwise. */
gboolean _bpw_workload_derive_head_dim (BpwJsonDoc   *doc,
                                        JsonObject   *object,
                                        const char   *path,
                                        const char   *heads_key,
                                        BpwModelSpec *spec,
                                        GError      **error);

/* An array of increasing integers in [@min, @max] (layer indices), at most @max_count; a
 * located error names the element ("text_config.cross_attention_layers[8]"). Absent:
 * *n untouched, TRUE. */
gboolean _bpw_workload_read_index_list (BpwJsonDoc   *doc,
                                        JsonObject   *object,
                                        const char   *path,
                                        const char   *member,
                                        gint64        min,
                                        gint64        max,
                                        gint64        max_count,
                                        gint32       *out,
                                        gint64       *n,
                                        GError      **error);

G_END_DECLS
