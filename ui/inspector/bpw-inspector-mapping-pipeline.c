/* bpw-inspector-mapping-pipeline.c — the Mapping page's layer split and context-parallel
 * algorithm
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A mapping says how the layers are split over the pipeline's stages in one of three
 * members of "parallel": "pp_split" (automatic, even or balanced in time), "pp_lighter"
 * (the first and last stage that many layers lighter) or "pp_layers" (listed). The page
 * shows them as one choice, the count of the lighter stages and the list of layers per
 * (virtual) stage as the split resolves for the selected scenario; editing the list makes
 * the split explicit. An edit writes one of the three members and takes the other two out,
 * as the reader wants exactly one.
 */
#define G_LOG_DOMAIN "bpw-inspector-mapping-pipeline"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "bpw-inspector-mapping-private.h"
#include "bpw-stage-split.h"

/* The choices of the split row, in the order of BpwPpSplit. */
G_STATIC_ASSERT (BPW_PP_SPLIT_AUTO == 0 && BPW_PP_SPLIT_EVEN == 1 && BPW_PP_SPLIT_BALANCED == 2
                 && BPW_PP_SPLIT_LIGHTER == 3 && BPW_PP_SPLIT_EXPLICIT == 4);

void
_bpw_inspector_build_mapping_pipeline (BpwInspector        *self,
                                       AdwPreferencesGroup *group)
{
  const char * const split[] = {
    /* Translators: the layer split: even when the stages divide the layers, else balanced */
    _("Automatic"), _("Even"), _("Balanced by time"), _("Lighter first and last"),
    /* Translators: the layer split: as listed by the user */
    _("Explicit"), NULL };
  GtkWidget *row = _bpw_inspector_combo_row (_("Layer split"), split);

  _bpw_inspector_mapping_add (self, group, NULL, row, BPW_MAPPING_FIELD_PP_SPLIT, 0,
                              "parallel.pp_split");
  row = bpw_value_row_new (_("Lighter first and last stages"));
  bpw_value_row_set_unit (BPW_VALUE_ROW (row), _("layers fewer"));
  _bpw_inspector_mapping_add (self, group, NULL, row, BPW_MAPPING_FIELD_PP_LIGHTER, 0,
                              "parallel.pp_lighter");
  row = bpw_value_row_new (_("Layers per stage"));
  _bpw_inspector_mapping_add (self, group, NULL, row, BPW_MAPPING_FIELD_PP_LAYERS, 0,
                              "parallel.pp_layers");
}

/* "5, 5, 6" or "5,5,6" as counts of at least 1; FALSE with a message on anything else. */
static gboolean
bpw_inspector_parse_layers (const char  *text,
                            guint32     *layers,
                            guint       *n_layers,
                            GError     **error)
{
  g_auto(GStrv) parts = g_strsplit (text != NULL ? text : "", ",", -1);
  guint n = 0;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *part = g_strstrip (parts[i]);
      guint64 count = 0;

      if (n == BPW_PARALLEL_MAX_STAGE_LAYERS)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("At most %d stages can be listed"), BPW_PARALLEL_MAX_STAGE_LAYERS);
          return FALSE;
        }
      if (!g_ascii_string_to_unsigned (part, 10, 1, G_MAXINT32, &count, NULL))
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("Expected layers per stage as whole numbers of at least 1, separated "
                         "by commas, got “%s”"), part);
          return FALSE;
        }
      layers[n++] = (guint32) count;
    }
  *n_layers = n;
  return TRUE;
}

void
_bpw_inspector_pipeline_commit_layers (BpwInspector *self,
                                       GtkWidget    *row,
                                       const char   *text)
{
  g_autoptr(GError) error = NULL;
  guint32 listed[BPW_PARALLEL_MAX_STAGE_LAYERS];
  BpwMappingView view;
  BpwParallel parallel;
  guint n = 0;
  gboolean ok;

  if (!bpw_inspector_parse_layers (text, listed, &n, &error))
    {
      bpw_value_row_set_error (BPW_VALUE_ROW (row), error->message);
      return;
    }
  /* Checked against the model the scenario runs, with the core's words. */
  _bpw_inspector_mapping_view_init (self, &view);
  parallel = view.run.mapping.parallel;
  memcpy (parallel.stage_layers, listed, n * sizeof listed[0]);
  parallel.pp_split = BPW_PP_SPLIT_EXPLICIT;
  parallel.n_stage_layers = (gint32) n;
  ok = bpw_stage_split_check (&parallel, &view.run.spec, &error);
  _bpw_inspector_mapping_view_clear (&view);
  if (!ok)
    {
      bpw_value_row_set_error (BPW_VALUE_ROW (row), error->message);
      return;
    }
  _bpw_inspector_mapping_apply_layers (self, row, parallel.stage_layers, n);
}

/* The layers of every virtual stage of the split @view's scenario runs with, as the list
 * the layer row shows and "Explicit" starts from; FALSE when it does not resolve. */
static gboolean
bpw_inspector_resolved_layers (const BpwMappingView *view,
                               guint32              *layers,
                               guint                *n_layers)
{
  BpwStageSplit split;

  if (!bpw_stage_split_resolve (&split, &view->run.mapping.parallel, &view->run.spec,
                                &view->run.scenario, NULL)
      || split.n_virtual > BPW_PARALLEL_MAX_STAGE_LAYERS)
    return FALSE;
  for (gint64 k = 0; k < split.n_virtual; k++)
    layers[k] = (guint32) bpw_stage_split_virtual (&split, k);
  *n_layers = (guint) split.n_virtual;
  return TRUE;
}

void
_bpw_inspector_pipeline_write (GtkWidget            *row,
                               JsonObject           *parallel,
                               gint64                value,
                               const BpwMappingView *view)
{
  const BpwParallel *p = &view->run.mapping.parallel;

  /* The file gives one way of splitting (bpw_parallel_read_pp_split()). */
  json_object_remove_member (parallel, "pp_split");
  json_object_remove_member (parallel, "pp_lighter");
  json_object_remove_member (parallel, "pp_layers");
  if (_bpw_inspector_mapping_field (row) == BPW_MAPPING_FIELD_PP_LIGHTER)
    {
      json_object_set_int_member (parallel, "pp_lighter", value);
      return;
    }
  switch ((BpwPpSplit) value)
    {
    case BPW_PP_SPLIT_AUTO:
      /* Written, not left out: it also overrides a split the scenario states. */
      json_object_set_string_member (parallel, "pp_split", "auto");
      break;
    case BPW_PP_SPLIT_EVEN:
      json_object_set_string_member (parallel, "pp_split", "even");
      break;
    case BPW_PP_SPLIT_BALANCED:
      json_object_set_string_member (parallel, "pp_split", "balanced");
      break;
    case BPW_PP_SPLIT_LIGHTER:
      json_object_set_int_member (parallel, "pp_lighter", MAX (p->pp_lighter, 1));
      break;
    case BPW_PP_SPLIT_EXPLICIT:
    default:
      {
        /* The list starts as the split in use, for the user to edit. */
        guint32 layers[BPW_PARALLEL_MAX_STAGE_LAYERS];
        JsonArray *list = json_array_new ();
        guint n = 0;

        if (!bpw_inspector_resolved_layers (view, layers, &n))
          {
            /* Nothing resolves (more stages than layers, say): a list of the right
             * length for the user to correct; the banner says what is wrong. */
            gint64 stages = p->pp * bpw_parallel_chunks (p);

            n = (guint) CLAMP (stages, 1, BPW_PARALLEL_MAX_STAGE_LAYERS);
            for (guint i = 0; i < n; i++)
              layers[i] = (guint32) MAX (view->run.spec.layers / (gint64) n, 1);
          }
        for (guint i = 0; i < n; i++)
          json_array_add_int_element (list, layers[i]);
        json_object_set_array_member (parallel, "pp_layers", list);
      }
      break;
    }
}

/* A row that does nothing for the mapping as it is says why, instead of its source. */
static void
bpw_inspector_pipeline_sensitive (GtkWidget  *row,
                                  gboolean    sensitive,
                                  const char *why)
{
  gtk_widget_set_sensitive (row, sensitive);
  if (!sensitive)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), why);
}

gboolean
_bpw_inspector_refresh_pipeline_row (BpwInspector         *self,
                                     GtkWidget            *row,
                                     const BpwMappingView *view)
{
  const BpwParallel *p = &view->run.mapping.parallel;
  /* Translators: subtitle of a pipeline row when the mapping has one stage */
  const char *no_pipeline = _("Needs pipeline parallelism (PP above 1)");

  switch (_bpw_inspector_mapping_field (row))
    {
    case BPW_MAPPING_FIELD_CP_ALGORITHM:
      _bpw_inspector_combo_set (row, p->cp_algorithm);
      bpw_inspector_pipeline_sensitive (row, p->cp > 1,
                                        /* Translators: subtitle when the mapping has CP 1 */
                                        _("Needs context parallelism (CP above 1)"));
      return TRUE;
    case BPW_MAPPING_FIELD_PP_SPLIT:
      _bpw_inspector_combo_set (row, p->pp_split);
      bpw_inspector_pipeline_sensitive (row, p->pp > 1, no_pipeline);
      return TRUE;
    case BPW_MAPPING_FIELD_PP_LIGHTER:
      {
        g_autofree char *text = g_strdup_printf ("%d", p->pp_split == BPW_PP_SPLIT_LIGHTER
                                                       ? p->pp_lighter : 0);

        bpw_value_row_set_value (BPW_VALUE_ROW (row), text);
        bpw_inspector_pipeline_sensitive (row, p->pp > 1 && p->pp_split == BPW_PP_SPLIT_LIGHTER,
                                          p->pp > 1 ? _("Choose “Lighter first and last” to "
                                                        "set")
                                                    : no_pipeline);
      }
      return TRUE;
    case BPW_MAPPING_FIELD_PP_LAYERS:
      {
        guint32 layers[BPW_PARALLEL_MAX_STAGE_LAYERS];
        GString *text = g_string_new (NULL);
        guint n = 0;

        /* The split in use; editing it makes it explicit. */
        if (bpw_inspector_resolved_layers (view, layers, &n))
          for (guint i = 0; i < n; i++)
            g_string_append_printf (text, i > 0 ? ",%u" : "%u", layers[i]);
        bpw_value_row_set_value (BPW_VALUE_ROW (row), text->str);
        bpw_value_row_set_placeholder (BPW_VALUE_ROW (row), _("Not known"));
        g_string_free (text, TRUE);
        /* Listed, it keeps its provenance; resolved, it says what an edit does. */
        if (p->pp > 1 && p->pp_split != BPW_PP_SPLIT_EXPLICIT)
          adw_action_row_set_subtitle (ADW_ACTION_ROW (row),
                                       _("In pipeline order; editing makes it explicit"));
        bpw_inspector_pipeline_sensitive (row, p->pp > 1, no_pipeline);
      }
      return TRUE;
    default:
      return FALSE;
    }
}
