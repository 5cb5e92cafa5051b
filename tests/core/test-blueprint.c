/* test-blueprint.c — blueprint model, native format, Calculon import, bundled blueprints
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "bpw-blueprint.h"
#include "bpw-blueprint-io.h"
#include "bpw-error.h"
#include "bpw-test-blueprint.h"

/* REFERENCES.md §4, typed in here from the document (dense BF16 peak, HBM capacity and
 * bandwidth, the ridge-point table, per-direction node link, TDP; 0 = not claimed), and
 * where a device's memory was measured, the total its driver reports (nvidia-smi,
 * rocminfo; the sources are in the blueprints), which the blueprint uses instead. */
typedef struct
{
  const char *name;
  double      bf16;
  double      hbm_bytes;
  double      hbm_bw;
  double      ridge;
  double      node_bw;
  double      tdp;
  double      hbm_measured;
} Expected;

#define MiB (1024.0 * 1024.0)

static const Expected expected[] = {
  { "a100-sxm-80gb",  312e12,   80e9,  2039e9,  153, 300e9,  400,  81920 * MiB },
  { "h100-sxm-80gb",  989.4e12, 80e9,  3.35e12, 295, 450e9,  700,  81559 * MiB },
  { "h200-sxm-141gb", 989.4e12, 141e9, 4.8e12,  206, 450e9,  700,  143771 * MiB },
  { "b200",           2250e12,  180e9, 8e12,    281, 900e9,  1000, 183359 * MiB },
  { "mi300x",         1307.4e12, 192e9, 5.3e12, 247, 448e9,  750,  196592 * MiB },
  { "tpu-v4",         275e12,   32.0 * 1024 * 1024 * 1024, 1200e9, 229, 0, 0, 0 },
  { "tpu-v5p",        459e12,   95e9,  2765e9,  166, 0,      0,    0 },
  { "tpu-v5p-4x4x4",  459e12,   95e9,  2765e9,  166, 0,      0,    0 },
  { "gaudi3",         1835e12,  128e9, 3.67e12, 500, 0,      900,  0 },
};

static void
assert_rel (double actual,
            double want,
            double tolerance)
{
  if (fabs (actual - want) > tolerance * fabs (want))
    g_error ("expected %.10g within %.3g relative, got %.10g", want, tolerance, actual);
}

static void
test_bundled_names (void)
{
  const char * const *names = bpw_blueprint_bundled_names ();

  g_assert_cmpuint (g_strv_length ((char **) names), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_true (g_strv_contains (names, expected[i].name));
}

static void
test_bundled_datasheet (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      const Expected *x = &expected[i];
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled (x->name, &error);
      const BpwSourced *peak, *cap, *bw;
      int hbm, mx;

      g_test_message ("%s", x->name);
      g_assert_no_error (error);
      g_assert_nonnull (bp);
      g_assert_cmpstr (bp->name, ==, x->name);
      g_assert_cmpstr (bp->origin, ==, "bundled");

      mx = bpw_blueprint_first_engine (bp, BPW_ENGINE_MATRIX);
      hbm = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
      g_assert_cmpint (mx, >=, 0);
      g_assert_cmpint (hbm, >=, 0);
      peak = &bp->engines[mx].peak[BPW_PRECISION_BF16];
      cap = &bp->memory[hbm].capacity;
      bw = &bp->memory[hbm].bandwidth;

      /* Datasheet values are exact (to the digits REFERENCES gives) and say so. */
      assert_rel (peak->value, x->bf16, 1e-12);
      assert_rel (bw->value, x->hbm_bw, 1e-12);
      g_assert_cmpint (peak->kind, ==, BPW_PROVENANCE_DATASHEET);
      if (x->hbm_measured > 0)
        {
          /* The datasheets' "GB" of these devices are binary: what the driver reports
           * lies between the decimal and the binary reading of the datasheet's number. */
          assert_rel (cap->value, x->hbm_measured, 1e-12);
          g_assert_cmpint (cap->kind, ==, BPW_PROVENANCE_MEASURED);
          g_assert_cmpfloat (cap->value, >=, x->hbm_bytes);
          g_assert_cmpfloat (cap->value, <=, x->hbm_bytes / 1e9 * 1024 * MiB * (1 + 1e-12));
          g_assert_nonnull (strstr (cap->source, "REFERENCES.md §4"));
        }
      else
        {
          assert_rel (cap->value, x->hbm_bytes, 1e-12);
          g_assert_cmpint (cap->kind, ==, BPW_PROVENANCE_DATASHEET);
        }
      g_assert_cmpint (bw->kind, ==, BPW_PROVENANCE_DATASHEET);
      g_assert_nonnull (strstr (peak->source, "REFERENCES.md §4"));
      g_assert_nonnull (strstr (bw->source, "REFERENCES.md §4"));

      /* The ridge-point table of REFERENCES §4 is rounded to whole FLOP/byte. */
      assert_rel (bpw_blueprint_ridge_point (bp, BPW_PRECISION_BF16), x->ridge, 0.01);

      g_assert_cmpuint (bp->n_tiers, >=, 1);
      if (x->node_bw > 0)
        {
          g_assert_cmpuint (bp->n_tiers, >=, 2);
          assert_rel (bp->tiers[0].bandwidth.value, x->node_bw, 1e-12);
          g_assert_cmpint (bp->tiers[0].bandwidth.kind, ==, BPW_PROVENANCE_DATASHEET);
        }
      if (x->tdp > 0)
        assert_rel (bp->tdp.value, x->tdp, 1e-12);
      g_assert_true (bp->precisions & (1u << BPW_PRECISION_BF16));

      /* Every value that is set carries a source. */
      for (guint e = 0; e < bp->n_engines; e++)
        for (guint p = 0; p < BPW_N_PRECISIONS; p++)
          if (bp->engines[e].peak[p].set)
            g_assert_nonnull (bp->engines[e].peak[p].source);
      for (guint t = 0; t < bp->n_tiers; t++)
        {
          g_assert_nonnull (bp->tiers[t].bandwidth.source);
          g_assert_nonnull (bp->tiers[t].size.source);
        }
    }
}

static BpwBlueprint *
load_bundled (const char *name)
{
  g_autoptr(GError) error = NULL;
  BpwBlueprint *bp = bpw_blueprint_load_bundled (name, &error);

  g_assert_no_error (error);
  return bp;
}

static void
test_bundled_details (void)
{
  g_autoptr(BpwBlueprint) h100 = load_bundled ("h100-sxm-80gb");
  g_autoptr(BpwBlueprint) h200 = load_bundled ("h200-sxm-141gb");
  g_autoptr(BpwBlueprint) b200 = load_bundled ("b200");
  g_autoptr(BpwBlueprint) a100 = load_bundled ("a100-sxm-80gb");
  g_autoptr(BpwBlueprint) v5p = load_bundled ("tpu-v5p");
  g_autoptr(BpwBlueprint) gaudi = load_bundled ("gaudi3");
  g_autoptr(BpwBlueprint) mi = load_bundled ("mi300x");
  int ib;

  /* Dense, not sparse: H100 FP8 1978.9 (3957.8 is the sparse figure). */
  assert_rel (bpw_blueprint_peak_flops (h100, BPW_ENGINE_MATRIX, BPW_PRECISION_FP8), 1978.9e12,
              1e-12);
  assert_rel (bpw_blueprint_peak_flops (h100, BPW_ENGINE_MATRIX, BPW_PRECISION_TF32), 494.7e12,
              1e-12);
  assert_rel (bpw_blueprint_peak_flops (h100, BPW_ENGINE_VECTOR, BPW_PRECISION_FP32), 66.9e12,
              1e-12);
  assert_rel (bpw_blueprint_peak_flops (b200, BPW_ENGINE_MATRIX, BPW_PRECISION_FP8), 4500e12,
              1e-12);
  assert_rel (bpw_blueprint_peak_flops (mi, BPW_ENGINE_MATRIX, BPW_PRECISION_FP8), 2614.9e12,
              1e-12);
  assert_rel (bpw_blueprint_peak_flops (a100, BPW_ENGINE_MATRIX, BPW_PRECISION_TF32), 156e12,
              1e-12);
  g_assert_true (h100->sparsity_2_4);

  /* Per direction per device: DGX H100 8 × 400 Gb/s NDR is 50 GB/s per GPU; A100 HDR 25. */
  ib = bpw_blueprint_lookup_tier (h100, "infiniband");
  g_assert_cmpint (ib, ==, 1);
  assert_rel (h100->tiers[ib].bandwidth.value, 400e9 / 8, 1e-12);
  assert_rel (a100->tiers[1].bandwidth.value, 200e9 / 8, 1e-12);
  g_assert_cmpint (h100->tiers[0].size.value, ==, 8);

  /* Unconfirmed in REFERENCES §4, so marked estimate. */
  g_assert_cmpint (h200->tiers[1].bandwidth.kind, ==, BPW_PROVENANCE_ESTIMATE);
  g_assert_cmpint (v5p->tiers[0].bandwidth.kind, ==, BPW_PROVENANCE_ESTIMATE);
  g_assert_cmpint (gaudi->tiers[0].bandwidth.kind, ==, BPW_PROVENANCE_ESTIMATE);
  g_assert_cmpint (gaudi->tiers[1].bandwidth.kind, ==, BPW_PROVENANCE_ESTIMATE);
  /* Gaudi 3: 24 × 200 GbE = 1,200 GB/s bidirectional; the split adds back to 600 one way. */
  assert_rel (gaudi->tiers[0].bandwidth.value + gaudi->tiers[1].bandwidth.value, 600e9, 1e-12);
  /* TPU v5p: 8,960-chip pod, 3D torus. */
  g_assert_cmpint (v5p->tiers[0].topology, ==, BPW_TOPOLOGY_TORUS);
  g_assert_cmpint (v5p->tiers[0].size.value, ==, 8960);

  /* MAMF: 794.5 of 989.4 measured on H100. */
  assert_rel (bpw_efficiency_table_lookup (&h100->engines[0].efficiency[BPW_PRECISION_BF16],
                                           1e11), 794.5 / 989.4, 1e-3);
  g_assert_cmpint (h100->engines[0].efficiency[BPW_PRECISION_BF16].kind, ==,
                   BPW_PROVENANCE_MEASURED);
}

static void
test_efficiency_lookup (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_new ("t");
  BpwEfficiencyTable table = { 0 };
  /* Given out of order: set() sorts. */
  BpwEfficiencyPoint pts[] = { { 1e9, 0.8 }, { 1e6, 0.5 }, { 1e12, 0.9 } };

  g_assert_cmpfloat (bpw_efficiency_table_lookup (&table, 123.0), ==, 1.0);

  bpw_efficiency_table_set (bp, &table, pts, 3, BPW_INTERPOLATION_LOG_LINEAR,
                            BPW_PROVENANCE_ESTIMATE, "test");
  g_assert_cmpfloat (table.points[0].size, ==, 1e6);
  /* Linear in log(size): 10^7.5 is halfway between 1e6 and 1e9. */
  g_assert_cmpfloat_with_epsilon (bpw_efficiency_table_lookup (&table, pow (10, 7.5)), 0.65,
                                  1e-12);
  g_assert_cmpfloat_with_epsilon (bpw_efficiency_table_lookup (&table, 1e10), 0.8 + 0.1 / 3,
                                  1e-12);
  g_assert_cmpfloat (bpw_efficiency_table_lookup (&table, 1e9), ==, 0.8);
  g_assert_cmpfloat (bpw_efficiency_table_lookup (&table, 10), ==, 0.5);
  g_assert_cmpfloat (bpw_efficiency_table_lookup (&table, 1e15), ==, 0.9);

  table.interpolation = BPW_INTERPOLATION_STEP;
  g_assert_cmpfloat (bpw_efficiency_table_lookup (&table, pow (10, 7.5)), ==, 0.5);
  g_assert_cmpfloat (bpw_efficiency_table_lookup (&table, 999e9), ==, 0.8);
  g_assert_cmpfloat (bpw_efficiency_table_lookup (&table, 1e12), ==, 0.9);
  g_free (table.points);
}

static char *
calculon_system (const char *file)
{
  /* Calculon's systems are copied into tests/data/reference/calculon/. */
  char *path = g_test_build_filename (G_TEST_DIST, "data", "reference", "calculon", "systems",
                                      file, NULL);

  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  return path;
}

static void
test_calculon_import (void)
{
  g_autofree char *path = calculon_system ("a100_80g.json");
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = NULL;
  const BpwEngine *mx, *vx;
  const BpwMemoryLevel *m1, *m2;
  const BpwTier *n0, *n1;

  bp = bpw_blueprint_load (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (bp->name, ==, "a100_80g");
  g_assert_cmpint (bp->processing, ==, BPW_PROCESSING_NO_OVERLAP);

  /* Values as CALCULON.md §3.3 lists them for a100_80g, in SI units. */
  g_assert_cmpuint (bp->n_engines, ==, 2);
  mx = &bp->engines[0];
  vx = &bp->engines[1];
  g_assert_cmpint (mx->kind, ==, BPW_ENGINE_MATRIX);
  g_assert_cmpfloat (mx->peak[BPW_PRECISION_FP16].value, ==, 312e12);
  g_assert_cmpfloat (vx->peak[BPW_PRECISION_FP16].value, ==, 78e12);
  g_assert_cmpint (mx->peak[BPW_PRECISION_FP16].kind, ==, BPW_PROVENANCE_ESTIMATE);
  g_assert_nonnull (strstr (mx->peak[BPW_PRECISION_FP16].source, "a100_80g.json"));
  /* The step table: >=128 G: 0.95, >=16 G: 0.9, >=1 G: 0.6, else 0.1. */
  g_assert_cmpint (mx->efficiency[BPW_PRECISION_FP16].interpolation, ==, BPW_INTERPOLATION_STEP);
  g_assert_cmpfloat (bpw_efficiency_table_lookup (&mx->efficiency[BPW_PRECISION_FP16], 77.3e9),
                     ==, 0.9);
  g_assert_cmpfloat (bpw_efficiency_table_lookup (&mx->efficiency[BPW_PRECISION_FP16], 128e9),
                     ==, 0.95);
  g_assert_cmpfloat (bpw_efficiency_table_lookup (&mx->efficiency[BPW_PRECISION_FP16], 0.5e9),
                     ==, 0.1);
  /* CALCULON.md §5: the gpt3-175B Q projection, 77.3 GFLOP at 0.9 of 312 TFLOP/s. */
  g_assert_cmpfloat_with_epsilon (77.3e9 / (312e12 * 0.9) * 1e6, 275.3, 0.05);

  g_assert_cmpuint (bp->n_memory, ==, 2);
  m1 = &bp->memory[0];
  m2 = &bp->memory[1];
  g_assert_cmpint (m1->kind, ==, BPW_MEMORY_DEVICE);
  g_assert_cmpfloat (m1->capacity.value, ==, 80.0 * 1073741824.0);
  g_assert_cmpfloat (m1->bandwidth.value, ==, 2048e9);
  g_assert_cmpfloat (bpw_efficiency_table_lookup (&m1->efficiency, 94.4e6), ==, 0.75);
  g_assert_cmpfloat (bpw_efficiency_table_lookup (&m1->efficiency, 0.5e6), ==, 0.3);
  g_assert_cmpint (m2->kind, ==, BPW_MEMORY_HOST);
  g_assert_cmpfloat (m2->capacity.value, ==, 512.0 * 1073741824.0);
  g_assert_cmpfloat (m2->bandwidth.value, ==, 32e9);

  g_assert_cmpuint (bp->n_tiers, ==, 2);
  n0 = &bp->tiers[0];
  n1 = &bp->tiers[1];
  g_assert_cmpfloat (n0->bandwidth.value, ==, 300e9);
  g_assert_cmpfloat (n0->efficiency.value, ==, 0.65);
  g_assert_cmpfloat (n0->size.value, ==, 8);
  g_assert_cmpfloat (n0->latency.value, ==, 1e-5);
  g_assert_cmpfloat (n0->processor_usage.value, ==, 0.15);
  g_assert_true (n0->must_be_filled);
  g_assert_true (n0->ops[BPW_COLLECTIVE_ALL_REDUCE].set);
  g_assert_cmpfloat (n0->ops[BPW_COLLECTIVE_ALL_REDUCE].scalar, ==, 2.0);
  g_assert_cmpfloat (n0->ops[BPW_COLLECTIVE_ALL_REDUCE].offset, ==, -1.0);
  g_assert_cmpfloat (n0->ops[BPW_COLLECTIVE_REDUCE_SCATTER].scalar, ==, 1.5);
  g_assert_true (n0->ops[BPW_COLLECTIVE_SEND_RECV].set);
  g_assert_false (n0->ops[BPW_COLLECTIVE_SEND_RECV].has_offset);
  g_assert_false (n0->ops[BPW_COLLECTIVE_ALL_TO_ALL].set);
  g_assert_cmpfloat (n1->bandwidth.value, ==, 25e9);
  g_assert_cmpfloat (n1->efficiency.value, ==, 0.9);
  g_assert_cmpfloat (n1->size.value, ==, 65536);
  g_assert_cmpfloat (n1->latency.value, ==, 2e-5);
  g_assert_false (n1->must_be_filled);
}

static void
test_calculon_in_network (void)
{
  g_autofree char *path = calculon_system ("h100_80g_nvl8.json");
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = NULL;

  bp = bpw_blueprint_load_file (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (bp->engines[0].peak[BPW_PRECISION_FP8].value, ==, 2000e12);
  g_assert_cmpfloat (bp->engines[0].peak[BPW_PRECISION_FP16].value, ==, 1000e12);
  /* AR [1.0, 1]: S(1 + 1/N), Calculon's in-switch reduction. */
  g_assert_true (bp->tiers[0].collectives & BPW_COLLECTIVE_ALGO_IN_NETWORK);
  g_assert_false (bp->tiers[1].collectives & BPW_COLLECTIVE_ALGO_IN_NETWORK);
}

static void
assert_round_trip (const BpwBlueprint *bp)
{
  g_autofree char *json = bpw_blueprint_to_json (bp);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) back = NULL;
  g_autoptr(BpwBlueprint) copy = bpw_blueprint_copy (bp);

  back = bpw_blueprint_load_data ("saved.json", json, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_blueprint_equal (bp, back));
  g_assert_true (bpw_blueprint_equal (bp, copy));
}

static void
test_round_trip (void)
{
  const char * const *names = bpw_blueprint_bundled_names ();
  g_autofree char *path = calculon_system ("a100_80g.json");
  g_autoptr(BpwBlueprint) changed = load_bundled ("h100-sxm-80gb");
  g_autoptr(BpwBlueprint) orig = load_bundled ("h100-sxm-80gb");
  g_autofree char *dir = g_dir_make_tmp ("bpw-blueprint-XXXXXX", NULL);
  g_autofree char *file = g_build_filename (dir, "h100.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) reloaded = NULL;

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(BpwBlueprint) bp = load_bundled (names[i]);

      assert_round_trip (bp);
    }
  if (path != NULL)
    {
      g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_file (path, NULL, &error);

      g_assert_no_error (error);
      assert_round_trip (bp);
    }

  /* equal() notices a changed source. */
  bpw_blueprint_set_value (changed, &changed->tdp, changed->tdp.value, changed->tdp.kind,
                           "other");
  g_assert_false (bpw_blueprint_equal (orig, changed));

  g_assert_true (bpw_blueprint_save_file (orig, file, &error));
  g_assert_no_error (error);
  reloaded = bpw_blueprint_load (file, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_blueprint_equal (orig, reloaded));
  g_remove (file);
  g_rmdir (dir);
}

/* A minimal valid blueprint; the %s goes inside the first engine object. */
#define MINIMAL_HEAD \
  "{\n" \
  "  \"format\": \"bpw-blueprint\",\n" \
  "  \"version\": 1,\n" \
  "  \"name\": \"t\",\n" \
  "  \"engines\": [{\"name\": \"mx\", \"kind\": \"matrix\", \"peak\": {\"bf16\": "

typedef struct
{
  const char *json;
  const char *needle;   /* the offending text; the error is located at its first byte */
  const char *path;
} BrokenCase;

static const BrokenCase broken[] = {
  { MINIMAL_HEAD "-5}}],\n"
    "  \"memory\": [{\"name\": \"hbm\", \"kind\": \"device\", \"capacity\": \"80 GB\", "
    "\"bandwidth\": \"3 TB/s\"}]\n}\n",
    "-5", "engines[0].peak.bf16" },
  { MINIMAL_HEAD "\"1 PFLOP/s\", \"bf17\": 3}}],\n"
    "  \"memory\": [{\"name\": \"hbm\", \"kind\": \"device\", \"capacity\": \"80 GB\", "
    "\"bandwidth\": \"3 TB/s\"}]\n}\n",
    "3}", "engines[0].peak.bf17" },
  { MINIMAL_HEAD "\"1 PFLOP/s\"}}],\n"
    "  \"memory\": [{\"name\": \"hbm\", \"kind\": \"device\", \"capacity\": \"80 GB\",\n"
    "    \"bandwidth\": \"80 GB\"}]\n}\n",
    "\"80 GB\"}", "memory[0].bandwidth" },
  { MINIMAL_HEAD "\"1 PFLOP/s\"}}],\n"
    "  \"memory\": [{\"name\": \"hbm\", \"kind\": \"device\", \"capacity\": \"80 GB\", "
    "\"bandwidth\": \"3 TB/s\",\n"
    "                \"engines\": [\"mx\", \"vx\"]}]\n}\n",
    "\"vx\"", "memory[0].engines[1]" },
  { MINIMAL_HEAD "\"1 PFLOP/s\"}, \"efficiency\": {\"bf16\": {\"points\": "
    "[[1e9, 0.5], [1e12, 1.5]]}}}],\n"
    "  \"memory\": [{\"name\": \"hbm\", \"kind\": \"device\", \"capacity\": \"80 GB\", "
    "\"bandwidth\": \"3 TB/s\"}]\n}\n",
    "1.5]", "engines[0].efficiency.bf16.points[1]" },
  { MINIMAL_HEAD "\"1 PFLOP/s\"}}],\n"
    "  \"memory\": [{\"name\": \"hbm\", \"kind\": \"device\", \"capacity\": \"80 GB\", "
    "\"bandwidth\": \"3 TB/s\"}],\n"
    "  \"tiers\": [{\"name\": \"a\", \"topology\": \"switch\", \"size\": 8, "
    "\"bandwidth\": \"450 GB/s\"},\n"
    "            {\"name\": \"b\", \"topology\": \"fat-tree\", \"size\": 4, "
    "\"bandwidth\": \"50 GB/s\"}]\n}\n",
    "4, ", "tiers[1].size" },
  { MINIMAL_HEAD "\"1 PFLOP/s\"}}],\n"
    "  \"memory\": [{\"name\": \"hbm\", \"kind\": \"device\", \"capacity\": \"80 GB\", "
    "\"bandwidth\": \"3 TB/s\"}],\n"
    "  \"tiers\": [{\"name\": \"a\", \"topology\": \"switch\", \"size\": 8.5, "
    "\"bandwidth\": \"450 GB/s\"}]\n}\n",
    "8.5", "tiers[0].size" },
  { MINIMAL_HEAD "\"1 PFLOP/s\"}}],\n"
    "  \"memory\": [{\"name\": \"hbm\", \"kind\": \"device\", \"capacity\": \"80 GB\", "
    "\"bandwidth\": \"3 TB/s\"}],\n"
    "  \"tiers\": [{\"name\": \"a\", \"topology\": \"switch\", \"size\": 8, "
    "\"bandwidth\": \"450 GB/s\", \"collectives\": [\"ring\", \"magic\"]}]\n}\n",
    "\"magic\"", "tiers[0].collectives[1]" },
};

static void
test_broken_files (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    bpw_test_assert_blueprint_refused (i, broken[i].json, broken[i].needle, broken[i].path);
}

static void
test_version_and_format (void)
{
  static const char newer[] =
    "{\"format\": \"bpw-blueprint\", \"version\": 2, \"name\": \"x\"}";
  static const char neither[] = "{\"matrix\": {}, \"vector\": {}}";
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = NULL;
  g_autoptr(GError) error2 = NULL;
  g_autoptr(BpwBlueprint) bp2 = NULL;

  bp = bpw_blueprint_load_data ("new.json", newer, -1, NULL, &error);
  g_assert_null (bp);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  /* Column of the "2": independent of the parser, counted in the text. */
  {
    g_autofree char *want = g_strdup_printf ("new.json:1:%d: version: ",
                                             (int) (strstr (newer, "2,") - newer) + 1);

    g_assert_true (g_str_has_prefix (error->message, want));
  }

  bp2 = bpw_blueprint_load_data ("odd.json", neither, -1, NULL, &error2);
  g_assert_null (bp2);
  g_assert_error (error2, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_true (g_str_has_prefix (error2->message, "odd.json:1:1: "));
}

static void
test_warnings_and_defaults (void)
{
  static const char json[] =
    "{\"format\": \"bpw-blueprint\", \"version\": 1, \"name\": \"w\", \"colour\": 1,\n"
    " \"engines\": [{\"name\": \"mx\", \"kind\": \"matrix\", \"peak\": {\"bf16\": 1e15}},\n"
    "             {\"name\": \"dma\", \"kind\": \"dma\"}],\n"
    " \"memory\": [{\"name\": \"hbm\", \"kind\": \"device\", \"capacity\": \"1 GiB\",\n"
    "             \"bandwidth\": {\"value\": \"1 TB/s\", \"kind\": \"measured\", "
    "\"source\": \"bench\"}}]}\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_data ("w.json", json, -1, warnings, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 1);
  {
    g_autofree char *want = g_strdup_printf ("w.json:1:%d: colour: unknown field",
                                             (int) (strstr (json, "1,\n") - json) + 1);

    g_assert_cmpstr (g_ptr_array_index (warnings, 0), ==, want);
  }
  /* Bare numbers are unsourced estimates; provenance objects keep theirs. */
  g_assert_cmpint (bp->engines[0].peak[BPW_PRECISION_BF16].kind, ==, BPW_PROVENANCE_ESTIMATE);
  g_assert_null (bp->engines[0].peak[BPW_PRECISION_BF16].source);
  g_assert_cmpint (bp->memory[0].bandwidth.kind, ==, BPW_PROVENANCE_MEASURED);
  g_assert_cmpstr (bp->memory[0].bandwidth.source, ==, "bench");
  g_assert_cmpfloat (bp->memory[0].capacity.value, ==, 1073741824.0);
  /* No "engines" list: every engine reaches the level. */
  g_assert_cmpuint (bp->memory[0].engine_mask, ==, 3);
  /* No capabilities: the precisions with a peak. */
  g_assert_cmpuint (bp->precisions, ==, 1u << BPW_PRECISION_BF16);
  g_assert_cmpfloat (bpw_blueprint_ridge_point (bp, BPW_PRECISION_BF16), ==, 1000.0);
}

static void
test_unknown_bundled (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("no-such-gpu", NULL, &error);

  g_assert_null (bp);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "h100-sxm-80gb"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/core/Blueprint/bundled-names", test_bundled_names);
  g_test_add_func ("/bpw/core/Blueprint/bundled-datasheet", test_bundled_datasheet);
  g_test_add_func ("/bpw/core/Blueprint/bundled-details", test_bundled_details);
  g_test_add_func ("/bpw/core/Blueprint/efficiency-lookup", test_efficiency_lookup);
  g_test_add_func ("/bpw/core/Blueprint/calculon-import", test_calculon_import);
  g_test_add_func ("/bpw/core/Blueprint/calculon-in-network", test_calculon_in_network);
  g_test_add_func ("/bpw/core/Blueprint/round-trip", test_round_trip);
  g_test_add_func ("/bpw/core/Blueprint/broken-files", test_broken_files);
  g_test_add_func ("/bpw/core/Blueprint/version-and-format", test_version_and_format);
  g_test_add_func ("/bpw/core/Blueprint/warnings-and-defaults", test_warnings_and_defaults);
  g_test_add_func ("/bpw/core/Blueprint/unknown-bundled", test_unknown_bundled);

  return g_test_run ();
}
