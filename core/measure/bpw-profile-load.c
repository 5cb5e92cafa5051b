/* bpw-profile-load.c — loading a profile: read the events, finish the lanes, derive items
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs the steps in order: the reader (bpw-profile-read.c), the lanes and nesting
 * (bpw-profile.c) and the items (bpw-profile-items.c). Kept out of bpw-profile.c, whose
 * string table and accessors those steps use, so that they do not call back into it.
 */
#define G_LOG_DOMAIN "bpw-profile"

#include "config.h"

#include <gio/gio.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-profile-private.h"

/* As the JSON reader's own limit on a document. */
#define MAX_INFLATED (64 * 1024 * 1024)

BpwProfile *
bpw_profile_load_doc (BpwJsonDoc  *doc,
                      GError     **error)
{
  g_autoptr(BpwProfile) p = _bpw_profile_new (bpw_json_doc_get_filename (doc));

  if (!_bpw_profile_read (p, doc, error))
    return NULL;
  _bpw_profile_finish (p);
  _bpw_profile_build_items (p);
  return g_steal_pointer (&p);
}

BpwProfile *
bpw_profile_load_data (const char  *filename,
                       const char  *data,
                       gssize       length,
                       GError     **error)
{
  g_autoptr(BpwJsonDoc) doc = bpw_json_doc_new_from_data (filename, data, length, error);

  return doc != NULL ? bpw_profile_load_doc (doc, error) : NULL;
}

/* Profilers write large traces gzip'd (torch.profiler's "trace.json.gz"): inflate them,
 * known by their magic bytes, not by the name; no further than the JSON reader's own size
 * limit, which a small hostile file could otherwise exceed many times over. */
static GBytes *
inflate_gzip (const char *path, GBytes *compressed, GError **error)
{
  g_autoptr(GZlibDecompressor) gunzip = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr(GInputStream) raw = g_memory_input_stream_new_from_bytes (compressed);
  g_autoptr(GInputStream) in = g_converter_input_stream_new (raw, G_CONVERTER (gunzip));
  g_autoptr(GByteArray) out = g_byte_array_new ();
  guint8 chunk[65536];
  gssize got;

  while ((got = g_input_stream_read (in, chunk, sizeof chunk, NULL, error)) > 0)
    {
      if (out->len + (gsize) got > MAX_INFLATED)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("%s: the inflated document is larger than the %d MiB limit"), path,
                       MAX_INFLATED >> 20);
          return NULL;
        }
      g_byte_array_append (out, chunk, (guint) got);
    }
  if (got < 0)
    {
      g_prefix_error (error, "%s: ", path);
      return NULL;
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

BpwProfile *
bpw_profile_load_file (const char  *path,
                       GError     **error)
{
  g_autoptr(BpwJsonDoc) doc = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *data = NULL;
  gsize length = 0;
  const guchar *raw;

  if (!g_file_get_contents (path, &data, &length, error))
    return NULL;
  raw = (const guchar *) data;
  if (length >= 2 && raw[0] == 0x1f && raw[1] == 0x8b)
    {
      bytes = inflate_gzip (path, g_bytes_new_take (g_steal_pointer (&data), length), error);
      if (bytes == NULL)
        return NULL;
      doc = bpw_json_doc_new_from_data (path, g_bytes_get_data (bytes, NULL),
                                        (gssize) g_bytes_get_size (bytes), error);
    }
  else
    doc = bpw_json_doc_new_from_data (path, data, (gssize) length, error);
  return doc != NULL ? bpw_profile_load_doc (doc, error) : NULL;
}
