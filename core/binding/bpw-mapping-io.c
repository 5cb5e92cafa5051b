/* bpw-mapping-io.c — the native mapping format ("format": "bpw-mapping", version 1)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * {
 *   "format": "bpw-mapping", "version": 1, "name": "...", "description": "...",
 *   "parallel": { "tp": 8, "pp": 8, "dp": 16, "ep": 1, "sp": true, "zero": 1,
 *                 "schedule": "gpipe" | "1f1b" | "interleaved" | "zb-h1", "interleave": 1,
 *                 one of "pp_split": "auto" | "even" | "balanced", "pp_lighter": K,
 *                 "pp_layers": [ layers per stage or virtual stage ],
 *                 "cp": 1, "cp_algorithm": "ring" | "allgather" },   cp and cp_algorithm
 *                                                     are written only when not 1 / "ring"
 *   "micro_batch": 1 | "auto",                       "auto": the scenario's
 *   "recompute": "none" | "selective" | "full" | "auto",   "auto": the scenario's
 *   "tiers": { "tp": 0, "pp": 1, "dp": 1, "ep": 1, "cp": 1 },  tier index, or "auto": the innermost
 *                                                     tier that holds the group
 *   "collective_algorithms": ["in-network", "ring"],  entry i for tier i: "auto" (the
 *                                                     cheapest the tier offers), "ring",
 *                                                     "tree", "in-network", "direct";
 *                                                     tiers past the list are "auto"
 *   "fusion": ["attention", "bias_activation", "norm_residual", "optimizer"],  [] = none,
 *             or "auto": the blueprint's (bpw_mapping_resolve_fusion())
 *   "tiling": "auto" | { "m": 128, "n": 128, "k": 64 },
 *   "engines": { "matmul": 0, "softmax": "auto", ... },        keys: bpw_primitive_to_string()
 *   "placement": { "optimizer_state": "host", "weight": 2, ... },
 *                  keys: bpw_tensor_kind_to_string(); values: a memory level index,
 *                  "device" (device memory, the default) or "host" (the host level)
 *   "overlap": { "dp": true, "tp": "none" | "ring" | "pipe" },
 *   "sp_gather_again": false,
 *   "precision": "scenario" | { "mlp": { "format": "fp8-e4m3", "scaling": "per-block",
 *                                        "block": 128, "keep_bf16": false,
 *                                        "sparsity": "2:4" }, ... }
 *                classes: bpw_matmul_class_to_string(); bpw-precision-policy.h
 * }
 *
 * Every member is optional; absent ones keep the value they had (the defaults of
 * bpw_mapping_init_defaults() for a plain load). A mapping file knows no blueprint, so
 * tiers, engines and memory levels are indices; a study candidate's mapping, read with
 * its blueprint, may name them. Unknown members of the fixed-shape objects are warnings;
 * unknown keys of "engines" and "placement" are errors, since they would silently leave
 * a primitive or tensor where the user did not mean it to be.
 */
#define G_LOG_DOMAIN "bpw-mapping-io"

#include "config.h"

#include <string.h>

#include "bpw-i18n.h"
#include "bpw-mapping-private.h"
#include "bpw-error.h"
#include "bpw-json-writer.h"

static gboolean
load_doc (BpwJsonDoc         *doc,
          const BpwBlueprint *blueprint,
          gboolean            names_later,
          BpwMapping         *mapping,
          GPtrArray          *warnings,
          GError            **error)
{
  JsonNode *root = bpw_json_doc_get_root (doc);
  JsonObject *object;
  JsonNode *format;
  gint64 version = 0;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_autofree char *got = bpw_json_doc_describe_node (root);

      return bpw_json_doc_error (doc, root, "", error, _("expected a bpw-mapping object, got %s"),
                                 got);
    }
  object = json_node_get_object (root);
  format = json_object_get_member (object, "format");
  if (format == NULL)
    return bpw_json_doc_error (doc, root, "", error, _("not a mapping file: expected "
                               "\"format\": \"bpw-mapping\""));
  if (!JSON_NODE_HOLDS_VALUE (format) || json_node_get_value_type (format) != G_TYPE_STRING
      || strcmp (json_node_get_string (format), "bpw-mapping") != 0)
    {
      g_autofree char *got = bpw_json_doc_describe_node (format);

      return bpw_json_doc_error (doc, format, "format", error, _("expected \"bpw-mapping\", got "
                                 "%s; this is not a mapping file"), got);
    }
  if (!bpw_json_doc_get_int (doc, object, "", "version", TRUE, 1, G_MAXINT32, &version, error))
    return FALSE;
  if (version > BPW_MAPPING_FORMAT_VERSION)
    return bpw_json_doc_error (doc, json_object_get_member (object, "version"), "version", error,
                               _("version %" PRId64 " is newer than this program reads "
                               "(%d); update Blueprint Workbench"), version,
                               BPW_MAPPING_FORMAT_VERSION);
  return _bpw_mapping_read_file_object (doc, object, blueprint, names_later, mapping, warnings,
                                        error);
}

gboolean
bpw_mapping_load_data (const char  *filename,
                       const char  *data,
                       gssize       length,
                       BpwMapping  *mapping,
                       GPtrArray   *warnings,
                       GError     **error)
{
  g_autoptr(BpwJsonDoc) doc = NULL;
  BpwMapping tmp;

  g_return_val_if_fail (filename != NULL && data != NULL && mapping != NULL, FALSE);

  doc = bpw_json_doc_new_from_data (filename, data, length, error);
  if (doc == NULL)
    return FALSE;
  bpw_mapping_init_defaults (&tmp);
  if (!load_doc (doc, NULL, FALSE, &tmp, warnings, error))
    {
      bpw_mapping_clear (&tmp);
      return FALSE;
    }
  bpw_mapping_clear (mapping);
  *mapping = tmp;
  return TRUE;
}

gboolean
bpw_mapping_load (const char  *path,
                  BpwMapping  *mapping,
                  GPtrArray   *warnings,
                  GError     **error)
{
  g_autoptr(BpwJsonDoc) doc = NULL;
  BpwMapping tmp;

  g_return_val_if_fail (path != NULL && mapping != NULL, FALSE);

  doc = bpw_json_doc_new_from_file (path, error);
  if (doc == NULL)
    return FALSE;
  bpw_mapping_init_defaults (&tmp);
  if (!load_doc (doc, NULL, FALSE, &tmp, warnings, error))
    {
      bpw_mapping_clear (&tmp);
      return FALSE;
    }
  bpw_mapping_clear (mapping);
  *mapping = tmp;
  return TRUE;
}

/* @names_later: without @blueprint, a memory level, engine or tier given by name is
 * accepted unchecked for a later reading against the blueprint (bpw_mapping_load_over_for
 * with none), rather than refused. */
static gboolean
load_file (const char         *path,
           const BpwBlueprint *blueprint,
           gboolean            names_later,
           BpwMapping         *mapping,
           GPtrArray          *warnings,
           GError            **error)
{
  g_autoptr(BpwJsonDoc) doc = NULL;

  g_return_val_if_fail (path != NULL && mapping != NULL, FALSE);

  doc = bpw_json_doc_new_from_file (path, error);
  if (doc == NULL)
    return FALSE;
  return load_doc (doc, blueprint, names_later, mapping, warnings, error);
}

gboolean
bpw_mapping_load_over (const char  *path,
                       BpwMapping  *mapping,
                       GPtrArray   *warnings,
                       GError     **error)
{
  return load_file (path, NULL, FALSE, mapping, warnings, error);
}

gboolean
bpw_mapping_load_over_for (const char         *path,
                           const BpwBlueprint *blueprint,
                           BpwMapping         *mapping,
                           GPtrArray          *warnings,
                           GError            **error)
{
  return load_file (path, blueprint, blueprint == NULL, mapping, warnings, error);
}

/* A reference as the reader takes it back: -1 as @minus_one, the host as "host". */
static void
write_ref (BpwJsonWriter *w,
           const char    *key,
           gint           value,
           const char    *minus_one)
{
  if (value == -1)
    bpw_json_writer_string (w, key, minus_one);
  else if (value == BPW_PLACEMENT_HOST)
    bpw_json_writer_string (w, key, "host");
  else
    bpw_json_writer_int (w, key, value);
}

static void
write_precision (BpwJsonWriter            *w,
                 const BpwPrecisionPolicy *policy)
{
  if (!policy->set)
    {
      bpw_json_writer_string (w, "precision", "scenario");
      return;
    }
  bpw_json_writer_begin_object (w, "precision");
  for (guint c = 0; c < BPW_N_POLICY_CLASSES; c++)
    {
      const BpwClassPrecision *p = &policy->classes[c];

      bpw_json_writer_begin_object (w, bpw_matmul_class_to_string ((BpwMatmulClass) c));
      bpw_json_writer_string (w, "format", p->format == BPW_NUMBER_FORMAT_DEFAULT
                                           ? "scenario" : bpw_number_format_to_string (p->format));
      bpw_json_writer_string (w, "scaling", bpw_scaling_to_string (p->scaling));
      if (p->scaling == BPW_SCALING_PER_BLOCK)
        bpw_json_writer_int (w, "block", p->block);
      bpw_json_writer_bool (w, "keep_bf16", p->keep_bf16);
      bpw_json_writer_string (w, "sparsity", p->sparse_2_4 ? "2:4" : "dense");
      if (p->weights != BPW_WEIGHT_FORMAT_NATIVE)
        {
          bpw_json_writer_string (w, "weights", bpw_weight_format_to_string (p->weights));
          bpw_json_writer_int (w, "group", p->group);
        }
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_object (w);
}

char *
bpw_mapping_to_json (const BpwMapping *m)
{
  const BpwParallel *p;
  BpwJsonWriter w;
  guint n_algorithms = 0;

  g_return_val_if_fail (m != NULL, NULL);
  p = &m->parallel;

  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_begin_object (&w, NULL);
  bpw_json_writer_string (&w, "format", "bpw-mapping");
  bpw_json_writer_int (&w, "version", BPW_MAPPING_FORMAT_VERSION);
  if (m->name != NULL)
    bpw_json_writer_string (&w, "name", m->name);

  bpw_json_writer_begin_object (&w, "parallel");
  /* "sp" without a tensor-parallel group waits for one given elsewhere (the reader takes it
   * only so); writing that "tp" of 1 would make the file contradict itself when read back. */
  if (!(p->sp && p->tp == 1))
    bpw_json_writer_int (&w, "tp", p->tp);
  bpw_json_writer_int (&w, "pp", p->pp);
  bpw_json_writer_int (&w, "dp", p->dp);
  bpw_json_writer_int (&w, "ep", p->ep);
  bpw_json_writer_bool (&w, "sp", p->sp);
  bpw_json_writer_int (&w, "zero", p->zero);
  bpw_json_writer_string (&w, "schedule", bpw_schedule_to_string (p->schedule));
  bpw_json_writer_int (&w, "interleave", p->interleave);
  /* Context parallelism only when used, so that mappings without it read as before; its
   * algorithm with it, so that a searched mapping says which one won. */
  if (p->cp != 1)
    bpw_json_writer_int (&w, "cp", p->cp);
  if (p->cp != 1 || p->cp_algorithm != BPW_CP_RING)
    bpw_json_writer_string (&w, "cp_algorithm", bpw_cp_algorithm_to_string (p->cp_algorithm));
  switch (p->pp_split)
    {
    case BPW_PP_SPLIT_EXPLICIT:
      bpw_json_writer_begin_array (&w, "pp_layers");
      for (gint32 i = 0; i < p->n_stage_layers; i++)
        bpw_json_writer_int (&w, NULL, p->stage_layers[i]);
      bpw_json_writer_end_array (&w);
      break;
    case BPW_PP_SPLIT_LIGHTER:
      bpw_json_writer_int (&w, "pp_lighter", p->pp_lighter);
      break;
    case BPW_PP_SPLIT_EVEN:
      bpw_json_writer_string (&w, "pp_split", "even");
      break;
    case BPW_PP_SPLIT_BALANCED:
      bpw_json_writer_string (&w, "pp_split", "balanced");
      break;
    case BPW_PP_SPLIT_AUTO:
    default:
      /* The default, left out so that files of even pipelines read as before. */
      break;
    }
  bpw_json_writer_end_object (&w);

  if (m->micro_batch > 0)
    bpw_json_writer_int (&w, "micro_batch", m->micro_batch);
  else
    bpw_json_writer_string (&w, "micro_batch", "auto");
  bpw_json_writer_string (&w, "recompute", m->recompute < 0 ? "auto"
                          : bpw_recompute_to_string ((BpwRecompute) m->recompute));

  bpw_json_writer_begin_object (&w, "tiers");
  for (guint g = 0; g < BPW_N_GROUPS; g++)
    if (g != BPW_GROUP_CP || m->tier[g] >= 0)
      write_ref (&w, bpw_group_to_string ((BpwGroupKind) g), m->tier[g], "auto");
  bpw_json_writer_end_object (&w);

  /* Trailing "auto" entries are what the reader assumes for tiers past the list. */
  for (guint t = 0; t < BPW_MAPPING_MAX_TIERS; t++)
    if (m->algorithm[t] != 0)
      n_algorithms = t + 1;
  bpw_json_writer_begin_array (&w, "collective_algorithms");
  for (guint t = 0; t < n_algorithms; t++)
    bpw_json_writer_string (&w, NULL, m->algorithm[t] == 0 ? "auto"
                            : bpw_collective_algo_to_string (m->algorithm[t]));
  bpw_json_writer_end_array (&w);

  if (m->fusion == BPW_FUSION_AUTOMATIC)
    bpw_json_writer_string (&w, "fusion", "auto");
  else
    {
      bpw_json_writer_begin_array (&w, "fusion");
      for (guint i = 0; i < BPW_N_FUSIONS; i++)
        if (m->fusion & (1u << i))
          bpw_json_writer_string (&w, NULL, bpw_fusion_to_string ((BpwFusion) (1u << i)));
      bpw_json_writer_end_array (&w);
    }

  if (m->tiling.automatic)
    {
      bpw_json_writer_string (&w, "tiling", "auto");
    }
  else
    {
      bpw_json_writer_begin_object (&w, "tiling");
      bpw_json_writer_int (&w, "m", m->tiling.m);
      bpw_json_writer_int (&w, "n", m->tiling.n);
      bpw_json_writer_int (&w, "k", m->tiling.k);
      bpw_json_writer_end_object (&w);
    }

  bpw_json_writer_begin_object (&w, "engines");
  for (guint i = 0; i < BPW_N_PRIMITIVES; i++)
    write_ref (&w, bpw_primitive_to_string ((BpwPrimitive) i), m->engine[i], "auto");
  bpw_json_writer_end_object (&w);

  bpw_json_writer_begin_object (&w, "placement");
  for (guint i = 0; i < BPW_N_TENSOR_KINDS; i++)
    write_ref (&w, bpw_tensor_kind_to_string ((BpwTensorKind) i), m->placement[i], "device");
  bpw_json_writer_end_object (&w);

  bpw_json_writer_begin_object (&w, "overlap");
  bpw_json_writer_bool (&w, "dp", m->dp_overlap);
  bpw_json_writer_string (&w, "tp", bpw_tp_overlap_to_string (m->tp_overlap));
  bpw_json_writer_end_object (&w);
  bpw_json_writer_bool (&w, "sp_gather_again", m->sp_gather_again);
  write_precision (&w, &m->precision);
  bpw_json_writer_end_object (&w);
  return bpw_json_writer_finish (&w);
}
