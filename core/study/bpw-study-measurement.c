/* bpw-study-measurement.c — the study's measurements: profiles of candidates on scenarios
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A measurement names its profile by a path relative to the study, so that a study and
 * its profiles move together, and records the file's sha256, so that a profile replaced
 * under the same name is noticed: the correlation of a different run would otherwise be
 * shown as the recorded one. Both a missing and a changed file are warnings, not errors:
 * the rest of the study is still worth opening.
 */
#define G_LOG_DOMAIN "bpw-study-measurement"

#include "config.h"

#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-file.h"
#include "bpw-study-private.h"

#define SHA256_DIGITS 64

static const char * const measurement_keys[] = {
  "name", "description", "candidate", "scenario", "profile", "sha256", "device", "rank",
  "calibrated", NULL
};

static void
bpw_study_measurement_clear (gpointer data)
{
  BpwStudyMeasurement *m = data;

  g_clear_pointer (&m->name, g_free);
  g_clear_pointer (&m->candidate, g_free);
  g_clear_pointer (&m->scenario, g_free);
  g_clear_pointer (&m->profile, g_free);
  g_clear_pointer (&m->path, g_free);
  g_clear_pointer (&m->sha256, g_free);
  g_clear_pointer (&m->calibrated, g_free);
  g_clear_pointer (&m->base, g_free);
}

static GArray *
bpw_study_measurement_list_new (void)
{
  GArray *list = g_array_new (FALSE, TRUE, sizeof (BpwStudyMeasurement));

  g_array_set_clear_func (list, bpw_study_measurement_clear);
  return list;
}

static GArray *
bpw_study_measurements (BpwStudy *self)
{
  if (self->measurements == NULL)
    self->measurements = bpw_study_measurement_list_new ();
  return self->measurements;
}

static void
bpw_study_measurement_copy (BpwStudyMeasurement       *dest,
                            const BpwStudyMeasurement *src)
{
  *dest = (BpwStudyMeasurement) {
    .name = g_strdup (src->name), .candidate = g_strdup (src->candidate),
    .scenario = g_strdup (src->scenario), .profile = g_strdup (src->profile),
    .path = g_strdup (src->path), .sha256 = g_strdup (src->sha256),
    .calibrated = g_strdup (src->calibrated), .device = src->device, .rank = src->rank,
    .base = g_strdup (src->base),
  };
}

static gboolean
bpw_study_measurement_list_has (GArray     *list,
                                const char *name)
{
  for (guint i = 0; i < list->len; i++)
    if (g_strcmp0 (g_array_index (list, BpwStudyMeasurement, i).name, name) == 0)
      return TRUE;
  return FALSE;
}

/* The base name of @file without its extension, "-2", "-3"... appended until @list does
 * not have it. */
static char *
bpw_study_measurement_unique_name (GArray     *list,
                                   const char *file)
{
  g_autofree char *base = g_path_get_basename (file);
  char *dot = strrchr (base, '.');
  g_autofree char *stem = dot != NULL && dot != base ? g_strndup (base, dot - base)
                                                     : g_strdup (base);
  char *name = g_strdup (stem);

  for (guint i = 2; bpw_study_measurement_list_has (list, name); i++)
    {
      g_free (name);
      name = g_strdup_printf ("%s-%u", stem, i);
    }
  return name;
}

static gboolean
bpw_study_lookup_candidate (BpwStudy   *self,
                            const char *name)
{
  for (guint i = 0; i < bpw_study_get_n_candidates (self); i++)
    if (g_strcmp0 (bpw_study_get_candidate (self, i)->name, name) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
bpw_study_hash_file (const char  *path,
                     char       **sha256,
                     GError     **error)
{
  g_autofree char *contents = NULL;
  gsize length;

  /* The profile as its loader reads it: a regular file within the input limit. */
  if (!bpw_file_read (path, BPW_FILE_MAX_INPUT_SIZE, &contents, &length, error))
    return FALSE;
  *sha256 = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, length);
  return TRUE;
}

static gboolean
bpw_study_is_sha256 (const char *text)
{
  if (strlen (text) != SHA256_DIGITS)
    return FALSE;
  for (const char *c = text; *c != '\0'; c++)
    if (!g_ascii_isdigit (*c) && !(*c >= 'a' && *c <= 'f'))
      return FALSE;
  return TRUE;
}

/* The components of an absolute, canonical path, without empty ones. */
static GPtrArray *
bpw_study_path_parts (const char *path)
{
  g_auto(GStrv) split = g_strsplit (path, G_DIR_SEPARATOR_S, -1);
  GPtrArray *parts = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; split[i] != NULL; i++)
    if (split[i][0] != '\0')
      g_ptr_array_add (parts, g_strdup (split[i]));
  return parts;
}

/* @path (absolute) as seen from folder @dir (absolute): "../profiles/run.json"; @path
 * itself when the two share nothing but the root, where a relative path would only
 * obscure where the file is. */
static char *
bpw_study_relative_path (const char *dir,
                         const char *path)
{
  g_autofree char *cdir = g_canonicalize_filename (dir, NULL);
  g_autoptr(GPtrArray) from = bpw_study_path_parts (cdir);
  g_autoptr(GPtrArray) to = bpw_study_path_parts (path);
  GString *out;
  guint common = 0;

  while (common < from->len && common + 1 < to->len
         && strcmp (g_ptr_array_index (from, common), g_ptr_array_index (to, common)) == 0)
    common++;
  if (common == 0)
    return g_strdup (path);
  out = g_string_new (NULL);
  for (guint i = common; i < from->len; i++)
    g_string_append (out, ".." G_DIR_SEPARATOR_S);
  for (guint i = common; i < to->len; i++)
    {
      g_string_append (out, g_ptr_array_index (to, i));
      if (i + 1 < to->len)
        g_string_append_c (out, G_DIR_SEPARATOR);
    }
  return g_string_free (out, FALSE);
}

static void
bpw_study_measurement_warn (BpwStudy    *self,
                            BpwJsonDoc  *doc,
                            JsonNode    *node,
                            const char  *path,
                            const char  *format,
                            ...) G_GNUC_PRINTF (5, 6);

static void
bpw_study_measurement_warn (BpwStudy    *self,
                            BpwJsonDoc  *doc,
                            JsonNode    *node,
                            const char  *path,
                            const char  *format,
                            ...)
{
  g_autofree char *message = NULL;
  guint line = 0, column = 0;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  bpw_json_doc_locate (doc, node, &line, &column);
  g_ptr_array_add (self->warnings, g_strdup_printf ("%s:%u:%u: %s: %s",
                                                    bpw_json_doc_get_filename (doc), line,
                                                    column, path, message));
}

/* The file against the recorded digest: a missing or changed file is a warning. */
static void
bpw_study_measurement_check_file (BpwStudy            *self,
                                  BpwJsonDoc          *doc,
                                  JsonObject          *item,
                                  const char          *path,
                                  BpwStudyMeasurement *m)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *ppath = g_strdup_printf ("%s.profile", path);
  g_autofree char *spath = g_strdup_printf ("%s.sha256", path);
  g_autofree char *digest = NULL;

  if (!g_file_test (m->path, G_FILE_TEST_EXISTS))
    {
      bpw_study_measurement_warn (self, doc, json_object_get_member (item, "profile"), ppath,
                                  _("no profile at %s; measurement \"%s\" cannot be validated "
                                  "until the file is there"), m->path, m->name);
      return;
    }
  if (!bpw_study_hash_file (m->path, &digest, &local_error))
    {
      bpw_study_measurement_warn (self, doc, json_object_get_member (item, "profile"), ppath,
                                  "%s", local_error->message);
      return;
    }
  if (m->sha256 == NULL)
    m->sha256 = g_steal_pointer (&digest);
  else if (strcmp (m->sha256, digest) != 0)
    bpw_study_measurement_warn (self, doc, json_object_get_member (item, "sha256"), spath,
                                _("%s changed since it was recorded (its sha256 is now %s); the "
                                "validation of measurement \"%s\" shows the file as it is now"),
                                m->path, digest, m->name);
}

static gboolean
bpw_study_read_measurement (BpwStudy    *self,
                            BpwJsonDoc  *doc,
                            JsonNode    *node,
                            JsonObject  *item,
                            const char  *path,
                            GError     **error)
{
  BpwStudyMeasurement m = { .device = -1, .rank = -1 };
  const char *name = NULL, *candidate = NULL, *scenario = NULL, *profile = NULL;
  const char *sha256 = NULL, *calibrated = NULL;
  gint64 device = -1, rank = -1;
  g_autofree char *member = NULL;
  g_autofree char *base = NULL;

  bpw_json_doc_check_unknown (doc, item, path, measurement_keys, self->warnings);
  if (!bpw_json_doc_get_string (doc, item, path, "name", FALSE, &name, error)
      || !bpw_json_doc_get_string (doc, item, path, "candidate", TRUE, &candidate, error)
      || !bpw_json_doc_get_string (doc, item, path, "scenario", TRUE, &scenario, error)
      || !bpw_json_doc_get_string (doc, item, path, "profile", TRUE, &profile, error)
      || !bpw_json_doc_get_string (doc, item, path, "sha256", FALSE, &sha256, error)
      || !bpw_json_doc_get_string (doc, item, path, "calibrated", FALSE, &calibrated, error)
      || !bpw_json_doc_get_int (doc, item, path, "device", FALSE, 0, G_MAXINT, &device, error)
      || !bpw_json_doc_get_int (doc, item, path, "rank", FALSE, 0, G_MAXINT, &rank, error))
    return FALSE;

#define MEMBER_ERROR(key, ...) \
  (member = g_strdup_printf ("%s.%s", path, key), \
   bpw_json_doc_error (doc, json_object_get_member (item, key), member, error, __VA_ARGS__))
  if (name != NULL && name[0] == '\0')
    return MEMBER_ERROR ("name", _("expected a non-empty name"));
  if (name != NULL && bpw_study_measurement_list_has (bpw_study_measurements (self), name))
    return MEMBER_ERROR ("name", _("the name \"%s\" is already used; names must be unique"),
                         name);
  if (!bpw_study_lookup_candidate (self, candidate))
    return MEMBER_ERROR ("candidate", _("the study has no candidate named \"%s\""), candidate);
  if (!bpw_study_lookup_scenario (self, scenario, NULL))
    return MEMBER_ERROR ("scenario", _("the study has no scenario named \"%s\""), scenario);
  if (profile[0] == '\0')
    return MEMBER_ERROR ("profile", _("expected the path of a profile (a Chrome/Perfetto or "
                         "PyTorch trace), relative to the study"));
  if (sha256 != NULL && !bpw_study_is_sha256 (sha256))
    return MEMBER_ERROR ("sha256", _("expected the file's SHA-256 as 64 lowercase hexadecimal "
                         "digits, got \"%s\""), sha256);
  if (calibrated != NULL
      && !g_strv_contains (bpw_study_get_blueprints (self), calibrated))
    return MEMBER_ERROR ("calibrated", _("the study has no blueprint named \"%s\""), calibrated);
#undef MEMBER_ERROR

  m.candidate = g_strdup (candidate);
  m.scenario = g_strdup (scenario);
  m.profile = g_strdup (profile);
  m.base = g_strdup (self->base_dir);
  /* A study read from a relative path has a relative folder; canonicalising it first
   * resolves it against the working directory. */
  base = self->base_dir != NULL ? g_canonicalize_filename (self->base_dir, NULL) : NULL;
  m.path = g_canonicalize_filename (profile, base);
  m.sha256 = g_strdup (sha256);
  m.calibrated = g_strdup (calibrated);
  m.device = (gint) device;
  m.rank = (gint) rank;
  /* Unnamed: the file's name, as the GUI would have named it. */
  m.name = name != NULL ? g_strdup (name)
                        : bpw_study_measurement_unique_name (bpw_study_measurements (self),
                                                             profile);
  bpw_study_measurement_check_file (self, doc, item, path, &m);
  g_array_append_val (bpw_study_measurements (self), m);
  return TRUE;
}

gboolean
_bpw_study_read_measurements (BpwStudy    *self,
                              BpwJsonDoc  *doc,
                              JsonObject  *root,
                              GError     **error)
{
  JsonNode *node = json_object_get_member (root, "measurements");
  JsonArray *array;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return bpw_json_doc_error (doc, node, "measurements", error, _("expected a list"));
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      g_autofree char *path = g_strdup_printf ("measurements[%u]", i);

      if (!JSON_NODE_HOLDS_OBJECT (element))
        return bpw_json_doc_error (doc, element, path, error, _("expected an object"));
      if (!bpw_study_read_measurement (self, doc, element, json_node_get_object (element), path,
                                       error))
        return FALSE;
    }
  return TRUE;
}

/* As written when saved where it was read; else relative to @target_dir. Without a
 * target (bpw_study_to_json()), the study's folder now: a copy read back from the text
 * with the study's path must find the file, even after the study was saved elsewhere. */
static char *
bpw_study_measurement_profile_for (const BpwStudyMeasurement *m,
                                   const char                *target_dir)
{
  g_autofree char *target = NULL;
  g_autofree char *base = NULL;

  if (target_dir == NULL)
    return g_strdup (m->profile);
  target = g_canonicalize_filename (target_dir, NULL);
  base = m->base != NULL ? g_canonicalize_filename (m->base, NULL) : NULL;
  if (base != NULL && strcmp (base, target) == 0)
    return g_strdup (m->profile);
  return bpw_study_relative_path (target, m->path);
}

void
_bpw_study_write_measurements (BpwStudy    *self,
                               JsonBuilder *b,
                               const char  *target_dir)
{
  /* No member at all without measurements: studies written before they existed stay
   * byte for byte as they were. */
  if (self->measurements == NULL || self->measurements->len == 0)
    return;
  json_builder_set_member_name (b, "measurements");
  json_builder_begin_array (b);
  for (guint i = 0; i < self->measurements->len; i++)
    {
      const BpwStudyMeasurement *m = &g_array_index (self->measurements, BpwStudyMeasurement, i);
      g_autofree char *profile = bpw_study_measurement_profile_for (m, target_dir != NULL
                                                                       ? target_dir
                                                                       : self->base_dir);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, m->name);
      json_builder_set_member_name (b, "candidate");
      json_builder_add_string_value (b, m->candidate);
      json_builder_set_member_name (b, "scenario");
      json_builder_add_string_value (b, m->scenario);
      json_builder_set_member_name (b, "profile");
      json_builder_add_string_value (b, profile);
      if (m->sha256 != NULL)
        {
          json_builder_set_member_name (b, "sha256");
          json_builder_add_string_value (b, m->sha256);
        }
      if (m->device >= 0)
        {
          json_builder_set_member_name (b, "device");
          json_builder_add_int_value (b, m->device);
        }
      if (m->rank >= 0)
        {
          json_builder_set_member_name (b, "rank");
          json_builder_add_int_value (b, m->rank);
        }
      if (m->calibrated != NULL)
        {
          json_builder_set_member_name (b, "calibrated");
          json_builder_add_string_value (b, m->calibrated);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

GArray *
_bpw_study_copy_measurements (BpwStudy *self)
{
  GArray *list = bpw_study_measurement_list_new ();
  GArray *own = bpw_study_measurements (self);

  g_array_set_size (list, own->len);
  for (guint i = 0; i < own->len; i++)
    bpw_study_measurement_copy (&g_array_index (list, BpwStudyMeasurement, i),
                                &g_array_index (own, BpwStudyMeasurement, i));
  return list;
}

GArray *
_bpw_study_measurement_list_copy (GArray *list)
{
  GArray *copy;

  if (list == NULL)
    return NULL;
  copy = bpw_study_measurement_list_new ();
  g_array_set_size (copy, list->len);
  for (guint i = 0; i < list->len; i++)
    bpw_study_measurement_copy (&g_array_index (copy, BpwStudyMeasurement, i),
                                &g_array_index (list, BpwStudyMeasurement, i));
  return copy;
}

static gboolean
bpw_study_measurement_equal (const BpwStudyMeasurement *a,
                             const BpwStudyMeasurement *b)
{
  return g_strcmp0 (a->name, b->name) == 0 && g_strcmp0 (a->candidate, b->candidate) == 0
         && g_strcmp0 (a->scenario, b->scenario) == 0
         && g_strcmp0 (a->profile, b->profile) == 0 && g_strcmp0 (a->path, b->path) == 0
         && g_strcmp0 (a->sha256, b->sha256) == 0
         && g_strcmp0 (a->calibrated, b->calibrated) == 0 && a->device == b->device
         && a->rank == b->rank && g_strcmp0 (a->base, b->base) == 0;
}

gboolean
_bpw_study_measurement_list_equal (GArray *a,
                                   GArray *b)
{
  guint n = a != NULL ? a->len : 0;

  if (n != (b != NULL ? b->len : 0))
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (!bpw_study_measurement_equal (&g_array_index (a, BpwStudyMeasurement, i),
                                      &g_array_index (b, BpwStudyMeasurement, i)))
      return FALSE;
  return TRUE;
}

void
_bpw_study_set_measurements (BpwStudy *self,
                             GArray   *list)
{
  GArray *own = bpw_study_measurements (self);

  g_array_set_size (own, 0);
  g_array_set_size (own, list->len);
  for (guint i = 0; i < list->len; i++)
    bpw_study_measurement_copy (&g_array_index (own, BpwStudyMeasurement, i),
                                &g_array_index (list, BpwStudyMeasurement, i));
}

gboolean
_bpw_study_append_measurement (BpwStudy    *self,
                               GArray      *list,
                               const char  *name,
                               guint        candidate,
                               guint        scenario,
                               const char  *path,
                               GError     **error)
{
  BpwStudyMeasurement m = { .device = -1, .rank = -1 };
  g_autofree char *digest = NULL;

  if (candidate >= bpw_study_get_n_candidates (self)
      || scenario >= bpw_study_get_n_scenarios (self))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("measurements: a measurement belongs to a candidate and a scenario of the "
                   "study; select both first"));
      return FALSE;
    }
  if (name != NULL && bpw_study_measurement_list_has (list, name))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("measurements: the study already has a measurement named \"%s\""), name);
      return FALSE;
    }
  m.path = g_canonicalize_filename (path, NULL);
  if (!bpw_study_hash_file (m.path, &digest, error))
    {
      bpw_study_measurement_clear (&m);
      return FALSE;
    }
  m.name = name != NULL ? g_strdup (name) : bpw_study_measurement_unique_name (list, m.path);
  m.candidate = g_strdup (bpw_study_get_candidate (self, candidate)->name);
  m.scenario = g_strdup (bpw_study_get_scenario (self, scenario)->name);
  /* Absolute until the study is saved, when it becomes relative to the study's folder. */
  m.profile = g_strdup (m.path);
  m.sha256 = g_steal_pointer (&digest);
  g_array_append_val (list, m);
  return TRUE;
}

void
_bpw_study_unlist_blueprint (BpwStudy   *self,
                             const char *name)
{
  /* The last element is the NULL terminator. */
  for (guint i = 0; i + 1 < self->blueprints->len; i++)
    if (g_strcmp0 (g_ptr_array_index (self->blueprints, i), name) == 0)
      {
        g_ptr_array_remove_index (self->blueprints, i);
        return;
      }
}

guint
bpw_study_get_n_measurements (BpwStudy *self)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), 0);
  return self->measurements != NULL ? self->measurements->len : 0;
}

const BpwStudyMeasurement *
bpw_study_get_measurement (BpwStudy *self,
                           guint     i)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);
  g_return_val_if_fail (i < bpw_study_get_n_measurements (self), NULL);
  return &g_array_index (self->measurements, BpwStudyMeasurement, i);
}

gboolean
bpw_study_lookup_measurement (BpwStudy   *self,
                              const char *name,
                              guint      *index)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);

  for (guint i = 0; i < bpw_study_get_n_measurements (self); i++)
    if (g_strcmp0 (g_array_index (self->measurements, BpwStudyMeasurement, i).name, name) == 0)
      {
        if (index != NULL)
          *index = i;
        return TRUE;
      }
  return FALSE;
}

gboolean
bpw_study_add_measurement (BpwStudy    *self,
                           const char  *name,
                           guint        candidate,
                           guint        scenario,
                           const char  *path,
                           GError     **error)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  return _bpw_study_append_measurement (self, bpw_study_measurements (self), name, candidate,
                                        scenario, path, error);
}

gboolean
bpw_study_remove_measurement (BpwStudy   *self,
                              const char *name)
{
  guint index = 0;

  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);

  if (!bpw_study_lookup_measurement (self, name, &index))
    return FALSE;
  g_array_remove_index (self->measurements, index);
  return TRUE;
}

gboolean
bpw_study_measurement_verify (const BpwStudyMeasurement  *m,
                              gboolean                   *changed,
                              char                      **sha256,
                              GError                    **error)
{
  g_autofree char *digest = NULL;

  g_return_val_if_fail (m != NULL && m->path != NULL, FALSE);

  if (!bpw_study_hash_file (m->path, &digest, error))
    return FALSE;
  if (changed != NULL)
    *changed = m->sha256 != NULL && strcmp (m->sha256, digest) != 0;
  if (sha256 != NULL)
    *sha256 = g_steal_pointer (&digest);
  return TRUE;
}
