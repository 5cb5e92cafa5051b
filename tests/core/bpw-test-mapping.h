/* bpw-test-mapping.h — helpers shared by the mapping tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-mapping.h"

G_BEGIN_DECLS

/* "NAME:LINE:COL: " of the first occurrence of @needle in @text, counted in the text
 * (1-based, columns in bytes), independently of the parser. */
char *bpw_test_mapping_location           (const char       *name,
                                           const char       *text,
                                           const char       *needle);
/* Initialises @m with every field away from its default. */
void  bpw_test_mapping_fill_non_default   (BpwMapping       *m);
/* to_json, load_data back (no warnings), bpw_mapping_equal(). */
void  bpw_test_mapping_assert_round_trip  (const BpwMapping *m);

G_END_DECLS
