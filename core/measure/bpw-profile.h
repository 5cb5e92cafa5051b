/* bpw-profile.h — measured profiles: Chrome/Perfetto traces and PyTorch profiler traces
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A profile is what the hardware did, as a file a user brings: a Chrome Trace Event file
 * (a "traceEvents" object or a bare array; complete "X" slices and "B"/"E" pairs, ts and
 * dur in µs, pid/tid, args), a PyTorch profiler trace in kineto's layout ("cat":
 * "cpu_op" / "kernel" / "cuda_runtime" / "user_annotation" ..., "External id", "Input
 * Dims", "deviceProperties", "distributedInfo", "baseTimeNanoseconds"), the autograd
 * profiler's trace of a torch without kineto (a bare array of "X" events with pid "CPU
 * functions"), or the workbench's own trace (bpw evaluate --trace: lineage ids in args).
 *
 * Loading keeps every slice as a flat event and derives the *work items* that correlation
 * compares with modelled operations:
 * - host ops nest (aten::linear contains aten::addmm contains aten::copy_); an item is the
 *   outermost op that does arithmetic or moves data, so one framework op is one item and
 *   what runs inside it is part of it. Views, allocations, autograd nodes, annotations and
 *   runtime calls do no work of their own and are transparent (their children may);
 * - where the trace has device kernels, an item is the framework op that launched them
 *   (through "External id") and its time is the kernels' device time; kernels no op
 *   launched are items of their own;
 * - the workbench's own trace: every slice is an item, with its lineage id.
 * Each item gets a kind (BpwKernelKind) from its name by the framework's patterns, and a
 * matmul shape where "Input Dims" were recorded.
 */
#pragma once

#include "bpw-json-doc.h"
#include "bpw-types.h"

G_BEGIN_DECLS

/* At most this many events are read; beyond it the file is refused. */
#define BPW_PROFILE_MAX_EVENTS 4000000

typedef enum
{
  BPW_PROFILE_FORMAT_CHROME,          /* Chrome / Perfetto trace events */
  BPW_PROFILE_FORMAT_BPW,             /* the workbench's own trace: lineage ids */
  BPW_PROFILE_FORMAT_PYTORCH,         /* PyTorch profiler, kineto layout */
  BPW_PROFILE_FORMAT_PYTORCH_LEGACY,  /* PyTorch autograd profiler without kineto */
  BPW_N_PROFILE_FORMATS
} BpwProfileFormat;

typedef enum
{
  BPW_PROFILE_EVENT_HOST,        /* an op or slice on a host thread */
  BPW_PROFILE_EVENT_KERNEL,      /* a device kernel */
  BPW_PROFILE_EVENT_MEMCPY,
  BPW_PROFILE_EVENT_MEMSET,
  BPW_PROFILE_EVENT_RUNTIME,     /* cudaLaunchKernel, driver and synchronisation calls */
  BPW_PROFILE_EVENT_ANNOTATION,  /* user annotations, python functions, profiler steps */
  BPW_N_PROFILE_EVENT_TYPES
} BpwProfileEventType;

/* What a measured op or kernel does, judged by its name. NONE: no work of its own (a view,
 * an allocation, an autograd node, an annotation); UNKNOWN: work no pattern recognises. */
typedef enum
{
  BPW_KERNEL_NONE,
  BPW_KERNEL_UNKNOWN,
  BPW_KERNEL_MATMUL,
  BPW_KERNEL_BATCHED_MATMUL,
  BPW_KERNEL_ATTENTION,       /* fused attention (flash, memory-efficient, SDPA) */
  BPW_KERNEL_SOFTMAX,
  BPW_KERNEL_NORM,
  BPW_KERNEL_GELU,
  BPW_KERNEL_SWIGLU,
  BPW_KERNEL_DROPOUT,
  BPW_KERNEL_ADD,
  BPW_KERNEL_BIAS,
  BPW_KERNEL_ROTARY,
  BPW_KERNEL_GATHER,          /* embedding lookup */
  BPW_KERNEL_SCATTER_ADD,     /* embedding gradient */
  BPW_KERNEL_CROSS_ENTROPY,   /* log-softmax and NLL */
  BPW_KERNEL_TOPK,
  BPW_KERNEL_PERMUTE,
  BPW_KERNEL_OPTIMIZER,
  BPW_KERNEL_ELEMENTWISE,     /* element-wise arithmetic of no specific role */
  BPW_KERNEL_REDUCE,          /* sums and means */
  BPW_KERNEL_COPY,            /* layout copies, concatenation, memcpy */
  BPW_KERNEL_FILL,            /* zeros, ones, arange, memset: initialisation */
  BPW_KERNEL_COMMUNICATION,   /* NCCL and collective calls */
  BPW_N_KERNEL_KINDS
} BpwKernelKind;

typedef struct _BpwProfile BpwProfile;

/* One slice of the trace, in a flat array. */
typedef struct
{
  double   start;        /* s from the profile's origin (its earliest slice) */
  double   duration;     /* s */
  guint32  name;         /* bpw_profile_string() index */
  guint32  category;     /* "cat", "" when absent */
  guint32  lane;         /* index into lanes: one per (pid, tid) */
  gint32   parent;       /* the enclosing slice on the same lane, -1 */
  gint64   external_id;  /* PyTorch "External id" (kernels: of the op that launched them), -1 */
  gint64   correlation;  /* args.correlation: a kernel's with its runtime launch call's, -1 */
  gint64   lineage;      /* bpw traces: args.lineage, -1 */
  gint64   stream;       /* kernels: args.stream, -1 */
  double   flops;        /* args.flops (bpw traces), NAN when absent */
  double   bytes;        /* args.bytes (bpw traces), NAN when absent */
  guint32  dims_first;   /* "Input Dims" in dims: n_inputs × (rank, dims...) */
  guint16  n_inputs;     /* 0 when no shapes were recorded */
  guint8   type;         /* BpwProfileEventType */
  guint8   kind;         /* BpwKernelKind of the name */
  gint32   micro_batch;  /* bpw traces: args.micro_batch, -1 */
  gint32   item;         /* the work item it belongs to, -1 */
  gint32   device;       /* kernels: args.device (else the pid), -1 for host slices */
} BpwProfileEvent;

/* A (process, thread) pair of the file: a lane of the measured timeline. */
typedef struct
{
  guint32  process_name;  /* string: process_name metadata, else the pid as written */
  guint32  thread_name;   /* string: thread_name metadata, else the tid as written */
  gint64   pid, tid;      /* as numbers: the file's, or the order of first appearance */
  guint32  first;         /* into lane_events */
  guint32  n_events;
} BpwProfileLane;

/* A unit of measured work that correlation matches with modelled operations. */
typedef struct
{
  double   start;         /* s: of the op, or of its first kernel */
  double   duration;      /* s: the op's wall time on the host, or its kernels' device time */
  guint32  event;         /* the framework op, or the kernel when no op launched it */
  guint32  first_kernel;  /* into item_kernels: the kernels whose time it counts */
  guint32  n_kernels;     /* 0 for host items */
  guint32  device;        /* index into devices */
  guint8   kind;          /* BpwKernelKind, after context (an optimizer step's arithmetic) */
  guint8   has_shape;     /* matmul shape below is known */
  gint64   lineage;       /* bpw traces, -1 */
  gint32   micro_batch;   /* bpw traces, -1 */
  double   batch, m, k, n;  /* matmul: batch × (m × k) · (k × n) */
} BpwProfileItem;

/* Where and with what the profile was taken: every field nullable / -1 when unknown. */
typedef struct
{
  char    *hardware;      /* "NVIDIA A100-SXM4-80GB (sm_80)", a CPU name */
  char    *driver;        /* "CUDA driver 12.4" */
  char    *runtime;       /* "CUDA runtime 12.6" */
  char    *framework;     /* "PyTorch 2.3.0" */
  char    *date;          /* ISO 8601, UTC */
  char    *trace_name;
  char    *backend;       /* distributed backend: "nccl" */
  gint64   rank, world_size;
} BpwProfileMeta;

struct _BpwProfile
{
  /* owned */
  char            *filename;
  BpwProfileFormat format;
  BpwProfileMeta   meta;
  GArray          *events;        /* BpwProfileEvent */
  GArray          *lanes;         /* BpwProfileLane */
  guint32         *lane_events;   /* event indices per lane, sorted by start */
  GArray          *items;         /* BpwProfileItem, sorted by device then start */
  GArray          *item_kernels;  /* guint32 event indices */
  GArray          *dims;          /* gint64: encoded "Input Dims" */
  GPtrArray       *devices;       /* device names: "python3 (pid 8719)", "GPU 0", "stage 0" */
  GArray          *device_ids;    /* gint64 per device: the GPU's index, or the pid */
  GPtrArray       *strings;       /* interned */
  GHashTable      *string_index;  /* string -> index + 1 */
  GPtrArray       *warnings;      /* sentences: what was skipped and why */
  double           origin_us;     /* the file's ts of start 0 */
  double           span_s;        /* first start to last end */
  guint            ignored;       /* events of phases that carry no slice (counters, flows) */
};

/* Loads a profile of any of the formats, recognised by content. Malformed structure is a
 * located error "FILE:LINE:COL: traceEvents[12].dur: expected a non-negative number of
 * µs, got -4"; what a viewer would skip (unknown phases, unmatched "E", slices left open)
 * is skipped with a warning. @filename is used in messages only. These are the fuzzing
 * entry points. */
BpwProfile   *bpw_profile_load_data  (const char   *filename,
                                      const char   *data,
                                      gssize        length,
                                      GError      **error);
BpwProfile   *bpw_profile_load_file  (const char   *path,
                                      GError      **error);
BpwProfile   *bpw_profile_load_doc   (BpwJsonDoc   *doc,
                                      GError      **error);
void          bpw_profile_free       (BpwProfile   *profile);

static inline const BpwProfileEvent *
bpw_profile_event (const BpwProfile *profile, guint i)
{
  return &g_array_index (profile->events, BpwProfileEvent, i);
}

static inline const BpwProfileItem *
bpw_profile_item (const BpwProfile *profile, guint i)
{
  return &g_array_index (profile->items, BpwProfileItem, i);
}

static inline const char *
bpw_profile_string (const BpwProfile *profile, guint32 index)
{
  return g_ptr_array_index (profile->strings, index);
}

static inline const char *
bpw_profile_event_name (const BpwProfile *profile, const BpwProfileEvent *event)
{
  return bpw_profile_string (profile, event->name);
}

/* The name an item shows: its op's, with its first kernel's after " → " for device items. */
char         *bpw_profile_item_name  (const BpwProfile     *profile,
                                      const BpwProfileItem *item);
/* Input @i of an event's "Input Dims": its dimensions (NULL when out of range). */
const gint64 *bpw_profile_event_input (const BpwProfile      *profile,
                                       const BpwProfileEvent *event,
                                       guint                  i,
                                       guint                 *rank);
/* Events of a lane sorted by start: indices into events. */
const guint32 *bpw_profile_lane      (const BpwProfile *profile,
                                      guint             lane,
                                      guint            *n_events);
/* Items of @device: the first index and the count (items are sorted by device). */
void          bpw_profile_device_items (const BpwProfile *profile,
                                        guint             device,
                                        guint            *first,
                                        guint            *n_items);
/* Σ item durations on @device. */
double        bpw_profile_device_time (const BpwProfile *profile,
                                       guint             device);

/* "AMD EPYC, 1 thread; PyTorch 1.13.0a0; 2026-11-30T18:03:20Z": the metadata that is
 * known, for provenance and reports; "no metadata" when none is. */
char         *bpw_profile_meta_describe (const BpwProfileMeta *meta);

/* Name classification by the patterns of @format's framework (bpw-profile-classify.c):
 * PyTorch op names ("aten::addmm", "aten::_softmax_backward_data"), device kernel names
 * ("sm80_xmma_gemm_...", "ampere_*gemm*", "cutlass::...", "softmax_warp_forward",
 * "vectorized_elementwise_kernel<...GeluCUDAKernelImpl...>", "ncclKernel_AllReduce...")
 * and the workbench's op names ("attn.qkv.dgrad"). @name is as written in the trace. */
BpwKernelKind bpw_kernel_kind_from_name  (BpwProfileFormat  format,
                                          const char       *name);
const char   *bpw_kernel_kind_to_string  (BpwKernelKind     kind);

/* What a device kernel is to the software stack that launched it (bpw-profile-classify.c):
 * the classes a calibration from a measurement pack separates, because the work graph has
 * only some of them. CAST: dtype conversions (AMP's weight and gradient casts run as
 * PyTorch's copy kernels); OPTIMIZER: the optimizer's own kernels (foreach or fused);
 * ELEMENTWISE: every other arithmetic kernel (norms, RoPE, gates, adds, softmax, losses,
 * fills); OTHER: memory copies and sets, gathers, collectives, unknown names. */
typedef enum
{
  BPW_STACK_KERNEL_GEMM,
  BPW_STACK_KERNEL_FLASH,
  BPW_STACK_KERNEL_CAST,
  BPW_STACK_KERNEL_OPTIMIZER,
  BPW_STACK_KERNEL_ELEMENTWISE,
  BPW_STACK_KERNEL_OTHER,
  BPW_N_STACK_KERNEL_CLASSES
} BpwStackKernelClass;

BpwStackKernelClass bpw_stack_kernel_class_from_name (const char          *name);
const char         *bpw_stack_kernel_class_to_string (BpwStackKernelClass  klass);
const char   *bpw_profile_format_to_string (BpwProfileFormat format);
const char   *bpw_profile_event_type_to_string (BpwProfileEventType type);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwProfile, bpw_profile_free)

G_END_DECLS
