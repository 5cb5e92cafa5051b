/* bpw-inspector-mapping-binding.c — the Mapping rows whose choices come from the blueprint
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Which tier carries each parallel group, how each tier runs its collectives, the matmul
 * tile, which engine runs each primitive and where each class of buffer lives. The lists
 * offer what the candidate's blueprint has: its tiers by name, the algorithms each tier
 * implements, its matrix and vector engines, its device and host memory. A value the
 * blueprint does not offer (written in a file) is shown as it is, and binding says why
 * the plan is then not legal.
 */
#define G_LOG_DOMAIN "bpw-inspector-mapping-binding"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-inspector-mapping-private.h"

static const char * const tile_keys[] = { "tiling.m", "tiling.n", "tiling.k" };

/* Choice rows ------------------------------------------------------------------------ */

GtkWidget *
_bpw_inspector_choice_row (const char *title)
{
  const char * const none[] = { NULL };
  GtkWidget *row = _bpw_inspector_combo_row (title, none);

  g_object_set_data_full (G_OBJECT (row), "bpw-choices", g_array_new (FALSE, FALSE, sizeof (gint)),
                          (GDestroyNotify) g_array_unref);
  return row;
}

static GtkStringList *
bpw_inspector_choice_model (GtkWidget *row)
{
  return GTK_STRING_LIST (adw_combo_row_get_model (ADW_COMBO_ROW (row)));
}

void
_bpw_inspector_choice_append (GtkWidget  *row,
                              const char *label,
                              gint        value)
{
  GArray *values = g_object_get_data (G_OBJECT (row), "bpw-choices");

  g_array_append_val (values, value);
  gtk_string_list_append (bpw_inspector_choice_model (row), label);
}

gboolean
_bpw_inspector_choice_select (GtkWidget *row,
                              gint       value)
{
  GArray *values = g_object_get_data (G_OBJECT (row), "bpw-choices");

  for (guint i = 0; i < values->len; i++)
    if (g_array_index (values, gint, i) == value)
      {
        _bpw_inspector_combo_set (row, i);
        return TRUE;
      }
  return FALSE;
}

gint
_bpw_inspector_choice_value (GtkWidget *row)
{
  GArray *values = g_object_get_data (G_OBJECT (row), "bpw-choices");
  guint selected = adw_combo_row_get_selected (ADW_COMBO_ROW (row));

  return selected < values->len ? g_array_index (values, gint, selected) : -1;
}

void
_bpw_inspector_choice_relabel (GtkWidget  *row,
                               guint       position,
                               const char *label)
{
  GtkStringList *model = bpw_inspector_choice_model (row);
  const char * const labels[] = { label, NULL };

  if (g_strcmp0 (gtk_string_list_get_string (model, position), label) != 0)
    gtk_string_list_splice (model, position, 1, labels);
}

/* Labels ----------------------------------------------------------------------------- */

static const char *
bpw_inspector_primitive_label (BpwPrimitive primitive)
{
  switch (primitive)
    {
    case BPW_PRIM_MATMUL: return _("Matrix multiply");
    case BPW_PRIM_BATCHED_MATMUL: return _("Batched matrix multiply");
    case BPW_PRIM_SOFTMAX: return _("Softmax");
    case BPW_PRIM_NORM: return _("Normalisation");
    case BPW_PRIM_GELU: return _("GeLU");
    case BPW_PRIM_SWIGLU: return _("SwiGLU");
    case BPW_PRIM_DROPOUT: return _("Dropout");
    case BPW_PRIM_ADD: return _("Residual add");
    case BPW_PRIM_BIAS: return _("Bias");
    case BPW_PRIM_ROTARY: return _("Rotary embedding");
    case BPW_PRIM_GATHER: return _("Embedding lookup");
    case BPW_PRIM_SCATTER_ADD: return _("Embedding gradient");
    case BPW_PRIM_CROSS_ENTROPY: return _("Cross-entropy");
    case BPW_PRIM_ROUTER_TOPK: return _("Router top-k");
    case BPW_PRIM_PERMUTE: return _("Token permutation");
    case BPW_PRIM_OPTIMIZER_UPDATE: return _("Optimizer update");
    case BPW_N_PRIMITIVES:
    default: g_return_val_if_reached (NULL);
    }
}

static const char *
bpw_inspector_tensor_label (BpwTensorKind kind)
{
  switch (kind)
    {
    case BPW_TENSOR_WEIGHT: return _("Weights");
    case BPW_TENSOR_MASTER_WEIGHT: return _("Master weights");
    case BPW_TENSOR_OPTIMIZER_STATE: return _("Optimizer state");
    case BPW_TENSOR_GRADIENT: return _("Gradients");
    case BPW_TENSOR_ACTIVATION: return _("Activations");
    case BPW_TENSOR_ACTIVATION_GRAD: return _("Activation gradients");
    case BPW_TENSOR_KV_CACHE: return _("KV cache");
    case BPW_TENSOR_COMMUNICATION: return _("Communication buffers");
    case BPW_N_TENSOR_KINDS:
    default: g_return_val_if_reached (NULL);
    }
}

static const char *
bpw_inspector_algorithm_label (BpwCollectiveAlgo algo)
{
  switch (algo)
    {
    case BPW_COLLECTIVE_ALGO_RING: return _("Ring");
    case BPW_COLLECTIVE_ALGO_TREE: return _("Tree");
    /* Translators: reduction inside the network switch (NVLink SHARP, InfiniBand SHARP) */
    case BPW_COLLECTIVE_ALGO_IN_NETWORK: return _("In-network");
    /* Translators: every rank sends to every other in one step */
    case BPW_COLLECTIVE_ALGO_DIRECT: return _("Direct");
    /* Translators: reduce-scatter inside the node, the collective across nodes, all-gather
     * inside the node */
    case BPW_COLLECTIVE_ALGO_HIERARCHICAL: return _("Hierarchical");
    /* Translators: a torus collective run one dimension after the other */
    case BPW_COLLECTIVE_ALGO_TORUS: return _("Dimension-ordered");
    default: g_return_val_if_reached (NULL);
    }
}

/* "tensor-cores (matrix)": an engine with what it is. */
static char *
bpw_inspector_engine_label (const BpwEngine *engine)
{
  return g_strdup_printf (engine->kind == BPW_ENGINE_MATRIX ? _("%s (matrix)") : _("%s (vector)"),
                          engine->name);
}

/* Groups ----------------------------------------------------------------------------- */

static void
bpw_inspector_build_interconnect (BpwInspector       *self,
                                  const BpwBlueprint *bp)
{
  const char * const titles[BPW_N_GROUPS] = {
    _("Tensor-parallel tier"), _("Pipeline-parallel tier"), _("Data-parallel tier"),
    _("Expert-parallel tier"), _("Context-parallel tier"),
  };
  guint n_tiers = MIN (bp->n_tiers, BPW_MAPPING_MAX_TIERS);
  AdwPreferencesGroup *group;

  if (n_tiers == 0)
    {
      _bpw_inspector_mapping_group (self, _("Interconnect"),
                                    _("This blueprint has no interconnect: a mapping runs on "
                                      "one device."));
      return;
    }
  group = _bpw_inspector_mapping_group (self, _("Interconnect"),
                                        _("Which tier carries each parallel group, and how "
                                          "each tier runs its collectives. Tree and in-network "
                                          "serve reductions and gathers; all-to-all and "
                                          "point-to-point sends run as ring or direct."));
  for (guint g = 0; g < BPW_N_GROUPS; g++)
    {
      GtkWidget *row = _bpw_inspector_choice_row (titles[g]);
      g_autofree char *key = g_strdup_printf ("tiers.%s", bpw_group_to_string (g));

      _bpw_inspector_choice_append (row, _("Automatic"), -1);
      for (guint t = 0; t < n_tiers; t++)
        _bpw_inspector_choice_append (row, bp->tiers[t].name, (gint) t);
      _bpw_inspector_mapping_add (self, group, NULL, row, BPW_MAPPING_FIELD_TIER, g, key);
    }
  for (guint t = 0; t < n_tiers; t++)
    {
      /* Translators: %s is an interconnect tier of the blueprint ("nvlink") */
      g_autofree char *title = g_strdup_printf (_("Collectives on %s"), bp->tiers[t].name);
      g_autofree char *key = g_strdup_printf ("collective_algorithms[%u]", t);
      guint offered = bpw_cost_tier_algorithms (&bp->tiers[t]);
      GtkWidget *row = _bpw_inspector_choice_row (title);

      _bpw_inspector_choice_append (row, _("Automatic (cheapest)"), 0);
      for (guint a = 0; a < BPW_N_COLLECTIVE_ALGOS; a++)
        if (offered & (1u << a))
          _bpw_inspector_choice_append (row, bpw_inspector_algorithm_label (1u << a),
                                        (gint) (1u << a));
      _bpw_inspector_mapping_add (self, group, NULL, row, BPW_MAPPING_FIELD_ALGORITHM, t, key);
    }
}

static void
bpw_inspector_build_tiling (BpwInspector *self)
{
  const char * const titles[] = { _("Tile rows (M)"), _("Tile columns (N)"),
                                  _("Tile depth (K)") };
  AdwPreferencesGroup *group;

  group = _bpw_inspector_mapping_group (self, _("Tiling"),
                                        _("Matrix-multiply tiles held on chip. Automatic picks, "
                                          "per matmul, the largest square output tile that "
                                          "fits."));
  _bpw_inspector_mapping_add (self, group, NULL, _bpw_inspector_switch_row (_("Automatic tiling")),
                              BPW_MAPPING_FIELD_TILING, 0, "tiling");
  for (guint i = 0; i < G_N_ELEMENTS (titles); i++)
    {
      GtkWidget *row = bpw_value_row_new (titles[i]);

      /* Translators: the unit of a tile edge */
      bpw_value_row_set_unit (BPW_VALUE_ROW (row), _("elements"));
      _bpw_inspector_mapping_add (self, group, NULL, row, BPW_MAPPING_FIELD_TILE, i,
                                  tile_keys[i]);
    }
}

static AdwExpanderRow *
bpw_inspector_expander (AdwPreferencesGroup *group,
                        const char          *title)
{
  AdwExpanderRow *expander = ADW_EXPANDER_ROW (adw_expander_row_new ());

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (expander), title);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (expander), FALSE);
  adw_preferences_group_add (group, GTK_WIDGET (expander));
  return expander;
}

static void
bpw_inspector_build_engines (BpwInspector       *self,
                             const BpwBlueprint *bp)
{
  int host = bpw_blueprint_first_memory (bp, BPW_MEMORY_HOST);
  int device = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
  AdwPreferencesGroup *group;
  g_autofree char *device_label = NULL;
  g_autofree char *host_label = NULL;

  group = _bpw_inspector_mapping_group (self, _("Engines and Memory"),
                                        _("Which engine runs each kind of operation, and where "
                                          "each class of buffer lives. Host memory is "
                                          "offload: streamed in layer by layer."));
  self->engines_row = bpw_inspector_expander (group, _("Engines"));
  for (guint p = 0; p < BPW_N_PRIMITIVES; p++)
    {
      int automatic = bpw_blueprint_first_engine (bp, p == BPW_PRIM_MATMUL
                                                      || p == BPW_PRIM_BATCHED_MATMUL
                                                      ? BPW_ENGINE_MATRIX : BPW_ENGINE_VECTOR);
      GtkWidget *row = _bpw_inspector_choice_row (bpw_inspector_primitive_label (p));
      g_autofree char *key = g_strdup_printf ("engines.%s", bpw_primitive_to_string (p));
      g_autofree char *label = NULL;

      /* Translators: %s is the engine an automatic choice takes ("tensor-cores") */
      label = automatic >= 0 ? g_strdup_printf (_("Automatic (%s)"), bp->engines[automatic].name)
                             : g_strdup (_("Automatic"));
      _bpw_inspector_choice_append (row, label, -1);
      for (guint e = 0; e < bp->n_engines; e++)
        if (bp->engines[e].kind == BPW_ENGINE_MATRIX || bp->engines[e].kind == BPW_ENGINE_VECTOR)
          {
            g_autofree char *name = bpw_inspector_engine_label (&bp->engines[e]);

            _bpw_inspector_choice_append (row, name, (gint) e);
          }
      _bpw_inspector_mapping_add (self, NULL, self->engines_row, row, BPW_MAPPING_FIELD_ENGINE,
                                  p, key);
    }

  self->placement_row = bpw_inspector_expander (group, _("Buffer placement"));
  /* Translators: %s is the blueprint's memory level ("hbm", "host") */
  device_label = device >= 0 ? g_strdup_printf (_("Device memory (%s)"), bp->memory[device].name)
                             : g_strdup (_("Device memory"));
  host_label = host >= 0 ? g_strdup_printf (_("Host memory (%s)"), bp->memory[host].name)
                         : g_strdup (_("Host memory (none)"));
  for (guint k = 0; k < BPW_N_TENSOR_KINDS; k++)
    {
      GtkWidget *row = _bpw_inspector_choice_row (bpw_inspector_tensor_label (k));
      g_autofree char *key = g_strdup_printf ("placement.%s", bpw_tensor_kind_to_string (k));

      _bpw_inspector_choice_append (row, device_label, -1);
      _bpw_inspector_choice_append (row, host_label, BPW_PLACEMENT_HOST);
      _bpw_inspector_mapping_add (self, NULL, self->placement_row, row,
                                  BPW_MAPPING_FIELD_PLACEMENT, k, key);
    }
}

void
_bpw_inspector_build_mapping_binding (BpwInspector       *self,
                                      const BpwBlueprint *bp)
{
  bpw_inspector_build_interconnect (self, bp);
  bpw_inspector_build_tiling (self);
  bpw_inspector_build_engines (self, bp);
  g_free (self->mapping_shape);
  self->mapping_shape = _bpw_inspector_binding_shape (bp);
}

char *
_bpw_inspector_binding_shape (const BpwBlueprint *bp)
{
  GString *shape = g_string_new (bp->name);

  for (guint t = 0; t < bp->n_tiers; t++)
    g_string_append_printf (shape, "|t:%s:%u", bp->tiers[t].name, bp->tiers[t].collectives);
  for (guint e = 0; e < bp->n_engines; e++)
    g_string_append_printf (shape, "|e:%s:%d", bp->engines[e].name, bp->engines[e].kind);
  for (guint m = 0; m < bp->n_memory; m++)
    g_string_append_printf (shape, "|m:%s:%d", bp->memory[m].name, bp->memory[m].kind);
  return g_string_free (shape, FALSE);
}

/* Refresh ---------------------------------------------------------------------------- */

static gint64
bpw_inspector_group_degree (const BpwParallel *p,
                            BpwGroupKind       group)
{
  const gint64 degrees[BPW_N_GROUPS] = { p->tp, p->pp, p->dp, p->ep, p->cp };

  return degrees[group];
}

static char *
bpw_inspector_missing_label (const BpwBlueprint *bp,
                             BpwMappingField     field,
                             gint                value)
{
  switch (field)
    {
    case BPW_MAPPING_FIELD_ALGORITHM:
      /* Translators: a collective algorithm ("In-network") the tier does not implement */
      return g_strdup_printf (_("%s (not offered)"),
                              bpw_inspector_algorithm_label ((BpwCollectiveAlgo) value));
    case BPW_MAPPING_FIELD_ENGINE:
      return (guint) value < bp->n_engines ? bpw_inspector_engine_label (&bp->engines[value])
                                           : g_strdup_printf (_("Engine %d"), value);
    case BPW_MAPPING_FIELD_PLACEMENT:
      return (guint) value < bp->n_memory ? g_strdup (bp->memory[value].name)
                                          : g_strdup_printf (_("Memory level %d"), value);
    case BPW_MAPPING_FIELD_TIER:
    default:
      return g_strdup_printf (_("Tier %d"), value);
    }
}

static void
bpw_inspector_select (GtkWidget          *row,
                      const BpwBlueprint *bp,
                      BpwMappingField     field,
                      gint                value)
{
  g_autofree char *missing = NULL;

  if (_bpw_inspector_choice_select (row, value))
    return;
  /* A value the lists do not offer, from a file: shown as it is, for binding to judge. */
  missing = bpw_inspector_missing_label (bp, field, value);
  _bpw_inspector_choice_append (row, missing, value);
  _bpw_inspector_choice_select (row, value);
}

gboolean
_bpw_inspector_refresh_binding_row (BpwInspector         *self,
                                    GtkWidget            *row,
                                    const BpwMappingView *view)
{
  const BpwMapping *m = &view->run.mapping;
  const BpwBlueprint *bp = view->run.blueprint;
  BpwMappingField field = _bpw_inspector_mapping_field (row);
  guint index = _bpw_inspector_mapping_index (row);

  switch (field)
    {
    case BPW_MAPPING_FIELD_TIER:
      {
        const gint automatic[BPW_N_GROUPS] = { -1, -1, -1, -1, -1 };
        gint resolved[BPW_N_GROUPS];
        g_autofree char *label = NULL;

        bpw_plan_resolve_tiers (bp, &m->parallel, automatic, resolved);
        label = resolved[index] >= 0 && (guint) resolved[index] < bp->n_tiers
                ? g_strdup_printf (_("Automatic (%s)"), bp->tiers[resolved[index]].name)
                : g_strdup (_("Automatic"));
        _bpw_inspector_choice_relabel (row, 0, label);
        bpw_inspector_select (row, bp, field, m->tier[index]);
        /* A group of one device sends nothing. */
        gtk_widget_set_sensitive (row, bpw_inspector_group_degree (&m->parallel, index) > 1);
      }
      return TRUE;
    case BPW_MAPPING_FIELD_ALGORITHM:
      bpw_inspector_select (row, bp, field, (gint) m->algorithm[index]);
      return TRUE;
    case BPW_MAPPING_FIELD_TILING:
      _bpw_inspector_switch_set (row, m->tiling.automatic);
      return TRUE;
    case BPW_MAPPING_FIELD_TILE:
      {
        const gint64 edges[] = { m->tiling.m, m->tiling.n, m->tiling.k };
        g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, edges[index]);

        gtk_widget_set_visible (row, !m->tiling.automatic);
        if (!m->tiling.automatic)
          bpw_value_row_set_value (BPW_VALUE_ROW (row), text);
      }
      return TRUE;
    case BPW_MAPPING_FIELD_ENGINE:
      bpw_inspector_select (row, bp, field, m->engine[index]);
      return TRUE;
    case BPW_MAPPING_FIELD_PLACEMENT:
      bpw_inspector_select (row, bp, field, m->placement[index]);
      return TRUE;
    default:
      return FALSE;
    }
}

void
_bpw_inspector_refresh_binding_summary (BpwInspector         *self,
                                        const BpwMappingView *view)
{
  const BpwMapping *m = &view->run.mapping;
  g_autoptr(GString) host = g_string_new (NULL);
  g_autofree char *engines = NULL;
  guint assigned = 0;

  if (self->engines_row == NULL)
    return;
  for (guint p = 0; p < BPW_N_PRIMITIVES; p++)
    assigned += m->engine[p] != -1;
  engines = assigned == 0
            ? g_strdup (_("All automatic"))
            : g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u kind of operation assigned",
                                            "%u kinds of operation assigned", assigned),
                               assigned);
  adw_expander_row_set_subtitle (self->engines_row, engines);

  for (guint k = 0; k < BPW_N_TENSOR_KINDS; k++)
    if (m->placement[k] == BPW_PLACEMENT_HOST
        || ((guint) m->placement[k] < view->run.blueprint->n_memory
            && view->run.blueprint->memory[m->placement[k]].kind == BPW_MEMORY_HOST))
      g_string_append_printf (host, "%s%s", host->len > 0 ? ", " : "",
                              bpw_inspector_tensor_label (k));
  if (host->len == 0)
    adw_expander_row_set_subtitle (self->placement_row, _("Everything in device memory"));
  else
    {
      /* Translators: %s lists buffer classes ("Weights, KV cache") */
      g_autofree char *text = g_strdup_printf (_("On the host: %s"), host->str);

      adw_expander_row_set_subtitle (self->placement_row, text);
    }
}
