/* bpw-study-draft.c — the draft model of a scenario's speculative decoding in a study file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-study"

#include "config.h"

#include "bpw-study-draft.h"

#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-serve.h"
#include "bpw-study-private.h"
#include "bpw-workload-io.h"

gboolean
bpw_study_load_draft (BpwStudy      *self,
                      const char    *ref,
                      BpwModelSpec  *spec,
                      GError       **error)
{
  g_autofree char *file = NULL;

  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (ref != NULL, FALSE);

  bpw_model_spec_init_defaults (spec);
  if (g_path_is_absolute (ref) || self->base_dir == NULL)
    file = g_strdup (ref);
  else
    file = g_build_filename (self->base_dir, ref, NULL);
  if (g_file_test (file, G_FILE_TEST_IS_REGULAR))
    return bpw_workload_load (file, spec, error);
  if (bpw_model_spec_lookup_bundled (ref, spec))
    return TRUE;
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
               _("“%s” is neither a bundled model nor a model file"), ref);
  return FALSE;
}

gboolean
bpw_study_read_draft (BpwStudy            *self,
                      BpwJsonDoc          *doc,
                      JsonObject          *serving,
                      const char          *path,
                      const BpwModelSpec  *target,
                      gint64               spec_tokens,
                      char                *draft,
                      GError             **error)
{
  g_autofree char *dpath = g_strdup_printf ("%s.draft", path);
  g_autofree char *spath = g_strdup_printf ("%s.spec_tokens", path);
  g_autoptr(GError) local_error = NULL;
  const char *ref = NULL;
  BpwModelSpec spec;

  if (!bpw_json_doc_get_string (doc, serving, path, "draft", FALSE, &ref, error))
    return FALSE;
  if (ref == NULL)
    {
      draft[0] = '\0';
      if (bpw_serve_check_speculation (target, spec_tokens, FALSE, &local_error))
        return TRUE;
      return bpw_json_doc_error (doc, json_object_get_member (serving, "spec_tokens"), spath,
                                 error, "%s", local_error->message);
    }
  if (ref[0] == '\0' || strlen (ref) >= BPW_SERVE_DRAFT_NAME_SIZE)
    return bpw_json_doc_error (doc, json_object_get_member (serving, "draft"), dpath, error,
                               _("expected a bundled model name or a model file of 1 to %d "
                               "bytes"), BPW_SERVE_DRAFT_NAME_SIZE - 1);
  if (!bpw_study_load_draft (self, ref, &spec, &local_error))
    {
      bpw_model_spec_clear (&spec);
      return bpw_json_doc_error (doc, json_object_get_member (serving, "draft"), dpath, error,
                                 "%s", local_error->message);
    }
  bpw_model_spec_clear (&spec);
  g_strlcpy (draft, ref, BPW_SERVE_DRAFT_NAME_SIZE);
  return TRUE;
}

gboolean
bpw_study_check_draft (BpwStudy               *self,
                       const BpwModelSpec     *target,
                       const BpwServeSettings *serving,
                       GError                **error)
{
  BpwModelSpec spec;
  gboolean ok;

  if (serving->draft[0] == '\0')
    {
      if (bpw_serve_check_speculation (target, serving->spec_tokens, FALSE, error))
        return TRUE;
      g_prefix_error (error, "%s: ", "serving.spec_tokens");
      return FALSE;
    }
  if (memchr (serving->draft, '\0', BPW_SERVE_DRAFT_NAME_SIZE) == NULL)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("serving.draft: longer than %d bytes"), BPW_SERVE_DRAFT_NAME_SIZE - 1);
      return FALSE;
    }
  ok = bpw_study_load_draft (self, serving->draft, &spec, error);
  bpw_model_spec_clear (&spec);
  if (!ok)
    g_prefix_error (error, "%s: ", "serving.draft");
  return ok;
}
