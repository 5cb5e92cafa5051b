/* bpw-workload-reader.c — helpers shared by the workload readers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Used by the native reader (bpw-workload-io.c) and the Hugging Face one
 * (bpw-workload-hf.c); kept out of the loader so that the readers it dispatches to do not
 * call back into it.
 */
#define G_LOG_DOMAIN "bpw-workload-io"

#include "config.h"

#include "bpw-workload-reader-private.h"

#include "bpw-i18n.h"

gboolean
_bpw_workload_derive_head_dim (BpwJsonDoc   *doc,
                               JsonObject   *object,
                               const char   *path,
                               const char   *heads_key,
                               BpwModelSpec *spec,
                               GError      **error)
{
  g_autofree char *full = NULL;

  if (spec->heads > 0 && spec->hidden % spec->heads == 0)
    {
      spec->head_dim = spec->hidden / spec->heads;
      return TRUE;
    }
  full = *path != '\0' ? g_strdup_printf ("%s.%s", path, heads_key) : g_strdup (heads_key);
  return bpw_json_doc_error (doc, json_object_get_member (object, heads_key), full, error,
                             _("%" PRId64 " heads do not divide the hidden size %"
                               PRId64 "; give the head dimension explicitly"),
                             spec->heads, spec->hidden);
}
