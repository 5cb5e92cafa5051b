/* bpw-search-dialog-sweep.c — the blueprint parameters a sweep changes, on the setup page
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One row per parameter, in the order added (the first one outermost in the grid, as
 * bpw_sweep_new() builds it): its values typed with units, read back on every keystroke by
 * the core's own parser (bpw_sweep_param_parse_values()), so that the row says at once how
 * many values it holds or why it refuses the text, and Start stays off until every row
 * reads. The menu offers only what the blueprint has: a link bandwidth per tier, SRAM
 * only with an on-chip level.
 */
#define G_LOG_DOMAIN "bpw-search-dialog-sweep"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-search-dialog-private.h"
#include "bpw-sweep-item.h"

/* What a row stands for; the row holds it as "bpw-sweep-row". */
typedef struct
{
  char          *name;      /* as bpw_sweep_new() takes it: "link_bandwidth.1" */
  BpwSweepParam  param;
  gint           tier;
  GtkEntry      *entry;     /* borrowed: the row's */
  GArray        *values;    /* double, SI units: what the text reads as */
  char          *error;     /* nullable: why the text does not read */
} BpwSweepRow;

static void
bpw_sweep_row_free (BpwSweepRow *row)
{
  g_free (row->name);
  g_array_unref (row->values);
  g_free (row->error);
  g_free (row);
}

static BpwSweepRow *
bpw_search_dialog_sweep_row (GtkWidget *widget)
{
  return g_object_get_data (G_OBJECT (widget), "bpw-sweep-row");
}

/* @name ("hbm_bandwidth", "link_bandwidth.TIER" by name or index) on @self's blueprint. */
static gboolean
bpw_search_dialog_sweep_resolve (BpwSearchDialog *self,
                                 const char      *name,
                                 BpwSweepParam   *param,
                                 gint            *tier)
{
  const BpwBlueprint *bp = self->run.blueprint;
  g_auto(GStrv) parts = g_strsplit (name, ".", 2);
  double value;
  guint64 index;

  *tier = 0;
  for (*param = 0; *param < BPW_SWEEP_N_PARAMS; (*param)++)
    if (g_strcmp0 (parts[0], bpw_sweep_param_to_string (*param)) == 0)
      break;
  if (*param == BPW_SWEEP_N_PARAMS || (parts[1] != NULL && *param != BPW_SWEEP_LINK_BANDWIDTH))
    return FALSE;
  /* A link bandwidth without a tier is the first tier's, as on the command line. */
  if (*param == BPW_SWEEP_LINK_BANDWIDTH && parts[1] == NULL)
    return bp->n_tiers > 0;
  if (parts[1] != NULL)
    {
      *tier = bpw_blueprint_lookup_tier (bp, parts[1]);
      if (*tier < 0 && g_ascii_string_to_unsigned (parts[1], 10, 0, G_MAXINT, &index, NULL))
        *tier = (gint) index;
      return *tier >= 0 && (guint) *tier < bp->n_tiers;
    }
  /* Parameters of a level or engine the blueprint does not have change nothing. */
  switch (*param)
    {
    case BPW_SWEEP_HBM_BANDWIDTH:
    case BPW_SWEEP_HBM_CAPACITY:
      return bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE) >= 0;
    case BPW_SWEEP_SRAM_CAPACITY:
      return bpw_blueprint_first_memory (bp, BPW_MEMORY_SRAM) >= 0;
    case BPW_SWEEP_MATRIX_PEAK:
      return bpw_sweep_param_get_value (*param, 0, bp, self->run.scenario.dtype, self->devices,
                                        &value);
    case BPW_SWEEP_POWER_CAP:
    case BPW_SWEEP_DEVICES:
    case BPW_SWEEP_LINK_BANDWIDTH:
    case BPW_SWEEP_N_PARAMS:
    default:
      return TRUE;
    }
}

static char *
bpw_search_dialog_sweep_title (BpwSearchDialog *self,
                               BpwSweepParam    param,
                               gint             tier)
{
  return bpw_sweep_param_title (param, param == BPW_SWEEP_LINK_BANDWIDTH
                                       ? self->run.blueprint->tiers[tier].name : NULL);
}

/* "Now 3.35 TB/s", or NULL when the blueprint does not give the value. */
static char *
bpw_search_dialog_sweep_now (BpwSearchDialog   *self,
                             const BpwSweepRow *row)
{
  g_autofree char *now = NULL;
  double value;

  if (!bpw_sweep_param_get_value (row->param, row->tier, self->run.blueprint,
                                  self->run.scenario.dtype, self->devices, &value))
    return NULL;
  now = bpw_sweep_param_format (row->param, value);
  /* Translators: the blueprint's value of a swept parameter, "now 3.35 TB/s" */
  return g_strdup_printf (_("now %s"), now);
}

/* The grid's size in the group's header, and what Start may do. */
static void
bpw_search_dialog_sweep_changed (BpwSearchDialog *self)
{
  guint64 points = 1;
  gboolean ok = TRUE;

  for (guint i = 0; i < self->sweep_rows->len; i++)
    {
      BpwSweepRow *row = bpw_search_dialog_sweep_row (g_ptr_array_index (self->sweep_rows, i));

      ok &= row->error == NULL && row->values->len > 0;
      if (ok && points <= 10000)
        points *= row->values->len;
    }
  self->sweep_points_planned = ok && self->sweep_rows->len > 0 ? points : 0;
  if (self->sweep_rows->len == 0)
    gtk_label_set_text (self->sweep_size_label, "");
  else if (!ok)
    gtk_label_set_text (self->sweep_size_label, _("No points"));
  else if (points > 10000)
    /* Translators: the sweep's grid is too large (bpw_sweep_new() refuses it) */
    gtk_label_set_text (self->sweep_size_label, _("Over 10,000 points: sweep fewer values"));
  else
    {
      g_autofree char *count = bpw_format_count (points);
      g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s point",
                                                            "%s points", (gulong) points),
                                               count);

      gtk_label_set_text (self->sweep_size_label, text);
    }
  if (points > 10000)
    self->sweep_points_planned = 0;
  _bpw_search_dialog_update_buttons (self);
}

static gboolean
bpw_search_dialog_sweep_blank (const char *text)
{
  for (; *text != '\0'; text++)
    if (!g_ascii_isspace (*text))
      return FALSE;
  return TRUE;
}

/* Reads the row's text: its values, or why it refuses them, shown in its subtitle. */
static void
bpw_search_dialog_sweep_read (BpwSearchDialog *self,
                              GtkWidget       *widget)
{
  BpwSweepRow *row = bpw_search_dialog_sweep_row (widget);
  const char *text = gtk_editable_get_text (GTK_EDITABLE (row->entry));
  g_autofree char *now = bpw_search_dialog_sweep_now (self, row);
  g_autoptr(GError) error = NULL;
  g_autofree char *subtitle = NULL;

  g_array_set_size (row->values, 0);
  g_clear_pointer (&row->error, g_free);
  if (bpw_search_dialog_sweep_blank (text))
    /* Translators: a sweep row without values yet */
    subtitle = now != NULL ? g_strdup_printf (_("Type values separated by commas; %s"), now)
                           : g_strdup (_("Type values separated by commas"));
  else if (!bpw_sweep_param_parse_values (row->param, text, row->values, &error))
    {
      g_array_set_size (row->values, 0);
      row->error = g_strdup (error->message);
      subtitle = g_strdup (row->error);
    }
  else
    {
      GString *listed = g_string_new (NULL);
      g_autofree char *values = NULL;

      for (guint i = 0; i < row->values->len; i++)
        {
          g_autofree char *v = bpw_sweep_param_format (row->param,
                                                       g_array_index (row->values, double, i));

          g_string_append_printf (listed, "%s%s", i > 0 ? ", " : "", v);
        }
      /* Translators: "3 values: 2 TB/s, 3.35 TB/s, 4.8 TB/s" */
      values = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u value: %s", "%u values: %s",
                                             row->values->len),
                                row->values->len, listed->str);
      /* Translators: a sweep row's values and the blueprint's, "… (now 3.35 TB/s)" */
      subtitle = now != NULL ? g_strdup_printf (C_("sweep values", "%s (%s)"), values, now)
                             : g_steal_pointer (&values);
      g_string_free (listed, TRUE);
    }
  adw_action_row_set_subtitle (ADW_ACTION_ROW (widget), subtitle);
  if (row->error != NULL)
    {
      gtk_widget_add_css_class (GTK_WIDGET (row->entry), "error");
      gtk_widget_add_css_class (widget, "sweep-param-error");
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (row->entry), "error");
      gtk_widget_remove_css_class (widget, "sweep-param-error");
    }
  gtk_widget_set_tooltip_text (GTK_WIDGET (row->entry), row->error);
}

static void
bpw_search_dialog_sweep_text_cb (GtkEditable     *entry,
                                 BpwSearchDialog *self)
{
  bpw_search_dialog_sweep_read (self, gtk_widget_get_ancestor (GTK_WIDGET (entry),
                                                               ADW_TYPE_ACTION_ROW));
  bpw_search_dialog_sweep_changed (self);
}

static void
bpw_search_dialog_sweep_remove_cb (GtkButton       *button,
                                   BpwSearchDialog *self)
{
  GtkWidget *row = gtk_widget_get_ancestor (GTK_WIDGET (button), ADW_TYPE_ACTION_ROW);

  g_ptr_array_remove (self->sweep_rows, row);
  adw_preferences_group_remove (self->sweep_group, row);
  bpw_search_dialog_sweep_changed (self);
}

static GtkWidget *
bpw_search_dialog_sweep_find (BpwSearchDialog *self,
                              BpwSweepParam    param,
                              gint             tier)
{
  for (guint i = 0; self->sweep_rows != NULL && i < self->sweep_rows->len; i++)
    {
      GtkWidget *widget = g_ptr_array_index (self->sweep_rows, i);
      BpwSweepRow *row = bpw_search_dialog_sweep_row (widget);

      if (row->param == param && row->tier == tier)
        return widget;
    }
  return NULL;
}

/* The row of @param (a new one at the end), with @values when not NULL. */
static GtkWidget *
bpw_search_dialog_sweep_add (BpwSearchDialog *self,
                             BpwSweepParam    param,
                             gint             tier,
                             const char      *values)
{
  GtkWidget *widget = bpw_search_dialog_sweep_find (self, param, tier);
  g_autofree char *title = NULL;
  g_autofree char *example = NULL;
  BpwSweepRow *row;
  GtkWidget *remove;
  double now;

  if (widget != NULL)
    {
      if (values != NULL)
        gtk_editable_set_text (GTK_EDITABLE (bpw_search_dialog_sweep_row (widget)->entry), values);
      return widget;
    }

  row = g_new0 (BpwSweepRow, 1);
  row->param = param;
  row->tier = tier;
  row->name = param == BPW_SWEEP_LINK_BANDWIDTH
              ? g_strdup_printf ("%s.%d", bpw_sweep_param_to_string (param), tier)
              : g_strdup (bpw_sweep_param_to_string (param));
  row->values = g_array_new (FALSE, FALSE, sizeof (double));
  row->entry = GTK_ENTRY (gtk_entry_new ());
  widget = adw_action_row_new ();
  g_object_set_data_full (G_OBJECT (widget), "bpw-sweep-row", row,
                          (GDestroyNotify) bpw_sweep_row_free);
  title = bpw_search_dialog_sweep_title (self, param, tier);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (widget), title);
  /* The subtitle names the blueprint's value and its provenance: whole, wrapped. */
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (widget), 0);

  /* The example starts from the blueprint's value: twice it is a plausible next step. */
  if (bpw_sweep_param_get_value (param, tier, self->run.blueprint, self->run.scenario.dtype,
                                 self->devices, &now))
    {
      g_autofree char *a = bpw_sweep_param_format (param, now);
      g_autofree char *b = bpw_sweep_param_format (param, 2 * now);

      /* Translators: the placeholder of a sweep row, "such as 3.35 TB/s, 6.7 TB/s" */
      example = g_strdup_printf (_("such as %s, %s"), a, b);
    }
  gtk_entry_set_placeholder_text (row->entry, example);
  gtk_editable_set_width_chars (GTK_EDITABLE (row->entry), 28);
  gtk_widget_set_valign (GTK_WIDGET (row->entry), GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (row->entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  title, -1);
  adw_action_row_add_suffix (ADW_ACTION_ROW (widget), GTK_WIDGET (row->entry));
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (widget), GTK_WIDGET (row->entry));

  remove = gtk_button_new_from_icon_name ("user-trash-symbolic");
  gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (remove, "flat");
  gtk_widget_set_tooltip_text (remove, _("Stop Sweeping This Parameter"));
  adw_action_row_add_suffix (ADW_ACTION_ROW (widget), remove);

  g_ptr_array_add (self->sweep_rows, widget);
  adw_preferences_group_add (self->sweep_group, widget);
  if (values != NULL)
    gtk_editable_set_text (GTK_EDITABLE (row->entry), values);
  g_signal_connect_object (row->entry, "changed",
                           G_CALLBACK (bpw_search_dialog_sweep_text_cb), self, 0);
  g_signal_connect_object (remove, "clicked",
                           G_CALLBACK (bpw_search_dialog_sweep_remove_cb), self, 0);
  bpw_search_dialog_sweep_read (self, widget);
  bpw_search_dialog_sweep_changed (self);
  return widget;
}

static void
bpw_search_dialog_sweep_add_action (GSimpleAction *action,
                                    GVariant      *parameter,
                                    gpointer       user_data)
{
  BpwSearchDialog *self = user_data;
  BpwSweepParam param;
  gint tier;
  GtkWidget *row;

  if (!bpw_search_dialog_sweep_resolve (self, g_variant_get_string (parameter, NULL), &param,
                                        &tier))
    return;
  row = bpw_search_dialog_sweep_add (self, param, tier, NULL);
  gtk_widget_grab_focus (GTK_WIDGET (bpw_search_dialog_sweep_row (row)->entry));
}

static void
bpw_search_dialog_sweep_menu_add (BpwSearchDialog *self,
                                  GMenu           *menu,
                                  BpwSweepParam    param,
                                  gint             tier)
{
  g_autofree char *title = bpw_search_dialog_sweep_title (self, param, tier);
  g_autofree char *name = param == BPW_SWEEP_LINK_BANDWIDTH
                          ? g_strdup_printf ("%s.%d", bpw_sweep_param_to_string (param), tier)
                          : g_strdup (bpw_sweep_param_to_string (param));
  g_autoptr(GMenuItem) item = g_menu_item_new (title, NULL);
  BpwSweepParam resolved;
  gint resolved_tier;

  if (!bpw_search_dialog_sweep_resolve (self, name, &resolved, &resolved_tier))
    return;
  g_menu_item_set_action_and_target (item, "search.add-sweep-param", "s", name);
  g_menu_append_item (menu, item);
}

void
_bpw_search_dialog_sweep_init (BpwSearchDialog *self)
{
  static const GActionEntry actions[] = {
    { "add-sweep-param", bpw_search_dialog_sweep_add_action, "s", NULL, NULL, { 0 } },
  };
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenu) memory = g_menu_new ();
  g_autoptr(GMenu) links = g_menu_new ();
  g_autoptr(GMenu) system = g_menu_new ();

  g_action_map_add_action_entries (G_ACTION_MAP (self->actions), actions,
                                   G_N_ELEMENTS (actions), self);

  bpw_search_dialog_sweep_menu_add (self, memory, BPW_SWEEP_HBM_BANDWIDTH, 0);
  bpw_search_dialog_sweep_menu_add (self, memory, BPW_SWEEP_HBM_CAPACITY, 0);
  bpw_search_dialog_sweep_menu_add (self, memory, BPW_SWEEP_SRAM_CAPACITY, 0);
  for (guint t = 0; t < self->run.blueprint->n_tiers; t++)
    bpw_search_dialog_sweep_menu_add (self, links, BPW_SWEEP_LINK_BANDWIDTH, (gint) t);
  bpw_search_dialog_sweep_menu_add (self, system, BPW_SWEEP_MATRIX_PEAK, 0);
  bpw_search_dialog_sweep_menu_add (self, system, BPW_SWEEP_POWER_CAP, 0);
  bpw_search_dialog_sweep_menu_add (self, system, BPW_SWEEP_DEVICES, 0);
  g_menu_append_section (menu, NULL, G_MENU_MODEL (memory));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (links));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (system));
  gtk_menu_button_set_menu_model (self->sweep_add_button, G_MENU_MODEL (menu));
  bpw_search_dialog_sweep_changed (self);
}

gboolean
_bpw_search_dialog_sweep_active (BpwSearchDialog *self)
{
  return self->sweep_rows != NULL && self->sweep_rows->len > 0;
}

gboolean
_bpw_search_dialog_sweep_ready (BpwSearchDialog *self)
{
  return !_bpw_search_dialog_sweep_active (self) || self->sweep_points_planned > 0;
}

gboolean
bpw_search_dialog_add_sweep_param (BpwSearchDialog *self,
                                   const char      *param,
                                   const char      *values)
{
  BpwSweepParam p;
  gint tier;

  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), FALSE);
  g_return_val_if_fail (param != NULL && values != NULL, FALSE);

  if (!self->has_run || self->choice_values[0] == NULL
      || !bpw_search_dialog_sweep_resolve (self, param, &p, &tier))
    return FALSE;
  bpw_search_dialog_sweep_add (self, p, tier, values);
  return TRUE;
}

void
bpw_search_dialog_remove_sweep_params (BpwSearchDialog *self)
{
  g_return_if_fail (BPW_IS_SEARCH_DIALOG (self));

  while (self->sweep_rows->len > 0)
    {
      GtkWidget *row = g_ptr_array_steal_index (self->sweep_rows, self->sweep_rows->len - 1);

      adw_preferences_group_remove (self->sweep_group, row);
    }
  bpw_search_dialog_sweep_changed (self);
}

const char *
bpw_search_dialog_get_sweep_error (BpwSearchDialog *self,
                                   const char      *param)
{
  BpwSweepParam p;
  gint tier;
  GtkWidget *row;

  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), NULL);
  g_return_val_if_fail (param != NULL, NULL);

  if (!self->has_run || !bpw_search_dialog_sweep_resolve (self, param, &p, &tier))
    return NULL;
  row = bpw_search_dialog_sweep_find (self, p, tier);
  return row != NULL ? bpw_search_dialog_sweep_row (row)->error : NULL;
}

char **
bpw_search_dialog_dup_sweep_params (BpwSearchDialog  *self,
                                    GError          **error)
{
  g_autoptr(GPtrArray) params = g_ptr_array_new_with_free_func (g_free);

  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), NULL);

  for (guint i = 0; i < self->sweep_rows->len; i++)
    {
      GtkWidget *widget = g_ptr_array_index (self->sweep_rows, i);
      BpwSweepRow *row = bpw_search_dialog_sweep_row (widget);
      g_autofree char *title = NULL;
      GString *spec;

      if (row->error != NULL || row->values->len == 0)
        {
          title = bpw_search_dialog_sweep_title (self, row->param, row->tier);
          /* Translators: "HBM Bandwidth: expected a bandwidth such as …" */
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("%s: %s"), title,
                       row->error != NULL ? row->error : _("type the values to sweep"));
          return NULL;
        }
      /* Shortest exact forms: the sweep gets the very values the row shows. */
      spec = g_string_new (row->name);
      for (guint k = 0; k < row->values->len; k++)
        {
          char number[G_ASCII_DTOSTR_BUF_SIZE];

          g_ascii_dtostr (number, sizeof number, g_array_index (row->values, double, k));
          g_string_append_printf (spec, "%c%s", k == 0 ? '=' : ',', number);
        }
      g_ptr_array_add (params, g_string_free (spec, FALSE));
    }
  g_ptr_array_add (params, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&params), FALSE);
}

guint64
bpw_search_dialog_get_sweep_size (BpwSearchDialog *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), 0);
  return self->sweep_points_planned;
}
