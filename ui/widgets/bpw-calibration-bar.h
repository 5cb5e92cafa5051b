/* bpw-calibration-bar.h — each candidate's calibration status, and a warning when the
 * candidates compared are not on equal footing
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A line of badges, one per candidate ("H200 SXM 141 GB · measured"), whose tooltips give
 * the status and the source of every value that moves time (bpw-study-calibration.h),
 * under a warning line shown when the candidates are calibrated differently. Overview,
 * Compare and Trade-offs show one; it hides itself while it has nothing to show.
 */
#pragma once

#include <adwaita.h>

#include "bpw-study-calibration.h"

G_BEGIN_DECLS

#define BPW_TYPE_CALIBRATION_BAR (bpw_calibration_bar_get_type ())

G_DECLARE_FINAL_TYPE (BpwCalibrationBar, bpw_calibration_bar, BPW, CALIBRATION_BAR, GtkWidget)

GtkWidget  *bpw_calibration_bar_new          (void);
/* Shows @calibration (read now, not kept; NULL: nothing, and the bar hides). */
void        bpw_calibration_bar_set          (BpwCalibrationBar         *self,
                                              const BpwStudyCalibration *calibration);
/* The warning shown, or NULL when the candidates are on equal footing or none are set. */
const char *bpw_calibration_bar_get_warning  (BpwCalibrationBar         *self);
/* The badges, in candidate order (their labels and tooltips are what the user sees). */
guint       bpw_calibration_bar_get_n_badges (BpwCalibrationBar         *self);
GtkLabel   *bpw_calibration_bar_get_badge    (BpwCalibrationBar         *self,
                                              guint                      i);

G_END_DECLS
