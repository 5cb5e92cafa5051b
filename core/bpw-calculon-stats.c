/* bpw-calculon-stats.c — Calculon's statistics: their names, order and JSON
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The keys and their order are those of Calculon's Llm.get_stats_fields() and
 * Layer.get_stats_json() (calculon-ai/calculon @ caa4b11, Apache License 2.0), so that a
 * document compares key by key with `calculon llm ... stats.json -l`.
 */
#define G_LOG_DOMAIN "bpw-calculon-stats"

#include "config.h"

#include <stddef.h>

#include "bpw-calculon-model-private.h"

static const BpwCalculonField stats_fields[] = {
#define BPW_CALCULON_ENTRY(name) { #name, offsetof (BpwCalculonStats, name) },
  BPW_CALCULON_STATS (BPW_CALCULON_ENTRY)
#undef BPW_CALCULON_ENTRY
};

static const BpwCalculonField layer_fields[] = {
#define BPW_CALCULON_ENTRY(name) { #name, offsetof (BpwCalculonLayerStats, name) },
  BPW_CALCULON_LAYER_STATS (BPW_CALCULON_ENTRY)
#undef BPW_CALCULON_ENTRY
};

const BpwCalculonField *
bpw_calculon_stats_fields (guint *n_fields)
{
  *n_fields = G_N_ELEMENTS (stats_fields);
  return stats_fields;
}

const BpwCalculonField *
bpw_calculon_layer_stats_fields (guint *n_fields)
{
  *n_fields = G_N_ELEMENTS (layer_fields);
  return layer_fields;
}

static void
bpw_calculon_write_fields (BpwJsonWriter          *w,
                           const void             *record,
                           const BpwCalculonField *fields,
                           guint                   n_fields)
{
  for (guint i = 0; i < n_fields; i++)
    bpw_json_writer_double (w, fields[i].name,
                            *(const double *) ((const char *) record + fields[i].offset));
}

void
_bpw_calculon_stats_write (BpwJsonWriter          *w,
                           const char             *key,
                           const BpwCalculonStats *stats)
{
  bpw_json_writer_begin_object (w, key);
  bpw_calculon_write_fields (w, stats, stats_fields, G_N_ELEMENTS (stats_fields));
  bpw_json_writer_end_object (w);
}

char *
bpw_calculon_stats_to_json (const BpwCalculonStats      *stats,
                            const BpwCalculonLayerStats *layers,
                            guint                        n_layers)
{
  BpwJsonWriter w;

  g_return_val_if_fail (stats != NULL, NULL);

  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_begin_object (&w, NULL);
  bpw_calculon_write_fields (&w, stats, stats_fields, G_N_ELEMENTS (stats_fields));
  if (layers != NULL)
    {
      bpw_json_writer_begin_array (&w, "layers");
      for (guint i = 0; i < n_layers; i++)
        {
          bpw_json_writer_begin_object (&w, NULL);
          bpw_json_writer_string (&w, "name", layers[i].name);
          bpw_calculon_write_fields (&w, &layers[i], layer_fields, G_N_ELEMENTS (layer_fields));
          bpw_json_writer_end_object (&w);
        }
      bpw_json_writer_end_array (&w);
    }
  bpw_json_writer_end_object (&w);
  return bpw_json_writer_finish (&w);
}
