/* bpw-plot-test-measured.h — a measured profile of known times for the plot tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-correlate.h"
#include "bpw-measurement-run.h"

G_BEGIN_DECLS

/* GPT-2 (bf16, batch 4 of 2 × 512 tokens) on an A100 in @pp pipeline stages, simulated;
 * its own trace (bpw_trace_write()) with every slice's duration times @factor loaded as
 * the profile, and correlated with the simulation by lineage: every measured time is
 * exactly @factor times the predicted one, up to the trace's µs rounding. */
typedef struct
{
  BpwPlan        *plan;
  BpwSimulation  *sim;
  BpwProfile     *profile;
  BpwCorrelation *corr;
} BpwPlotTestMeasured;

void  bpw_plot_test_measured_init  (BpwPlotTestMeasured *m,
                                    gint64               pp,
                                    double               factor);
void  bpw_plot_test_measured_clear (BpwPlotTestMeasured *m);

/* The study tests/data/studies/gpt2-cpu.bpw-study.json: its measurement (the real PyTorch
 * run, with extra work) executed. FALSE (the test skipped) when it cannot be found. */
gboolean bpw_plot_test_measured_fixture (BpwMeasurementRun *run);

G_END_DECLS
