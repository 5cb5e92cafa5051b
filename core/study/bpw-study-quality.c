/* bpw-study-quality.c — owners, quality thresholds and quality evidence of a study
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reader and the setters share one check per item, which names the member at fault:
 * the reader locates it in the file, the setters name it by its path.
 */
#define G_LOG_DOMAIN "bpw-study-quality"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-study-private.h"
#include "bpw-study-quality.h"

static const char * const owner_keys[] = { "role", "name", "contact", NULL };
static const char * const threshold_keys[] = {
  "metric", "max_degradation", "scale", "better", "source", NULL
};
static const char * const evidence_keys[] = {
  "mode", "metric", "value", "baseline", "max_degradation", "source", NULL
};
static const char * const scale_names[] = { "relative", "absolute", NULL };
static const char * const direction_names[] = { "higher", "lower", NULL };

const char *
bpw_quality_scale_to_string (BpwQualityScale scale)
{
  return scale == BPW_QUALITY_SCALE_ABSOLUTE ? "absolute" : "relative";
}

const char *
bpw_quality_direction_to_string (BpwQualityDirection better)
{
  return better == BPW_QUALITY_LOWER_IS_BETTER ? "lower" : "higher";
}

const char *
bpw_quality_verdict_to_string (BpwQualityVerdict verdict)
{
  switch (verdict)
    {
    case BPW_QUALITY_VALIDATED:
      return "validated";
    case BPW_QUALITY_FAILED:
      return "failed";
    case BPW_QUALITY_MISSING:
    default:
      return "missing";
    }
}

/* Lists */

static void
bpw_study_owner_clear (gpointer data)
{
  BpwStudyOwner *o = data;

  g_clear_pointer (&o->role, g_free);
  g_clear_pointer (&o->name, g_free);
  g_clear_pointer (&o->contact, g_free);
}

static void
bpw_quality_threshold_clear (gpointer data)
{
  BpwQualityThreshold *t = data;

  g_clear_pointer (&t->metric, g_free);
  g_clear_pointer (&t->source, g_free);
}

static void
bpw_quality_evidence_clear (gpointer data)
{
  BpwQualityEvidence *e = data;

  g_clear_pointer (&e->mode, g_free);
  g_clear_pointer (&e->metric, g_free);
  g_clear_pointer (&e->source, g_free);
}

GArray *
_bpw_study_owner_list_new (const BpwStudyOwner *owners,
                           guint                n)
{
  GArray *list = g_array_sized_new (FALSE, TRUE, sizeof (BpwStudyOwner), n);

  g_array_set_clear_func (list, bpw_study_owner_clear);
  for (guint i = 0; i < n; i++)
    {
      BpwStudyOwner o = {
        g_strdup (owners[i].role), g_strdup (owners[i].name), g_strdup (owners[i].contact)
      };
      g_array_append_val (list, o);
    }
  return list;
}

GArray *
_bpw_quality_threshold_list_new (const BpwQualityThreshold *thresholds,
                                 guint                      n)
{
  GArray *list = g_array_sized_new (FALSE, TRUE, sizeof (BpwQualityThreshold), n);

  g_array_set_clear_func (list, bpw_quality_threshold_clear);
  for (guint i = 0; i < n; i++)
    {
      BpwQualityThreshold t = thresholds[i];

      t.metric = g_strdup (t.metric);
      t.source = g_strdup (t.source);
      g_array_append_val (list, t);
    }
  return list;
}

GArray *
_bpw_quality_evidence_list_new (const BpwQualityEvidence *evidence,
                                guint                     n)
{
  GArray *list = g_array_sized_new (FALSE, TRUE, sizeof (BpwQualityEvidence), n);

  g_array_set_clear_func (list, bpw_quality_evidence_clear);
  for (guint i = 0; i < n; i++)
    {
      BpwQualityEvidence e = evidence[i];

      e.mode = g_strdup (e.mode);
      e.metric = g_strdup (e.metric);
      e.source = g_strdup (e.source);
      g_array_append_val (list, e);
    }
  return list;
}

#define LIST_DATA(list, type) ((list) != NULL ? (const type *) (list)->data : NULL)
#define LIST_LEN(list) ((list) != NULL ? (list)->len : 0)

guint
bpw_study_get_n_owners (BpwStudy *self)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), 0);
  return LIST_LEN (self->owners);
}

const BpwStudyOwner *
bpw_study_get_owner (BpwStudy *self,
                     guint     i)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);
  g_return_val_if_fail (i < LIST_LEN (self->owners), NULL);
  return &g_array_index (self->owners, BpwStudyOwner, i);
}

guint
bpw_study_get_n_quality_thresholds (BpwStudy *self)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), 0);
  return LIST_LEN (self->quality_thresholds);
}

const BpwQualityThreshold *
bpw_study_get_quality_threshold (BpwStudy *self,
                                 guint     i)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);
  g_return_val_if_fail (i < LIST_LEN (self->quality_thresholds), NULL);
  return &g_array_index (self->quality_thresholds, BpwQualityThreshold, i);
}

static const BpwQualityThreshold *
bpw_quality_threshold_find (const BpwQualityThreshold *thresholds,
                            guint                      n,
                            const char                *metric)
{
  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (thresholds[i].metric, metric) == 0)
      return &thresholds[i];
  return NULL;
}

const BpwQualityThreshold *
bpw_study_lookup_quality_threshold (BpwStudy   *self,
                                    const char *metric)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);
  return bpw_quality_threshold_find (LIST_DATA (self->quality_thresholds, BpwQualityThreshold),
                                     LIST_LEN (self->quality_thresholds), metric);
}

guint
bpw_study_get_n_quality_evidence (BpwStudy *self)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), 0);
  return LIST_LEN (self->quality_evidence);
}

const BpwQualityEvidence *
bpw_study_get_quality_evidence (BpwStudy *self,
                                guint     i)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);
  g_return_val_if_fail (i < LIST_LEN (self->quality_evidence), NULL);
  return &g_array_index (self->quality_evidence, BpwQualityEvidence, i);
}

/* Checks: NULL when fine, else the message, with *@member the member at fault. */

static gboolean
bpw_quality_text_empty (const char *text)
{
  return text == NULL || text[0] == '\0';
}

static char *
bpw_study_owner_problem (const BpwStudyOwner  *o,
                         const char          **member)
{
  if (bpw_quality_text_empty (o->role))
    return (*member = "role", g_strdup (_("expected the owner's role, e.g. \"architecture\", "
                                          "\"performance modelling\" or \"release\"")));
  if (bpw_quality_text_empty (o->name))
    return (*member = "name", g_strdup (_("expected the owner's name")));
  return NULL;
}

static char *
bpw_quality_threshold_problem (const BpwQualityThreshold  *t,
                               const BpwQualityThreshold  *earlier,
                               guint                       n_earlier,
                               const char                **member)
{
  if (bpw_quality_text_empty (t->metric))
    return (*member = "metric", g_strdup (_("expected a metric, e.g. \"mmlu\" or "
                                            "\"perplexity\"")));
  if (bpw_quality_threshold_find (earlier, n_earlier, t->metric) != NULL)
    return (*member = "metric", g_strdup_printf (_("the metric \"%s\" already has a "
                                                   "threshold"), t->metric));
  if (!isfinite (t->max_degradation) || t->max_degradation < 0)
    return (*member = "max_degradation",
            g_strdup (_("expected a finite degradation of at least 0")));
  if (bpw_quality_text_empty (t->source))
    return (*member = "source", g_strdup (_("expected where the threshold comes from")));
  return NULL;
}

static char *
bpw_quality_evidence_problem (const BpwQualityEvidence   *e,
                              const BpwQualityThreshold  *thresholds,
                              guint                       n_thresholds,
                              const char                **member)
{
  const BpwQualityThreshold *t;

  if (bpw_quality_text_empty (e->mode))
    return (*member = "mode", g_strdup (_("expected a precision or sparsity mode, e.g. "
                                          "\"fp8\" or \"sparsity-2:4\"")));
  if (bpw_quality_text_empty (e->metric))
    return (*member = "metric", g_strdup (_("expected the metric measured")));
  t = bpw_quality_threshold_find (thresholds, n_thresholds, e->metric);
  if (t == NULL)
    return (*member = "metric", g_strdup_printf (_("the study has no quality threshold for "
                                                   "the metric \"%s\""), e->metric));
  if (!isfinite (e->value))
    return (*member = "value", g_strdup (_("expected a finite number")));
  if (!isfinite (e->baseline))
    return (*member = "baseline", g_strdup (_("expected a finite number")));
  if (t->scale == BPW_QUALITY_SCALE_RELATIVE && e->baseline == 0)
    return (*member = "baseline", g_strdup_printf (_("the threshold of \"%s\" is relative, "
                                                     "so the baseline cannot be 0"),
                                                   e->metric));
  if (!isnan (e->max_degradation) && (!isfinite (e->max_degradation) || e->max_degradation < 0))
    return (*member = "max_degradation",
            g_strdup (_("expected a finite degradation of at least 0")));
  if (bpw_quality_text_empty (e->source))
    return (*member = "source", g_strdup (_("expected where the evidence comes from")));
  return NULL;
}

/* Reading */

static gboolean
bpw_study_read_items (BpwStudy    *self,
                      BpwJsonDoc  *doc,
                      JsonObject  *root,
                      const char  *key,
                      gboolean   (*read_item) (BpwStudy *, BpwJsonDoc *, JsonObject *,
                                               const char *, GError **),
                      GError     **error)
{
  JsonArray *array = bpw_json_doc_get_array (doc, root, NULL, key, FALSE, error);

  if (array == NULL)
    return error == NULL || *error == NULL;
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      g_autofree char *path = g_strdup_printf ("%s[%u]", key, i);

      if (!JSON_NODE_HOLDS_OBJECT (element))
        return bpw_json_doc_error (doc, element, path, error, _("expected an object"));
      if (!read_item (self, doc, json_node_get_object (element), path, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
bpw_study_item_error (BpwJsonDoc  *doc,
                      JsonObject  *item,
                      const char  *path,
                      const char  *member,
                      const char  *message,
                      GError     **error)
{
  g_autofree char *member_path = bpw_json_doc_member_path (path, member);
  JsonNode *node = json_object_get_member (item, member);

  if (node == NULL)
    node = bpw_json_doc_get_object_node (doc, item);
  return bpw_json_doc_error (doc, node, member_path, error, "%s", message);
}

static gboolean
bpw_study_read_owner (BpwStudy    *self,
                      BpwJsonDoc  *doc,
                      JsonObject  *item,
                      const char  *path,
                      GError     **error)
{
  BpwStudyOwner o = { NULL };
  g_autofree char *problem = NULL;
  const char *member = NULL;

  bpw_json_doc_check_unknown (doc, item, path, owner_keys, self->warnings);
  if (!bpw_json_doc_get_string (doc, item, path, "role", TRUE, (const char **) &o.role, error)
      || !bpw_json_doc_get_string (doc, item, path, "name", TRUE, (const char **) &o.name, error)
      || !bpw_json_doc_get_string (doc, item, path, "contact", FALSE,
                                   (const char **) &o.contact, error))
    return FALSE;
  problem = bpw_study_owner_problem (&o, &member);
  if (problem != NULL)
    return bpw_study_item_error (doc, item, path, member, problem, error);
  if (self->owners == NULL)
    self->owners = _bpw_study_owner_list_new (NULL, 0);
  /* The strings are the document's: the list takes copies. */
  o = (BpwStudyOwner) { g_strdup (o.role), g_strdup (o.name), g_strdup (o.contact) };
  g_array_append_val (self->owners, o);
  return TRUE;
}

static gboolean
bpw_study_read_threshold (BpwStudy    *self,
                          BpwJsonDoc  *doc,
                          JsonObject  *item,
                          const char  *path,
                          GError     **error)
{
  BpwQualityThreshold t = { NULL };
  const char *metric = NULL, *source = NULL, *member = NULL;
  g_autofree char *problem = NULL;
  int scale = 0, better = 0;

  bpw_json_doc_check_unknown (doc, item, path, threshold_keys, self->warnings);
  if (!bpw_json_doc_get_string (doc, item, path, "metric", TRUE, &metric, error)
      || !bpw_json_doc_get_double (doc, item, path, "max_degradation", TRUE, 0, G_MAXDOUBLE,
                                   &t.max_degradation, error)
      || !bpw_json_doc_get_enum (doc, item, path, "scale", TRUE, scale_names, &scale, error)
      || !bpw_json_doc_get_enum (doc, item, path, "better", TRUE, direction_names, &better,
                                 error)
      || !bpw_json_doc_get_string (doc, item, path, "source", TRUE, &source, error))
    return FALSE;
  t.metric = (char *) metric;
  t.source = (char *) source;
  t.scale = scale == 1 ? BPW_QUALITY_SCALE_ABSOLUTE : BPW_QUALITY_SCALE_RELATIVE;
  t.better = better == 1 ? BPW_QUALITY_LOWER_IS_BETTER : BPW_QUALITY_HIGHER_IS_BETTER;
  problem = bpw_quality_threshold_problem (&t, LIST_DATA (self->quality_thresholds,
                                                          BpwQualityThreshold),
                                           LIST_LEN (self->quality_thresholds), &member);
  if (problem != NULL)
    return bpw_study_item_error (doc, item, path, member, problem, error);
  if (self->quality_thresholds == NULL)
    self->quality_thresholds = _bpw_quality_threshold_list_new (NULL, 0);
  t.metric = g_strdup (metric);
  t.source = g_strdup (source);
  g_array_append_val (self->quality_thresholds, t);
  return TRUE;
}

static gboolean
bpw_study_read_evidence (BpwStudy    *self,
                         BpwJsonDoc  *doc,
                         JsonObject  *item,
                         const char  *path,
                         GError     **error)
{
  BpwQualityEvidence e = { .max_degradation = NAN };
  const char *mode = NULL, *metric = NULL, *source = NULL, *member = NULL;
  g_autofree char *problem = NULL;

  bpw_json_doc_check_unknown (doc, item, path, evidence_keys, self->warnings);
  if (!bpw_json_doc_get_string (doc, item, path, "mode", TRUE, &mode, error)
      || !bpw_json_doc_get_string (doc, item, path, "metric", TRUE, &metric, error)
      || !bpw_json_doc_get_double (doc, item, path, "value", TRUE, -G_MAXDOUBLE, G_MAXDOUBLE,
                                   &e.value, error)
      || !bpw_json_doc_get_double (doc, item, path, "baseline", TRUE, -G_MAXDOUBLE,
                                   G_MAXDOUBLE, &e.baseline, error)
      || !bpw_json_doc_get_double (doc, item, path, "max_degradation", FALSE, 0, G_MAXDOUBLE,
                                   &e.max_degradation, error)
      || !bpw_json_doc_get_string (doc, item, path, "source", TRUE, &source, error))
    return FALSE;
  e.mode = (char *) mode;
  e.metric = (char *) metric;
  e.source = (char *) source;
  problem = bpw_quality_evidence_problem (&e, LIST_DATA (self->quality_thresholds,
                                                         BpwQualityThreshold),
                                          LIST_LEN (self->quality_thresholds), &member);
  if (problem != NULL)
    return bpw_study_item_error (doc, item, path, member, problem, error);
  if (self->quality_evidence == NULL)
    self->quality_evidence = _bpw_quality_evidence_list_new (NULL, 0);
  e.mode = g_strdup (mode);
  e.metric = g_strdup (metric);
  e.source = g_strdup (source);
  g_array_append_val (self->quality_evidence, e);
  return TRUE;
}

gboolean
_bpw_study_read_quality (BpwStudy    *self,
                         BpwJsonDoc  *doc,
                         JsonObject  *root,
                         GError     **error)
{
  /* Thresholds before evidence, which names them. */
  return bpw_study_read_items (self, doc, root, "owners", bpw_study_read_owner, error)
         && bpw_study_read_items (self, doc, root, "quality_thresholds",
                                  bpw_study_read_threshold, error)
         && bpw_study_read_items (self, doc, root, "quality_evidence",
                                  bpw_study_read_evidence, error);
}

/* Writing: no member for an empty list, so that studies without review data stay as they
 * were written. */

#define STR(key, value) \
  G_STMT_START { json_builder_set_member_name (b, key); \
                 json_builder_add_string_value (b, value); } G_STMT_END
#define NUM(key, value) \
  G_STMT_START { json_builder_set_member_name (b, key); \
                 json_builder_add_double_value (b, value); } G_STMT_END

void
_bpw_study_write_quality (BpwStudy    *self,
                          JsonBuilder *b)
{
  if (LIST_LEN (self->owners) > 0)
    {
      json_builder_set_member_name (b, "owners");
      json_builder_begin_array (b);
      for (guint i = 0; i < self->owners->len; i++)
        {
          const BpwStudyOwner *o = &g_array_index (self->owners, BpwStudyOwner, i);

          json_builder_begin_object (b);
          STR ("role", o->role);
          STR ("name", o->name);
          if (o->contact != NULL)
            STR ("contact", o->contact);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
    }
  if (LIST_LEN (self->quality_thresholds) > 0)
    {
      json_builder_set_member_name (b, "quality_thresholds");
      json_builder_begin_array (b);
      for (guint i = 0; i < self->quality_thresholds->len; i++)
        {
          const BpwQualityThreshold *t = &g_array_index (self->quality_thresholds,
                                                         BpwQualityThreshold, i);

          json_builder_begin_object (b);
          STR ("metric", t->metric);
          NUM ("max_degradation", t->max_degradation);
          STR ("scale", bpw_quality_scale_to_string (t->scale));
          STR ("better", bpw_quality_direction_to_string (t->better));
          STR ("source", t->source);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
    }
  if (LIST_LEN (self->quality_evidence) > 0)
    {
      json_builder_set_member_name (b, "quality_evidence");
      json_builder_begin_array (b);
      for (guint i = 0; i < self->quality_evidence->len; i++)
        {
          const BpwQualityEvidence *e = &g_array_index (self->quality_evidence,
                                                        BpwQualityEvidence, i);

          json_builder_begin_object (b);
          STR ("mode", e->mode);
          STR ("metric", e->metric);
          NUM ("value", e->value);
          NUM ("baseline", e->baseline);
          if (!isnan (e->max_degradation))
            NUM ("max_degradation", e->max_degradation);
          STR ("source", e->source);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
    }
}

/* Copy and compare */

void
_bpw_study_copy_quality (BpwStudy *dest,
                         BpwStudy *src)
{
  if (src->owners != NULL)
    dest->owners = _bpw_study_owner_list_new (LIST_DATA (src->owners, BpwStudyOwner),
                                              src->owners->len);
  if (src->quality_thresholds != NULL)
    dest->quality_thresholds =
      _bpw_quality_threshold_list_new (LIST_DATA (src->quality_thresholds, BpwQualityThreshold),
                                       src->quality_thresholds->len);
  if (src->quality_evidence != NULL)
    dest->quality_evidence =
      _bpw_quality_evidence_list_new (LIST_DATA (src->quality_evidence, BpwQualityEvidence),
                                      src->quality_evidence->len);
}

static gboolean
bpw_quality_double_equal (double a,
                          double b)
{
  return a == b || (isnan (a) && isnan (b));
}

gboolean
_bpw_study_quality_equal (BpwStudy *a,
                          BpwStudy *b)
{
  if (LIST_LEN (a->owners) != LIST_LEN (b->owners)
      || LIST_LEN (a->quality_thresholds) != LIST_LEN (b->quality_thresholds)
      || LIST_LEN (a->quality_evidence) != LIST_LEN (b->quality_evidence))
    return FALSE;
  for (guint i = 0; i < LIST_LEN (a->owners); i++)
    {
      const BpwStudyOwner *x = &g_array_index (a->owners, BpwStudyOwner, i);
      const BpwStudyOwner *y = &g_array_index (b->owners, BpwStudyOwner, i);

      if (g_strcmp0 (x->role, y->role) != 0 || g_strcmp0 (x->name, y->name) != 0
          || g_strcmp0 (x->contact, y->contact) != 0)
        return FALSE;
    }
  for (guint i = 0; i < LIST_LEN (a->quality_thresholds); i++)
    {
      const BpwQualityThreshold *x = &g_array_index (a->quality_thresholds,
                                                     BpwQualityThreshold, i);
      const BpwQualityThreshold *y = &g_array_index (b->quality_thresholds,
                                                     BpwQualityThreshold, i);

      if (g_strcmp0 (x->metric, y->metric) != 0 || x->max_degradation != y->max_degradation
          || x->scale != y->scale || x->better != y->better
          || g_strcmp0 (x->source, y->source) != 0)
        return FALSE;
    }
  for (guint i = 0; i < LIST_LEN (a->quality_evidence); i++)
    {
      const BpwQualityEvidence *x = &g_array_index (a->quality_evidence, BpwQualityEvidence, i);
      const BpwQualityEvidence *y = &g_array_index (b->quality_evidence, BpwQualityEvidence, i);

      if (g_strcmp0 (x->mode, y->mode) != 0 || g_strcmp0 (x->metric, y->metric) != 0
          || x->value != y->value || x->baseline != y->baseline
          || !bpw_quality_double_equal (x->max_degradation, y->max_degradation)
          || g_strcmp0 (x->source, y->source) != 0)
        return FALSE;
    }
  return TRUE;
}

/* Setters */

static gboolean
bpw_study_set_problem (const char  *list,
                       guint        i,
                       const char  *member,
                       char        *problem,
                       GError     **error)
{
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "%s[%u].%s: %s", list, i, member,
               problem);
  g_free (problem);
  return FALSE;
}

gboolean
bpw_study_set_owners (BpwStudy             *self,
                      const BpwStudyOwner  *owners,
                      guint                 n,
                      GError              **error)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (n == 0 || owners != NULL, FALSE);

  for (guint i = 0; i < n; i++)
    {
      const char *member = NULL;
      char *problem = bpw_study_owner_problem (&owners[i], &member);

      if (problem != NULL)
        return bpw_study_set_problem ("owners", i, member, problem, error);
    }
  g_clear_pointer (&self->owners, g_array_unref);
  self->owners = _bpw_study_owner_list_new (owners, n);
  return TRUE;
}

gboolean
bpw_study_set_quality_thresholds (BpwStudy                   *self,
                                  const BpwQualityThreshold  *thresholds,
                                  guint                       n,
                                  GError                    **error)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (n == 0 || thresholds != NULL, FALSE);

  for (guint i = 0; i < n; i++)
    {
      const char *member = NULL;
      char *problem = bpw_quality_threshold_problem (&thresholds[i], thresholds, i, &member);

      if (problem != NULL)
        return bpw_study_set_problem ("quality_thresholds", i, member, problem, error);
    }
  /* The evidence must still read against the new thresholds. */
  for (guint i = 0; i < LIST_LEN (self->quality_evidence); i++)
    {
      const char *member = NULL;
      char *problem = bpw_quality_evidence_problem (&g_array_index (self->quality_evidence,
                                                                    BpwQualityEvidence, i),
                                                    thresholds, n, &member);

      if (problem != NULL)
        return bpw_study_set_problem ("quality_evidence", i, member, problem, error);
    }
  g_clear_pointer (&self->quality_thresholds, g_array_unref);
  self->quality_thresholds = _bpw_quality_threshold_list_new (thresholds, n);
  return TRUE;
}

gboolean
bpw_study_set_quality_evidence (BpwStudy                  *self,
                                const BpwQualityEvidence  *evidence,
                                guint                      n,
                                GError                   **error)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (n == 0 || evidence != NULL, FALSE);

  for (guint i = 0; i < n; i++)
    {
      const char *member = NULL;
      char *problem = bpw_quality_evidence_problem (&evidence[i],
                                                    LIST_DATA (self->quality_thresholds,
                                                               BpwQualityThreshold),
                                                    LIST_LEN (self->quality_thresholds),
                                                    &member);

      if (problem != NULL)
        return bpw_study_set_problem ("quality_evidence", i, member, problem, error);
    }
  g_clear_pointer (&self->quality_evidence, g_array_unref);
  self->quality_evidence = _bpw_quality_evidence_list_new (evidence, n);
  return TRUE;
}

/* Judgement */

double
bpw_quality_evidence_degradation (const BpwQualityEvidence  *e,
                                  const BpwQualityThreshold *t)
{
  double worse;

  g_return_val_if_fail (e != NULL && t != NULL, NAN);

  worse = t->better == BPW_QUALITY_HIGHER_IS_BETTER ? e->baseline - e->value
                                                    : e->value - e->baseline;
  return t->scale == BPW_QUALITY_SCALE_RELATIVE ? worse / fabs (e->baseline) : worse;
}

gboolean
bpw_quality_evidence_passes (const BpwQualityEvidence  *e,
                             const BpwQualityThreshold *t)
{
  double limit;

  g_return_val_if_fail (e != NULL && t != NULL, FALSE);

  limit = isnan (e->max_degradation) ? t->max_degradation : e->max_degradation;
  return bpw_quality_evidence_degradation (e, t) <= limit;
}

BpwQualityVerdict
bpw_study_judge_quality_mode (BpwStudy   *self,
                              const char *mode)
{
  gboolean any = FALSE;

  g_return_val_if_fail (BPW_IS_STUDY (self), BPW_QUALITY_MISSING);
  g_return_val_if_fail (mode != NULL, BPW_QUALITY_MISSING);

  for (guint i = 0; i < LIST_LEN (self->quality_evidence); i++)
    {
      const BpwQualityEvidence *e = &g_array_index (self->quality_evidence,
                                                    BpwQualityEvidence, i);
      const BpwQualityThreshold *t;

      if (g_ascii_strcasecmp (e->mode, mode) != 0)
        continue;
      any = TRUE;
      t = bpw_study_lookup_quality_threshold (self, e->metric);
      /* The setters keep every item's threshold; one missing would be a bug, and must
       * not validate a mode. */
      if (t == NULL || !bpw_quality_evidence_passes (e, t))
        return BPW_QUALITY_FAILED;
    }
  return any ? BPW_QUALITY_VALIDATED : BPW_QUALITY_MISSING;
}
