/* bpw-sidebar.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GTK 4.8 has no list sections (4.12), so headings are items of the same model that
 * cannot be selected, styled as headings.
 */
#define G_LOG_DOMAIN "bpw-sidebar"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-sidebar.h"
#include "bpw-tooltip.h"

struct _BpwSidebar
{
  GtkWidget           parent_instance;

  /* Borrowed: children of self */
  GtkWidget          *scrolled;
  GtkListView        *list_view;

  /* Owned */
  GListStore         *items;
  GtkSingleSelection *selection;
};

enum {
  PROP_0,
  PROP_SELECTED_ITEM,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (BpwSidebar, bpw_sidebar, GTK_TYPE_WIDGET)

/* "Training Scenario", "Prefill Scenario", "Decode Scenario" for @workload. */
static GMenu *
bpw_sidebar_phase_menu (const char *workload)
{
  static const struct { const char *label; const char *phase; } items[] = {
    { N_("_Training Scenario"), "train" },
    { N_("_Prefill Scenario"), "prefill" },
    { N_("_Decode Scenario"), "decode" },
  };
  GMenu *menu = g_menu_new ();

  for (guint i = 0; i < G_N_ELEMENTS (items); i++)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (_(items[i].label), NULL);

      g_menu_item_set_action_and_target (item, "win.add-scenario-phase", "(ss)", workload,
                                         items[i].phase);
      g_menu_append_item (menu, item);
    }
  return menu;
}

static void
bpw_sidebar_setup_cb (GtkSignalListItemFactory *factory,
                      GtkListItem              *item,
                      gpointer                  user_data)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *texts = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *icon = gtk_image_new ();
  GtkWidget *title = gtk_label_new (NULL);
  GtkWidget *subtitle = gtk_label_new (NULL);
  GtkWidget *add = gtk_button_new_from_icon_name ("list-add-symbolic");
  GtkWidget *phase = gtk_menu_button_new ();

  /* Workloads offer the next step: a scenario that runs them (win.add-scenario). */
  gtk_widget_add_css_class (add, "flat");
  gtk_widget_set_valign (add, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (add, _("Add a Scenario for This Workload"));
  gtk_widget_set_visible (add, FALSE);
  /* Beside it, the other phases: a scenario is named after its phase when it is added. */
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (phase), "pan-down-symbolic");
  gtk_widget_add_css_class (phase, "flat");
  gtk_widget_set_valign (phase, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (phase, _("Add a Training, Prefill or Decode Scenario"));
  gtk_widget_set_visible (phase, FALSE);
  gtk_widget_set_hexpand (texts, TRUE);
  gtk_widget_set_valign (texts, GTK_ALIGN_CENTER);
  gtk_label_set_xalign (GTK_LABEL (title), 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (GTK_LABEL (subtitle), 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (subtitle), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (subtitle, "caption");
  gtk_widget_add_css_class (subtitle, "dim-label");
  gtk_box_append (GTK_BOX (texts), title);
  gtk_box_append (GTK_BOX (texts), subtitle);
  gtk_box_append (GTK_BOX (box), icon);
  gtk_box_append (GTK_BOX (box), texts);
  gtk_box_append (GTK_BOX (box), add);
  gtk_box_append (GTK_BOX (box), phase);

  g_object_set_data (G_OBJECT (box), "bpw-add-scenario", add);
  g_object_set_data (G_OBJECT (box), "bpw-add-phase", phase);
  g_object_set_data (G_OBJECT (box), "bpw-icon", icon);
  g_object_set_data (G_OBJECT (box), "bpw-title", title);
  g_object_set_data (G_OBJECT (box), "bpw-subtitle", subtitle);
  gtk_list_item_set_child (item, box);
}

static void
bpw_sidebar_bind_cb (GtkSignalListItemFactory *factory,
                     GtkListItem              *item,
                     gpointer                  user_data)
{
  BpwSidebarItem *entry = gtk_list_item_get_item (item);
  GtkWidget *box = gtk_list_item_get_child (item);
  GtkWidget *icon = g_object_get_data (G_OBJECT (box), "bpw-icon");
  GtkWidget *title = g_object_get_data (G_OBJECT (box), "bpw-title");
  GtkWidget *subtitle = g_object_get_data (G_OBJECT (box), "bpw-subtitle");
  GtkWidget *add = g_object_get_data (G_OBJECT (box), "bpw-add-scenario");
  GtkWidget *phase = g_object_get_data (G_OBJECT (box), "bpw-add-phase");
  BpwSidebarItemKind kind = bpw_sidebar_item_get_kind (entry);
  const char *icon_name = bpw_sidebar_item_get_icon_name (entry);
  const char *text = bpw_sidebar_item_get_subtitle (entry);
  gboolean selectable = bpw_sidebar_item_is_selectable (entry);

  gtk_list_item_set_selectable (item, selectable);
  gtk_list_item_set_activatable (item, selectable);
  gtk_image_set_from_icon_name (GTK_IMAGE (icon), icon_name);
  gtk_widget_set_visible (icon, icon_name != NULL);
  gtk_label_set_text (GTK_LABEL (title), bpw_sidebar_item_get_title (entry));
  gtk_label_set_text (GTK_LABEL (subtitle), text != NULL ? text : "");
  gtk_widget_set_visible (subtitle, text != NULL);
  bpw_tooltip_set (box, selectable ? bpw_sidebar_item_get_title (entry) : NULL);
  /* The target before the action: an action of type s must never see no target. */
  gtk_actionable_set_action_name (GTK_ACTIONABLE (add), NULL);
  if (kind == BPW_SIDEBAR_ITEM_WORKLOAD)
    {
      g_autoptr(GMenu) phases = bpw_sidebar_phase_menu (bpw_sidebar_item_get_title (entry));

      gtk_actionable_set_action_target (GTK_ACTIONABLE (add), "s",
                                        bpw_sidebar_item_get_title (entry));
      gtk_actionable_set_action_name (GTK_ACTIONABLE (add), "win.add-scenario");
      gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (phase), G_MENU_MODEL (phases));
    }
  gtk_widget_set_visible (add, kind == BPW_SIDEBAR_ITEM_WORKLOAD);
  gtk_widget_set_visible (phase, kind == BPW_SIDEBAR_ITEM_WORKLOAD);

  if (kind == BPW_SIDEBAR_ITEM_HEADING)
    gtk_widget_add_css_class (title, "heading");
  else
    gtk_widget_remove_css_class (title, "heading");
  if (kind == BPW_SIDEBAR_ITEM_HEADING || kind == BPW_SIDEBAR_ITEM_EMPTY)
    gtk_widget_add_css_class (title, "dim-label");
  else
    gtk_widget_remove_css_class (title, "dim-label");

  /* The row is the parent of the child; the style sheet gives headings their spacing. */
  if (kind == BPW_SIDEBAR_ITEM_HEADING)
    gtk_widget_add_css_class (box, "sidebar-heading");
  else
    gtk_widget_remove_css_class (box, "sidebar-heading");
}

static void
bpw_sidebar_selection_cb (BpwSidebar *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_ITEM]);
}

static void
bpw_sidebar_dispose (GObject *object)
{
  BpwSidebar *self = (BpwSidebar *) object;

  g_clear_pointer (&self->scrolled, gtk_widget_unparent);
  g_clear_object (&self->selection);
  g_clear_object (&self->items);

  G_OBJECT_CLASS (bpw_sidebar_parent_class)->dispose (object);
}

static void
bpw_sidebar_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  BpwSidebar *self = BPW_SIDEBAR (object);

  switch (prop_id)
    {
    case PROP_SELECTED_ITEM:
      g_value_set_object (value, bpw_sidebar_get_selected_item (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
bpw_sidebar_class_init (BpwSidebarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_sidebar_dispose;
  object_class->get_property = bpw_sidebar_get_property;

  properties[PROP_SELECTED_ITEM] =
    g_param_spec_object ("selected-item", NULL, NULL, BPW_TYPE_SIDEBAR_ITEM,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "studysidebar");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
bpw_sidebar_init (BpwSidebar *self)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkSelectionModel *model;

  g_signal_connect (factory, "setup", G_CALLBACK (bpw_sidebar_setup_cb), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bpw_sidebar_bind_cb), NULL);

  self->items = g_list_store_new (BPW_TYPE_SIDEBAR_ITEM);
  self->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->items)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  g_signal_connect_object (self->selection, "notify::selected-item",
                           G_CALLBACK (bpw_sidebar_selection_cb), self, G_CONNECT_SWAPPED);

  model = GTK_SELECTION_MODEL (g_object_ref (self->selection));
  self->list_view = GTK_LIST_VIEW (gtk_list_view_new (model, factory));
  gtk_widget_add_css_class (GTK_WIDGET (self->list_view), "navigation-sidebar");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list_view),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Study contents"), -1);

  self->scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scrolled),
                                  GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scrolled),
                                 GTK_WIDGET (self->list_view));
  gtk_widget_set_parent (self->scrolled, GTK_WIDGET (self));
}

GtkWidget *
bpw_sidebar_new (void)
{
  return g_object_new (BPW_TYPE_SIDEBAR, NULL);
}

void
bpw_sidebar_set_study (BpwSidebar *self,
                       BpwStudy   *study)
{
  g_autoptr(GListStore) fresh = NULL;
  BpwSidebarItem *selected;
  BpwSidebarItemKind kind = BPW_SIDEBAR_ITEM_HEADING;
  guint index = 0;
  guint n;

  g_return_if_fail (BPW_IS_SIDEBAR (self));
  g_return_if_fail (study == NULL || BPW_IS_STUDY (study));

  selected = bpw_sidebar_get_selected_item (self);
  if (selected != NULL)
    {
      kind = bpw_sidebar_item_get_kind (selected);
      index = bpw_sidebar_item_get_index (selected);
    }

  fresh = study != NULL ? bpw_sidebar_item_list_new_for_study (study)
                        : g_list_store_new (BPW_TYPE_SIDEBAR_ITEM);
  n = g_list_model_get_n_items (G_LIST_MODEL (fresh));
  {
    g_autoptr(GPtrArray) copy = g_ptr_array_new_with_free_func (g_object_unref);

    for (guint i = 0; i < n; i++)
      g_ptr_array_add (copy, g_list_model_get_item (G_LIST_MODEL (fresh), i));
    g_list_store_splice (self->items, 0, g_list_model_get_n_items (G_LIST_MODEL (self->items)),
                         copy->pdata, copy->len);
  }

  if (kind == BPW_SIDEBAR_ITEM_HEADING || !bpw_sidebar_select (self, kind, index))
    gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
}

GListModel *
bpw_sidebar_get_items (BpwSidebar *self)
{
  g_return_val_if_fail (BPW_IS_SIDEBAR (self), NULL);
  return G_LIST_MODEL (self->items);
}

BpwSidebarItem *
bpw_sidebar_get_selected_item (BpwSidebar *self)
{
  g_return_val_if_fail (BPW_IS_SIDEBAR (self), NULL);
  return gtk_single_selection_get_selected_item (self->selection);
}

gboolean
bpw_sidebar_select (BpwSidebar         *self,
                    BpwSidebarItemKind  kind,
                    guint               index)
{
  guint n;

  g_return_val_if_fail (BPW_IS_SIDEBAR (self), FALSE);

  n = g_list_model_get_n_items (G_LIST_MODEL (self->items));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(BpwSidebarItem) item = g_list_model_get_item (G_LIST_MODEL (self->items), i);

      if (bpw_sidebar_item_is_selectable (item) && bpw_sidebar_item_get_kind (item) == kind
          && bpw_sidebar_item_get_index (item) == index)
        {
          gtk_single_selection_set_selected (self->selection, i);
          return TRUE;
        }
    }
  return FALSE;
}
