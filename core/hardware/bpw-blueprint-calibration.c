/* bpw-blueprint-calibration.c — a blueprint's calibration status, and its comparison
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-calibration"

#include "config.h"

#include <string.h>

#include "bpw-blueprint-calibration.h"
#include "bpw-i18n.h"

static const char * const level_keys[BPW_N_CALIBRATION_LEVELS] = {
  "calibrated", "measured", "estimate", "datasheet",
};

const char *
bpw_calibration_level_to_string (BpwCalibrationLevel level)
{
  g_return_val_if_fail (level < BPW_N_CALIBRATION_LEVELS, "?");
  return level_keys[level];
}

const char *
bpw_calibration_level_to_label (BpwCalibrationLevel level)
{
  switch (level)
    {
    case BPW_CALIBRATION_CALIBRATED:
      return _("calibrated");
    case BPW_CALIBRATION_MEASURED:
      return _("measured");
    case BPW_CALIBRATION_ESTIMATE:
      return _("estimate");
    case BPW_CALIBRATION_DATASHEET:
    case BPW_N_CALIBRATION_LEVELS:
    default:
      return _("datasheet");
    }
}

/* What a value of @kind (set) makes of the status. */
static BpwCalibrationLevel
level_of_kind (BpwProvenance kind)
{
  switch (kind)
    {
    case BPW_PROVENANCE_CALIBRATED:
      return BPW_CALIBRATION_CALIBRATED;
    case BPW_PROVENANCE_MEASURED:
      return BPW_CALIBRATION_MEASURED;
    case BPW_PROVENANCE_ESTIMATE:
      return BPW_CALIBRATION_ESTIMATE;
    case BPW_PROVENANCE_DATASHEET:
    default:
      return BPW_CALIBRATION_DATASHEET;
    }
}

/* The values that move time, gathered while walking the blueprint. */
typedef struct
{
  BpwCalibrationLevel level;           /* the weakest so far */
  GString            *details;
  GPtrArray          *bases[BPW_N_CALIBRATION_LEVELS];  /* distinct short sources */
  char               *rule_part;       /* the part the rule took estimates from */
} Walk;

/* The part of a source that names where it comes from: up to the first " (" or ":"
 * ("measurement pack h200-pytorch", "fitted to Megatron-LM 2021 Table 1"). */
static char *
source_basis (const char *source)
{
  const char *paren = strstr (source, " (");
  const char *colon = strchr (source, ':');
  const char *end = source + strlen (source);

  if (paren != NULL && paren < end)
    end = paren;
  if (colon != NULL && colon < end)
    end = colon;
  return g_strstrip (g_strndup (source, (gsize) (end - source)));
}

/* "… from h200-sxm-141gb …" in a source of the rule: the part's name. */
static char *
rule_part (const char *source)
{
  const char *from = strstr (source, " from ");
  const char *end;

  if (from == NULL)
    return NULL;
  from += strlen (" from ");
  end = from;
  while (*end != '\0' && *end != ' ' && *end != ',' && *end != ';' && *end != ')')
    end++;
  return end > from ? g_strndup (from, (gsize) (end - from)) : NULL;
}

static void
add_basis (GPtrArray *bases, char *basis)
{
  for (guint i = 0; i < bases->len; i++)
    if (g_strcmp0 (g_ptr_array_index (bases, i), basis) == 0)
      {
        g_free (basis);
        return;
      }
  g_ptr_array_add (bases, basis);
}

static void
walk_value (Walk          *w,
            const char    *what,
            gboolean       set,
            BpwProvenance  kind,
            const char    *source)
{
  BpwCalibrationLevel level = set ? level_of_kind (kind) : BPW_CALIBRATION_DATASHEET;

  w->level = MAX (w->level, level);
  if (w->details->len > 0)
    g_string_append_c (w->details, '\n');
  if (!set)
    {
      /* TRANSLATORS: %s is a value such as "device-memory efficiency" */
      g_string_append_printf (w->details, _("%s: not set, 100 %% of the datasheet rate"), what);
      return;
    }
  /* TRANSLATORS: value, its kind (calibrated, measured, estimate, datasheet), source */
  g_string_append_printf (w->details, _("%s: %s, %s"), what,
                          bpw_calibration_level_to_label (level),
                          source != NULL ? source : _("no source given"));
  if (source == NULL)
    return;
  if (level == BPW_CALIBRATION_ESTIMATE && g_str_has_prefix (source, BPW_CALIBRATION_RULE)
      && w->rule_part == NULL)
    w->rule_part = rule_part (source);
  add_basis (w->bases[level], source_basis (source));
}

static void
walk_table (Walk                     *w,
            const char               *what,
            const BpwEfficiencyTable *table)
{
  walk_value (w, what, table->n_points > 0, table->kind, table->source);
}

static void
walk_overhead (Walk            *w,
               const BpwEngine *engine)
{
  g_autofree char *what = g_strdup_printf (_("fixed cost per operation (%s)"), engine->name);

  walk_value (w, what, engine->overhead.set, engine->overhead.kind, engine->overhead.source);
}

static void
walk_engines (Walk               *w,
              const BpwBlueprint *bp,
              guint               precisions)
{
  int m = bpw_blueprint_first_engine (bp, BPW_ENGINE_MATRIX);
  int v = bpw_blueprint_first_engine (bp, BPW_ENGINE_VECTOR);
  gboolean vector_runs = FALSE;
  guint vector_seen = 0;

  if (m >= 0)
    {
      const BpwEngine *e = &bp->engines[m];

      for (guint p = 0; p < BPW_N_PRECISIONS; p++)
        if ((precisions & (1u << p)) != 0 && e->peak[p].set)
          {
            g_autofree char *what = g_strdup_printf (_("matrix efficiency (%s, %s)"), e->name,
                                                     bpw_precision_to_string (p));

            walk_table (w, what, &e->efficiency[p]);
          }
      walk_overhead (w, e);
    }
  if (v < 0)
    return;
  /* The vector engine runs a precision at its own peak, else at its FP32 one (bpw-cost.c);
   * its efficiency counts only where the file sets one (the rule leaves it to memory). */
  for (guint p = 0; p < BPW_N_PRECISIONS; p++)
    if ((precisions & (1u << p)) != 0)
      {
        const BpwEngine *e = &bp->engines[v];
        guint runs = e->peak[p].set ? p : BPW_PRECISION_FP32;

        if (!e->peak[runs].set)
          continue;
        vector_runs = TRUE;
        if (e->efficiency[runs].n_points > 0 && (vector_seen & (1u << runs)) == 0)
          {
            g_autofree char *what = g_strdup_printf (_("vector efficiency (%s, %s)"), e->name,
                                                     bpw_precision_to_string (runs));

            walk_table (w, what, &e->efficiency[runs]);
          }
        vector_seen |= 1u << runs;
      }
  if (vector_runs)
    walk_overhead (w, &bp->engines[v]);
}

static char *
join_bases (GPtrArray *bases)
{
  g_ptr_array_add (bases, NULL);
  return g_strjoinv ("; ", (char **) bases->pdata);
}

void
bpw_blueprint_calibration_status (const BpwBlueprint   *bp,
                                  guint                 precisions,
                                  BpwCalibrationStatus *status)
{
  Walk w = { .level = BPW_CALIBRATION_CALIBRATED };
  int d;
  g_autofree char *basis = NULL;

  g_return_if_fail (bp != NULL && status != NULL);
  if (precisions == 0)
    precisions = 1u << BPW_PRECISION_BF16;
  w.details = g_string_new (NULL);
  for (guint l = 0; l < BPW_N_CALIBRATION_LEVELS; l++)
    w.bases[l] = g_ptr_array_new_with_free_func (g_free);

  walk_engines (&w, bp, precisions);
  d = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
  if (d >= 0)
    walk_table (&w, _("device-memory efficiency"), &bp->memory[d].efficiency);

  status->level = w.level;
  basis = join_bases (w.bases[w.level]);
  switch (w.level)
    {
    case BPW_CALIBRATION_CALIBRATED:
      /* TRANSLATORS: %s names what it was fitted to */
      status->label = g_strdup_printf (_("calibrated (%s)"), basis);
      break;
    case BPW_CALIBRATION_MEASURED:
      /* TRANSLATORS: %s names the measurement */
      status->label = g_strdup_printf (_("measured (%s)"), basis);
      break;
    case BPW_CALIBRATION_ESTIMATE:
      if (w.rule_part != NULL)
        /* TRANSLATORS: %s is the blueprint the equal-footing rule took values from */
        status->label = g_strdup_printf (_("estimate by rule from %s"), w.rule_part);
      else
        status->label = g_strdup_printf (_("estimate (%s)"), basis);
      break;
    case BPW_CALIBRATION_DATASHEET:
    case BPW_N_CALIBRATION_LEVELS:
    default:
      status->label = g_strdup (_("datasheet only"));
      break;
    }
  status->details = g_string_free (w.details, FALSE);
  for (guint l = 0; l < BPW_N_CALIBRATION_LEVELS; l++)
    g_ptr_array_unref (w.bases[l]);
  g_free (w.rule_part);
}

void
bpw_calibration_status_clear (BpwCalibrationStatus *status)
{
  g_clear_pointer (&status->label, g_free);
  g_clear_pointer (&status->details, g_free);
}

void
bpw_calibration_status_copy (BpwCalibrationStatus       *dest,
                             const BpwCalibrationStatus *src)
{
  dest->level = src->level;
  dest->label = g_strdup (src->label);
  dest->details = g_strdup (src->details);
}

gboolean
bpw_calibration_differs (const char * const         *names,
                         const BpwCalibrationStatus *statuses,
                         guint                       n,
                         char                      **why)
{
  g_autoptr(GPtrArray) groups = NULL;
  g_autofree char *joined = NULL;
  gboolean differs = FALSE;
  g_autofree gboolean *done = NULL;

  if (why != NULL)
    *why = NULL;
  for (guint i = 1; i < n && !differs; i++)
    differs = g_strcmp0 (statuses[i].label, statuses[0].label) != 0;
  if (!differs || why == NULL)
    return differs;

  /* One group per label, in the order the candidates come: "A, B label". */
  groups = g_ptr_array_new_with_free_func (g_free);
  done = g_new0 (gboolean, n);
  for (guint i = 0; i < n; i++)
    {
      GString *group;

      if (done[i])
        continue;
      group = g_string_new (names[i]);
      for (guint j = i + 1; j < n; j++)
        if (!done[j] && g_strcmp0 (statuses[j].label, statuses[i].label) == 0)
          {
            g_string_append_printf (group, ", %s", names[j]);
            done[j] = TRUE;
          }
      g_string_append_printf (group, " %s", statuses[i].label);
      g_ptr_array_add (groups, g_string_free (group, FALSE));
    }
  g_ptr_array_add (groups, NULL);
  joined = g_strjoinv ("; ", (char **) groups->pdata);
  /* TRANSLATORS: %s lists the candidates grouped by calibration status */
  *why = g_strdup_printf (_("Candidates are calibrated differently: %s. Compare with care."),
                          joined);
  return TRUE;
}
