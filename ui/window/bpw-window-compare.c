/* bpw-window-compare.c — the pages that weigh candidates against each other
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Trade-offs and Compare pages each take a copy of the study whenever the window
 * computes the Overview (a new study, something added, an edit, undo or redo), and work
 * on it in their own worker threads; a copy identical to the last one costs nothing more.
 * The Compare page's comparison also fills the Overview's fit matrix, so that the fit is
 * computed once for both.
 */
#define G_LOG_DOMAIN "bpw-window-compare"

#include "config.h"

#include "bpw-window-private.h"

static void
bpw_window_compare_updated_cb (BpwWindow *self)
{
  bpw_overview_page_set_fit (self->overview_page,
                             bpw_compare_page_get_data (self->compare_page));
}

void
_bpw_window_compare_init (BpwWindow *self)
{
  g_signal_connect_object (self->compare_page, "updated",
                           G_CALLBACK (bpw_window_compare_updated_cb), self, G_CONNECT_SWAPPED);
}

void
_bpw_window_compare_update (BpwWindow *self)
{
  bpw_tradeoffs_page_set_study (self->tradeoffs_page, self->study);
  bpw_compare_page_set_study (self->compare_page, self->study);
}
