/* bpw-validation-page-sections.c — the Validation page's sections: headers and figures
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One section per reference, in a stack the page's sidebar switches: a header, a flow of
 * figures (the errors that sum the section up) and the tables (bpw-validation-page-tables.c).
 */
#define G_LOG_DOMAIN "bpw-validation-page"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "bpw-format.h"
#include "bpw-tooltip.h"
#include "bpw-validation-page-private.h"

/* A figure: a number and what it is, side by side with the others of its section. */
static void
bpw_validation_figure (GtkWidget  *flow,
                       const char *value,
                       const char *caption,
                       const char *tooltip)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *number = gtk_label_new (value);
  GtkWidget *what = gtk_label_new (caption);

  gtk_widget_add_css_class (box, "card");
  gtk_widget_add_css_class (box, "validation-figure");
  gtk_widget_add_css_class (number, "title-3");
  gtk_widget_add_css_class (number, "numeric");
  gtk_widget_add_css_class (what, "caption");
  gtk_widget_add_css_class (what, "dim-label");
  gtk_label_set_xalign (GTK_LABEL (number), 0.0);
  gtk_label_set_xalign (GTK_LABEL (what), 0.0);
  gtk_label_set_wrap (GTK_LABEL (what), TRUE);
  gtk_label_set_selectable (GTK_LABEL (number), TRUE);
  gtk_box_append (GTK_BOX (box), number);
  gtk_box_append (GTK_BOX (box), what);
  bpw_tooltip_set (box, tooltip);
  gtk_flow_box_append (GTK_FLOW_BOX (flow), box);
}

/* Title, subtitle and an optional widget at the end, over the section's content. */
static GtkWidget *
bpw_validation_section_box (const char *title,
                            const char *subtitle,
                            GtkWidget  *end)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *titles = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *heading = gtk_label_new (title);
  GtkWidget *sub = gtk_label_new (subtitle);

  gtk_widget_set_margin_top (box, 18);
  gtk_widget_set_margin_bottom (box, 18);
  gtk_widget_set_margin_start (box, 24);
  gtk_widget_set_margin_end (box, 24);
  gtk_widget_add_css_class (heading, "title-2");
  gtk_label_set_xalign (GTK_LABEL (heading), 0.0);
  gtk_label_set_wrap (GTK_LABEL (heading), TRUE);
  gtk_widget_add_css_class (sub, "dim-label");
  gtk_label_set_xalign (GTK_LABEL (sub), 0.0);
  gtk_label_set_wrap (GTK_LABEL (sub), TRUE);
  gtk_label_set_selectable (GTK_LABEL (sub), TRUE);
  gtk_widget_set_hexpand (titles, TRUE);
  gtk_box_append (GTK_BOX (titles), heading);
  gtk_box_append (GTK_BOX (titles), sub);
  gtk_box_append (GTK_BOX (header), titles);
  if (end != NULL)
    {
      gtk_widget_set_valign (end, GTK_ALIGN_CENTER);
      gtk_box_append (GTK_BOX (header), end);
    }
  gtk_box_append (GTK_BOX (box), header);
  return box;
}

/* Figures flow into as many rows as the width needs. */
static GtkWidget *
bpw_validation_figures (void)
{
  GtkWidget *row = gtk_flow_box_new ();

  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (row), GTK_SELECTION_NONE);
  gtk_flow_box_set_homogeneous (GTK_FLOW_BOX (row), TRUE);
  gtk_flow_box_set_min_children_per_line (GTK_FLOW_BOX (row), 2);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (row), 8);
  gtk_flow_box_set_column_spacing (GTK_FLOW_BOX (row), 12);
  gtk_flow_box_set_row_spacing (GTK_FLOW_BOX (row), 12);
  return row;
}

static BpwValidationSection *
bpw_validation_page_add_section (BpwValidationPage *self,
                                 GtkWidget         *widget,
                                 const char        *name,
                                 const char        *title)
{
  BpwValidationSection section = { .widget = widget };

  gtk_stack_add_titled (self->sections, widget, name, title);
  g_array_append_val (self->section_list, section);
  return &g_array_index (self->section_list, BpwValidationSection,
                         self->section_list->len - 1);
}

/* ---- Table 1 ---- */

static void
bpw_validation_page_table1 (BpwValidationPage      *self,
                            BpwValidationOutcome   *outcome)
{
  const BpwReportSection *s = outcome->has_table1
                              ? g_ptr_array_index (outcome->report->sections, 0) : NULL;
  g_autofree char *subtitle = NULL;
  g_autofree char *mean = NULL, *max = NULL, *within = NULL;
  BpwValidationSection *section;
  GtkWidget *box, *figures;
  guint passed;

  subtitle = g_strdup_printf (_("Narayanan et al., SC’21: achieved TFLOP/s per A100 of ten GPT "
                                "models, 1.7 B to 1 T parameters. Predicted on %s with the "
                                "settings the paper states, as bpw validate prints them; "
                                "where it is silent: fp16 with Adam, micro-batch 1, fused "
                                "bias + GeLU and Adam, attention scores materialised."),
                              outcome->table1_blueprint);
  box = bpw_validation_section_box (_("Megatron-LM 2021, Table 1"), subtitle, NULL);
  section = bpw_validation_page_add_section (self, box, "table1", _("Megatron-LM Table 1"));
  if (s == NULL)
    {
      GtkWidget *status = adw_status_page_new ();

      adw_status_page_set_icon_name (ADW_STATUS_PAGE (status), "dialog-warning-symbolic");
      adw_status_page_set_title (ADW_STATUS_PAGE (status), _("Table 1 Not Predicted"));
      adw_status_page_set_description (ADW_STATUS_PAGE (status), outcome->table1_error);
      gtk_widget_set_vexpand (status, TRUE);
      gtk_box_append (GTK_BOX (box), status);
      section->error = g_strdup (outcome->table1_error);
      return;
    }

  section->tables[BPW_VALIDATION_TABLE_MAIN] = g_list_store_new (BPW_TYPE_VALIDATION_ITEM);
  passed = _bpw_validation_fill_table1 (section->tables[BPW_VALIDATION_TABLE_MAIN], s);

  figures = bpw_validation_figures ();
  mean = g_strdup_printf ("%.1f %%", 100.0 * s->mean_abs_error);
  max = g_strdup_printf ("%.1f %%", 100.0 * s->max_abs_error);
  /* Translators: rows of Table 1 within the tolerance, "9 of 10" */
  within = g_strdup_printf (C_("validation rows", "%u of %u"), passed, s->entries->len);
  bpw_validation_figure (figures, mean, _("In-sample mean |error|"),
                         _("On the blueprint as it is: its efficiencies were fitted to these "
                           "rows"));
  bpw_validation_figure (figures, max, _("In-sample largest |error|"), NULL);
  if (!isnan (s->held_out_mean_abs_error))
    {
      g_autofree char *loo_mean = g_strdup_printf ("%.1f %%", 100.0 * s->held_out_mean_abs_error);
      g_autofree char *loo_max = g_strdup_printf ("%.1f %%", 100.0 * s->held_out_max_abs_error);

      bpw_validation_figure (figures, loo_mean, _("Leave-one-out mean |error|"),
                             _("Out of sample: each row predicted by efficiencies refitted "
                               "on the other nine"));
      bpw_validation_figure (figures, loo_max, _("Leave-one-out largest |error|"), NULL);
    }
  bpw_validation_figure (figures, within, _("Rows within ±10 %"),
                         _("bpw validate fails when a row is further off"));
  bpw_validation_figure (figures, s->blueprint, _("Blueprint"), NULL);
  gtk_box_append (GTK_BOX (box), figures);
  gtk_box_append (GTK_BOX (box),
                  _bpw_validation_table_new (section->tables[BPW_VALIDATION_TABLE_MAIN],
                                             BPW_VALIDATION_COLUMNS_TABLE1, FALSE,
                                             _("Table 1, predicted against published")));
}

/* ---- a measurement ---- */

static void
bpw_validation_calibrate_clicked_cb (GtkButton         *button,
                                     BpwValidationPage *self)
{
  _bpw_validation_page_calibrate_clicked (
    self, GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "bpw-section")));
}

static void
bpw_validation_measurement_figures (GtkWidget               *box,
                                    const BpwMeasurementRun *run,
                                    const BpwReportSection  *s)
{
  GtkWidget *figures = bpw_validation_figures ();
  const BpwCorrelationStats *st = &run->correlation->stats;
  g_autofree char *measured = bpw_format_seconds (s->step_measured_s);
  g_autofree char *predicted = bpw_format_seconds (s->step_predicted_s);
  g_autofree char *step = g_strdup_printf ("%+.1f %%", 100.0 * s->step_error);
  g_autofree char *per_op = g_strdup_printf ("%.0f %% · %.0f %%", 100.0 * s->mean_abs_error,
                                             100.0 * s->max_abs_error);
  g_autofree char *rates = g_strdup_printf ("%.1f %% · %.1f %%", 100.0 * s->modelled_match_rate,
                                            100.0 * s->measured_match_rate);
  g_autofree char *unexplained = g_strdup_printf ("%u", s->unexplained_items);
  g_autofree char *rates_tip = NULL;

  rates_tip = g_strdup_printf (_("%u of %u modelled operations have measured work (%u matched, "
                                 "%u computed by a matched kernel); %u of %u measured work "
                                 "items are matched"), st->matched_ops + st->covered_ops,
                               st->modelled_ops, st->matched_ops, st->covered_ops,
                               st->matched_items, st->measured_items);
  bpw_validation_figure (figures, measured, _("Measured step"),
                         _("First measured work item to the end of the last"));
  bpw_validation_figure (figures, predicted, _("Predicted step"), _("The simulated step"));
  bpw_validation_figure (figures, step, _("Step error, end to end"),
                         _("Predicted / measured − 1"));
  if (s->calibrated_blueprint != NULL && !isnan (s->step_calibrated_s))
    {
      g_autofree char *cal = g_strdup_printf ("%+.1f %%", 100.0 * (s->step_calibrated_s /
                                                                   s->step_measured_s - 1.0));
      g_autofree char *tip = g_strdup_printf (_("Predicted on %s"), s->calibrated_blueprint);

      bpw_validation_figure (figures, cal, _("Calibrated step error"), tip);
    }
  bpw_validation_figure (figures, per_op, _("Mean · largest |error| per operation"), NULL);
  bpw_validation_figure (figures, rates, _("Correlated: modelled · measured"), rates_tip);
  bpw_validation_figure (figures, unexplained, _("Unexplained kernels"),
                         _("Extra measured work whose kind no pattern recognises"));
  gtk_box_append (GTK_BOX (box), figures);
}

static void
bpw_validation_page_measurement (BpwValidationPage    *self,
                                 BpwValidationOutcome *outcome,
                                 guint                 index)
{
  const BpwMeasurementRun *run = &outcome->runs[index];
  const BpwReportSection *s = _bpw_validation_outcome_section (outcome, index);
  g_autofree char *subtitle = NULL;
  g_autofree char *meta = NULL;
  g_autofree char *file = g_path_get_basename (run->path != NULL ? run->path : "");
  g_autofree char *id = g_strdup_printf ("measurement-%u", index);
  BpwValidationSection *section;
  GtkWidget *box, *button, *stack, *switcher;
  static const char * const ids[BPW_VALIDATION_N_TABLES] = {
    [BPW_VALIDATION_TABLE_MAIN] = "operations",
    [BPW_VALIDATION_TABLE_EXTRA] = "extra",
    [BPW_VALIDATION_TABLE_MISSING] = "missing",
  };

  button = gtk_button_new_with_mnemonic (_("_Calibrate Blueprint"));
  gtk_widget_add_css_class (button, "suggested-action");
  gtk_widget_set_tooltip_text (button, _("Fit the efficiency tables of the candidate’s "
                                         "blueprint to this measurement and add the "
                                         "calibrated copy to the study"));
  g_object_set_data (G_OBJECT (button), "bpw-section",
                     GUINT_TO_POINTER (self->section_list->len));
  g_signal_connect_object (button, "clicked", G_CALLBACK (bpw_validation_calibrate_clicked_cb),
                           self, 0);
  gtk_widget_set_sensitive (button, s != NULL);
  meta = s != NULL && s->metadata != NULL ? g_strdup (s->metadata)
                                           : g_strdup (_("no metadata recorded"));
  /* Translators: candidate, scenario, the profile's file, where it was measured */
  subtitle = g_strdup_printf (_("%s on %s, measured by %s (%s)%s"), run->candidate,
                              run->scenario, file, meta,
                              run->changed ? _(". The file changed since it was added to "
                                               "the study: these are its numbers now.") : "");
  box = bpw_validation_section_box (run->name, subtitle, button);
  section = bpw_validation_page_add_section (self, box, id, run->name);
  if (s == NULL)
    {
      GtkWidget *status = adw_status_page_new ();

      section->error = g_strdup (outcome->errors[index]);
      adw_status_page_set_icon_name (ADW_STATUS_PAGE (status), "dialog-warning-symbolic");
      adw_status_page_set_title (ADW_STATUS_PAGE (status), _("Measurement Not Correlated"));
      adw_status_page_set_description (ADW_STATUS_PAGE (status), section->error);
      gtk_widget_set_vexpand (status, TRUE);
      gtk_box_append (GTK_BOX (box), status);
      return;
    }

  bpw_validation_measurement_figures (box, run, s);
  stack = gtk_stack_new ();
  switcher = gtk_stack_switcher_new ();
  gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher), GTK_STACK (stack));
  gtk_widget_set_halign (switcher, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (box), switcher);
  for (guint t = 0; t < BPW_VALIDATION_N_TABLES; t++)
    {
      GListStore *store = g_list_store_new (BPW_TYPE_VALIDATION_ITEM);
      g_autofree char *title = NULL;
      guint n;

      section->tables[t] = store;
      if (t == BPW_VALIDATION_TABLE_MAIN)
        _bpw_validation_fill_operations (store, run);
      else
        _bpw_validation_fill_unmatched (store, run, t == BPW_VALIDATION_TABLE_EXTRA
                                                    ? BPW_ROW_EXTRA : BPW_ROW_MISSING);
      n = g_list_model_get_n_items (G_LIST_MODEL (store));
      /* Translators: %u counts the rows of each table */
      title = t == BPW_VALIDATION_TABLE_MAIN ? g_strdup_printf (_("Operations (%u)"), n)
              : t == BPW_VALIDATION_TABLE_EXTRA ? g_strdup_printf (_("Extra Work (%u)"), n)
              : g_strdup_printf (_("Missing Work (%u)"), n);
      gtk_stack_add_titled (GTK_STACK (stack),
                            _bpw_validation_table_new (store,
                                                       BPW_VALIDATION_COLUMNS_OPERATIONS + t,
                                                       s->calibrated_blueprint != NULL, title),
                            ids[t], title);
    }
  gtk_box_append (GTK_BOX (box), stack);
}

void
_bpw_validation_section_clear (gpointer data)
{
  BpwValidationSection *section = data;

  for (guint t = 0; t < BPW_VALIDATION_N_TABLES; t++)
    g_clear_object (&section->tables[t]);
  g_clear_pointer (&section->error, g_free);
}

void
_bpw_validation_page_show (BpwValidationPage    *self,
                           BpwValidationOutcome *outcome)
{
  g_autofree char *visible = g_strdup (gtk_stack_get_visible_child_name (self->sections));
  GtkWidget *child;

  /* The sections are built anew; the one the user looked at stays in view. GTK 4.8's
   * stack sidebar stumbles over pages removed under it: it lets go of the stack first. */
  gtk_stack_sidebar_set_stack (self->sidebar, NULL);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->sections))) != NULL)
    gtk_stack_remove (self->sections, child);
  g_array_set_size (self->section_list, 0);
  g_clear_pointer (&self->outcome, _bpw_validation_outcome_unref);
  if (outcome == NULL)
    {
      gtk_stack_sidebar_set_stack (self->sidebar, self->sections);
      gtk_stack_set_visible_child_name (self->state, "computing");
      return;
    }
  self->outcome = _bpw_validation_outcome_ref (outcome);
  bpw_validation_page_table1 (self, outcome);
  for (guint i = 0; i < outcome->n_runs; i++)
    bpw_validation_page_measurement (self, outcome, i);
  if (visible != NULL && gtk_stack_get_child_by_name (self->sections, visible) != NULL)
    gtk_stack_set_visible_child_name (self->sections, visible);
  gtk_stack_sidebar_set_stack (self->sidebar, self->sections);
  gtk_label_set_text (self->hint, outcome->n_runs == 0
                      ? _("This study holds no measurements yet. Open a profile — a Chrome or "
                          "Perfetto trace, or a PyTorch profiler trace — and it becomes a "
                          "measurement of the selected candidate on the selected scenario.")
                      : _("Open another profile to add a measurement of the selected "
                          "candidate on the selected scenario."));
  gtk_stack_set_visible_child_name (self->state, "report");
}
