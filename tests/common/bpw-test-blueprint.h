/* bpw-test-blueprint.h — holding the blueprint reader's refusals to their location
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-core.h"

G_BEGIN_DECLS

/* Reads @json as the blueprint "bad.json" and aborts the test (naming @index, the case)
 * unless it is refused as invalid input with a one-line message that starts
 * "bad.json:LINE:COLUMN: @path: ", LINE and COLUMN those of the first byte of @needle
 * in @json. */
void bpw_test_assert_blueprint_refused (guint       index,
                                        const char *json,
                                        const char *needle,
                                        const char *path);

G_END_DECLS
