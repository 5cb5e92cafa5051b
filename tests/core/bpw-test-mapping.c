/* bpw-test-mapping.c — helpers shared by the mapping tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "bpw-test-mapping.h"

/* "NAME:LINE:COL: " of the first occurrence of @needle in @text, counted here in the text
 * (1-based, columns in bytes), independently of the parser. */
char *
bpw_test_mapping_location (const char *name,
                           const char *text,
                           const char *needle)
{
  const char *at = strstr (text, needle);
  guint line = 1, column = 1;

  g_assert_nonnull (at);
  for (const char *p = text; p < at; p++)
    {
      if (*p == '\n')
        {
          line++;
          column = 1;
        }
      else
        column++;
    }
  return g_strdup_printf ("%s:%u:%u: ", name, line, column);
}

/* Every field away from its default. */
void
bpw_test_mapping_fill_non_default (BpwMapping *m)
{
  bpw_mapping_init_defaults (m);
  m->name = g_strdup ("all \"changed\"\n");
  m->parallel = (BpwParallel) { 8, 4, 16, 2, TRUE, 3, BPW_SCHEDULE_INTERLEAVED, 3, 2,
                                BPW_CP_ALLGATHER };
  m->micro_batch = 4;
  m->recompute = BPW_RECOMPUTE_FULL;
  m->tier[BPW_GROUP_TP] = 0;
  m->tier[BPW_GROUP_PP] = 2;
  m->tier[BPW_GROUP_DP] = 7;
  m->tier[BPW_GROUP_EP] = 1;
  m->tier[BPW_GROUP_CP] = 3;
  m->algorithm[0] = BPW_COLLECTIVE_ALGO_IN_NETWORK;
  m->algorithm[2] = BPW_COLLECTIVE_ALGO_DIRECT;
  m->algorithm[5] = BPW_COLLECTIVE_ALGO_TREE;
  m->fusion = BPW_FUSION_ATTENTION | BPW_FUSION_NORM_RESIDUAL;
  m->tiling = (BpwTiling) { FALSE, 128, 256, 32 };
  m->engine[BPW_PRIM_MATMUL] = 0;
  m->engine[BPW_PRIM_SOFTMAX] = 3;
  m->engine[BPW_PRIM_OPTIMIZER_UPDATE] = 63;
  m->placement[BPW_TENSOR_OPTIMIZER_STATE] = BPW_PLACEMENT_HOST;
  m->placement[BPW_TENSOR_ACTIVATION] = 2;
  m->placement[BPW_TENSOR_KV_CACHE] = 0;
  m->dp_overlap = FALSE;
  m->tp_overlap = BPW_TP_OVERLAP_PIPE;
  m->sp_gather_again = TRUE;
}

void
bpw_test_mapping_assert_round_trip (const BpwMapping *m)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *json = bpw_mapping_to_json (m);
  BpwMapping back;

  g_assert_nonnull (json);
  g_test_message ("%s", json);
  bpw_mapping_init_defaults (&back);
  g_assert_true (bpw_mapping_load_data ("rt.json", json, -1, &back, warnings, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 0);
  g_assert_true (bpw_mapping_equal (m, &back));
  bpw_mapping_clear (&back);
}

