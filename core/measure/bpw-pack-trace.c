/* bpw-pack-trace.c — a measurement pack's runs: their traces' kernels by stack class, their
 * launch mode and their measured step
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-pack-trace"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-pack-fit.h"

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y ? 1 : 0;
}

static gboolean
is_device_work (const BpwProfileEvent *e)
{
  return e->type == BPW_PROFILE_EVENT_KERNEL || e->type == BPW_PROFILE_EVENT_MEMCPY ||
         e->type == BPW_PROFILE_EVENT_MEMSET;
}

typedef struct
{
  double               start, duration;
  BpwStackKernelClass  klass;
  gint64               correlation;
} Kernel;

/* PyTorch's element-wise kernels that do not run vectorized: the strided one (an operand
 * broadcast or not contiguous: each operand's offset computed from the element's index)
 * and the unrolled one (a dtype converted per element). */
static gboolean
is_offpath_elementwise (const char *name)
{
  return strstr (name, "::elementwise_kernel<") != NULL
         || strstr (name, "unrolled_elementwise_kernel<") != NULL;
}

/* Elements an op works on: its largest input's (the output of an element-wise op is the
 * broadcast of its inputs; a list input, as a cat's, has no dims of its own). */
static double
op_elements (const BpwProfile *profile, const BpwProfileEvent *op)
{
  double most = 0;

  for (guint i = 0; i < op->n_inputs; i++)
    {
      guint rank;
      const gint64 *dims = bpw_profile_event_input (profile, op, i, &rank);
      double n = 1;

      if (rank == 0)
        continue;
      for (guint d = 0; d < rank; d++)
        n *= (double) dims[d];
      most = MAX (most, n);
    }
  return most;
}

static int
compare_kernel (const void *a, const void *b)
{
  const Kernel *x = a, *y = b;

  return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

/* The framework's matrix products whose operands' shapes the trace recorded, each with its
 * GEMM kernels' device time: what the matrix engine did in the run. */
static void
load_products (BpwPackTrace *t, const BpwProfile *profile)
{
  g_autoptr(GArray) products = g_array_new (FALSE, FALSE, sizeof (BpwPackProduct));

  for (guint i = 0; i < profile->items->len; i++)
    {
      const BpwProfileItem *it = bpw_profile_item (profile, i);
      BpwPackProduct p = { it->batch, it->m, it->n, it->k, 0 };

      if (it->kind != BPW_KERNEL_MATMUL || !it->has_shape)
        continue;
      /* The GEMM kernels alone: under autocast the op also runs its weight's cast. */
      for (guint j = 0; j < it->n_kernels; j++)
        {
          const BpwProfileEvent *e =
            bpw_profile_event (profile, g_array_index (profile->item_kernels, guint32,
                                                       it->first_kernel + j));

          if (bpw_stack_kernel_class_from_name (bpw_profile_event_name (profile, e))
              == BPW_STACK_KERNEL_GEMM)
            p.time_s += e->duration;
        }
      if (p.time_s > 0)
        g_array_append_val (products, p);
    }
  t->n_products = products->len;
  t->products = (BpwPackProduct *) g_array_free (g_steal_pointer (&products), FALSE);
}

BpwPackTrace *
bpw_pack_trace_load (const char  *path,
                     GError     **error)
{
  g_autoptr(BpwProfile) profile = bpw_profile_load_file (path, error);
  g_autoptr(GArray) kernels = NULL;
  g_autoptr(GHashTable) launched = NULL;  /* correlation → launch call start */
  g_autoptr(GArray) queued = NULL;
  g_autoptr(GHashTable) ops = NULL;       /* external id → the host op with input dims */
  g_autoptr(GArray) offpath = NULL;       /* (elements, duration) pairs */
  BpwPackTrace *t;
  double end = 0, first_launch = INFINITY, last_launch = -INFINITY;
  guint n_short = 0, n_launches = 0;

  if (profile == NULL)
    return NULL;
  kernels = g_array_new (FALSE, FALSE, sizeof (Kernel));
  launched = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  queued = g_array_new (FALSE, FALSE, sizeof (double));
  ops = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  offpath = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < profile->events->len; i++)
    {
      const BpwProfileEvent *e = &g_array_index (profile->events, BpwProfileEvent, i);

      if (e->type == BPW_PROFILE_EVENT_HOST && e->external_id >= 0 && e->n_inputs > 0)
        g_hash_table_insert (ops, g_memdup2 (&e->external_id, sizeof (gint64)), (gpointer) e);
    }
  for (guint i = 0; i < profile->events->len; i++)
    {
      const BpwProfileEvent *e = &g_array_index (profile->events, BpwProfileEvent, i);
      Kernel k = { e->start, e->duration, 0, e->correlation };

      /* The host's kernel launches (cudaLaunchKernel, cuLaunchKernelEx): how fast the
       * host issues, measured on the host's side. */
      if (e->type == BPW_PROFILE_EVENT_RUNTIME
          && strstr (bpw_profile_event_name (profile, e), "Launch") != NULL
          && strstr (bpw_profile_event_name (profile, e), "Graph") == NULL)
        {
          first_launch = MIN (first_launch, e->start);
          last_launch = MAX (last_launch, e->start);
          n_launches++;
          if (e->correlation >= 0)
            g_hash_table_insert (launched, g_memdup2 (&e->correlation, sizeof (gint64)),
                                 g_memdup2 (&e->start, sizeof (double)));
        }
      if (!is_device_work (e))
        continue;
      k.klass = bpw_stack_kernel_class_from_name (bpw_profile_event_name (profile, e));
      g_array_append_val (kernels, k);
      if (e->type == BPW_PROFILE_EVENT_KERNEL
          && is_offpath_elementwise (bpw_profile_event_name (profile, e)))
        {
          const BpwProfileEvent *op = g_hash_table_lookup (ops, &e->external_id);
          double n = op != NULL ? op_elements (profile, op) : 0;

          if (n >= BPW_PACK_OFFPATH_MIN_ELEMENTS && e->duration > 0)
            {
              g_array_append_val (offpath, n);
              g_array_append_val (offpath, e->duration);
            }
        }
    }
  if (kernels->len == 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("%s: the trace has no device kernels"), path);
      return NULL;
    }
  /* File order is not start order; idle time needs the latter. */
  qsort (kernels->data, kernels->len, sizeof (Kernel), compare_kernel);

  t = g_new0 (BpwPackTrace, 1);
  t->n_kernels = kernels->len;
  t->durations = g_new (double, kernels->len);
  t->ordered = g_new (double, kernels->len);
  t->short_durations = g_new (double, kernels->len);
  end = g_array_index (kernels, Kernel, 0).start;
  for (guint i = 0; i < kernels->len; i++)
    {
      const Kernel *k = &g_array_index (kernels, Kernel, i);
      const double *call = g_hash_table_lookup (launched, &k->correlation);

      /* The host issued this kernel before the one ahead of it ended: whatever idle
       * precedes it is the device's own between queued kernels, not a wait for the host. */
      if (i > 0 && call != NULL && *call < end && k->start >= end)
        {
          double gap = k->start - end;

          g_array_append_val (queued, gap);
        }
      if (k->start > end)
        t->idle_s += k->start - end;
      end = MAX (end, k->start + k->duration);
      t->busy_s += k->duration;
      t->durations[i] = k->duration;
      t->ordered[i] = k->duration;
      t->count[k->klass]++;
      t->time_s[k->klass] += k->duration;
      if (k->klass == BPW_STACK_KERNEL_ELEMENTWISE || k->klass == BPW_STACK_KERNEL_CAST)
        t->short_durations[n_short++] = k->duration;
    }
  t->span_s = end - g_array_index (kernels, Kernel, 0).start;
  t->n_short = n_short;
  t->n_launches = n_launches;
  t->launch_span_s = n_launches > 1 ? last_launch - first_launch : 0;
  qsort (t->durations, t->n_kernels, sizeof (double), compare_double);
  qsort (t->short_durations, t->n_short, sizeof (double), compare_double);
  if (queued->len > 0)  /* an empty GArray has no data to hand qsort */
    qsort (queued->data, queued->len, sizeof (double), compare_double);
  t->n_queued_gaps = queued->len;
  t->n_offpath = offpath->len / 2;
  t->offpath_elements = g_new (double, MAX (t->n_offpath, 1));
  t->offpath_durations = g_new (double, MAX (t->n_offpath, 1));
  for (guint i = 0; i < t->n_offpath; i++)
    {
      t->offpath_elements[i] = g_array_index (offpath, double, 2 * i);
      t->offpath_durations[i] = g_array_index (offpath, double, 2 * i + 1);
    }
  t->queued_gaps = (double *) g_array_free (g_steal_pointer (&queued), FALSE);
  load_products (t, profile);
  return t;
}

void
bpw_pack_trace_free (BpwPackTrace *trace)
{
  if (trace == NULL)
    return;
  g_free (trace->durations);
  g_free (trace->ordered);
  g_free (trace->short_durations);
  g_free (trace->queued_gaps);
  g_free (trace->offpath_elements);
  g_free (trace->offpath_durations);
  g_free (trace->products);
  g_free (trace);
}

double
bpw_pack_trace_queue_idle (const BpwPackTrace *trace,
                           double              h)
{
  double busy = 0, idle = 0;

  /* Kernel j is issued at j·h and starts at max (previous end, j·h): the device has idled
   * max over j of (j·h − busy before j) by the time the last kernel starts. */
  for (guint j = 0; j < trace->n_kernels; j++)
    {
      idle = MAX (idle, j * h - busy);
      busy += trace->ordered[j];
    }
  return idle;
}

double
bpw_pack_trace_issue_time (const BpwPackTrace *trace)
{
  double lo = 0, hi = trace->span_s;

  if (trace->idle_s <= 0 || trace->n_kernels < 2)
    return 0;
  /* The queue's idle grows continuously and without bound in h: bisect to double
   * precision. */
  for (guint i = 0; i < 200 && hi - lo > 1e-15 * hi; i++)
    {
      double mid = 0.5 * (lo + hi);

      if (bpw_pack_trace_queue_idle (trace, mid) < trace->idle_s)
        lo = mid;
      else
        hi = mid;
    }
  return 0.5 * (lo + hi);
}

double
bpw_pack_trace_launch_interval (const BpwPackTrace *trace)
{
  return trace->n_launches > 1 ? trace->launch_span_s / (trace->n_launches - 1) : 0;
}

gboolean
bpw_pack_run_is_graph (const BpwMeasurementPack *pack,
                       guint                     run)
{
  const BpwPackRun *r = &pack->runs[run];
  g_autofree char *base = g_path_get_basename (r->trace_path);
  char *dot = strstr (base, ".json");
  g_auto(GStrv) clauses = NULL;
  g_autofree char *name = g_ascii_strdown (r->name, -1);

  /* "decode-graph.trace.json.gz" is named "decode-graph.trace" in prose. */
  if (dot != NULL)
    *dot = '\0';
  if (pack->launch != NULL)
    {
      clauses = g_strsplit_set (pack->launch, ";\n", -1);
      for (guint i = 0; clauses[i] != NULL; i++)
        {
          const char *at = strstr (clauses[i], base);

          /* the name must stand alone: "decode.trace" is not "xdecode.trace" */
          if (at != NULL && (at == clauses[i] || !(g_ascii_isalnum (at[-1]) || at[-1] == '-')))
            {
              g_autofree char *lower = g_ascii_strdown (clauses[i], -1);

              return strstr (lower, "graph") != NULL;
            }
        }
    }
  return strstr (name, "graph") != NULL;
}

double
bpw_pack_run_step_s (const BpwMeasurementPack *pack,
                     const BpwPackTrace       *trace,
                     guint                     run)
{
  if (!isnan (pack->runs[run].measured_s))
    return pack->runs[run].measured_s;
  return trace != NULL ? trace->span_s : NAN;
}

BpwPackData *
bpw_pack_data_load (const char  *path,
                    GError     **error)
{
  g_autoptr(BpwPackData) data = g_new0 (BpwPackData, 1);

  data->warnings = g_ptr_array_new_with_free_func (g_free);
  data->pack = bpw_measurement_pack_load_file (path, data->warnings, error);
  if (data->pack == NULL)
    return NULL;
  data->traces = g_new0 (BpwPackTrace *, data->pack->n_runs + 1);
  for (guint i = 0; i < data->pack->n_runs; i++)
    {
      g_autoptr(GError) local = NULL;

      data->traces[i] = bpw_pack_trace_load (data->pack->runs[i].trace_path, &local);
      if (data->traces[i] == NULL)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("%s: run “%s”: %s"),
                       path, data->pack->runs[i].name, local->message);
          return NULL;
        }
    }
  return g_steal_pointer (&data);
}

void
bpw_pack_data_free (BpwPackData *data)
{
  if (data == NULL)
    return;
  for (guint i = 0; data->pack != NULL && data->traces != NULL && i < data->pack->n_runs; i++)
    bpw_pack_trace_free (data->traces[i]);
  g_free (data->traces);
  g_clear_pointer (&data->pack, bpw_measurement_pack_free);
  g_clear_pointer (&data->warnings, g_ptr_array_unref);
  g_free (data);
}
