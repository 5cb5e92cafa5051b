/* bpw-added-button.h — "Clear N Added": the candidates a page shows from outside the study
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Trade-offs and Compare pages can show candidates the study does not have (a
 * search's plans, a sweep's points: bpw_study_worker_add_candidate_for_scenario()). This
 * button in their toolbar says how many there are and which (its tooltip), is hidden when
 * there are none, and removes them when pressed (bpw_study_worker_clear_added()).
 */
#pragma once

#include <adwaita.h>

#include "bpw-study-worker.h"

G_BEGIN_DECLS

#define BPW_TYPE_ADDED_BUTTON (bpw_added_button_get_type ())

G_DECLARE_FINAL_TYPE (BpwAddedButton, bpw_added_button, BPW, ADDED_BUTTON, GtkButton)

/* Follows @worker (nullable) from now on. */
void            bpw_added_button_set_worker (BpwAddedButton *self,
                                             BpwStudyWorker *worker);
BpwStudyWorker *bpw_added_button_get_worker (BpwAddedButton *self);

G_END_DECLS
