/* bpw-simulation-job.h — the simulated step of the shown candidate, off the main thread
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Timeline and Memory pages show one candidate × scenario — the one the Sheet shows.
 * The job binds its plan and simulates one step in a worker thread, and fills a timeline
 * and a lifetimes plot (which emit "changed"). It runs again only when the inputs changed
 * (another candidate or scenario, an edit of its blueprint, mapping or scenario) and
 * cancels stale work. While no page that shows it is visible (inactive), it binds and
 * indexes the plan's lineages only (for linked selection), and simulates once a page
 * shows it.
 */
#pragma once

#include <glib-object.h>

#include "bpw-core.h"
#include "bpw-lifetimes-plot.h"
#include "bpw-lineage-index.h"
#include "bpw-timeline-plot.h"

G_BEGIN_DECLS

#define BPW_TYPE_SIMULATION_JOB (bpw_simulation_job_get_type ())

G_DECLARE_FINAL_TYPE (BpwSimulationJob, bpw_simulation_job, BPW, SIMULATION_JOB, GObject)

BpwSimulationJob      *bpw_simulation_job_new        (void);
/* Follows @study's @candidate × @scenario (indices; out of range or a NULL study: nothing
 * to show). Starts work unless the plots already come from the same inputs (and @force is
 * FALSE); TRUE when it started. */
gboolean               bpw_simulation_job_update     (BpwSimulationJob *self,
                                                      BpwStudy         *study,
                                                      guint             candidate,
                                                      guint             scenario,
                                                      gboolean          force);
/* Inactive (the default), the job only notes what changed; made active, it simulates what
 * it noted. */
void                   bpw_simulation_job_set_active (BpwSimulationJob *self,
                                                      gboolean          active);
gboolean               bpw_simulation_job_get_active (BpwSimulationJob *self);
/* Cancels the work in flight (the window closes). */
void                   bpw_simulation_job_cancel     (BpwSimulationJob *self);

/* "busy": work is in flight (a simulation, or indexing while inactive). */
gboolean               bpw_simulation_job_get_busy   (BpwSimulationJob *self);
/* "error" (nullable): why the shown inputs could not be simulated. */
const char            *bpw_simulation_job_get_error  (BpwSimulationJob *self);
/* TRUE when the plots show a simulated step (FALSE while there is none, or on error). */
gboolean               bpw_simulation_job_get_has_result (BpwSimulationJob *self);
/* Simulations finished so far. */
guint                  bpw_simulation_job_get_n_runs (BpwSimulationJob *self);

BpwTimelinePlot       *bpw_simulation_job_get_timeline_plot  (BpwSimulationJob *self);
BpwLifetimesPlot      *bpw_simulation_job_get_lifetimes_plot (BpwSimulationJob *self);
/* (nullable): the classes of the simulated plan's operations, for linked selection. */
const BpwLineageIndex *bpw_simulation_job_get_lineage_index  (BpwSimulationJob *self);
/* Pipeline stages (lane ranks) of the simulated step; 0 without one. */
guint                  bpw_simulation_job_get_n_stages (BpwSimulationJob *self);
/* The stage the lifetimes chart shows: -1 (the default) for the one with the highest
 * peak. Rebuilds the chart from the kept simulation. */
void                   bpw_simulation_job_set_lifetimes_stage (BpwSimulationJob *self,
                                                               gint64            stage);
gint64                 bpw_simulation_job_get_lifetimes_stage (BpwSimulationJob *self);

G_END_DECLS
