/* bpw-review-packet.c — the packet built section by section, and its JSON
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-review"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-json-writer.h"
#include "bpw-review-document.h"
#include "bpw-review-private.h"

struct _BpwReviewPacket
{
  JsonNode          *root;
  BpwReviewDecision  decision;
  BpwReviewWork      work;
};

void
bpw_review_options_init (BpwReviewOptions *options)
{
  *options = (BpwReviewOptions) { .mitigations = TRUE, .validation = TRUE,
                                  .max_micro_batch = BPW_REVIEW_MAX_MICRO_BATCH };
}

const char *
bpw_review_decision_to_string (BpwReviewDecision decision)
{
  switch (decision)
    {
    case BPW_REVIEW_GO:
      return "go";
    case BPW_REVIEW_CONDITIONAL:
      return "conditional";
    case BPW_REVIEW_NO_GO:
    default:
      return "no-go";
    }
}

void
_bpw_review_set_double (JsonObject *object,
                        const char *member,
                        double      value)
{
  if (isfinite (value))
    json_object_set_double_member (object, member, value);
  else
    json_object_set_null_member (object, member);
}

void
_bpw_review_reject (BpwReviewBuild *b,
                    const char     *kind,
                    const char     *alternative,
                    const char     *reason)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "kind", kind);
  json_object_set_string_member (o, "alternative", alternative);
  json_object_set_string_member (o, "reason", reason);
  json_array_add_object_element (b->rejected, o);
}

const char *
_bpw_review_dtype_mode (BpwDType dtype)
{
  /* The reference precisions are 16 bits and above; below that a mode needs evidence. */
  return dtype == BPW_DTYPE_FP8 ? bpw_dtype_to_string (dtype) : NULL;
}

const BpwCompareSuite *
_bpw_review_suite (BpwReviewBuild *b)
{
  return bpw_comparison_get_n_suites (b->cmp) > 0 ? bpw_comparison_get_suite (b->cmp, 0)
                                                  : NULL;
}

static void
bpw_review_build_clear (BpwReviewBuild *b)
{
  g_clear_object (&b->counted);
  g_clear_pointer (&b->cmp, bpw_comparison_free);
  g_clear_pointer (&b->given, bpw_comparison_free);
  g_clear_pointer (&b->calibration, bpw_study_calibration_free);
  g_clear_pointer (&b->uncounted, g_ptr_array_unref);
  g_clear_pointer (&b->tolerance_source, g_free);
  g_clear_pointer (&b->mitigations, json_array_unref);
  g_clear_pointer (&b->rejected, json_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (BpwReviewBuild, bpw_review_build_clear)

static gboolean
bpw_review_find_baseline (BpwReviewBuild  *b,
                          GError         **error)
{
  if (b->options->baseline == NULL)
    return TRUE;
  for (guint c = 0; c < bpw_study_get_n_candidates (b->study); c++)
    if (g_strcmp0 (bpw_study_get_candidate (b->study, c)->name, b->options->baseline) == 0)
      {
        b->baseline = c;
        return TRUE;
      }
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
               _("The study has no candidate “%s”."), b->options->baseline);
  return FALSE;
}

BpwReviewPacket *
bpw_review_packet_new (BpwStudy               *study,
                       const BpwReviewOptions *options,
                       GCancellable           *cancellable,
                       GError                **error)
{
  g_auto(BpwReviewBuild) b = { .study = study, .cancellable = cancellable, .best = -1,
                               .tolerance = NAN };
  BpwReviewOptions defaults;
  JsonNode *metadata, *thresholds, *precision, *candidates, *baseline, *bottlenecks;
  JsonNode *recommendation, *validation, *owners;
  BpwReviewDecision decision;
  BpwReviewPacket *packet;
  JsonObject *root;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);

  if (options == NULL)
    {
      bpw_review_options_init (&defaults);
      options = &defaults;
    }
  b.options = options;
  if (!bpw_review_find_baseline (&b, error))
    return NULL;
  precision = _bpw_review_precision (&b, error);
  if (precision == NULL)
    return NULL;
  thresholds = _bpw_review_thresholds (&b);
  metadata = _bpw_review_metadata (&b);
  baseline = _bpw_review_baseline (&b);
  candidates = _bpw_review_candidates (&b);
  bottlenecks = _bpw_review_bottlenecks (&b);
  b.rejected = json_array_new ();
  recommendation = _bpw_review_decision (&b, &decision);
  b.mitigations = json_array_new ();
  if (!_bpw_review_mitigations (&b, error))
    {
      json_node_unref (precision);
      json_node_unref (thresholds);
      json_node_unref (metadata);
      json_node_unref (baseline);
      json_node_unref (candidates);
      json_node_unref (bottlenecks);
      json_node_unref (recommendation);
      return NULL;
    }
  if (options->validation)
    _bpw_review_tolerance (&b);
  validation = _bpw_review_validation (&b);
  owners = _bpw_review_owners (&b);

  packet = g_new0 (BpwReviewPacket, 1);
  packet->decision = decision;
  packet->work = b.work;
  packet->root = json_node_new (JSON_NODE_OBJECT);
  root = json_object_new ();
  json_object_set_string_member (root, "format", "bpw-review-packet");
  json_object_set_int_member (root, "version", 1);
  json_object_set_string_member (root, "study", bpw_study_get_name (study));
  json_object_set_member (root, "metadata", metadata);
  json_object_set_member (root, "quality_thresholds", thresholds);
  json_object_set_member (root, "precision_modes", precision);
  json_object_set_member (root, "baseline", baseline);
  json_object_set_member (root, "candidates", candidates);
  json_object_set_member (root, "bottleneck_evidence", bottlenecks);
  json_object_set_array_member (root, "mitigations", g_steal_pointer (&b.mitigations));
  json_object_set_array_member (root, "rejected_alternatives", g_steal_pointer (&b.rejected));
  json_object_set_member (root, "validation_matrix", validation);
  json_object_set_member (root, "owners", owners);
  json_object_set_member (root, "recommendation", recommendation);
  json_node_take_object (packet->root, root);
  return packet;
}

void
bpw_review_packet_free (BpwReviewPacket *packet)
{
  if (packet == NULL)
    return;
  json_node_unref (packet->root);
  g_free (packet);
}

JsonObject *
bpw_review_packet_get_root (BpwReviewPacket *packet)
{
  g_return_val_if_fail (packet != NULL, NULL);
  return json_node_get_object (packet->root);
}

BpwReviewDecision
bpw_review_packet_get_decision (BpwReviewPacket *packet)
{
  g_return_val_if_fail (packet != NULL, BPW_REVIEW_NO_GO);
  return packet->decision;
}

void
bpw_review_packet_get_work (BpwReviewPacket *packet,
                            BpwReviewWork   *work)
{
  g_return_if_fail (packet != NULL && work != NULL);
  *work = packet->work;
}

char *
bpw_review_packet_to_json (BpwReviewPacket *packet)
{
  BpwJsonWriter w;
  g_autofree char *text = NULL;

  g_return_val_if_fail (packet != NULL, NULL);
  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_node (&w, NULL, packet->root);
  text = bpw_json_writer_finish (&w);
  return g_strconcat (text, "\n", NULL);
}

char *
bpw_review_packet_to_markdown (BpwReviewPacket *packet)
{
  g_autoptr(BpwReviewDocument) doc = NULL;

  g_return_val_if_fail (packet != NULL, NULL);
  doc = bpw_review_document_new (packet);
  return bpw_review_document_to_markdown (doc);
}
