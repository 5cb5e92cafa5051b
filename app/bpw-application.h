/* bpw-application.h — the workbench application: single instance, windows, settings
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define BPW_TYPE_APPLICATION (bpw_application_get_type ())

G_DECLARE_FINAL_TYPE (BpwApplication, bpw_application, BPW, APPLICATION, AdwApplication)

BpwApplication *bpw_application_new          (void);
/* NULL when the GSettings schema is not installed (an uninstalled build without
 * GSETTINGS_SCHEMA_DIR): the application then runs with defaults. */
GSettings      *bpw_application_get_settings (BpwApplication *self);

G_END_DECLS
