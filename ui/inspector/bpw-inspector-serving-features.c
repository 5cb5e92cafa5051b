/* bpw-inspector-serving-features.c — the Scenario page's serving features: KV cache layout,
 * prefix cache, chunked prefill, speculative decoding and images per request
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An inference scenario's trade curves serve its requests with the features of its
 * "serving" object (bpw-serve.h): a paged KV cache of some block size or a contiguous one,
 * a prefix-cache hit rate, prompts prefilled in chunks, and speculative decoding with the
 * model's MTP heads or a smaller draft model. Each row here is one undoable edit of those settings; images per
 * request, the scenario's own value, is one undoable edit of the scenario. The bounds are
 * the study reader's, so that whatever is set here reads back.
 */
#define G_LOG_DOMAIN "bpw-inspector-serving"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "bpw-inspector-private.h"

typedef enum
{
  FEATURE_KV_LAYOUT = 1,
  FEATURE_KV_BLOCK,
  FEATURE_PREFIX_HIT,
  FEATURE_CHUNKED,
  FEATURE_CHUNK_TOKENS,
  FEATURE_SPECULATIVE,
  FEATURE_DRAFT,
  FEATURE_SPEC_TOKENS,
  FEATURE_SPEC_ACCEPT,
  FEATURE_IMAGES,
} ServingFeature;

#define FEATURE_KEY "bpw-serving-feature"

/* The study reader's bounds on a fraction (prefix_hit, spec_accept): [0, 0.999]. As a
 * percentage the most is 99.9 %: a hit rate or acceptance of 1 would never compute or
 * never stop drafting. */
#define MAX_FRACTION 0.999

/* Chunked prefill turned on starts at 512 prompt tokens a step: vLLM's token budget per
 * step when it enabled chunked prefill by default. */
#define DEFAULT_CHUNK_TOKENS 512

/* Speculative decoding turned on starts with one draft token per MTP module at an
 * acceptance of 85 %: DeepSeek-V3's report measures 85 to 90 % for its one MTP module's
 * token. */
#define DEFAULT_SPEC_ACCEPT 0.85

/* With a draft model it starts at four draft tokens, the lookahead Chen et al. ("Accelerating
 * Large Language Model Decoding with Speculative Sampling", 2023) drafted Chinchilla 70B
 * with. The acceptance starts where MTP's does: a draft model's depends on the pair and
 * the text, and is the user's to set from a measurement. */
#define DEFAULT_DRAFT_TOKENS 4

static const BpwModelSpec *
scenario_model (BpwInspector *self)
{
  const BpwStudyScenario *s = bpw_study_get_scenario (self->study, self->scenario);

  return &bpw_study_get_workload (self->study, s->workload)->spec;
}

static void
apply_serving (BpwInspector *self, GtkWidget *row, const BpwServeSettings *serving)
{
  BpwStudyEdit *edit = bpw_study_edit_new_scenario_serving (
    self->study, self->scenario, serving,
    adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));

  _bpw_inspector_apply (self, row, edit);
}

static void
apply_images (BpwInspector *self, GtkWidget *row, gint64 images)
{
  const BpwStudyScenario *s = bpw_study_get_scenario (self->study, self->scenario);
  BpwScenario scenario;
  BpwStudyEdit *edit;

  bpw_scenario_copy (&scenario, &s->scenario);
  scenario.images_set = TRUE;
  scenario.images = images;
  edit = bpw_study_edit_new_scenario (self->study, self->scenario, &scenario, &s->parallel,
                                      adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
  bpw_scenario_clear (&scenario);
  _bpw_inspector_apply (self, row, edit);
}

/* A percentage the user typed ("25", "12.5 %"), from 0 to 99.9, as a fraction. */
static gboolean
parse_percent (const char *text, double *fraction)
{
  g_autofree char *stripped = g_strstrip (g_strdup (text != NULL ? text : ""));
  gsize len = strlen (stripped);
  char *end = NULL;
  double percent;

  if (len > 0 && stripped[len - 1] == '%')
    {
      stripped[len - 1] = '\0';
      g_strchomp (stripped);
    }
  if (stripped[0] == '\0')
    return FALSE;
  percent = g_ascii_strtod (stripped, &end);
  /* Compared as typed: 99.9 / 100 is a hair above 0.999 in binary. */
  if (end == NULL || *end != '\0' || !isfinite (percent) || percent < 0
      || percent > MAX_FRACTION * 100)
    return FALSE;
  *fraction = MIN (percent / 100, MAX_FRACTION);
  return TRUE;
}

/* The draft-model row's entries: the first is no draft model (the MTP heads, or nothing),
 * every other one is the reference it shows, a bundled model's name or a model file. */
static const char *
draft_at (AdwComboRow *row, guint position)
{
  GListModel *model = adw_combo_row_get_model (row);

  if (position == 0 || position >= g_list_model_get_n_items (model))
    return "";
  return gtk_string_list_get_string (GTK_STRING_LIST (model), position);
}

static void
combo_cb (AdwComboRow *row, GParamSpec *pspec, BpwInspector *self)
{
  ServingFeature feature = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), FEATURE_KEY));
  BpwServeSettings serving;

  if (self->refreshing || self->scenario == G_MAXUINT)
    return;
  serving = bpw_study_get_scenario (self->study, self->scenario)->serving;
  if (feature == FEATURE_DRAFT)
    {
      g_strlcpy (serving.draft, draft_at (row, adw_combo_row_get_selected (row)),
                 sizeof serving.draft);
      /* No draft model on a model without MTP heads leaves nothing to draft with: the
       * same edit turns speculation off. */
      if (serving.draft[0] == '\0' && scenario_model (self)->mtp_modules == 0)
        {
          serving.spec_tokens = 0;
          serving.spec_accept = 0;
        }
    }
  else
    serving.kv_contiguous = adw_combo_row_get_selected (row) == 1;
  apply_serving (self, GTK_WIDGET (row), &serving);
}

static void
switch_cb (GtkSwitch *toggle, GParamSpec *pspec, BpwInspector *self)
{
  GtkWidget *row = g_object_get_data (G_OBJECT (toggle), "bpw-row");
  ServingFeature feature = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), FEATURE_KEY));
  gboolean on = gtk_switch_get_active (toggle);
  BpwServeSettings serving;

  if (self->refreshing || self->scenario == G_MAXUINT)
    return;
  serving = bpw_study_get_scenario (self->study, self->scenario)->serving;
  if (feature == FEATURE_CHUNKED)
    serving.chunk_tokens = on ? DEFAULT_CHUNK_TOKENS : 0;
  else
    {
      gint64 heads = scenario_model (self)->mtp_modules;
      gint64 drafts = serving.draft[0] != '\0' ? DEFAULT_DRAFT_TOKENS
                      : CLAMP (heads, 1, BPW_SERVE_MAX_SPEC_TOKENS);

      serving.spec_tokens = on ? drafts : 0;
      serving.spec_accept = on ? DEFAULT_SPEC_ACCEPT : 0;
    }
  apply_serving (self, row, &serving);
}

static void
commit_cb (BpwValueRow *row, const char *text, BpwInspector *self)
{
  ServingFeature feature = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), FEATURE_KEY));
  g_autoptr(GError) error = NULL;
  BpwServeSettings serving;
  gint64 count = 0, min = 1, max = G_MAXINT32;
  double fraction = 0;

  if (self->refreshing || self->scenario == G_MAXUINT)
    return;
  serving = bpw_study_get_scenario (self->study, self->scenario)->serving;
  if (feature == FEATURE_PREFIX_HIT || feature == FEATURE_SPEC_ACCEPT)
    {
      if (!parse_percent (text, &fraction))
        {
          bpw_value_row_set_error (row, _("Expected a percentage from 0 to 99.9"));
          return;
        }
      if (feature == FEATURE_PREFIX_HIT)
        serving.prefix_hit = fraction;
      else
        serving.spec_accept = fraction;
      apply_serving (self, GTK_WIDGET (row), &serving);
      return;
    }

  if (feature == FEATURE_KV_BLOCK)
    max = BPW_SERVE_MAX_KV_BLOCK;
  else if (feature == FEATURE_SPEC_TOKENS)
    max = BPW_SERVE_MAX_SPEC_TOKENS;
  else if (feature == FEATURE_IMAGES)
    min = 0;
  if (!_bpw_inspector_parse_count (text, min, &count, &error) || count > max)
    {
      g_autofree char *message = g_strdup_printf (_("Expected a whole number from %lld to "
                                                    "%lld"), (long long) min,
                                                  (long long) max);

      bpw_value_row_set_error (row, message);
      return;
    }
  switch (feature)
    {
    case FEATURE_KV_BLOCK: serving.kv_block = count; break;
    case FEATURE_CHUNK_TOKENS: serving.chunk_tokens = count; break;
    case FEATURE_SPEC_TOKENS: serving.spec_tokens = count; break;
    case FEATURE_IMAGES:
      apply_images (self, GTK_WIDGET (row), count);
      return;
    case FEATURE_KV_LAYOUT:
    case FEATURE_PREFIX_HIT:
    case FEATURE_CHUNKED:
    case FEATURE_SPECULATIVE:
    case FEATURE_DRAFT:
    case FEATURE_SPEC_ACCEPT:
    default:
      g_assert_not_reached ();
    }
  apply_serving (self, GTK_WIDGET (row), &serving);
}

static GtkWidget *
add_value (BpwInspector *self, AdwPreferencesGroup *group, const char *title,
           const char *subtitle, const char *unit, const char *key, ServingFeature feature)
{
  GtkWidget *row = bpw_value_row_new (title);

  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  bpw_value_row_set_unit (BPW_VALUE_ROW (row), unit);
  g_object_set_data (G_OBJECT (row), FEATURE_KEY, GINT_TO_POINTER (feature));
  g_signal_connect_object (row, "commit", G_CALLBACK (commit_cb), self, 0);
  _bpw_inspector_add_row (self, BPW_INSPECTOR_SCENARIO, group, row, key);
  return row;
}

static GtkWidget *
add_switch (BpwInspector *self, AdwPreferencesGroup *group, const char *title,
            const char *subtitle, const char *key, ServingFeature feature)
{
  GtkWidget *row = _bpw_inspector_switch_row (title);
  GtkWidget *toggle = g_object_get_data (G_OBJECT (row), "bpw-switch");

  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  g_object_set_data (G_OBJECT (row), FEATURE_KEY, GINT_TO_POINTER (feature));
  g_object_set_data (G_OBJECT (toggle), "bpw-row", row);
  g_signal_connect_object (toggle, "notify::active", G_CALLBACK (switch_cb), self, 0);
  _bpw_inspector_add_row (self, BPW_INSPECTOR_SCENARIO, group, row, key);
  return row;
}

/* The draft models the scenario's model @spec can take: no draft model first, then the
 * bundled models smaller than it with its vocabulary (a draft's tokens are the target's:
 * the verify step compares token ids), then the study's draft where it names a file. */
static GtkWidget *
add_draft (BpwInspector *self, AdwPreferencesGroup *group, const BpwModelSpec *spec)
{
  const BpwStudyScenario *s = bpw_study_get_scenario (self->study, self->scenario);
  const char * const *names = bpw_model_spec_bundled_names ();
  guint64 parameters = bpw_model_spec_parameters (spec);
  g_autoptr(GtkStringList) list = gtk_string_list_new (NULL);
  gboolean listed = s->serving.draft[0] == '\0';
  GtkWidget *row;

  gtk_string_list_append (list, spec->mtp_modules > 0 ? _("None (MTP heads)") : _("None"));
  for (guint i = 0; names[i] != NULL; i++)
    {
      BpwModelSpec draft;

      if (!bpw_model_spec_lookup_bundled (names[i], &draft))
        continue;
      if (draft.vocab == spec->vocab && bpw_model_spec_parameters (&draft) < parameters)
        {
          gtk_string_list_append (list, names[i]);
          listed = listed || strcmp (names[i], s->serving.draft) == 0;
        }
      bpw_model_spec_clear (&draft);
    }
  if (!listed)
    gtk_string_list_append (list, s->serving.draft);

  row = g_object_new (ADW_TYPE_COMBO_ROW, "title", _("Draft model"), "model", list,
                      "use-markup", FALSE, NULL);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row),
                               _("A smaller model that drafts the tokens, on the same "
                                 "devices"));
  g_object_set_data (G_OBJECT (row), FEATURE_KEY, GINT_TO_POINTER (FEATURE_DRAFT));
  g_signal_connect_object (row, "notify::selected", G_CALLBACK (combo_cb), self, 0);
  _bpw_inspector_add_row (self, BPW_INSPECTOR_SCENARIO, group, row, "serving.draft");
  return row;
}

/* Where @row lists @draft ("" is the first entry); a draft set since the row was built (a
 * model file) is added to its list. */
static guint
draft_position (GtkWidget *row, const char *draft)
{
  GListModel *model = adw_combo_row_get_model (ADW_COMBO_ROW (row));
  guint n = g_list_model_get_n_items (model);

  if (draft[0] == '\0')
    return 0;
  for (guint i = 1; i < n; i++)
    if (strcmp (gtk_string_list_get_string (GTK_STRING_LIST (model), i), draft) == 0)
      return i;
  gtk_string_list_append (GTK_STRING_LIST (model), draft);
  return n;
}

void
_bpw_inspector_build_serving_features (BpwInspector *self)
{
  const char * const layouts[] = { _("Paged"), _("Contiguous"), NULL };
  const BpwModelSpec *spec = scenario_model (self);
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  GtkWidget *row;

  adw_preferences_group_set_title (group, _("Serving"));
  adw_preferences_group_set_description (group, _("How the trade curves serve the "
                                                  "scenario’s requests, as bpw serve does"));
  _bpw_inspector_add_group (self, BPW_INSPECTOR_SCENARIO, group);

  row = _bpw_inspector_combo_row (_("KV cache layout"), layouts);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("Contiguous reserves the longest "
                                                       "request for every sequence"));
  g_object_set_data (G_OBJECT (row), FEATURE_KEY, GINT_TO_POINTER (FEATURE_KV_LAYOUT));
  g_signal_connect_object (row, "notify::selected", G_CALLBACK (combo_cb), self, 0);
  _bpw_inspector_add_row (self, BPW_INSPECTOR_SCENARIO, group, row, "serving.kv_layout");
  add_value (self, group, _("KV block size"), _("Tokens per block of the paged cache"),
             _("tokens"), "serving.kv_block", FEATURE_KV_BLOCK);
  add_value (self, group, _("Prefix-cache hit rate"),
             _("Share of each prompt already in the cache, not computed again"), "%",
             "serving.prefix_hit", FEATURE_PREFIX_HIT);

  add_switch (self, group, _("Chunked prefill"),
              _("Prompts split into chunks that share steps with decodes"),
              "serving.chunked", FEATURE_CHUNKED);
  add_value (self, group, _("Chunk size"), _("Prompt tokens per step"), _("tokens"),
             "serving.chunk_tokens", FEATURE_CHUNK_TOKENS);

  if (spec->mtp_modules > 0)
    row = add_switch (self, group, _("Speculative decoding"),
                      _("The model’s MTP heads, or a draft model, draft tokens that one step "
                        "verifies"),
                      "serving.speculative", FEATURE_SPECULATIVE);
  else
    row = add_switch (self, group, _("Speculative decoding"),
                      _("Needs multi-token prediction (MTP) heads or a draft model"),
                      "serving.speculative", FEATURE_SPECULATIVE);
  add_draft (self, group, spec);
  add_value (self, group, _("Draft tokens"), _("Tokens drafted per verify step"),
             _("tokens"), "serving.spec_tokens", FEATURE_SPEC_TOKENS);
  add_value (self, group, _("Acceptance rate"),
             _("Probability that a draft token is accepted"), "%", "serving.spec_accept",
             FEATURE_SPEC_ACCEPT);

  if (bpw_model_spec_has_vision (spec))
    {
      gint64 tokens = bpw_model_spec_image_tokens (spec);
      g_autofree char *subtitle =
        tokens > 0
        ? g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                        "Each image takes %lld token of the sequence length",
                                        "Each image takes %lld tokens of the sequence length",
                                        (gulong) MIN (tokens, 1000000)), (long long) tokens)
        : g_strdup (_("The decoder attends each image through cross-attention; the "
                      "sequence length is text only"));

      add_value (self, group, _("Images per request"), subtitle, NULL, "images",
                 FEATURE_IMAGES);
    }
}

static void
set_number (GtkWidget *row, gint64 value)
{
  g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, value);

  bpw_value_row_set_value (BPW_VALUE_ROW (row), text);
}

static void
set_percent (GtkWidget *row, double fraction)
{
  char text[G_ASCII_DTOSTR_BUF_SIZE];

  /* Four significant digits: 0.999 shows as 99.9, 0.2 as 20 (not 20.000000000000004). */
  bpw_value_row_set_value (BPW_VALUE_ROW (row),
                           g_ascii_formatd (text, sizeof text, "%.4g", fraction * 100));
}

gboolean
_bpw_inspector_refresh_serving_feature (BpwInspector           *self,
                                        GtkWidget              *row,
                                        const BpwStudyScenario *s)
{
  ServingFeature feature = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), FEATURE_KEY));
  const BpwServeSettings *o = &s->serving;
  const BpwModelSpec *spec = &bpw_study_get_workload (self->study, s->workload)->spec;
  /* A draft model or MTP heads draft; a study may set speculation by hand without either
   * (the reader refuses it, an older file may not have been): it can still be turned off
   * here. */
  gboolean can_speculate = spec->mtp_modules > 0 || o->draft[0] != '\0' || o->spec_tokens > 0;

  switch (feature)
    {
    case FEATURE_KV_LAYOUT:
      _bpw_inspector_combo_set (row, o->kv_contiguous ? 1 : 0);
      break;
    case FEATURE_KV_BLOCK:
      set_number (row, o->kv_block > 0 ? o->kv_block : BPW_SERVE_KV_BLOCK);
      gtk_widget_set_sensitive (row, !o->kv_contiguous);
      break;
    case FEATURE_PREFIX_HIT:
      set_percent (row, o->prefix_hit);
      break;
    case FEATURE_CHUNKED:
      _bpw_inspector_switch_set (row, o->chunk_tokens > 0);
      break;
    case FEATURE_CHUNK_TOKENS:
      set_number (row, o->chunk_tokens > 0 ? o->chunk_tokens : DEFAULT_CHUNK_TOKENS);
      gtk_widget_set_sensitive (row, o->chunk_tokens > 0);
      break;
    case FEATURE_SPECULATIVE:
      _bpw_inspector_switch_set (row, o->spec_tokens > 0);
      gtk_widget_set_sensitive (row, can_speculate);
      break;
    case FEATURE_DRAFT:
      _bpw_inspector_combo_set (row, draft_position (row, o->draft));
      break;
    case FEATURE_SPEC_TOKENS:
      set_number (row, o->spec_tokens);
      gtk_widget_set_sensitive (row, o->spec_tokens > 0);
      break;
    case FEATURE_SPEC_ACCEPT:
      set_percent (row, o->spec_accept);
      gtk_widget_set_sensitive (row, o->spec_tokens > 0);
      break;
    case FEATURE_IMAGES:
      set_number (row, bpw_scenario_images (&s->scenario, spec));
      break;
    default:
      return FALSE;
    }
  return TRUE;
}
