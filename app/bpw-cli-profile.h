/* bpw-cli-profile.h — what the `bpw profile` subcommands share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-calibrate.h"
#include "bpw-cli-options.h"
#include "bpw-cli-setup.h"
#include "bpw-correlate.h"
#include "bpw-json-writer.h"
#include "bpw-measurement-pack.h"
#include "bpw-profile.h"
#include "bpw-simulation.h"

G_BEGIN_DECLS

/* A simulated step of MODEL on a blueprint and the profiles correlated with it. */
typedef struct
{
  BpwCliSetup     setup;
  gboolean        loaded;        /* setup needs clearing */
  BpwPlan        *plan;          /* owned */
  BpwSimulation  *sim;           /* owned */
  GPtrArray      *profiles;      /* BpwProfile, owned */
  GPtrArray      *correlations;  /* BpwCorrelation, owned, one per profile */
} BpwCliProfileRun;

/* Options of correlate, calibrate and report. */
typedef struct
{
  BpwCliOptions  options;
  char          *blueprint;
  char         **profiles;
  gint           device;
  gint           rank;
  gboolean       ignore_lineage;
  gboolean       concurrent_engines;
  gboolean       json;
} BpwCliProfileArgs;

void      bpw_cli_profile_args_init  (BpwCliProfileArgs *args);
void      bpw_cli_profile_args_clear (BpwCliProfileArgs *args);
/* Adds --blueprint, --profile, --device, --rank, --ignore-lineage, --concurrent-engines,
 * --json and the scenario, parallel and mapping options to @context. */
void      bpw_cli_profile_args_add   (BpwCliProfileArgs *args,
                                      GOptionContext    *context);

/* Binds and simulates MODEL on @blueprint (args->blueprint when NULL) and correlates every
 * profile of @args with the step. */
gboolean  bpw_cli_profile_run        (BpwCliProfileRun        *run,
                                      const char              *model,
                                      const char              *blueprint,
                                      const BpwCliProfileArgs *args,
                                      GError                 **error);
void      bpw_cli_profile_run_clear  (BpwCliProfileRun        *run);

int       bpw_cli_profile_calibrate  (int argc, char **argv);
int       bpw_cli_profile_report     (int argc, char **argv);
/* With a measurement pack (bpw-cli-profile-packfit.c): the blueprint calibrated for its
 * device and stack, refused when it predicts the pack's runs worse out of sample; and the
 * runs predicted before, after and leave-one-run-out. */
int       bpw_cli_profile_calibrate_pack (const char *pack,
                                          const char *blueprint,
                                          const char *output,
                                          const char *name,
                                          gboolean    json);
int       bpw_cli_profile_report_pack    (const char *pack,
                                          const char *blueprint,
                                          const char *calibrated,
                                          gboolean    json);

/* Measurement packs (bpw-cli-profile-pack.c): whether @path is one, judged by its first
 * bytes, and what `profile import` prints of it. */
gboolean  bpw_cli_profile_is_pack    (const char               *path);
void      bpw_cli_profile_pack_text  (GString                  *out,
                                      const BpwMeasurementPack *pack);
void      bpw_cli_profile_pack_json  (BpwJsonWriter            *w,
                                      const BpwMeasurementPack *pack);

G_END_DECLS
