/* bpw-workload-io-private.h — between the workload loader (bpw-workload-io.c) and the readers
 * it dispatches to
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-workload-io.h"
#include "bpw-workload-reader-private.h"

G_BEGIN_DECLS

/* Runs bpw_model_spec_validate() and turns its "model.FIELD: reason" message into a
 * located one: FIELD is mapped to the key it came from through @key_map (pairs of
 * native field and file key, NULL-terminated; NULL = the same names) and the error points
 * at that key in @object, whose JSON path is @path ("" for the root). Messages that name
 * no field present in the file get the file name as prefix. */
gboolean _bpw_workload_validate_located (BpwJsonDoc         *doc,
                                         JsonObject         *object,
                                         const char         *path,
                                         const char * const *key_map,
                                         const BpwModelSpec *spec,
                                         GError            **error);

/* "a/b/config.json" -> "b"; "a/gpt.json" -> "gpt". Transfer full. */
char    *_bpw_workload_name_from_filename (const char *filename);

/* The Hugging Face reader's shared parts: the text reader (bpw-workload-hf.c) and the
 * multimodal one (bpw-workload-hf-vision.c) read a decoder the same way. */
typedef enum
{
  HF_GPT2,
  HF_LLAMA,
  HF_MISTRAL,
  HF_MIXTRAL,
  HF_QWEN2,
  HF_DEEPSEEK_V2,
  HF_DEEPSEEK_V3,
  HF_LLAVA,
  HF_MLLAMA,
  HF_N_FAMILIES
} BpwHfFamily;

extern const char * const _bpw_hf_family_names[HF_N_FAMILIES];
/* Keys of a config that carry nothing the models use (checked for unknown keys). */
extern const char * const _bpw_hf_ignored_keys[];
/* HF writes null for "use the default": an integer member in [@min, @max], or a located
 * error; absent and not @required leaves *@out alone. */
gboolean _bpw_hf_get_int             (BpwJsonDoc          *doc,
                                      JsonObject          *object,
                                      const char          *member,
                                      gboolean             required,
                                      gint64               min,
                                      gint64               max,
                                      gint64              *out,
                                      GError             **error);
/* Marks the error set by the caller as BPW_ERROR_UNSUPPORTED; returns FALSE. */
gboolean _bpw_hf_mark_unsupported    (GError             **error);
gboolean _bpw_hf_read_llama_like     (BpwJsonDoc          *doc,
                                      JsonObject          *root,
                                      BpwHfFamily          family,
                                      BpwModelSpec        *spec,
                                      GPtrArray           *warnings,
                                      GError             **error);
gboolean _bpw_hf_read_llava          (BpwJsonDoc          *doc,
                                      JsonObject          *root,
                                      BpwModelSpec        *spec,
                                      GPtrArray           *warnings,
                                      GError             **error);
gboolean _bpw_hf_read_mllama         (BpwJsonDoc          *doc,
                                      JsonObject          *root,
                                      BpwModelSpec        *spec,
                                      GPtrArray           *warnings,
                                      GError             **error);

/* The readers fill @spec (already defaulted) without validating it; the caller applies
 * a vocabulary override and validates with the returned @key_map. */
gboolean _bpw_workload_read_hf       (BpwJsonDoc          *doc,
                                      JsonObject          *root,
                                      BpwModelSpec        *spec,
                                      const char * const **key_map,
                                      GPtrArray           *warnings,
                                      GError             **error);
gboolean _bpw_workload_read_calculon (BpwJsonDoc          *doc,
                                      JsonObject          *root,
                                      BpwModelSpec        *spec,
                                      BpwScenario         *scenario_hint,
                                      const char * const **key_map,
                                      GPtrArray           *warnings,
                                      GError             **error);

G_END_DECLS
