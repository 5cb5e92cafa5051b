/* bpw-search-item.c — one plan of a search's results
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-search-item"

#include "config.h"

#include "bpw-search-item.h"

#include <math.h>

#include <glib/gi18n.h>

struct _BpwSearchItem
{
  GObject        parent_instance;

  guint          rank;
  guint64        index;
  BpwMapping     mapping;      /* owned */
  BpwEvaluation  estimate;
  BpwEvaluation  evaluation;   /* what the row shows */
  gboolean       simulated;
  char          *algorithms;   /* owned: "Automatic" or "tier: algorithm, …" */
  char          *reasons;      /* owned, nullable: why the full plan is illegal */
  double         calculon_step_time_s;   /* NaN unless one of Calculon's best */
  char          *approximations;         /* owned, nullable */
};

G_DEFINE_FINAL_TYPE (BpwSearchItem, bpw_search_item, G_TYPE_OBJECT)

const char *
bpw_search_recompute_label (BpwRecompute recompute)
{
  switch (recompute)
    {
    case BPW_RECOMPUTE_NONE:
      /* Translators: activation recompute */
      return C_("recompute", "None");
    case BPW_RECOMPUTE_SELECTIVE:
      return _("Selective");
    case BPW_RECOMPUTE_FULL:
      return _("Full");
    default:
      return "?";
    }
}

const char *
bpw_search_schedule_label (BpwSchedule schedule)
{
  switch (schedule)
    {
    case BPW_SCHEDULE_GPIPE:
      return "GPipe";
    case BPW_SCHEDULE_1F1B:
      return "1F1B";
    case BPW_SCHEDULE_INTERLEAVED:
      /* Translators: the interleaved 1F1B pipeline schedule */
      return _("Interleaved");
    case BPW_SCHEDULE_ZB_H1:
      return "ZB-H1";
    default:
      return "?";
    }
}

const char *
bpw_search_tp_overlap_label (BpwTpOverlap overlap)
{
  switch (overlap)
    {
    case BPW_TP_OVERLAP_NONE:
      /* Translators: no overlap of tensor-parallel communication */
      return C_("overlap", "None");
    case BPW_TP_OVERLAP_RING:
      /* Translators: TP communication hidden behind matmul tiles, ring style */
      return _("Ring");
    case BPW_TP_OVERLAP_PIPE:
      /* Translators: TP overlap with one communication tile left exposed */
      return _("Pipe");
    default:
      return "?";
    }
}

const char *
bpw_search_fusion_set_label (BpwSearchFusionSet set)
{
  switch (set)
    {
    case BPW_SEARCH_FUSION_NONE:
      /* Translators: nothing fused */
      return C_("fusion", "None");
    case BPW_SEARCH_FUSION_DEFAULT:
      /* Translators: bias + activation and optimizer fused (the default) */
      return C_("fusion", "Default");
    case BPW_SEARCH_FUSION_ATTENTION:
      /* Translators: default fusion plus FlashAttention-style attention */
      return C_("fusion", "Attention");
    case BPW_SEARCH_FUSION_ALL:
      /* Translators: attention, norm, dropout and residual fused too */
      return C_("fusion", "All");
    default:
      return "?";
    }
}

const char *
bpw_search_offload_label (BpwSearchOffload offload)
{
  switch (offload)
    {
    case BPW_SEARCH_OFFLOAD_NONE:
      /* Translators: nothing offloaded to host memory */
      return C_("offload", "None");
    case BPW_SEARCH_OFFLOAD_WEIGHTS:
      return _("Weights");
    case BPW_SEARCH_OFFLOAD_OPTIMIZER:
      /* Translators: optimizer state, master weights and gradients on host memory */
      return _("Optimizer");
    case BPW_SEARCH_OFFLOAD_BOTH:
      /* Translators: weights and optimizer state both on host memory */
      return _("Both");
    default:
      return "?";
    }
}

static const char *
bpw_search_fusion_of (const BpwMapping *m)
{
  for (guint f = 0; f < BPW_SEARCH_N_FUSION_SETS; f++)
    if (bpw_search_fusion_set_flags (f) == m->fusion)
      return bpw_search_fusion_set_label (f);
  /* Translators: a set of fusions that is none of the named ones */
  return C_("fusion", "Custom");
}

/* What lives on host memory; stored activations too in Calculon's space. */
static char *
bpw_search_offload_of (const BpwMapping *m)
{
  gboolean w = m->placement[BPW_TENSOR_WEIGHT] == BPW_PLACEMENT_HOST;
  gboolean o = m->placement[BPW_TENSOR_OPTIMIZER_STATE] == BPW_PLACEMENT_HOST;
  gboolean a = m->placement[BPW_TENSOR_ACTIVATION] == BPW_PLACEMENT_HOST;
  const char *state = bpw_search_offload_label (w && o ? BPW_SEARCH_OFFLOAD_BOTH
                                                : w ? BPW_SEARCH_OFFLOAD_WEIGHTS
                                                : o ? BPW_SEARCH_OFFLOAD_OPTIMIZER
                                                    : BPW_SEARCH_OFFLOAD_NONE);

  if (!a)
    return g_strdup (state);
  if (!w && !o)
    /* Translators: only stored activations on host memory */
    return g_strdup (_("Activations"));
  /* Translators: "Weights + activations": what else lives on host memory */
  return g_strdup_printf (_("%s + activations"), state);
}

static char *
bpw_search_schedule_of (const BpwMapping *m)
{
  if (m->parallel.schedule == BPW_SCHEDULE_INTERLEAVED)
    {
      g_autofree char *chunks = g_strdup_printf ("%" G_GINT64_FORMAT, m->parallel.interleave);

      /* Translators: interleaved schedule with %s virtual stages per rank */
      return g_strdup_printf (_("Interleaved ×%s"), chunks);
    }
  return g_strdup (bpw_search_schedule_label (m->parallel.schedule));
}

static char *
bpw_search_algorithms_of (const BpwMapping   *m,
                          const BpwBlueprint *blueprint)
{
  GString *out = g_string_new (NULL);

  for (guint t = 0; blueprint != NULL && t < MIN (blueprint->n_tiers, BPW_MAPPING_MAX_TIERS);
       t++)
    if (m->algorithm[t] != 0)
      g_string_append_printf (out, "%s%s: %s", out->len > 0 ? ", " : "",
                              blueprint->tiers[t].name,
                              bpw_collective_algo_to_string (m->algorithm[t]));
  if (out->len == 0)
    /* Translators: collective algorithms chosen by the blueprint's defaults */
    g_string_append (out, C_("algorithm", "Automatic"));
  return g_string_free (out, FALSE);
}

static const char *
bpw_search_on_off (gboolean on)
{
  return on ? C_("switch", "On") : C_("switch", "Off");
}

char *
bpw_search_describe_mapping (const BpwMapping   *m,
                             const BpwBlueprint *blueprint)
{
  const BpwParallel *p = &m->parallel;
  g_autofree char *schedule = bpw_search_schedule_of (m);
  g_autofree char *algorithms = bpw_search_algorithms_of (m, blueprint);
  g_autofree char *micro_batch = NULL;
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "TP %" G_GINT64_FORMAT " · PP %" G_GINT64_FORMAT " · DP %"
                          G_GINT64_FORMAT, p->tp, p->pp, p->dp);
  if (p->ep > 1)
    g_string_append_printf (out, " · EP %" G_GINT64_FORMAT, p->ep);
  if (p->sp)
    g_string_append (out, " · SP");
  g_string_append_printf (out, " · ZeRO %d", p->zero);
  micro_batch = g_strdup_printf ("%" G_GINT64_FORMAT, m->micro_batch);
  /* Translators: the micro-batch size, in sequences */
  g_string_append_printf (out, _(" · micro-batch %s"), micro_batch);
  g_string_append_printf (out, " · %s", schedule);
  /* Translators: "recompute: Selective" */
  g_string_append_printf (out, _(" · recompute: %s"),
                          bpw_search_recompute_label ((BpwRecompute) m->recompute));
  /* Translators: "fusion: Attention" */
  g_string_append_printf (out, _(" · fusion: %s"), bpw_search_fusion_of (m));
  if (m->placement[BPW_TENSOR_WEIGHT] == BPW_PLACEMENT_HOST
      || m->placement[BPW_TENSOR_OPTIMIZER_STATE] == BPW_PLACEMENT_HOST
      || m->placement[BPW_TENSOR_ACTIVATION] == BPW_PLACEMENT_HOST)
    {
      g_autofree char *offload = bpw_search_offload_of (m);

      /* Translators: "offload: Weights" */
      g_string_append_printf (out, _(" · offload: %s"), offload);
    }
  /* Translators: "TP overlap: Ring" */
  g_string_append_printf (out, _(" · TP overlap: %s"),
                          bpw_search_tp_overlap_label (m->tp_overlap));
  /* Translators: "collectives: Automatic" or "collectives: nvlink: ring" */
  g_string_append_printf (out, _(" · collectives: %s"), algorithms);
  return g_string_free (out, FALSE);
}

static void
bpw_search_item_finalize (GObject *object)
{
  BpwSearchItem *self = (BpwSearchItem *) object;

  bpw_mapping_clear (&self->mapping);
  g_free (self->algorithms);
  g_free (self->reasons);
  g_free (self->approximations);

  G_OBJECT_CLASS (bpw_search_item_parent_class)->finalize (object);
}

static void
bpw_search_item_class_init (BpwSearchItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = bpw_search_item_finalize;
}

static void
bpw_search_item_init (BpwSearchItem *self)
{
  bpw_mapping_init_defaults (&self->mapping);
  self->calculon_step_time_s = NAN;
}

BpwSearchItem *
bpw_search_item_new (guint                  rank,
                     const BpwSearchResult *result,
                     const BpwBlueprint    *blueprint)
{
  BpwSearchItem *self;

  g_return_val_if_fail (result != NULL, NULL);

  self = g_object_new (BPW_TYPE_SEARCH_ITEM, NULL);
  self->rank = rank;
  self->index = result->index;
  bpw_mapping_clear (&self->mapping);
  bpw_mapping_copy (&self->mapping, &result->mapping);
  self->estimate = result->estimate;
  self->simulated = result->simulated;
  self->evaluation = result->simulated ? result->simulation : result->evaluation;
  self->algorithms = bpw_search_algorithms_of (&result->mapping, blueprint);
  /* The search folds plans that differ only in algorithms and estimate the same into one
   * result: say how many choices it stands for, so that none seems missing. */
  if (result->equivalent_variants > 1)
    {
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                                result->equivalent_variants);
      char *with_variants;

      /* Translators: collective algorithms, then how many algorithm choices give the
       * same estimate, e.g. "Automatic (6 equivalent choices)" */
      with_variants = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                    "%s (%s equivalent choice)",
                                                    "%s (%s equivalent choices)",
                                                    (gulong) result->equivalent_variants),
                                       self->algorithms, count);
      g_free (self->algorithms);
      self->algorithms = with_variants;
    }
  if (result->reasons != NULL && result->reasons->len > 0)
    {
      GString *reasons = g_string_new (NULL);

      for (guint i = 0; i < result->reasons->len; i++)
        g_string_append_printf (reasons, "%s%s", i > 0 ? "\n" : "",
                                (const char *) g_ptr_array_index (result->reasons, i));
      self->reasons = g_string_free (reasons, FALSE);
    }
  return self;
}

guint
bpw_search_item_get_rank (BpwSearchItem *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_ITEM (self), 0);
  return self->rank;
}

guint64
bpw_search_item_get_index (BpwSearchItem *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_ITEM (self), 0);
  return self->index;
}

const BpwMapping *
bpw_search_item_get_mapping (BpwSearchItem *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_ITEM (self), NULL);
  return &self->mapping;
}

const BpwEvaluation *
bpw_search_item_get_estimate (BpwSearchItem *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_ITEM (self), NULL);
  return &self->estimate;
}

const BpwEvaluation *
bpw_search_item_get_evaluation (BpwSearchItem *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_ITEM (self), NULL);
  return &self->evaluation;
}

gboolean
bpw_search_item_get_simulated (BpwSearchItem *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_ITEM (self), FALSE);
  return self->simulated;
}

void
bpw_search_item_set_calculon (BpwSearchItem *self,
                              double         step_time_s,
                              const char    *approximations)
{
  g_return_if_fail (BPW_IS_SEARCH_ITEM (self));

  self->calculon_step_time_s = step_time_s;
  g_free (self->approximations);
  self->approximations = g_strdup (approximations);
}

double
bpw_search_item_get_calculon_step_time (BpwSearchItem *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_ITEM (self), NAN);
  return self->calculon_step_time_s;
}

char *
bpw_search_item_format (BpwSearchItem   *self,
                        BpwSearchColumn  column,
                        BpwByteUnits     units)
{
  const BpwMapping *m;
  const BpwEvaluation *e;

  g_return_val_if_fail (BPW_IS_SEARCH_ITEM (self), NULL);

  m = &self->mapping;
  e = &self->evaluation;
  switch (column)
    {
    case BPW_SEARCH_COLUMN_RANK:
      return g_strdup_printf ("%u", self->rank);
    case BPW_SEARCH_COLUMN_CALCULON:
      return isfinite (self->calculon_step_time_s)
             ? bpw_format_seconds (self->calculon_step_time_s) : g_strdup ("—");
    case BPW_SEARCH_COLUMN_STEP_TIME:
      return isfinite (self->estimate.step_time_s)
             ? bpw_format_seconds (self->estimate.step_time_s) : g_strdup ("—");
    case BPW_SEARCH_COLUMN_SIMULATED:
      return self->simulated ? bpw_format_seconds (e->step_time_s) : g_strdup ("—");
    case BPW_SEARCH_COLUMN_MFU:
      return g_strdup_printf ("%.1f %%", 100.0 * e->mfu);
    case BPW_SEARCH_COLUMN_MEMORY:
      return e->peak_bytes > 0 ? bpw_format_bytes ((guint64) e->peak_bytes, units)
                               : g_strdup ("—");
    case BPW_SEARCH_COLUMN_ENERGY:
      return isfinite (e->energy_j) && e->energy_j > 0 ? bpw_format_si (e->energy_j, "J")
                                                       : g_strdup ("—");
    case BPW_SEARCH_COLUMN_TP:
      return g_strdup_printf ("%" G_GINT64_FORMAT, m->parallel.tp);
    case BPW_SEARCH_COLUMN_PP:
      return g_strdup_printf ("%" G_GINT64_FORMAT, m->parallel.pp);
    case BPW_SEARCH_COLUMN_DP:
      return g_strdup_printf ("%" G_GINT64_FORMAT, m->parallel.dp);
    case BPW_SEARCH_COLUMN_EP:
      return g_strdup_printf ("%" G_GINT64_FORMAT, m->parallel.ep);
    case BPW_SEARCH_COLUMN_CP:
      if (m->parallel.cp == 1)
        return g_strdup ("1");
      /* "2 · ring": the degree and its algorithm. */
      return g_strdup_printf ("%" G_GINT64_FORMAT " · %s", m->parallel.cp,
                              m->parallel.cp_algorithm == BPW_CP_ALLGATHER
                              ? C_("context parallel", "all-gather")
                              : C_("context parallel", "ring"));
    case BPW_SEARCH_COLUMN_SP:
      return g_strdup (bpw_search_on_off (m->parallel.sp));
    case BPW_SEARCH_COLUMN_ZERO:
      return g_strdup_printf ("%d", m->parallel.zero);
    case BPW_SEARCH_COLUMN_MICRO_BATCH:
      return g_strdup_printf ("%" G_GINT64_FORMAT, m->micro_batch);
    case BPW_SEARCH_COLUMN_SCHEDULE:
      return bpw_search_schedule_of (m);
    case BPW_SEARCH_COLUMN_RECOMPUTE:
      return g_strdup (bpw_search_recompute_label ((BpwRecompute) m->recompute));
    case BPW_SEARCH_COLUMN_FUSION:
      return g_strdup (bpw_search_fusion_of (m));
    case BPW_SEARCH_COLUMN_OFFLOAD:
      return bpw_search_offload_of (m);
    case BPW_SEARCH_COLUMN_TP_OVERLAP:
      return g_strdup (bpw_search_tp_overlap_label (m->tp_overlap));
    case BPW_SEARCH_COLUMN_DP_OVERLAP:
      return g_strdup (bpw_search_on_off (m->dp_overlap));
    case BPW_SEARCH_COLUMN_ALGORITHMS:
      return g_strdup (self->algorithms);
    case BPW_N_SEARCH_COLUMNS:
    default:
      break;
    }
  g_return_val_if_reached (NULL);
}

char *
bpw_search_item_dup_tooltip (BpwSearchItem   *self,
                             BpwSearchColumn  column)
{
  g_return_val_if_fail (BPW_IS_SEARCH_ITEM (self), NULL);

  if (column == BPW_SEARCH_COLUMN_CALCULON)
    {
      g_autofree char *seconds = NULL;

      if (!isfinite (self->calculon_step_time_s))
        return NULL;
      /* Translators: "13.6216 s in Calculon’s own model, …": the step time, exact */
      seconds = g_strdup_printf (_("%.6g s in Calculon’s own model, which its search ranks by"),
                                 self->calculon_step_time_s);
      if (self->approximations != NULL)
        /* Translators: the first %s is the line above, the second lists what the workbench's
         * mapping approximates */
        return g_strdup_printf (_("%s. The workbench’s mapping of this execution "
                                  "approximates it: %s"), seconds, self->approximations);
      return g_steal_pointer (&seconds);
    }
  if (self->reasons != NULL || !self->evaluation.legal)
    return g_strdup_printf (_("The full plan of this mapping is illegal: %s"),
                            self->reasons != NULL ? self->reasons : _("no reason given"));
  switch (column)
    {
    case BPW_SEARCH_COLUMN_STEP_TIME:
      return g_strdup (isfinite (self->calculon_step_time_s)
                       ? _("The workbench’s analytic estimate of the same plan")
                       : _("Step time by the analytic estimate, which the search ranks by"));
    case BPW_SEARCH_COLUMN_SIMULATED:
      return g_strdup (self->simulated
                       ? _("Step time of the plan’s event simulation")
                       : _("The plan was not simulated"));
    case BPW_SEARCH_COLUMN_MFU:
    case BPW_SEARCH_COLUMN_MEMORY:
    case BPW_SEARCH_COLUMN_ENERGY:
      return g_strdup (self->simulated ? _("From the simulated step")
                                       : _("From the analytic estimate"));
    default:
      return NULL;
    }
}

const char *
bpw_search_column_get_title (BpwSearchColumn column)
{
  switch (column)
    {
    case BPW_SEARCH_COLUMN_RANK:
      /* Translators: rank of a plan in the search results */
      return _("#");
    case BPW_SEARCH_COLUMN_CALCULON:
      /* Translators: step time in Calculon's model (a peer tool's name) */
      return _("Calculon");
    case BPW_SEARCH_COLUMN_STEP_TIME:
      return _("Step Time");
    case BPW_SEARCH_COLUMN_SIMULATED:
      /* Translators: simulated step time */
      return _("Simulated");
    case BPW_SEARCH_COLUMN_MFU:
      return "MFU";
    case BPW_SEARCH_COLUMN_MEMORY:
      /* Translators: peak device memory */
      return _("Memory");
    case BPW_SEARCH_COLUMN_ENERGY:
      return _("Energy/Step");
    case BPW_SEARCH_COLUMN_TP:
      return "TP";
    case BPW_SEARCH_COLUMN_PP:
      return "PP";
    case BPW_SEARCH_COLUMN_DP:
      return "DP";
    case BPW_SEARCH_COLUMN_EP:
      return "EP";
    case BPW_SEARCH_COLUMN_CP:
      return "CP";
    case BPW_SEARCH_COLUMN_SP:
      return "SP";
    case BPW_SEARCH_COLUMN_ZERO:
      return "ZeRO";
    case BPW_SEARCH_COLUMN_MICRO_BATCH:
      return _("Micro-Batch");
    case BPW_SEARCH_COLUMN_SCHEDULE:
      return _("Schedule");
    case BPW_SEARCH_COLUMN_RECOMPUTE:
      return _("Recompute");
    case BPW_SEARCH_COLUMN_FUSION:
      return _("Fusion");
    case BPW_SEARCH_COLUMN_OFFLOAD:
      return _("Offload");
    case BPW_SEARCH_COLUMN_TP_OVERLAP:
      return _("TP Overlap");
    case BPW_SEARCH_COLUMN_DP_OVERLAP:
      return _("DP Overlap");
    case BPW_SEARCH_COLUMN_ALGORITHMS:
      return _("Collectives");
    case BPW_N_SEARCH_COLUMNS:
    default:
      break;
    }
  g_return_val_if_reached (NULL);
}

gboolean
bpw_search_column_is_numeric (BpwSearchColumn column)
{
  return column <= BPW_SEARCH_COLUMN_MICRO_BATCH && column != BPW_SEARCH_COLUMN_SP;
}
