/* bpw-sidebar-item.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-sidebar-item"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "bpw-format.h"
#include "bpw-sidebar-item.h"

struct _BpwSidebarItem
{
  GObject             parent_instance;

  BpwSidebarItemKind  kind;
  guint               index;

  /* Owned */
  char               *title;
  char               *subtitle;
};

G_DEFINE_FINAL_TYPE (BpwSidebarItem, bpw_sidebar_item, G_TYPE_OBJECT)

static void
bpw_sidebar_item_finalize (GObject *object)
{
  BpwSidebarItem *self = (BpwSidebarItem *) object;

  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->subtitle, g_free);

  G_OBJECT_CLASS (bpw_sidebar_item_parent_class)->finalize (object);
}

static void
bpw_sidebar_item_class_init (BpwSidebarItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = bpw_sidebar_item_finalize;
}

static void
bpw_sidebar_item_init (BpwSidebarItem *self)
{
}

/* Takes ownership of @subtitle. */
static void
bpw_sidebar_item_append (GListStore         *store,
                         BpwSidebarItemKind  kind,
                         guint               index,
                         const char         *title,
                         char               *subtitle)
{
  g_autoptr(BpwSidebarItem) self = g_object_new (BPW_TYPE_SIDEBAR_ITEM, NULL);

  self->kind = kind;
  self->index = index;
  self->title = g_strdup (title);
  self->subtitle = subtitle;
  g_list_store_append (store, self);
}

static const char *
bpw_sidebar_item_phase_label (BpwWorkloadPhase phase)
{
  switch (phase)
    {
    case BPW_WORKLOAD_TRAIN:
      return C_("phase", "Training");
    case BPW_WORKLOAD_PREFILL:
      return C_("phase", "Prefill");
    case BPW_WORKLOAD_DECODE:
      return C_("phase", "Decode");
    default:
      return "";
    }
}

static const char *
bpw_sidebar_item_suite_kind_label (BpwSuiteKind kind)
{
  switch (kind)
    {
    case BPW_SUITE_REPRESENTATIVE:
      return _("Representative");
    case BPW_SUITE_STRESS:
      return _("Stress");
    case BPW_SUITE_PROJECTED:
      return _("Projected");
    default:
      return "";
    }
}

/* A blueprint is a bundled name or a path; a path shows as its file name. */
static char *
bpw_sidebar_item_blueprint_label (const char *blueprint)
{
  if (strchr (blueprint, G_DIR_SEPARATOR) != NULL)
    return g_path_get_basename (blueprint);
  return g_strdup (blueprint);
}

static void
bpw_sidebar_item_append_heading (GListStore *store,
                                 const char *title,
                                 guint       n_items,
                                 const char *empty)
{
  bpw_sidebar_item_append (store, BPW_SIDEBAR_ITEM_HEADING, 0, title, NULL);
  if (n_items == 0)
    bpw_sidebar_item_append (store, BPW_SIDEBAR_ITEM_EMPTY, 0, empty, NULL);
}

GListStore *
bpw_sidebar_item_list_new_for_study (BpwStudy *study)
{
  GListStore *store = g_list_store_new (BPW_TYPE_SIDEBAR_ITEM);
  const char * const *blueprints;
  guint n_scenarios, n_suites;

  g_return_val_if_fail (BPW_IS_STUDY (study), store);

  bpw_sidebar_item_append_heading (store, _("Workloads"), bpw_study_get_n_workloads (study),
                                   _("No workloads"));
  for (guint i = 0; i < bpw_study_get_n_workloads (study); i++)
    {
      const BpwStudyWorkload *w = bpw_study_get_workload (study, i);
      g_autofree char *parameters = bpw_format_parameters (bpw_model_spec_parameters (&w->spec));

      bpw_sidebar_item_append (store, BPW_SIDEBAR_ITEM_WORKLOAD, i, w->name,
                               /* Translators: a workload's size, e.g. "175 B parameters" */
                               g_strdup_printf (_("%s parameters"), parameters));
    }

  n_scenarios = bpw_study_get_n_scenarios (study);
  n_suites = bpw_study_get_n_suites (study);
  bpw_sidebar_item_append_heading (store, _("Scenarios and Suites"), n_scenarios + n_suites,
                                   _("No scenarios"));
  for (guint i = 0; i < n_scenarios; i++)
    {
      const BpwStudyScenario *s = bpw_study_get_scenario (study, i);
      gint64 devices = bpw_parallel_devices (&s->parallel);
      g_autofree char *count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%lld device",
                                                             "%lld devices",
                                                             (gulong) MIN (devices, 1000000)),
                                                (long long) devices);

      bpw_sidebar_item_append (store, BPW_SIDEBAR_ITEM_SCENARIO, i, s->name,
                               g_strdup_printf ("%s · %s",
                                                bpw_sidebar_item_phase_label (s->scenario.phase),
                                                count));
    }
  for (guint i = 0; i < n_suites; i++)
    {
      const BpwStudySuite *suite = bpw_study_get_suite (study, i);
      g_autofree char *count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u scenario",
                                                             "%u scenarios", suite->n_scenarios),
                                                suite->n_scenarios);

      bpw_sidebar_item_append (store, BPW_SIDEBAR_ITEM_SUITE, i, suite->name,
                               g_strdup_printf ("%s · %s",
                                                bpw_sidebar_item_suite_kind_label (suite->kind),
                                                count));
    }

  blueprints = bpw_study_get_blueprints (study);
  bpw_sidebar_item_append_heading (store, _("Blueprints"), g_strv_length ((char **) blueprints),
                                   _("No blueprints"));
  for (guint i = 0; blueprints[i] != NULL; i++)
    {
      g_autofree char *label = bpw_sidebar_item_blueprint_label (blueprints[i]);
      gboolean file = strchr (blueprints[i], G_DIR_SEPARATOR) != NULL;
      gboolean held = bpw_study_lookup_inline_blueprint (study, blueprints[i]) != NULL;

      bpw_sidebar_item_append (store, BPW_SIDEBAR_ITEM_BLUEPRINT, i, label,
                               g_strdup (held ? _("Edited in this study")
                                         : file ? _("From a file") : _("Bundled")));
    }

  bpw_sidebar_item_append_heading (store, _("Candidates"), bpw_study_get_n_candidates (study),
                                   _("No candidates"));
  for (guint i = 0; i < bpw_study_get_n_candidates (study); i++)
    {
      const BpwStudyCandidate *c = bpw_study_get_candidate (study, i);
      g_autofree char *label = bpw_sidebar_item_blueprint_label (c->blueprint);
      gboolean own = (c->mapping != NULL && JSON_NODE_HOLDS_OBJECT (c->mapping)
                      && json_object_get_size (json_node_get_object (c->mapping)) > 0)
                     || (c->mappings != NULL && JSON_NODE_HOLDS_OBJECT (c->mappings)
                         && json_object_get_size (json_node_get_object (c->mappings)) > 0);

      /* An empty mapping runs each scenario's own decomposition: nothing to point out. */
      bpw_sidebar_item_append (store, BPW_SIDEBAR_ITEM_CANDIDATE, i, c->name,
                               own ? g_strdup_printf ("%s · %s", label, _("own mapping"))
                                   : g_strdup (label));
    }

  return store;
}

BpwSidebarItemKind
bpw_sidebar_item_get_kind (BpwSidebarItem *self)
{
  g_return_val_if_fail (BPW_IS_SIDEBAR_ITEM (self), BPW_SIDEBAR_ITEM_HEADING);
  return self->kind;
}

guint
bpw_sidebar_item_get_index (BpwSidebarItem *self)
{
  g_return_val_if_fail (BPW_IS_SIDEBAR_ITEM (self), 0);
  return self->index;
}

const char *
bpw_sidebar_item_get_title (BpwSidebarItem *self)
{
  g_return_val_if_fail (BPW_IS_SIDEBAR_ITEM (self), NULL);
  return self->title;
}

const char *
bpw_sidebar_item_get_subtitle (BpwSidebarItem *self)
{
  g_return_val_if_fail (BPW_IS_SIDEBAR_ITEM (self), NULL);
  return self->subtitle;
}

const char *
bpw_sidebar_item_get_icon_name (BpwSidebarItem *self)
{
  g_return_val_if_fail (BPW_IS_SIDEBAR_ITEM (self), NULL);

  switch (self->kind)
    {
    case BPW_SIDEBAR_ITEM_WORKLOAD:
      return "x-office-document-symbolic";
    case BPW_SIDEBAR_ITEM_SCENARIO:
      return "system-run-symbolic";
    case BPW_SIDEBAR_ITEM_SUITE:
      return "view-list-bullet-symbolic";
    case BPW_SIDEBAR_ITEM_BLUEPRINT:
      return "computer-symbolic";
    case BPW_SIDEBAR_ITEM_CANDIDATE:
      return "object-select-symbolic";
    case BPW_SIDEBAR_ITEM_HEADING:
    case BPW_SIDEBAR_ITEM_EMPTY:
    default:
      return NULL;
    }
}

gboolean
bpw_sidebar_item_is_selectable (BpwSidebarItem *self)
{
  g_return_val_if_fail (BPW_IS_SIDEBAR_ITEM (self), FALSE);
  return self->kind != BPW_SIDEBAR_ITEM_HEADING && self->kind != BPW_SIDEBAR_ITEM_EMPTY;
}
