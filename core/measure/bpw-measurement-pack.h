/* bpw-measurement-pack.h — what one device and software stack measured: microbenchmarks
 * and traced runs (format "bpw-measurement-pack", data/schemas/)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A pack is the input of a calibration: the device and the stack it was measured on,
 * the rates its microbenchmarks reached (matrix products by shape and precision, memory
 * copies by size, attention), and a few traced runs, each with the model (a Hugging Face
 * config.json) and the scenario it ran. The reader keeps everything in flat arrays, times
 * in seconds and rates in FLOP/s and B/s (the file writes ms, TFLOP/s and TB/s), and
 * resolves each run's trace and model against the pack's folder, checking that they
 * exist and that the model loads. tools/measure/ writes packs.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "bpw-scenario.h"

G_BEGIN_DECLS

/* One timed matrix product: C[m×n] = A[m×k] · B[k×n]. */
typedef struct
{
  char     *name;           /* nullable: "8b.qkv" */
  BpwDType  dtype;          /* of the operands */
  gint64    m, n, k;
  double    time_s;
  double    flops_per_s;    /* as the file states it (2·m·n·k / time) */
} BpwPackMatmul;

/* A device-to-device copy of @bytes (read @bytes and write @bytes). */
typedef struct
{
  gint64  bytes;
  double  time_s;
  double  bytes_per_s;      /* read plus written, as the file states it */
} BpwPackCopy;

typedef enum
{
  BPW_PACK_ATTENTION_PREFILL_CAUSAL,   /* b sequences of s tokens, causal (flash) */
  BPW_PACK_ATTENTION_DECODE,           /* one token for each of b sequences at context */
  BPW_PACK_N_ATTENTION_KINDS
} BpwPackAttentionKind;

typedef struct
{
  BpwPackAttentionKind kind;
  gint64  batch;
  gint64  tokens;           /* prefill: s; decode: context */
  double  time_s;
  double  rate;             /* prefill: causal FLOP/s; decode: KV bytes read per s */
  gint64  kv_bytes;         /* decode only; 0 for prefill */
} BpwPackAttention;

typedef struct
{
  char        *name;
  char        *trace_path;  /* resolved against the pack's folder */
  char        *model_path;  /* likewise */
  BpwScenario  scenario;
  double       measured_s;  /* the step as timed outside the profiler; NAN when absent */
  double       peak_bytes;  /* device memory allocated at the step's peak (PyTorch's
                             * max_memory_allocated); NAN when absent */
  char        *note;        /* nullable */
} BpwPackRun;

typedef struct
{
  char     *filename;
  char     *directory;      /* what trace and model paths are relative to */
  gint64    version;

  /* device */
  char     *device_name;
  gint64    device_count;
  gint64    sms;            /* 0 when absent, as the other integers below */
  gint64    memory_bytes;
  char     *compute_capability, *driver, *cuda;   /* nullable */
  double    power_limit_w, sm_clock_max_mhz, memory_clock_max_mhz;   /* NAN when absent */

  /* stack: "framework" always, the other members as written (nullable each) */
  char     *framework, *python, *attention_impl, *precision, *optimizer, *fusion, *launch,
           *other_models;

  /* microbenchmarks */
  BpwPackMatmul     peak;   /* the largest product the kit ran */
  double            peak_power_w, peak_sm_clock_mhz;   /* under that load; NAN when absent */
  BpwPackMatmul    *matmuls;      /* the shape sweeps, every precision, file order */
  guint             n_matmuls;
  BpwPackCopy      *copies;       /* by size, file order */
  guint             n_copies;
  BpwPackAttention *attention;
  guint             n_attention;
  char             *note;         /* microbenchmarks.board_power_note; nullable */

  BpwPackRun       *runs;
  guint             n_runs;
} BpwMeasurementPack;

/* TRUE when @root is an object whose "format" is "bpw-measurement-pack". */
gboolean            bpw_measurement_pack_detect    (JsonNode    *root);

/* Reads @path; a pack with problems gives one error naming them all, one a line, each
 * "FILE:LINE:COL: PATH: reason" (the first 50, then how many more). Unknown members are not
 * errors: they go to @warnings (nullable) as located lines. */
BpwMeasurementPack *bpw_measurement_pack_load_file (const char  *path,
                                                    GPtrArray   *warnings,
                                                    GError     **error);
void                bpw_measurement_pack_free      (BpwMeasurementPack *pack);

/* Indices into pack->matmuls of the sweep points measured in @dtype (the peak is not among
 * them), *n of them; free with g_free(). What a calibration by shape takes per precision. */
guint              *bpw_measurement_pack_matmuls_of (const BpwMeasurementPack *pack,
                                                     BpwDType                  dtype,
                                                     guint                    *n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwMeasurementPack, bpw_measurement_pack_free)

G_END_DECLS
