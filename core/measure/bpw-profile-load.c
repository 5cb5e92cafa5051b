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

#include "bpw-profile-private.h"

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

BpwProfile *
bpw_profile_load_file (const char  *path,
                       GError     **error)
{
  g_autoptr(BpwJsonDoc) doc = bpw_json_doc_new_from_file (path, error);

  return doc != NULL ? bpw_profile_load_doc (doc, error) : NULL;
}
