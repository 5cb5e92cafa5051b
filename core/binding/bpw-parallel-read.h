/* bpw-parallel-read.h — the parts of a "parallel" object that mapping files and a study's
 * scenarios read alike
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-json-doc.h"
#include "bpw-scenario.h"

G_BEGIN_DECLS

/* The pipeline split of the "parallel" object @o at @ppath: one of "pp_split",
 * "pp_lighter" or "pp_layers" (or none: @parallel keeps its own), read into @parallel. The
 * list's entries are checked here, its sum against the model by bpw_stage_split_check()
 * (bpw_scenario_validate()). Errors name the member's line, column and path. */
gboolean bpw_parallel_read_pp_split (BpwJsonDoc   *doc,
                                     JsonObject   *o,
                                     const char   *ppath,
                                     BpwParallel  *parallel,
                                     GError      **error);

G_END_DECLS
