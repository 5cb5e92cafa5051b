/* bpw-facts-details.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-facts-details"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-facts-details.h"
#include "bpw-tooltip.h"

struct _BpwFactsDetails
{
  GtkWidget   parent_instance;

  /* Borrowed: children of self */
  GtkLabel   *title;
  GtkLabel   *message;
  GtkListBox *work;
  GtkListBox *step;
  GtkListBox *conservation;
  GtkWidget  *stack_box;     /* the implementation transformations, under conservation */
  GtkLabel   *stack_note;    /* which stack, and its status */
  GtkListBox *stack;
  GtkWidget  *columns;

  /* Owned */
  BpwFactsRow *row;

  BpwByteUnits units;
};

G_DEFINE_FINAL_TYPE (BpwFactsDetails, bpw_facts_details, GTK_TYPE_WIDGET)

static const char *
bpw_facts_details_phase_label (BpwPhase phase)
{
  switch (phase)
    {
    case BPW_PHASE_FORWARD:
      return _("Forward");
    case BPW_PHASE_RECOMPUTE:
      return _("Recompute");
    case BPW_PHASE_BACKWARD_ACTIVATION:
      return _("Backward, activation gradients");
    case BPW_PHASE_BACKWARD_WEIGHT:
      return _("Backward, weight gradients");
    case BPW_PHASE_OPTIMIZER:
      return _("Optimizer");
    default:
      return bpw_phase_to_string (phase);
    }
}

static void
bpw_facts_details_clear (GtkListBox *list)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (list))) != NULL)
    gtk_list_box_remove (list, child);
}

static char *
bpw_facts_details_exact (BpwU128     value,
                         const char *unit)
{
  g_autofree char *count = bpw_format_count (value);

  return g_strconcat (count, " ", unit, NULL);
}

/* The value label of the list's last row. */
static GtkWidget *
bpw_facts_details_add_last_value (GtkListBox *list)
{
  return g_object_get_data (G_OBJECT (gtk_widget_get_last_child (GTK_WIDGET (list))),
                            "bpw-value");
}

/* Takes ownership of @value and @tooltip. */
static void
bpw_facts_details_add (GtkListBox *list,
                       const char *title,
                       char       *value,
                       char       *tooltip)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *label = gtk_label_new (value);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_widget_add_css_class (label, "numeric");
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  bpw_tooltip_set (label, tooltip);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
  g_object_set_data (G_OBJECT (row), "bpw-value", label);
  gtk_list_box_append (list, row);
  g_free (value);
  g_free (tooltip);
}

static GtkListBox *
bpw_facts_details_add_group (BpwFactsDetails *self,
                             const char      *heading)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *label = gtk_label_new (heading);
  GtkWidget *list = gtk_list_box_new ();

  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_widget_add_css_class (label, "heading");
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  gtk_widget_set_valign (list, GTK_ALIGN_START);
  gtk_widget_set_hexpand (box, TRUE);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), list);
  gtk_box_append (GTK_BOX (self->columns), box);

  return GTK_LIST_BOX (list);
}

static void
bpw_facts_details_dispose (GObject *object)
{
  BpwFactsDetails *self = BPW_FACTS_DETAILS (object);
  GtkWidget *child;

  g_clear_object (&self->row);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (bpw_facts_details_parent_class)->dispose (object);
}

static void
bpw_facts_details_class_init (BpwFactsDetailsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_facts_details_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "factsdetails");
}

static void
bpw_facts_details_init (BpwFactsDetails *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 12);

  self->title = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->title, 0.0);
  gtk_widget_add_css_class (GTK_WIDGET (self->title), "title-3");
  gtk_widget_set_parent (GTK_WIDGET (self->title), GTK_WIDGET (self));

  self->message = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->message, 0.0);
  gtk_label_set_wrap (self->message, TRUE);
  gtk_label_set_selectable (self->message, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->message), "dim-label");
  gtk_widget_set_parent (GTK_WIDGET (self->message), GTK_WIDGET (self));

  self->columns = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 24);
  gtk_box_set_homogeneous (GTK_BOX (self->columns), TRUE);
  gtk_widget_set_parent (self->columns, GTK_WIDGET (self));
  self->work = bpw_facts_details_add_group (self, _("Executed Work per Step"));
  self->step = bpw_facts_details_add_group (self, _("Step and Memory"));
  self->conservation = bpw_facts_details_add_group (self, _("Conservation"));

  /* The software stack's kernels are not semantic work: their own list, under it. */
  {
    GtkWidget *heading = gtk_label_new (_("Implementation (Software Stack)"));
    GtkWidget *box = gtk_widget_get_parent (GTK_WIDGET (self->conservation));

    self->stack_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
    gtk_widget_set_margin_top (self->stack_box, 12);
    gtk_label_set_xalign (GTK_LABEL (heading), 0.0);
    gtk_widget_add_css_class (heading, "heading");
    self->stack_note = GTK_LABEL (gtk_label_new (NULL));
    gtk_label_set_xalign (self->stack_note, 0.0);
    gtk_label_set_wrap (self->stack_note, TRUE);
    gtk_label_set_selectable (self->stack_note, TRUE);
    gtk_widget_add_css_class (GTK_WIDGET (self->stack_note), "dim-label");
    gtk_widget_add_css_class (GTK_WIDGET (self->stack_note), "caption");
    self->stack = GTK_LIST_BOX (gtk_list_box_new ());
    gtk_list_box_set_selection_mode (self->stack, GTK_SELECTION_NONE);
    gtk_widget_add_css_class (GTK_WIDGET (self->stack), "boxed-list");
    gtk_box_append (GTK_BOX (self->stack_box), heading);
    gtk_box_append (GTK_BOX (self->stack_box), GTK_WIDGET (self->stack_note));
    gtk_box_append (GTK_BOX (self->stack_box), GTK_WIDGET (self->stack));
    gtk_box_append (GTK_BOX (box), self->stack_box);
    gtk_widget_set_visible (self->stack_box, FALSE);
  }

  bpw_facts_details_set_row (self, NULL);
}

GtkWidget *
bpw_facts_details_new (void)
{
  return g_object_new (BPW_TYPE_FACTS_DETAILS, NULL);
}

void
bpw_facts_details_set_row (BpwFactsDetails *self,
                           BpwFactsRow     *row)
{
  const BpwFacts *facts;
  const BpwConservation *c;

  g_return_if_fail (BPW_IS_FACTS_DETAILS (self));
  g_return_if_fail (row == NULL || BPW_IS_FACTS_ROW (row));

  /* Rebuilding the lists is not free; an edit that kept the scenario keeps its row. */
  if (row == self->row && row != NULL)
    return;
  g_set_object (&self->row, row);
  bpw_facts_details_clear (self->work);
  bpw_facts_details_clear (self->step);
  bpw_facts_details_clear (self->conservation);

  facts = row != NULL ? bpw_facts_row_get_facts (row) : NULL;
  gtk_widget_set_visible (self->columns, facts != NULL);
  gtk_label_set_text (self->title, row != NULL ? bpw_facts_row_get_name (row) : "");
  gtk_widget_set_visible (GTK_WIDGET (self->title), row != NULL);

  if (row == NULL)
    {
      gtk_label_set_text (self->message, _("Select a scenario to see its work by phase."));
      return;
    }
  if (facts == NULL)
    {
      gtk_label_set_text (self->message, bpw_facts_row_get_error (row));
      return;
    }

  gtk_label_set_text (self->message,
                      _("Whole job, one training or inference step. Memory is on the most loaded "
                        "device. Hover a value for its exact count."));

  for (guint p = 0; p < BPW_N_PHASES; p++)
    bpw_facts_details_add (self->work, bpw_facts_details_phase_label (p),
                           bpw_format_si (bpw_u128_to_double (facts->flops_by_phase[p]), "FLOP"),
                           bpw_facts_details_exact (facts->flops_by_phase[p], "FLOP"));

  bpw_facts_details_add (self->step, _("Tokens per step"),
                         bpw_format_si (bpw_u128_to_double (facts->tokens_per_step), ""),
                         bpw_facts_details_exact (facts->tokens_per_step, ""));
  bpw_facts_details_add (self->step, _("Micro-batches per pipeline"),
                         g_strdup_printf ("%lld", (long long) facts->micro_batches), NULL);
  bpw_facts_details_add (self->step, _("Most loaded pipeline stage"),
                         g_strdup_printf ("%lld", (long long) facts->memory_stage), NULL);
  bpw_facts_details_add (self->step, _("Activations stored per layer"),
                         bpw_format_bytes (facts->activation_per_layer, self->units),
                         bpw_facts_details_exact (facts->activation_per_layer, "B"));
  bpw_facts_details_add (self->step, _("KV cache per token, per device"),
                         bpw_facts_details_exact (facts->kv_bytes_per_token, "B"), NULL);

  c = &facts->conservation;
  bpw_facts_details_add (self->conservation, _("Reconciled"),
                         g_strdup (c->ok ? "✓" : "✗"), g_strdup (c->message));
  gtk_widget_add_css_class (bpw_facts_details_add_last_value (self->conservation),
                            c->ok ? "success" : "error");
  bpw_facts_details_add (self->conservation, _("Semantic work"),
                         bpw_format_si (bpw_u128_to_double (c->semantic_flops), "FLOP"),
                         bpw_facts_details_exact (c->semantic_flops, "FLOP"));
  bpw_facts_details_add (self->conservation, _("Summed over ranks"),
                         bpw_format_si (bpw_u128_to_double (c->distributed_flops), "FLOP"),
                         bpw_facts_details_exact (c->distributed_flops, "FLOP"));
  for (guint i = 0; i < BPW_N_ADDITIONS; i++)
    {
      const BpwAdditionTotal *a = &c->additions[i];
      g_autofree char *flops = NULL;
      g_autofree char *title = NULL;

      if (a->addition == BPW_ADDITION_NONE || (a->flops == 0 && a->bytes == 0))
        continue;
      flops = bpw_format_si (bpw_u128_to_double (a->flops), "FLOP");
      /* The core describes additions in running text; a row title starts with a capital. */
      title = g_strdup (bpw_addition_describe (a->addition));
      title[0] = g_ascii_toupper (title[0]);
      bpw_facts_details_add (self->conservation, title,
                             g_strconcat ("+", flops, NULL),
                             bpw_facts_details_exact (a->flops, "FLOP"));
    }
}

void
bpw_facts_details_set_stack (BpwFactsDetails *self,
                             const char      *candidate,
                             const char      *stack_name,
                             const char      *stack_source)
{
  g_autofree char *note = NULL;

  g_return_if_fail (BPW_IS_FACTS_DETAILS (self));

  bpw_facts_details_clear (self->stack);
  gtk_widget_set_visible (self->stack_box, candidate != NULL);
  if (candidate == NULL)
    return;
  if (stack_name != NULL)
    /* Translators: %s: a candidate; %s: its blueprint's software stack, with its status
     * ("typical PyTorch eager stack (estimate)") */
    note = g_strdup_printf (_("%s on %s: kernels the work graph does not contain, each with "
                              "its own time (device-seconds over every rank, per step)"),
                            candidate, stack_name);
  else
    note = g_strdup_printf (_("%s: the blueprint states no software stack"), candidate);
  gtk_label_set_text (self->stack_note, note);
  bpw_tooltip_set (GTK_WIDGET (self->stack_note), stack_source);
}

void
bpw_facts_details_add_transformation (BpwFactsDetails *self,
                                      const char      *name,
                                      const char      *description,
                                      double           time_s,
                                      double           bytes,
                                      double           kernels)
{
  g_autofree char *time = NULL;
  g_autofree char *traffic = NULL;
  g_autofree char *tooltip = NULL;
  char *value;

  g_return_if_fail (BPW_IS_FACTS_DETAILS (self));
  g_return_if_fail (name != NULL);

  /* Summed over every rank, as `bpw evaluate` prints it: seconds of one device's step
   * would read as a share of the step, which they are not. */
  /* Translators: device-seconds: seconds summed over every device of the job */
  time = g_strdup_printf (_("%.4g device-s"), time_s);
  if (bytes != 0.0)
    {
      traffic = bpw_format_si (bytes, "B");
      /* Translators: a transformation's time and the device-memory bytes it adds, per step */
      value = g_strdup_printf (_("+%s · %s"), time, traffic);
    }
  else
    value = g_strconcat ("+", time, NULL);
  /* Translators: a transformation's description, its exact time and its kernels */
  tooltip = g_strdup_printf (_("%s. %.6g device-seconds per step; %.0f kernels"),
                             description != NULL ? description : name, time_s, kernels);
  bpw_facts_details_add (self->stack, name, value, g_steal_pointer (&tooltip));
}

const char *
bpw_facts_details_get_transformation_text (BpwFactsDetails *self,
                                           const char      *name)
{
  g_return_val_if_fail (BPW_IS_FACTS_DETAILS (self), NULL);

  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->stack)); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    if (g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), name) == 0)
      return gtk_label_get_text (g_object_get_data (G_OBJECT (row), "bpw-value"));
  return NULL;
}

void
bpw_facts_details_set_units (BpwFactsDetails *self,
                             BpwByteUnits     units)
{
  g_autoptr(BpwFactsRow) row = NULL;

  g_return_if_fail (BPW_IS_FACTS_DETAILS (self));

  if (self->units == units)
    return;
  self->units = units;
  row = self->row != NULL ? g_object_ref (self->row) : NULL;
  bpw_facts_details_set_row (self, row);
}
