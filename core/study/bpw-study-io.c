/* bpw-study-io.c — opening and saving studies: files, data, the bundled studies, and the
 * atomic save
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The entry points on top of the reader (bpw-study-read.c) and the writer
 * (bpw-study-write.c); kept out of bpw-study.c, whose accessors those use, so that they
 * do not call back into the file that runs them.
 */
#define G_LOG_DOMAIN "bpw-study"

#include "config.h"

#include "bpw-study.h"

#include <gio/gio.h>
#include <string.h>

#include "bpw-core-resource-private.h"
#include "bpw-error.h"
#include "bpw-file.h"
#include "bpw-i18n.h"
#include "bpw-json-dump-private.h"
#include "bpw-study-private.h"

#define BUNDLED_STUDIES "/io/github/bpw/Workbench/core/studies/"
#define BUNDLED_SUFFIX ".bpw-study.json"

BpwStudy *
bpw_study_new_from_data (const char  *filename,
                         const char  *data,
                         gssize       length,
                         GError     **error)
{
  g_autoptr(BpwStudy) self = NULL;
  g_autoptr(BpwJsonDoc) doc = NULL;

  g_return_val_if_fail (filename != NULL && data != NULL, NULL);

  doc = bpw_json_doc_new_from_data (filename, data, length, error);
  if (doc == NULL)
    return NULL;
  self = bpw_study_new ();
  self->base_dir = g_path_get_dirname (filename);
  if (!_bpw_study_read (self, doc, error))
    return NULL;
  return g_steal_pointer (&self);
}

BpwStudy *
bpw_study_new_from_file (const char  *path,
                         GError     **error)
{
  g_autoptr(BpwStudy) self = NULL;
  g_autoptr(BpwJsonDoc) doc = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  doc = bpw_json_doc_new_from_file (path, error);
  if (doc == NULL)
    return NULL;
  self = bpw_study_new ();
  self->path = g_strdup (path);
  self->base_dir = g_path_get_dirname (path);
  if (!_bpw_study_read (self, doc, error))
    return NULL;
  return g_steal_pointer (&self);
}

const char * const *
bpw_study_bundled_names (void)
{
  static char **names = NULL;

  if (g_once_init_enter (&names))
    {
      g_auto(GStrv) children = g_resource_enumerate_children (_bpw_core_resource_get (),
                                                              BUNDLED_STUDIES,
                                                              G_RESOURCE_LOOKUP_FLAGS_NONE,
                                                              NULL);
      GPtrArray *list = g_ptr_array_new ();

      for (guint i = 0; children != NULL && children[i] != NULL; i++)
        if (g_str_has_suffix (children[i], BUNDLED_SUFFIX))
          {
            char *name = g_strndup (children[i], strlen (children[i]) - strlen (BUNDLED_SUFFIX));

            /* "default" first: it is the one the GUI opens. */
            if (strcmp (name, "default") == 0)
              g_ptr_array_insert (list, 0, name);
            else
              g_ptr_array_add (list, name);
          }
      g_ptr_array_add (list, NULL);
      g_once_init_leave (&names, (char **) g_ptr_array_free (list, FALSE));
    }
  return (const char * const *) names;
}

BpwStudy *
bpw_study_new_bundled (const char  *name,
                       GError     **error)
{
  g_autofree char *resource_path = NULL;
  g_autofree char *filename = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(BpwStudy) self = NULL;
  g_autoptr(BpwJsonDoc) doc = NULL;
  gsize size = 0;
  const char *data;

  g_return_val_if_fail (name != NULL, NULL);

  resource_path = g_strconcat (BUNDLED_STUDIES, name, BUNDLED_SUFFIX, NULL);
  bytes = g_resource_lookup_data (_bpw_core_resource_get (), resource_path,
                                  G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  if (bytes == NULL)
    {
      g_autofree char *known = g_strjoinv (", ", (char **) bpw_study_bundled_names ());

      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("%s: no such file and no bundled study of that name (bundled: %s)"),
                   name, known);
      return NULL;
    }
  data = g_bytes_get_data (bytes, &size);
  filename = g_strconcat (name, BUNDLED_SUFFIX, NULL);
  doc = bpw_json_doc_new_from_data (filename, data, size, error);
  if (doc == NULL)
    return NULL;
  self = bpw_study_new ();
  /* Bundled studies name bundled models only; nothing resolves against a folder. */
  if (!_bpw_study_read (self, doc, error))
    return NULL;
  return g_steal_pointer (&self);
}

BpwStudy *
bpw_study_load (const char  *path_or_name,
                GError     **error)
{
  g_return_val_if_fail (path_or_name != NULL, NULL);

  if (g_file_test (path_or_name, G_FILE_TEST_EXISTS)
      || strchr (path_or_name, '/') != NULL || g_str_has_suffix (path_or_name, ".json"))
    return bpw_study_new_from_file (path_or_name, error);
  return bpw_study_new_bundled (path_or_name, error);
}

char *
bpw_study_to_json (BpwStudy *self)
{
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);

  root = _bpw_study_to_node (self, NULL);
  return _bpw_json_dump (root);
}

static gboolean
bpw_study_write_file (BpwStudy    *self,
                      const char  *path,
                      const char  *target_dir,
                      gboolean     make_backup,
                      GError     **error)
{
  g_autoptr(JsonNode) root = _bpw_study_to_node (self, target_dir);
  g_autofree char *text = _bpw_json_dump (root);
  g_autoptr(BpwFileWriter) writer = bpw_file_writer_new (path, error);

  /* A temporary file renamed over the old one, so a crash leaves either the old or the new
   * study, never half of one; make_backup keeps the previous version as "path~". */
  if (writer == NULL)
    return FALSE;
  if (make_backup)
    bpw_file_writer_keep_backup (writer);
  return bpw_file_writer_write (writer, text, strlen (text), error)
         && bpw_file_writer_commit (writer, error);
}

gboolean
bpw_study_save_copy (BpwStudy    *self,
                     const char  *path,
                     GError     **error)
{
  g_autofree char *target_dir = NULL;

  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  target_dir = g_path_get_dirname (path);
  return bpw_study_write_file (self, path, target_dir, FALSE, error);
}

gboolean
bpw_study_save_to_file (BpwStudy    *self,
                        const char  *path,
                        GError     **error)
{
  g_autofree char *target_dir = NULL;

  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  target_dir = g_path_get_dirname (path);
  if (!bpw_study_write_file (self, path, target_dir, TRUE, error))
    return FALSE;

  /* Relative model paths must now resolve against the new folder. */
  for (guint i = 0; i < self->workloads->len; i++)
    {
      BpwStudyWorkload *w = &g_array_index (self->workloads, BpwStudyWorkload, i);
      char *ref = _bpw_study_model_ref_for (self, w, target_dir);

      g_free (w->model_ref);
      w->model_ref = ref;
    }
  g_free (self->path);
  self->path = g_strdup (path);
  g_free (self->base_dir);
  self->base_dir = g_steal_pointer (&target_dir);
  return TRUE;
}
