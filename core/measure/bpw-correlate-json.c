/* bpw-correlate-json.c — a correlation as JSON: statistics, per-operation comparison, rows
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-correlate-json"

#include "config.h"

#include <math.h>

#include "bpw-correlate-private.h"
#include "bpw-json-writer.h"

static void
optional_string (BpwJsonWriter *w, const char *key, const char *value)
{
  if (value != NULL)
    bpw_json_writer_string (w, key, value);
  else
    bpw_json_writer_null (w, key);
}

static void
write_profile (BpwJsonWriter *w, const BpwProfile *p)
{
  const BpwProfileMeta *m = &p->meta;

  bpw_json_writer_begin_object (w, "profile");
  bpw_json_writer_string (w, "file", p->filename);
  bpw_json_writer_string (w, "format", bpw_profile_format_to_string (p->format));
  bpw_json_writer_begin_object (w, "metadata");
  optional_string (w, "hardware", m->hardware);
  optional_string (w, "driver", m->driver);
  optional_string (w, "runtime", m->runtime);
  optional_string (w, "framework", m->framework);
  optional_string (w, "date", m->date);
  optional_string (w, "trace_name", m->trace_name);
  optional_string (w, "backend", m->backend);
  bpw_json_writer_int (w, "rank", m->rank);
  bpw_json_writer_int (w, "world_size", m->world_size);
  bpw_json_writer_end_object (w);
  bpw_json_writer_int (w, "events", p->events->len);
  bpw_json_writer_int (w, "items", p->items->len);
  bpw_json_writer_double (w, "span_s", p->span_s);
  bpw_json_writer_begin_array (w, "devices");
  for (guint i = 0; i < p->devices->len; i++)
    bpw_json_writer_string (w, NULL, g_ptr_array_index (p->devices, i));
  bpw_json_writer_end_array (w);
  bpw_json_writer_begin_array (w, "warnings");
  for (guint i = 0; i < p->warnings->len; i++)
    bpw_json_writer_string (w, NULL, g_ptr_array_index (p->warnings, i));
  bpw_json_writer_end_array (w);
  bpw_json_writer_end_object (w);
}

static void
write_stats (BpwJsonWriter *w, const BpwCorrelationStats *s)
{
  bpw_json_writer_begin_object (w, "stats");
  bpw_json_writer_int (w, "modelled_ops", s->modelled_ops);
  bpw_json_writer_int (w, "matched_ops", s->matched_ops);
  bpw_json_writer_int (w, "covered_ops", s->covered_ops);
  bpw_json_writer_int (w, "missing_ops", s->missing_ops);
  bpw_json_writer_int (w, "measured_items", s->measured_items);
  bpw_json_writer_int (w, "matched_items", s->matched_items);
  bpw_json_writer_int (w, "extra_items", s->extra_items);
  bpw_json_writer_int (w, "unexplained_items", s->unexplained_items);
  bpw_json_writer_int (w, "no_work_events", s->no_work_events);
  bpw_json_writer_double (w, "modelled_match_rate", s->modelled_ops > 0
                          ? (double) (s->matched_ops + s->covered_ops) / s->modelled_ops : 0);
  bpw_json_writer_double (w, "measured_match_rate", s->measured_items > 0
                          ? (double) s->matched_items / s->measured_items : 0);
  bpw_json_writer_double (w, "predicted_s", s->predicted_s);
  bpw_json_writer_double (w, "measured_s", s->measured_s);
  bpw_json_writer_double (w, "matched_predicted_s", s->matched_predicted_s);
  bpw_json_writer_double (w, "matched_measured_s", s->matched_measured_s);
  bpw_json_writer_double (w, "missing_predicted_s", s->missing_predicted_s);
  bpw_json_writer_double (w, "extra_measured_s", s->extra_measured_s);
  bpw_json_writer_double (w, "mean_abs_error", s->mean_abs_error);
  bpw_json_writer_double (w, "max_abs_error", s->max_abs_error);
  bpw_json_writer_double (w, "time_weighted_error", s->time_weighted_error);
  bpw_json_writer_end_object (w);
}

static void
rate (BpwJsonWriter *w, const char *key, double amount, double seconds)
{
  if (seconds > 0 && amount > 0)
    bpw_json_writer_double (w, key, amount / seconds);
  else
    bpw_json_writer_null (w, key);
}

static void
write_operations (BpwJsonWriter *w, const BpwCorrelation *corr)
{
  g_autoptr(GArray) ops = bpw_correlation_by_operation (corr);

  bpw_json_writer_begin_array (w, "operations");
  for (guint i = 0; i < ops->len; i++)
    {
      const BpwCorrelationOp *op = &g_array_index (ops, BpwCorrelationOp, i);
      g_autofree char *name = bpw_correlation_row_name (corr, bpw_correlation_row (corr,
                                                                                  op->first_row));

      bpw_json_writer_begin_object (w, NULL);
      bpw_json_writer_int (w, "lineage", op->lineage);
      bpw_json_writer_string (w, "name", name);
      bpw_json_writer_int (w, "layer", op->layer);
      bpw_json_writer_string (w, "kind", bpw_kernel_kind_to_string (op->kind));
      bpw_json_writer_string (w, "class", bpw_op_class_to_string (op->op_class));
      bpw_json_writer_int (w, "occurrences", op->rows);
      bpw_json_writer_double (w, "predicted_s", op->predicted_s);
      bpw_json_writer_double (w, "measured_s", op->measured_s);
      if (op->measured_s > 0)
        bpw_json_writer_double (w, "error", op->predicted_s / op->measured_s - 1.0);
      else
        bpw_json_writer_null (w, "error");
      bpw_json_writer_double (w, "flops", op->flops);
      bpw_json_writer_double (w, "bytes", op->bytes);
      rate (w, "predicted_flops_per_s", op->flops, op->predicted_s);
      rate (w, "achieved_flops_per_s", op->flops, op->measured_s);
      rate (w, "predicted_bytes_per_s", op->bytes, op->predicted_s);
      rate (w, "achieved_bytes_per_s", op->bytes, op->measured_s);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_array (w);
}

static void
write_rows (BpwJsonWriter *w, const BpwCorrelation *corr)
{
  static const char * const status[] = { "matched", "missing", "extra" };
  static const char * const shapes[] = { "unknown", "agrees", "differs" };

  bpw_json_writer_begin_array (w, "rows");
  for (guint i = 0; i < corr->rows->len; i++)
    {
      const BpwCorrelationRow *r = bpw_correlation_row (corr, i);
      g_autofree char *name = bpw_correlation_row_name (corr, r);

      bpw_json_writer_begin_object (w, NULL);
      bpw_json_writer_string (w, "status", status[r->status]);
      bpw_json_writer_string (w, "name", name);
      bpw_json_writer_int (w, "lineage", r->lineage);
      bpw_json_writer_string (w, "kind", bpw_kernel_kind_to_string (r->kind));
      if (r->n_ops > 0)
        bpw_json_writer_string (w, "class", bpw_op_class_to_string (r->op_class));
      bpw_json_writer_string (w, "shape", shapes[r->shape]);
      bpw_json_writer_int (w, "pair", r->pair);
      bpw_json_writer_double (w, "start_s", r->start_s);
      bpw_json_writer_double (w, "predicted_s", r->predicted_s);
      bpw_json_writer_double (w, "measured_s", r->measured_s);
      bpw_json_writer_double (w, "flops", r->flops);
      bpw_json_writer_double (w, "bytes", r->bytes);
      bpw_json_writer_begin_array (w, "ops");
      for (guint k = 0; k < r->n_ops; k++)
        {
          const BpwModelledOp *op = bpw_correlation_row_op (corr, r, k);

          bpw_json_writer_begin_object (w, NULL);
          bpw_json_writer_string (w, "name", _bpw_correlate_op_name (corr, op));
          bpw_json_writer_int (w, "lineage", op->lineage);
          bpw_json_writer_int (w, "event", op->event);
          bpw_json_writer_string (w, "status", op->status == BPW_MODELLED_COVERED ? "covered"
                                  : op->status == BPW_MODELLED_MATCHED ? "matched" : "missing");
          bpw_json_writer_end_object (w);
        }
      bpw_json_writer_end_array (w);
      bpw_json_writer_begin_array (w, "items");
      for (guint k = 0; k < r->n_items; k++)
        {
          guint item = bpw_correlation_row_item (corr, r, k);
          g_autofree char *item_name = bpw_profile_item_name (corr->profile,
                                                              bpw_profile_item (corr->profile,
                                                                                item));

          bpw_json_writer_begin_object (w, NULL);
          bpw_json_writer_string (w, "name", item_name);
          bpw_json_writer_int (w, "item", item);
          bpw_json_writer_double (w, "duration_s", bpw_profile_item (corr->profile,
                                                                     item)->duration);
          bpw_json_writer_end_object (w);
        }
      bpw_json_writer_end_array (w);
      optional_string (w, "reason", r->reason);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_array (w);
}

char *
bpw_correlation_to_json (const BpwCorrelation *corr)
{
  BpwJsonWriter w;

  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_begin_object (&w, NULL);
  write_profile (&w, corr->profile);
  bpw_json_writer_begin_array (&w, "pairs");
  for (guint i = 0; i < corr->pairs->len; i++)
    {
      const BpwCorrelationPair *pair = &g_array_index (corr->pairs, BpwCorrelationPair, i);

      bpw_json_writer_begin_object (&w, NULL);
      bpw_json_writer_string (&w, "device", g_ptr_array_index (corr->profile->devices,
                                                                pair->device));
      bpw_json_writer_int (&w, "rank", pair->rank);
      bpw_json_writer_double (&w, "measured_span_s", pair->measured_span_s);
      bpw_json_writer_double (&w, "predicted_span_s", pair->predicted_span_s);
      bpw_json_writer_end_object (&w);
    }
  bpw_json_writer_end_array (&w);
  write_stats (&w, &corr->stats);
  write_operations (&w, corr);
  write_rows (&w, corr);
  bpw_json_writer_end_object (&w);
  return bpw_json_writer_finish (&w);
}
