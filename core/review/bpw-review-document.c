/* bpw-review-document.c — the packet's sections, and their Markdown
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-review"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-i18n.h"
#include "bpw-quantity.h"
#include "bpw-review-document.h"

static void
bpw_review_block_free (gpointer data)
{
  BpwReviewBlock *block = data;

  g_free (block->text);
  g_clear_pointer (&block->cells, g_ptr_array_unref);
  g_free (block);
}

static void
bpw_review_section_free (gpointer data)
{
  BpwReviewSection *section = data;

  g_free (section->title);
  g_ptr_array_unref (section->blocks);
  g_free (section);
}

void
bpw_review_document_free (BpwReviewDocument *doc)
{
  if (doc == NULL)
    return;
  g_free (doc->title);
  g_ptr_array_unref (doc->sections);
  g_free (doc);
}

static BpwReviewSection *
bpw_review_section (BpwReviewDocument *doc,
                    const char        *title)
{
  BpwReviewSection *section = g_new0 (BpwReviewSection, 1);

  section->title = g_strdup (title);
  section->blocks = g_ptr_array_new_with_free_func (bpw_review_block_free);
  g_ptr_array_add (doc->sections, section);
  return section;
}

static void
bpw_review_paragraph (BpwReviewSection *section,
                      char             *text)  /* taken */
{
  BpwReviewBlock *block = g_new0 (BpwReviewBlock, 1);

  block->kind = BPW_REVIEW_BLOCK_PARAGRAPH;
  block->text = text;
  g_ptr_array_add (section->blocks, block);
}

/* A table with the @n headers of @header (NULL-terminated); rows are added with
 * bpw_review_cell(). */
static BpwReviewBlock *
bpw_review_table (BpwReviewSection   *section,
                  const char * const *header)
{
  BpwReviewBlock *block = g_new0 (BpwReviewBlock, 1);

  block->kind = BPW_REVIEW_BLOCK_TABLE;
  block->cells = g_ptr_array_new_with_free_func (g_free);
  for (; *header != NULL; header++, block->n_columns++)
    g_ptr_array_add (block->cells, g_strdup (*header));
  g_ptr_array_add (section->blocks, block);
  return block;
}

static void
bpw_review_cell (BpwReviewBlock *table,
                 char           *text)  /* taken; NULL: "—" */
{
  g_ptr_array_add (table->cells, text != NULL ? text : g_strdup ("—"));
}

/* How a number cell reads: people's figures, never exponent notation. */
typedef enum
{
  CELL_PLAIN,    /* 4 significant digits; an SI prefix outside [10^-4, 10^4) */
  CELL_SECONDS,  /* "71.17 µs" */
  CELL_BYTES,    /* "24.59 GB" */
  CELL_WATTS,    /* "+56.4 W" */
  CELL_PERCENT,  /* a fraction as "54.0 %" */
} BpwReviewCellKind;

static char *
bpw_review_number (double            value,
                   BpwReviewCellKind kind)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (value))
    return g_strdup ("—");
  switch (kind)
    {
    case CELL_SECONDS:
      return bpw_quantity_format (value, BPW_UNIT_SECONDS);
    case CELL_BYTES:
      return bpw_quantity_format (value, BPW_UNIT_BYTES);
    case CELL_WATTS:
      return g_strconcat (g_ascii_formatd (buf, sizeof buf, "%+.1f", value), " W", NULL);
    case CELL_PERCENT:
      return g_strconcat (g_ascii_formatd (buf, sizeof buf, "%.1f", 100 * value), " %", NULL);
    case CELL_PLAIN:
    default:
      if (value != 0 && (fabs (value) < 1e-4 || fabs (value) >= 1e4))
        return bpw_quantity_format (value, BPW_UNIT_NONE);
      return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.4g", value));
    }
}

/* Member @member of @o as a cell: strings as they are, numbers as bpw_review_number(),
 * booleans yes/no, null "—". */
static char *
bpw_review_member_as (JsonObject        *o,
                      const char        *member,
                      BpwReviewCellKind  kind)
{
  JsonNode *node = json_object_get_member (o, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("—");
  if (!JSON_NODE_HOLDS_VALUE (node))
    return g_strdup ("—");
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_STRING:
      return g_strdup (json_node_get_string (node));
    case G_TYPE_BOOLEAN:
      return g_strdup (json_node_get_boolean (node) ? _("yes") : _("no"));
    case G_TYPE_INT64:
      return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
    default:
      return bpw_review_number (json_node_get_double (node), kind);
    }
}

static char *
bpw_review_member (JsonObject *o,
                   const char *member)
{
  return bpw_review_member_as (o, member, CELL_PLAIN);
}

static char *
bpw_review_percent (JsonObject *o,
                    const char *member)
{
  JsonNode *node = json_object_get_member (o, member);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return g_strdup ("—");
  return g_strconcat (g_ascii_formatd (buf, sizeof buf, "%+.2f",
                                       100 * json_node_get_double (node)), " %", NULL);
}

/* A table under @header for @array's rows, or NULL and the paragraph @empty when
 * @array has none. */
static BpwReviewBlock *
bpw_review_table_or_empty (BpwReviewSection   *section,
                           JsonArray          *array,
                           const char * const *header,
                           const char         *empty)
{
  if (json_array_get_length (array) == 0)
    {
      bpw_review_paragraph (section, g_strdup (empty));
      return NULL;
    }
  return bpw_review_table (section, header);
}

/* A table of @array's objects, one column per @members entry under @header. */
static void
bpw_review_rows (BpwReviewSection   *section,
                 JsonArray          *array,
                 const char * const *header,
                 const char * const *members,
                 const char         *empty)
{
  BpwReviewBlock *table = bpw_review_table_or_empty (section, array, header, empty);

  if (table == NULL)
    return;
  for (guint i = 0; i < json_array_get_length (array); i++)
    for (guint k = 0; members[k] != NULL; k++)
      bpw_review_cell (table, bpw_review_member (json_array_get_object_element (array, i),
                                                 members[k]));
}

static void
bpw_review_metadata_section (BpwReviewDocument *doc,
                             JsonObject        *root)
{
  JsonObject *meta = json_object_get_object_member (root, "metadata");
  BpwReviewSection *section = bpw_review_section (doc, _("Metadata"));
  const char *input_header[] = { _("Input"), _("Name"), "SHA-256", NULL };
  const char *run_header[] = { _("Measurement"), _("Candidate"), _("Scenario"), _("Device"),
                               _("Driver"), _("Runtime"), _("Framework"), _("Compiler"),
                               _("Firmware"), _("Power mode"), NULL };
  const char *run_members[] = { "measurement", "candidate", "scenario", "device", "driver",
                                "runtime", "framework", "compiler", "firmware", "power_mode",
                                NULL };
  JsonArray *workloads = json_object_get_array_member (meta, "workloads");
  JsonArray *blueprints = json_object_get_array_member (meta, "blueprints");
  BpwReviewBlock *inputs;

  bpw_review_paragraph (section, g_strdup_printf (_("%s %s; study SHA-256 %s."),
                                                  json_object_get_string_member (meta, "tool"),
                                                  json_object_get_string_member (meta,
                                                                                 "tool_version"),
                                                  json_object_get_string_member (meta,
                                                                                 "study_sha256")));
  inputs = bpw_review_table (section, input_header);
  for (guint i = 0; i < json_array_get_length (workloads); i++)
    {
      JsonObject *w = json_array_get_object_element (workloads, i);

      bpw_review_cell (inputs, g_strdup (_("workload")));
      bpw_review_cell (inputs, bpw_review_member (w, "name"));
      bpw_review_cell (inputs, bpw_review_member (w, "sha256"));
    }
  for (guint i = 0; i < json_array_get_length (blueprints); i++)
    {
      JsonObject *bp = json_array_get_object_element (blueprints, i);

      bpw_review_cell (inputs, g_strdup (_("blueprint")));
      bpw_review_cell (inputs, bpw_review_member (bp, "name"));
      bpw_review_cell (inputs, bpw_review_member (bp, json_object_has_member (bp, "sha256")
                                                      ? "sha256" : "error"));
    }
  bpw_review_rows (section, json_object_get_array_member (meta, "measured_runs"), run_header,
                   run_members, _("No measured runs: the study references no traces, so no "
                                  "device, driver, runtime, framework, compiler, firmware or "
                                  "power mode is recorded."));
}

static void
bpw_review_quality_section (BpwReviewDocument *doc,
                            JsonObject        *root)
{
  BpwReviewSection *section = bpw_review_section (doc, _("Quality thresholds and evidence"));
  const char *t_header[] = { _("Metric"), _("Max degradation"), _("Scale"), _("Better"),
                             _("Source"), NULL };
  const char *t_members[] = { "metric", "max_degradation", "scale", "better", "source", NULL };
  const char *m_header[] = { _("Mode"), _("Verdict"), _("Counted"), _("Credited by the "
                             "estimator"), NULL };
  const char *m_members[] = { "mode", "verdict", "counted", "credited_by_estimator", NULL };
  const char *e_header[] = { _("Mode"), _("Metric"), _("Value"), _("Baseline"),
                             _("Degradation"), _("Limit"), _("Within"), _("Source"), NULL };
  const char *g_header[] = { _("Mode"), _("Candidate"), _("Scenario"), _("Step claimed"),
                             _("Step counted"), _("Speed-up not counted"), NULL };
  JsonArray *modes = json_object_get_array_member (root, "precision_modes");
  BpwReviewBlock *evidence = NULL, *gains = NULL;

  bpw_review_rows (section, json_object_get_array_member (root, "quality_thresholds"),
                   t_header, t_members, _("The study records no quality thresholds."));
  bpw_review_rows (section, modes, m_header, m_members,
                   _("No candidate or scenario uses a reduced precision or sparsity mode."));
  for (guint i = 0; i < json_array_get_length (modes); i++)
    {
      JsonObject *m = json_array_get_object_element (modes, i);
      JsonArray *items = json_object_get_array_member (m, "evidence");
      JsonArray *uncounted = json_object_get_array_member (m, "gains_not_counted");

      for (guint k = 0; k < json_array_get_length (items); k++)
        {
          JsonObject *e = json_array_get_object_element (items, k);

          if (evidence == NULL)
            evidence = bpw_review_table (section, e_header);
          bpw_review_cell (evidence, bpw_review_member (m, "mode"));
          bpw_review_cell (evidence, bpw_review_member (e, "metric"));
          bpw_review_cell (evidence, bpw_review_member (e, "value"));
          bpw_review_cell (evidence, bpw_review_member (e, "baseline"));
          bpw_review_cell (evidence, bpw_review_member (e, "degradation"));
          bpw_review_cell (evidence, bpw_review_member (e, "max_degradation"));
          bpw_review_cell (evidence, bpw_review_member (e, "within_threshold"));
          bpw_review_cell (evidence, bpw_review_member (e, "source"));
        }
      for (guint k = 0; k < json_array_get_length (uncounted); k++)
        {
          JsonObject *g = json_array_get_object_element (uncounted, k);

          if (gains == NULL)
            gains = bpw_review_table (section, g_header);
          bpw_review_cell (gains, bpw_review_member (m, "mode"));
          bpw_review_cell (gains, bpw_review_member (g, "candidate"));
          bpw_review_cell (gains, bpw_review_member (g, "scenario"));
          bpw_review_cell (gains, bpw_review_member_as (g, "step_time_s_claimed", CELL_SECONDS));
          bpw_review_cell (gains, bpw_review_member_as (g, "step_time_s_counted", CELL_SECONDS));
          bpw_review_cell (gains, bpw_review_member (g, "speedup_not_counted"));
        }
    }
}

static void
bpw_review_strings (BpwReviewSection *section,
                    JsonArray        *array,
                    const char       *prefix)
{
  for (guint i = 0; i < json_array_get_length (array); i++)
    bpw_review_paragraph (section, g_strconcat (prefix,
                                                json_array_get_string_element (array, i),
                                                NULL));
}

static void
bpw_review_recommendation_section (BpwReviewDocument *doc,
                                   JsonObject        *root)
{
  JsonObject *rec = json_object_get_object_member (root, "recommendation");
  BpwReviewSection *section = bpw_review_section (doc, _("Recommendation"));
  g_autofree char *candidate = bpw_review_member (rec, "candidate");

  bpw_review_paragraph (section, g_strdup_printf (_("Decision: %s; candidate: %s."),
                                                  json_object_get_string_member (rec,
                                                                                 "decision"),
                                                  candidate));
  bpw_review_strings (section, json_object_get_array_member (rec, "reasons"), _("Reason: "));
  bpw_review_strings (section, json_object_get_array_member (rec, "conditions"),
                      _("Condition: "));
}

static void
bpw_review_candidates_section (BpwReviewDocument *doc,
                               JsonObject        *root)
{
  BpwReviewSection *section = bpw_review_section (doc, _("Baseline and candidates"));
  JsonObject *baseline = json_object_get_object_member (root, "baseline");
  const char *header[] = { _("Candidate"), _("Blueprint"), _("Calibration"), _("Score"),
                           _("Feasible"), _("Pareto"), NULL };
  const char *members[] = { "name", "blueprint", "calibration", "score", "feasible", "pareto",
                            NULL };

  bpw_review_paragraph (section, g_strdup_printf (_("Baseline: %s (%s), calibration %s."),
                                                  json_object_get_string_member (baseline,
                                                                                 "candidate"),
                                                  json_object_get_string_member (baseline,
                                                                                 "blueprint"),
                                                  json_object_get_string_member (baseline,
                                                                                 "calibration")));
  bpw_review_rows (section, json_object_get_array_member (root, "candidates"), header, members,
                   _("The study has no candidates."));
}

static void
bpw_review_bottleneck_section (BpwReviewDocument *doc,
                               JsonObject        *root)
{
  BpwReviewSection *section = bpw_review_section (doc, _("Bottleneck evidence"));
  JsonArray *cells = json_object_get_array_member (root, "bottleneck_evidence");
  const char *header[] = { _("Candidate"), _("Scenario"), _("Layer type"), _("Time"),
                           _("Share"), _("MFU"), _("Bottleneck"), NULL };
  BpwReviewBlock *table = bpw_review_table (section, header);

  for (guint i = 0; i < json_array_get_length (cells); i++)
    {
      JsonObject *cell = json_array_get_object_element (cells, i);
      JsonArray *layers = json_object_get_array_member (cell, "layer_types");

      for (guint l = 0; l < json_array_get_length (layers); l++)
        {
          JsonObject *lo = json_array_get_object_element (layers, l);

          bpw_review_cell (table, bpw_review_member (cell, "candidate"));
          bpw_review_cell (table, bpw_review_member (cell, "scenario"));
          bpw_review_cell (table, bpw_review_member (lo, "layer_type"));
          bpw_review_cell (table, bpw_review_member_as (lo, "time_s", CELL_SECONDS));
          bpw_review_cell (table, bpw_review_member_as (lo, "time_share", CELL_PERCENT));
          bpw_review_cell (table, bpw_review_member_as (lo, "mfu", CELL_PERCENT));
          bpw_review_cell (table, bpw_review_member (lo, "bottleneck"));
        }
    }
  for (guint i = 0; i < json_array_get_length (cells); i++)
    bpw_review_paragraph (section, g_strdup_printf (_("Chart: %s"),
                                                    json_object_get_string_member (
                                                      json_array_get_object_element (cells, i),
                                                      "chart")));
}

static void
bpw_review_mitigation_section (BpwReviewDocument *doc,
                               JsonObject        *root)
{
  BpwReviewSection *section = bpw_review_section (doc, _("Mitigations"));
  JsonArray *array = json_object_get_array_member (root, "mitigations");
  const char *header[] = { _("Kind"), _("Candidate"), _("Scenario"), _("Change"),
                           _("Predicted gain"), _("Memory cost"), _("Power cost"),
                           _("Source"), NULL };
  BpwReviewBlock *table = bpw_review_table_or_empty (section, array, header,
                                                     _("No change found gains enough to "
                                                       "propose; see the rejected "
                                                       "alternatives."));

  if (table == NULL)
    return;
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *m = json_array_get_object_element (array, i);

      bpw_review_cell (table, bpw_review_member (m, "kind"));
      bpw_review_cell (table, bpw_review_member (m, "candidate"));
      bpw_review_cell (table, bpw_review_member (m, "scenario"));
      bpw_review_cell (table, bpw_review_member (m, "change"));
      bpw_review_cell (table, bpw_review_percent (m, "predicted_gain"));
      bpw_review_cell (table, bpw_review_member_as (m, "memory_cost_bytes", CELL_BYTES));
      bpw_review_cell (table, bpw_review_member_as (m, "power_cost_w", CELL_WATTS));
      bpw_review_cell (table, bpw_review_member (m, "source"));
    }
}

static void
bpw_review_validation_section (BpwReviewDocument  *doc,
                               JsonObject         *root,
                               const char * const *header)
{
  BpwReviewSection *section = bpw_review_section (doc, _("Validation matrix"));
  JsonArray *array = json_object_get_array_member (root, "validation_matrix");
  BpwReviewBlock *table = bpw_review_table_or_empty (section, array, header,
                                                     _("No claim to validate: nothing is "
                                                       "recommended."));

  if (table == NULL)
    return;
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *v = json_array_get_object_element (array, i);
      const char *unit = json_object_get_string_member (v, "unit");

      bpw_review_cell (table, bpw_review_member (v, "claim"));
      bpw_review_cell (table, bpw_review_member (v, "measurement"));
      bpw_review_cell (table, bpw_review_member_as (v, "expected",
                                                    g_strcmp0 (unit, "s") == 0 ? CELL_SECONDS
                                                    : g_strcmp0 (unit, "bytes") == 0
                                                      ? CELL_BYTES : CELL_PLAIN));
      bpw_review_cell (table, g_strdup (unit));
      bpw_review_cell (table, bpw_review_member_as (v, "tolerance", CELL_PERCENT));
      bpw_review_cell (table, bpw_review_member (v, "rollback_trigger"));
    }
}

BpwReviewDocument *
bpw_review_document_new (BpwReviewPacket *packet)
{
  JsonObject *root = bpw_review_packet_get_root (packet);
  BpwReviewDocument *doc = g_new0 (BpwReviewDocument, 1);
  const char *r_header[] = { _("Kind"), _("Alternative"), _("Reason"), NULL };
  const char *r_members[] = { "kind", "alternative", "reason", NULL };
  const char *v_header[] = { _("Claim"), _("Measurement"), _("Expected"), _("Unit"),
                             _("Tolerance"), _("Rollback trigger"), NULL };
  const char *o_header[] = { _("Role"), _("Name"), _("Contact"), NULL };
  const char *o_members[] = { "role", "name", "contact", NULL };

  doc->title = g_strdup_printf (_("Review packet: %s"),
                                json_object_get_string_member (root, "study"));
  doc->sections = g_ptr_array_new_with_free_func (bpw_review_section_free);
  bpw_review_metadata_section (doc, root);
  bpw_review_quality_section (doc, root);
  bpw_review_recommendation_section (doc, root);
  bpw_review_candidates_section (doc, root);
  bpw_review_bottleneck_section (doc, root);
  bpw_review_mitigation_section (doc, root);
  bpw_review_rows (bpw_review_section (doc, _("Rejected alternatives")),
                   json_object_get_array_member (root, "rejected_alternatives"), r_header,
                   r_members, _("None."));
  bpw_review_validation_section (doc, root, v_header);
  bpw_review_rows (bpw_review_section (doc, _("Owners")),
                   json_object_get_array_member (root, "owners"), o_header, o_members,
                   _("None."));
  return doc;
}

/* A table cell: pipes escaped, line breaks as spaces. */
static void
bpw_review_markdown_cell (GString    *out,
                          const char *text)
{
  for (const char *c = text; *c != '\0'; c++)
    if (*c == '|')
      g_string_append (out, "\\|");
    else if (*c == '\n')
      g_string_append_c (out, ' ');
    else
      g_string_append_c (out, *c);
}

char *
bpw_review_document_to_markdown (const BpwReviewDocument *doc)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (doc != NULL, NULL);
  g_string_append_printf (out, "# %s\n", doc->title);
  for (guint s = 0; s < doc->sections->len; s++)
    {
      const BpwReviewSection *section = g_ptr_array_index (doc->sections, s);

      g_string_append_printf (out, "\n## %s\n", section->title);
      for (guint k = 0; k < section->blocks->len; k++)
        {
          const BpwReviewBlock *block = g_ptr_array_index (section->blocks, k);

          g_string_append_c (out, '\n');
          if (block->kind == BPW_REVIEW_BLOCK_PARAGRAPH)
            {
              g_string_append_printf (out, "%s\n", block->text);
              continue;
            }
          for (guint i = 0; i < block->cells->len; i++)
            {
              guint column = i % block->n_columns;

              g_string_append (out, column == 0 ? "| " : " | ");
              bpw_review_markdown_cell (out, g_ptr_array_index (block->cells, i));
              if (column + 1 < block->n_columns)
                continue;
              g_string_append (out, " |\n");
              if (i + 1 == block->n_columns)
                {
                  for (guint c = 0; c < block->n_columns; c++)
                    g_string_append (out, c == 0 ? "| --- |" : " --- |");
                  g_string_append_c (out, '\n');
                }
            }
        }
    }
  return g_string_free (out, FALSE);
}
