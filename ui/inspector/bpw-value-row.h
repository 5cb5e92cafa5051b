/* bpw-value-row.h — an inspector row: a title, the value's provenance, an editable value
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define BPW_TYPE_VALUE_ROW (bpw_value_row_get_type ())

G_DECLARE_FINAL_TYPE (BpwValueRow, bpw_value_row, BPW, VALUE_ROW, AdwActionRow)

/* "commit" (const char *text) is emitted when the user confirms a changed text with Enter
 * or by leaving the entry; the handler applies it, or refuses it with
 * bpw_value_row_set_error(). Escape puts the shown value back. */
GtkWidget  *bpw_value_row_new          (const char  *title);
/* The value as formatted ("3.35 TB/s"); clears the error. Not while the user types. */
void        bpw_value_row_set_value    (BpwValueRow *self,
                                        const char  *text);
const char *bpw_value_row_get_value    (BpwValueRow *self);
/* What the entry holds now (typed, maybe not yet committed). */
const char *bpw_value_row_get_text     (BpwValueRow *self);
/* Marks the entry as refused (error style) with @message as its tooltip; NULL clears. */
void        bpw_value_row_set_error    (BpwValueRow *self,
                                        const char  *message);
const char *bpw_value_row_get_error    (BpwValueRow *self);  /* nullable */
/* Shown when the value is not known ("Not known"). */
void        bpw_value_row_set_placeholder (BpwValueRow *self,
                                           const char  *text);
/* Types @text and confirms it, as a user would (tests). */
void        bpw_value_row_commit_text  (BpwValueRow *self,
                                        const char  *text);
GtkEntry   *bpw_value_row_get_entry    (BpwValueRow *self);
/* A unit shown after the entry ("elements"), dimmed; NULL removes it. */
void        bpw_value_row_set_unit     (BpwValueRow *self,
                                        const char  *unit);
/* "reset" (no arguments) is emitted by a flat button before the entry, shown while
 * @can_reset: the value is set here and may go back to where it came from. @tooltip says
 * where that is ("Use the scenario’s value"). */
void        bpw_value_row_set_can_reset (BpwValueRow *self,
                                         gboolean     can_reset,
                                         const char  *tooltip);
gboolean    bpw_value_row_get_can_reset (BpwValueRow *self);
/* Presses the reset button, as a user would (tests). */
void        bpw_value_row_reset        (BpwValueRow *self);

G_END_DECLS
