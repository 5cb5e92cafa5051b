/* bpw-i18n.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-i18n"

#include "config.h"

#include <libintl.h>

#include "bpw-i18n.h"

void
bpw_core_i18n_init (const char *localedir)
{
  bindtextdomain (BPW_CORE_GETTEXT_DOMAIN, localedir != NULL ? localedir : LOCALEDIR);
  bind_textdomain_codeset (BPW_CORE_GETTEXT_DOMAIN, "UTF-8");
}
