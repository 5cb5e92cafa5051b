/* main.c — blueprint-workbench, the GTK workbench
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-main"

#include "config.h"

#include <locale.h>

#include <glib/gi18n.h>

#include "bpw-application.h"
#include "bpw-i18n.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(BpwApplication) app = NULL;
  /* BPW_LOCALEDIR: catalogues laid out as LOCALEDIR, e.g. a build tree's for the tests. */
  const char *localedir = g_getenv ("BPW_LOCALEDIR") != NULL ? g_getenv ("BPW_LOCALEDIR")
                                                             : LOCALEDIR;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, localedir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  bpw_core_i18n_init (localedir);

  g_set_application_name (_("Blueprint Workbench"));

  app = bpw_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
