/* bpw-calculon-stats.c — Calculon's statistics: their names, order and JSON
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The keys and their order are those of Calculon's Llm.get_stats_fields() and
 * Layer.get_stats_json() (calculon-ai/calculon @ caa4b11, Apache License 2.0; see
 * bpw-calculon-model.h for the NOTICE and the changes), so that a document compares key by
 * key with `calculon llm ... stats.json -l`; and the layer's numbers, computed in
 * get_stats_json()'s order.
 */
#define G_LOG_DOMAIN "bpw-calculon-stats"

#include "config.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

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

/* One layer -------------------------------------------------------------------------- */

static double
bpw_calculon_intensity (BpwPyNum flops,
                        BpwPyNum mem)
{
  if (bpw_py_value (flops) == 0)
    return 0;
  if (bpw_py_value (mem) == 0)
    return INFINITY;
  return bpw_py_value (flops) / bpw_py_value (mem);
}

void
_bpw_calculon_layer_stats (BpwCalculonLayer      *l,
                           BpwCalculonLayerStats *o)
{
  static const BpwCalculonStage stages[] = {
    BPW_CALCULON_FW, BPW_CALCULON_AGRAD, BPW_CALCULON_WGRAD
  };
  double *tiles[3][6] = {
    { &o->baseblock_fw_tp_comm_tile, &o->edgeblock_fw_tp_comm_tile,
      &o->baseblock_fw_tp_comm_size, &o->edgeblock_fw_tp_comm_size,
      &o->baseblock_fw_tp_comm_time, &o->edgeblock_fw_tp_comm_time },
    { &o->baseblock_bw_tp_comm_tile, &o->edgeblock_bw_tp_comm_tile,
      &o->baseblock_bw_tp_comm_size, &o->edgeblock_bw_tp_comm_size,
      &o->baseblock_bw_tp_comm_time, &o->edgeblock_bw_tp_comm_time },
    { &o->baseblock_recomm_tile, &o->edgeblock_recomm_tile,
      &o->baseblock_recomm_size, &o->edgeblock_recomm_size,
      &o->baseblock_recomm_time, &o->edgeblock_recomm_time },
  };
  double *exposed[3][2] = {
    { &o->baseblock_fw_tp_comm_time_exposed, &o->edgeblock_fw_tp_comm_time_exposed },
    { &o->baseblock_bw_tp_comm_time_exposed, &o->edgeblock_bw_tp_comm_time_exposed },
    { &o->baseblock_recomm_time_exposed, &o->edgeblock_recomm_time_exposed },
  };
  double *flops[3] = { &o->fw_flops, &o->agrad_flops, &o->wgrad_flops };
  double *mem[3] = { &o->fw_mem_accessed, &o->agrad_mem_accessed, &o->wgrad_mem_accessed };
  double *ai[3] = {
    &o->fw_arithmetic_intensity, &o->agrad_arithmetic_intensity, &o->wgrad_arithmetic_intensity
  };
  double *ptime[3] = {
    &o->fw_processing_time, &o->agrad_processing_time, &o->wgrad_processing_time
  };

  memset (o, 0, sizeof *o);
  o->name = l->name;
  o->inputs_size = (double) l->inputs_size;
  o->outputs_size = (double) l->output_size;
  /* In get_stats_json()'s order: each stage's processing time sets the exposed time that
   * the stage's entries then read. */
  for (guint s = 0; s < G_N_ELEMENTS (stages); s++)
    {
      BpwPyNum f = _bpw_calculon_layer_flops (l, stages[s]);
      BpwPyNum m = _bpw_calculon_layer_mem_accessed (l, stages[s]);

      *flops[s] = bpw_py_value (f);
      *mem[s] = bpw_py_value (m);
      *ai[s] = bpw_calculon_intensity (f, m);
      *ptime[s] = _bpw_calculon_layer_processing_time (l, stages[s]);
      for (guint b = 0; b < 2; b++)
        {
          gboolean base = b == 0;

          *tiles[s][b] = _bpw_calculon_layer_comm_tile (l, stages[s], base);
          *tiles[s][2 + b] = (double) _bpw_calculon_layer_comm_bytes (l, stages[s], base);
          *tiles[s][4 + b] = _bpw_calculon_layer_net_time (l, stages[s], base);
          *exposed[s][b] = _bpw_calculon_layer_exposed_net_time (l, stages[s], base);
        }
    }
  {
    BpwPyNum f = _bpw_calculon_layer_flops (l, BPW_CALCULON_OPTIM);
    BpwPyNum m = _bpw_calculon_layer_mem_accessed (l, BPW_CALCULON_OPTIM);

    o->optim_flops = bpw_py_value (f);
    o->optim_mem_accessed = bpw_py_value (m);
    o->optim_arithmetic_intensity = bpw_calculon_intensity (f, m);
    o->optim_processing_time = _bpw_calculon_layer_processing_time (l, BPW_CALCULON_OPTIM);
  }
  o->weight = bpw_py_value (_bpw_calculon_layer_weight (l));
  o->activation = bpw_py_value (_bpw_calculon_layer_activation (l));
  o->weight_grad = bpw_py_value (_bpw_calculon_layer_weight_grad (l, TRUE));
  o->activation_grad = bpw_py_value (_bpw_calculon_layer_activation_grad (l));
  o->optimizer = _bpw_calculon_layer_optimizer (l);
}
