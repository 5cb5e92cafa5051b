/* bpw-inspector-blueprint.c — the Blueprint page: engines, memory, interconnect, power
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every value shows its unit and where it comes from. A typed value goes through the
 * core's parser ("4.8 TB/s") and bpw_blueprint_field_set(), and becomes an inline copy of
 * the blueprint in the study, with the provenance chosen at the end of the page.
 */
#define G_LOG_DOMAIN "bpw-inspector-blueprint"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-inspector-private.h"
#include "bpw-tooltip.h"

static const char *
bpw_inspector_engine_kind_label (BpwEngineKind kind)
{
  switch (kind)
    {
    case BPW_ENGINE_MATRIX:
      return _("Matrix engine · dense peak per device");
    case BPW_ENGINE_VECTOR:
      return _("Vector engine · peak per device");
    case BPW_ENGINE_DMA:
      return _("DMA engine");
    case BPW_ENGINE_COLLECTIVE:
      return _("Collective engine");
    case BPW_N_ENGINE_KINDS:
    default:
      return "";
    }
}

static const char *
bpw_inspector_memory_kind_label (BpwMemoryKind kind)
{
  switch (kind)
    {
    case BPW_MEMORY_REGISTERS:
      return _("Registers");
    case BPW_MEMORY_SRAM:
      return _("On-chip memory, per core");
    case BPW_MEMORY_CACHE:
      return _("Cache, shared");
    case BPW_MEMORY_DEVICE:
      return _("Device memory (HBM)");
    case BPW_MEMORY_HOST:
      return _("Host memory");
    case BPW_N_MEMORY_KINDS:
    default:
      return "";
    }
}

static const char *
bpw_inspector_topology_label (BpwTopology topology)
{
  switch (topology)
    {
    case BPW_TOPOLOGY_SWITCH:
      return _("switched");
    case BPW_TOPOLOGY_FULL_MESH:
      return _("full mesh");
    case BPW_TOPOLOGY_RING:
      return _("ring");
    case BPW_TOPOLOGY_TORUS:
      return _("torus");
    case BPW_TOPOLOGY_FAT_TREE:
      return _("fat tree");
    /* Translators: a fat tree whose leaf switches each join one local rank of every node */
    case BPW_TOPOLOGY_RAIL_OPTIMIZED:
      return _("rail-optimised fat tree");
    case BPW_N_TOPOLOGIES:
    default:
      return "";
    }
}

static void
bpw_inspector_value_commit_cb (BpwValueRow *row,
                               const char  *text,
                               BpwInspector *self)
{
  const BpwBlueprintField *field = g_object_get_data (G_OBJECT (row), "bpw-field");
  g_autoptr(GError) error = NULL;
  BpwStudyEdit *edit;
  double value = 0.0;

  if (self->refreshing || self->blueprint == NULL)
    return;
  if (!bpw_blueprint_field_parse (field, text, &value, &error))
    {
      bpw_value_row_set_error (row, error->message);
      return;
    }
  edit = bpw_study_edit_new_blueprint_value (self->study, self->blueprint, field, value,
                                             self->kind, self->source,
                                             adw_preferences_row_get_title (
                                               ADW_PREFERENCES_ROW (row)), &error);
  if (edit == NULL)
    {
      bpw_value_row_set_error (row, error->message);
      return;
    }
  _bpw_inspector_apply (self, GTK_WIDGET (row), edit);
}

static void
bpw_inspector_add_value (BpwInspector        *self,
                         AdwPreferencesGroup *group,
                         const char          *title,
                         const char          *key,
                         BpwBlueprintFieldKind kind,
                         guint                index,
                         BpwPrecision         precision)
{
  GtkWidget *row = bpw_value_row_new (title);
  BpwBlueprintField field = { kind, index, precision };

  g_object_set_data_full (G_OBJECT (row), "bpw-field",
                          g_memdup2 (&field, sizeof field), g_free);
  /* Translators: shown in an empty value of a blueprint */
  bpw_value_row_set_placeholder (BPW_VALUE_ROW (row), _("Not known"));
  g_signal_connect_object (row, "commit", G_CALLBACK (bpw_inspector_value_commit_cb), self, 0);
  _bpw_inspector_add_row (self, BPW_INSPECTOR_BLUEPRINT, group, row, key);
}

static AdwPreferencesGroup *
bpw_inspector_group (BpwInspector *self,
                     const char   *title,
                     const char   *description)
{
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());

  adw_preferences_group_set_title (group, title);
  adw_preferences_group_set_description (group, description);
  _bpw_inspector_add_group (self, BPW_INSPECTOR_BLUEPRINT, group);
  return group;
}

static void
bpw_inspector_revert_cb (BpwInspector *self)
{
  g_autoptr(GError) error = NULL;
  BpwStudyEdit *edit;

  edit = bpw_study_edit_new_blueprint_revert (self->study, self->blueprint,
                                              _("Revert blueprint"), &error);
  if (edit != NULL)
    _bpw_inspector_apply (self, self->revert_button, edit);
  else
    gtk_widget_set_tooltip_text (self->revert_button, error->message);
}

static void
bpw_inspector_kind_cb (BpwInspector *self,
                       GParamSpec   *pspec,
                       AdwComboRow  *row)
{
  self->kind = (BpwProvenance) adw_combo_row_get_selected (row);
}

static void
bpw_inspector_source_cb (BpwInspector *self,
                         GtkEditable  *editable)
{
  g_free (self->source);
  self->source = g_strdup (gtk_editable_get_text (editable));
}

static void
bpw_inspector_add_typed_values (BpwInspector *self)
{
  /* Index order = BpwProvenanceKind. */
  const char * const kinds[] = {
    _("Datasheet"), _("Estimate"), _("Calibrated"), _("Measured"), NULL
  };
  AdwPreferencesGroup *group;
  GtkWidget *kind = _bpw_inspector_combo_row (_("Provenance"), kinds);
  GtkWidget *source = adw_entry_row_new ();

  group = bpw_inspector_group (self, _("Typed Values"),
                               _("Where values typed on this page come from. Each keeps its "
                                 "own provenance; the study saves it."));
  adw_combo_row_set_selected (ADW_COMBO_ROW (kind), self->kind);
  g_signal_connect_object (kind, "notify::selected", G_CALLBACK (bpw_inspector_kind_cb), self,
                           G_CONNECT_SWAPPED);
  adw_preferences_group_add (group, kind);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (source), _("Source"));
  gtk_editable_set_text (GTK_EDITABLE (source), self->source);
  g_signal_connect_object (source, "changed", G_CALLBACK (bpw_inspector_source_cb), self,
                           G_CONNECT_SWAPPED);
  adw_preferences_group_add (group, source);
}

static void
bpw_inspector_add_engines (BpwInspector       *self,
                           const BpwBlueprint *bp,
                           gboolean            matrix)
{
  AdwPreferencesGroup *group;

  for (guint i = 0; i < bp->n_engines; i++)
    {
      const BpwEngine *e = &bp->engines[i];
      gboolean any = e->bandwidth.set;

      if ((e->kind == BPW_ENGINE_MATRIX) != matrix)
        continue;
      for (guint p = 0; p < BPW_N_PRECISIONS; p++)
        any |= e->peak[p].set;
      if (!any)
        continue;
      group = bpw_inspector_group (self, e->name, bpw_inspector_engine_kind_label (e->kind));
      for (guint p = 0; p < BPW_N_PRECISIONS; p++)
        if (e->peak[p].set)
          {
            g_autofree char *upper = g_ascii_strup (bpw_precision_to_string (p), -1);
            /* Translators: e.g. "BF16 peak": the peak rate in that number format */
            g_autofree char *title = g_strdup_printf (_("%s peak"), upper);
            g_autofree char *key = g_strdup_printf ("engines[%u].peak.%s", i,
                                                    bpw_precision_to_string (p));

            bpw_inspector_add_value (self, group, title, key, BPW_BLUEPRINT_FIELD_ENGINE_PEAK,
                                     i, p);
          }
      if (e->bandwidth.set)
        {
          g_autofree char *key = g_strdup_printf ("engines[%u].bandwidth", i);

          bpw_inspector_add_value (self, group, _("Bandwidth"), key,
                                   BPW_BLUEPRINT_FIELD_ENGINE_BANDWIDTH, i, 0);
        }
    }
}

static void
bpw_inspector_add_memory (BpwInspector       *self,
                          const BpwBlueprint *bp,
                          gboolean            device)
{
  AdwPreferencesGroup *group;

  for (guint i = 0; i < bp->n_memory; i++)
    {
      const BpwMemoryLevel *m = &bp->memory[i];
      g_autofree char *capacity = g_strdup_printf ("memory[%u].capacity", i);
      g_autofree char *bandwidth = g_strdup_printf ("memory[%u].bandwidth", i);
      gboolean per_instance = m->instances.set && m->instances.value > 1.0;

      if ((m->kind == BPW_MEMORY_DEVICE) != device)
        continue;
      group = bpw_inspector_group (self, m->name, bpw_inspector_memory_kind_label (m->kind));
      bpw_inspector_add_value (self, group,
                               per_instance ? _("Capacity per instance") : _("Capacity"),
                               capacity, BPW_BLUEPRINT_FIELD_MEMORY_CAPACITY, i, 0);
      bpw_inspector_add_value (self, group, _("Bandwidth"), bandwidth,
                               BPW_BLUEPRINT_FIELD_MEMORY_BANDWIDTH, i, 0);
    }
}

/* "Interconnect tier 1, torus 4 × 4 × 4", "… fat tree, 2:1 oversubscribed". */
static char *
bpw_inspector_tier_description (const BpwTier *t,
                                guint          i)
{
  GString *s = g_string_new (NULL);

  /* Translators: "Interconnect tier 1, switched" */
  g_string_printf (s, _("Interconnect tier %u, %s"), i + 1,
                   bpw_inspector_topology_label (t->topology));
  if (bpw_tier_shape_devices (t) > 0)
    for (gint64 d = 0; d < t->dimensions; d++)
      g_string_append_printf (s, d == 0 ? " %" G_GINT64_FORMAT : " × %" G_GINT64_FORMAT,
                              t->shape[d]);
  else if (t->dimensions > 0)
    /* Translators: a torus or ring with this many dimensions, after its topology */
    g_string_append_printf (s, _(" (%d-D)"), (int) t->dimensions);
  if (t->oversubscription.set && t->oversubscription.value > 1)
    /* Translators: "2:1 oversubscribed": downlink to uplink capacity, after the topology */
    g_string_append_printf (s, _(", %.3g:1 oversubscribed"), t->oversubscription.value);
  if (t->rail_size.set)
    /* Translators: after the topology: one rail switch joins this many nodes */
    g_string_append_printf (s, _(", rails of %.0f nodes"), t->rail_size.value);
  return g_string_free (s, FALSE);
}

static void
bpw_inspector_add_tiers (BpwInspector       *self,
                         const BpwBlueprint *bp)
{
  AdwPreferencesGroup *group;

  for (guint i = 0; i < bp->n_tiers; i++)
    {
      const BpwTier *t = &bp->tiers[i];
      g_autofree char *size = g_strdup_printf ("tiers[%u].size", i);
      g_autofree char *bandwidth = g_strdup_printf ("tiers[%u].bandwidth", i);
      g_autofree char *latency = g_strdup_printf ("tiers[%u].latency", i);
      g_autofree char *oversubscription = g_strdup_printf ("tiers[%u].oversubscription", i);
      g_autofree char *description = bpw_inspector_tier_description (t, i);

      group = bpw_inspector_group (self, t->name, description);
      bpw_inspector_add_value (self, group, _("Devices"), size,
                               BPW_BLUEPRINT_FIELD_TIER_SIZE, i, 0);
      bpw_inspector_add_value (self, group, _("Bandwidth per direction"), bandwidth,
                               BPW_BLUEPRINT_FIELD_TIER_BANDWIDTH, i, 0);
      bpw_inspector_add_value (self, group, _("Latency"), latency,
                               BPW_BLUEPRINT_FIELD_TIER_LATENCY, i, 0);
      /* Uplinks can be thinner than downlinks only where traffic leaves an inner tier. */
      if (t->topology == BPW_TOPOLOGY_FAT_TREE || t->topology == BPW_TOPOLOGY_RAIL_OPTIMIZED)
        bpw_inspector_add_value (self, group, _("Oversubscription"), oversubscription,
                                 BPW_BLUEPRINT_FIELD_TIER_OVERSUBSCRIPTION, i, 0);
    }
}

void
_bpw_inspector_build_blueprint (BpwInspector *self)
{
  g_autoptr(BpwBlueprint) bp = NULL;
  g_autoptr(GError) error = NULL;
  AdwPreferencesGroup *group;

  if (self->blueprint == NULL)
    {
      _bpw_inspector_add_message (self, BPW_INSPECTOR_BLUEPRINT, _("No Blueprint Selected"),
                                  _("Select a candidate or a blueprint in the sidebar to see "
                                    "and edit its values."));
      return;
    }
  bp = bpw_study_load_blueprint (self->study, self->blueprint, &error);
  if (bp == NULL)
    {
      _bpw_inspector_add_message (self, BPW_INSPECTOR_BLUEPRINT, self->blueprint,
                                  error->message);
      return;
    }

  self->blueprint_header = bpw_inspector_group (self, self->blueprint, NULL);
  self->revert_button = gtk_button_new_from_icon_name ("edit-undo-symbolic");
  gtk_widget_add_css_class (self->revert_button, "flat");
  gtk_widget_set_valign (self->revert_button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (self->revert_button, _("Revert to the Original Values"));
  g_signal_connect_object (self->revert_button, "clicked", G_CALLBACK (bpw_inspector_revert_cb),
                           self, G_CONNECT_SWAPPED);
  adw_preferences_group_set_header_suffix (self->blueprint_header, self->revert_button);

  /* What reviews change most first: matrix peaks, device memory, interconnect, power;
   * then the other engines and memory levels. */
  for (int pass = 0; pass < 2; pass++)
    {
      bpw_inspector_add_engines (self, bp, pass == 0);
      bpw_inspector_add_memory (self, bp, pass == 0);
      if (pass == 0)
        {
          bpw_inspector_add_tiers (self, bp);
          group = bpw_inspector_group (self, _("Power"), _("Per device"));
          bpw_inspector_add_value (self, group, _("TDP"), "power.tdp", BPW_BLUEPRINT_FIELD_TDP,
                                   0, 0);
          bpw_inspector_add_value (self, group, _("Idle power"), "power.idle",
                                   BPW_BLUEPRINT_FIELD_IDLE_POWER, 0, 0);
          bpw_inspector_add_value (self, group, _("Power cap"), "power.cap",
                                   BPW_BLUEPRINT_FIELD_POWER_CAP, 0, 0);
        }
    }

  bpw_inspector_add_typed_values (self);
}

void
_bpw_inspector_refresh_blueprint (BpwInspector *self)
{
  g_autoptr(BpwBlueprint) bp = NULL;
  gboolean held;
  GPtrArray *rows = self->rows[BPW_INSPECTOR_BLUEPRINT];

  if (self->blueprint == NULL || self->blueprint_header == NULL)
    return;
  bp = bpw_study_load_blueprint (self->study, self->blueprint, NULL);
  if (bp == NULL)
    return;

  held = bpw_study_lookup_inline_blueprint (self->study, self->blueprint) != NULL;
  {
    g_autofree char *description = NULL;
    const char *where = held ? _("Edited in this study")
                        : g_strcmp0 (bp->origin, "bundled") == 0 ? _("Bundled") : _("From a file");

    description = bp->device != NULL ? g_markup_printf_escaped ("%s · %s", bp->device, where)
                                     : g_markup_escape_text (where, -1);
    adw_preferences_group_set_description (self->blueprint_header, description);
    gtk_widget_set_visible (self->revert_button, held);
  }

  for (guint i = 0; i < rows->len; i++)
    {
      BpwValueRow *row = g_ptr_array_index (rows, i);
      const BpwBlueprintField *field = g_object_get_data (G_OBJECT (row), "bpw-field");
      const BpwSourced *value = bpw_blueprint_field_peek (bp, field);
      g_autofree char *text = NULL;
      g_autofree char *provenance = _bpw_inspector_provenance (value);

      if (value != NULL && value->set)
        text = field->kind == BPW_BLUEPRINT_FIELD_TIER_SIZE
               ? g_strdup_printf ("%.0f", value->value)
               : _bpw_inspector_format (self, value->value, bpw_blueprint_field_unit (field));
      bpw_value_row_set_value (row, text);
      /* An unknown value says so in its entry; the subtitle stays for provenance. */
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), text != NULL ? provenance : NULL);
      bpw_tooltip_set (GTK_WIDGET (row), text != NULL ? provenance : NULL);
    }
}
