/* bpw-test-blueprint.c — holding the blueprint reader's refusals to their location
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "bpw-test-blueprint.h"

void
bpw_test_assert_blueprint_refused (guint       index,
                                   const char *json,
                                   const char *needle,
                                   const char *path)
{
  const char *at = strstr (json, needle);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = NULL;
  g_autofree char *prefix = NULL;
  guint line = 1, column = 1;

  g_assert_nonnull (at);
  for (const char *p = json; p < at; p++)
    {
      if (*p == '\n')
        {
          line++;
          column = 1;
        }
      else
        column++;
    }
  prefix = g_strdup_printf ("bad.json:%u:%u: %s: ", line, column, path);

  bp = bpw_blueprint_load_data ("bad.json", json, -1, NULL, &error);
  g_assert_null (bp);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_test_message ("%s", error->message);
  if (!g_str_has_prefix (error->message, prefix))
    g_error ("case %u: expected a message starting with \"%s\", got \"%s\"", index, prefix,
             error->message);
  g_assert_null (strchr (error->message, '\n'));
}
