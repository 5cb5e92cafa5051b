/* bpw-serve-model.c — step times of a serving replica on cached grids, KV-cache capacity
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-serve-model"

#include "config.h"

#include "bpw-i18n.h"
#include "bpw-serve-model.h"

#include <math.h>

#include "bpw-dist-work.h"
#include "bpw-error.h"
#include "bpw-estimator.h"
#include "bpw-plan.h"
#include "bpw-work-graph.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

struct _BpwServeModel
{
  BpwModelSpec   spec;        /* owned copy */
  BpwScenario    base;        /* owned copy */
  BpwBlueprint  *blueprint;   /* owned copy */
  BpwMapping     mapping;     /* owned copy: the replica's */
  gint64         shards;      /* DP ranks of a ZeRO-3 or expert-parallel replica, which
                               * share one copy of the weights (or of the experts) and step
                               * in lockstep; 1 otherwise */
  gint64         max_batch;
  gint64         images;      /* per request; base keeps 0 for the text-only points */
  gint64         image_tokens; /* decoder tokens of a request's images */
  gint64         image_kv_tokens; /* the cache its images hold, in text tokens: the image
                                   * tokens, or a cross-attention model's image K/V */
  gint64         kv_capacity;
  double         ep_bytes_per_sequence;  /* all-to-all bytes per rank per decode step, per
                                          * sequence the rank runs */
  GHashTable    *cache;       /* packed (phase, batch, length) → Point */
  guint          evaluations;
};

/* ---- grid points ---- */

/* The prefill of prompts that carry the request's images: a grid of its own, in text
 * tokens (BpwWorkloadPhase has no fourth value). */
#define PHASE_IMAGE_PREFILL 3
/* The prefill of prompt chunks in a serving step, issued as the stack issues a decode step
 * (bpw_serve_model_chunk_time). */
#define PHASE_CHUNK_PREFILL 4

typedef struct
{
  guint64 key;
  double  seconds;
  double  encoder;   /* of it, the vision encoder and projector */
} Point;

/* The encoder's seconds in a step: the evaluation gives each layer type's time as a mean
 * over the devices of every stage, and the encoder runs on the first stage alone (before
 * the first block), so its time there is the mean times the PP stages (each of the same
 * TP × DP ranks). */
static double
encoder_seconds (const BpwServeModel *m, const BpwEvaluation *e)
{
  double sum = 0;

  for (guint k = 0; k < BPW_N_BOTTLENECKS; k++)
    sum += e->layer_class_s[BPW_LAYER_VISION][k];
  return sum * (double) MAX (m->mapping.parallel.pp, 1);
}

static gint64
align (const BpwServeModel *m, BpwWorkloadPhase phase, gint64 length)
{
  gint64 tp = m->mapping.parallel.tp;

  /* Sequence parallelism splits the prompt over the TP ranks. */
  if (phase == BPW_WORKLOAD_PREFILL && m->mapping.parallel.sp && tp > 1)
    return (length + tp - 1) / tp * tp;
  return length;
}

/* A step of @batch sequences on the replica: each of its shards runs ⌈batch / shards⌉ of
 * them (a ZeRO-3 replica steps in lockstep, its ranks gathering the weights together). */
static void
set_batch (const BpwServeModel *m, gint64 batch, BpwScenario *s, BpwMapping *map)
{
  gint64 per_rank = (batch + m->shards - 1) / m->shards;

  s->global_batch = per_rank * m->shards;
  s->micro_batch = per_rank;
  s->recompute = BPW_RECOMPUTE_NONE;
  map->micro_batch = per_rank;
  map->recompute = BPW_RECOMPUTE_NONE;
}

/* How a chunked-prefill step issues its kernels. An engine that chunks prompts (vLLM,
 * SGLang, Sarathi-Serve) runs every step, chunks and decodes together, through its serving
 * path: the one the stack states for decode (vLLM captures mixed steps as piecewise CUDA
 * graphs), not the one-off eager prefill of a whole prompt. Otherwise every chunk step would
 * pay the whole eager issue stream of a prefill for a fraction of its work, and chunking
 * would lose whenever a chunk's kernels are shorter than the eager issue time. A launch
 * mode the scenario forces stays. */
static BpwLaunchMode
chunk_launch (const BpwServeModel *m)
{
  const BpwStack *st = &m->blueprint->stack;

  if (m->base.launch != BPW_LAUNCH_STACK || !st->set || !st->has_launch)
    return m->base.launch;
  return st->launch[BPW_STACK_PHASE_DECODE] == BPW_STACK_LAUNCH_GRAPH ? BPW_LAUNCH_GRAPH
                                                                      : BPW_LAUNCH_EAGER;
}

/* @phase is a BpwWorkloadPhase, PHASE_IMAGE_PREFILL or PHASE_CHUNK_PREFILL, whose @length counts text tokens:
 * the estimator's sequence adds the request's image tokens and its work the encoder's. */
static gboolean
evaluate_point (BpwServeModel *m, guint phase, gint64 batch, gint64 length,
                double *seconds, double *encoder, GError **error)
{
  guint64 key = ((guint64) length << 27) | ((guint64) batch << 3) | (guint64) phase;
  Point *found = g_hash_table_lookup (m->cache, &key);
  g_autoptr(BpwEstimator) est = NULL;
  BpwScenario s = m->base;
  BpwMapping map = m->mapping;
  BpwEvaluation e;
  Point *stored;

  if (found != NULL)
    {
      *seconds = found->seconds;
      *encoder = found->encoder;
      return TRUE;
    }
  s.phase = phase >= PHASE_IMAGE_PREFILL ? BPW_WORKLOAD_PREFILL : (BpwWorkloadPhase) phase;
  set_batch (m, batch, &s, &map);
  if (phase == PHASE_CHUNK_PREFILL)
    {
      s.seq = align (m, BPW_WORKLOAD_PREFILL, length);
      s.launch = chunk_launch (m);
    }
  else if (phase == PHASE_IMAGE_PREFILL)
    {
      s.images = m->images;
      s.seq = align (m, BPW_WORKLOAD_PREFILL, length + m->image_tokens);
    }
  else if (phase == BPW_WORKLOAD_PREFILL)
    s.seq = align (m, BPW_WORKLOAD_PREFILL, length);
  else
    {
      s.context = length;
      /* A cross-attention model's decode reads the images' cached keys and values. */
      if (bpw_model_spec_has_cross_attention (&m->spec))
        s.images = m->images;
    }
  est = bpw_estimator_new (&m->spec, &s, m->blueprint, error);
  if (est == NULL || !bpw_estimator_evaluate (est, &map, &e, NULL, error))
    return FALSE;
  m->evaluations++;
  stored = g_new (Point, 1);
  stored->key = key;
  stored->seconds = e.step_time_s;
  stored->encoder = encoder_seconds (m, &e);
  g_hash_table_insert (m->cache, &stored->key, stored);
  *seconds = stored->seconds;
  *encoder = stored->encoder;
  return TRUE;
}

/* Grid neighbours of @x: powers of two (the last one @top for batches). */
static void
bracket (double x, gint64 top, gint64 *lo, gint64 *hi)
{
  gint64 p = 1;

  x = MAX (x, 1.0);
  while ((double) (p * 2) <= x && (top <= 0 || p * 2 <= top))
    p *= 2;
  *lo = p;
  *hi = (double) p >= x ? p : (top > 0 ? MIN (p * 2, top) : p * 2);
  if (top > 0 && *lo > top)
    *lo = *hi = top;
}

static gboolean
interpolate (BpwServeModel *m, guint phase, double batch, double length,
             double *seconds, double *encoder, GError **error)
{
  gint64 b0, b1, x0, x1;
  double u, v, f[4] = { 0, 0, 0, 0 }, g[4] = { 0, 0, 0, 0 }, w[4];

  bracket (batch, m->max_batch, &b0, &b1);
  bracket (length, 0, &x0, &x1);
  u = b1 > b0 ? (batch - (double) b0) / (double) (b1 - b0) : 0.0;
  v = x1 > x0 ? (MAX (length, 1.0) - (double) x0) / (double) (x1 - x0) : 0.0;
  w[0] = (1 - u) * (1 - v);
  w[1] = u * (1 - v);
  w[2] = (1 - u) * v;
  w[3] = u * v;
  for (guint c = 0; c < 4; c++)
    {
      gint64 b = c & 1 ? b1 : b0, x = c & 2 ? x1 : x0;

      if (w[c] > 0 && !evaluate_point (m, phase, b, x, &f[c], &g[c], error))
        return FALSE;
    }
  *seconds = w[0] * f[0] + w[1] * f[1] + w[2] * f[2] + w[3] * f[3];
  if (encoder != NULL)
    *encoder = w[0] * g[0] + w[1] * g[1] + w[2] * g[2] + w[3] * g[3];
  return TRUE;
}

gboolean
bpw_serve_model_prefill_time (BpwServeModel *m,
                              gint64         batch,
                              double         sum_squares,
                              double        *seconds,
                              GError       **error)
{
  g_return_val_if_fail (batch >= 1 && batch <= m->max_batch, FALSE);
  return interpolate (m, BPW_WORKLOAD_PREFILL, (double) batch,
                      sqrt (sum_squares / (double) batch), seconds, NULL, error);
}

gboolean
bpw_serve_model_chunk_time (BpwServeModel *m,
                            gint64         batch,
                            double         sum_squares,
                            double        *seconds,
                            GError       **error)
{
  g_return_val_if_fail (batch >= 1 && batch <= m->max_batch, FALSE);
  return interpolate (m, PHASE_CHUNK_PREFILL, (double) batch,
                      sqrt (sum_squares / (double) batch), seconds, NULL, error);
}

gboolean
bpw_serve_model_prompt_time (BpwServeModel *m,
                             gint64         batch,
                             double         sum_squares,
                             double        *seconds,
                             double        *encoder,
                             GError       **error)
{
  double mean;

  g_return_val_if_fail (batch >= 1 && batch <= m->max_batch, FALSE);
  *encoder = 0;
  if (m->images == 0)
    return bpw_serve_model_prefill_time (m, batch, sum_squares, seconds, error);
  /* The grid's length is the text part of the quadratic mean: the estimator adds the
   * image tokens back, so the batch's attention work is exact. */
  mean = sqrt (sum_squares / (double) batch) - (double) m->image_tokens;
  return interpolate (m, PHASE_IMAGE_PREFILL, (double) batch, MAX (mean, 1.0), seconds,
                      encoder, error);
}

gboolean
bpw_serve_model_decode_time (BpwServeModel *m,
                             gint64         batch,
                             double         context,
                             double        *seconds,
                             GError       **error)
{
  g_return_val_if_fail (batch >= 1 && batch <= m->max_batch, FALSE);
  return interpolate (m, BPW_WORKLOAD_DECODE, (double) batch, context / (double) batch,
                      seconds, NULL, error);
}

/* ---- capacity ---- */

static BpwPlan *
bind (BpwServeModel *m, BpwWorkloadPhase phase, gint64 batch, gint64 length, GError **error)
{
  g_autoptr(BpwWorkGraph) graph = NULL;
  BpwScenario s = m->base;
  BpwMapping map = m->mapping;
  BpwDistWork *dist;

  s.phase = phase;
  set_batch (m, batch, &s, &map);
  s.name = NULL;
  /* The prefill that sizes the working memory carries the request's images. */
  if (phase == BPW_WORKLOAD_PREFILL)
    {
      s.images = m->images;
      s.seq = align (m, phase, length + m->image_tokens);
    }
  else
    s.context = length;
  graph = bpw_work_graph_new (&m->spec, &s, error);
  if (graph == NULL)
    return NULL;
  dist = bpw_dist_work_new (g_steal_pointer (&graph), &map.parallel, error);
  if (dist == NULL)
    return NULL;
  return bpw_plan_new (dist, m->blueprint, &map, error);
}

/* The dispatch and combine all-to-alls of every MoE layer of @plan's stages (a token goes
 * through all of them), bytes per rank per step, over the sequences a rank runs. */
static double
ep_bytes (const BpwPlan *plan)
{
  double bytes = 0;

  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    for (guint i = 0; i < plan->stages[s].transfers->len; i++)
      {
        const BpwPlanTransfer *t = &g_array_index (plan->stages[s].transfers,
                                                   BpwPlanTransfer, i);

        if (t->group == BPW_GROUP_EP)
          bytes += t->count * t->bytes;
      }
  return bytes / (double) plan->dist->graph->scenario.micro_batch;
}

static gboolean
compute_capacity (BpwServeModel *m, gint64 longest_prompt, GError **error)
{
  g_autoptr(BpwPlan) decode = bind (m, BPW_WORKLOAD_DECODE, m->max_batch, 1, error);
  g_autoptr(BpwPlan) prefill = NULL;
  double best = G_MAXDOUBLE, worst_fixed = 0;

  if (decode == NULL)
    return FALSE;
  prefill = bind (m, BPW_WORKLOAD_PREFILL, 1, longest_prompt, error);
  if (prefill == NULL)
    return FALSE;
  m->ep_bytes_per_sequence = ep_bytes (decode);
  for (gint64 s = 0; s < decode->dist->n_stages; s++)
    {
      const BpwPlanMemory *d = &decode->stages[s].memory, *p = &prefill->stages[s].memory;
      /* Each rank of the decode plan holds its share of max_batch sequences, of two cached
       * tokens (context 1 + 1); the replica's capacity is its shards' together. */
      double per_token = d->kv_cache / (2.0 * (double) decode->dist->graph->scenario.micro_batch);
      double fixed = MAX (d->device_total - d->kv_cache, p->device_total - p->kv_cache);

      worst_fixed = MAX (worst_fixed, fixed);
      if (per_token > 0)
        best = MIN (best, floor ((decode->capacity - fixed) / per_token) * (double) m->shards);
    }
  if (best < 1)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_ILLEGAL_PLAN,
                   _("a replica of %" PRId64 " devices of “%s” has %.2f GiB per device, "
                   "but weights and working memory already need %.2f GiB: no room for a KV "
                   "cache; use more TP or PP devices, a smaller --max-batch, or fused "
                   "attention (--fusion attention) for long prompts"),
                   bpw_parallel_devices (&m->mapping.parallel), m->blueprint->name,
                   decode->capacity / GIB, worst_fixed / GIB);
      return FALSE;
    }
  m->kv_capacity = best >= (double) G_MAXINT64 ? G_MAXINT64 : (gint64) best;
  return TRUE;
}

BpwServeModel *
bpw_serve_model_new (const BpwModelSpec *spec,
                     const BpwScenario  *scenario,
                     const BpwBlueprint *blueprint,
                     const BpwMapping   *mapping,
                     gint64              max_batch,
                     gint64              longest_prompt,
                     gint64              longest_request,
                     GError            **error)
{
  g_autoptr(BpwServeModel) m = g_new0 (BpwServeModel, 1);

  g_return_val_if_fail (max_batch >= 1 && max_batch < (1 << 24), NULL);
  bpw_model_spec_copy (&m->spec, spec);
  bpw_scenario_copy (&m->base, scenario);
  m->blueprint = bpw_blueprint_copy (blueprint);
  bpw_mapping_copy (&m->mapping, mapping);
  m->shards = bpw_serve_replica_shards (&mapping->parallel);
  m->mapping.parallel.dp = m->shards;
  m->mapping.parallel.zero = mapping->parallel.zero >= 3 && m->shards > 1 ? 3 : 0;
  m->mapping.parallel.schedule = BPW_SCHEDULE_1F1B;
  m->mapping.parallel.interleave = 1;
  m->max_batch = max_batch;
  m->images = bpw_scenario_images (scenario, spec);
  m->image_tokens = m->images * (m->images > 0 ? bpw_model_spec_image_tokens (spec) : 0);
  m->image_kv_tokens = m->image_tokens;
  if (m->images > 0 && bpw_model_spec_has_cross_attention (spec))
    {
      /* The images' K/V in the cross layers as text tokens of the self layers' cache. */
      guint64 slots = (guint64) m->images * bpw_model_spec_image_kv_elements (spec)
                      / bpw_model_spec_kv_elements (spec);
      guint64 layers = (guint64) MAX (bpw_model_spec_self_layers (spec), 1);

      m->image_kv_tokens = (gint64) ((slots + layers - 1) / layers);
    }
  m->base.images_set = TRUE;
  m->base.images = 0;
  m->cache = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  (void) longest_request;
  if (!compute_capacity (m, MAX (longest_prompt, 1), error))
    return NULL;
  return g_steal_pointer (&m);
}

void
bpw_serve_model_free (BpwServeModel *m)
{
  if (m == NULL)
    return;
  g_clear_pointer (&m->cache, g_hash_table_unref);
  g_clear_pointer (&m->blueprint, bpw_blueprint_free);
  bpw_mapping_clear (&m->mapping);
  bpw_scenario_clear (&m->base);
  bpw_model_spec_clear (&m->spec);
  g_free (m);
}

gint64
bpw_serve_model_kv_capacity (const BpwServeModel *m)
{
  return m->kv_capacity;
}

gint64
bpw_serve_model_images (const BpwServeModel *m)
{
  return m->images;
}

gint64
bpw_serve_model_image_tokens (const BpwServeModel *m)
{
  return m->image_tokens;
}

gint64
bpw_serve_model_image_kv_tokens (const BpwServeModel *m)
{
  return m->image_kv_tokens;
}

gint64
bpw_serve_model_max_batch (const BpwServeModel *m)
{
  return m->max_batch;
}

gint64
bpw_serve_replica_shards (const BpwParallel *parallel)
{
  if (parallel->zero >= 3 && parallel->dp > 1)
    return parallel->dp;
  return MAX (parallel->ep, 1);
}

double
bpw_serve_model_ep_bytes_per_sequence (const BpwServeModel *m)
{
  return m->ep_bytes_per_sequence;
}

gint64
bpw_serve_model_kv_tokens (const BpwServeModel *m,
                           gint64               length)
{
  guint64 slots = bpw_model_spec_kv_slots (&m->spec, (guint64) MAX (length, 0));
  guint64 layers = (guint64) MAX (bpw_model_spec_self_layers (&m->spec), 1);

  return (gint64) ((slots + layers - 1) / layers);
}

gint64
bpw_serve_replicas (const BpwParallel *parallel)
{
  return MAX (parallel->dp, 1) / bpw_serve_replica_shards (parallel);
}

gint64
bpw_serve_model_devices (const BpwServeModel *m)
{
  return bpw_parallel_devices (&m->mapping.parallel);
}

gint64
bpw_serve_model_ep (const BpwServeModel *m)
{
  return MAX (m->mapping.parallel.ep, 1);
}

gint64
bpw_serve_model_layers (const BpwServeModel *m)
{
  return m->spec.layers;
}

BpwDType
bpw_serve_model_kv_dtype (const BpwServeModel *m)
{
  return m->base.kv_dtype;
}

const char *
bpw_serve_model_weights (const BpwServeModel *m)
{
  static const BpwMatmulClass order[] = {
    BPW_MATMUL_CLASS_MLP, BPW_MATMUL_CLASS_ATTENTION_PROJECTION
  };
  const BpwPrecisionPolicy *p = &m->mapping.precision;

  for (guint i = 0; p->set && i < G_N_ELEMENTS (order); i++)
    if (p->classes[order[i]].weights != BPW_WEIGHT_FORMAT_NATIVE)
      return bpw_weight_only_mode (p->classes[order[i]].weights, p->classes[order[i]].group);
  return bpw_weight_format_to_string (BPW_WEIGHT_FORMAT_NATIVE);
}

guint
bpw_serve_model_evaluations (const BpwServeModel *m)
{
  return m->evaluations;
}

const BpwModelSpec *
bpw_serve_model_spec (const BpwServeModel *m)
{
  return &m->spec;
}

const BpwParallel *
bpw_serve_model_parallel (const BpwServeModel *m)
{
  return &m->mapping.parallel;
}
