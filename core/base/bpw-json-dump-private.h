/* bpw-json-dump-private.h — JSON text from a JsonNode tree, with shortest round-trip doubles
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* json-glib 1.6 prints every double with 17 significant digits ("0.050000000000000003"),
 * which makes saved studies hard to read and diff. This is bpw_json_writer_node() in a
 * pretty writer: the shortest decimal that parses back to the same double, object member
 * order kept, two-space indents, arrays of scalars on one line. Returns a NUL-terminated
 * string ending in a newline (transfer full). */
char *_bpw_json_dump (JsonNode *node);

G_END_DECLS
