/* bpw-review-dialog-private.h — what the files of BpwReviewDialog share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * bpw-review-dialog.c: lifecycle, the owners, quality thresholds and evidence, their forms
 * and the review packet's preview;
 * bpw-review-dialog-prices.c: the Prices group, one form per candidate, and the edits that
 * set or clear a candidate's price.
 */
#pragma once

#include "bpw-review-dialog.h"

G_BEGIN_DECLS

struct _BpwReviewDialog
{
  AdwWindow           parent_instance;

  BpwStudy           *study;        /* owned */
  BpwReviewApplyFunc  apply;
  gpointer            apply_data;

  AdwToastOverlay    *toasts;
  AdwPreferencesGroup *groups[3];   /* owners, thresholds, evidence */
  GPtrArray          *item_rows[3]; /* the rows of the study's items, per group */
  AdwPreferencesGroup *prices;
  GPtrArray          *price_rows;   /* one expander per candidate */

  /* The forms */
  AdwEntryRow        *owner_role, *owner_name, *owner_contact;
  AdwEntryRow        *threshold_metric, *threshold_max, *threshold_source;
  AdwComboRow        *threshold_scale, *threshold_better;
  AdwEntryRow        *evidence_mode, *evidence_metric, *evidence_value, *evidence_baseline;
  AdwEntryRow        *evidence_max, *evidence_source;

  /* The packet's preview */
  AdwActionRow       *packet_row;
  GtkSpinner         *packet_spinner;
  GtkTextBuffer      *packet_text;
  GCancellable       *cancellable;   /* nullable: while a packet is built */
  char               *markdown;
  const char         *decision;
};

/* A number as typed, in the C locale's or the user's decimal notation; NAN when @optional
 * and empty. FALSE with @error naming @field otherwise. */
gboolean _bpw_review_parse_number          (const char       *text,
                                            const char       *field,
                                            gboolean          optional,
                                            double           *value,
                                            GError          **error);
/* Applies (and takes) @edit through the window, then shows the study again. */
gboolean _bpw_review_dialog_apply          (BpwReviewDialog  *self,
                                            BpwStudyEdit     *edit,
                                            GError          **error);
void     _bpw_review_dialog_show_error     (BpwReviewDialog  *self,
                                            GError           *error);

/* Rebuilds the Prices group's rows from the study, keeping the forms the user had open. */
void     _bpw_review_dialog_refresh_prices (BpwReviewDialog  *self);

G_END_DECLS
