/* bpw-facts-details.h — the work, step and conservation facts of one scenario, side by side
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "bpw-facts-row.h"

G_BEGIN_DECLS

#define BPW_TYPE_FACTS_DETAILS (bpw_facts_details_get_type ())

G_DECLARE_FINAL_TYPE (BpwFactsDetails, bpw_facts_details, BPW, FACTS_DETAILS, GtkWidget)

GtkWidget *bpw_facts_details_new     (void);
/* @row (nullable): the scenario to show; NULL shows a hint. */
void       bpw_facts_details_set_row (BpwFactsDetails *self,
                                      BpwFactsRow     *row);
void       bpw_facts_details_set_units (BpwFactsDetails *self,
                                        BpwByteUnits     units);

G_END_DECLS
