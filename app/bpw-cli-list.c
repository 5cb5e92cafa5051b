/* bpw-cli-list.c — `bpw list models|blueprints|studies`: the bundled names
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-list"

#include "config.h"

#include "bpw-cli.h"
#include "bpw-cli-print.h"

#include <string.h>

#include "bpw-blueprint-io.h"
#include "bpw-model-spec.h"
#include "bpw-study.h"

typedef struct
{
  const char          *what;
  const char * const *(*names) (void);
} BpwCliListKind;

static const BpwCliListKind bpw_cli_list_kinds[] = {
  { "models", bpw_model_spec_bundled_names },
  { "blueprints", bpw_blueprint_bundled_names },
  { "studies", bpw_study_bundled_names },
};

int
bpw_cli_list (int    argc,
              char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;

  g_set_prgname ("bpw list");
  context = g_option_context_new ("models|blueprints|studies");
  g_option_context_set_summary (context,
                                "Print the bundled names of one kind, one per line. Each name "
                                "can be given where\na file of that kind is expected.");
  if (!bpw_cli_parse (context, &argc, &argv, &error))
    return bpw_cli_report_error ("list", error);
  if (argc != 2)
    return bpw_cli_usage ("list", "list: expected one of models, blueprints or studies");

  for (guint i = 0; i < G_N_ELEMENTS (bpw_cli_list_kinds); i++)
    {
      const char * const *names;

      if (strcmp (argv[1], bpw_cli_list_kinds[i].what) != 0)
        continue;
      names = bpw_cli_list_kinds[i].names ();
      for (guint n = 0; names != NULL && names[n] != NULL; n++)
        bpw_cli_print (stdout, "%s\n", names[n]);
      return BPW_CLI_EXIT_OK;
    }
  return bpw_cli_usage ("list", "list: unknown kind '%s' (expected models, blueprints or "
                        "studies)", argv[1]);
}
