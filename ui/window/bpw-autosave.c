/* bpw-autosave.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-autosave"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "bpw-autosave.h"

#include "bpw-file.h"

struct _BpwAutosave
{
  GObject    parent_instance;

  /* Owned */
  GFile     *file;
  GFile     *origin;   /* nullable */
  BpwStudy  *study;    /* nullable */

  guint      timeout_id;
  gboolean   wrote;    /* the file holds what this object wrote */
};

G_DEFINE_FINAL_TYPE (BpwAutosave, bpw_autosave, G_TYPE_OBJECT)

static GFile *
bpw_autosave_dup_origin_note (GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *note = g_strconcat (path, ".origin", NULL);

  return g_file_new_for_path (note);
}

static gboolean
bpw_autosave_is_autosave_name (const char *name)
{
  const char *rest;

  if (strcmp (name, "autosave.bpw") == 0)
    return TRUE;
  if (!g_str_has_prefix (name, "autosave-") || !g_str_has_suffix (name, ".bpw"))
    return FALSE;
  rest = name + strlen ("autosave-");
  if (rest[0] == '.')
    return FALSE;
  for (; *rest != '.'; rest++)
    if (!g_ascii_isdigit (*rest))
      return FALSE;
  return TRUE;
}

static gboolean
bpw_autosave_timeout_cb (gpointer user_data)
{
  BpwAutosave *self = user_data;
  g_autoptr(GError) error = NULL;

  self->timeout_id = 0;
  /* A failed autosave must not interrupt work; the next change tries again. */
  if (!bpw_autosave_save_now (self, &error))
    g_warning ("Could not autosave to %s: %s", g_file_peek_path (self->file), error->message);
  return G_SOURCE_REMOVE;
}

static void
bpw_autosave_finalize (GObject *object)
{
  BpwAutosave *self = (BpwAutosave *) object;

  g_clear_handle_id (&self->timeout_id, g_source_remove);
  g_clear_object (&self->file);
  g_clear_object (&self->origin);
  g_clear_object (&self->study);

  G_OBJECT_CLASS (bpw_autosave_parent_class)->finalize (object);
}

static void
bpw_autosave_class_init (BpwAutosaveClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = bpw_autosave_finalize;
}

static void
bpw_autosave_init (BpwAutosave *self)
{
}

GFile *
bpw_autosave_dup_default_dir (void)
{
  return g_file_new_build_filename (g_get_user_state_dir (), "blueprint-workbench", NULL);
}

GFile *
bpw_autosave_dup_file_for_slot (GFile *dir,
                                guint  slot)
{
  g_autofree char *name = NULL;

  g_return_val_if_fail (G_IS_FILE (dir), NULL);

  name = slot <= 1 ? g_strdup ("autosave.bpw") : g_strdup_printf ("autosave-%u.bpw", slot);
  return g_file_get_child (dir, name);
}

static int
bpw_autosave_compare_files (gconstpointer a,
                            gconstpointer b)
{
  GFile *x = *(GFile **) a;
  GFile *y = *(GFile **) b;
  g_autofree char *nx = g_file_get_basename (x);
  g_autofree char *ny = g_file_get_basename (y);

  /* "autosave.bpw" first, then by slot number. */
  if (strlen (nx) != strlen (ny))
    return strlen (nx) < strlen (ny) ? -1 : 1;
  return strcmp (nx, ny);
}

GPtrArray *
bpw_autosave_list_pending (GFile *dir)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GFileEnumerator) children = NULL;

  g_return_val_if_fail (G_IS_FILE (dir), files);

  children = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                        G_FILE_QUERY_INFO_NONE, NULL, NULL);
  while (children != NULL)
    {
      GFileInfo *info = NULL;
      GFile *child = NULL;

      if (!g_file_enumerator_iterate (children, &info, &child, NULL, NULL) || info == NULL)
        break;
      if (bpw_autosave_is_autosave_name (g_file_info_get_name (info)))
        g_ptr_array_add (files, g_object_ref (child));
    }
  g_ptr_array_sort (files, bpw_autosave_compare_files);
  return files;
}

BpwStudy *
bpw_autosave_load (GFile   *file,
                   GFile  **origin,
                   GError **error)
{
  g_autoptr(GFile) note = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *path = NULL;
  BpwStudy *study;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  if (origin != NULL)
    *origin = NULL;
  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("%s: autosaves are local files"), g_file_peek_path (file));
      return NULL;
    }
  study = bpw_study_new_from_file (path, error);
  if (study == NULL)
    return NULL;

  note = bpw_autosave_dup_origin_note (file);
  if (origin != NULL
      && bpw_file_read (g_file_peek_path (note), BPW_FILE_MAX_INPUT_SIZE, &uri, NULL, NULL))
    {
      g_strstrip (uri);
      if (uri[0] != '\0')
        *origin = g_file_new_for_uri (uri);
    }
  return study;
}

void
bpw_autosave_delete (GFile *file)
{
  g_autoptr(GFile) note = NULL;

  g_return_if_fail (G_IS_FILE (file));

  note = bpw_autosave_dup_origin_note (file);
  g_file_delete (file, NULL, NULL);
  g_file_delete (note, NULL, NULL);
}

BpwAutosave *
bpw_autosave_new (GFile *file)
{
  BpwAutosave *self;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  self = g_object_new (BPW_TYPE_AUTOSAVE, NULL);
  self->file = g_object_ref (file);
  return self;
}

GFile *
bpw_autosave_get_file (BpwAutosave *self)
{
  g_return_val_if_fail (BPW_IS_AUTOSAVE (self), NULL);
  return self->file;
}

void
bpw_autosave_set_study (BpwAutosave *self,
                        BpwStudy    *study,
                        GFile       *origin)
{
  g_return_if_fail (BPW_IS_AUTOSAVE (self));
  g_return_if_fail (study == NULL || BPW_IS_STUDY (study));
  g_return_if_fail (origin == NULL || G_IS_FILE (origin));

  g_set_object (&self->study, study);
  g_set_object (&self->origin, origin);
}

void
bpw_autosave_mark_modified (BpwAutosave *self)
{
  g_return_if_fail (BPW_IS_AUTOSAVE (self));

  /* The first unsaved change starts the clock; later ones ride along, so that steady
   * editing still autosaves every interval. */
  if (self->timeout_id == 0)
    self->timeout_id = g_timeout_add_seconds (BPW_AUTOSAVE_INTERVAL_SECONDS,
                                              bpw_autosave_timeout_cb, self);
}

gboolean
bpw_autosave_is_scheduled (BpwAutosave *self)
{
  g_return_val_if_fail (BPW_IS_AUTOSAVE (self), FALSE);
  return self->timeout_id != 0;
}

gboolean
bpw_autosave_save_now (BpwAutosave  *self,
                       GError      **error)
{
  g_autoptr(GFile) dir = NULL;
  g_autoptr(GFile) note = NULL;
  g_autofree char *uri = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (BPW_IS_AUTOSAVE (self), FALSE);

  g_clear_handle_id (&self->timeout_id, g_source_remove);
  if (self->study == NULL)
    return TRUE;

  dir = g_file_get_parent (self->file);
  if (dir != NULL && !g_file_make_directory_with_parents (dir, NULL, &local_error)
      && !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_EXISTS))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  /* The note first: an autosave without its note would be recovered as a new study. */
  note = bpw_autosave_dup_origin_note (self->file);
  uri = self->origin != NULL ? g_file_get_uri (self->origin) : g_strdup ("");
  if (!bpw_file_replace_contents (g_file_peek_path (note), uri, -1, error))
    return FALSE;
  if (!bpw_study_save_copy (self->study, g_file_peek_path (self->file), error))
    return FALSE;
  self->wrote = TRUE;
  return TRUE;
}

void
bpw_autosave_discard (BpwAutosave *self)
{
  g_return_if_fail (BPW_IS_AUTOSAVE (self));

  g_clear_handle_id (&self->timeout_id, g_source_remove);
  /* Only what this object wrote: an autosave of an earlier run, waiting to be recovered,
   * under the same name stays until the user decides. */
  if (self->wrote)
    bpw_autosave_delete (self->file);
  self->wrote = FALSE;
}
