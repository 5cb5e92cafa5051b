/* bpw-mapping-reader-private.h — what the mapping reader's files share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-json-doc.h"
#include "bpw-mapping.h"

G_BEGIN_DECLS

/* Largest tile edge accepted: far beyond any on-chip memory, small enough that products
 * of three edges stay inside 64 bits. */
#define BPW_MAPPING_MAX_TILE (G_GINT64_CONSTANT (1) << 20)

typedef struct
{
  BpwJsonDoc         *doc;
  const BpwBlueprint *bp;        /* nullable */
  GPtrArray          *warnings;  /* nullable */
  /* Without a blueprint: names are left as they were, for a read against the blueprint
   * once it is known (bpw_mapping_check_file_refs()), instead of refused. */
  gboolean            names_later;
} BpwMappingReader;

void     _bpw_mapping_warn_unknown   (BpwMappingReader   *r,
                                     JsonObject         *object,
                                     const char         *path,
                                     const char * const *known);
gboolean _bpw_mapping_node_is_string (JsonNode           *node);
gboolean _bpw_mapping_fail_got       (BpwMappingReader   *r,
                                     JsonNode           *node,
                                     const char         *path,
                                     const char         *expected,
                                     GError            **error);
/* The mapping's "precision" member of @object, if present, over @policy. */
gboolean _bpw_mapping_read_precision (BpwMappingReader   *r,
                                     JsonObject         *object,
                                     const char         *path,
                                     BpwPrecisionPolicy *policy,
                                     GError            **error);

G_END_DECLS
