/* bpw-window-private.h — what the files of BpwWindow share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-facts-row.h"
#include "bpw-window.h"

G_BEGIN_DECLS

BpwByteUnits _bpw_window_get_units   (BpwWindow     *self);
void         _bpw_window_add_columns (BpwWindow     *self,
                                      GtkColumnView *column_view);

G_END_DECLS
