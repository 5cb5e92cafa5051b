/* bpw-aggregate-table.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tables are small (a few kinds, seven bottleneck classes, five phases), so each
 * update rebuilds their grids; the longest show their largest rows and sum the rest in one
 * line, so the panel never needs more than a screen.
 */
#define G_LOG_DOMAIN "bpw-aggregate-table"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-aggregate-table.h"
#include "bpw-format.h"
#include "bpw-si-format.h"

/* Rows of one table before the rest are summed into one. */
#define BPW_AGGREGATE_MAX_ROWS 8

struct _BpwAggregateTable
{
  GtkWidget  parent_instance;

  GtkWidget *title;
  GtkWidget *clear_button;
  GtkWidget *summary;
  GtkWidget *busy;
  GtkWidget *sections;  /* rebuilt on each update */
  guint      n_rows;
};

enum {
  CLEAR_AREA,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (BpwAggregateTable, bpw_aggregate_table, GTK_TYPE_WIDGET)

static GtkWidget *
bpw_aggregate_table_cell (const char *text,
                          gboolean    numeric,
                          gboolean    dim)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0 : 0.0);
  if (numeric)
    gtk_widget_add_css_class (label, "numeric");
  else
    {
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_widget_set_hexpand (label, TRUE);
      gtk_widget_set_tooltip_text (label, text);
    }
  if (dim)
    gtk_widget_add_css_class (label, "dim-label");
  return label;
}

static void
bpw_aggregate_table_add_row (GtkGrid    *grid,
                             int         row,
                             const char *name,
                             double      time_s,
                             double      busy_s,
                             guint       events,
                             gboolean    dim)
{
  g_autofree char *time = bpw_format_seconds (time_s);
  g_autofree char *share = g_strdup_printf ("%.1f %%", busy_s > 0 ? 100.0 * time_s / busy_s
                                                                  : 0.0);
  g_autofree char *count = bpw_format_count (events);

  gtk_grid_attach (grid, bpw_aggregate_table_cell (name, FALSE, dim), 0, row, 1, 1);
  gtk_grid_attach (grid, bpw_aggregate_table_cell (time, TRUE, dim), 1, row, 1, 1);
  gtk_grid_attach (grid, bpw_aggregate_table_cell (share, TRUE, dim), 2, row, 1, 1);
  gtk_grid_attach (grid, bpw_aggregate_table_cell (count, TRUE, dim), 3, row, 1, 1);
}

/* One heading and its grid: the largest rows, then the rest in one line. */
static void
bpw_aggregate_table_add_section (BpwAggregateTable *self,
                                 const char        *heading,
                                 const GArray      *rows,
                                 double             busy_s)
{
  GtkWidget *label = gtk_label_new (heading);
  GtkWidget *grid = gtk_grid_new ();
  double rest_s = 0;
  guint rest_events = 0, rest = 0;
  int row = 1;

  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_widget_add_css_class (label, "heading");
  gtk_widget_set_margin_top (label, 12);
  gtk_box_append (GTK_BOX (self->sections), label);

  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 3);
  /* Translators: column headings of the timeline's area table */
  gtk_grid_attach (GTK_GRID (grid), bpw_aggregate_table_cell (_("Time"), TRUE, TRUE), 1, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), bpw_aggregate_table_cell (_("Share"), TRUE, TRUE), 2, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), bpw_aggregate_table_cell (_("Events"), TRUE, TRUE), 3, 0, 1,
                   1);
  for (guint i = 0; i < rows->len; i++)
    {
      const BpwTimelineAggregateRow *r = &g_array_index (rows, BpwTimelineAggregateRow, i);

      if (r->events == 0)
        continue;
      if (i >= BPW_AGGREGATE_MAX_ROWS)
        {
          rest_s += r->time_s;
          rest_events += r->events;
          rest++;
          continue;
        }
      bpw_aggregate_table_add_row (GTK_GRID (grid), row++, r->label, r->time_s, busy_s,
                                   r->events, FALSE);
      self->n_rows++;
    }
  if (rest > 0)
    {
      g_autofree char *name = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u other",
                                                            "%u others", rest), rest);

      bpw_aggregate_table_add_row (GTK_GRID (grid), row++, name, rest_s, busy_s, rest_events,
                                   TRUE);
      self->n_rows++;
    }
  gtk_box_append (GTK_BOX (self->sections), grid);
}

static void
bpw_aggregate_table_clear_clicked_cb (BpwAggregateTable *self)
{
  g_signal_emit (self, signals[CLEAR_AREA], 0);
}

static void
bpw_aggregate_table_dispose (GObject *object)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (bpw_aggregate_table_parent_class)->dispose (object);
}

static void
bpw_aggregate_table_class_init (BpwAggregateTableClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_aggregate_table_dispose;

  /**
   * BpwAggregateTable::clear-area:
   *
   * The user asked to drop the selected area (and show the time in view again).
   */
  signals[CLEAR_AREA] = g_signal_new ("clear-area", G_TYPE_FROM_CLASS (klass),
                                      G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                      G_TYPE_NONE, 0);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "aggregatetable");
}

static void
bpw_aggregate_table_init (BpwAggregateTable *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 4);

  self->title = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->title), 0.0);
  gtk_widget_set_hexpand (self->title, TRUE);
  gtk_widget_add_css_class (self->title, "title-4");
  gtk_box_append (GTK_BOX (header), self->title);
  self->clear_button = gtk_button_new_from_icon_name ("window-close-symbolic");
  gtk_widget_add_css_class (self->clear_button, "flat");
  gtk_widget_set_valign (self->clear_button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (self->clear_button, _("Clear the Area"));
  g_signal_connect_object (self->clear_button, "clicked",
                           G_CALLBACK (bpw_aggregate_table_clear_clicked_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (header), self->clear_button);
  gtk_widget_set_parent (header, GTK_WIDGET (self));

  self->summary = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->summary), 0.0);
  gtk_label_set_wrap (GTK_LABEL (self->summary), TRUE);
  gtk_widget_add_css_class (self->summary, "dim-label");
  gtk_widget_add_css_class (self->summary, "numeric");
  gtk_widget_set_parent (self->summary, GTK_WIDGET (self));

  self->busy = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->busy), 0.0);
  gtk_label_set_wrap (GTK_LABEL (self->busy), TRUE);
  gtk_widget_set_parent (self->busy, GTK_WIDGET (self));

  self->sections = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_set_parent (self->sections, GTK_WIDGET (self));

  bpw_aggregate_table_set_aggregate (self, NULL, FALSE);
}

GtkWidget *
bpw_aggregate_table_new (void)
{
  return g_object_new (BPW_TYPE_AGGREGATE_TABLE, NULL);
}

void
bpw_aggregate_table_set_aggregate (BpwAggregateTable          *self,
                                   const BpwTimelineAggregate *aggregate,
                                   gboolean                    area)
{
  g_autofree char *t0 = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *busy = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *busy_text = NULL;
  g_autofree char *events = NULL;
  GtkWidget *child;

  g_return_if_fail (BPW_IS_AGGREGATE_TABLE (self));

  while ((child = gtk_widget_get_first_child (self->sections)) != NULL)
    gtk_box_remove (GTK_BOX (self->sections), child);
  self->n_rows = 0;
  gtk_label_set_text (GTK_LABEL (self->title), area ? _("Selected Area") : _("In View"));
  gtk_widget_set_visible (self->clear_button, area);
  if (aggregate == NULL || aggregate->events == 0)
    {
      gtk_label_set_text (GTK_LABEL (self->summary), "");
      gtk_label_set_text (GTK_LABEL (self->busy),
                          area ? _("No event lies inside the area.")
                               : _("Shift+drag across the timeline to sum up the time of an "
                                   "area here."));
      return;
    }

  t0 = bpw_format_seconds (aggregate->t0);
  t1 = bpw_format_seconds (aggregate->t1);
  events = bpw_format_count (aggregate->events);
  /* Translators: "1.20 s – 2.40 s · 6 lanes · 1,234 events" */
  summary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s – %s · %u lane · %s events",
                                          "%s – %s · %u lanes · %s events", aggregate->n_lanes),
                             t0, t1, aggregate->n_lanes, events);
  gtk_label_set_text (GTK_LABEL (self->summary), summary);
  busy = bpw_format_seconds (aggregate->busy_s);
  /* Translators: the summed event time of the lanes, e.g. "Busy 5.21 s: 72.4 % of the lanes’
   * time" */
  busy_text = g_strdup_printf (_("Busy %s: %.1f %% of the lanes’ time"), busy,
                               aggregate->t1 > aggregate->t0 && aggregate->n_lanes > 0
                               ? 100.0 * aggregate->busy_s
                                 / ((aggregate->t1 - aggregate->t0) * aggregate->n_lanes)
                               : 0.0);
  gtk_label_set_text (GTK_LABEL (self->busy), busy_text);

  bpw_aggregate_table_add_section (self, _("By Operation Kind"), aggregate->by_kind,
                                   aggregate->busy_s);
  bpw_aggregate_table_add_section (self, _("By Bottleneck"), aggregate->by_bottleneck,
                                   aggregate->busy_s);
  bpw_aggregate_table_add_section (self, _("By Phase"), aggregate->by_phase,
                                   aggregate->busy_s);
}

guint
bpw_aggregate_table_get_n_rows (BpwAggregateTable *self)
{
  g_return_val_if_fail (BPW_IS_AGGREGATE_TABLE (self), 0);
  return self->n_rows;
}

const char *
bpw_aggregate_table_get_summary (BpwAggregateTable *self)
{
  g_return_val_if_fail (BPW_IS_AGGREGATE_TABLE (self), NULL);
  return gtk_label_get_text (GTK_LABEL (self->summary));
}
