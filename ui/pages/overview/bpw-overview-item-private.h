/* bpw-overview-item-private.h — the fields of BpwOverviewItem, shared by its two files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * bpw-overview-item.c fills the numbers (the one place they come from);
 * bpw-overview-item-columns.c formats, compares and titles them;
 * bpw-overview-item-stack.c lists the software stack's implementation transformations.
 */
#pragma once

#include "bpw-overview-item.h"

G_BEGIN_DECLS

struct _BpwOverviewItem
{
  GObject                parent_instance;

  /* Owned */
  char                  *candidate;
  char                  *blueprint_ref;
  char                  *device;           /* nullable: the blueprint's product name */
  char                  *blueprint_error;  /* nullable: why the candidate could not be set up */
  BpwFactsRow           *scenario;

  /* Filled by bpw_overview_item_fill_facts() */
  gint64                 devices;
  guint64                parameters;
  BpwU128                flops_model;
  guint64                memory;           /* facts: state and activations per device */
  guint64                capacity;

  /* Filled by _bpw_overview_item_fill_stack() (bpw-overview-item-stack.c) */
  GArray                *transformations;  /* nullable: BpwOverviewTransformation */
  char                  *stack_name;       /* nullable */
  char                  *stack_source;     /* nullable */

  /* Filled by bpw_overview_item_fill_evaluation(); strings owned */
  gboolean               evaluated;
  BpwOverviewEvaluation  evaluation;
};

/* bpw-overview-item-stack.c: binds the candidate's plan for its implementation
 * transformations (worker thread). */
void  _bpw_overview_item_fill_stack (BpwOverviewItem         *self,
                                     const BpwOverviewInputs *inputs);

G_END_DECLS
