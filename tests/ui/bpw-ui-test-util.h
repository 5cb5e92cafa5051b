/* bpw-ui-test-util.h — what the GUI tests share: a display check, waiting, finding widgets
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-ui.h"

G_BEGIN_DECLS

/* gtk_init_check(), libadwaita and the UI resources. Without a display it prints a TAP
 * SKIP and returns FALSE (main returns 0), or fails with BPW_REQUIRE_DISPLAY=1. Points
 * XDG_STATE_HOME and XDG_DATA_HOME at a fresh folder first, so that autosaves and recent
 * files stay out of the user's. Returns that folder in @scratch. */
gboolean   bpw_test_init_gui        (int         *argc,
                                     char      ***argv,
                                     char       **scratch,
                                     int         *exit_code);
/* Iterates the main loop until @done returns FALSE for @data, at most 60 s. */
void       bpw_test_wait            (gboolean  (*busy) (gpointer data),
                                     gpointer    data);
void       bpw_test_wait_window     (BpwWindow  *window);
void       bpw_test_wait_sheet      (BpwSheetPage *page);
/* Waits until @chooser (a file dialog) would answer @file, as a user who typed its name
 * in its folder sees it. */
void       bpw_test_wait_chooser    (GtkFileChooser *chooser,
                                     GFile      *file);
/* Mapped, and one frame painted with the current contents. */
void       bpw_test_wait_for_frame  (GtkWidget  *widget);
GtkWidget *bpw_test_find_widget     (GtkWidget  *root,
                                     GType       type);
/* A presented window on the bundled default study, facts computed. */
BpwWindow *bpw_test_open_default    (void);
/* The AdwMessageDialog transient for @window, or NULL. */
AdwMessageDialog *bpw_test_find_dialog (GtkWindow *window);
/* Removes @dir and everything below it. */
void       bpw_test_remove_tree     (const char *dir);
/* The calibration bar inside @page shows the default study as calibrated: a badge per
 * candidate with its status in the tooltip, and the warning that they differ. */
void       bpw_test_check_calibration_bar (GtkWidget *page,
                                           BpwStudy  *study);
/* The column a column view under @widget shows under @title, or NULL. */
GtkColumnViewColumn *bpw_test_find_column (GtkWidget  *widget,
                                           const char *title);

G_END_DECLS
