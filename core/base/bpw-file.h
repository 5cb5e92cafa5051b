/* bpw-file.h — the one way files are read and written: regular files only, bounded reads,
 * atomic replacement
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The largest input read whole: a JSON document, a profile, a search shard. */
#define BPW_FILE_MAX_INPUT_SIZE (64 * 1024 * 1024)

/* Reads the regular file @path whole, at most @max_size bytes, into a NUL-terminated buffer
 * (@length: nullable). Anything else is refused at open, without blocking and without reading
 * a byte: a directory, a FIFO, a device or a socket (G_FILE_ERROR_ISDIR / G_FILE_ERROR_INVAL),
 * each named in the message; a file over @max_size is BPW_ERROR_INVALID_INPUT. Symbolic links
 * are followed to what they name, and judged by that. */
gboolean       bpw_file_read               (const char  *path,
                                            gsize        max_size,
                                            char       **contents,
                                            gsize       *length,
                                            GError     **error);

/* A file being written: a temporary file in the target's folder, renamed over the target by
 * bpw_file_writer_commit() once it is complete and on disk. A symbolic link at @path is
 * resolved, so the link stays and the file it names gets the new content; a target that exists
 * and is not a regular file (a directory, a FIFO, a device) is refused and left alone. Until
 * the commit succeeds the old file is untouched; bpw_file_writer_free() without a commit
 * removes the temporary file. */
typedef struct _BpwFileWriter BpwFileWriter;

BpwFileWriter *bpw_file_writer_new         (const char     *path,
                                            GError        **error);
/* Appends @length bytes; FALSE (with @error, nullable) on the first failure, which also stays
 * with the writer: every later write fails, and the commit reports it. */
gboolean       bpw_file_writer_write       (BpwFileWriter  *writer,
                                            const void     *data,
                                            gsize           length,
                                            GError        **error);
/* TRUE once a write has failed. */
gboolean       bpw_file_writer_has_failed  (BpwFileWriter  *writer);
/* The path as the caller gave it, for messages. */
const char    *bpw_file_writer_get_path    (BpwFileWriter  *writer);
/* Asks the commit to keep the file it replaces as "TARGET~". */
void           bpw_file_writer_keep_backup (BpwFileWriter  *writer);
/* Flushes the file to disk and renames it over the target. */
gboolean       bpw_file_writer_commit      (BpwFileWriter  *writer,
                                            GError        **error);
void           bpw_file_writer_free        (BpwFileWriter  *writer);

/* The whole of @data (@length -1: NUL-terminated) through a BpwFileWriter. */
gboolean       bpw_file_replace_contents   (const char     *path,
                                            const void     *data,
                                            gssize          length,
                                            GError        **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwFileWriter, bpw_file_writer_free)

G_END_DECLS
