/* bpw-review-document.h — the packet as sections of paragraphs and tables
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One layout of the packet's content that every rendering shares, so that the Markdown
 * and the memo PDF carry the same sections, sentences and table cells: the Markdown
 * writer here and the memo (ui/plot/memo) draw the same document. Numbers are formatted
 * here, once, with the C locale's decimal point.
 */
#pragma once

#include "bpw-review-packet.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_REVIEW_BLOCK_PARAGRAPH,
  BPW_REVIEW_BLOCK_TABLE,
} BpwReviewBlockKind;

typedef struct
{
  BpwReviewBlockKind  kind;
  char               *text;       /* PARAGRAPH */
  guint               n_columns;  /* TABLE: */
  GPtrArray          *cells;      /* char *, row by row, the header row first */
} BpwReviewBlock;

typedef struct
{
  char      *title;
  GPtrArray *blocks;  /* BpwReviewBlock * */
} BpwReviewSection;

typedef struct
{
  char      *title;
  GPtrArray *sections;  /* BpwReviewSection * */
} BpwReviewDocument;

BpwReviewDocument *bpw_review_document_new         (BpwReviewPacket         *packet);
void               bpw_review_document_free        (BpwReviewDocument       *doc);
/* GitHub-flavoured Markdown: "#" title, "##" sections, pipe tables. */
char              *bpw_review_document_to_markdown (const BpwReviewDocument *doc);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwReviewDocument, bpw_review_document_free)

G_END_DECLS
