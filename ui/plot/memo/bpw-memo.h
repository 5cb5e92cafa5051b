/* bpw-memo.h — the design-review memo of a study, as a multi-page PDF
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Sections, in order: the title page (the study, its scenarios and candidates, the
 * recommendation and the suite scores, and fixed metadata — tool version and SHA-256 of
 * the study and of every blueprint — so the memo can be reproduced); the headline numbers
 * of every candidate on every scenario and the rejected alternatives with why; the
 * review packet's sections as its Markdown has them (core/review: metadata, quality
 * thresholds and evidence, recommendation, candidates, bottleneck evidence, mitigations,
 * rejected alternatives, validation matrix, owners); the comparison chart; the roofline and the assignment of the best candidate; its simulated
 * timeline (the whole step and an excerpt) and buffer lifetimes; the trade curves of the
 * first serving scenario; a mapping-sheet excerpt; the assumptions with the blueprints'
 * provenance; and the validation section. Every figure is a libbpw-plot chart drawn with
 * the print style, every caption states its units and source.
 *
 * Validation: studies hold no measurements yet. BpwMemoOptions.validation is the hook a
 * profile importer fills in: called with the page at the start of the validation section,
 * it writes that section's content (tables, figures) and returns TRUE; without it, or
 * when it returns FALSE, the section states that the numbers are unvalidated estimates.
 */
#pragma once

#include <gio/gio.h>

#include "bpw-memo-page.h"
#include "bpw-study.h"

G_BEGIN_DECLS

/* Writes the validation section's content for @study; FALSE when it has nothing to
 * compare (no measurements). */
typedef gboolean (*BpwMemoValidationFunc) (BpwMemoPage *page,
                                           BpwStudy    *study,
                                           gpointer     user_data);

typedef struct
{
  const char            *baseline;        /* candidate deltas are against; NULL: the first */
  gint64                 trade_requests;  /* per arrival rate; 0: 500 */
  BpwMemoValidationFunc  validation;      /* nullable: the profile-import hook */
  gpointer               validation_data;
  gboolean               decimal_bytes;   /* memory in GB rather than GiB */
} BpwMemoOptions;

void      bpw_memo_options_init (BpwMemoOptions       *options);

/* Writes the memo of @study to @path (A4 landscape), through a temporary file renamed over
 * @path once complete, so a failure leaves the old file. Errors: an unknown baseline
 * (BPW_ERROR_INVALID_INPUT), a study without candidates or scenarios, the writer's when the
 * file cannot be written (G_FILE_ERROR), or cairo's (G_IO_ERROR_FAILED). */
gboolean  bpw_memo_write_pdf    (BpwStudy             *study,
                                 const BpwMemoOptions *options,
                                 const char           *path,
                                 GError              **error);

G_END_DECLS
