/* bpw-mapping-inspector-test.h — the Mapping page tests' window, rows and numbers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-ui-test-util.h"

G_BEGIN_DECLS

#define A100 "a100-sxm-80gb"
#define H100 "h100-sxm-80gb"
#define TRAIN "gpt3-175b-train"
#define PREFILL "llama3-70b-prefill"
#define DECODE "llama3-70b-decode"

/* What the Overview and the Sheet show for the selection, to compare after an edit. */
typedef struct
{
  double step_s;   /* Overview: step time, TTFT or TPOT, whichever the phase has */
  double sheet_s;  /* Sheet: the bound plan's step */
  gboolean legal;
} Numbers;

void                         wait_edit           (BpwWindow  *window);
guint                        candidate_of        (BpwStudy   *study,
                                                  const char *blueprint);
guint                        scenario_of         (BpwStudy   *study,
                                                  const char *name);
/* The window on the default study with @blueprint's candidate on @scenario selected and
 * the Mapping page editing the candidate's own mapping: one window for all the tests of a
 * program (opening the default study is most of their time); each test undoes what it did. */
BpwWindow                   *open_on             (const char *blueprint,
                                                  const char *scenario,
                                                  guint      *candidate);
/* Closes the shared window, if a test opened it. */
void                         close_shared_window (void);
const BpwOverviewEvaluation *evaluation          (BpwWindow  *window,
                                                  guint       candidate,
                                                  const char *scenario);
GtkWidget                   *row                 (BpwWindow  *window,
                                                  const char *key);
char                       **choices             (GtkWidget  *combo);
void                         choose              (GtkWidget  *combo,
                                                  const char *label);
const char                  *selected_label      (GtkWidget  *combo);
const char                  *value_of            (GtkWidget  *value_row);
JsonObject                  *candidate_mapping   (BpwWindow  *window,
                                                  guint       candidate);
Numbers                      numbers             (BpwWindow  *window,
                                                  guint       candidate,
                                                  const char *scenario);
void                         assert_same         (Numbers     a,
                                                  Numbers     b);
void                         pause_for_animation (void);
void                         save_screen         (GtkWidget  *window,
                                                  const char *name);

G_END_DECLS
