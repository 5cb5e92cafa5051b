/* test-serving-features.c — the Scenario page's serving features: KV cache layout and block,
 * prefix cache, chunked prefill, speculative decoding with MTP heads and images per request,
 * each set in the window, written into the study, undone, and followed by the serving run
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-serving-features"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-candidate.h"
#include "bpw-study-draft.h"
#include "bpw-trade-data.h"
#include "bpw-ui-test-util.h"

#define H100 "h100-sxm-80gb"

static gboolean
bpw_test_edit_pending (gpointer data)
{
  return bpw_window_get_edit_pending (data) || bpw_window_get_busy (data)
         || bpw_sheet_page_get_busy (bpw_window_get_sheet_page (data));
}

static void
wait_edit (BpwWindow *window)
{
  bpw_test_wait (bpw_test_edit_pending, window);
}

static GtkWidget *
row (BpwWindow *window, const char *key)
{
  GtkWidget *r = bpw_inspector_lookup_row (bpw_window_get_inspector (window), key);

  g_assert_nonnull (r);
  return r;
}

static const BpwServeSettings *
serving_of (BpwWindow *window, guint scenario)
{
  return &bpw_study_get_scenario (bpw_window_get_study (window), scenario)->serving;
}

static void
commit (BpwWindow *window, const char *key, const char *text)
{
  GtkWidget *r = row (window, key);

  bpw_value_row_commit_text (BPW_VALUE_ROW (r), text);
  g_assert_null (bpw_value_row_get_error (BPW_VALUE_ROW (r)));
  wait_edit (window);
}

static void
toggle (BpwWindow *window, const char *key, gboolean active)
{
  gtk_switch_set_active (g_object_get_data (G_OBJECT (row (window, key)), "bpw-switch"),
                         active);
  wait_edit (window);
}

static gboolean
switch_active (GtkWidget *r)
{
  return gtk_switch_get_active (g_object_get_data (G_OBJECT (r), "bpw-switch"));
}

static void
undo (BpwWindow *window)
{
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
}

/* Candidate @c serving scenario @s of @window's study as the trade curves do (their prompts,
 * outputs and the scenario's serving features, its draft model on the same devices), 40
 * requests at 1 per second. */
static BpwServeResult
serve (BpwWindow *window, guint c, guint s)
{
  BpwStudy *study = bpw_window_get_study (window);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwServeModel) model = NULL;
  g_autoptr(BpwServeModel) draft = NULL;
  BpwTradeOptions trade;
  BpwServeOptions so;
  BpwCandidateRun run;
  BpwServeResult r;
  gint64 longest_prompt, longest_request;

  bpw_trade_options_init_from_study (&trade, study, s);
  so = (BpwServeOptions) { .requests = 40, .prompt = trade.prompt, .output = trade.output,
                           .seed = 1, .arrival_rate = 1 };
  bpw_serve_settings_apply (&trade.serving, &so);
  g_assert_true (bpw_candidate_run_init (&run, study, c, s, &error));
  g_assert_no_error (error);
  so.replicas = bpw_serve_replicas (&run.mapping.parallel);
  bpw_serve_stream_bounds (&so, &longest_prompt, &longest_request);
  model = bpw_serve_model_new (&run.spec, &run.scenario, run.blueprint, &run.mapping,
                               trade.max_batch, longest_prompt, longest_request, &error);
  g_assert_no_error (error);
  if (trade.serving.spec_tokens > 0 && trade.serving.draft[0] != '\0')
    {
      BpwModelSpec spec;

      g_assert_true (bpw_study_load_draft (study, trade.serving.draft, &spec, &error));
      g_assert_no_error (error);
      draft = bpw_serve_model_new (&spec, &run.scenario, run.blueprint, &run.mapping,
                                   trade.max_batch, longest_prompt, longest_request, &error);
      g_assert_no_error (error);
      bpw_model_spec_clear (&spec);
      so.draft = draft;
    }
  g_assert_true (bpw_serve_run (model, &so, &r, &error));
  g_assert_no_error (error);
  bpw_candidate_run_clear (&run);
  return r;
}

/* The trade curves' note on the stream and serving of scenario @s (no sweep: one rate of
 * a few requests). */
static char *
trade_note (BpwWindow *window, guint s)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwTradeData) data = NULL;
  BpwTradeOptions options;

  bpw_trade_options_init_from_study (&options, bpw_window_get_study (window), s);
  options.requests = 4;
  options.n_rates = 1;
  data = bpw_trade_data_new_from_study (bpw_window_get_study (window), s, &options, &error);
  g_assert_no_error (error);
  return g_strdup (data->stream);
}

/* A window on bundled study @name (one study opened, not the default first). */
static BpwWindow *
open_bundled (const char *name)
{
  g_autoptr(GError) error = NULL;
  BpwWindow *window = bpw_window_new (NULL, NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1600, 1000);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (bpw_window_open_bundled (window, name, &error));
  g_assert_no_error (error);
  bpw_test_wait_window (window);
  return window;
}

static BpwWindow *
open_on (const char *bundled, const char *scenario, guint *candidate, guint *index)
{
  BpwWindow *window = open_bundled (bundled);
  BpwStudy *study;

  study = bpw_window_get_study (window);
  g_assert_true (bpw_study_lookup_scenario (study, scenario, index));
  *candidate = G_MAXUINT;
  for (guint i = 0; i < bpw_study_get_n_candidates (study); i++)
    if (strcmp (bpw_study_get_candidate (study, i)->blueprint, H100) == 0)
      *candidate = i;
  g_assert_cmpuint (*candidate, !=, G_MAXUINT);
  bpw_window_select (window, *candidate, *index);
  wait_edit (window);
  bpw_inspector_show_page (bpw_window_get_inspector (window), "scenario");
  return window;
}

/* The default study's Llama-3-70B decode on the H100. Each row writes its member of the
 * scenario's "serving", the run follows it the way its closed form says, undo restores
 * it, and what is written reads back from the saved file. */
static void
test_rows (void)
{
  guint h100, s;
  BpwWindow *window = open_on ("default", "llama3-70b-decode", &h100, &s);
  BpwServeResult plain = serve (window, h100, s), r;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) back = NULL;
  g_autofree char *text = NULL;
  GtkWidget *block, *hit, *speculative;

  /* The defaults read back as the rows' values, not as edits. */
  g_assert_false (bpw_window_get_can_undo (window));
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (row (window,
                                                                    "scenario/serving.kv_layout"))),
                    ==, 0);
  block = row (window, "scenario/serving.kv_block");
  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (block)), ==, "16");
  g_assert_true (gtk_widget_get_sensitive (block));
  hit = row (window, "scenario/serving.prefix_hit");
  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (hit)), ==, "0");
  g_assert_false (gtk_widget_get_sensitive (row (window, "scenario/serving.chunk_tokens")));
  g_assert_cmpint (plain.kv_reserve_tokens, ==, 0);
  g_assert_cmpfloat (plain.tokens_per_verify, ==, 1);

  /* Contiguous: every sequence reserves the longest request; no blocks to size. */
  adw_combo_row_set_selected (ADW_COMBO_ROW (row (window, "scenario/serving.kv_layout")), 1);
  wait_edit (window);
  g_assert_true (serving_of (window, s)->kv_contiguous);
  g_assert_false (gtk_widget_get_sensitive (row (window, "scenario/serving.kv_block")));
  r = serve (window, h100, s);
  /* Fixed lengths: every request is the longest, 2048 prompt and 2048 output tokens. */
  g_assert_cmpint (r.kv_reserve_tokens, ==, 4096);
  undo (window);
  g_assert_false (serving_of (window, s)->kv_contiguous);
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (row (window,
                                                                    "scenario/serving.kv_layout"))),
                    ==, 0);

  /* 4096 tokens fill 256 blocks of 16 exactly; blocks of 3000 hold them in two, wasting
   * 6000 - 4096 = 1904 tokens a request. 0 and more than 65 536 are refused as the reader
   * refuses them. */
  commit (window, "scenario/serving.kv_block", "3000");
  g_assert_cmpint (serving_of (window, s)->kv_block, ==, 3000);
  r = serve (window, h100, s);
  g_assert_cmpfloat (plain.kv_waste_tokens, ==, 0);
  g_assert_cmpfloat (r.kv_waste_tokens, ==, 1904);
  block = row (window, "scenario/serving.kv_block");
  bpw_value_row_commit_text (BPW_VALUE_ROW (block), "65537");
  g_assert_nonnull (bpw_value_row_get_error (BPW_VALUE_ROW (block)));
  bpw_value_row_commit_text (BPW_VALUE_ROW (block), "0");
  g_assert_nonnull (bpw_value_row_get_error (BPW_VALUE_ROW (block)));
  g_assert_cmpint (serving_of (window, s)->kv_block, ==, 3000);
  undo (window);
  g_assert_cmpint (serving_of (window, s)->kv_block, ==, 0);
  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (row (window,
                                                                "scenario/serving.kv_block"))),
                   ==, "16");

  /* A quarter of each prompt cached: the prefills compute three quarters of the tokens. */
  commit (window, "scenario/serving.prefix_hit", "25 %");
  g_assert_cmpfloat (serving_of (window, s)->prefix_hit, ==, 0.25);
  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (row (window,
                                                                "scenario/serving.prefix_hit"))),
                   ==, "25");
  r = serve (window, h100, s);
  g_assert_cmpint (plain.prefill_tokens, ==, plain.prompt_tokens);
  g_assert_cmpint (r.prompt_tokens, ==, plain.prompt_tokens);
  g_assert_cmpint (r.prefill_tokens, ==, plain.prompt_tokens * 3 / 4);
  g_assert_cmpfloat (r.ttft_s.mean, <, plain.ttft_s.mean);
  hit = row (window, "scenario/serving.prefix_hit");
  bpw_value_row_commit_text (BPW_VALUE_ROW (hit), "100");
  g_assert_nonnull (bpw_value_row_get_error (BPW_VALUE_ROW (hit)));
  g_assert_cmpfloat (serving_of (window, s)->prefix_hit, ==, 0.25);
  /* 99.9 % is the reader's 0.999, however 99.9 / 100 rounds. */
  commit (window, "scenario/serving.prefix_hit", "99.9");
  g_assert_cmpfloat (serving_of (window, s)->prefix_hit, <=, 0.999);
  g_assert_cmpfloat (serving_of (window, s)->prefix_hit, >, 0.998);
  undo (window);
  undo (window);
  g_assert_cmpfloat (serving_of (window, s)->prefix_hit, ==, 0);

  /* Chunked prefill: on at 512 tokens, then 128; a prompt longer than a chunk takes more
   * steps to its first token. */
  toggle (window, "scenario/serving.chunked", TRUE);
  g_assert_cmpint (serving_of (window, s)->chunk_tokens, ==, 512);
  g_assert_true (gtk_widget_get_sensitive (row (window, "scenario/serving.chunk_tokens")));
  commit (window, "scenario/serving.chunk_tokens", "128");
  g_assert_cmpint (serving_of (window, s)->chunk_tokens, ==, 128);
  r = serve (window, h100, s);
  g_assert_cmpint (bpw_study_get_scenario (bpw_window_get_study (window), s)->scenario.seq, >,
                   128);
  g_assert_cmpfloat (r.ttft_s.mean, >, plain.ttft_s.mean);
  g_assert_cmpint (r.prefills, >, plain.prefills);
  undo (window);
  g_assert_cmpint (serving_of (window, s)->chunk_tokens, ==, 512);
  undo (window);
  g_assert_cmpint (serving_of (window, s)->chunk_tokens, ==, 0);
  g_assert_false (switch_active (row (window, "scenario/serving.chunked")));

  /* Llama 3 has no MTP heads: speculation cannot be turned on, and the row says why. */
  speculative = row (window, "scenario/serving.speculative");
  g_assert_false (gtk_widget_get_sensitive (speculative));
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (speculative)),
                            "MTP"));
  g_assert_false (gtk_widget_get_sensitive (row (window, "scenario/serving.spec_tokens")));

  /* Saved and read back, the settings hold. */
  commit (window, "scenario/serving.kv_block", "32");
  toggle (window, "scenario/serving.chunked", TRUE);
  text = bpw_study_to_json (bpw_window_get_study (window));
  back = bpw_study_new_from_data ("back.json", text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_serve_settings_equal (&bpw_study_get_scenario (back, s)->serving,
                                           serving_of (window, s)));
  g_assert_cmpint (bpw_study_get_scenario (back, s)->serving.kv_block, ==, 32);
  g_assert_cmpint (bpw_study_get_scenario (back, s)->serving.chunk_tokens, ==, 512);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Where the draft-model row lists @name; fails when it does not. */
static guint
draft_entry (BpwWindow *window, const char *name)
{
  GListModel *model = adw_combo_row_get_model (ADW_COMBO_ROW (row (window,
                                                                   "scenario/serving.draft")));

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    if (strcmp (gtk_string_list_get_string (GTK_STRING_LIST (model), i), name) == 0)
      return i;
  g_error ("the draft-model row does not list “%s”", name);
  return G_MAXUINT;
}

static gboolean
draft_listed (BpwWindow *window, const char *name)
{
  GListModel *model = adw_combo_row_get_model (ADW_COMBO_ROW (row (window,
                                                                   "scenario/serving.draft")));

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    if (strcmp (gtk_string_list_get_string (GTK_STRING_LIST (model), i), name) == 0)
      return TRUE;
  return FALSE;
}

static void
choose_draft (BpwWindow *window, guint position)
{
  adw_combo_row_set_selected (ADW_COMBO_ROW (row (window, "scenario/serving.draft")),
                              position);
  wait_edit (window);
}

/* The default study's Llama-3-70B decode, which has no MTP heads: Llama 3 8B chosen as its
 * draft model makes speculation available; turned on, it drafts four tokens that each
 * verify step of the 70B checks, the trade curves' note names the draft model, and the
 * run gains more than one token a verify step. Each choice is one edit, undone in turn;
 * "None" while speculating turns speculation off in the same edit. */
static void
test_draft (void)
{
  guint h100, s;
  BpwWindow *window = open_on ("default", "llama3-70b-decode", &h100, &s);
  BpwServeResult plain = serve (window, h100, s), r;
  g_autofree char *note_plain = trade_note (window, s);
  g_autofree char *note = NULL;
  GtkWidget *speculative, *draft;

  /* No draft and no MTP heads: "None" first, then smaller bundled models only. */
  g_assert_false (bpw_window_get_can_undo (window));
  draft = row (window, "scenario/serving.draft");
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (draft)), ==, 0);
  g_assert_cmpuint (draft_entry (window, "None"), ==, 0);
  g_assert_false (draft_listed (window, "None (MTP heads)"));
  g_assert_false (draft_listed (window, "llama3-70b"));
  g_assert_false (draft_listed (window, "gpt3-175b"));
  speculative = row (window, "scenario/serving.speculative");
  g_assert_false (gtk_widget_get_sensitive (speculative));
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (speculative)),
                            "MTP) heads or a draft model"));
  g_assert_null (strstr (note_plain, "speculative"));

  choose_draft (window, draft_entry (window, "llama3-8b"));
  g_assert_cmpstr (serving_of (window, s)->draft, ==, "llama3-8b");
  g_assert_cmpint (serving_of (window, s)->spec_tokens, ==, 0);
  g_assert_true (bpw_window_get_can_undo (window));
  speculative = row (window, "scenario/serving.speculative");
  g_assert_true (gtk_widget_get_sensitive (speculative));
  g_assert_false (switch_active (speculative));
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (row (window,
                                                                    "scenario/serving.draft"))),
                    ==, draft_entry (window, "llama3-8b"));

  toggle (window, "scenario/serving.speculative", TRUE);
  g_assert_cmpstr (serving_of (window, s)->draft, ==, "llama3-8b");
  g_assert_cmpint (serving_of (window, s)->spec_tokens, ==, 4);
  g_assert_cmpfloat (serving_of (window, s)->spec_accept, ==, 0.85);
  g_assert_true (gtk_widget_get_sensitive (row (window, "scenario/serving.spec_tokens")));
  note = trade_note (window, s);
  g_assert_nonnull (strstr (note, "speculative decoding of 4 tokens drafted by llama3-8b "
                                  "(acceptance 0.85)"));
  r = serve (window, h100, s);
  g_assert_cmpfloat (plain.tokens_per_verify, ==, 1);
  g_assert_cmpfloat (r.tokens_per_verify, >, 1);
  g_assert_cmpint (r.requests, ==, plain.requests);
  g_assert_cmpint (r.output_tokens, ==, plain.output_tokens);
  g_assert_cmpfloat (r.tpot_s.mean, <, plain.tpot_s.mean);

  /* No draft model while speculating on a model without MTP heads: nothing would draft,
   * so the one edit also turns speculation off. */
  choose_draft (window, 0);
  g_assert_cmpstr (serving_of (window, s)->draft, ==, "");
  g_assert_cmpint (serving_of (window, s)->spec_tokens, ==, 0);
  g_assert_false (gtk_widget_get_sensitive (row (window, "scenario/serving.speculative")));
  undo (window);
  g_assert_cmpstr (serving_of (window, s)->draft, ==, "llama3-8b");
  g_assert_cmpint (serving_of (window, s)->spec_tokens, ==, 4);
  g_assert_true (switch_active (row (window, "scenario/serving.speculative")));

  undo (window);
  g_assert_cmpint (serving_of (window, s)->spec_tokens, ==, 0);
  g_assert_cmpstr (serving_of (window, s)->draft, ==, "llama3-8b");
  undo (window);
  g_assert_cmpstr (serving_of (window, s)->draft, ==, "");
  g_assert_false (bpw_window_get_can_undo (window));
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (row (window,
                                                                    "scenario/serving.draft"))),
                    ==, 0);
  g_assert_false (gtk_widget_get_sensitive (row (window, "scenario/serving.speculative")));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A DeepSeek-V3 decode scenario added to the MoE training study: its MTP module drafts one
 * token at 85 % when speculation is turned on; the draft length and acceptance are typed,
 * bounded as the reader bounds them, undone, and named in the trade curves' note. */
static void
test_speculation (void)
{
  g_autoptr(GError) error = NULL;
  BpwWindow *window = open_bundled ("moe-training");
  g_autofree char *note = NULL;
  GtkWidget *speculative, *tokens;
  guint s;

  s = bpw_window_add_scenario_for_phase (window, "deepseek-v3", BPW_WORKLOAD_DECODE, &error);
  g_assert_no_error (error);
  wait_edit (window);
  bpw_inspector_show_page (bpw_window_get_inspector (window), "scenario");
  speculative = row (window, "scenario/serving.speculative");
  g_assert_true (gtk_widget_get_sensitive (speculative));
  g_assert_false (gtk_widget_get_sensitive (row (window, "scenario/serving.spec_tokens")));
  g_assert_cmpuint (draft_entry (window, "None (MTP heads)"), ==, 0);
  toggle (window, "scenario/serving.speculative", TRUE);
  g_assert_cmpint (serving_of (window, s)->spec_tokens, ==, 1);
  g_assert_cmpfloat (serving_of (window, s)->spec_accept, ==, 0.85);
  g_assert_true (gtk_widget_get_sensitive (row (window, "scenario/serving.spec_tokens")));
  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (row (window,
                                                                "scenario/serving.spec_accept"))),
                   ==, "85");

  commit (window, "scenario/serving.spec_tokens", "3");
  commit (window, "scenario/serving.spec_accept", "60");
  g_assert_cmpint (serving_of (window, s)->spec_tokens, ==, 3);
  g_assert_cmpfloat (serving_of (window, s)->spec_accept, ==, 0.6);
  note = trade_note (window, s);
  g_assert_nonnull (strstr (note, "speculative decoding of 3 MTP tokens (acceptance 0.60)"));
  tokens = row (window, "scenario/serving.spec_tokens");
  bpw_value_row_commit_text (BPW_VALUE_ROW (tokens), "65");
  g_assert_nonnull (bpw_value_row_get_error (BPW_VALUE_ROW (tokens)));
  g_assert_cmpint (serving_of (window, s)->spec_tokens, ==, 3);

  undo (window);
  g_assert_cmpfloat (serving_of (window, s)->spec_accept, ==, 0.85);
  undo (window);
  g_assert_cmpint (serving_of (window, s)->spec_tokens, ==, 1);
  undo (window);
  g_assert_cmpint (serving_of (window, s)->spec_tokens, ==, 0);
  g_assert_cmpfloat (serving_of (window, s)->spec_accept, ==, 0);
  g_assert_false (switch_active (row (window, "scenario/serving.speculative")));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The multimodal study's LLaVA decode: images per request is the scenario's own value
 * (the model's default of one until set). Its sequence holds the images' 576 tokens each
 * and the text the rest, so no image gives each request 576 more text tokens and no
 * encoder work; two images double the image tokens, and the trade curves' note says so.
 * On the prefill scenario two images leave no text in 1024 tokens and are refused. A
 * text-only model has no such row. */
static void
test_images (void)
{
  guint h100, s, prefill;
  BpwWindow *window = open_on ("multimodal-serving", "llava-decode", &h100, &s);
  BpwStudy *study = bpw_window_get_study (window);
  BpwServeResult one = serve (window, h100, s), r;
  const BpwScenario *sc = &bpw_study_get_scenario (study, s)->scenario;
  g_autofree char *note_one = trade_note (window, s);
  g_autofree char *note_none = NULL;
  g_autofree char *note_two = NULL;
  GtkWidget *images = row (window, "scenario/images");

  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (images)), ==, "1");
  g_assert_false (sc->images_set);
  g_assert_nonnull (strstr (note_one, "with 1 image of 576 tokens"));
  g_assert_cmpint (one.images, ==, 1);
  g_assert_cmpint (one.image_tokens, ==, 576);
  g_assert_cmpfloat (one.encoder_s, >, 0);

  commit (window, "scenario/images", "0");
  g_assert_true (sc->images_set);
  g_assert_cmpint (sc->images, ==, 0);
  r = serve (window, h100, s);
  g_assert_cmpint (r.images, ==, 0);
  g_assert_cmpint (r.requests, ==, one.requests);
  g_assert_cmpint (r.prompt_tokens, ==, one.prompt_tokens + 576 * one.requests);
  g_assert_cmpfloat (r.encoder_s, ==, 0);
  note_none = trade_note (window, s);
  g_assert_null (strstr (note_none, "image"));

  commit (window, "scenario/images", "2");
  g_assert_cmpint (sc->images, ==, 2);
  r = serve (window, h100, s);
  g_assert_cmpint (r.images, ==, 2);
  g_assert_cmpint (r.image_tokens, ==, 2 * 576);
  g_assert_cmpfloat (r.encoder_s, >, one.encoder_s);
  note_two = trade_note (window, s);
  g_assert_nonnull (strstr (note_two, "with 2 images of 576 tokens each"));
  images = row (window, "scenario/images");
  bpw_value_row_commit_text (BPW_VALUE_ROW (images), "-1");
  g_assert_nonnull (bpw_value_row_get_error (BPW_VALUE_ROW (images)));
  g_assert_cmpint (sc->images, ==, 2);

  undo (window);
  g_assert_cmpint (sc->images, ==, 0);
  undo (window);
  g_assert_false (sc->images_set);
  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (row (window, "scenario/images"))),
                   ==, "1");

  g_assert_true (bpw_study_lookup_scenario (study, "llava-prefill", &prefill));
  bpw_window_select (window, h100, prefill);
  wait_edit (window);
  images = row (window, "scenario/images");
  bpw_value_row_commit_text (BPW_VALUE_ROW (images), "2");
  wait_edit (window);
  images = row (window, "scenario/images");
  g_assert_nonnull (bpw_value_row_get_error (BPW_VALUE_ROW (images)));
  g_assert_nonnull (strstr (bpw_value_row_get_error (BPW_VALUE_ROW (images)), "no room"));
  g_assert_false (bpw_study_get_scenario (study, prefill)->scenario.images_set);
  gtk_window_destroy (GTK_WINDOW (window));

  window = open_on ("default", "llama3-70b-prefill", &h100, &s);
  g_assert_null (bpw_inspector_lookup_row (bpw_window_get_inspector (window),
                                           "scenario/images"));
  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
bpw_test_tick (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
bpw_test_not_yet (gpointer data)
{
  return !*(gboolean *) data;
}

/* The Serving group of the Scenario page, whole (however the page is scrolled), into @name
 * under $BPW_TEST_SHOT_DIR, drawn by the window's renderer once the inspector has slid
 * in. */
static void
shoot_group (BpwWindow *window, const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("BPW_TEST_SHOT_DIR"), name, NULL);
  GtkWidget *group = gtk_widget_get_ancestor (row (window, "scenario/serving.kv_layout"),
                                              ADW_TYPE_PREFERENCES_GROUP);
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  gboolean slept = FALSE;
  int width, height;

  g_timeout_add (800, bpw_test_tick, &slept);
  bpw_test_wait (bpw_test_not_yet, &slept);
  bpw_test_wait_for_frame (GTK_WIDGET (window));
  width = gtk_widget_get_width (group);
  height = gtk_widget_get_height (group);
  g_assert_cmpint (width, >, 0);
  paintable = gtk_widget_paintable_new (group);
  /* On the window's background, as it shows. */
  gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 0.98, 0.98, 0.98, 1 },
                             &GRAPHENE_RECT_INIT (0, 0, width, height));
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                         NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("saved %s", path);
}

/* Pictures for people to look at, with BPW_TEST_SHOT_DIR set (under Xvfb): the Serving
 * group of Llama 3 decode (no MTP heads) with a prefix cache and chunked prefill, of a
 * DeepSeek-V3 decode speculating, and of LLaVA decode with its images. */
static void
test_screenshot (void)
{
  g_autoptr(GError) error = NULL;
  BpwWindow *window;
  guint h100, s;

  if (g_getenv ("BPW_TEST_SHOT_DIR") == NULL)
    {
      g_test_skip ("set BPW_TEST_SHOT_DIR for pictures of the Serving group");
      return;
    }
  window = open_on ("default", "llama3-70b-decode", &h100, &s);
  g_object_set (window, "show-inspector", TRUE, NULL);
  commit (window, "scenario/serving.prefix_hit", "20");
  toggle (window, "scenario/serving.chunked", TRUE);
  shoot_group (window, "serving-features.png");

  g_assert_true (bpw_window_open_bundled (window, "moe-training", &error));
  g_assert_no_error (error);
  bpw_test_wait_window (window);
  s = bpw_window_add_scenario_for_phase (window, "deepseek-v3", BPW_WORKLOAD_DECODE, &error);
  g_assert_no_error (error);
  wait_edit (window);
  bpw_inspector_show_page (bpw_window_get_inspector (window), "scenario");
  toggle (window, "scenario/serving.speculative", TRUE);
  shoot_group (window, "serving-features-mtp.png");
  gtk_window_destroy (GTK_WINDOW (window));

  window = open_on ("multimodal-serving", "llava-decode", &h100, &s);
  g_object_set (window, "show-inspector", TRUE, NULL);
  shoot_group (window, "serving-features-images.png");
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *scratch = NULL;
  int exit_code = 0;
  int status;

  if (!bpw_test_init_gui (&argc, &argv, &scratch, &exit_code))
    return exit_code;
  g_test_add_func ("/bpw/ui/ServingFeatures/rows", test_rows);
  g_test_add_func ("/bpw/ui/ServingFeatures/speculation", test_speculation);
  g_test_add_func ("/bpw/ui/ServingFeatures/draft", test_draft);
  g_test_add_func ("/bpw/ui/ServingFeatures/images", test_images);
  g_test_add_func ("/bpw/ui/ServingFeatures/screenshot", test_screenshot);
  status = g_test_run ();
  bpw_test_remove_tree (scratch);
  return status;
}
