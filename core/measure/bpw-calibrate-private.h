/* bpw-calibrate-private.h — the fit's state, shared by its source files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-calibrate.h"

G_BEGIN_DECLS

typedef struct
{
  gint    bin;
  double  predicted, measured;
} BpwCalibrationBin;

/* One efficiency table being fitted. */
typedef struct
{
  BpwEfficiencyTable  *table;      /* in the working blueprint */
  BpwOpClass           op_class;
  char                *name;
  GArray              *bins;       /* BpwCalibrationBin, this round, by bin */
  GArray              *before;     /* BpwEfficiencyPoint */
  guint                rows;
  double               min_size, max_size;
  gboolean             clamped;
} BpwCalibrationFitTable;

BpwCalibrationFitTable *_bpw_calibration_table_new   (const BpwBlueprint        *bp,
                                                      BpwEfficiencyTable        *table,
                                                      BpwOpClass                 op_class);
void                    _bpw_calibration_table_free  (gpointer                   table);
void                    _bpw_calibration_table_reset (BpwCalibrationFitTable    *t);
void                    _bpw_calibration_table_add   (BpwCalibrationFitTable    *t,
                                                      guint                      bins_per_decade,
                                                      double                     size,
                                                      double                     predicted,
                                                      double                     measured);
/* Multiplies the table by the bins' corrections (at its own points and the bins'
 * centres), marks it calibrated with @source; returns the largest |correction − 1|. */
double                  _bpw_calibration_table_apply (BpwCalibrationFitTable    *t,
                                                      BpwBlueprint              *bp,
                                                      guint                      bins_per_decade,
                                                      const char                *source);

G_END_DECLS
