/* bpw-memo-packet.c — the review packet's sections in the memo
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The memo draws the packet's document (core/review/bpw-review-document.h), the one the
 * Markdown is written from, so that both carry the same sections, sentences and cells.
 */
#include "config.h"

#include "bpw-memo-private.h"
#include "bpw-review-document.h"

void
_bpw_memo_packet (BpwMemo         *m,
                  BpwReviewPacket *packet)
{
  g_autoptr(BpwReviewDocument) doc = bpw_review_document_new (packet);

  bpw_memo_page_heading (&m->page, 1, doc->title);
  for (guint s = 0; s < doc->sections->len; s++)
    {
      const BpwReviewSection *section = g_ptr_array_index (doc->sections, s);

      bpw_memo_page_heading (&m->page, 2, section->title);
      for (guint k = 0; k < section->blocks->len; k++)
        {
          const BpwReviewBlock *block = g_ptr_array_index (section->blocks, k);

          if (block->kind == BPW_REVIEW_BLOCK_PARAGRAPH)
            bpw_memo_page_paragraph (&m->page, BPW_PLOT_FONT_BODY, NULL, block->text);
          else
            bpw_memo_page_table (&m->page, (const char * const *) block->cells->pdata,
                                 block->cells->len / block->n_columns, block->n_columns,
                                 NULL);
        }
    }
}
