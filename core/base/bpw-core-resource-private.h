/* bpw-core-resource-private.h — the one place that registers the bpw_core_data resource
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The core's compiled-in data (data/blueprints, data/studies) under
 * /io/github/bpw/Workbench/core/. The resource is built with --manual-register, and
 * g_static_resource_init() must run exactly once (a second call before the first lookup
 * links the static resource to itself), so every user goes through this function. */
GResource *_bpw_core_resource_get (void);

G_END_DECLS
