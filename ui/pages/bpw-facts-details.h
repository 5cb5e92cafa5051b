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

/* Below the conservation of the semantic work, apart from it: the implementation
 * transformations the blueprint's software stack adds for @candidate on the row's
 * scenario. Starts the list anew; @candidate NULL hides it. @stack_name and
 * @stack_source (nullable) say what stack they come from and its status (measured,
 * calibrated from a pack, estimate). */
void       bpw_facts_details_set_stack (BpwFactsDetails *self,
                                        const char      *candidate,
                                        const char      *stack_name,
                                        const char      *stack_source);
/* One implementation transformation, whole job per step: device-seconds summed over every
 * rank, added device-memory bytes (0: none) and kernels. */
void       bpw_facts_details_add_transformation (BpwFactsDetails *self,
                                                 const char      *name,
                                                 const char      *description,
                                                 double           time_s,
                                                 double           bytes,
                                                 double           kernels);
/* The value a transformation's row shows, for tests; NULL when there is no such row. */
const char *bpw_facts_details_get_transformation_text (BpwFactsDetails *self,
                                                       const char      *name);

G_END_DECLS
