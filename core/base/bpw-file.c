/* bpw-file.c — the one way files are read and written: regular files only, bounded reads,
 * atomic replacement
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading opens with O_NONBLOCK, so that opening a FIFO returns at once instead of waiting for
 * a writer, then judges the opened descriptor with fstat(): what was checked is what is read,
 * with no window for the path to change in between. Reads use read(), not mmap(): a mapped
 * file that another program truncates raises SIGBUS, and a file that lies about its size
 * (those of /proc report 0) is still read whole, up to the limit.
 *
 * Writing never touches the target until the new content is complete and on disk: a temporary
 * file beside it (same folder, hence same file system, so rename() is atomic), fsync(), then
 * rename() over the target. A failed write of any kind leaves the old file as it was.
 */
#define G_LOG_DOMAIN "bpw-file"

#include "config.h"

#include "bpw-file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "bpw-error.h"
#include "bpw-i18n.h"

/* Symbolic links followed when resolving a target to write, as the kernel's own limit. */
#define MAX_LINKS 40

struct _BpwFileWriter
{
  char   *path;      /* as the caller named it, for messages */
  char   *target;    /* @path with its symbolic links resolved: what is replaced */
  char   *tmp;       /* the temporary file beside @target; NULL once renamed */
  int     fd;        /* open on @tmp; -1 once closed */
  GError *error;     /* the first failed write, kept for the commit */
  gboolean backup;   /* keep the replaced file as "@target~" */
};

static const char *
describe_kind (mode_t mode)
{
  if (S_ISDIR (mode))
    return _("a directory");
  if (S_ISFIFO (mode))
    return _("a FIFO (named pipe)");
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return _("a device");
  if (S_ISSOCK (mode))
    return _("a socket");
  return _("not a regular file");
}

static void
set_kind_error (GError     **error,
                const char  *path,
                mode_t       mode,
                gboolean     writing)
{
  int code = S_ISDIR (mode) ? G_FILE_ERROR_ISDIR : G_FILE_ERROR_INVAL;

  if (writing)
    g_set_error (error, G_FILE_ERROR, code,
                 _("%s: is %s, not a regular file, and was left as it is"), path,
                 describe_kind (mode));
  else
    g_set_error (error, G_FILE_ERROR, code, _("%s: is %s, not a regular file"), path,
                 describe_kind (mode));
}

/* "WHAT: the system's reason"; @what is freed. */
static void
set_errno_error (GError     **error,
                 int          saved_errno,
                 char        *what)
{
  g_autofree char *owned = what;

  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno), "%s: %s", owned,
               g_strerror (saved_errno));
}

static void
set_size_error (GError     **error,
                const char  *path,
                gsize        max_size)
{
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
               _("%s: the document is larger than the %zu MiB limit"), path,
               max_size >> 20);
}

gboolean
bpw_file_read (const char  *path,
               gsize        max_size,
               char       **contents,
               gsize       *length,
               GError     **error)
{
  g_autofree char *buf = NULL;
  struct stat st;
  gsize size = 0, capacity;
  int fd;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (contents != NULL, FALSE);

  do
    fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    {
      int saved_errno = errno;

      set_errno_error (error, saved_errno, g_strdup (path));
      return FALSE;
    }
  if (fstat (fd, &st) != 0)
    {
      int saved_errno = errno;

      close (fd);
      set_errno_error (error, saved_errno, g_strdup (path));
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      set_kind_error (error, path, st.st_mode, FALSE);
      return FALSE;
    }
  if (st.st_size < 0 || (guint64) st.st_size > max_size)
    {
      close (fd);
      set_size_error (error, path, max_size);
      return FALSE;
    }

  /* The size fstat() reports is a hint: read until the end, never past the limit. */
  capacity = (gsize) st.st_size + 1;
  buf = g_malloc (capacity + 1);
  for (;;)
    {
      gssize n;

      if (size == capacity)
        {
          if (size > max_size)
            {
              close (fd);
              set_size_error (error, path, max_size);
              return FALSE;
            }
          capacity = MIN (MAX (capacity * 2, 4096), max_size + 1);
          buf = g_realloc (buf, capacity + 1);
        }
      n = read (fd, buf + size, capacity - size);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved_errno = errno;

          close (fd);
          set_errno_error (error, saved_errno, g_strdup (path));
          return FALSE;
        }
      if (n == 0)
        break;
      size += (gsize) n;
    }
  close (fd);
  if (size > max_size)
    {
      set_size_error (error, path, max_size);
      return FALSE;
    }

  buf[size] = '\0';
  if (length != NULL)
    *length = size;
  *contents = g_steal_pointer (&buf);
  return TRUE;
}

/* Follows the symbolic links of @path to the file they name, which may not exist yet. */
static char *
resolve_target (const char  *path,
                struct stat *st,
                gboolean    *exists,
                GError     **error)
{
  g_autofree char *target = g_strdup (path);

  for (guint links = 0;; links++)
    {
      g_autofree char *link = NULL;
      g_autofree char *folder = NULL;
      GError *local = NULL;

      if (lstat (target, st) != 0)
        {
          int saved_errno = errno;

          if (saved_errno != ENOENT)
            {
              set_errno_error (error, saved_errno, g_strdup (path));
              return NULL;
            }
          *exists = FALSE;
          return g_steal_pointer (&target);
        }
      if (!S_ISLNK (st->st_mode))
        {
          *exists = TRUE;
          return g_steal_pointer (&target);
        }
      if (links == MAX_LINKS)
        {
          set_errno_error (error, ELOOP, g_strdup (path));
          return NULL;
        }
      link = g_file_read_link (target, &local);
      if (link == NULL)
        {
          g_propagate_prefixed_error (error, local, "%s: ", path);
          return NULL;
        }
      if (g_path_is_absolute (link))
        {
          g_free (target);
          target = g_steal_pointer (&link);
        }
      else
        {
          folder = g_path_get_dirname (target);
          g_free (target);
          target = g_build_filename (folder, link, NULL);
        }
    }
}

BpwFileWriter *
bpw_file_writer_new (const char  *path,
                     GError     **error)
{
  g_autoptr(BpwFileWriter) writer = NULL;
  g_autofree char *folder = NULL;
  g_autofree char *base = NULL;
  struct stat st;
  gboolean exists = FALSE;

  g_return_val_if_fail (path != NULL, NULL);

  writer = g_new0 (BpwFileWriter, 1);
  writer->fd = -1;
  writer->path = g_strdup (path);
  writer->target = resolve_target (path, &st, &exists, error);
  if (writer->target == NULL)
    return NULL;
  if (exists && !S_ISREG (st.st_mode))
    {
      set_kind_error (error, path, st.st_mode, TRUE);
      return NULL;
    }

  folder = g_path_get_dirname (writer->target);
  base = g_path_get_basename (writer->target);
  writer->tmp = g_strdup_printf ("%s%s.%s.XXXXXX", folder, G_DIR_SEPARATOR_S, base);
  /* 0666 under the umask, as a new file gets; an existing file's mode is kept below. */
  writer->fd = g_mkstemp_full (writer->tmp, O_WRONLY | O_CLOEXEC, 0666);
  if (writer->fd < 0)
    {
      int saved_errno = errno;

      g_clear_pointer (&writer->tmp, g_free);
      set_errno_error (error, saved_errno,
                       g_strdup_printf (_("%s: cannot create a file in its folder"), path));
      return NULL;
    }
  if (exists)
    (void) fchmod (writer->fd, st.st_mode & 07777);
  return g_steal_pointer (&writer);
}

gboolean
bpw_file_writer_write (BpwFileWriter  *writer,
                       const void     *data,
                       gsize           length,
                       GError        **error)
{
  const char *p = data;

  g_return_val_if_fail (writer != NULL, FALSE);

  while (writer->error == NULL && length > 0)
    {
      gssize n = writer->fd < 0 ? (errno = EBADF, -1) : write (writer->fd, p, length);
      int saved_errno = n < 0 ? errno : ENOSPC;  /* no progress without an error: full */

      if (n < 0 && saved_errno == EINTR)
        continue;
      if (n <= 0)
        set_errno_error (&writer->error, saved_errno,
                         g_strdup_printf (_("%s: cannot write"), writer->path));
      else
        {
          p += n;
          length -= (gsize) n;
        }
    }
  if (writer->error != NULL)
    {
      if (error != NULL)
        g_propagate_error (error, g_error_copy (writer->error));
      return FALSE;
    }
  return TRUE;
}

gboolean
bpw_file_writer_has_failed (BpwFileWriter *writer)
{
  g_return_val_if_fail (writer != NULL, TRUE);

  return writer->error != NULL;
}

const char *
bpw_file_writer_get_path (BpwFileWriter *writer)
{
  g_return_val_if_fail (writer != NULL, NULL);

  return writer->path;
}

void
bpw_file_writer_keep_backup (BpwFileWriter *writer)
{
  g_return_if_fail (writer != NULL);

  writer->backup = TRUE;
}

/* "@target~" becomes the file at @target, which stays in place meanwhile: a hard link under a
 * temporary name renamed over the backup, so that at every moment both names hold a complete
 * file. Where the file system has no hard links, a copy. */
static gboolean
keep_backup (BpwFileWriter  *writer,
             GError        **error)
{
  g_autofree char *backup = g_strconcat (writer->target, "~", NULL);
  g_autofree char *linked = g_strconcat (writer->tmp, "~", NULL);
  g_autoptr(GFile) source = NULL;
  g_autoptr(GFile) dest = NULL;
  g_autoptr(GError) local = NULL;

  if (link (writer->target, linked) == 0)
    {
      if (g_rename (linked, backup) == 0)
        return TRUE;
      g_unlink (linked);
    }
  else if (errno == ENOENT)
    return TRUE;  /* nothing to keep: a new file */

  source = g_file_new_for_path (writer->target);
  dest = g_file_new_for_path (backup);
  if (!g_file_copy (source, dest, G_FILE_COPY_OVERWRITE | G_FILE_COPY_NOFOLLOW_SYMLINKS, NULL,
                    NULL, NULL, &local))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                   _("%s: cannot keep the previous version as %s: %s"), writer->path, backup,
                   local->message);
      return FALSE;
    }
  return TRUE;
}

/* Once renamed, the new name must reach the disk too, or a crash could bring the old back. */
static void
sync_folder (const char *target)
{
  g_autofree char *folder = g_path_get_dirname (target);
  int fd = open (folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd >= 0)
    {
      (void) fsync (fd);
      close (fd);
    }
}

gboolean
bpw_file_writer_commit (BpwFileWriter  *writer,
                        GError        **error)
{
  int fd;

  g_return_val_if_fail (writer != NULL, FALSE);
  g_return_val_if_fail (writer->tmp != NULL, FALSE);

  if (writer->error != NULL)
    {
      g_propagate_error (error, g_error_copy (writer->error));
      return FALSE;
    }
  fd = writer->fd;
  writer->fd = -1;
  if (fsync (fd) != 0)
    {
      int saved_errno = errno;

      close (fd);
      set_errno_error (error, saved_errno,
                       g_strdup_printf (_("%s: cannot write"), writer->path));
      return FALSE;
    }
  if (close (fd) != 0)
    {
      int saved_errno = errno;

      set_errno_error (error, saved_errno,
                       g_strdup_printf (_("%s: cannot write"), writer->path));
      return FALSE;
    }
  if (writer->backup && !keep_backup (writer, error))
    return FALSE;
  if (g_rename (writer->tmp, writer->target) != 0)
    {
      int saved_errno = errno;

      set_errno_error (error, saved_errno,
                       g_strdup_printf (_("%s: cannot replace the file"), writer->path));
      return FALSE;
    }
  g_clear_pointer (&writer->tmp, g_free);
  sync_folder (writer->target);
  return TRUE;
}

void
bpw_file_writer_free (BpwFileWriter *writer)
{
  if (writer == NULL)
    return;

  if (writer->fd >= 0)
    close (writer->fd);
  if (writer->tmp != NULL)
    g_unlink (writer->tmp);
  g_clear_error (&writer->error);
  g_free (writer->tmp);
  g_free (writer->target);
  g_free (writer->path);
  g_free (writer);
}

gboolean
bpw_file_replace_contents (const char  *path,
                           const void  *data,
                           gssize       length,
                           GError     **error)
{
  g_autoptr(BpwFileWriter) writer = NULL;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (data != NULL || length == 0, FALSE);

  writer = bpw_file_writer_new (path, error);
  if (writer == NULL)
    return FALSE;
  if (length < 0)
    length = strlen (data);
  return bpw_file_writer_write (writer, data, (gsize) length, error)
         && bpw_file_writer_commit (writer, error);
}
