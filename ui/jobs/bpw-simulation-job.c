/* bpw-simulation-job.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Binding and simulating a step takes from milliseconds to a few seconds, so it runs in a
 * worker thread on a copy of the inputs (bpw-job-queue.h): a newer request cancels the old
 * one, whose result is then dropped. The last result's plan and simulation are
 * kept (immutable) so that the lifetimes chart can show another stage without simulating
 * again.
 */
#define G_LOG_DOMAIN "bpw-simulation-job"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-job-queue.h"
#include "bpw-measurement-run.h"
#include "bpw-si-format.h"
#include "bpw-simulation-job.h"

struct _BpwSimulationJob
{
  GObject           parent_instance;

  /* owned */
  BpwTimelinePlot  *timeline;
  BpwLifetimesPlot *lifetimes;
  BpwLineageIndex  *index;        /* nullable: of the result */
  BpwSimulation    *sim;          /* nullable: of the result; borrows @plan */
  BpwPlan          *plan;         /* nullable */
  BpwJobQueue      *jobs;
  BpwCandidateRun   shown;        /* what the plots are (being) computed from */
  char             *shown_error;  /* nullable: why @shown could not be set up */
  char             *label;        /* the candidate's name */
  char             *scenario;     /* the scenario's name */
  char             *error;        /* nullable */
  BpwStudy         *study;        /* nullable: of the last update, main thread only */
  char             *measured;     /* nullable: the measurement of @shown, "name\npath\nsha" */
  guint             measurement;  /* its index in @study */

  gint64            lifetimes_stage;
  guint             shown_candidate;
  guint             shown_scenario;
  guint             n_runs;
  gboolean          has_shown;
  gboolean          active;
  gboolean          stale;        /* @shown is not simulated yet (maybe indexed) */
  gboolean          busy;
  gboolean          has_result;
};

enum {
  PROP_0,
  PROP_BUSY,
  PROP_ERROR,
  PROP_ACTIVE,
  PROP_HAS_RESULT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (BpwSimulationJob, bpw_simulation_job, G_TYPE_OBJECT)

typedef struct
{
  BpwCandidateRun run;
  char           *label;
  char           *scenario;
  gint64          lifetimes_stage;
  gint64          started;      /* monotonic µs */
  gboolean        simulate;     /* else only the lineage index */
  gboolean        has_measured;
  BpwMeasurementRun measured;   /* the study's measurement of this candidate × scenario */
} BpwSimulationInput;

typedef struct
{
  BpwPlan          *plan;
  BpwSimulation    *sim;
  BpwLineageIndex  *index;
  BpwTimelineData  *timeline;
  BpwLifetimesData *lifetimes;
} BpwSimulationResult;

static void
bpw_simulation_input_free (BpwSimulationInput *input)
{
  bpw_candidate_run_clear (&input->run);
  if (input->has_measured)
    bpw_measurement_run_clear (&input->measured);
  g_free (input->label);
  g_free (input->scenario);
  g_free (input);
}

static void
bpw_simulation_result_free (BpwSimulationResult *result)
{
  g_clear_pointer (&result->timeline, bpw_timeline_data_free);
  g_clear_pointer (&result->lifetimes, bpw_lifetimes_data_free);
  g_clear_pointer (&result->index, bpw_lineage_index_free);
  g_clear_pointer (&result->sim, bpw_simulation_free);  /* before the plan it borrows */
  g_clear_pointer (&result->plan, bpw_plan_free);
  g_free (result);
}

static char *
bpw_simulation_job_title (const char          *what,
                          const char          *scenario,
                          const char          *label,
                          const BpwSimulation *sim)
{
  char step[BPW_SI_LABEL_MAX];

  bpw_si_format (step, sizeof step, sim->step_time_s, "s", 4);
  /* Translators: a chart title, "Timeline: decode-8k on H200 pod, simulated step of 21.3 ms" */
  return g_strdup_printf (_("%s: %s on %s, simulated step of %s"), what, scenario, label, step);
}

/* @stage < 0 or out of range: the stage with the highest peak. */
static BpwLifetimesData *
bpw_simulation_job_lifetimes_data (const BpwSimulation *sim,
                                   gint64               stage,
                                   const char          *scenario,
                                   const char          *label,
                                   GError             **error)
{
  g_autofree char *what = NULL;
  g_autofree char *title = NULL;

  if (stage < 0 || stage >= (gint64) sim->n_ranks)
    {
      stage = 0;
      for (guint32 r = 1; r < sim->n_ranks; r++)
        if (sim->memory[r].peak > sim->memory[stage].peak)
          stage = r;
    }
  what = g_strdup_printf (_("Buffer lifetimes of pipeline stage %u"), (guint) stage);
  title = bpw_simulation_job_title (what, scenario, label, sim);
  return bpw_lifetimes_data_new_from_simulation (sim, stage, title, label, error);
}

/* The measured lanes beside the modelled ones. A profile that cannot be read or lined up
 * leaves the modelled timeline as it is: the Validation page says why. */
static void
bpw_simulation_job_add_measured (BpwSimulationInput *input,
                                 BpwTimelineData    *timeline)
{
  g_autoptr(GError) error = NULL;

  if (!bpw_measurement_run_execute (&input->measured, &error)
      || !bpw_timeline_data_add_measured_lanes (timeline, input->measured.profile,
                                                input->measured.correlation, &error))
    g_debug ("No measured lanes: %s", error->message);
}

/* Worker thread, on a BpwSimulationInput: a BpwSimulationResult, or NULL with @error when
 * the plan cannot be bound or simulated. */
static gpointer
bpw_simulation_job_compute (gpointer       data,
                            GCancellable  *cancellable,
                            GError       **error)
{
  BpwSimulationInput *input = data;
  BpwSimulationResult *result = g_new0 (BpwSimulationResult, 1);
  g_autoptr(BpwWorkGraph) graph = NULL;
  g_autofree char *title = NULL;

  /* The index needs only the work graph: milliseconds, where binding takes seconds. */
  if (!input->simulate)
    {
      if ((graph = bpw_work_graph_new (&input->run.spec, &input->run.scenario, error)) == NULL)
        goto failed;
      result->index = bpw_lineage_index_new (graph);
      return result;
    }
  if ((result->plan = bpw_candidate_run_bind (&input->run, error)) == NULL
      || g_cancellable_set_error_if_cancelled (cancellable, error)
      || (result->sim = bpw_simulation_new (result->plan, NULL, error)) == NULL
      || g_cancellable_set_error_if_cancelled (cancellable, error))
    goto failed;
  result->index = bpw_lineage_index_new (result->plan->dist->graph);
  title = bpw_simulation_job_title (_("Timeline"), input->scenario, input->label, result->sim);
  result->timeline = bpw_timeline_data_new_from_simulation (result->sim, title, input->label,
                                                            TRUE);
  if (input->has_measured)
    bpw_simulation_job_add_measured (input, result->timeline);
  result->lifetimes = bpw_simulation_job_lifetimes_data (result->sim, input->lifetimes_stage,
                                                         input->scenario, input->label, error);
  if (result->lifetimes == NULL)
    goto failed;
  return result;

failed:
  bpw_simulation_result_free (result);
  return NULL;
}

static void
bpw_simulation_job_set_busy (BpwSimulationJob *self,
                             gboolean          busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
bpw_simulation_job_set_error (BpwSimulationJob *self,
                              const char       *error)
{
  if (g_strcmp0 (self->error, error) == 0)
    return;
  g_free (self->error);
  self->error = g_strdup (error);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR]);
}

static void
bpw_simulation_job_set_has_result (BpwSimulationJob *self,
                                   gboolean          has_result)
{
  if (self->has_result == has_result)
    return;
  self->has_result = has_result;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_RESULT]);
}

/* Empty plots: nothing is shown (no inputs, or they failed). */
static void
bpw_simulation_job_clear_result (BpwSimulationJob *self)
{
  bpw_simulation_job_set_has_result (self, FALSE);
  g_clear_pointer (&self->index, bpw_lineage_index_free);
  if (bpw_timeline_plot_get_data (self->timeline)->n_events > 0)
    bpw_timeline_plot_set_data (self->timeline, NULL);
  if (bpw_lifetimes_plot_get_data (self->lifetimes)->buffers->len > 0)
    bpw_lifetimes_plot_set_data (self->lifetimes, NULL);
  g_clear_pointer (&self->sim, bpw_simulation_free);
  g_clear_pointer (&self->plan, bpw_plan_free);
}

static void
bpw_simulation_job_done (GObject      *owner,
                         gpointer      data,
                         gpointer      computed,
                         const GError *error)
{
  BpwSimulationJob *self = BPW_SIMULATION_JOB (owner);
  BpwSimulationInput *input = data;
  BpwSimulationResult *result = computed;
  gboolean stale = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  g_debug ("%s %s on %s in %.0f ms%s", input->simulate ? "simulated" : "indexed",
           input->scenario, input->label,
           (g_get_monotonic_time () - input->started) / 1000.0, stale ? " (stale)" : "");
  if (stale)
    return;  /* newer inputs replaced these */

  if (result == NULL)
    {
      bpw_simulation_job_clear_result (self);
      bpw_simulation_job_set_error (self, error->message);
    }
  else if (!input->simulate)
    {
      /* Linked selection across grains works before the step is simulated. */
      g_clear_pointer (&self->index, bpw_lineage_index_free);
      self->index = g_steal_pointer (&result->index);
      bpw_simulation_result_free (result);
    }
  else
    {
      bpw_simulation_job_clear_result (self);
      self->plan = g_steal_pointer (&result->plan);
      self->sim = g_steal_pointer (&result->sim);
      self->index = g_steal_pointer (&result->index);
      self->n_runs++;
      bpw_simulation_job_set_error (self, NULL);
      bpw_timeline_plot_set_data (self->timeline, g_steal_pointer (&result->timeline));
      bpw_lifetimes_plot_set_data (self->lifetimes, g_steal_pointer (&result->lifetimes));
      bpw_simulation_result_free (result);
      bpw_simulation_job_set_has_result (self, TRUE);
    }
  bpw_simulation_job_set_busy (self, FALSE);
}

/* @simulate: bind and simulate; else bind and index only (inactive). */
static void
bpw_simulation_job_start (BpwSimulationJob *self,
                          gboolean          simulate)
{
  BpwSimulationInput *input = g_new0 (BpwSimulationInput, 1);

  self->stale = !simulate;
  input->simulate = simulate;
  bpw_candidate_run_copy (&input->run, &self->shown);
  input->label = g_strdup (self->label);
  input->scenario = g_strdup (self->scenario);
  input->lifetimes_stage = self->lifetimes_stage;
  input->started = g_get_monotonic_time ();
  if (simulate && self->measured != NULL && self->study != NULL)
    {
      g_autoptr(GError) error = NULL;

      input->has_measured = TRUE;
      if (!bpw_measurement_run_init (&input->measured, self->study, self->measurement,
                                     &error))
        {
          g_debug ("No measured lanes: %s", error->message);
          bpw_measurement_run_clear (&input->measured);
          input->has_measured = FALSE;
        }
    }

  bpw_job_queue_restart (self->jobs, G_OBJECT (self),
                         bpw_simulation_job_compute, input,
                         (GDestroyNotify) bpw_simulation_input_free,
                         (GDestroyNotify) bpw_simulation_result_free, bpw_simulation_job_done);
  bpw_simulation_job_set_busy (self, TRUE);
}

static void
bpw_simulation_job_forget_shown (BpwSimulationJob *self)
{
  if (self->has_shown)
    bpw_candidate_run_clear (&self->shown);
  g_clear_pointer (&self->shown_error, g_free);
  self->has_shown = FALSE;
  self->stale = FALSE;
}

void
bpw_simulation_job_cancel (BpwSimulationJob *self)
{
  g_return_if_fail (BPW_IS_SIMULATION_JOB (self));

  bpw_job_queue_invalidate (self->jobs);
  bpw_simulation_job_set_busy (self, FALSE);
}

static void
bpw_simulation_job_dispose (GObject *object)
{
  BpwSimulationJob *self = BPW_SIMULATION_JOB (object);

  g_clear_pointer (&self->jobs, bpw_job_queue_free);
  bpw_simulation_job_forget_shown (self);
  g_clear_pointer (&self->index, bpw_lineage_index_free);
  g_clear_pointer (&self->sim, bpw_simulation_free);
  g_clear_pointer (&self->plan, bpw_plan_free);
  g_clear_object (&self->timeline);
  g_clear_object (&self->lifetimes);
  g_clear_pointer (&self->label, g_free);
  g_clear_pointer (&self->scenario, g_free);
  g_clear_pointer (&self->measured, g_free);
  g_clear_object (&self->study);
  g_clear_pointer (&self->error, g_free);

  G_OBJECT_CLASS (bpw_simulation_job_parent_class)->dispose (object);
}

static void
bpw_simulation_job_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  BpwSimulationJob *self = BPW_SIMULATION_JOB (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    case PROP_ERROR:
      g_value_set_string (value, self->error);
      break;
    case PROP_ACTIVE:
      g_value_set_boolean (value, self->active);
      break;
    case PROP_HAS_RESULT:
      g_value_set_boolean (value, self->has_result);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
bpw_simulation_job_class_init (BpwSimulationJobClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = bpw_simulation_job_dispose;
  object_class->get_property = bpw_simulation_job_get_property;

  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ERROR] =
    g_param_spec_string ("error", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ACTIVE] =
    g_param_spec_boolean ("active", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_HAS_RESULT] =
    g_param_spec_boolean ("has-result", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
bpw_simulation_job_init (BpwSimulationJob *self)
{
  self->jobs = bpw_job_queue_new ();
  self->timeline = bpw_timeline_plot_new (NULL);
  self->lifetimes = bpw_lifetimes_plot_new (NULL);
  self->lifetimes_stage = -1;
  self->shown_candidate = self->shown_scenario = G_MAXUINT;
}

BpwSimulationJob *
bpw_simulation_job_new (void)
{
  return g_object_new (BPW_TYPE_SIMULATION_JOB, NULL);
}

/* (transfer full) (nullable): what identifies the study's first measurement of @candidate
 * on @scenario, its index in @index. */
static char *
bpw_simulation_job_find_measurement (BpwStudy *study,
                                     guint     candidate,
                                     guint     scenario,
                                     guint    *index)
{
  const char *c = bpw_study_get_candidate (study, candidate)->name;
  const char *s = bpw_study_get_scenario (study, scenario)->name;

  for (guint i = 0; i < bpw_study_get_n_measurements (study); i++)
    {
      const BpwStudyMeasurement *m = bpw_study_get_measurement (study, i);

      if (g_strcmp0 (m->candidate, c) == 0 && g_strcmp0 (m->scenario, s) == 0)
        {
          *index = i;
          return g_strdup_printf ("%s\n%s\n%s", m->name, m->path,
                                  m->sha256 != NULL ? m->sha256 : "");
        }
    }
  return NULL;
}

gboolean
bpw_simulation_job_update (BpwSimulationJob *self,
                           BpwStudy         *study,
                           guint             candidate,
                           guint             scenario,
                           gboolean          force)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *measured = NULL;
  BpwCandidateRun run;
  gboolean new_measured;
  gboolean ok;

  g_return_val_if_fail (BPW_IS_SIMULATION_JOB (self), FALSE);
  g_return_val_if_fail (study == NULL || BPW_IS_STUDY (study), FALSE);

  if (study == NULL || candidate >= bpw_study_get_n_candidates (study)
      || scenario >= bpw_study_get_n_scenarios (study))
    {
      bpw_simulation_job_cancel (self);
      bpw_simulation_job_forget_shown (self);
      bpw_simulation_job_clear_result (self);
      bpw_simulation_job_set_error (self, NULL);
      self->shown_candidate = self->shown_scenario = G_MAXUINT;
      return FALSE;
    }

  g_set_object (&self->study, study);
  measured = bpw_simulation_job_find_measurement (study, candidate, scenario,
                                                  &self->measurement);
  new_measured = g_strcmp0 (measured, self->measured) != 0;
  g_free (self->measured);
  self->measured = g_steal_pointer (&measured);

  ok = bpw_candidate_run_init (&run, study, candidate, scenario, &error);
  g_free (self->label);
  self->label = g_strdup (bpw_study_get_candidate (study, candidate)->name);
  g_free (self->scenario);
  self->scenario = g_strdup (bpw_study_get_scenario (study, scenario)->name);
  if (!force && !new_measured && self->has_shown
      && bpw_candidate_run_same (&self->shown, self->shown_error, &run,
                                 ok ? NULL : error->message))
    {
      bpw_candidate_run_clear (&run);
      return FALSE;
    }

  bpw_simulation_job_cancel (self);
  bpw_simulation_job_forget_shown (self);
  self->shown = run;
  self->shown_error = ok ? NULL : g_strdup (error->message);
  self->has_shown = TRUE;
  if (!ok)
    {
      bpw_simulation_job_clear_result (self);
      bpw_simulation_job_set_error (self, error->message);
      self->shown_candidate = self->shown_scenario = G_MAXUINT;
      return FALSE;
    }
  /* After an edit the charts keep the last step until the new one replaces it, so the
   * page does not flash empty; another candidate or scenario is another chart. */
  if (candidate != self->shown_candidate || scenario != self->shown_scenario)
    bpw_simulation_job_clear_result (self);
  self->shown_candidate = candidate;
  self->shown_scenario = scenario;
  bpw_simulation_job_start (self, self->active);
  return TRUE;
}

void
bpw_simulation_job_set_active (BpwSimulationJob *self,
                               gboolean          active)
{
  g_return_if_fail (BPW_IS_SIMULATION_JOB (self));

  active = !!active;
  if (self->active == active)
    return;
  self->active = active;
  if (active && self->stale)
    bpw_simulation_job_start (self, TRUE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVE]);
}

gboolean
bpw_simulation_job_get_active (BpwSimulationJob *self)
{
  g_return_val_if_fail (BPW_IS_SIMULATION_JOB (self), FALSE);
  return self->active;
}

gboolean
bpw_simulation_job_get_busy (BpwSimulationJob *self)
{
  g_return_val_if_fail (BPW_IS_SIMULATION_JOB (self), FALSE);
  return self->busy;
}

const char *
bpw_simulation_job_get_error (BpwSimulationJob *self)
{
  g_return_val_if_fail (BPW_IS_SIMULATION_JOB (self), NULL);
  return self->error;
}

gboolean
bpw_simulation_job_get_has_result (BpwSimulationJob *self)
{
  g_return_val_if_fail (BPW_IS_SIMULATION_JOB (self), FALSE);
  return self->has_result;
}

guint
bpw_simulation_job_get_n_runs (BpwSimulationJob *self)
{
  g_return_val_if_fail (BPW_IS_SIMULATION_JOB (self), 0);
  return self->n_runs;
}

BpwTimelinePlot *
bpw_simulation_job_get_timeline_plot (BpwSimulationJob *self)
{
  g_return_val_if_fail (BPW_IS_SIMULATION_JOB (self), NULL);
  return self->timeline;
}

BpwLifetimesPlot *
bpw_simulation_job_get_lifetimes_plot (BpwSimulationJob *self)
{
  g_return_val_if_fail (BPW_IS_SIMULATION_JOB (self), NULL);
  return self->lifetimes;
}

const BpwLineageIndex *
bpw_simulation_job_get_lineage_index (BpwSimulationJob *self)
{
  g_return_val_if_fail (BPW_IS_SIMULATION_JOB (self), NULL);
  return self->index;
}

guint
bpw_simulation_job_get_n_stages (BpwSimulationJob *self)
{
  g_return_val_if_fail (BPW_IS_SIMULATION_JOB (self), 0);
  return self->sim != NULL ? self->sim->n_ranks : 0;
}

void
bpw_simulation_job_set_lifetimes_stage (BpwSimulationJob *self,
                                        gint64            stage)
{
  g_autoptr(GError) error = NULL;
  BpwLifetimesData *data;

  g_return_if_fail (BPW_IS_SIMULATION_JOB (self));

  if (stage < 0)
    stage = -1;
  if (self->lifetimes_stage == stage)
    return;
  self->lifetimes_stage = stage;
  if (self->sim == NULL)
    return;  /* the next simulation shows it */
  /* One rank's replay of its buffers: milliseconds, on the kept simulation. */
  data = bpw_simulation_job_lifetimes_data (self->sim, stage, self->scenario, self->label,
                                            &error);
  if (data == NULL)
    bpw_simulation_job_set_error (self, error->message);
  else
    bpw_lifetimes_plot_set_data (self->lifetimes, data);
}

gint64
bpw_simulation_job_get_lifetimes_stage (BpwSimulationJob *self)
{
  g_return_val_if_fail (BPW_IS_SIMULATION_JOB (self), -1);
  return self->lifetimes_stage;
}
