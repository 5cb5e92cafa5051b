/* bpw-core.h — the one header app/ and ui/ include
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#define BPW_CORE_INSIDE
#include "bpw-types.h"
#include "bpw-error.h"
#include "bpw-model-spec.h"
#include "bpw-scenario.h"
#include "bpw-work-graph.h"
#include "bpw-dist-work.h"
#include "bpw-facts.h"
#include "bpw-json-writer.h"
#include "bpw-json-doc.h"
#include "bpw-quantity.h"
#include "bpw-workload-io.h"
#include "bpw-study.h"
#include "bpw-blueprint.h"
#include "bpw-blueprint-io.h"
#include "bpw-mapping.h"
#include "bpw-cost.h"
#include "bpw-plan.h"
#include "bpw-evaluation.h"
#include "bpw-estimator.h"
#include "bpw-validation.h"
#include "bpw-candidate.h"
#include "bpw-mapping-sheet.h"
#include "bpw-simulation.h"
#include "bpw-trace.h"
#include "bpw-profile.h"
#include "bpw-correlate.h"
#include "bpw-calibrate.h"
#include "bpw-validation-report.h"
#include "bpw-serve.h"
#include "bpw-blueprint-field.h"
#include "bpw-study-edit.h"
#include "bpw-search-space.h"
#include "bpw-search.h"
#include "bpw-sweep.h"
#include "bpw-compare.h"
#undef BPW_CORE_INSIDE
