/* bpw-cli-serve-disagg.h — `bpw serve --disaggregate`: prefill and decode pools
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-cli-setup.h"
#include "bpw-serve-disagg.h"

G_BEGIN_DECLS

/* Serves @options' stream at each of @rates (doubles) on the two pools of @pools, built
 * from @setup's mapping, and prints the text or JSON report; the exit status. */
int  bpw_cli_serve_disagg (BpwCliSetup         *setup,
                           BpwServeOptions     *options,
                           GArray              *rates,
                           const BpwServePools *pools,
                           gint64               max_batch,
                           gboolean             json);

G_END_DECLS
