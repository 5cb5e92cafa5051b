/* bpw-plot.c — the abstract chart: layout (pure), draw (cairo), hit-test
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-plot"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "bpw-plot-private.h"

typedef struct
{
  BpwPlotStyle  style;
  gboolean      has_style;
  BpwPlotText   text;        /* owned; rebuilt when the style changes */
  double        width, height;
  gboolean      laid_out;
  guint         serial;
  char         *title;       /* owned */
  gpointer      data;        /* owned: the chart's, freed by its class' free_data */
  BpwPlotScene  scene;
} BpwPlotPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (BpwPlot, bpw_plot, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_SELECTED_LINEAGE,
  N_PROPS
};

enum
{
  CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
bpw_plot_finalize (GObject *object)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (BPW_PLOT (object));

  BpwPlotClass *klass = BPW_PLOT_GET_CLASS (object);

  if (priv->has_style)
    bpw_plot_text_clear (&priv->text);
  g_clear_pointer (&priv->title, g_free);
  if (priv->data != NULL)
    klass->free_data (priv->data);
  g_clear_pointer (&priv->scene.targets, g_array_unref);

  G_OBJECT_CLASS (bpw_plot_parent_class)->finalize (object);
}

static void
bpw_plot_get_property (GObject    *object,
                       guint       prop_id,
                       GValue     *value,
                       GParamSpec *pspec)
{
  BpwPlot *self = BPW_PLOT (object);

  switch (prop_id)
    {
    case PROP_SELECTED_LINEAGE:
      g_value_set_uint (value, bpw_plot_get_selected_lineage (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
bpw_plot_set_property (GObject      *object,
                       guint         prop_id,
                       const GValue *value,
                       GParamSpec   *pspec)
{
  BpwPlot *self = BPW_PLOT (object);

  switch (prop_id)
    {
    case PROP_SELECTED_LINEAGE:
      bpw_plot_set_selected_lineage (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
bpw_plot_class_init (BpwPlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = bpw_plot_finalize;
  object_class->get_property = bpw_plot_get_property;
  object_class->set_property = bpw_plot_set_property;
  klass->hit_test = _bpw_plot_default_hit_test;

  /**
   * BpwPlot:selected-lineage:
   *
   * The lineage whose marks are outlined; BPW_PLOT_NO_LINEAGE when none. Linked views set
   * the same lineage on every chart.
   */
  properties[PROP_SELECTED_LINEAGE] =
    g_param_spec_uint ("selected-lineage", NULL, NULL, 0, G_MAXUINT32, BPW_PLOT_NO_LINEAGE,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * BpwPlot::changed:
   *
   * The data changed; the layout is dropped and the plot must be laid out again.
   */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
bpw_plot_init (BpwPlot *self)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  priv->scene.targets = g_array_new (FALSE, FALSE, sizeof (BpwPlotTarget));
  priv->scene.selected = BPW_PLOT_NO_LINEAGE;
}

void
bpw_plot_layout (BpwPlot               *self,
                 const BpwPlotStyle    *style,
                 const BpwPlotViewport *viewport,
                 double                 width,
                 double                 height)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  g_return_if_fail (BPW_IS_PLOT (self));
  g_return_if_fail (style != NULL);

  if (!priv->has_style || !bpw_plot_style_equal (&priv->style, style))
    {
      if (priv->has_style)
        bpw_plot_text_clear (&priv->text);
      priv->style = *style;
      priv->has_style = TRUE;
      bpw_plot_text_init (&priv->text, &priv->style);
    }
  priv->width = MAX (width, 1.0);
  priv->height = MAX (height, 1.0);
  g_array_set_size (priv->scene.targets, 0);
  BPW_PLOT_GET_CLASS (self)->layout (self, viewport, priv->width, priv->height);
  priv->laid_out = TRUE;
  priv->serial++;
}

gboolean
bpw_plot_is_laid_out (BpwPlot *self)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  g_return_val_if_fail (BPW_IS_PLOT (self), FALSE);

  return priv->laid_out;
}

guint
bpw_plot_get_layout_serial (BpwPlot *self)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  g_return_val_if_fail (BPW_IS_PLOT (self), 0);

  return priv->serial;
}

void
bpw_plot_draw (BpwPlot *self,
               cairo_t *cr)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  g_return_if_fail (BPW_IS_PLOT (self));
  g_return_if_fail (cr != NULL);
  g_return_if_fail (priv->laid_out);

  cairo_save (cr);
  bpw_plot_set_source (cr, &priv->style.background);
  cairo_rectangle (cr, 0, 0, priv->width, priv->height);
  cairo_fill (cr);
  BPW_PLOT_GET_CLASS (self)->draw (self, cr);
  cairo_restore (cr);
}

gboolean
bpw_plot_hit_test (BpwPlot    *self,
                   double      x,
                   double      y,
                   BpwPlotHit *hit)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);
  BpwPlotClass *klass;

  g_return_val_if_fail (BPW_IS_PLOT (self), FALSE);
  g_return_val_if_fail (hit != NULL, FALSE);

  *hit = (BpwPlotHit) { .kind = BPW_PLOT_HIT_NONE, .index = -1, .count = 0,
                        .lineage = BPW_PLOT_NO_LINEAGE };
  klass = BPW_PLOT_GET_CLASS (self);
  if (!priv->laid_out || klass->hit_test == NULL || !isfinite (x) || !isfinite (y))
    return FALSE;
  return klass->hit_test (self, x, y, hit);
}

char *
bpw_plot_describe (BpwPlot          *self,
                   const BpwPlotHit *hit)
{
  BpwPlotClass *klass;

  g_return_val_if_fail (BPW_IS_PLOT (self), NULL);
  g_return_val_if_fail (hit != NULL, NULL);

  klass = BPW_PLOT_GET_CLASS (self);
  if (hit->kind == BPW_PLOT_HIT_NONE || klass->describe == NULL)
    return NULL;
  return klass->describe (self, hit);
}

char *
bpw_plot_to_csv (BpwPlot *self)
{
  BpwPlotClass *klass;

  g_return_val_if_fail (BPW_IS_PLOT (self), NULL);

  klass = BPW_PLOT_GET_CLASS (self);
  return klass->to_csv != NULL ? klass->to_csv (self) : g_strdup ("");
}

gboolean
bpw_plot_get_bounds (BpwPlot         *self,
                     BpwPlotViewport *bounds)
{
  BpwPlotClass *klass;

  g_return_val_if_fail (BPW_IS_PLOT (self), FALSE);
  g_return_val_if_fail (bounds != NULL, FALSE);

  klass = BPW_PLOT_GET_CLASS (self);
  return klass->get_bounds != NULL && klass->get_bounds (self, bounds);
}

const BpwPlotStyle *
bpw_plot_get_style (BpwPlot *self)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  g_return_val_if_fail (BPW_IS_PLOT (self), NULL);

  return priv->has_style ? &priv->style : NULL;
}

gsize
bpw_plot_format_bytes (BpwPlot *self,
                       char    *buf,
                       gsize    size,
                       double   bytes)
{
  const BpwPlotStyle *style = bpw_plot_get_style (self);
  BpwPlotStyle print;

  if (style == NULL)
    {
      bpw_plot_style_init_print (&print);
      style = &print;
    }
  return bpw_plot_style_format_bytes (style, buf, size, bytes);
}

void
bpw_plot_get_size (BpwPlot *self,
                   double  *width,
                   double  *height)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  g_return_if_fail (BPW_IS_PLOT (self));

  if (width != NULL)
    *width = priv->width;
  if (height != NULL)
    *height = priv->height;
}

const char *
bpw_plot_get_title (BpwPlot *self)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  g_return_val_if_fail (BPW_IS_PLOT (self), NULL);

  return priv->title != NULL ? priv->title : "";
}

void
bpw_plot_changed (BpwPlot *self)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  g_return_if_fail (BPW_IS_PLOT (self));

  priv->laid_out = FALSE;
  g_signal_emit (self, signals[CHANGED], 0);
}

const BpwPlotRect *
bpw_plot_get_area (BpwPlot *self)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  g_return_val_if_fail (BPW_IS_PLOT (self), NULL);

  return &priv->scene.area;
}

double
bpw_plot_map_x (BpwPlot *self,
                double   value)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  g_return_val_if_fail (BPW_IS_PLOT (self), NAN);

  return bpw_scale_map (&priv->scene.xscale, value);
}

double
bpw_plot_map_y (BpwPlot *self,
                double   value)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  g_return_val_if_fail (BPW_IS_PLOT (self), NAN);

  return bpw_scale_map (&priv->scene.yscale, value);
}

double
bpw_plot_unmap_x (BpwPlot *self,
                  double   x)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  g_return_val_if_fail (BPW_IS_PLOT (self), NAN);

  return bpw_scale_unmap (&priv->scene.xscale, x);
}

void
bpw_plot_set_selected_lineage (BpwPlot *self,
                               guint32  lineage)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  g_return_if_fail (BPW_IS_PLOT (self));

  if (priv->scene.selected == lineage)
    return;
  priv->scene.selected = lineage;
  bpw_plot_changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_LINEAGE]);
}

guint32
bpw_plot_get_selected_lineage (BpwPlot *self)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  g_return_val_if_fail (BPW_IS_PLOT (self), BPW_PLOT_NO_LINEAGE);

  return priv->scene.selected;
}

void
_bpw_plot_class_set_data_type (BpwPlotClass *klass,
                               gsize         data_offset,
                               gsize         title_offset,
                               gpointer    (*new_empty) (void),
                               GDestroyNotify free)
{
  klass->data_offset = data_offset;
  klass->title_offset = title_offset;
  klass->new_empty_data = new_empty;
  klass->free_data = free;
}

void
_bpw_plot_set_data (BpwPlot  *self,
                    gpointer  data)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);
  BpwPlotClass *klass = BPW_PLOT_GET_CLASS (self);

  g_return_if_fail (klass->free_data != NULL);

  /* NULL is "empty": a plot made without data gets empty data, not none. */
  if (data != NULL && data == priv->data)
    return;
  if (data == NULL)
    {
      g_return_if_fail (klass->new_empty_data != NULL);
      data = klass->new_empty_data ();
    }
  if (priv->data != NULL)
    klass->free_data (priv->data);
  priv->data = data;
  G_STRUCT_MEMBER (gpointer, self, klass->data_offset) = data;
  if (klass->data_changed != NULL)
    klass->data_changed (self);
  _bpw_plot_set_title (self, G_STRUCT_MEMBER (const char *, data, klass->title_offset));
  bpw_plot_changed (self);
}

BpwPlotScene *
_bpw_plot_get_scene (BpwPlot *self)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  return &priv->scene;
}

void
_bpw_plot_add_target (BpwPlot             *self,
                      const BpwPlotTarget *target)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  g_array_append_vals (priv->scene.targets, target, 1);
}

gboolean
_bpw_plot_hit_targets (BpwPlot    *self,
                       double      x,
                       double      y,
                       BpwPlotHit *hit)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);
  const GArray *targets = priv->scene.targets;
  const BpwPlotTarget *found = NULL;
  double best = G_MAXDOUBLE;

  /* Topmost first: the targets are in draw order. */
  for (guint i = targets->len; i-- > 0;)
    {
      const BpwPlotTarget *t = &g_array_index (targets, BpwPlotTarget, i);
      const BpwPlotRect *b = &t->hit.bounds;

      if (t->reach > 0)
        {
          double dx = x - (b->x + b->width / 2), dy = y - (b->y + b->height / 2);
          double d = dx * dx + dy * dy;

          if (d <= t->reach * t->reach && d < best)
            best = d, found = t;
        }
      else if (found == NULL && _bpw_plot_rect_contains (b, x, y))
        found = t, best = 0;
    }
  if (found == NULL)
    return FALSE;
  *hit = found->hit;
  return TRUE;
}

gboolean
_bpw_plot_hit_legend (BpwPlot    *self,
                      double      x,
                      double      y,
                      BpwPlotHit *hit)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);
  int legend = bpw_plot_legend_hit (&priv->scene.legend, x, y);

  if (legend < 0)
    return FALSE;
  *hit = (BpwPlotHit) { .kind = BPW_PLOT_HIT_LEGEND, .index = legend, .count = 1,
                        .lineage = BPW_PLOT_NO_LINEAGE,
                        .bounds = priv->scene.legend.entries[legend].bounds };
  return TRUE;
}

gboolean
_bpw_plot_default_hit_test (BpwPlot    *self,
                            double      x,
                            double      y,
                            BpwPlotHit *hit)
{
  return _bpw_plot_hit_targets (self, x, y, hit) || _bpw_plot_hit_legend (self, x, y, hit);
}

BpwPlotText *
_bpw_plot_get_text (BpwPlot *self)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  g_assert (priv->has_style);
  return &priv->text;
}

void
_bpw_plot_set_title (BpwPlot    *self,
                     const char *title)
{
  BpwPlotPrivate *priv = bpw_plot_get_instance_private (self);

  if (g_strcmp0 (priv->title, title) == 0)
    return;
  g_free (priv->title);
  priv->title = g_strdup (title);
}

void
_bpw_csv_text (GString    *out,
               const char *field)
{
  if (field == NULL)
    field = "";
  if (strpbrk (field, ",\"\n\r") != NULL)
    {
      g_string_append_c (out, '"');
      for (const char *p = field; *p; p++)
        {
          if (*p == '"')
            g_string_append_c (out, '"');
          g_string_append_c (out, *p);
        }
      g_string_append_c (out, '"');
    }
  else
    g_string_append (out, field);
  g_string_append_c (out, ',');
}

void
_bpw_csv_number (GString *out,
                 double   value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  /* Locale-independent: a CSV written under a decimal-comma locale must still parse. */
  if (isfinite (value))
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.17g", value));
  g_string_append_c (out, ',');
}

void
_bpw_csv_end (GString *out)
{
  if (out->len > 0 && out->str[out->len - 1] == ',')
    g_string_truncate (out, out->len - 1);
  g_string_append_c (out, '\n');
}

void
_bpw_plot_label_init (BpwPlotLabel       *label,
                      BpwPlotText        *text,
                      BpwPlotFont         font,
                      const char         *str,
                      double              x,
                      double              y,
                      double              ax,
                      double              ay,
                      double              angle,
                      const BpwPlotColor *color)
{
  double w, h, c = cos (angle), s = sin (angle);
  double min_x = G_MAXDOUBLE, min_y = G_MAXDOUBLE, max_x = -G_MAXDOUBLE, max_y = -G_MAXDOUBLE;
  /* Corners in order around the box, so they make a convex quadrilateral. */
  const double corners[4][2] = { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 1 } };
  const double air = 1.5;

  *label = (BpwPlotLabel) { .x = x, .y = y, .ax = ax, .ay = ay, .angle = angle, .font = font,
                            .color = *color };
  g_strlcpy (label->text, str, sizeof label->text);
  bpw_plot_text_measure (text, font, label->text, 0, &w, &h);
  for (guint i = 0; i < 4; i++)
    {
      double dx = (corners[i][0] - ax) * w, dy = (corners[i][1] - ay) * h;
      double px = x + dx * c - dy * s, py = y + dx * s + dy * c;
      double qx = dx + (corners[i][0] * 2 - 1) * air, qy = dy + (corners[i][1] * 2 - 1) * air;

      label->quad.x[i] = x + qx * c - qy * s;
      label->quad.y[i] = y + qx * s + qy * c;

      min_x = MIN (min_x, px);
      max_x = MAX (max_x, px);
      min_y = MIN (min_y, py);
      max_y = MAX (max_y, py);
    }
  label->bounds = (BpwPlotRect) { min_x, min_y, max_x - min_x, max_y - min_y };
  label->quad.n = 4;
}

double
_bpw_plot_title_init (BpwPlotLabel       *label,
                      BpwPlotText        *text,
                      const BpwPlotStyle *style,
                      const char         *str,
                      double              width)
{
  double w, h, wrap = MAX (width - 2 * style->padding, 10.0);

  _bpw_plot_label_init (label, text, BPW_PLOT_FONT_TITLE, str, style->padding, style->padding,
                        0, 0, 0, &style->foreground);
  label->wrap = wrap;
  bpw_plot_text_measure (text, BPW_PLOT_FONT_TITLE, label->text, wrap, &w, &h);
  label->bounds = (BpwPlotRect) { style->padding, style->padding, w, h };
  return style->padding + h;
}

void
_bpw_plot_draw_labels (BpwPlotText  *text,
                       cairo_t      *cr,
                       const GArray *labels)
{
  for (guint i = 0; i < labels->len; i++)
    _bpw_plot_draw_label (text, cr, &g_array_index (labels, BpwPlotLabel, i));
}

void
_bpw_plot_draw_label (BpwPlotText        *text,
                      cairo_t            *cr,
                      const BpwPlotLabel *l)
{
  if (l->halo && text->enabled)
    {
      cairo_move_to (cr, l->quad.x[0], l->quad.y[0]);
      for (guint k = 1; k < l->quad.n; k++)
        cairo_line_to (cr, l->quad.x[k], l->quad.y[k]);
      cairo_close_path (cr);
      cairo_set_source_rgba (cr, l->halo_color.r, l->halo_color.g, l->halo_color.b, 0.85);
      cairo_fill (cr);
    }
  bpw_plot_text_draw (text, cr, l->font, l->text, l->wrap, l->x, l->y, l->ax, l->ay, l->angle,
                      &l->color);
}

const char *
_bpw_plot_layer_type_name (guint layer_type)
{
  static const char * const names[BPW_N_LAYER_TYPES] = {
    [BPW_LAYER_EMBEDDING] = N_("Embedding"), [BPW_LAYER_ATTENTION] = N_("Attention"),
    [BPW_LAYER_MLP] = N_("MLP"), [BPW_LAYER_MOE] = N_("MoE"), [BPW_LAYER_NORM] = N_("Norm"),
    [BPW_LAYER_HEAD] = N_("Head"), [BPW_LAYER_LOSS] = N_("Loss"), [BPW_LAYER_OPTIMIZER] = N_("Optimizer"),
    /* Translators: the image encoder and projector of a multimodal model */
    [BPW_LAYER_VISION] = N_("Vision"),
    /* Translators: a decoder layer's attention to the image tokens (Llama 3.2 Vision) */
    [BPW_LAYER_CROSS_ATTENTION] = N_("Cross-attention"),
  };

  return layer_type < BPW_N_LAYER_TYPES ? _(names[layer_type]) : "?";
}

const char *
_bpw_plot_phase_name (guint phase)
{
  static const char * const names[BPW_N_PHASES] = {
    [BPW_PHASE_FORWARD] = "Forward", [BPW_PHASE_RECOMPUTE] = N_("Recompute"),
    [BPW_PHASE_BACKWARD_ACTIVATION] = N_("Backward (activations)"),
    [BPW_PHASE_BACKWARD_WEIGHT] = N_("Backward (weights)"), [BPW_PHASE_OPTIMIZER] = N_("Optimizer"),
  };

  return phase < BPW_N_PHASES ? _(names[phase]) : "?";
}

const char *
_bpw_plot_phase_short (guint phase)
{
  static const char * const names[BPW_N_PHASES] = {
    [BPW_PHASE_FORWARD] = "fwd", [BPW_PHASE_RECOMPUTE] = "recomp",
    [BPW_PHASE_BACKWARD_ACTIVATION] = "bwd-act", [BPW_PHASE_BACKWARD_WEIGHT] = "bwd-w",
    [BPW_PHASE_OPTIMIZER] = "opt",
  };

  return phase < BPW_N_PHASES ? names[phase] : "?";
}

const char *
_bpw_plot_bottleneck_name (guint bottleneck)
{
  return bottleneck < BPW_N_BOTTLENECKS ? bpw_bottleneck_display_name (bottleneck) : "?";
}
