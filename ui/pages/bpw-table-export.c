/* bpw-table-export.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-table-export"

#include "config.h"

#include <string.h>

#include "bpw-file.h"
#include "bpw-overview-item.h"
#include "bpw-table-export.h"

/* RFC 4180: quoted where the field needs it. */
static void
bpw_csv_field (GString    *out,
               const char *field,
               gboolean    last)
{
  if (field == NULL)
    field = "";
  if (strpbrk (field, ",\"\r\n") != NULL)
    {
      g_string_append_c (out, '"');
      for (const char *p = field; *p != '\0'; p++)
        {
          if (*p == '"')
            g_string_append_c (out, '"');
          g_string_append_c (out, *p);
        }
      g_string_append_c (out, '"');
    }
  else
    g_string_append (out, field);
  g_string_append_c (out, last ? '\n' : ',');
}

char *
bpw_table_export_overview_csv (GListModel *items)
{
  static const char * const sla[] = { "", "met", "missed" };
  GString *out = g_string_new ("candidate,scenario,devices,legal,step_time_s,ttft_s,tpot_s,"
                               "mfu,peak_bytes,bottleneck,sla,reason\n");

  g_return_val_if_fail (G_IS_LIST_MODEL (items), NULL);

  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr(BpwOverviewItem) item = g_list_model_get_item (items, i);
      const BpwOverviewEvaluation *e = bpw_overview_item_get_evaluation (item);

      bpw_csv_field (out, bpw_overview_item_get_candidate (item), FALSE);
      bpw_csv_field (out, bpw_overview_item_get_scenario_name (item), FALSE);
      g_string_append_printf (out, "%" G_GINT64_FORMAT ",", bpw_overview_item_get_devices (item));
      if (e == NULL || e->failed)
        {
          g_string_append (out, ",,,,,,,,");
          bpw_csv_field (out, e != NULL ? e->reason : NULL, TRUE);
          continue;
        }
      g_string_append_printf (out, "%s,%.9g,%.9g,%.9g,%.6g,%" G_GUINT64_FORMAT ",%s,%s,",
                              e->legal ? "true" : "false", e->step_time_s, e->ttft_s,
                              e->tpot_s, e->mfu, e->peak_bytes,
                              e->bottleneck != NULL ? e->bottleneck : "",
                              sla[MIN ((guint) e->sla, G_N_ELEMENTS (sla) - 1)]);
      bpw_csv_field (out, e->reason, TRUE);
    }
  return g_string_free (out, FALSE);
}

typedef struct
{
  BpwCandidateRun  run;
  char            *path;
} BpwSheetExport;

static void
bpw_sheet_export_free (BpwSheetExport *export)
{
  bpw_candidate_run_clear (&export->run);
  g_free (export->path);
  g_free (export);
}

static void
bpw_table_export_sheet_thread (GTask        *task,
                               gpointer      source_object,
                               gpointer      task_data,
                               GCancellable *cancellable)
{
  BpwSheetExport *export = task_data;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autofree char *csv = NULL;
  GError *error = NULL;

  if ((plan = bpw_candidate_run_bind (&export->run, &error)) == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  rows = bpw_mapping_sheet_new (plan, TRUE);
  csv = bpw_mapping_sheet_to_csv (rows);
  if (!bpw_file_replace_contents (export->path, csv, -1, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

void
bpw_table_export_sheet_async (BpwStudy            *study,
                              guint                candidate,
                              guint                scenario,
                              const char          *path,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  BpwSheetExport *export = g_new0 (BpwSheetExport, 1);
  GError *error = NULL;

  g_task_set_source_tag (task, bpw_table_export_sheet_async);
  export->path = g_strdup (path);
  /* The study is read here, on the main thread; the worker binds its own copy. */
  if (!bpw_candidate_run_init (&export->run, study, candidate, scenario, &error))
    {
      bpw_sheet_export_free (export);
      g_task_return_error (task, error);
      return;
    }
  g_task_set_task_data (task, export, (GDestroyNotify) bpw_sheet_export_free);
  g_task_run_in_thread (task, bpw_table_export_sheet_thread);
}

gboolean
bpw_table_export_sheet_finish (GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
