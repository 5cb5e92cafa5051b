/* bpw-chart-test-util.h — what the chart page tests share: the default study on a chart
 * page with its step simulated, and the same step simulated here on its own
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-ui-test-util.h"

G_BEGIN_DECLS

/* TRUE while the window computes, an edit is pending or the job has no step yet. */
gboolean       bpw_test_charts_pending  (gpointer       window);
/* A presented window on the default study showing @page ("timeline", "memory"), the
 * first candidate on @scenario (NULL: the first), its step simulated and drawn; the page's
 * chart in @view, laid out at its size. */
BpwWindow     *bpw_test_open_chart_page (const char    *page,
                                         const char    *scenario,
                                         BpwPlotView  **view);
/* The plan the Sheet shows, bound and simulated again on its own. */
BpwSimulation *bpw_test_simulate_shown  (BpwWindow     *window,
                                         BpwPlan      **plan);

G_END_DECLS
