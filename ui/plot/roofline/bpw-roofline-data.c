/* bpw-roofline-data.c — what a roofline shows: operations as points, blueprint ceilings
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-roofline-data"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-mapping-sheet.h"
#include "bpw-roofline-data.h"

BpwRooflineData *
bpw_roofline_data_new (const char *title,
                       const char *label)
{
  BpwRooflineData *data = g_new0 (BpwRooflineData, 1);

  data->title = g_strdup (title != NULL ? title : _("Roofline"));
  data->label = g_strdup (label != NULL ? label : "");
  data->precision = g_strdup ("");
  data->stage = -1;
  data->n_stages = 1;
  data->points = g_array_new (FALSE, FALSE, sizeof (BpwRooflinePoint));
  data->ceilings = g_array_new (FALSE, FALSE, sizeof (BpwRooflineCeiling));
  data->ridges = g_array_new (FALSE, FALSE, sizeof (BpwRooflineRidge));
  data->strings = g_string_chunk_new (4096);
  return data;
}

void
bpw_roofline_data_free (BpwRooflineData *data)
{
  if (data == NULL)
    return;
  g_free (data->title);
  g_free (data->label);
  g_free (data->baseline_label);
  g_free (data->measured_label);
  g_free (data->precision);
  g_array_unref (data->points);
  g_array_unref (data->ceilings);
  g_array_unref (data->ridges);
  g_string_chunk_free (data->strings);
  g_free (data);
}

const char *
bpw_roofline_data_intern (BpwRooflineData *data,
                          const char      *str)
{
  return g_string_chunk_insert_const (data->strings, str != NULL ? str : "");
}

guint
bpw_roofline_data_add_point (BpwRooflineData        *data,
                             const BpwRooflinePoint *point)
{
  BpwRooflinePoint p = *point;

  p.name = bpw_roofline_data_intern (data, p.name);
  p.kind = bpw_roofline_data_intern (data, p.kind);
  p.engine = bpw_roofline_data_intern (data, p.engine);
  p.dtype = bpw_roofline_data_intern (data, p.dtype);
  p.merged = MAX (p.merged, 1u);
  g_array_append_val (data->points, p);
  return data->points->len - 1;
}

guint
bpw_roofline_data_add_ceiling (BpwRooflineData          *data,
                               const BpwRooflineCeiling *ceiling)
{
  BpwRooflineCeiling c = *ceiling;

  c.label = bpw_roofline_data_intern (data, c.label);
  if (!(c.efficiency > 0))
    c.efficiency = 1;
  g_array_append_val (data->ceilings, c);
  return data->ceilings->len - 1;
}

void
bpw_roofline_data_update_ridges (BpwRooflineData *data)
{
  g_array_set_size (data->ridges, 0);
  for (guint i = 0; i < data->ceilings->len; i++)
    {
      const BpwRooflineCeiling *c = &g_array_index (data->ceilings, BpwRooflineCeiling, i);

      if (c->kind != BPW_CEILING_COMPUTE || c->calibrated || c->baseline || !(c->value > 0))
        continue;
      for (guint j = 0; j < data->ceilings->len; j++)
        {
          const BpwRooflineCeiling *m = &g_array_index (data->ceilings, BpwRooflineCeiling, j);
          BpwRooflineRidge r;

          if (m->kind != BPW_CEILING_MEMORY || m->calibrated || m->baseline || m->host ||
              !(m->value > 0))
            continue;
          r = (BpwRooflineRidge) { .compute = i, .memory = j, .intensity = c->value / m->value,
                                   .value = c->value };
          g_array_append_val (data->ridges, r);
        }
    }
}

static gboolean
check_stage (const BpwPlan *plan, gint64 stage, GError **error)
{
  if (stage >= -1 && stage < plan->dist->n_stages)
    return TRUE;
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
               _("Stage %" PRId64 " does not exist: the plan has %" PRId64
               " pipeline stages, numbered from 0."), stage, plan->dist->n_stages);
  return FALSE;
}

/* Best efficiency of a calibrated or measured table, or 0 when it is not calibrated. */
static double
calibrated_efficiency (const BpwEfficiencyTable *table)
{
  double best = 0;

  if (table->n_points == 0 ||
      (table->kind != BPW_PROVENANCE_CALIBRATED && table->kind != BPW_PROVENANCE_MEASURED))
    return 0;
  for (guint i = 0; i < table->n_points; i++)
    best = MAX (best, table->points[i].efficiency);
  return MIN (best, 1.0);
}

static void
add_engine_ceilings (BpwRooflineData *data, const BpwPlan *plan, const BpwEngineRate *rate,
                     gboolean baseline, gboolean with_calibrated)
{
  const char *precision = bpw_precision_to_string (plan->precision);
  g_autofree char *label = NULL;
  BpwRooflineCeiling c;
  double eff;

  if (rate->engine == NULL || !(rate->peak > 0))
    return;
  label = g_strdup_printf ("%s %s", rate->engine->name, precision);
  c = (BpwRooflineCeiling) { .kind = BPW_CEILING_COMPUTE, .label = label, .value = rate->peak,
                             .efficiency = 1, .baseline = baseline, .primary = TRUE };
  bpw_roofline_data_add_ceiling (data, &c);
  eff = with_calibrated ? calibrated_efficiency (rate->efficiency) : 0;
  if (eff > 0 && eff < 1)
    {
      c.value = rate->peak * eff;
      c.efficiency = eff;
      c.calibrated = TRUE;
      bpw_roofline_data_add_ceiling (data, &c);
    }
}

static void
add_memory_ceilings (BpwRooflineData *data, const BpwMemoryRate *rate, gboolean host,
                     gboolean baseline, gboolean with_calibrated)
{
  BpwRooflineCeiling c;
  double eff;

  if (rate->level == NULL || !(rate->bandwidth > 0))
    return;
  c = (BpwRooflineCeiling) { .kind = BPW_CEILING_MEMORY, .label = rate->level->name,
                             .value = rate->bandwidth, .efficiency = 1, .baseline = baseline,
                             .primary = !host, .host = host };
  bpw_roofline_data_add_ceiling (data, &c);
  eff = with_calibrated ? calibrated_efficiency (&rate->level->efficiency) : 0;
  if (eff > 0 && eff < 1)
    {
      c.value = rate->bandwidth * eff;
      c.efficiency = eff;
      c.calibrated = TRUE;
      bpw_roofline_data_add_ceiling (data, &c);
    }
}

static gboolean
offloads (const BpwPlan *plan, gint64 stage)
{
  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    {
      const GArray *tasks = plan->stages[s].tasks;

      if (stage >= 0 && s != stage)
        continue;
      if (plan->stages[s].memory.host_total > 0)
        return TRUE;
      for (guint i = 0; i < tasks->len; i++)
        if (g_array_index (tasks, BpwPlanTask, i).bytes[BPW_TRAFFIC_HOST] > 0)
          return TRUE;
    }
  return FALSE;
}

/* One point per distinct operation: every block of a stage (and, for all stages, every
 * stage) repeats the same operations with the same figures. */
static void
add_points (BpwRooflineData *data, const BpwPlan *plan, gint64 stage, gboolean baseline)
{
  g_autoptr(GArray) rows = bpw_mapping_sheet_new (plan, FALSE);
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint first = data->points->len;
  double total = 0;
  guint skipped = 0;

  for (guint i = 0; i < rows->len; i++)
    {
      const BpwSheetRow *r = &g_array_index (rows, BpwSheetRow, i);
      g_autofree char *key = NULL;
      gpointer found;

      if (r->transfer || (stage >= 0 && r->stage != stage))
        continue;
      total += r->total_s;
      if (!(r->flops > 0) || !(r->device_bytes > 0) || !(r->time_s > 0))
        {
          skipped++;
          continue;
        }
      key = g_strdup_printf ("%" G_GINT64_FORMAT "|%s|%d|%s|%s|%s|%a|%a|%a",
                             stage >= 0 ? r->stage : -1, r->name, r->phase, r->kind, r->engine,
                             r->dtype, r->flops, r->device_bytes, r->time_s);
      if (g_hash_table_lookup_extended (index, key, NULL, &found))
        {
          BpwRooflinePoint *p = &g_array_index (data->points, BpwRooflinePoint,
                                                GPOINTER_TO_UINT (found));

          p->merged++;
          p->total_s += r->total_s;
          if (p->stage != r->stage)
            p->stage = -1;
        }
      else
        {
          BpwRooflinePoint p = {
            .lineage = r->lineage, .stage = r->stage, .merged = 1,
            .layer_type = r->layer_type, .phase = r->phase, .bottleneck = r->bottleneck,
            .baseline = baseline, .name = r->name, .kind = r->kind, .engine = r->engine,
            .dtype = r->dtype, .flops = r->flops, .bytes = r->device_bytes,
            .intensity = r->flops / r->device_bytes, .attained = r->flops / r->time_s,
            .time_s = r->time_s, .total_s = r->total_s,
          };

          g_hash_table_insert (index, g_steal_pointer (&key),
                               GUINT_TO_POINTER (bpw_roofline_data_add_point (data, &p)));
        }
    }
  for (guint i = first; i < data->points->len; i++)
    {
      BpwRooflinePoint *p = &g_array_index (data->points, BpwRooflinePoint, i);

      p->share = total > 0 ? p->total_s / total : 0;
    }
  if (baseline)
    data->baseline_skipped = skipped;
  else
    data->skipped = skipped;
}

static void
add_plan_ceilings (BpwRooflineData *data, const BpwPlan *plan, gint64 stage, gboolean baseline)
{
  add_engine_ceilings (data, plan, &plan->rates.matrix, baseline, !baseline);
  if (!baseline && plan->rates.vector.engine != plan->rates.matrix.engine)
    add_engine_ceilings (data, plan, &plan->rates.vector, FALSE, TRUE);
  add_memory_ceilings (data, &plan->rates.traffic[BPW_TRAFFIC_DEVICE], FALSE, baseline,
                       !baseline);
  if (!baseline && offloads (plan, stage))
    add_memory_ceilings (data, &plan->rates.traffic[BPW_TRAFFIC_HOST], TRUE, FALSE, TRUE);
}

BpwRooflineData *
bpw_roofline_data_new_from_plan (const BpwPlan  *plan,
                                 gint64          stage,
                                 const char     *label,
                                 GError        **error)
{
  const char *scenario = plan->dist->graph->scenario.name;
  const char *precision = bpw_precision_to_string (plan->precision);
  g_autofree char *where = NULL;
  g_autofree char *title = NULL;
  BpwRooflineData *data;

  g_return_val_if_fail (plan != NULL, NULL);

  if (!check_stage (plan, stage, error))
    return NULL;
  if (label == NULL)
    label = plan->blueprint->name;
  where = stage >= 0 ? g_strdup_printf (_("stage %" PRId64 " of %" PRId64),
                                        stage, plan->dist->n_stages)
                     : plan->dist->n_stages > 1
                         ? g_strdup_printf (_("all %" PRId64 " stages"), plan->dist->n_stages)
                         : g_strdup (_("one stage"));
  title = g_strdup_printf (_("Roofline: %s%s%s, %s, %s"), scenario != NULL ? scenario : "",
                           scenario != NULL ? _(" on ") : "", label, precision, where);
  data = bpw_roofline_data_new (title, label);
  g_free (data->precision);
  data->precision = g_strdup (precision);
  data->stage = stage;
  data->n_stages = plan->dist->n_stages;
  add_points (data, plan, stage, FALSE);
  add_plan_ceilings (data, plan, stage, FALSE);
  bpw_roofline_data_update_ridges (data);
  return data;
}

gboolean
bpw_roofline_data_add_baseline (BpwRooflineData  *data,
                                const BpwPlan    *plan,
                                gint64            stage,
                                const char       *label,
                                GError          **error)
{
  g_return_val_if_fail (data != NULL && plan != NULL, FALSE);

  if (stage >= plan->dist->n_stages)
    stage = -1;  /* the baseline may be split into fewer stages: compare with all of it */
  if (!check_stage (plan, stage, error))
    return FALSE;
  g_free (data->baseline_label);
  data->baseline_label = g_strdup (label != NULL ? label : plan->blueprint->name);
  add_points (data, plan, stage, TRUE);
  add_plan_ceilings (data, plan, stage, TRUE);
  bpw_roofline_data_update_ridges (data);
  return TRUE;
}

void
bpw_roofline_data_add_precisions (BpwRooflineData *data,
                                  const BpwPlan   *plan)
{
  const BpwEngine *engine = plan->rates.matrix.engine;

  if (engine == NULL)
    return;
  for (guint p = 0; p < BPW_N_PRECISIONS; p++)
    {
      double peak = engine->peak[p].set ? engine->peak[p].value : 0;
      g_autofree char *label = NULL;
      gboolean seen = p == (guint) plan->precision || !(peak > 0);
      BpwRooflineCeiling c;

      for (guint i = 0; i < data->ceilings->len && !seen; i++)
        {
          const BpwRooflineCeiling *o = &g_array_index (data->ceilings, BpwRooflineCeiling, i);

          seen = o->kind == BPW_CEILING_COMPUTE && !o->baseline &&
                 fabs (o->value - peak) <= 1e-9 * peak;
        }
      if (seen)
        continue;
      label = g_strdup_printf ("%s %s", engine->name, bpw_precision_to_string (p));
      c = (BpwRooflineCeiling) { .kind = BPW_CEILING_COMPUTE, .label = label, .value = peak,
                                 .efficiency = 1 };
      bpw_roofline_data_add_ceiling (data, &c);
    }
  bpw_roofline_data_update_ridges (data);
}
