/* bpw-table-export.h — the Overview and the Sheet as CSV, for the Export menu
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Numbers in SI base units and full precision (seconds, bytes, fractions), not the
 * rounded text the tables show, so a spreadsheet can compute with them.
 */
#pragma once

#include <gio/gio.h>

#include "bpw-core.h"

G_BEGIN_DECLS

/* (transfer full): one line per Overview item (element-type BpwOverviewItem): candidate,
 * scenario, devices and the evaluation's headline numbers (empty until evaluated). */
char     *bpw_table_export_overview_csv (GListModel           *items);
/* Binds @study's @candidate × @scenario in a worker thread and writes the Sheet's rows
 * (each stage's first block, embedding and head: bpw_mapping_sheet_to_csv()) to @path. */
void      bpw_table_export_sheet_async  (BpwStudy             *study,
                                         guint                 candidate,
                                         guint                 scenario,
                                         const char           *path,
                                         GCancellable         *cancellable,
                                         GAsyncReadyCallback   callback,
                                         gpointer              user_data);
gboolean  bpw_table_export_sheet_finish (GAsyncResult         *result,
                                         GError              **error);

G_END_DECLS
