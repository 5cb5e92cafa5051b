/* bpw-inspector-mapping-precision.c — weight-only quantisation on the Mapping page
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two rows set what `bpw --weights` and `--group-size` set: "weights" and "group" in the
 * precision policy's "attention_projection" and "mlp" classes of the mapping object
 * (bpw-mapping-read-precision.c reads them back). The LM head keeps its weights, as with
 * the command line. Every other member of those class objects stays as written.
 */
#define G_LOG_DOMAIN "bpw-inspector-mapping"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-inspector-mapping-private.h"
#include "bpw-tooltip.h"

/* The classes whose weights the rows quantise, as bpw_precision_policy_set_weights(). */
static const BpwMatmulClass weighted_classes[] = {
  BPW_MATMUL_CLASS_ATTENTION_PROJECTION, BPW_MATMUL_CLASS_MLP
};

void
_bpw_inspector_build_mapping_precision (BpwInspector *self)
{
  const char * const weights[] = { _("Native"), "INT8", "INT4", NULL };
  AdwPreferencesGroup *group = _bpw_inspector_mapping_group (
    self, _("Weights"),
    _("Attention projections and MLP; the LM head keeps its weights"));

  _bpw_inspector_mapping_add (self, group, NULL,
                              _bpw_inspector_combo_row (_("Weight-only quantisation"), weights),
                              BPW_MAPPING_FIELD_WEIGHTS, 0, "precision.weights");
  _bpw_inspector_mapping_add (self, group, NULL, bpw_value_row_new (_("Quantisation group")),
                              BPW_MAPPING_FIELD_WEIGHT_GROUP, 0, "precision.group");
}

/* The object of class @cls in @root's precision policy; NULL when there is none and
 * @create is FALSE. Creating one turns a policy of "scenario" into an object of classes,
 * which reads the same for the classes it does not name. */
static JsonObject *
bpw_inspector_precision_class (JsonObject     *root,
                               BpwMatmulClass  cls,
                               gboolean        create)
{
  const char *name = bpw_matmul_class_to_string (cls);
  JsonNode *policy = json_object_get_member (root, "precision");
  JsonNode *node;

  if (policy == NULL || !JSON_NODE_HOLDS_OBJECT (policy))
    {
      if (!create)
        return NULL;
      json_object_set_object_member (root, "precision", json_object_new ());
      policy = json_object_get_member (root, "precision");
    }
  node = json_object_get_member (json_node_get_object (policy), name);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      if (!create)
        return NULL;
      json_object_set_object_member (json_node_get_object (policy), name, json_object_new ());
      node = json_object_get_member (json_node_get_object (policy), name);
    }
  return json_node_get_object (node);
}

/* Removes @member from @cls's object; the class object, and then the policy, go too when
 * that leaves them empty, so that an edit and its opposite leave no trace. */
static void
bpw_inspector_precision_remove (JsonObject     *root,
                                BpwMatmulClass  cls,
                                const char     *member)
{
  JsonObject *object = bpw_inspector_precision_class (root, cls, FALSE);
  JsonObject *policy;

  if (object == NULL || !json_object_has_member (object, member))
    return;
  json_object_remove_member (object, member);
  if (json_object_get_size (object) > 0)
    return;
  policy = json_object_get_object_member (root, "precision");
  json_object_remove_member (policy, bpw_matmul_class_to_string (cls));
  if (json_object_get_size (policy) == 0)
    json_object_remove_member (root, "precision");
}

static const char *
bpw_inspector_precision_member (GtkWidget *row)
{
  return _bpw_inspector_mapping_field (row) == BPW_MAPPING_FIELD_WEIGHTS ? "weights" : "group";
}

gboolean
_bpw_inspector_precision_is_set (GtkWidget  *row,
                                 JsonObject *object)
{
  const char *member = bpw_inspector_precision_member (row);

  if (object == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (weighted_classes); i++)
    {
      JsonObject *cls = bpw_inspector_precision_class (object, weighted_classes[i], FALSE);

      if (cls != NULL && json_object_has_member (cls, member))
        return TRUE;
    }
  return FALSE;
}

/* Native removes both members from the candidate's mapping; for one scenario it says
 * "native", which also overrides the candidate's choice. INT8 and INT4 keep the group a
 * class already has, or take the usual 128, and write it out as `--weights` does. */
static void
bpw_inspector_precision_write_weights (JsonObject       *root,
                                       BpwWeightFormat   weights,
                                       gboolean          scenario_only,
                                       const BpwMapping *m)
{
  for (guint i = 0; i < G_N_ELEMENTS (weighted_classes); i++)
    {
      BpwMatmulClass cls = weighted_classes[i];
      const BpwClassPrecision *now = &m->precision.classes[cls];
      JsonObject *object;

      if (weights == BPW_WEIGHT_FORMAT_NATIVE && !scenario_only)
        {
          bpw_inspector_precision_remove (root, cls, "group");
          bpw_inspector_precision_remove (root, cls, "weights");
          continue;
        }
      object = bpw_inspector_precision_class (root, cls, TRUE);
      json_object_set_string_member (object, "weights", bpw_weight_format_to_string (weights));
      if (weights == BPW_WEIGHT_FORMAT_NATIVE)
        json_object_remove_member (object, "group");
      else
        json_object_set_int_member (object, "group",
                                    now->weights != BPW_WEIGHT_FORMAT_NATIVE && now->group > 0
                                    ? now->group : BPW_WEIGHT_GROUP_DEFAULT);
    }
}

/* A group for the classes that are quantised now; a class object that would hold a group
 * without its format (one scenario's, over the candidate's) states the format too. */
static void
bpw_inspector_precision_write_group (JsonObject       *root,
                                     gint64            group,
                                     const BpwMapping *m)
{
  for (guint i = 0; i < G_N_ELEMENTS (weighted_classes); i++)
    {
      BpwMatmulClass cls = weighted_classes[i];
      BpwWeightFormat weights = m->precision.classes[cls].weights;
      JsonObject *object;

      if (weights == BPW_WEIGHT_FORMAT_NATIVE)
        continue;
      object = bpw_inspector_precision_class (root, cls, TRUE);
      if (!json_object_has_member (object, "weights"))
        json_object_set_string_member (object, "weights", bpw_weight_format_to_string (weights));
      json_object_set_int_member (object, "group", group);
    }
}

void
_bpw_inspector_precision_write (GtkWidget        *row,
                                JsonObject       *root,
                                gint64            value,
                                gboolean          scenario_only,
                                const BpwMapping *m)
{
  if (_bpw_inspector_mapping_field (row) == BPW_MAPPING_FIELD_WEIGHTS)
    bpw_inspector_precision_write_weights (root, (BpwWeightFormat) value, scenario_only, m);
  else
    bpw_inspector_precision_write_group (root, value, m);
}

gboolean
_bpw_inspector_precision_unset (GtkWidget  *row,
                                JsonObject *root)
{
  const char *member = bpw_inspector_precision_member (row);

  if (!_bpw_inspector_precision_is_set (row, root))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (weighted_classes); i++)
    bpw_inspector_precision_remove (root, weighted_classes[i], member);
  return TRUE;
}

/* Why weight-only quantisation cannot apply to @m under a scenario of @dtype, as
 * `--weights` refuses it (bpw_precision_policy_weight_only_blocked()); NULL when it can. */
static char *
bpw_inspector_precision_blocked (const BpwMapping *m,
                                 BpwDType          dtype)
{
  BpwMatmulClass cls;
  BpwNumberFormat format;

  if (!bpw_precision_policy_weight_only_blocked (&m->precision, dtype, &cls, &format))
    return NULL;
  if (m->precision.classes[BPW_MATMUL_CLASS_MLP].weights != BPW_WEIGHT_FORMAT_NATIVE)
    /* Translators: the first %s is a matmul class ("mlp"), the second a number format
     * ("fp8-e4m3") */
    return g_strdup_printf (_("Ignored: weight-only quantisation computes at the activation "
                              "precision, but %s runs in %s; set Native, or a bf16 scenario"),
                            bpw_matmul_class_to_string (cls),
                            bpw_number_format_to_string (format));
  /* Translators: the first %s is a matmul class ("mlp"), the second a number format
   * ("fp8-e4m3") */
  return g_strdup_printf (_("Not available: weight-only quantisation computes at the "
                            "activation precision, but %s runs in %s"),
                          bpw_matmul_class_to_string (cls), bpw_number_format_to_string (format));
}

/* The MLP's weights where the two classes differ: most of a model's weight bytes. A
 * scenario whose weight classes compute in fp8 cannot take them: the rows say why and
 * cannot be set, but for going back to Native from a choice the plan ignores. */
void
_bpw_inspector_refresh_precision_row (GtkWidget        *row,
                                      const BpwMapping *m,
                                      BpwDType          dtype)
{
  const BpwClassPrecision *mlp = &m->precision.classes[BPW_MATMUL_CLASS_MLP];
  g_autofree char *blocked = bpw_inspector_precision_blocked (m, dtype);

  if (_bpw_inspector_mapping_field (row) == BPW_MAPPING_FIELD_WEIGHTS)
    {
      if (blocked != NULL)
        adw_action_row_set_subtitle (ADW_ACTION_ROW (row), blocked);
      bpw_tooltip_set (row, blocked);
      _bpw_inspector_combo_set (row, mlp->weights);
      gtk_widget_set_sensitive (row, blocked == NULL || mlp->weights != BPW_WEIGHT_FORMAT_NATIVE);
      return;
    }
  {
    g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT,
                                             mlp->group > 0 ? mlp->group
                                                            : BPW_WEIGHT_GROUP_DEFAULT);

    bpw_value_row_set_value (BPW_VALUE_ROW (row), text);
    /* Only quantised weights have groups. */
    gtk_widget_set_sensitive (row, mlp->weights != BPW_WEIGHT_FORMAT_NATIVE && blocked == NULL);
  }
}
