/* bpw-mapping-private.h — shared between the mapping reader and the file entry points
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-mapping.h"

G_BEGIN_DECLS

/* Reads the members of a whole mapping file's root @object (format and version already
 * checked) over @mapping, names resolved in @blueprint (nullable; without one, left as
 * they were when @names_later, else refused); on failure @mapping is left as it was. */
gboolean _bpw_mapping_read_file_object (BpwJsonDoc         *doc,
                                        JsonObject         *object,
                                        const BpwBlueprint *blueprint,
                                        gboolean            names_later,
                                        BpwMapping         *mapping,
                                        GPtrArray          *warnings,
                                        GError            **error);

G_END_DECLS
