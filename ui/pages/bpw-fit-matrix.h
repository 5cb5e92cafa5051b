/* bpw-fit-matrix.h — the workload fit matrix: candidates × scenarios, SLA verdict and bottleneck
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One tile per candidate on each scenario, from a comparison (core/study/bpw-compare.h): whether
 * the plan meets the scenario's SLA and by what margin, (limit − value) / limit, or how
 * its throughput compares with the best candidate's where the scenario has no SLA; and
 * the bottleneck class. Tiles are buttons: activating one emits "cell-activated".
 */
#pragma once

#include <gtk/gtk.h>

#include "bpw-compare-data.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_FIT_NONE,      /* no such cell, or not computed */
  BPW_FIT_PASS,      /* legal, meets the SLA */
  BPW_FIT_FAIL,      /* legal, misses the SLA */
  BPW_FIT_NO_SLA,    /* legal; the scenario has no SLA */
  BPW_FIT_ILLEGAL,   /* the plan is illegal, or could not be evaluated */
} BpwFitVerdict;

#define BPW_TYPE_FIT_MATRIX (bpw_fit_matrix_get_type ())

G_DECLARE_FINAL_TYPE (BpwFitMatrix, bpw_fit_matrix, BPW, FIT_MATRIX, GtkWidget)

GtkWidget     *bpw_fit_matrix_new              (void);
/* Shows the fit of @data (read now, not kept); NULL shows nothing. */
void           bpw_fit_matrix_set_data         (BpwFitMatrix         *self,
                                                const BpwCompareData *data);
guint          bpw_fit_matrix_get_n_candidates (BpwFitMatrix         *self);
guint          bpw_fit_matrix_get_n_scenarios  (BpwFitMatrix         *self);
const char    *bpw_fit_matrix_get_candidate    (BpwFitMatrix         *self,
                                                guint                 candidate);
const char    *bpw_fit_matrix_get_scenario     (BpwFitMatrix         *self,
                                                guint                 scenario);
BpwFitVerdict  bpw_fit_matrix_get_verdict      (BpwFitMatrix         *self,
                                                guint                 candidate,
                                                guint                 scenario);
/* The tile's two lines as shown, joined by a newline; NULL for no such cell. */
char          *bpw_fit_matrix_dup_cell_text    (BpwFitMatrix         *self,
                                                guint                 candidate,
                                                guint                 scenario);
/* The tile (a GtkButton), or NULL. */
GtkWidget     *bpw_fit_matrix_get_cell         (BpwFitMatrix         *self,
                                                guint                 candidate,
                                                guint                 scenario);

G_END_DECLS
