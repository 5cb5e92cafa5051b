/* bpw-json-doc.h — a parsed JSON document that remembers where every value came from
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _BpwJsonDoc BpwJsonDoc;

/* Parses @data (of @length bytes, -1 for NUL-terminated) with depth and size limits and
 * records the line and column of every node. Syntax errors, NaN/Infinity, duplicate keys
 * and nesting deeper than the limit are refused with "FILE:LINE:COL: reason".
 * @filename is only used in messages. */
BpwJsonDoc *bpw_json_doc_new_from_data (const char  *filename,
                                        const char  *data,
                                        gssize       length,
                                        GError     **error);
BpwJsonDoc *bpw_json_doc_new_from_file (const char  *path,
                                        GError     **error);
void        bpw_json_doc_free          (BpwJsonDoc  *doc);

JsonNode   *bpw_json_doc_get_root      (BpwJsonDoc  *doc);
const char *bpw_json_doc_get_filename  (BpwJsonDoc  *doc);

/* 1-based line and column of @node's first character; FALSE if @node is not from @doc. */
gboolean    bpw_json_doc_locate        (BpwJsonDoc  *doc,
                                        JsonNode    *node,
                                        guint       *line,
                                        guint       *column);

/* Sets @error (BPW_ERROR_INVALID_INPUT) to "FILE:LINE:COL: PATH: MESSAGE" with the location
 * of @node (or of the document when @node is NULL). Always returns FALSE. */
gboolean    bpw_json_doc_error         (BpwJsonDoc  *doc,
                                        JsonNode    *node,
                                        const char  *path,
                                        GError     **error,
                                        const char  *format,
                                        ...) G_GNUC_PRINTF (5, 6);

/* Typed member readers. Each returns FALSE with a located error when the member is present
 * but wrong; when absent, it leaves *out untouched and returns TRUE (found = FALSE) unless
 * @required. @path is the JSON path of @object ("model"); messages append the member name.
 * A member whose value is JSON null counts as absent unless @required. get_int takes JSON
 * numbers only: integers, or doubles with an exact integral value below 2^53 ("1e6").
 * get_int/get_double ranges are inclusive; pass min = 1 (int) or G_MINDOUBLE (double) to
 * ask for a positive value, which the message then says. */
gboolean    bpw_json_doc_get_int       (BpwJsonDoc  *doc,
                                        JsonObject  *object,
                                        const char  *path,
                                        const char  *member,
                                        gboolean     required,
                                        gint64       min,
                                        gint64       max,
                                        gint64      *out,
                                        GError     **error);
gboolean    bpw_json_doc_get_double    (BpwJsonDoc  *doc,
                                        JsonObject  *object,
                                        const char  *path,
                                        const char  *member,
                                        gboolean     required,
                                        double       min,
                                        double       max,
                                        double      *out,
                                        GError     **error);
gboolean    bpw_json_doc_get_bool      (BpwJsonDoc  *doc,
                                        JsonObject  *object,
                                        const char  *path,
                                        const char  *member,
                                        gboolean     required,
                                        gboolean    *out,
                                        GError     **error);
/* Returned string is borrowed from the document. */
gboolean    bpw_json_doc_get_string    (BpwJsonDoc  *doc,
                                        JsonObject  *object,
                                        const char  *path,
                                        const char  *member,
                                        gboolean     required,
                                        const char **out,
                                        GError     **error);
/* One of @choices (NULL-terminated); *out gets its index. */
gboolean    bpw_json_doc_get_enum      (BpwJsonDoc  *doc,
                                        JsonObject  *object,
                                        const char  *path,
                                        const char  *member,
                                        gboolean     required,
                                        const char * const *choices,
                                        int         *out,
                                        GError     **error);
JsonObject *bpw_json_doc_get_object    (BpwJsonDoc  *doc,
                                        JsonObject  *object,
                                        const char  *path,
                                        const char  *member,
                                        gboolean     required,
                                        GError     **error);  /* NULL + error, or NULL when absent */
/* An optional object member: TRUE with *out NULL when @object leaves it out, FALSE + error
 * when it is not an object; else *out_path (owned) is its path and, when @warnings is
 * non-NULL, its members not in @known are warned about. */
gboolean    bpw_json_doc_get_section   (BpwJsonDoc          *doc,
                                        JsonObject          *object,
                                        const char          *path,
                                        const char          *member,
                                        const char * const  *known,
                                        GPtrArray           *warnings,
                                        JsonObject         **out,
                                        char               **out_path,
                                        GError             **error);

/* Warns (g_warning-free: appends to @warnings as "FILE:LINE:COL: PATH.MEMBER: unknown field")
 * about members of @object not in @known (NULL-terminated). */
void        bpw_json_doc_check_unknown (BpwJsonDoc  *doc,
                                        JsonObject  *object,
                                        const char  *path,
                                        const char * const *known,
                                        GPtrArray   *warnings);

/* Additions (input layer). The node that holds @object / @array, for locating messages about
 * the container itself; NULL if it is not from @doc. */
JsonNode   *bpw_json_doc_get_object_node (BpwJsonDoc *doc,
                                          JsonObject *object);
JsonNode   *bpw_json_doc_get_array_node  (BpwJsonDoc *doc,
                                          JsonArray  *array);

/* Looks up @member the way the typed readers do: TRUE with *out = NULL when absent (or JSON
 * null and not @required); FALSE with "FILE:LINE:COL: PATH: missing required field 'MEMBER'"
 * located at @object when @required and absent. */
gboolean    bpw_json_doc_get_member    (BpwJsonDoc  *doc,
                                        JsonObject  *object,
                                        const char  *path,
                                        const char  *member,
                                        gboolean     required,
                                        JsonNode   **out,
                                        GError     **error);
/* NULL + error, or NULL when absent. */
JsonArray  *bpw_json_doc_get_array     (BpwJsonDoc  *doc,
                                        JsonObject  *object,
                                        const char  *path,
                                        const char  *member,
                                        gboolean     required,
                                        GError     **error);

/* "PATH.MEMBER", or "MEMBER" when @path is NULL or empty. */
char       *bpw_json_doc_member_path   (const char  *path,
                                        const char  *member);
/* The value as a message shows it after "got": "2.5", "-4", "\"abc\"", "true", "null",
 * "an object", "an array". */
char       *bpw_json_doc_describe_node (JsonNode    *node);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwJsonDoc, bpw_json_doc_free)

G_END_DECLS
