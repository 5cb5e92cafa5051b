/* bpw-calculon-bridge.h — Calculon's best executions as the workbench prices them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Calculon's search ranks executions by its own model. To see what the workbench's model
 * makes of the same plans, each execution becomes the mapping it stands for
 * (bpw_mapping_from_calculon_execution()) and is evaluated like a result of the
 * workbench's own search: the analytic estimate, and on request the full plan and its
 * simulation. Two of Calculon's decisions have no counterpart there and are approximated
 * (bpw_calculon_execution_approximations()): p2p_rs_ag prices as sequence parallelism, and
 * the all-gather redo of sequence parallelism is not modelled.
 */
#pragma once

#include "bpw-calculon-search.h"
#include "bpw-search.h"

G_BEGIN_DECLS

/* What the mapping of @exe approximates, as sentences (owned; empty when nothing). */
GPtrArray       *bpw_calculon_execution_approximations (const BpwCalculonExecution *exe);

/* A report with @report's counts and, in its order, one result per execution of its best
 * list: index (Calculon's), mapping, the workbench's estimate and (@reevaluate, @simulate)
 * its full plan and simulated step. @space is a space of the same problem (model,
 * scenario, blueprint; its limits do not matter): a result whose batch (Calculon's largest
 * multiple of DP) differs from the scenario's is evaluated at Calculon's batch. */
BpwSearchReport *bpw_calculon_search_report_to_workbench (const BpwCalculonSearchReport *report,
                                                          const BpwSearchSpace          *space,
                                                          gboolean                       reevaluate,
                                                          gboolean                       simulate);

/* bpw_calculon_search_report_to_json() with, in each best entry, a "workbench" object from
 * @workbench (the result of bpw_calculon_search_report_to_workbench() on @report): its
 * mapping (a bpw-mapping document), estimated_step_time_s, the simulated step_time_s where
 * it ran, legal, reasons (why the workbench finds it illegal) and approximations. */
char            *bpw_calculon_search_report_to_json_with (const BpwCalculonSearchReport *report,
                                                          const BpwCalculonSpace        *space,
                                                          const BpwSearchReport         *workbench);

G_END_DECLS
