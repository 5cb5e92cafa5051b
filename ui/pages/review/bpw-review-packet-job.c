/* bpw-review-packet-job.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-review-packet-job"

#include "config.h"

#include "bpw-review-packet.h"
#include "bpw-review-packet-job.h"

typedef struct
{
  char       *json;
  char       *markdown;
  const char *decision;
} BpwPacketText;

static void
bpw_packet_text_free (BpwPacketText *text)
{
  g_free (text->json);
  g_free (text->markdown);
  g_free (text);
}

static void
bpw_review_packet_job_thread (GTask        *task,
                              gpointer      source,
                              gpointer      task_data,
                              GCancellable *cancellable)
{
  BpwStudy *study = task_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwReviewPacket) packet = NULL;
  BpwReviewOptions options;
  BpwPacketText *text;

  bpw_review_options_init (&options);
  packet = bpw_review_packet_new (study, &options, cancellable, &error);
  if (packet == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  text = g_new0 (BpwPacketText, 1);
  text->json = bpw_review_packet_to_json (packet);
  text->markdown = bpw_review_packet_to_markdown (packet);
  text->decision = bpw_review_decision_to_string (bpw_review_packet_get_decision (packet));
  g_task_return_pointer (task, text, (GDestroyNotify) bpw_packet_text_free);
}

void
bpw_review_packet_job_run (BpwStudy            *study,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_return_if_fail (BPW_IS_STUDY (study));

  g_task_set_source_tag (task, bpw_review_packet_job_run);
  g_task_set_task_data (task, bpw_study_copy (study), g_object_unref);
  g_task_run_in_thread (task, bpw_review_packet_job_thread);
}

gboolean
bpw_review_packet_job_finish (GAsyncResult  *result,
                              char         **json,
                              char         **markdown,
                              const char   **decision,
                              GError       **error)
{
  BpwPacketText *text;

  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);

  text = g_task_propagate_pointer (G_TASK (result), error);
  if (text == NULL)
    return FALSE;
  if (json != NULL)
    *json = g_steal_pointer (&text->json);
  if (markdown != NULL)
    *markdown = g_steal_pointer (&text->markdown);
  if (decision != NULL)
    *decision = text->decision;
  bpw_packet_text_free (text);
  return TRUE;
}

gboolean
bpw_review_packet_job_write (const char  *path,
                             const char  *json,
                             const char  *markdown,
                             GError     **error)
{
  const char *content = g_str_has_suffix (path, ".json") ? json : markdown;

  g_return_val_if_fail (path != NULL && json != NULL && markdown != NULL, FALSE);

  /* g_file_set_contents() writes a temporary file and renames it over @path. */
  return g_file_set_contents (path, content, -1, error);
}
