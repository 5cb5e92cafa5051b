/* bpw-trace.c — Chrome Trace Event JSON of a simulated step
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Written in one pass through a 1 MiB buffer: a full gpt3-175B step is about a million
 * slices. Numbers are printed in the C locale (g_ascii_formatd), so the file is valid JSON
 * whatever the user's locale.
 */
#define G_LOG_DOMAIN "bpw-trace"

#include "config.h"

#include "bpw-i18n.h"
#include "bpw-trace.h"

#include "bpw-file.h"

#include <math.h>
#include <string.h>

#define FLUSH_AT (1u << 20)

typedef struct
{
  GOutputStream *stream;       /* one of the two */
  BpwFileWriter *file;
  GCancellable  *cancellable;
  GString       *buf;
  gboolean       first;
  GError        *error;
} Writer;

static void
flush (Writer *w, gboolean force)
{
  if (w->error != NULL || (!force && w->buf->len < FLUSH_AT))
    return;
  if (w->file != NULL)
    bpw_file_writer_write (w->file, w->buf->str, w->buf->len, &w->error);
  else
    g_output_stream_write_all (w->stream, w->buf->str, w->buf->len, NULL, w->cancellable,
                               &w->error);
  g_string_truncate (w->buf, 0);
}

/* Starts the next element of traceEvents. */
static void
next (Writer *w)
{
  g_string_append (w->buf, w->first ? "\n" : ",\n");
  w->first = FALSE;
}

static void
number (Writer *w, const char *fmt, double value)
{
  char tmp[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (value))
    value = 0;
  g_string_append (w->buf, g_ascii_formatd (tmp, sizeof tmp, fmt, value));
}

static void
integer (Writer *w, gint64 v)
{
  char tmp[24];
  guint n = 0;
  guint64 u = v < 0 ? (guint64) -(v + 1) + 1 : (guint64) v;

  do
    tmp[n++] = (char) ('0' + u % 10);
  while ((u /= 10) > 0);
  if (v < 0)
    g_string_append_c (w->buf, '-');
  while (n > 0)
    g_string_append_c (w->buf, tmp[--n]);
}

static gint64
nanoseconds (double seconds)
{
  double ns = seconds * 1e9;

  return isfinite (ns) && fabs (ns) < 9e15 ? (gint64) llround (ns) : 0;
}

/* Microseconds with three decimals, from whole nanoseconds and without printf: a full
 * step writes millions of them. Slices print the rounded start and the difference of the
 * rounded ends, so that a slice that ends where the next one starts does so exactly. */
static void
microseconds_ns (Writer *w, gint64 v)
{
  if (v < 0)
    {
      g_string_append_c (w->buf, '-');
      v = -v;
    }
  integer (w, v / 1000);
  g_string_append_c (w->buf, '.');
  g_string_append_c (w->buf, (char) ('0' + v / 100 % 10));
  g_string_append_c (w->buf, (char) ('0' + v / 10 % 10));
  g_string_append_c (w->buf, (char) ('0' + v % 10));
}

static void
microseconds (Writer *w, double seconds)
{
  microseconds_ns (w, nanoseconds (seconds));
}

/* FLOPs and bytes: whole numbers while they are exact in a double. */
static void
amount (Writer *w, double value)
{
  if (isfinite (value) && fabs (value) < 9e15)
    integer (w, (gint64) llround (value));
  else
    number (w, "%.6g", value);
}

static void
string (Writer *w, const char *str)
{
  g_string_append_c (w->buf, '"');
  for (const char *p = str; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_c (w->buf, '\\');
      if ((unsigned char) *p < 0x20)
        g_string_append_printf (w->buf, "\\u%04x", (guint) (unsigned char) *p);
      else
        g_string_append_c (w->buf, *p);
    }
  g_string_append_c (w->buf, '"');
}

static void
metadata (Writer *w, const char *what, guint32 pid, gint tid, const char *name)
{
  next (w);
  g_string_append_printf (w->buf, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%u", what, pid);
  if (tid >= 0)
    g_string_append_printf (w->buf, ",\"tid\":%d", tid);
  g_string_append (w->buf, ",\"args\":{\"name\":");
  string (w, name);
  g_string_append (w->buf, "}}");
}

static void
write_metadata (Writer *w, const BpwSimulation *sim)
{
  for (guint32 r = 0; r < sim->n_ranks; r++)
    {
      g_autofree char *name = NULL;
      gint64 stage = bpw_simulation_rank_stage (sim, r);

      name = sim->expanded ? g_strdup_printf ("rank %u (stage %" G_GINT64_FORMAT ")", r, stage)
                           : g_strdup_printf ("stage %" G_GINT64_FORMAT, stage);
      metadata (w, "process_name", r, -1, name);
      next (w);
      g_string_append_printf (w->buf, "{\"ph\":\"M\",\"name\":\"process_sort_index\","
                              "\"pid\":%u,\"args\":{\"sort_index\":%u}}", r, r);
      for (guint32 q = 0; q < sim->n_queues; q++)
        {
          guint32 n;

          bpw_simulation_lane (sim, r, q, &n);
          if (n > 0)
            metadata (w, "thread_name", r, (gint) q + 1, bpw_simulation_queue_name (sim, q));
        }
    }
}

static void
write_slice (Writer *w, const BpwSimulation *sim, guint32 i)
{
  const BpwSimEvent *e = bpw_simulation_event (sim, i);
  double flops, bytes;

  bpw_simulation_event_work (sim, e, &flops, &bytes);
  next (w);
  g_string_append (w->buf, "{\"ph\":\"X\",\"name\":");
  string (w, bpw_simulation_event_name (sim, e));
  g_string_append (w->buf, ",\"cat\":\"");
  g_string_append (w->buf, bpw_phase_to_string (e->phase));
  g_string_append (w->buf, "\",\"pid\":");
  integer (w, e->rank);
  g_string_append (w->buf, ",\"tid\":");
  integer (w, e->queue + 1);
  g_string_append (w->buf, ",\"ts\":");
  microseconds (w, e->start);
  g_string_append (w->buf, ",\"dur\":");
  microseconds_ns (w, MAX (0, nanoseconds (e->end) - nanoseconds (e->start)));
  g_string_append (w->buf, ",\"args\":{\"lineage\":");
  integer (w, e->lineage);
  g_string_append (w->buf, ",\"micro_batch\":");
  integer (w, e->micro_batch);
  g_string_append (w->buf, ",\"flops\":");
  amount (w, flops);
  g_string_append (w->buf, ",\"bytes\":");
  amount (w, bytes);
  g_string_append (w->buf, ",\"bottleneck\":\"");
  g_string_append (w->buf, bpw_bottleneck_to_string (bpw_simulation_event_bottleneck (sim, e)));
  g_string_append (w->buf, "\",\"event\":");
  integer (w, i);
  /* A part of a hierarchical collective: which, of how many, and the part's own collective
   * (its tier is its lane's). */
  if (e->part > 0)
    {
      guint n_parts;
      BpwCollectiveKind kind = bpw_simulation_event_part (sim, e, &n_parts);

      g_string_append (w->buf, ",\"part\":");
      integer (w, e->part);
      g_string_append (w->buf, ",\"parts\":");
      integer (w, n_parts);
      g_string_append (w->buf, ",\"part_collective\":\"");
      g_string_append (w->buf, bpw_collective_to_string (kind));
      g_string_append (w->buf, "\"");
    }
  /* A transfer slowed by sharing its link (by a nanosecond or more): its span is the real
   * one, and this much of it is contention (time: its bytes are the same). A synchronised
   * transfer's wait for its partner is not. */
  if (e->kind == BPW_SIM_EVENT_TRANSFER && !(e->flags & BPW_SIM_FLAG_SYNC) &&
      e->end - e->start - bpw_simulation_event_alone_s (sim, e) >= 1e-9)
    {
      g_string_append (w->buf, ",\"contention_us\":");
      microseconds (w, e->end - e->start - bpw_simulation_event_alone_s (sim, e));
    }
  g_string_append (w->buf, "}}");
  flush (w, FALSE);
}

/* A flow from an event's predecessor on another queue (or rank) to the event. */
static void
write_flow (Writer *w, const BpwSimulation *sim, guint32 i)
{
  const BpwSimEvent *e = bpw_simulation_event (sim, i);
  const BpwSimEvent *p;
  double at;

  if (e->pred == BPW_SIM_NONE)
    return;
  p = bpw_simulation_event (sim, e->pred);
  if (p->rank == e->rank && p->queue == e->queue)
    return;
  /* Inside the predecessor's slice, as close to its end as the nanosecond print allows. */
  at = MAX (p->start, p->end - 1e-9);
  next (w);
  g_string_append (w->buf, "{\"ph\":\"s\",\"name\":\"dependency\",\"cat\":\"dependency\",\"id\":");
  integer (w, i);
  g_string_append (w->buf, ",\"pid\":");
  integer (w, p->rank);
  g_string_append (w->buf, ",\"tid\":");
  integer (w, p->queue + 1);
  g_string_append (w->buf, ",\"ts\":");
  microseconds (w, at);
  g_string_append (w->buf, "}");
  next (w);
  g_string_append (w->buf, "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"dependency\","
                           "\"cat\":\"dependency\",\"id\":");
  integer (w, i);
  g_string_append (w->buf, ",\"pid\":");
  integer (w, e->rank);
  g_string_append (w->buf, ",\"tid\":");
  integer (w, e->queue + 1);
  g_string_append (w->buf, ",\"ts\":");
  microseconds (w, e->start);
  g_string_append (w->buf, "}");
}

static void
write_memory (Writer *w, const BpwSimulation *sim, guint32 rank, guint points)
{
  g_autoptr(GArray) curve = bpw_simulation_memory_curve (sim, rank);
  double width = sim->step_time_s / (double) points;
  gint64 bin = -1;
  guint best = 0;

  for (guint i = 0; i <= curve->len; i++)
    {
      gint64 b = i < curve->len
                 ? (gint64) (g_array_index (curve, BpwMemorySample, i).time / MAX (width, 1e-300))
                 : G_MAXINT64;

      /* One point per bin: the bin's highest sample, at its own time. */
      if (b != bin && bin >= 0)
        {
          const BpwMemorySample *s = &g_array_index (curve, BpwMemorySample, best);

          next (w);
          g_string_append_printf (w->buf, "{\"ph\":\"C\",\"name\":\"device memory (bytes)\","
                                  "\"pid\":%u,\"ts\":", rank);
          microseconds (w, s->time);
          g_string_append (w->buf, ",\"args\":{");
          for (guint c = 0; c < BPW_N_MEM_CATEGORIES; c++)
            {
              g_string_append_printf (w->buf, "%s\"%s\":", c ? "," : "",
                                      bpw_memory_category_to_string (c));
              amount (w, s->bytes[c]);
            }
          g_string_append (w->buf, "}}");
        }
      if (i == curve->len)
        break;
      if (b != bin || g_array_index (curve, BpwMemorySample, i).total >
                      g_array_index (curve, BpwMemorySample, best).total)
        best = i;
      bin = b;
    }
  flush (w, FALSE);
}

static void
write_links (Writer *w, const BpwSimulation *sim, guint32 rank, guint points)
{
  guint tiers = sim->plan->blueprint->n_tiers;
  g_autofree double *busy = g_new0 (double, (gsize) tiers * points);
  g_autofree double *lane = g_new (double, points);
  gboolean any = FALSE;

  for (guint32 q = 2; q < sim->n_queues; q++)
    {
      guint32 n;

      bpw_simulation_lane (sim, rank, q, &n);
      if (n == 0)
        continue;
      any = TRUE;
      bpw_simulation_utilisation (sim, rank, q, points, lane);
      for (guint b = 0; b < points; b++)
        busy[BPW_SIM_QUEUE_TIER (q) * points + b] += lane[b];
    }
  if (!any)
    return;
  for (guint b = 0; b < points; b++)
    {
      next (w);
      g_string_append_printf (w->buf, "{\"ph\":\"C\",\"name\":\"link utilisation\",\"pid\":%u,"
                              "\"ts\":", rank);
      microseconds (w, sim->step_time_s * b / points);
      g_string_append (w->buf, ",\"args\":{");
      for (guint t = 0; t < tiers; t++)
        {
          g_string_append (w->buf, t ? "," : "");
          string (w, sim->plan->blueprint->tiers[t].name);
          g_string_append_c (w->buf, ':');
          /* Groups sharing a tier share its bandwidth: their busy fractions add up to it. */
          number (w, "%.4f", MIN (1.0, busy[t * points + b]));
        }
      g_string_append (w->buf, "}}");
    }
  flush (w, FALSE);
}

static gboolean
write_trace (Writer                *writer,
             const BpwSimulation   *sim,
             const BpwTraceOptions *options,
             GError               **error)
{
  Writer w = *writer;
  guint points = options != NULL && options->counter_points > 0 ? options->counter_points : 2000;
  gboolean flows = options == NULL || !options->no_flows;

  w.buf = g_string_sized_new (FLUSH_AT + 4096);
  g_string_append (w.buf, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":"
                          "\"blueprint-workbench\",\"time_unit\":\"us\",\"step_time_s\":");
  number (&w, "%.9g", sim->step_time_s);
  g_string_append (w.buf, "},\"traceEvents\":[");
  write_metadata (&w, sim);
  for (guint32 i = 0; i < sim->events->len && w.error == NULL; i++)
    write_slice (&w, sim, i);
  for (guint32 i = 0; flows && i < sim->events->len && w.error == NULL; i++)
    {
      write_flow (&w, sim, i);
      flush (&w, FALSE);
    }
  for (guint32 r = 0; r < sim->n_ranks && w.error == NULL; r++)
    {
      write_memory (&w, sim, r, points);
      write_links (&w, sim, r, points);
    }
  g_string_append (w.buf, "\n]}\n");
  flush (&w, TRUE);
  g_string_free (w.buf, TRUE);
  if (w.error != NULL)
    {
      g_propagate_error (error, w.error);
      return FALSE;
    }
  return TRUE;
}

gboolean
bpw_trace_write_stream (const BpwSimulation   *sim,
                        const BpwTraceOptions *options,
                        GOutputStream         *stream,
                        GCancellable          *cancellable,
                        GError               **error)
{
  Writer w = { .stream = stream, .cancellable = cancellable, .first = TRUE };

  return write_trace (&w, sim, options, error);
}

gboolean
bpw_trace_write (const BpwSimulation   *sim,
                 const BpwTraceOptions *options,
                 const char            *path,
                 GError               **error)
{
  g_autoptr(BpwFileWriter) file = bpw_file_writer_new (path, error);
  Writer w = { .first = TRUE };

  /* The writer's errors name the file. */
  if (file == NULL)
    return FALSE;
  w.file = file;
  return write_trace (&w, sim, options, error) && bpw_file_writer_commit (file, error);
}
