/* bpw-json-writer.h — a small streaming JSON writer that keeps 128-bit integers exact
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "bpw-types.h"

G_BEGIN_DECLS

/* The house's one JSON writer. json-glib's generator holds integers as gint64 (whole-job
 * FLOP counts need 128 bits) and prints doubles with 17 digits; this writer streams values
 * and JsonNode trees alike. It tracks nesting to place commas. */
typedef struct
{
  GString *out;
  guint    depth;
  gboolean need_comma[64];
  gboolean pretty;
} BpwJsonWriter;

void  bpw_json_writer_init        (BpwJsonWriter *w, gboolean pretty);
char *bpw_json_writer_finish      (BpwJsonWriter *w);  /* transfer full */
void  bpw_json_writer_begin_object (BpwJsonWriter *w, const char *key);  /* key NULL in arrays */
void  bpw_json_writer_end_object  (BpwJsonWriter *w);
void  bpw_json_writer_begin_array (BpwJsonWriter *w, const char *key);
void  bpw_json_writer_end_array   (BpwJsonWriter *w);
void  bpw_json_writer_string      (BpwJsonWriter *w, const char *key, const char *value);
void  bpw_json_writer_int         (BpwJsonWriter *w, const char *key, gint64 value);
void  bpw_json_writer_u128        (BpwJsonWriter *w, const char *key, BpwU128 value);
void  bpw_json_writer_double      (BpwJsonWriter *w, const char *key, double value);
/* The shortest decimal (1 to 17 significant digits) that reads back to @value, kept a
 * double when read back ("1.0", not "1"): what saved documents use, easy to read and diff.
 * NaN and infinities are null. */
void  bpw_json_writer_double_shortest (BpwJsonWriter *w, const char *key, double value);
void  bpw_json_writer_bool        (BpwJsonWriter *w, const char *key, gboolean value);
void  bpw_json_writer_null        (BpwJsonWriter *w, const char *key);
/* A JsonNode tree, member order kept: doubles as bpw_json_writer_double_shortest(),
 * arrays of scalars (and nulls) on one line when pretty ("[1, 2, 3]"). */
void  bpw_json_writer_node        (BpwJsonWriter *w, const char *key, JsonNode *node);
/* A complete JSON value, written as it is (another writer's or json-glib's output). */
void  bpw_json_writer_raw         (BpwJsonWriter *w, const char *key, const char *json);

G_END_DECLS
