/* bpw-study-draft.h — the draft model of a scenario's speculative decoding in a study file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * "serving": { "spec_tokens": 4, "spec_accept": 0.7, "draft": "llama3-8b" }
 * names the model that drafts the tokens: a bundled model's name or a model file, relative
 * to the study's folder as a workload's model is. Without a draft the target's MTP heads
 * draft, and a target without them refuses speculation (bpw_serve_check_speculation).
 */
#pragma once

#include <json-glib/json-glib.h>

#include "bpw-json-doc.h"
#include "bpw-model-spec.h"
#include "bpw-study.h"

G_BEGIN_DECLS

/* Loads the model @ref names into @spec (initialised here; clear it after): a model file
 * (relative to @study's folder, where it has one) or else a bundled model. */
gboolean  bpw_study_load_draft  (BpwStudy      *study,
                                 const char    *ref,
                                 BpwModelSpec  *spec,
                                 GError       **error);

/* Reads @serving's optional "draft" member (@path is the serving object's path) into
 * @draft, and checks that speculation of @spec_tokens drafts has a drafter: the named
 * model, or @target's MTP heads; errors name file:line:col and the field. */
gboolean  bpw_study_read_draft  (BpwStudy            *study,
                                 BpwJsonDoc          *doc,
                                 JsonObject          *serving,
                                 const char          *path,
                                 const BpwModelSpec  *target,
                                 gint64               spec_tokens,
                                 char                *draft,
                                 GError             **error);

/* The same checks for serving settings set by an edit: the draft resolves, and without
 * one @target has MTP heads where @serving speculates. */
gboolean  bpw_study_check_draft (BpwStudy               *study,
                                 const BpwModelSpec     *target,
                                 const BpwServeSettings *serving,
                                 GError                **error);

G_END_DECLS
