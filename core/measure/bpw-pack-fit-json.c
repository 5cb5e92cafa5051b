/* bpw-pack-fit-json.c — the calibrated blueprint file: the blueprint's native JSON and the
 * "stack" member of the software stack that was measured
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-pack-fit"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-blueprint-io.h"
#include "bpw-file.h"
#include "bpw-i18n.h"
#include "bpw-json-writer.h"
#include "bpw-pack-fit.h"

static void
write_value (BpwJsonWriter *w, const char *key, const BpwPackFitValue *v)
{
  if (isnan (v->value))
    return;
  bpw_json_writer_begin_object (w, key);
  bpw_json_writer_double_shortest (w, "value", v->value);
  bpw_json_writer_string (w, "kind", "calibrated");
  bpw_json_writer_string (w, "source", v->source);
  bpw_json_writer_end_object (w);
}

static void
write_table (BpwJsonWriter *w, const char *key, const GArray *points, const char *source)
{
  if (points->len == 0)
    return;
  bpw_json_writer_begin_object (w, key);
  bpw_json_writer_string (w, "interpolation", "log-linear");
  bpw_json_writer_begin_array (w, "points");
  for (guint i = 0; i < points->len; i++)
    {
      const BpwEfficiencyPoint *p = &g_array_index (points, BpwEfficiencyPoint, i);

      bpw_json_writer_begin_array (w, NULL);
      bpw_json_writer_double_shortest (w, NULL, p->size);
      bpw_json_writer_double_shortest (w, NULL, p->efficiency);
      bpw_json_writer_end_array (w);
    }
  bpw_json_writer_end_array (w);
  bpw_json_writer_string (w, "kind", "measured");
  bpw_json_writer_string (w, "source", source);
  bpw_json_writer_end_object (w);
}

static char *
stack_json (const BpwPackFit *fit)
{
  static const char * const phases[] = { "train", "prefill", "decode" };
  BpwJsonWriter w;

  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_begin_object (&w, NULL);
  bpw_json_writer_string (&w, "name", fit->framework);
  bpw_json_writer_string (&w, "source", fit->source);
  bpw_json_writer_string (&w, "attention", fit->attention);
  if (fit->attention_prefill->len + fit->attention_decode->len > 0)
    {
      bpw_json_writer_begin_object (&w, "attention_rates");
      write_table (&w, "prefill", fit->attention_prefill, fit->attention_source);
      write_table (&w, "decode", fit->attention_decode, fit->attention_source);
      bpw_json_writer_end_object (&w);
    }
  bpw_json_writer_begin_array (&w, "fusion");
  if (fit->fused_attention)
    bpw_json_writer_string (&w, NULL, "attention");
  bpw_json_writer_end_array (&w);
  bpw_json_writer_begin_object (&w, "precision");
  bpw_json_writer_string (&w, "master_weights", fit->master_weights);
  bpw_json_writer_string (&w, "logits", fit->logits);
  bpw_json_writer_end_object (&w);
  bpw_json_writer_begin_object (&w, "optimizer");
  bpw_json_writer_string (&w, "implementation", fit->optimizer);
  write_value (&w, "bytes_per_parameter", &fit->optimizer_bytes);
  write_value (&w, "kernels_per_tensor", &fit->optimizer_kernels);
  bpw_json_writer_end_object (&w);
  bpw_json_writer_string (&w, "elementwise", fit->elementwise);
  bpw_json_writer_begin_object (&w, "launch");
  for (guint p = 0; p < G_N_ELEMENTS (phases); p++)
    bpw_json_writer_string (&w, phases[p], fit->launch[p]);
  write_value (&w, "eager_gap", &fit->eager_gap);
  write_value (&w, "graph_gap", &fit->graph_gap);
  bpw_json_writer_end_object (&w);
  if (fit->moe_implementation != NULL)
    {
      bpw_json_writer_begin_object (&w, "moe_dispatch");
      bpw_json_writer_string (&w, "implementation", fit->moe_implementation);
      write_value (&w, "per_expert", &fit->moe_per_expert);
      bpw_json_writer_end_object (&w);
    }
  bpw_json_writer_end_object (&w);
  return bpw_json_writer_finish (&w);
}

char *
bpw_pack_fit_to_json (const BpwPackFit *fit)
{
  g_autofree char *blueprint = bpw_blueprint_to_json (fit->blueprint);
  g_autofree char *stack = stack_json (fit);
  g_auto(GStrv) lines = g_strsplit (g_strchomp (stack), "\n", -1);
  char *close = strrchr (blueprint, '}');
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (close != NULL, NULL);
  /* The member goes last in the top-level object, indented as its siblings. */
  *close = '\0';
  g_string_append (out, g_strchomp (blueprint));
  g_string_append (out, ",\n  \"stack\": ");
  for (guint i = 0; lines[i] != NULL; i++)
    g_string_append_printf (out, "%s%s", i > 0 ? "\n  " : "", lines[i]);
  g_string_append (out, "\n}\n");
  return g_string_free (out, FALSE);
}

BpwBlueprint *
bpw_pack_fit_load (const BpwPackFit *fit,
                   GError          **error)
{
  g_autofree char *text = bpw_pack_fit_to_json (fit);
  g_autofree char *name = g_strdup_printf ("%s.json", fit->blueprint->name);
  BpwBlueprint *bp = bpw_blueprint_load_data (name, text, -1, NULL, error);

  if (bp == NULL)
    g_prefix_error (error, _("the calibrated blueprint does not read back: "));
  return bp;
}

gboolean
bpw_pack_fit_save (const BpwPackFit *fit,
                   const char       *path,
                   GError          **error)
{
  g_autofree char *text = bpw_pack_fit_to_json (fit);
  g_autoptr(BpwBlueprint) back = bpw_blueprint_load_data (path, text, -1, NULL, error);

  if (back == NULL)
    {
      g_prefix_error (error, _("the calibrated blueprint does not read back: "));
      return FALSE;
    }
  return bpw_file_replace_contents (path, text, -1, error);
}
