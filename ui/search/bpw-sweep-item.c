/* bpw-sweep-item.c — one point of a sweep's results
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-sweep-item"

#include "config.h"

#include "bpw-sweep-item.h"

#include <math.h>

#include <glib/gi18n.h>

#include "bpw-format.h"
#include "bpw-search-item.h"

struct _BpwSweepItem
{
  GObject         parent_instance;

  guint           index;
  guint           n_params;
  BpwSweepParam  *params;        /* owned */
  char          **tier_names;    /* owned: link_bandwidth's tier, else NULL */
  double         *values;        /* owned, SI units */
  gint64          devices;
  gboolean        searched;
  gboolean        has_best;
  gboolean        pareto;
  gboolean        baseline_applies, baseline_legal;
  double          step_time_s;
  double          tokens_per_s;
  double          gains[3];      /* total, architecture, mapping; NaN where unknown */
  char           *plan;          /* owned, nullable: the best plan's decisions */
};

G_DEFINE_FINAL_TYPE (BpwSweepItem, bpw_sweep_item, G_TYPE_OBJECT)

char *
bpw_sweep_param_title (BpwSweepParam  param,
                       const char    *tier_name)
{
  switch (param)
    {
    case BPW_SWEEP_HBM_BANDWIDTH:
      return g_strdup (_("HBM Bandwidth"));
    case BPW_SWEEP_HBM_CAPACITY:
      /* Translators: device memory per device */
      return g_strdup (_("HBM Capacity"));
    case BPW_SWEEP_SRAM_CAPACITY:
      /* Translators: on-chip memory per core */
      return g_strdup (_("SRAM Capacity"));
    case BPW_SWEEP_LINK_BANDWIDTH:
      /* Translators: %s is an interconnect tier, "Link Bandwidth (nvlink)" */
      return g_strdup_printf (_("Link Bandwidth (%s)"), tier_name != NULL ? tier_name : "?");
    case BPW_SWEEP_MATRIX_PEAK:
      /* Translators: the matrix engines' dense peak in the scenario's precision */
      return g_strdup (_("Matrix Peak"));
    case BPW_SWEEP_POWER_CAP:
      return g_strdup (_("Power Cap"));
    case BPW_SWEEP_DEVICES:
      return g_strdup (_("Devices"));
    case BPW_SWEEP_N_PARAMS:
    default:
      g_return_val_if_reached (g_strdup ("?"));
    }
}

char *
bpw_sweep_param_format (BpwSweepParam param,
                        double        value)
{
  if (param == BPW_SWEEP_DEVICES)
    return g_strdup_printf ("%.0f", value);
  return bpw_quantity_format (value, bpw_sweep_param_get_unit (param));
}

/* "HBM 4.8 TB/s": a value and what it is, short enough for a candidate's name. */
static char *
bpw_sweep_item_describe (BpwSweepItem *self,
                         guint         i)
{
  g_autofree char *v = bpw_sweep_param_format (self->params[i], self->values[i]);

  switch (self->params[i])
    {
    case BPW_SWEEP_HBM_BANDWIDTH:
    case BPW_SWEEP_HBM_CAPACITY:
      /* Translators: "HBM 4.8 TB/s", "HBM 141 GB" in a candidate's name */
      return g_strdup_printf (_("HBM %s"), v);
    case BPW_SWEEP_SRAM_CAPACITY:
      /* Translators: "SRAM 50 MiB" in a candidate's name */
      return g_strdup_printf (_("SRAM %s"), v);
    case BPW_SWEEP_LINK_BANDWIDTH:
      /* Translators: "nvlink 1.8 TB/s": a tier and its bandwidth, in a candidate's name */
      return g_strdup_printf (C_("tier bandwidth", "%s %s"), self->tier_names[i], v);
    case BPW_SWEEP_MATRIX_PEAK:
      /* Translators: "matrix 2 PFLOP/s" in a candidate's name */
      return g_strdup_printf (_("matrix %s"), v);
    case BPW_SWEEP_POWER_CAP:
      /* Translators: "cap 500 W" in a candidate's name */
      return g_strdup_printf (_("cap %s"), v);
    case BPW_SWEEP_DEVICES:
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s device", "%s devices",
                                           (gulong) self->values[i]), v);
    case BPW_SWEEP_N_PARAMS:
    default:
      g_return_val_if_reached (g_strdup (v));
    }
}

static void
bpw_sweep_item_finalize (GObject *object)
{
  BpwSweepItem *self = (BpwSweepItem *) object;

  g_free (self->params);
  g_strfreev (self->tier_names);
  g_free (self->values);
  g_free (self->plan);

  G_OBJECT_CLASS (bpw_sweep_item_parent_class)->finalize (object);
}

static void
bpw_sweep_item_class_init (BpwSweepItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = bpw_sweep_item_finalize;
}

static void
bpw_sweep_item_init (BpwSweepItem *self)
{
  self->step_time_s = NAN;
  self->tokens_per_s = NAN;
}

BpwSweepItem *
bpw_sweep_item_new (BpwSweep *sweep,
                    guint     i)
{
  const BpwSweepPoint *p;
  BpwSweepItem *self;

  g_return_val_if_fail (sweep != NULL && i < bpw_sweep_get_n_points (sweep), NULL);

  p = bpw_sweep_get_point (sweep, i);
  self = g_object_new (BPW_TYPE_SWEEP_ITEM, NULL);
  self->index = i;
  self->n_params = bpw_sweep_get_n_params (sweep);
  self->params = g_new0 (BpwSweepParam, self->n_params);
  self->tier_names = g_new0 (char *, self->n_params + 1);
  self->values = g_memdup2 (p->values, sizeof (double) * self->n_params);
  for (guint k = 0; k < self->n_params; k++)
    {
      gint tier;

      self->params[k] = bpw_sweep_get_param (sweep, k, &tier);
      /* Never NULL within the list: the strv ends at the first NULL. */
      self->tier_names[k] = g_strdup (self->params[k] == BPW_SWEEP_LINK_BANDWIDTH
                                      ? p->blueprint->tiers[tier].name : "");
    }
  self->devices = p->devices;
  self->searched = p->searched;
  self->pareto = p->pareto;
  self->baseline_applies = p->baseline_applies;
  self->baseline_legal = p->baseline_legal;
  self->has_best = p->report != NULL && p->report->best->len > 0;
  if (self->has_best)
    {
      const BpwSearchResult *b = &g_array_index (p->report->best, BpwSearchResult, 0);

      self->step_time_s = b->estimate.step_time_s;
      self->tokens_per_s = b->estimate.tokens_per_s;
      self->plan = bpw_search_describe_mapping (&b->mapping, p->blueprint);
    }
  bpw_sweep_get_gains (sweep, i, &self->gains[0], &self->gains[1], &self->gains[2]);
  return self;
}

guint
bpw_sweep_item_get_index (BpwSweepItem *self)
{
  g_return_val_if_fail (BPW_IS_SWEEP_ITEM (self), 0);
  return self->index;
}

gboolean
bpw_sweep_item_get_searched (BpwSweepItem *self)
{
  g_return_val_if_fail (BPW_IS_SWEEP_ITEM (self), FALSE);
  return self->searched;
}

gboolean
bpw_sweep_item_get_has_best (BpwSweepItem *self)
{
  g_return_val_if_fail (BPW_IS_SWEEP_ITEM (self), FALSE);
  return self->has_best;
}

double
bpw_sweep_item_get_step_time (BpwSweepItem *self)
{
  g_return_val_if_fail (BPW_IS_SWEEP_ITEM (self), NAN);
  return self->step_time_s;
}

gboolean
bpw_sweep_item_get_pareto (BpwSweepItem *self)
{
  g_return_val_if_fail (BPW_IS_SWEEP_ITEM (self), FALSE);
  return self->pareto;
}

void
bpw_sweep_item_get_gains (BpwSweepItem *self,
                          double       *total,
                          double       *architecture,
                          double       *mapping)
{
  g_return_if_fail (BPW_IS_SWEEP_ITEM (self));
  if (total != NULL)
    *total = self->gains[0];
  if (architecture != NULL)
    *architecture = self->gains[1];
  if (mapping != NULL)
    *mapping = self->gains[2];
}

double
bpw_sweep_item_get_value (BpwSweepItem *self,
                          guint         param)
{
  g_return_val_if_fail (BPW_IS_SWEEP_ITEM (self), NAN);
  g_return_val_if_fail (param < self->n_params, NAN);
  return self->values[param];
}

char *
bpw_sweep_item_format_value (BpwSweepItem *self,
                             guint         param)
{
  g_return_val_if_fail (BPW_IS_SWEEP_ITEM (self), NULL);
  g_return_val_if_fail (param < self->n_params, NULL);
  return bpw_sweep_param_format (self->params[param], self->values[param]);
}

static char *
bpw_sweep_format_gain (double gain)
{
  /* Translators: a gain in throughput over the baseline, "×1.43" */
  return g_strdup_printf (_("×%.2f"), gain);
}

/* The split of the gain is known only where the baseline's plan runs on the point. */
static gboolean
bpw_sweep_item_split_known (BpwSweepItem *self)
{
  return isfinite (self->gains[1]) && isfinite (self->gains[2]);
}

char *
bpw_sweep_item_format (BpwSweepItem   *self,
                       BpwSweepColumn  column)
{
  g_autofree char *rate = NULL;

  g_return_val_if_fail (BPW_IS_SWEEP_ITEM (self), NULL);

  if (!self->has_best && column != BPW_SWEEP_COLUMN_POINT && column != BPW_SWEEP_COLUMN_LEGAL)
    return g_strdup ("—");
  switch (column)
    {
    case BPW_SWEEP_COLUMN_POINT:
      return g_strdup_printf ("%u", self->index + 1);
    case BPW_SWEEP_COLUMN_STEP_TIME:
      return bpw_format_seconds (self->step_time_s);
    case BPW_SWEEP_COLUMN_THROUGHPUT:
      if (!isfinite (self->tokens_per_s) || self->tokens_per_s <= 0)
        return g_strdup ("—");
      rate = bpw_format_count ((BpwU128) llround (self->tokens_per_s));
      /* Translators: throughput, "12,345 tokens/s" */
      return g_strdup_printf (_("%s tokens/s"), rate);
    case BPW_SWEEP_COLUMN_GAIN:
      return isfinite (self->gains[0]) ? bpw_sweep_format_gain (self->gains[0]) : g_strdup ("—");
    case BPW_SWEEP_COLUMN_ARCHITECTURE:
    case BPW_SWEEP_COLUMN_MAPPING:
      if (!isfinite (self->gains[0]))
        return g_strdup ("—");
      if (!bpw_sweep_item_split_known (self))
        /* Translators: the gain's split into architecture and mapping is not known */
        return g_strdup (_("total only"));
      return bpw_sweep_format_gain (self->gains[column == BPW_SWEEP_COLUMN_ARCHITECTURE ? 1 : 2]);
    case BPW_SWEEP_COLUMN_LEGAL:
      if (!self->searched)
        /* Translators: a sweep point the stopped sweep never reached */
        return g_strdup (_("Not searched"));
      /* Translators: whether a sweep point has a legal plan */
      return g_strdup (self->has_best ? _("Legal") : _("No legal plan"));
    case BPW_SWEEP_COLUMN_PARETO:
      return g_strdup (self->pareto ? "✓" : "");
    case BPW_SWEEP_COLUMN_PLAN:
      return g_strdup (self->plan != NULL ? self->plan : "—");
    case BPW_N_SWEEP_COLUMNS:
    default:
      g_return_val_if_reached (g_strdup ("?"));
    }
}

char *
bpw_sweep_item_dup_tooltip (BpwSweepItem   *self,
                            BpwSweepColumn  column)
{
  g_return_val_if_fail (BPW_IS_SWEEP_ITEM (self), NULL);

  switch (column)
    {
    case BPW_SWEEP_COLUMN_ARCHITECTURE:
    case BPW_SWEEP_COLUMN_MAPPING:
      if (!self->has_best || bpw_sweep_item_split_known (self))
        return NULL;
      if (!self->baseline_applies)
        return g_strdup (_("The baseline’s best plan cannot run on this point (the device "
                           "count does not divide into its TP and PP, or its batch): only "
                           "the total gain is known"));
      return g_strdup (_("The baseline’s best plan is illegal on this point (it no longer "
                         "fits): only the total gain is known"));
    case BPW_SWEEP_COLUMN_LEGAL:
      if (self->searched && !self->has_best)
        return g_strdup (_("No plan of the space is legal on this point’s blueprint and "
                           "device count"));
      return NULL;
    case BPW_SWEEP_COLUMN_PARETO:
      return self->pareto ? g_strdup (_("On the front of throughput, tokens per joule and "
                                        "cost: no other point is better in all three"))
                          : NULL;
    case BPW_SWEEP_COLUMN_PLAN:
      return g_strdup (self->plan);
    case BPW_SWEEP_COLUMN_POINT:
    case BPW_SWEEP_COLUMN_STEP_TIME:
    case BPW_SWEEP_COLUMN_THROUGHPUT:
    case BPW_SWEEP_COLUMN_GAIN:
    case BPW_N_SWEEP_COLUMNS:
    default:
      return NULL;
    }
}

char *
bpw_sweep_item_dup_label (BpwSweepItem *self)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (BPW_IS_SWEEP_ITEM (self), NULL);

  for (guint i = 0; i < self->n_params; i++)
    {
      g_autofree char *part = bpw_sweep_item_describe (self, i);

      g_string_append_printf (out, "%s%s", i > 0 ? " · " : "", part);
    }
  return g_string_free (out, FALSE);
}

const char *
bpw_sweep_column_get_title (BpwSweepColumn column)
{
  switch (column)
    {
    case BPW_SWEEP_COLUMN_POINT:
      /* Translators: the sweep point's number */
      return C_("sweep point", "#");
    case BPW_SWEEP_COLUMN_STEP_TIME:
      return _("Best Step Time");
    case BPW_SWEEP_COLUMN_THROUGHPUT:
      return _("Throughput");
    case BPW_SWEEP_COLUMN_GAIN:
      /* Translators: the gain in throughput over the baseline */
      return _("Gain");
    case BPW_SWEEP_COLUMN_ARCHITECTURE:
      /* Translators: the part of the gain the changed blueprint brings */
      return _("Architecture");
    case BPW_SWEEP_COLUMN_MAPPING:
      /* Translators: the part of the gain re-searching the mapping brings */
      return C_("gain", "Mapping");
    case BPW_SWEEP_COLUMN_LEGAL:
      return _("Legality");
    case BPW_SWEEP_COLUMN_PARETO:
      /* Translators: on the Pareto front */
      return _("Pareto");
    case BPW_SWEEP_COLUMN_PLAN:
      return _("Best Plan");
    case BPW_N_SWEEP_COLUMNS:
    default:
      g_return_val_if_reached ("?");
    }
}

gboolean
bpw_sweep_column_is_numeric (BpwSweepColumn column)
{
  return column != BPW_SWEEP_COLUMN_LEGAL && column != BPW_SWEEP_COLUMN_PLAN
         && column != BPW_SWEEP_COLUMN_PARETO;
}
