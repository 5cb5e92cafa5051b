/* bpw-test-study.h — fixtures shared by the study tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-core.h"

G_BEGIN_DECLS

/* The bundled default study (transfer full); the test fails if it does not load. */
BpwStudy *bpw_test_default_study   (void);
/* Index of the first candidate on @blueprint; the test fails if there is none. */
guint     bpw_test_candidate_index (BpwStudy   *study,
                                    const char *blueprint);

G_END_DECLS
