/* bpw-ui-init.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-ui-init"

#include "config.h"

#include "bpw-ui.h"
#include "bpw-ui-resources.h"

void
bpw_ui_init (void)
{
  static gsize initialized = 0;

  if (g_once_init_enter (&initialized))
    {
      /* The resource lives in a static library; registering it by hand keeps the linker
       * from dropping an object file that only has a constructor. */
      bpw_ui_register_resource ();
      g_type_ensure (BPW_TYPE_FACTS_DETAILS);
      g_type_ensure (BPW_TYPE_FACTS_ROW);
      g_type_ensure (BPW_TYPE_INSPECTOR);
      g_type_ensure (BPW_TYPE_OVERVIEW_PAGE);
      g_type_ensure (BPW_TYPE_PLOT_VIEW);
      g_type_ensure (BPW_TYPE_PREFERENCES_WINDOW);
      g_type_ensure (BPW_TYPE_SHEET_PAGE);
      g_type_ensure (BPW_TYPE_SIDEBAR);
      g_type_ensure (BPW_TYPE_WINDOW);
      g_once_init_leave (&initialized, 1);
    }
}
