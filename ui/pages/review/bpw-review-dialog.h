/* bpw-review-dialog.h — editing a study's review data: owners, quality thresholds, evidence,
 * prices
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a release review needs and nothing can compute: who answers for the decision, how
 * far each quality metric may degrade under a reduced precision or sparsity, and the
 * measured quality of each mode. A preferences-like window, one group per list, each item
 * a row with a button that removes it, and a form that adds one. Every change replaces
 * the list whole as one study edit, applied through the window (so it is undone with
 * Ctrl+Z, saved and autosaved like any other); a refused change leaves the study as it
 * was and says why. Each piece of evidence shows the study's verdict on its mode. Each
 * candidate's price (amount, unit, source) is set or cleared as one edit of its own.
 *
 * Below, the review packet built from the study as it is (bpw-review-packet.h), shown
 * read-only as its Markdown, with its recommendation; "Export…" writes it to a file
 * (win.export-packet).
 */
#pragma once

#include <adwaita.h>

#include "bpw-study-edit.h"

G_BEGIN_DECLS

#define BPW_TYPE_REVIEW_DIALOG (bpw_review_dialog_get_type ())

G_DECLARE_FINAL_TYPE (BpwReviewDialog, bpw_review_dialog, BPW, REVIEW_DIALOG, AdwWindow)

/* Applies (and takes) @edit; FALSE with @error when it is refused. */
typedef gboolean (*BpwReviewApplyFunc) (BpwStudyEdit  *edit,
                                        gpointer       user_data,
                                        GError       **error);

BpwReviewDialog *bpw_review_dialog_new         (GtkWindow          *parent,
                                                BpwStudy           *study,
                                                BpwReviewApplyFunc  apply,
                                                gpointer            user_data);
/* Shows the study's lists again (after an undo, say). */
void             bpw_review_dialog_refresh     (BpwReviewDialog    *self);
BpwStudy        *bpw_review_dialog_get_study   (BpwReviewDialog    *self);

/* Builds the packet of the study as it is now, off the main thread, and shows it. */
void             bpw_review_dialog_preview     (BpwReviewDialog    *self);
gboolean         bpw_review_dialog_get_busy    (BpwReviewDialog    *self);
/* The packet shown, as Markdown (nullable), and its recommendation (nullable). */
const char      *bpw_review_dialog_get_preview (BpwReviewDialog    *self);
const char      *bpw_review_dialog_get_decision (BpwReviewDialog   *self);

/* The forms, as a user fills them in (tests drive them the same way). FALSE with @error
 * when a field does not read or the study refuses the item. */
gboolean         bpw_review_dialog_add_owner   (BpwReviewDialog    *self,
                                                const char         *role,
                                                const char         *name,
                                                const char         *contact,
                                                GError            **error);
gboolean         bpw_review_dialog_add_threshold (BpwReviewDialog  *self,
                                                  const char       *metric,
                                                  const char       *max_degradation,
                                                  BpwQualityScale   scale,
                                                  BpwQualityDirection better,
                                                  const char       *source,
                                                  GError          **error);
gboolean         bpw_review_dialog_add_evidence (BpwReviewDialog   *self,
                                                 const char        *mode,
                                                 const char        *metric,
                                                 const char        *value,
                                                 const char        *baseline,
                                                 const char        *max_degradation,
                                                 const char        *source,
                                                 GError           **error);
/* Candidate @candidate's price becomes @amount (typed) US dollars per @unit, from
 * @source; or none. FALSE with @error when the amount does not read or the study refuses
 * the price (bpw_study_price_check()). */
gboolean         bpw_review_dialog_set_price   (BpwReviewDialog    *self,
                                                guint               candidate,
                                                const char         *amount,
                                                BpwPriceUnit        unit,
                                                const char         *source,
                                                GError            **error);
gboolean         bpw_review_dialog_clear_price (BpwReviewDialog    *self,
                                                guint               candidate,
                                                GError            **error);
/* Removes item @index of list "owners", "quality_thresholds" or "quality_evidence". */
gboolean         bpw_review_dialog_remove      (BpwReviewDialog    *self,
                                                const char         *list,
                                                guint               index,
                                                GError            **error);

G_END_DECLS
