/* bpw-precision-policy.c — the precision policy's vocabulary and its per-operation rules
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-precision-policy"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-i18n.h"
#include "bpw-precision-policy.h"

static const char * const class_names[] = {
  "attention_projection", "mlp", "attention_core", "lm_head", "other"
};
static const char * const format_names[] = {
  "", "bf16", "fp8-e4m3", "fp8-e5m2", "fp4", "int8"
};
static const char * const scaling_names[] = {
  "none", "per-tensor", "per-channel", "per-block"
};
static const char * const fallback_names[] = { "", "engine", "quality", "shape", "group" };
static const char * const weight_names[] = { "native", "int8", "int4" };

G_STATIC_ASSERT (G_N_ELEMENTS (class_names) == BPW_N_MATMUL_CLASSES);
G_STATIC_ASSERT (G_N_ELEMENTS (format_names) == BPW_N_NUMBER_FORMATS);
G_STATIC_ASSERT (G_N_ELEMENTS (scaling_names) == BPW_N_SCALINGS);
G_STATIC_ASSERT (G_N_ELEMENTS (fallback_names) == BPW_N_FALLBACKS);
G_STATIC_ASSERT (G_N_ELEMENTS (weight_names) == BPW_N_WEIGHT_FORMATS);

/* Low-precision GEMMs need k and n in multiples of 16 elements (Transformer Engine's
 * assert_dim_for_fp8_exec: the last dimension divisible by 16; cuBLASLt's FP8 kernels). */
#define LOW_PRECISION_ALIGNMENT 16.0

static gboolean
lookup (const char * const *names, guint n, const char *str, guint *out)
{
  for (guint i = 0; str != NULL && i < n; i++)
    if (names[i][0] != '\0' && strcmp (names[i], str) == 0)
      {
        *out = i;
        return TRUE;
      }
  return FALSE;
}

void
bpw_precision_policy_init (BpwPrecisionPolicy *policy)
{
  g_return_if_fail (policy != NULL);

  memset (policy, 0, sizeof *policy);
}

gboolean
bpw_precision_policy_equal (const BpwPrecisionPolicy *a,
                            const BpwPrecisionPolicy *b)
{
  if (!a->set != !b->set)
    return FALSE;
  if (!a->set)
    return TRUE;
  for (guint c = 0; c < BPW_N_POLICY_CLASSES; c++)
    {
      const BpwClassPrecision *x = &a->classes[c], *y = &b->classes[c];

      if (x->format != y->format || x->scaling != y->scaling || !x->keep_bf16 != !y->keep_bf16
          || !x->sparse_2_4 != !y->sparse_2_4
          || (x->scaling == BPW_SCALING_PER_BLOCK && x->block != y->block)
          || x->weights != y->weights
          || (x->weights != BPW_WEIGHT_FORMAT_NATIVE && x->group != y->group))
        return FALSE;
    }
  return TRUE;
}

gboolean
bpw_precision_policy_sparse (const BpwPrecisionPolicy *policy)
{
  for (guint c = 0; policy->set && c < BPW_N_POLICY_CLASSES; c++)
    if (policy->classes[c].sparse_2_4)
      return TRUE;
  return FALSE;
}

void
bpw_precision_policy_set_weights (BpwPrecisionPolicy *policy,
                                  BpwWeightFormat     weights,
                                  gint64              group)
{
  static const BpwMatmulClass weighted[] = {
    BPW_MATMUL_CLASS_ATTENTION_PROJECTION, BPW_MATMUL_CLASS_MLP
  };

  g_return_if_fail (policy != NULL && weights < BPW_N_WEIGHT_FORMATS);

  policy->set = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (weighted); i++)
    {
      policy->classes[weighted[i]].weights = weights;
      policy->classes[weighted[i]].group = weights != BPW_WEIGHT_FORMAT_NATIVE ? group : 0;
    }
}

gboolean
bpw_precision_policy_weight_only_blocked (const BpwPrecisionPolicy *policy,
                                          BpwDType                  dtype,
                                          BpwMatmulClass           *cls,
                                          BpwNumberFormat          *format)
{
  static const BpwMatmulClass weighted[] = {
    BPW_MATMUL_CLASS_ATTENTION_PROJECTION, BPW_MATMUL_CLASS_MLP
  };
  BpwNumberFormat scenario = bpw_number_format_of_precision (bpw_precision_from_dtype (dtype));

  g_return_val_if_fail (policy != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (weighted); i++)
    {
      const BpwClassPrecision *c = &policy->classes[weighted[i]];
      BpwNumberFormat f = policy->set && c->format != BPW_NUMBER_FORMAT_DEFAULT ? c->format
                                                                                : scenario;

      /* A class the policy keeps in bf16 for quality computes in bf16. */
      if (bpw_number_format_is_reduced (f) && !(policy->set && c->keep_bf16))
        {
          if (cls != NULL)
            *cls = weighted[i];
          if (format != NULL)
            *format = f;
          return TRUE;
        }
    }
  return FALSE;
}

BpwMatmulClass
bpw_matmul_class_of (const BpwOp *op)
{
  gboolean matmul = op->primitive == BPW_PRIM_MATMUL;

  if (!matmul && op->primitive != BPW_PRIM_BATCHED_MATMUL)
    return BPW_MATMUL_CLASS_OTHER;
  switch (op->layer_type)
    {
    case BPW_LAYER_ATTENTION:
      return matmul ? BPW_MATMUL_CLASS_ATTENTION_PROJECTION : BPW_MATMUL_CLASS_ATTENTION_CORE;
    case BPW_LAYER_MLP:
    case BPW_LAYER_MOE:
      return BPW_MATMUL_CLASS_MLP;
    case BPW_LAYER_HEAD:
      return BPW_MATMUL_CLASS_LM_HEAD;
    default:
      return BPW_MATMUL_CLASS_OTHER;
    }
}

BpwPrecision
bpw_number_format_precision (BpwNumberFormat format,
                             BpwPrecision    scenario)
{
  switch (format)
    {
    case BPW_NUMBER_FORMAT_BF16:
      return BPW_PRECISION_BF16;
    case BPW_NUMBER_FORMAT_FP8_E4M3:
    case BPW_NUMBER_FORMAT_FP8_E5M2:
      return BPW_PRECISION_FP8;
    case BPW_NUMBER_FORMAT_FP4:
      return BPW_PRECISION_FP4;
    case BPW_NUMBER_FORMAT_INT8:
      return BPW_PRECISION_INT8;
    default:
      return scenario;
    }
}

double
bpw_number_format_bytes (BpwNumberFormat format,
                         double          scenario_bytes)
{
  switch (format)
    {
    case BPW_NUMBER_FORMAT_BF16:
      return 2.0;
    case BPW_NUMBER_FORMAT_FP8_E4M3:
    case BPW_NUMBER_FORMAT_FP8_E5M2:
    case BPW_NUMBER_FORMAT_INT8:
      return 1.0;
    case BPW_NUMBER_FORMAT_FP4:
      return 0.5;
    default:
      return scenario_bytes;
    }
}

BpwNumberFormat
bpw_number_format_of_precision (BpwPrecision precision)
{
  switch (precision)
    {
    case BPW_PRECISION_BF16:
      return BPW_NUMBER_FORMAT_BF16;
    case BPW_PRECISION_FP8:
      return BPW_NUMBER_FORMAT_FP8_E4M3;
    case BPW_PRECISION_FP4:
      return BPW_NUMBER_FORMAT_FP4;
    case BPW_PRECISION_INT8:
      return BPW_NUMBER_FORMAT_INT8;
    default:
      return BPW_NUMBER_FORMAT_DEFAULT;
    }
}

gboolean
bpw_number_format_is_reduced (BpwNumberFormat format)
{
  return format >= BPW_NUMBER_FORMAT_FP8_E4M3 && format < BPW_N_NUMBER_FORMATS;
}

double
bpw_scaling_bytes (BpwScaling scaling,
                   gint64     block,
                   double     batch,
                   double     m,
                   double     n,
                   double     k)
{
  const double scale = 4.0;  /* one fp32 factor */

  switch (scaling)
    {
    case BPW_SCALING_PER_TENSOR:
      return scale * 2.0;
    case BPW_SCALING_PER_CHANNEL:
      return scale * batch * (m + n);
    case BPW_SCALING_PER_BLOCK:
      return block > 0 ? scale * batch * (m + n) * ceil (k / (double) block) : 0.0;
    default:
      return 0.0;
    }
}

BpwFallback
bpw_precision_shape_fallback (BpwNumberFormat format,
                              BpwScaling      scaling,
                              gint64          block,
                              double          n,
                              double          k)
{
  if (!bpw_number_format_is_reduced (format))
    return BPW_FALLBACK_NONE;
  if (fmod (k, LOW_PRECISION_ALIGNMENT) != 0 || fmod (n, LOW_PRECISION_ALIGNMENT) != 0)
    return BPW_FALLBACK_SHAPE;
  if (scaling == BPW_SCALING_PER_BLOCK && block > 0 && fmod (k, (double) block) != 0)
    return BPW_FALLBACK_SHAPE;
  return BPW_FALLBACK_NONE;
}

gint64
bpw_weight_format_bits (BpwWeightFormat weights)
{
  switch (weights)
    {
    case BPW_WEIGHT_FORMAT_INT8:
      return 8;
    case BPW_WEIGHT_FORMAT_INT4:
      return 4;
    default:
      return 0;
    }
}

gint64
bpw_weight_only_bytes (BpwWeightFormat weights,
                       gint64          group,
                       gint64          elements)
{
  gint64 bits = bpw_weight_format_bits (weights);

  if (bits == 0 || group <= 0 || elements < 0)
    return -1;
  return (elements * bits + 7) / 8 + (elements + group - 1) / group * BPW_WEIGHT_SCALE_BYTES;
}

BpwFallback
bpw_weight_only_fallback (BpwWeightFormat weights,
                          gint64          group,
                          double          k)
{
  if (weights == BPW_WEIGHT_FORMAT_NATIVE)
    return BPW_FALLBACK_NONE;
  if (group <= 0 || k < (double) group || fmod (k, (double) group) != 0)
    return BPW_FALLBACK_GROUP;
  return BPW_FALLBACK_NONE;
}

const char *
bpw_weight_format_to_string (BpwWeightFormat weights)
{
  return weights < BPW_N_WEIGHT_FORMATS ? weight_names[weights] : "";
}

gboolean
bpw_weight_format_from_string (const char      *str,
                               BpwWeightFormat *out)
{
  guint v;

  if (!lookup (weight_names, BPW_N_WEIGHT_FORMATS, str, &v))
    return FALSE;
  *out = (BpwWeightFormat) v;
  return TRUE;
}

const char *
bpw_weight_only_mode (BpwWeightFormat weights,
                      gint64          group)
{
  g_autofree char *mode = NULL;

  if (weights == BPW_WEIGHT_FORMAT_NATIVE || weights >= BPW_N_WEIGHT_FORMATS)
    return "";
  mode = g_strdup_printf ("weights-%s-g%" G_GINT64_FORMAT, weight_names[weights], group);
  return g_intern_string (mode);
}

char *
bpw_weight_only_describe (BpwWeightFormat weights,
                          gint64          group,
                          const char     *compute)
{
  if (weights == BPW_WEIGHT_FORMAT_NATIVE || weights >= BPW_N_WEIGHT_FORMATS)
    return g_strdup (compute);
  /* A notation like the format names, kept untranslated: the sheet's CSV carries it. */
  return g_strdup_printf ("%s w/ g%" G_GINT64_FORMAT " (%s compute)", weight_names[weights],
                          group, compute);
}

const char *
bpw_matmul_class_to_string (BpwMatmulClass cls)
{
  return cls < BPW_N_MATMUL_CLASSES ? class_names[cls] : "";
}

gboolean
bpw_matmul_class_from_string (const char *str,
                          BpwMatmulClass *out)
{
  guint v;

  if (!lookup (class_names, BPW_N_POLICY_CLASSES, str, &v))
    return FALSE;
  *out = (BpwMatmulClass) v;
  return TRUE;
}

const char *
bpw_number_format_to_string (BpwNumberFormat format)
{
  return format < BPW_N_NUMBER_FORMATS ? format_names[format] : "";
}

gboolean
bpw_number_format_from_string (const char      *str,
                               BpwNumberFormat *out)
{
  guint v;

  if (!lookup (format_names, BPW_N_NUMBER_FORMATS, str, &v))
    return FALSE;
  *out = (BpwNumberFormat) v;
  return TRUE;
}

const char *
bpw_scaling_to_string (BpwScaling scaling)
{
  return scaling < BPW_N_SCALINGS ? scaling_names[scaling] : "";
}

gboolean
bpw_scaling_from_string (const char *str,
                         BpwScaling *out)
{
  guint v;

  if (!lookup (scaling_names, BPW_N_SCALINGS, str, &v))
    return FALSE;
  *out = (BpwScaling) v;
  return TRUE;
}

const char *
bpw_fallback_to_string (BpwFallback fallback)
{
  return fallback < BPW_N_FALLBACKS ? fallback_names[fallback] : "";
}

const char *
bpw_fallback_explanation (BpwFallback fallback)
{
  switch (fallback)
    {
    case BPW_FALLBACK_ENGINE:
      return _("the matrix engine has no rate in this precision");
    case BPW_FALLBACK_QUALITY:
      return _("the policy keeps this class in bf16 for quality");
    case BPW_FALLBACK_SHAPE:
      return _("k or n is not a multiple of 16 elements or of the scaling block");
    case BPW_FALLBACK_GROUP:
      return _("the weight-only group size does not divide k: the weights stay unquantised");
    default:
      return "";
    }
}
