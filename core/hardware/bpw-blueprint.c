/* bpw-blueprint.c — the blueprint data model
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-blueprint"

#include "config.h"

#include "bpw-blueprint.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"

static const char * const precision_names[] = {
  "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4", NULL
};
static const char * const engine_kind_names[] = {
  "matrix", "vector", "dma", "collective", NULL
};
static const char * const memory_kind_names[] = {
  "registers", "sram", "cache", "device", "host", NULL
};
static const char * const topology_names[] = {
  "switch", "full-mesh", "ring", "torus", "fat-tree", "rail-optimized", NULL
};
static const char * const algo_names[] = {
  "ring", "tree", "in-network", "direct", "hierarchical", "dimension-ordered", NULL
};
static const char * const interpolation_names[] = {
  "step", "log-linear", NULL
};
static const char * const op_factor_keys[] = {
  "all_reduce", "reduce_scatter", "all_gather", "all_to_all", "p2p", NULL
};

G_STATIC_ASSERT (G_N_ELEMENTS (precision_names) == BPW_N_PRECISIONS + 1);
G_STATIC_ASSERT (G_N_ELEMENTS (engine_kind_names) == BPW_N_ENGINE_KINDS + 1);
G_STATIC_ASSERT (G_N_ELEMENTS (memory_kind_names) == BPW_N_MEMORY_KINDS + 1);
G_STATIC_ASSERT (G_N_ELEMENTS (topology_names) == BPW_N_TOPOLOGIES + 1);
G_STATIC_ASSERT (G_N_ELEMENTS (algo_names) == BPW_N_COLLECTIVE_ALGOS + 1);
G_STATIC_ASSERT (G_N_ELEMENTS (op_factor_keys) == BPW_N_COLLECTIVES + 1);

static gboolean
bpw_blueprint_name_index (const char * const *names,
                          const char         *str,
                          int                *out)
{
  for (int i = 0; str != NULL && names[i] != NULL; i++)
    {
      if (strcmp (names[i], str) == 0)
        {
          *out = i;
          return TRUE;
        }
    }
  return FALSE;
}

#define NAME_TABLE_FUNCS(prefix, Type, names, count)                  \
  const char *                                                        \
  prefix##_to_string (Type value)                                     \
  {                                                                   \
    g_return_val_if_fail ((int) value >= 0 && (int) value < (count), NULL); \
    return names[value];                                              \
  }                                                                   \
  gboolean                                                            \
  prefix##_from_string (const char *str,                              \
                        Type       *out)                              \
  {                                                                   \
    int i;                                                            \
    if (!bpw_blueprint_name_index (names, str, &i))                   \
      return FALSE;                                                   \
    *out = (Type) i;                                                  \
    return TRUE;                                                      \
  }

NAME_TABLE_FUNCS (bpw_precision, BpwPrecision, precision_names, BPW_N_PRECISIONS)
NAME_TABLE_FUNCS (bpw_engine_kind, BpwEngineKind, engine_kind_names, BPW_N_ENGINE_KINDS)
NAME_TABLE_FUNCS (bpw_memory_kind, BpwMemoryKind, memory_kind_names, BPW_N_MEMORY_KINDS)
NAME_TABLE_FUNCS (bpw_topology, BpwTopology, topology_names, BPW_N_TOPOLOGIES)
NAME_TABLE_FUNCS (bpw_interpolation, BpwInterpolation, interpolation_names, 2)

const char *
bpw_collective_algo_to_string (BpwCollectiveAlgo algo)
{
  for (int i = 0; i < BPW_N_COLLECTIVE_ALGOS; i++)
    if ((guint) algo == (1u << i))
      return algo_names[i];
  g_return_val_if_reached (NULL);
}

gboolean
bpw_collective_algo_from_string (const char        *str,
                                 BpwCollectiveAlgo *out)
{
  int i;

  if (!bpw_blueprint_name_index (algo_names, str, &i))
    return FALSE;
  *out = (BpwCollectiveAlgo) (1u << i);
  return TRUE;
}

const char *
bpw_op_factor_key (BpwCollectiveKind kind)
{
  g_return_val_if_fail ((int) kind >= 0 && kind < BPW_N_COLLECTIVES, NULL);
  return op_factor_keys[kind];
}

BpwPrecision
bpw_precision_from_dtype (BpwDType dtype)
{
  switch (dtype)
    {
    case BPW_DTYPE_FP32: return BPW_PRECISION_FP32;
    case BPW_DTYPE_BF16: return BPW_PRECISION_BF16;
    case BPW_DTYPE_FP16: return BPW_PRECISION_FP16;
    case BPW_DTYPE_FP8:  return BPW_PRECISION_FP8;
    case BPW_N_DTYPES:
    default:
      g_return_val_if_reached (BPW_PRECISION_FP32);
    }
}

BpwBlueprint *
bpw_blueprint_new (const char *name)
{
  BpwBlueprint *bp = g_new0 (BpwBlueprint, 1);

  bp->name = g_strdup (name != NULL ? name : "");
  bp->strings = g_string_chunk_new (1024);
  bp->processing = BPW_PROCESSING_OVERLAP;
  return bp;
}

void
bpw_blueprint_clear_stack (BpwBlueprint *bp)
{
  g_free (bp->stack.attention_efficiency.points);
  memset (&bp->stack, 0, sizeof bp->stack);
}

void
bpw_blueprint_free (BpwBlueprint *bp)
{
  if (bp == NULL)
    return;
  for (guint i = 0; i < bp->n_engines; i++)
    for (guint p = 0; p < BPW_N_PRECISIONS; p++)
      g_free (bp->engines[i].efficiency[p].points);
  for (guint i = 0; i < bp->n_memory; i++)
    g_free (bp->memory[i].efficiency.points);
  g_free (bp->stack.attention_efficiency.points);
  g_free (bp->engines);
  g_free (bp->memory);
  g_free (bp->tiers);
  g_string_chunk_free (bp->strings);
  g_free (bp->name);
  g_free (bp->device);
  g_free (bp->description);
  g_free (bp->origin);
  g_free (bp);
}

const char *
bpw_blueprint_intern (BpwBlueprint *bp,
                      const char   *str)
{
  g_return_val_if_fail (bp != NULL, NULL);
  if (str == NULL)
    return NULL;
  return g_string_chunk_insert_const (bp->strings, str);
}

void
bpw_blueprint_set_value (BpwBlueprint  *bp,
                         BpwSourced    *value,
                         double         number,
                         BpwProvenance  kind,
                         const char    *source)
{
  value->value = number;
  value->kind = kind;
  value->set = TRUE;
  value->source = bpw_blueprint_intern (bp, source);
}

guint
bpw_blueprint_add_engine (BpwBlueprint  *bp,
                          const char    *name,
                          BpwEngineKind  kind)
{
  BpwEngine *e;

  bp->engines = g_renew (BpwEngine, bp->engines, bp->n_engines + 1);
  e = &bp->engines[bp->n_engines];
  memset (e, 0, sizeof *e);
  e->name = bpw_blueprint_intern (bp, name);
  e->kind = kind;
  return bp->n_engines++;
}

guint
bpw_blueprint_add_memory (BpwBlueprint  *bp,
                          const char    *name,
                          BpwMemoryKind  kind)
{
  BpwMemoryLevel *m;

  bp->memory = g_renew (BpwMemoryLevel, bp->memory, bp->n_memory + 1);
  m = &bp->memory[bp->n_memory];
  memset (m, 0, sizeof *m);
  m->name = bpw_blueprint_intern (bp, name);
  m->kind = kind;
  return bp->n_memory++;
}

guint
bpw_blueprint_add_tier (BpwBlueprint *bp,
                        const char   *name,
                        BpwTopology   topology)
{
  BpwTier *t;

  bp->tiers = g_renew (BpwTier, bp->tiers, bp->n_tiers + 1);
  t = &bp->tiers[bp->n_tiers];
  memset (t, 0, sizeof *t);
  t->name = bpw_blueprint_intern (bp, name);
  t->topology = topology;
  return bp->n_tiers++;
}

static int
bpw_efficiency_point_compare (gconstpointer a,
                              gconstpointer b)
{
  double x = ((const BpwEfficiencyPoint *) a)->size;
  double y = ((const BpwEfficiencyPoint *) b)->size;

  return (x > y) - (x < y);
}

void
bpw_efficiency_table_set (BpwBlueprint             *bp,
                          BpwEfficiencyTable       *table,
                          const BpwEfficiencyPoint *points,
                          guint                     n,
                          BpwInterpolation          interpolation,
                          BpwProvenance             kind,
                          const char               *source)
{
  g_free (table->points);
  table->points = n > 0 ? g_memdup2 (points, n * sizeof *points) : NULL;
  table->n_points = n;
  if (n > 1)
    qsort (table->points, n, sizeof *points, bpw_efficiency_point_compare);
  table->interpolation = interpolation;
  table->kind = kind;
  table->source = bpw_blueprint_intern (bp, source);
}

double
bpw_efficiency_table_lookup (const BpwEfficiencyTable *table,
                             double                    size)
{
  const BpwEfficiencyPoint *p = table->points;
  guint n = table->n_points;
  guint lo = 0, hi;
  double t;

  if (n == 0)
    return 1.0;
  if (!(size > p[0].size))  /* also catches NaN */
    return p[0].efficiency;
  if (size >= p[n - 1].size)
    return p[n - 1].efficiency;

  /* Binary search for p[lo].size <= size < p[lo + 1].size. */
  hi = n - 1;
  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;

      if (p[mid].size <= size)
        lo = mid;
      else
        hi = mid;
    }

  if (table->interpolation == BPW_INTERPOLATION_STEP || p[lo].size <= 0)
    return p[lo].efficiency;

  t = (log (size) - log (p[lo].size)) / (log (p[hi].size) - log (p[lo].size));
  return p[lo].efficiency + t * (p[hi].efficiency - p[lo].efficiency);
}

int
bpw_blueprint_lookup_engine (const BpwBlueprint *bp,
                             const char         *name)
{
  for (guint i = 0; i < bp->n_engines; i++)
    if (g_strcmp0 (bp->engines[i].name, name) == 0)
      return (int) i;
  return -1;
}

int
bpw_blueprint_lookup_memory (const BpwBlueprint *bp,
                             const char         *name)
{
  for (guint i = 0; i < bp->n_memory; i++)
    if (g_strcmp0 (bp->memory[i].name, name) == 0)
      return (int) i;
  return -1;
}

int
bpw_blueprint_lookup_tier (const BpwBlueprint *bp,
                           const char         *name)
{
  for (guint i = 0; i < bp->n_tiers; i++)
    if (g_strcmp0 (bp->tiers[i].name, name) == 0)
      return (int) i;
  return -1;
}

int
bpw_blueprint_first_engine (const BpwBlueprint *bp,
                            BpwEngineKind       kind)
{
  for (guint i = 0; i < bp->n_engines; i++)
    if (bp->engines[i].kind == kind)
      return (int) i;
  return -1;
}

int
bpw_blueprint_first_memory (const BpwBlueprint *bp,
                            BpwMemoryKind       kind)
{
  for (guint i = 0; i < bp->n_memory; i++)
    if (bp->memory[i].kind == kind)
      return (int) i;
  return -1;
}

double
bpw_blueprint_peak_flops (const BpwBlueprint *bp,
                          BpwEngineKind       kind,
                          BpwPrecision        precision)
{
  int e = bpw_blueprint_first_engine (bp, kind);

  g_return_val_if_fail (precision < BPW_N_PRECISIONS, 0.0);
  if (e < 0 || !bp->engines[e].peak[precision].set)
    return 0.0;
  return bp->engines[e].peak[precision].value;
}

double
bpw_blueprint_ridge_point (const BpwBlueprint *bp,
                           BpwPrecision        precision)
{
  double peak = bpw_blueprint_peak_flops (bp, BPW_ENGINE_MATRIX, precision);
  int m = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);

  if (peak <= 0 || m < 0 || !bp->memory[m].bandwidth.set || bp->memory[m].bandwidth.value <= 0)
    return 0.0;
  return peak / bp->memory[m].bandwidth.value;
}

gboolean
bpw_blueprint_runs_flash_attention (const BpwBlueprint *bp)
{
  g_return_val_if_fail (bp != NULL, FALSE);

  for (guint i = 0; i < bp->n_memory; i++)
    {
      const BpwMemoryLevel *l = &bp->memory[i];

      if (l->kind != BPW_MEMORY_SRAM || !l->capacity.set)
        continue;
      for (guint e = 0; e < MIN (bp->n_engines, 64u); e++)
        if (bp->engines[e].kind == BPW_ENGINE_MATRIX
            && (l->engine_mask & (G_GUINT64_CONSTANT (1) << e)))
          return TRUE;
    }
  return FALSE;
}

static gboolean
bpw_blueprint_invalid (GError    **error,
                       const char *name,
                       const char *format,
                       ...) G_GNUC_PRINTF (3, 4);

static gboolean
bpw_blueprint_invalid (GError    **error,
                       const char *name,
                       const char *format,
                       ...)
{
  g_autofree char *msg = NULL;
  va_list args;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("blueprint %s: %s"), name, msg);
  return FALSE;
}

#define POSITIVE(v) ((v).set && isfinite ((v).value) && (v).value > 0)
/* Within the physical bounds of bpw-blueprint.h (unset counts as within). */
#define WITHIN(v, lo, hi) (!(v).set || ((v).value >= (lo) && (v).value <= (hi)))

gboolean
bpw_blueprint_validate (const BpwBlueprint *bp,
                        GError            **error)
{
  const char *n = bp->name;
  gboolean any_peak = FALSE;

  if (bp->n_engines > BPW_BLUEPRINT_MAX_ENGINES)
    return bpw_blueprint_invalid (error, n, _("more than %d engines"), BPW_BLUEPRINT_MAX_ENGINES);
  for (guint i = 0; i < bp->n_engines; i++)
    {
      const BpwEngine *e = &bp->engines[i];

      if (bpw_blueprint_lookup_engine (bp, e->name) != (int) i)
        return bpw_blueprint_invalid (error, n, _("engine name “%s” is used twice"), e->name);
      for (guint p = 0; p < BPW_N_PRECISIONS; p++)
        {
          if (e->peak[p].set && !POSITIVE (e->peak[p]))
            return bpw_blueprint_invalid (error, n, _("engine %s: %s peak must be positive"),
                                          e->name, precision_names[p]);
          if (!WITHIN (e->peak[p], BPW_BLUEPRINT_MIN_PEAK, BPW_BLUEPRINT_MAX_PEAK))
            return bpw_blueprint_invalid (error, n, _("engine %s: the %s peak must lie between "
                                          "1 MFLOP/s and 1 EFLOP/s"), e->name,
                                          precision_names[p]);
          if (e->kind == BPW_ENGINE_MATRIX && e->peak[p].set)
            any_peak = TRUE;
        }
    }
  if (!any_peak)
    return bpw_blueprint_invalid (error, n, _("no matrix engine with a peak; add one with "
                                  "“kind”: “matrix” and a “peak” per precision"));
  if (bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE) < 0)
    return bpw_blueprint_invalid (error, n, _("no device memory level (“kind”: “device”)"));
  for (guint i = 0; i < bp->n_memory; i++)
    {
      const BpwMemoryLevel *m = &bp->memory[i];

      if (bpw_blueprint_lookup_memory (bp, m->name) != (int) i)
        return bpw_blueprint_invalid (error, n, _("memory level name “%s” is used twice"),
                                      m->name);
      if (!POSITIVE (m->capacity))
        return bpw_blueprint_invalid (error, n, _("memory level %s needs a positive capacity"),
                                      m->name);
      if (!WITHIN (m->capacity, BPW_BLUEPRINT_MIN_CAPACITY, BPW_BLUEPRINT_MAX_CAPACITY))
        return bpw_blueprint_invalid (error, n, _("memory level %s: the capacity must lie "
                                      "between 1 KiB and 1024 EiB"), m->name);
      if (!WITHIN (m->bandwidth, BPW_BLUEPRINT_MIN_BANDWIDTH, BPW_BLUEPRINT_MAX_BANDWIDTH))
        return bpw_blueprint_invalid (error, n, _("memory level %s: the bandwidth must lie "
                                      "between 1 MB/s and 1 PB/s"), m->name);
      if (m->kind == BPW_MEMORY_DEVICE && !POSITIVE (m->bandwidth))
        return bpw_blueprint_invalid (error, n, _("memory level %s needs a positive bandwidth"),
                                      m->name);
    }
  for (guint i = 0; i < bp->n_tiers; i++)
    {
      const BpwTier *t = &bp->tiers[i];

      if (bpw_blueprint_lookup_tier (bp, t->name) != (int) i)
        return bpw_blueprint_invalid (error, n, _("tier name “%s” is used twice"), t->name);
      if (!POSITIVE (t->size) || t->size.value != floor (t->size.value))
        return bpw_blueprint_invalid (error, n, _("tier %s needs a positive integer size"),
                                      t->name);
      if (t->size.value > BPW_BLUEPRINT_MAX_TIER_SIZE)
        return bpw_blueprint_invalid (error, n, _("tier %s: the size must be at most 16777216 "
                                      "devices"), t->name);
      if (!POSITIVE (t->bandwidth))
        return bpw_blueprint_invalid (error, n, _("tier %s needs a positive bandwidth"),
                                      t->name);
      if (!WITHIN (t->bandwidth, BPW_BLUEPRINT_MIN_BANDWIDTH, BPW_BLUEPRINT_MAX_BANDWIDTH))
        return bpw_blueprint_invalid (error, n, _("tier %s: the bandwidth must lie between "
                                      "1 MB/s and 1 PB/s"), t->name);
      if (!WITHIN (t->latency, 0, BPW_BLUEPRINT_MAX_LATENCY))
        return bpw_blueprint_invalid (error, n, _("tier %s: the latency must lie between 0 and "
                                      "1 s"), t->name);
      if (!WITHIN (t->oversubscription, 1, BPW_TIER_MAX_OVERSUBSCRIPTION))
        return bpw_blueprint_invalid (error, n, _("tier %s: the oversubscription must lie "
                                      "between 1 and 1000"), t->name);
      if (t->rail_size.set && t->topology != BPW_TOPOLOGY_RAIL_OPTIMIZED)
        return bpw_blueprint_invalid (error, n, _("tier %s: a rail size belongs to a "
                                      "rail-optimized tier"), t->name);
      if (t->rail_size.set && (!POSITIVE (t->rail_size)
                               || t->rail_size.value != floor (t->rail_size.value)
                               || t->rail_size.value > t->size.value))
        return bpw_blueprint_invalid (error, n, _("tier %s: the rail size must be a whole "
                                      "number of nodes from 1 to the tier's size"), t->name);
      if (!bpw_tier_shape_valid (t))
        return bpw_blueprint_invalid (error, n, _("tier %s: the torus dimensions must be "
                                      "positive and multiply to the tier's size"), t->name);
      if (i > 0 && t->size.value < bp->tiers[i - 1].size.value)
        return bpw_blueprint_invalid (error, n, _("tier %s has fewer devices (%.0f) than the "
                                      "tier inside it (%.0f); list tiers innermost first"),
                                      t->name, t->size.value, bp->tiers[i - 1].size.value);
    }
  return TRUE;
}
