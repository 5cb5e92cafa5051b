/* bpw-cli-check.c — `bpw check FILE...`: validate inputs of every kind
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-check"

#include "config.h"

#include "bpw-cli.h"
#include "bpw-cli-print.h"

#include "bpw-blueprint-calibration.h"
#include "bpw-blueprint-io.h"
#include "bpw-error.h"
#include "bpw-file.h"
#include "bpw-json-doc.h"
#include "bpw-mapping.h"
#include "bpw-measurement-pack.h"
#include "bpw-profile.h"
#include "bpw-study.h"
#include "bpw-workload-io.h"

typedef enum
{
  BPW_CLI_KIND_UNKNOWN,
  BPW_CLI_KIND_WORKLOAD,
  BPW_CLI_KIND_BLUEPRINT,
  BPW_CLI_KIND_EXECUTION,
  BPW_CLI_KIND_STUDY,
  BPW_CLI_KIND_MAPPING,
  BPW_CLI_KIND_PROFILE,
  BPW_CLI_KIND_MEASUREMENT_PACK,
} BpwCliKind;

/* TRUE when @root is an object whose "format" is the string @format. */
static gboolean
bpw_cli_check_has_format (JsonNode   *root,
                          const char *format_name)
{
  JsonObject *object;
  JsonNode *format;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return FALSE;
  object = json_node_get_object (root);
  format = json_object_get_member (object, "format");
  return format != NULL && JSON_NODE_HOLDS_VALUE (format) &&
         json_node_get_value_type (format) == G_TYPE_STRING &&
         g_strcmp0 (json_node_get_string (format), format_name) == 0;
}

/* Decides by content, as the loaders do; the order matters only for files that would
 * match two detectors, and none of the known formats do. */
static BpwCliKind
bpw_cli_check_detect (JsonNode *root)
{
  if (bpw_cli_check_has_format (root, "bpw-study"))
    return BPW_CLI_KIND_STUDY;
  if (bpw_cli_check_has_format (root, "bpw-mapping"))
    return BPW_CLI_KIND_MAPPING;
  if (bpw_measurement_pack_detect (root))
    return BPW_CLI_KIND_MEASUREMENT_PACK;
  if (bpw_calculon_execution_detect (root))
    return BPW_CLI_KIND_EXECUTION;
  if (bpw_blueprint_detect_format (root) != BPW_BLUEPRINT_FORMAT_UNKNOWN)
    return BPW_CLI_KIND_BLUEPRINT;
  if (bpw_workload_detect_format (root) != BPW_WORKLOAD_FORMAT_UNKNOWN)
    return BPW_CLI_KIND_WORKLOAD;
  /* A trace: Chrome's object form, or its bare array of event objects (no other format
   * is an array; an array of anything else is of no known kind). */
  if (root != NULL && JSON_NODE_HOLDS_OBJECT (root) &&
      json_object_has_member (json_node_get_object (root), "traceEvents"))
    return BPW_CLI_KIND_PROFILE;
  if (root != NULL && JSON_NODE_HOLDS_ARRAY (root) &&
      json_array_get_length (json_node_get_array (root)) > 0 &&
      JSON_NODE_HOLDS_OBJECT (json_array_get_element (json_node_get_array (root), 0)))
    return BPW_CLI_KIND_PROFILE;
  return BPW_CLI_KIND_UNKNOWN;
}

static gboolean
bpw_cli_check_unknown (BpwJsonDoc *doc,
                       GError    **error)
{
  JsonNode *root = bpw_json_doc_get_root (doc);
  JsonObject *object = root != NULL && JSON_NODE_HOLDS_OBJECT (root)
                       ? json_node_get_object (root) : NULL;
  JsonNode *format = object != NULL ? json_object_get_member (object, "format") : NULL;

  if (format != NULL && JSON_NODE_HOLDS_VALUE (format) &&
      json_node_get_value_type (format) == G_TYPE_STRING)
    return bpw_json_doc_error (doc, format, "format", error,
                               "'%s' is not a format this version can check (expected "
                               "bpw-workload, bpw-blueprint, bpw-mapping, bpw-study or "
                               "bpw-measurement-pack)",
                               json_node_get_string (format));
  return bpw_json_doc_error (doc, root, NULL, error,
                             "not a workload, blueprint, mapping, study or Calculon file: "
                             "expected a "
                             "\"format\" member, a Hugging Face config.json, or a Calculon "
                             "model, system or execution file");
}

static const char *
bpw_cli_check_workload_kind (JsonNode *root)
{
  switch (bpw_workload_detect_format (root))
    {
    case BPW_WORKLOAD_FORMAT_NATIVE:
      return "workload";
    case BPW_WORKLOAD_FORMAT_HF:
      return "workload, Hugging Face config";
    case BPW_WORKLOAD_FORMAT_CALCULON:
      return "workload, Calculon model";
    case BPW_WORKLOAD_FORMAT_UNKNOWN:
    default:
      return "workload";
    }
}

/* A blueprint's calibration status under the equal-footing rule (bpw-blueprint-calibration.h)
 * in bf16, the precision studies run by default: the status, then each value that moves time. */
static char *
bpw_cli_check_calibration (const BpwBlueprint *bp)
{
  BpwCalibrationStatus status;
  g_auto(GStrv) lines = NULL;
  GString *out = g_string_new (NULL);
  guint precisions = 1u << BPW_PRECISION_BF16;

  bpw_blueprint_calibration_status (bp, precisions, &status);
  g_string_append_printf (out, "  calibration (bf16): %s\n", status.label);
  lines = g_strsplit (status.details, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    g_string_append_printf (out, "    %s\n", lines[i]);
  bpw_calibration_status_clear (&status);
  return g_string_free (out, FALSE);
}

/* Loads @path with the loader of its kind. On success *kind_out names what it was and
 * *notes_out (nullable) says more where the kind has more to say. */
static gboolean
bpw_cli_check_file (const char  *path,
                    GPtrArray   *warnings,
                    const char **kind_out,
                    char       **notes_out,
                    GError     **error)
{
  g_autoptr(BpwJsonDoc) doc = NULL;
  g_autofree char *data = NULL;
  gsize length = 0;
  JsonNode *root;

  /* A bundled study by name, as compare and export take it; a file of that name wins. */
  if (!g_file_test (path, G_FILE_TEST_EXISTS)
      && g_strv_contains (bpw_study_bundled_names (), path))
    {
      g_autoptr(BpwStudy) study = bpw_study_new_bundled (path, error);

      if (study == NULL || !bpw_study_check_references (study, NULL, error))
        return FALSE;
      *kind_out = "bundled study";
      return TRUE;
    }
  if (!bpw_file_read (path, BPW_FILE_MAX_INPUT_SIZE, &data, &length, error))
    return FALSE;
  doc = bpw_json_doc_new_from_data (path, data, (gssize) length, error);
  if (doc == NULL)
    return FALSE;
  root = bpw_json_doc_get_root (doc);

  switch (bpw_cli_check_detect (root))
    {
    case BPW_CLI_KIND_EXECUTION:
      {
        BpwScenario scenario;
        BpwParallel parallel;

        bpw_scenario_init_defaults (&scenario);
        bpw_parallel_init_defaults (&parallel);
        if (!bpw_calculon_execution_load_data (path, data, (gssize) length, &scenario,
                                               &parallel, NULL, warnings, error))
          return FALSE;
        bpw_scenario_clear (&scenario);
        *kind_out = "Calculon execution";
        return TRUE;
      }

    case BPW_CLI_KIND_BLUEPRINT:
      {
        g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_doc (doc, warnings, error);

        if (bp == NULL)
          return FALSE;
        *kind_out = bpw_blueprint_detect_format (root) == BPW_BLUEPRINT_FORMAT_CALCULON
                    ? "blueprint, Calculon system" : "blueprint";
        *notes_out = bpw_cli_check_calibration (bp);
        return TRUE;
      }

    case BPW_CLI_KIND_WORKLOAD:
      {
        BpwModelSpec spec;
        gboolean ok;

        bpw_model_spec_init_defaults (&spec);
        ok = bpw_workload_load_data (path, data, (gssize) length, 0, &spec, NULL, warnings,
                                     error);
        bpw_model_spec_clear (&spec);
        if (!ok)
          return FALSE;
        *kind_out = bpw_cli_check_workload_kind (root);
        return TRUE;
      }

    case BPW_CLI_KIND_MAPPING:
      {
        BpwMapping mapping;
        gboolean ok;

        bpw_mapping_init_defaults (&mapping);
        ok = bpw_mapping_load_data (path, data, (gssize) length, &mapping, warnings, error);
        bpw_mapping_clear (&mapping);
        if (!ok)
          return FALSE;
        *kind_out = "mapping";
        return TRUE;
      }

    case BPW_CLI_KIND_STUDY:
      {
        g_autoptr(BpwStudy) study = NULL;
        GPtrArray *study_warnings;

        /* From the path, not the data: relative model paths resolve against its folder. */
        study = bpw_study_new_from_file (path, error);
        if (study == NULL || !bpw_study_check_references (study, doc, error))
          return FALSE;
        study_warnings = bpw_study_get_warnings (study);
        for (guint i = 0; study_warnings != NULL && i < study_warnings->len; i++)
          g_ptr_array_add (warnings, g_strdup (g_ptr_array_index (study_warnings, i)));
        *kind_out = "study";
        return TRUE;
      }

    case BPW_CLI_KIND_PROFILE:
      {
        g_autoptr(BpwProfile) profile = bpw_profile_load_doc (doc, error);

        if (profile == NULL)
          return FALSE;
        for (guint i = 0; i < profile->warnings->len; i++)
          g_ptr_array_add (warnings, g_strdup_printf ("%s: %s", path, (const char *)
                                                      g_ptr_array_index (profile->warnings, i)));
        *kind_out = "profile trace";
        return TRUE;
      }

    case BPW_CLI_KIND_MEASUREMENT_PACK:
      {
        /* From the path: runs' traces and models resolve against its folder. */
        g_autoptr(BpwMeasurementPack) pack = bpw_measurement_pack_load_file (path, warnings,
                                                                             error);

        if (pack == NULL)
          return FALSE;
        *kind_out = "measurement pack";
        return TRUE;
      }

    case BPW_CLI_KIND_UNKNOWN:
    default:
      return bpw_cli_check_unknown (doc, error);
    }
}

int
bpw_cli_check (int    argc,
               char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  int status = BPW_CLI_EXIT_OK;

  g_set_prgname ("bpw check");
  context = g_option_context_new ("FILE...");
  g_option_context_set_summary (context,
                                "Validate study, workload (native, Hugging Face config.json, "
                                "Calculon model),\nblueprint (native, Calculon system), mapping "
                                "and Calculon execution files, profile traces\n(Chrome "
                                "trace events, PyTorch profiler) and measurement packs.\n"
                                "A bundled study can be named instead of a file.\n"
                                "Prints \"FILE: ok (kind)\" for each valid file and the located "
                                "error for each\ninvalid one; exits 0 only if every file is "
                                "valid.");
  if (!bpw_cli_parse (context, &argc, &argv, &error))
    return bpw_cli_report_error ("check", error);
  if (argc < 2)
    return bpw_cli_usage ("check", "check: missing FILE");

  for (int i = 1; i < argc; i++)
    {
      g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GError) file_error = NULL;
      const char *kind = NULL;
      g_autofree char *notes = NULL;

      if (!bpw_cli_check_file (argv[i], warnings, &kind, &notes, &file_error))
        {
          bpw_cli_print (stderr, "bpw: %s\n", file_error->message);
          status = BPW_CLI_EXIT_INVALID_INPUT;
          continue;
        }
      /* Unknown fields do not make a file invalid, but they are usually typos. */
      for (guint w = 0; w < warnings->len; w++)
        bpw_cli_print (stderr, "bpw: warning: %s\n",
                       (const char *) g_ptr_array_index (warnings, w));
      bpw_cli_print (stdout, "%s: ok (%s)\n", argv[i], kind);
      if (notes != NULL)
        bpw_cli_print (stdout, "%s", notes);
    }
  return status;
}
