/* bpw-blueprint-bundled.c — the blueprints shipped inside the core, and the lookup of a
 * blueprint by bundled name or file path
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-blueprint-bundled"

#include "config.h"

#include "bpw-blueprint-io.h"
#include "bpw-core-resource-private.h"
#include "bpw-error.h"
#include "bpw-i18n.h"

#define BPW_BLUEPRINT_RESOURCE_DIR "/io/github/bpw/Workbench/core/blueprints/"

/* The files under data/blueprints/, compiled in as the bpw_core_data resource. Values come
 * from shared/docs/REFERENCES.md §4; each value's "source" names the row it came from. */
static const char * const bundled_names[] = {
  "a100-sxm-80gb",
  "h100-sxm-80gb",
  "h200-sxm-141gb",
  "b200",
  "mi300x",
  "tpu-v4",
  "tpu-v5p",
  "tpu-v5p-4x4x4",
  "gaudi3",
  NULL
};

const char * const *
bpw_blueprint_bundled_names (void)
{
  return bundled_names;
}

BpwBlueprint *
bpw_blueprint_load_bundled (const char  *name,
                            GError     **error)
{
  g_autofree char *path = NULL;
  g_autofree char *filename = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) local = NULL;
  BpwBlueprint *bp;
  gsize size;
  const char *data;

  g_return_val_if_fail (name != NULL, NULL);

  if (!g_strv_contains (bundled_names, name))
    {
      g_autofree char *list = g_strjoinv (", ", (char **) bundled_names);

      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("%s: no bundled blueprint of that name (bundled: %s)"), name, list);
      return NULL;
    }

  path = g_strconcat (BPW_BLUEPRINT_RESOURCE_DIR, name, ".json", NULL);
  bytes = g_resource_lookup_data (_bpw_core_resource_get (), path,
                                  G_RESOURCE_LOOKUP_FLAGS_NONE, &local);
  if (bytes == NULL)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("%s: bundled blueprint missing from the build: %s"), name, local->message);
      return NULL;
    }

  data = g_bytes_get_data (bytes, &size);
  filename = g_strconcat (name, ".json", NULL);
  bp = bpw_blueprint_load_data (filename, data, (gssize) size, NULL, error);
  if (bp != NULL)
    {
      g_free (bp->origin);
      bp->origin = g_strdup ("bundled");
    }
  return bp;
}

BpwBlueprint *
bpw_blueprint_load (const char  *path_or_name,
                    GPtrArray   *warnings,
                    GError     **error)
{
  const char * const *names = bpw_blueprint_bundled_names ();

  g_return_val_if_fail (path_or_name != NULL, NULL);

  /* Any file of that name, which the reader refuses with the reason if it is not a regular
   * file (a FIFO, a directory), rather than "no such file". */
  if (g_file_test (path_or_name, G_FILE_TEST_EXISTS))
    return bpw_blueprint_load_file (path_or_name, warnings, error);
  if (g_strv_contains (names, path_or_name))
    return bpw_blueprint_load_bundled (path_or_name, error);

  {
    g_autofree char *list = g_strjoinv (", ", (char **) names);

    g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                 _("%s: no such file and no bundled blueprint of that name (bundled: %s)"),
                 path_or_name, list);
  }
  return NULL;
}
