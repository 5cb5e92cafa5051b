/* test-topology-blueprint.c — a tier's torus sizes, oversubscription and rail-optimised
 * layout: read, located errors for hostile values, written back, copied
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "bpw-core.h"
#include "bpw-blueprint-field.h"
#include "bpw-test-blueprint.h"

#define HEAD \
  "{\n" \
  "  \"format\": \"bpw-blueprint\",\n" \
  "  \"version\": 1,\n" \
  "  \"name\": \"t\",\n" \
  "  \"engines\": [{\"name\": \"mx\", \"kind\": \"matrix\", \"peak\": {\"bf16\": \"1 PFLOP/s\"}}],\n" \
  "  \"memory\": [{\"name\": \"hbm\", \"kind\": \"device\", \"capacity\": \"80 GB\", " \
  "\"bandwidth\": \"3 TB/s\"}],\n" \
  "  \"tiers\": [\n"
#define TAIL "  ]\n}\n"
#define TORUS(size, dims) \
  "    {\"name\": \"ici\", \"topology\": \"torus\", \"size\": " size ", " \
  "\"bandwidth\": \"540 GB/s\", \"dimensions\": " dims "}\n"

typedef struct
{
  const char *json;
  const char *needle;   /* the offending text; the error is located at its first byte */
  const char *path;
} BrokenCase;

static const BrokenCase broken[] = {
  { HEAD TORUS ("64", "[4, 4, 0]") TAIL, "0]", "tiers[0].dimensions[2]" },
  { HEAD TORUS ("64", "[-4, 4, 4]") TAIL, "-4", "tiers[0].dimensions[0]" },
  { HEAD TORUS ("64", "[4.5, 4, 4]") TAIL, "4.5", "tiers[0].dimensions[0]" },
  { HEAD TORUS ("64", "[1e30, 4]") TAIL, "1e30", "tiers[0].dimensions[0]" },
  { HEAD TORUS ("64", "[4, \"4\"]") TAIL, "\"4\"]", "tiers[0].dimensions[1]" },
  { HEAD TORUS ("64", "[4, 4, 2]") TAIL, "[4, 4, 2]", "tiers[0].dimensions" },
  { HEAD TORUS ("64", "[65536, 65536, 65536]") TAIL, "[65536", "tiers[0].dimensions" },
  { HEAD TORUS ("64", "[]") TAIL, "[]", "tiers[0].dimensions" },
  { HEAD TORUS ("64", "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,64]") TAIL, "[1,", "tiers[0].dimensions" },
  { HEAD TORUS ("64", "0") TAIL, "0}", "tiers[0].dimensions" },
  { HEAD "    {\"name\": \"net\", \"topology\": \"fat-tree\", \"size\": 64, "
    "\"bandwidth\": \"50 GB/s\", \"dimensions\": [8, 8]}\n" TAIL, "[8, 8]",
    "tiers[0].dimensions" },
  { HEAD "    {\"name\": \"net\", \"topology\": \"fat-tree\", \"size\": 64, "
    "\"bandwidth\": \"50 GB/s\", \"oversubscription\": 0.5}\n" TAIL, "0.5",
    "tiers[0].oversubscription" },
  { HEAD "    {\"name\": \"net\", \"topology\": \"fat-tree\", \"size\": 64, "
    "\"bandwidth\": \"50 GB/s\", \"oversubscription\": -2}\n" TAIL, "-2",
    "tiers[0].oversubscription" },
  { HEAD "    {\"name\": \"net\", \"topology\": \"fat-tree\", \"size\": 64, "
    "\"bandwidth\": \"50 GB/s\", \"oversubscription\": 1e9}\n" TAIL, "1e9",
    "tiers[0].oversubscription" },
  { HEAD "    {\"name\": \"net\", \"topology\": \"fat-tree\", \"size\": 64, "
    "\"bandwidth\": \"50 GB/s\", \"rail_size\": 8}\n" TAIL, "8}", "tiers[0].rail_size" },
  { HEAD "    {\"name\": \"net\", \"topology\": \"rail-optimized\", \"size\": 64, "
    "\"bandwidth\": \"50 GB/s\", \"rail_size\": 0}\n" TAIL, "0}", "tiers[0].rail_size" },
  { HEAD "    {\"name\": \"net\", \"topology\": \"rail-optimized\", \"size\": 64, "
    "\"bandwidth\": \"50 GB/s\", \"rail_size\": 2.5}\n" TAIL, "2.5", "tiers[0].rail_size" },
  { HEAD "    {\"name\": \"net\", \"topology\": \"rail-optimized\", \"size\": 64, "
    "\"bandwidth\": \"50 GB/s\", \"rail_size\": 128}\n" TAIL, "128}", "tiers[0].rail_size" },
  { HEAD "    {\"name\": \"net\", \"topology\": \"rail-optimised\", \"size\": 64, "
    "\"bandwidth\": \"50 GB/s\"}\n" TAIL, "\"rail-optimised\"", "tiers[0].topology" },
};

static void
test_hostile_values (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    bpw_test_assert_blueprint_refused (i, broken[i].json, broken[i].needle, broken[i].path);
}

static const char good[] =
  HEAD
  "    {\"name\": \"ici\", \"topology\": \"torus\", \"dimensions\": [4, 4, 4], \"size\": 64,\n"
  "     \"bandwidth\": \"540 GB/s\", \"links\": 6},\n"
  "    {\"name\": \"dcn\", \"topology\": \"rail-optimized\", \"size\": 4096,\n"
  "     \"bandwidth\": \"50 GB/s\", \"collectives\": [\"ring\", \"hierarchical\"],\n"
  "     \"oversubscription\": {\"value\": 2, \"kind\": \"estimate\", \"source\": \"2:1 spine\"},\n"
  "     \"rail_size\": {\"value\": 32, \"kind\": \"datasheet\", \"source\": \"32-node unit\"}}\n"
  TAIL;

static void
test_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_data ("good.json", good, -1, NULL, &error);
  g_autoptr(BpwBlueprint) back = NULL;
  g_autoptr(BpwBlueprint) copy = NULL;
  g_autofree char *json = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (bp->tiers[0].dimensions, ==, 3);
  g_assert_cmpint (bp->tiers[0].shape[2], ==, 4);
  g_assert_cmpint (bpw_tier_shape_devices (&bp->tiers[0]), ==, 64);
  g_assert_cmpint (bp->tiers[1].topology, ==, BPW_TOPOLOGY_RAIL_OPTIMIZED);
  g_assert_true (bp->tiers[1].oversubscription.set);
  g_assert_cmpfloat (bp->tiers[1].oversubscription.value, ==, 2);
  g_assert_cmpstr (bp->tiers[1].oversubscription.source, ==, "2:1 spine");
  g_assert_true (bp->tiers[1].collectives & BPW_COLLECTIVE_ALGO_HIERARCHICAL);
  g_assert_cmpfloat (bp->tiers[1].rail_size.value, ==, 32);
  g_assert_cmpstr (bp->tiers[1].rail_size.source, ==, "32-node unit");
  g_assert_true (bpw_blueprint_validate (bp, &error));
  g_assert_no_error (error);

  json = bpw_blueprint_to_json (bp);
  g_assert_nonnull (strstr (json, "\"rail-optimized\""));
  g_assert_nonnull (strstr (json, "\"hierarchical\""));
  back = bpw_blueprint_load_data ("saved.json", json, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_blueprint_equal (bp, back));
  copy = bpw_blueprint_copy (bp);
  g_assert_true (bpw_blueprint_equal (bp, copy));
  copy->tiers[0].shape[0] = 2;
  copy->tiers[0].shape[1] = 8;
  g_assert_false (bpw_blueprint_equal (bp, copy));
  copy->tiers[0].shape[1] = 4;
  {
    g_autoptr(BpwBlueprint) railed = bpw_blueprint_copy (bp);

    bpw_blueprint_set_value (railed, &railed->tiers[1].rail_size, 16, BPW_PROVENANCE_ESTIMATE,
                             NULL);
    g_assert_false (bpw_blueprint_equal (bp, railed));
    bpw_blueprint_set_value (railed, &railed->tiers[1].rail_size, 32, BPW_PROVENANCE_DATASHEET,
                             "32-node unit");
    g_assert_true (bpw_blueprint_equal (bp, railed));
  }
  /* Built in code: a shape that does not multiply to the size fails validation. */
  g_assert_false (bpw_blueprint_validate (copy, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  copy->tiers[0].shape[0] = 4;
  bpw_blueprint_set_value (copy, &copy->tiers[1].oversubscription, 0.5, BPW_PROVENANCE_ESTIMATE,
                           NULL);
  g_assert_false (bpw_blueprint_validate (copy, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
}

/* A count of dimensions alone, as before, still reads and writes as a count. */
static void
test_count_only (void)
{
  static const char count[] = HEAD TORUS ("64", "3") TAIL;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_data ("count.json", count, -1, NULL, &error);
  g_autofree char *json = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (bp->tiers[0].dimensions, ==, 3);
  g_assert_cmpint (bp->tiers[0].shape[0], ==, 0);
  g_assert_cmpint (bpw_tier_shape_devices (&bp->tiers[0]), ==, 0);
  g_assert_false (bpw_cost_tier_algorithms (&bp->tiers[0]) & BPW_COLLECTIVE_ALGO_TORUS);
  json = bpw_blueprint_to_json (bp);
  g_assert_nonnull (strstr (json, "\"dimensions\": 3"));
}

/* The window edits a tier's oversubscription as a field; a torus tier's size stays the
 * product of its dimensions. */
static void
test_fields (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_data ("good.json", good, -1, NULL, &error);
  BpwBlueprintField over = { BPW_BLUEPRINT_FIELD_TIER_OVERSUBSCRIPTION, 1, 0 };
  BpwBlueprintField size = { BPW_BLUEPRINT_FIELD_TIER_SIZE, 0, 0 };
  double value = 0;

  g_assert_no_error (error);
  g_assert_cmpint (bpw_blueprint_field_unit (&over), ==, BPW_UNIT_NONE);
  g_assert_true (bpw_blueprint_field_parse (&over, "3", &value, &error));
  g_assert_true (bpw_blueprint_field_set (bp, &over, value, BPW_PROVENANCE_ESTIMATE, "3:1",
                                          &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (bp->tiers[1].oversubscription.value, ==, 3);
  g_assert_false (bpw_blueprint_field_set (bp, &over, 0.5, BPW_PROVENANCE_ESTIMATE, NULL,
                                           &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  g_assert_cmpfloat (bp->tiers[1].oversubscription.value, ==, 3);
  /* 4 × 4 × 4 is 64 devices: 128 would leave the shape behind. */
  g_assert_false (bpw_blueprint_field_set (bp, &size, 128, BPW_PROVENANCE_ESTIMATE, NULL,
                                           &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_cmpfloat (bp->tiers[0].size.value, ==, 64);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/topology/blueprint/hostile-values", test_hostile_values);
  g_test_add_func ("/topology/blueprint/round-trip", test_round_trip);
  g_test_add_func ("/topology/blueprint/count-only", test_count_only);
  g_test_add_func ("/topology/blueprint/fields", test_fields);
  return g_test_run ();
}
