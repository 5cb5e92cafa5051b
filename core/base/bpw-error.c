/* bpw-error.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-error"

#include "config.h"

#include "bpw-error.h"

G_DEFINE_QUARK (bpw-error-quark, bpw_error)
