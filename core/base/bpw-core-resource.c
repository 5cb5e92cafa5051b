/* bpw-core-resource.c — the one place that registers the bpw_core_data resource
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-core-resource"

#include "config.h"

#include "bpw-core-resource-private.h"

#include "bpw-core-data.h"

GResource *
_bpw_core_resource_get (void)
{
  static gsize registered = 0;

  /* The call also keeps the linker from dropping the generated object out of the static
   * library. */
  if (g_once_init_enter (&registered))
    {
      bpw_core_data_register_resource ();
      g_once_init_leave (&registered, 1);
    }
  return bpw_core_data_get_resource ();
}
