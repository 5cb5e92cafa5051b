/* bpw-error.h — the core's error domain
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define BPW_ERROR (bpw_error_quark ())

typedef enum
{
  BPW_ERROR_INVALID_INPUT,   /* a file or value is wrong: CLI exit 1 */
  BPW_ERROR_UNSUPPORTED,     /* valid but not modelled: CLI exit 1 */
  BPW_ERROR_ILLEGAL_PLAN,    /* the configuration cannot run: CLI exit 3 */
  BPW_ERROR_OVERFLOW,        /* a derived count does not fit: CLI exit 1 */
} BpwError;

GQuark bpw_error_quark (void);

G_END_DECLS
