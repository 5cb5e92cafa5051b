/* bpw-fit-matrix.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-fit-matrix"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "bpw-fit-matrix.h"
#include "bpw-format.h"
#include "bpw-tooltip.h"

typedef struct
{
  BpwFitVerdict  verdict;
  gboolean       strong;   /* the margin is 25 % or more either way */
  GtkWidget     *button;   /* owned by the grid */
  GtkLabel      *title;
  GtkLabel      *detail;
} BpwFitCell;

struct _BpwFitMatrix
{
  GtkWidget   parent_instance;

  GtkWidget  *grid;        /* the only child, a GtkGrid */
  GPtrArray  *candidates;  /* owned names */
  GPtrArray  *scenarios;
  GArray     *cells;       /* BpwFitCell, [candidate * n_scenarios + scenario] */
};

enum {
  CELL_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (BpwFitMatrix, bpw_fit_matrix, GTK_TYPE_WIDGET)

static const char * const verdict_classes[] = {
  [BPW_FIT_NONE] = "fit-none",
  [BPW_FIT_PASS] = "fit-pass",
  [BPW_FIT_FAIL] = "fit-fail",
  [BPW_FIT_NO_SLA] = "fit-nosla",
  [BPW_FIT_ILLEGAL] = "fit-illegal",
};

static const char *
bpw_fit_matrix_metric_name (const char *metric)
{
  if (g_strcmp0 (metric, "TTFT") == 0)
    return _("TTFT");
  if (g_strcmp0 (metric, "TPOT") == 0)
    return _("TPOT");
  return _("Step time");
}

/* What a tile says: a verdict with its margin, then the value and the bottleneck. */
static BpwFitVerdict
bpw_fit_matrix_describe (const BpwCompareFit  *f,
                         char                **title,
                         char                **detail,
                         char                **tooltip)
{
  const char *metric = bpw_fit_matrix_metric_name (f->metric);
  const char *bottleneck = bpw_bottleneck_display_name (f->eval.bottleneck);
  double percent = 100.0 * fabs (f->sla_margin);
  g_autofree char *value = NULL;
  g_autofree char *limit = NULL;
  g_autofree char *rate = NULL;
  g_autofree char *devices = NULL;

  if (!f->ok || !f->legal)
    {
      *title = g_strdup (f->ok ? _("Illegal plan") : _("Not evaluated"));
      *detail = g_strdup (f->error != NULL ? f->error : "");
      *tooltip = g_strdup (*detail);
      return BPW_FIT_ILLEGAL;
    }

  value = bpw_format_seconds (f->value);
  if (!f->has_sla)
    {
      double relative = isfinite (f->relative) ? 100.0 * f->relative : 0.0;

      rate = bpw_format_si (f->eval.tokens_per_s, _("tokens/s"));
      /* Translators: a scenario without an SLA; the share of the best candidate's
       * throughput on that scenario */
      *title = g_strdup_printf (_("No SLA · %.0f %% of best"), relative);
      /* Translators: "Step time 12.3 s · bottleneck: memory" */
      *detail = g_strdup_printf (_("%s %s · bottleneck: %s"), metric, value, bottleneck);
      devices = g_strdup_printf ("%" G_GINT64_FORMAT, f->devices);
      /* Translators: "… 5.85 k tokens/s on 8 devices: 74 % of the best …" */
      *tooltip = g_strdup_printf (_("The scenario sets no SLA. %s on %s devices: %.0f %% of "
                                    "the best candidate’s throughput."),
                                  rate, devices, relative);
      return BPW_FIT_NO_SLA;
    }

  limit = bpw_format_seconds (f->sla_limit);
  /* Translators: the SLA verdict and the margin to its limit, (limit − value) / limit;
   * "−" is a minus sign */
  *title = f->sla_pass ? g_strdup_printf (_("Met · +%.0f %%"), percent)
                       : g_strdup_printf (_("Missed · −%.0f %%"), percent);
  /* The limit is in the scenario's heading; the tooltip repeats it. */
  *detail = g_strdup_printf (_("%s %s · bottleneck: %s"), metric, value, bottleneck);
  *tooltip = f->sla_pass
             ? g_strdup_printf (_("%s %s against a limit of %s: met, %.0f %% below the "
                                  "limit."), metric, value, limit, percent)
             : g_strdup_printf (_("%s %s against a limit of %s: missed, %.0f %% over the "
                                  "limit."), metric, value, limit, percent);
  return f->sla_pass ? BPW_FIT_PASS : BPW_FIT_FAIL;
}

static BpwFitCell *
bpw_fit_matrix_cell (BpwFitMatrix *self,
                     guint         candidate,
                     guint         scenario)
{
  if (candidate >= self->candidates->len || scenario >= self->scenarios->len)
    return NULL;
  return &g_array_index (self->cells, BpwFitCell, candidate * self->scenarios->len + scenario);
}

static void
bpw_fit_matrix_clicked_cb (GtkButton    *button,
                           BpwFitMatrix *self)
{
  for (guint i = 0; i < self->cells->len; i++)
    if (g_array_index (self->cells, BpwFitCell, i).button == GTK_WIDGET (button))
      g_signal_emit (self, signals[CELL_ACTIVATED], 0, i / self->scenarios->len,
                     i % self->scenarios->len);
}

static GtkWidget *
bpw_fit_matrix_heading (const char *title,
                        const char *subtitle,
                        float       xalign)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *label = gtk_label_new (title);
  GtkWidget *sub = gtk_label_new (subtitle);

  gtk_label_set_xalign (GTK_LABEL (label), xalign);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (label, "heading");
  gtk_label_set_xalign (GTK_LABEL (sub), xalign);
  gtk_label_set_ellipsize (GTK_LABEL (sub), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (sub, "dim-label");
  gtk_widget_add_css_class (sub, "caption");
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), sub);
  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);
  return box;
}

/* "SLA: TPOT ≤ 50.0 ms" from the scenario's first tile with an SLA. */
static char *
bpw_fit_matrix_dup_sla (const BpwCompareData *data,
                        guint                 scenario)
{
  for (guint c = 0; c < data->n_candidates; c++)
    {
      const BpwCompareFit *f = bpw_compare_data_cell (data, c, scenario);

      if (f->ok && f->has_sla)
        {
          g_autofree char *limit = bpw_format_seconds (f->sla_limit);

          /* Translators: the SLA of a scenario, "SLA: TPOT ≤ 50.0 ms" */
          return g_strdup_printf (_("SLA: %s ≤ %s"), bpw_fit_matrix_metric_name (f->metric),
                                  limit);
        }
    }
  return g_strdup (_("No SLA"));
}

static void
bpw_fit_matrix_rebuild (BpwFitMatrix         *self,
                        const BpwCompareData *data)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (self->grid)) != NULL)
    gtk_grid_remove (GTK_GRID (self->grid), child);
  g_ptr_array_set_size (self->candidates, 0);
  g_ptr_array_set_size (self->scenarios, 0);
  g_array_set_size (self->cells, 0);
  if (data == NULL)
    return;

  for (guint s = 0; s < data->n_scenarios; s++)
    {
      g_autofree char *sla = bpw_fit_matrix_dup_sla (data, s);

      g_ptr_array_add (self->scenarios, g_strdup (data->scenarios[s]));
      gtk_grid_attach (GTK_GRID (self->grid),
                       bpw_fit_matrix_heading (data->scenarios[s], sla, 0.0),
                       (int) s + 1, 0, 1, 1);
    }
  for (guint c = 0; c < data->n_candidates; c++)
    {
      g_ptr_array_add (self->candidates, g_strdup (data->candidates[c]));
      gtk_grid_attach (GTK_GRID (self->grid),
                       bpw_fit_matrix_heading (data->candidates[c], data->blueprints[c], 0.0),
                       0, (int) c + 1, 1, 1);
      for (guint s = 0; s < data->n_scenarios; s++)
        {
          BpwFitCell cell = { BPW_FIT_NONE };
          GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);

          cell.title = GTK_LABEL (gtk_label_new (NULL));
          cell.detail = GTK_LABEL (gtk_label_new (NULL));
          gtk_label_set_xalign (cell.title, 0.0);
          gtk_label_set_xalign (cell.detail, 0.0);
          gtk_label_set_ellipsize (cell.detail, PANGO_ELLIPSIZE_END);
          gtk_widget_add_css_class (GTK_WIDGET (cell.title), "heading");
          gtk_widget_add_css_class (GTK_WIDGET (cell.detail), "caption");
          gtk_widget_add_css_class (GTK_WIDGET (cell.detail), "numeric");
          gtk_box_append (GTK_BOX (box), GTK_WIDGET (cell.title));
          gtk_box_append (GTK_BOX (box), GTK_WIDGET (cell.detail));
          cell.button = gtk_button_new ();
          gtk_button_set_child (GTK_BUTTON (cell.button), box);
          gtk_widget_add_css_class (cell.button, "fit-tile");
          gtk_widget_set_hexpand (cell.button, TRUE);
          g_signal_connect_object (cell.button, "clicked",
                                   G_CALLBACK (bpw_fit_matrix_clicked_cb), self, 0);
          gtk_grid_attach (GTK_GRID (self->grid), cell.button, (int) s + 1, (int) c + 1, 1, 1);
          g_array_append_val (self->cells, cell);
        }
    }
}

/* The same candidates and scenarios as shown: the tiles stay, with new words. */
static gboolean
bpw_fit_matrix_same_shape (BpwFitMatrix         *self,
                           const BpwCompareData *data)
{
  if (data == NULL || data->n_candidates != self->candidates->len
      || data->n_scenarios != self->scenarios->len)
    return FALSE;
  for (guint c = 0; c < data->n_candidates; c++)
    if (g_strcmp0 (data->candidates[c], g_ptr_array_index (self->candidates, c)) != 0)
      return FALSE;
  for (guint s = 0; s < data->n_scenarios; s++)
    if (g_strcmp0 (data->scenarios[s], g_ptr_array_index (self->scenarios, s)) != 0)
      return FALSE;
  return TRUE;
}

/* Only what changed: an edit changes one candidate's tiles, and restyling the others
 * would cost the Overview a relayout for nothing. */
static void
bpw_fit_matrix_update_cell (BpwFitMatrix        *self,
                            guint                i,
                            const BpwCompareFit *f)
{
  BpwFitCell *cell = &g_array_index (self->cells, BpwFitCell, i);
  g_autofree char *title = NULL;
  g_autofree char *detail = NULL;
  g_autofree char *tooltip = NULL;
  g_autofree char *name = NULL;
  BpwFitVerdict verdict = bpw_fit_matrix_describe (f, &title, &detail, &tooltip);
  /* A wide margin either way is the news of a review: it stands out. */
  gboolean strong = f->ok && f->legal && f->has_sla && fabs (f->sla_margin) >= 0.25;

  if (verdict != cell->verdict || strong != cell->strong)
    {
      gtk_widget_remove_css_class (cell->button, verdict_classes[cell->verdict]);
      gtk_widget_add_css_class (cell->button, verdict_classes[verdict]);
      if (strong)
        gtk_widget_add_css_class (cell->button, "fit-strong");
      else
        gtk_widget_remove_css_class (cell->button, "fit-strong");
      gtk_widget_remove_css_class (GTK_WIDGET (cell->title), "success");
      gtk_widget_remove_css_class (GTK_WIDGET (cell->title), "error");
      if (verdict == BPW_FIT_PASS || verdict == BPW_FIT_FAIL)
        gtk_widget_add_css_class (GTK_WIDGET (cell->title),
                                  verdict == BPW_FIT_PASS ? "success" : "error");
      cell->verdict = verdict;
      cell->strong = strong;
    }
  else if (g_strcmp0 (gtk_label_get_text (cell->title), title) == 0
           && g_strcmp0 (gtk_label_get_text (cell->detail), detail) == 0
           && g_strcmp0 (bpw_tooltip_get (cell->button), tooltip) == 0)
    return;
  gtk_label_set_text (cell->title, title);
  gtk_label_set_text (cell->detail, detail);
  bpw_tooltip_set (cell->button, tooltip);
  /* Translators: accessible name of a fit-matrix tile, "H100 on llama3-70b-decode: Met ·
   * +78 %, TPOT 10.9 ms · bottleneck: memory" */
  name = g_strdup_printf (_("%s on %s: %s, %s"),
                          (char *) g_ptr_array_index (self->candidates, i / self->scenarios->len),
                          (char *) g_ptr_array_index (self->scenarios, i % self->scenarios->len),
                          title, detail);
  gtk_accessible_update_property (GTK_ACCESSIBLE (cell->button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
}

static void
bpw_fit_matrix_dispose (GObject *object)
{
  BpwFitMatrix *self = BPW_FIT_MATRIX (object);

  g_clear_pointer (&self->grid, gtk_widget_unparent);
  g_clear_pointer (&self->candidates, g_ptr_array_unref);
  g_clear_pointer (&self->scenarios, g_ptr_array_unref);
  g_clear_pointer (&self->cells, g_array_unref);

  G_OBJECT_CLASS (bpw_fit_matrix_parent_class)->dispose (object);
}

static void
bpw_fit_matrix_class_init (BpwFitMatrixClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_fit_matrix_dispose;

  /* A tile was activated: (candidate, scenario), indices into the data's. */
  signals[CELL_ACTIVATED] =
    g_signal_new ("cell-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_UINT);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "fitmatrix");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
bpw_fit_matrix_init (BpwFitMatrix *self)
{
  self->grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (self->grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (self->grid), 6);
  gtk_widget_set_parent (self->grid, GTK_WIDGET (self));
  self->candidates = g_ptr_array_new_with_free_func (g_free);
  self->scenarios = g_ptr_array_new_with_free_func (g_free);
  self->cells = g_array_new (FALSE, TRUE, sizeof (BpwFitCell));
}

GtkWidget *
bpw_fit_matrix_new (void)
{
  return g_object_new (BPW_TYPE_FIT_MATRIX, NULL);
}

void
bpw_fit_matrix_set_data (BpwFitMatrix         *self,
                         const BpwCompareData *data)
{
  g_return_if_fail (BPW_IS_FIT_MATRIX (self));

  if (!bpw_fit_matrix_same_shape (self, data))
    bpw_fit_matrix_rebuild (self, data);
  for (guint i = 0; data != NULL && i < self->cells->len; i++)
    bpw_fit_matrix_update_cell (self, i, &data->cells[i]);
}

guint
bpw_fit_matrix_get_n_candidates (BpwFitMatrix *self)
{
  g_return_val_if_fail (BPW_IS_FIT_MATRIX (self), 0);
  return self->candidates->len;
}

guint
bpw_fit_matrix_get_n_scenarios (BpwFitMatrix *self)
{
  g_return_val_if_fail (BPW_IS_FIT_MATRIX (self), 0);
  return self->scenarios->len;
}

const char *
bpw_fit_matrix_get_candidate (BpwFitMatrix *self,
                              guint         candidate)
{
  g_return_val_if_fail (BPW_IS_FIT_MATRIX (self), NULL);
  return candidate < self->candidates->len ? g_ptr_array_index (self->candidates, candidate)
                                           : NULL;
}

const char *
bpw_fit_matrix_get_scenario (BpwFitMatrix *self,
                             guint         scenario)
{
  g_return_val_if_fail (BPW_IS_FIT_MATRIX (self), NULL);
  return scenario < self->scenarios->len ? g_ptr_array_index (self->scenarios, scenario)
                                         : NULL;
}

BpwFitVerdict
bpw_fit_matrix_get_verdict (BpwFitMatrix *self,
                            guint         candidate,
                            guint         scenario)
{
  BpwFitCell *cell;

  g_return_val_if_fail (BPW_IS_FIT_MATRIX (self), BPW_FIT_NONE);

  cell = bpw_fit_matrix_cell (self, candidate, scenario);
  return cell != NULL ? cell->verdict : BPW_FIT_NONE;
}

char *
bpw_fit_matrix_dup_cell_text (BpwFitMatrix *self,
                              guint         candidate,
                              guint         scenario)
{
  BpwFitCell *cell;

  g_return_val_if_fail (BPW_IS_FIT_MATRIX (self), NULL);

  cell = bpw_fit_matrix_cell (self, candidate, scenario);
  if (cell == NULL)
    return NULL;
  return g_strconcat (gtk_label_get_text (cell->title), "\n", gtk_label_get_text (cell->detail),
                      NULL);
}

GtkWidget *
bpw_fit_matrix_get_cell (BpwFitMatrix *self,
                         guint         candidate,
                         guint         scenario)
{
  BpwFitCell *cell;

  g_return_val_if_fail (BPW_IS_FIT_MATRIX (self), NULL);

  cell = bpw_fit_matrix_cell (self, candidate, scenario);
  return cell != NULL ? cell->button : NULL;
}
