/* bpw-chart-stack.h — a chart, or why there is none yet: empty, computing, failed
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Timeline and Memory pages show the simulated step of one job; while there is none
 * they show a status page instead: nothing to simulate (empty), simulating, or the error.
 * This widget follows the job and shows the right one.
 */
#pragma once

#include <adwaita.h>

#include "bpw-simulation-job.h"

G_BEGIN_DECLS

#define BPW_TYPE_CHART_STACK (bpw_chart_stack_get_type ())

G_DECLARE_FINAL_TYPE (BpwChartStack, bpw_chart_stack, BPW, CHART_STACK, GtkWidget)

/* The chart (a property, so that templates can set it). */
void        bpw_chart_stack_set_chart (BpwChartStack    *self,
                                       GtkWidget        *chart);
/* Follows @job (nullable): "chart" while it has a result, else "loading" while it runs,
 * "error" with its message, or "empty". */
void        bpw_chart_stack_set_job   (BpwChartStack    *self,
                                       BpwSimulationJob *job);
/* "chart", "empty", "loading" or "error". */
const char *bpw_chart_stack_get_state (BpwChartStack    *self);

G_END_DECLS
