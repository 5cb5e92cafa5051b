/* bpw-search-test-util.h — what the search dialog's tests share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-search-dialog.h"
#include "bpw-window.h"

G_BEGIN_DECLS

/* Selects @candidate × @scenario in @window and presents a search dialog for them. */
BpwSearchDialog *bpw_search_test_open            (BpwWindow             *window,
                                                  guint                  candidate,
                                                  guint                  scenario);
/* A small part of the space: one pipeline stage, two fusion sets, automatic collective
 * algorithms. */
void             bpw_search_test_small_limits    (BpwSearchLimits       *limits);
/* The mappings are the same plan (search names its mappings "search-INDEX"). */
void             bpw_search_test_assert_same_plan (const BpwMapping     *a,
                                                   const BpwMapping     *b);
/* For bpw_test_wait(): the dialog's search or sweep runs; the Compare page has no data
 * of its newest study yet. */
gboolean         bpw_search_test_running         (gpointer               dialog);
gboolean         bpw_search_test_compare_busy    (gpointer               page);
/* Sets *@finalized once @object is finalized; bpw_search_test_alive() until then. */
void             bpw_search_test_watch_finalize  (gpointer               object,
                                                  gboolean              *finalized);
gboolean         bpw_search_test_alive           (gpointer               finalized);

G_END_DECLS
