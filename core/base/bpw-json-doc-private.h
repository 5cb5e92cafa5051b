/* bpw-json-doc-private.h — BpwJsonDoc internals shared by its parser and its typed readers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-file.h"
#include "bpw-json-doc.h"

G_BEGIN_DECLS

#define BPW_JSON_MAX_DEPTH 64
#define BPW_JSON_MAX_SIZE  BPW_FILE_MAX_INPUT_SIZE
/* Values (scalars, arrays and objects) in one document. Each costs about 130 bytes parsed
 * (node, position, index entry), so a 64 MiB file of one-character values would take
 * gigabytes; 2^22 values keep a document near half a GiB while the largest inputs read
 * here, profile traces of some 10^5 events, need a few times fewer. */
#define BPW_JSON_MAX_VALUES (4u * 1024 * 1024)

typedef struct
{
  guint line;
  guint column;
} BpwJsonPosition;

struct _BpwJsonDoc
{
  /* owned */
  char       *filename;
  JsonNode   *root;
  GArray     *positions;   /* BpwJsonPosition, one per node */
  GHashTable *nodes;       /* JsonNode * -> GUINT_TO_POINTER (index into positions + 1) */
  GHashTable *containers;  /* JsonObject * or JsonArray * -> the JsonNode holding it (borrowed) */
};

/* The parser's cursor; bpw-json-doc.c parses containers, bpw-json-lex.c scalar tokens. */
typedef struct
{
  BpwJsonDoc *doc;
  const char *p;        /* cursor */
  const char *end;
  guint       line;     /* of the cursor, 1-based */
  guint       column;   /* of the cursor, 1-based, in characters */
  guint       depth;
  guint       values;   /* values begun so far */
  GError    **error;
} BpwJsonParser;

/* Columns count characters, so continuation bytes of UTF-8 sequences do not advance them.
 * The document is validated as UTF-8 before parsing starts. */
static inline void
bpw_json_parser_advance (BpwJsonParser *self)
{
  guchar c = (guchar) *self->p++;

  if (c == '\n')
    {
      self->line++;
      self->column = 1;
    }
  else if ((c & 0xC0) != 0x80)
    {
      self->column++;
    }
}

void     bpw_json_parser_skip_ws  (BpwJsonParser  *self);
/* Sets "FILE:LINE:COL: MESSAGE"; returns FALSE. */
gboolean bpw_json_parser_fail_at  (BpwJsonParser  *self,
                                   guint           line,
                                   guint           column,
                                   const char     *format,
                                   ...) G_GNUC_PRINTF (4, 5);
/* Fails at the cursor with "expected WHAT, got <the character there>". */
gboolean bpw_json_parser_expected (BpwJsonParser  *self,
                                   const char     *what);
/* Each starts at the token's first character and leaves the cursor after it. */
gboolean bpw_json_parse_string    (BpwJsonParser  *self,
                                   char          **out);
gboolean bpw_json_parse_number    (BpwJsonParser  *self,
                                   JsonNode      **out);
gboolean bpw_json_parse_word      (BpwJsonParser  *self,
                                   JsonNode      **out);

gboolean bpw_json_doc_error_valist (BpwJsonDoc  *doc,
                                    JsonNode    *node,
                                    const char  *path,
                                    GError     **error,
                                    const char  *format,
                                    va_list      args) G_GNUC_PRINTF (5, 0);

G_END_DECLS
