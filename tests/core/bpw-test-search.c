/* bpw-test-search.c — fixtures shared by the search tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "bpw-test-search.h"

/* A small dense model whose every width divides by 8: TP 1–8 all legal. */
void
small_spec (BpwModelSpec *spec)
{
  g_autoptr(GError) error = NULL;

  bpw_model_spec_init_defaults (spec);
  spec->name = g_strdup ("search-test");
  spec->layers = 4;
  spec->hidden = 512;
  spec->heads = 8;
  spec->kv_heads = 8;
  spec->head_dim = 64;
  spec->ffn = 2048;
  spec->vocab = 4096;
  spec->max_positions = 1024;
  bpw_model_spec_validate (spec, &error);
  g_assert_no_error (error);
}

void
train_scenario (BpwScenario *s, gint64 batch, gint64 seq)
{
  bpw_scenario_init_defaults (s);
  s->global_batch = batch;
  s->seq = seq;
}

/* Two fusion sets and two offload choices: the searches stay short under sanitizers. */
void
modest_limits (BpwSearchLimits *l)
{
  bpw_search_limits_init (l);
  l->fusion_sets = 1u << BPW_SEARCH_FUSION_DEFAULT | 1u << BPW_SEARCH_FUSION_ALL;
  l->offloads = 1u << BPW_SEARCH_OFFLOAD_NONE | 1u << BPW_SEARCH_OFFLOAD_WEIGHTS;
}

BpwBlueprint *
a100 (void)
{
  g_autoptr(GError) error = NULL;
  BpwBlueprint *bp = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);

  g_assert_no_error (error);
  return bp;
}

BpwSearchSpace *
new_space (const BpwModelSpec *spec, const BpwScenario *s, const BpwBlueprint *bp,
           gint64 devices, const BpwSearchLimits *limits)
{
  g_autoptr(GError) error = NULL;
  BpwSearchLimits free_limits;
  BpwSearchSpace *space;

  bpw_search_limits_init (&free_limits);
  space = bpw_search_space_new (spec, s, bp, NULL, devices, limits != NULL ? limits : &free_limits,
                                &error);
  g_assert_no_error (error);
  return space;
}

BpwSearchReport *
run_search (const BpwSearchSpace *space, guint top, guint threads, gboolean exhaustive,
            gboolean pareto, guint64 shard, guint64 shards)
{
  g_autoptr(GError) error = NULL;
  BpwSearchOptions o;
  BpwSearchReport *r;

  bpw_search_options_init (&o);
  o.top_k = top;
  o.threads = threads;
  o.exhaustive = exhaustive;
  o.pareto = pareto;
  o.shard_index = shard;
  o.shard_count = shards;
  o.reevaluate = FALSE;
  r = bpw_search_run (space, &o, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  return r;
}
