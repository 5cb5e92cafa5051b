/* bpw-review-metadata.c — what the packet was computed from, and with what
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Hashes are SHA-256 of each input's canonical JSON (the form the workbench writes), so
 * that the same inputs give the same hashes wherever they were loaded from. A measured
 * run's versions are read from its trace; what the trace does not record is said so.
 */
#define G_LOG_DOMAIN "bpw-review"

#include "config.h"

#include "bpw-blueprint-io.h"
#include "bpw-profile.h"
#include "bpw-review-private.h"
#include "bpw-workload-io.h"

static char *
bpw_review_sha256 (const char *text)
{
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
}

static void
bpw_review_set_recorded (JsonObject *o,
                         const char *member,
                         const char *value)
{
  json_object_set_string_member (o, member, value != NULL && value[0] != '\0'
                                              ? value : BPW_REVIEW_NOT_RECORDED);
}

static JsonArray *
bpw_review_measured_runs (BpwStudy *study)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < bpw_study_get_n_measurements (study); i++)
    {
      const BpwStudyMeasurement *m = bpw_study_get_measurement (study, i);
      g_autoptr(GError) error = NULL;
      BpwProfile *profile = bpw_profile_load_file (m->path, &error);
      JsonObject *o = json_object_new ();

      json_object_set_string_member (o, "measurement", m->name);
      json_object_set_string_member (o, "candidate", m->candidate);
      json_object_set_string_member (o, "scenario", m->scenario);
      json_object_set_string_member (o, "trace", m->profile);
      bpw_review_set_recorded (o, "trace_sha256", m->sha256);
      if (profile == NULL)
        json_object_set_string_member (o, "trace_error", error->message);
      bpw_review_set_recorded (o, "device", profile != NULL ? profile->meta.hardware : NULL);
      bpw_review_set_recorded (o, "driver", profile != NULL ? profile->meta.driver : NULL);
      bpw_review_set_recorded (o, "runtime", profile != NULL ? profile->meta.runtime : NULL);
      bpw_review_set_recorded (o, "framework", profile != NULL ? profile->meta.framework : NULL);
      /* Chrome and PyTorch traces carry no compiler, firmware or power mode. */
      bpw_review_set_recorded (o, "compiler", NULL);
      bpw_review_set_recorded (o, "firmware", NULL);
      bpw_review_set_recorded (o, "power_mode", NULL);
      bpw_review_set_recorded (o, "date", profile != NULL ? profile->meta.date : NULL);
      json_array_add_object_element (array, o);
      g_clear_pointer (&profile, bpw_profile_free);
    }
  return array;
}

JsonNode *
_bpw_review_metadata (BpwReviewBuild *b)
{
  const char * const *blueprints = bpw_study_get_blueprints (b->study);
  g_autofree char *study_json = bpw_study_to_json (b->study);
  g_autofree char *study_hash = bpw_review_sha256 (study_json);
  JsonObject *o = json_object_new ();
  JsonArray *workloads = json_array_new ();
  JsonArray *bps = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (o, "tool", "Blueprint Workbench");
  json_object_set_string_member (o, "tool_version", PACKAGE_VERSION);
  json_object_set_string_member (o, "study_sha256", study_hash);
  for (guint i = 0; i < bpw_study_get_n_workloads (b->study); i++)
    {
      const BpwStudyWorkload *w = bpw_study_get_workload (b->study, i);
      g_autofree char *json = bpw_workload_to_json (&w->spec);
      g_autofree char *hash = bpw_review_sha256 (json);
      JsonObject *wo = json_object_new ();

      json_object_set_string_member (wo, "name", w->name);
      json_object_set_string_member (wo, "sha256", hash);
      json_array_add_object_element (workloads, wo);
    }
  json_object_set_array_member (o, "workloads", workloads);
  for (guint i = 0; blueprints != NULL && blueprints[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwBlueprint) bp = bpw_study_load_blueprint (b->study, blueprints[i], &error);
      JsonObject *bo = json_object_new ();

      json_object_set_string_member (bo, "name", blueprints[i]);
      if (bp != NULL)
        {
          g_autofree char *json = bpw_blueprint_to_json (bp);
          g_autofree char *hash = bpw_review_sha256 (json);

          json_object_set_string_member (bo, "sha256", hash);
          bpw_review_set_recorded (bo, "origin", bp->origin);
        }
      else
        json_object_set_string_member (bo, "error", error->message);
      json_array_add_object_element (bps, bo);
    }
  json_object_set_array_member (o, "blueprints", bps);
  json_object_set_array_member (o, "measured_runs", bpw_review_measured_runs (b->study));
  json_node_take_object (node, o);
  return node;
}
