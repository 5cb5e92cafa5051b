/* bpw-calibrate-json.c — a calibration as JSON: classes and their factors, tables
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-calibrate-json"

#include "config.h"

#include "bpw-calibrate.h"
#include "bpw-json-writer.h"

static void
write_points (BpwJsonWriter *w, const char *key, const GArray *points)
{
  bpw_json_writer_begin_array (w, key);
  for (guint i = 0; i < points->len; i++)
    {
      const BpwEfficiencyPoint *p = &g_array_index (points, BpwEfficiencyPoint, i);

      bpw_json_writer_begin_array (w, NULL);
      bpw_json_writer_double (w, NULL, p->size);
      bpw_json_writer_double (w, NULL, p->efficiency);
      bpw_json_writer_end_array (w);
    }
  bpw_json_writer_end_array (w);
}

char *
bpw_calibration_to_json (const BpwCalibration *cal)
{
  BpwJsonWriter w;

  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_begin_object (&w, NULL);
  bpw_json_writer_string (&w, "blueprint", cal->blueprint->name);
  bpw_json_writer_string (&w, "source", cal->source);
  bpw_json_writer_int (&w, "iterations", cal->iterations);
  bpw_json_writer_begin_object (&w, "classes");
  for (guint c = 0; c < BPW_N_OP_CLASSES; c++)
    {
      const BpwCalibrationClass *k = &cal->classes[c];

      if (k->rows + k->skipped == 0)
        continue;
      bpw_json_writer_begin_object (&w, bpw_op_class_to_string (c));
      bpw_json_writer_int (&w, "rows", k->rows);
      bpw_json_writer_int (&w, "skipped", k->skipped);
      bpw_json_writer_double (&w, "measured_s", k->measured_s);
      bpw_json_writer_double (&w, "predicted_before_s", k->predicted_before_s);
      bpw_json_writer_double (&w, "predicted_after_s", k->predicted_after_s);
      /* What calibration changed (after / before) and what the profile said (measured /
       * before): equal when the fit reproduces the measurements. */
      bpw_json_writer_double (&w, "factor", k->predicted_before_s > 0
                              ? k->predicted_after_s / k->predicted_before_s : 0);
      bpw_json_writer_double (&w, "measured_factor", k->predicted_before_s > 0
                              ? k->measured_s / k->predicted_before_s : 0);
      bpw_json_writer_end_object (&w);
    }
  bpw_json_writer_end_object (&w);
  bpw_json_writer_begin_array (&w, "tables");
  for (guint i = 0; i < cal->tables->len; i++)
    {
      const BpwCalibrationTable *t = g_ptr_array_index (cal->tables, i);

      bpw_json_writer_begin_object (&w, NULL);
      bpw_json_writer_string (&w, "table", t->name);
      bpw_json_writer_string (&w, "class", bpw_op_class_to_string (t->op_class));
      bpw_json_writer_int (&w, "rows", t->rows);
      bpw_json_writer_double (&w, "min_size", t->min_size);
      bpw_json_writer_double (&w, "max_size", t->max_size);
      write_points (&w, "before", t->before);
      write_points (&w, "after", t->after);
      bpw_json_writer_end_object (&w);
    }
  bpw_json_writer_end_array (&w);
  bpw_json_writer_begin_array (&w, "warnings");
  for (guint i = 0; i < cal->warnings->len; i++)
    bpw_json_writer_string (&w, NULL, g_ptr_array_index (cal->warnings, i));
  bpw_json_writer_end_array (&w);
  bpw_json_writer_end_object (&w);
  return bpw_json_writer_finish (&w);
}
