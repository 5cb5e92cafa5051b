/* bpw-cli.c — the `bpw` command line: dispatch to subcommands, shared error reporting
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli"

#include "config.h"

#include "bpw-cli.h"
#include "bpw-cli-print.h"

#include <libintl.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"

typedef struct
{
  const char *name;
  int       (*run) (int argc, char **argv);
  const char *synopsis;
} BpwCliCommand;

/* Only what is implemented is listed; anything else is an unknown command (exit 2). */
static const BpwCliCommand bpw_cli_commands[] = {
  { "facts", bpw_cli_facts,
    "facts MODEL [scenario options] [parallel options] [--json]" },
  { "evaluate", bpw_cli_evaluate,
    "evaluate MODEL --blueprint BP [scenario options] [parallel options] [mapping options]\n"
    "                [--analytic] [--json] [--trace FILE]" },
  { "serve", bpw_cli_serve,
    "serve MODEL --blueprint BP [parallel options] --arrival-rate R --requests N\n"
    "                [--prompt-len DIST] [--output-len DIST] [--seed S] [--sweep R1,R2,...] [--json]" },
  { "validate", bpw_cli_validate, "validate [--blueprint BP] [--fit [--output FILE]] [--json]" },
  { "export", bpw_cli_export,
    "export STUDY --view sheet|roofline|assignment|timeline|lifetimes|trade|compare|memo\n"
    "                --format csv|md|png|svg|pdf --output FILE [--candidate NAME] [--scenario NAME]" },
  { "search", bpw_cli_search,
    "search MODEL --blueprint BP --devices N [scenario options] [--threads N] [--top K]\n"
    "                [--max-cp N] [--shard I/N] [--sweep-param NAME=V1,V2,...] [--json]" },
  { "search-merge", bpw_cli_search_merge, "search-merge FILE...  (merge shard outputs)" },
  { "compare", bpw_cli_compare, "compare STUDY [--search] [--json]" },
  { "profile", bpw_cli_profile,
    "profile import TRACE... [--json]\n"
    "  bpw profile correlate MODEL --blueprint BP --profile TRACE [options] [--json]\n"
    "  bpw profile calibrate MODEL --blueprint BP --profile TRACE... --output FILE [--json]\n"
    "  bpw profile report [MODEL --blueprint BP --profile TRACE... [--calibrated FILE]]\n"
    "                [--megatron] [--json]" },
  { "check", bpw_cli_check, "check FILE..." },
  { "list", bpw_cli_list, "list models|blueprints|studies" },
};

G_DEFINE_QUARK (bpw-cli-usage-error-quark, bpw_cli_usage_error)

BpwCliExit
bpw_cli_exit_code_for_error (const GError *error)
{
  if (error == NULL)
    return BPW_CLI_EXIT_OK;
  if (error->domain == G_OPTION_ERROR || error->domain == BPW_CLI_USAGE_ERROR)
    return BPW_CLI_EXIT_USAGE;
  if (error->domain == BPW_ERROR && error->code == BPW_ERROR_ILLEGAL_PLAN)
    return BPW_CLI_EXIT_ILLEGAL_PLAN;
  return BPW_CLI_EXIT_INVALID_INPUT;
}

gboolean
bpw_cli_parse (GOptionContext   *context,
               int              *argc,
               char           ***argv,
               GError          **error)
{
  if (!g_option_context_parse (context, argc, argv, error))
    return FALSE;
  /* GLib keeps "--" when an argument after it starts with '-', so that the caller can tell;
   * here it only ends the options ("check -- -file.json", "check -- --"). */
  for (int i = 1; i < *argc; i++)
    if (strcmp ((*argv)[i], "--") == 0)
      {
        memmove (&(*argv)[i], &(*argv)[i + 1], (gsize) (*argc - i) * sizeof (char *));
        (*argc)--;
        break;
      }
  return TRUE;
}

int
bpw_cli_report_error (const char   *command,
                      const GError *error)
{
  BpwCliExit code = bpw_cli_exit_code_for_error (error);

  bpw_cli_print (stderr, "bpw: %s\n", error->message);
  if (code == BPW_CLI_EXIT_USAGE)
    g_printerr ("Try 'bpw %s --help' for more information.\n", command);
  return code;
}

int
bpw_cli_usage (const char *command,
               const char *format,
               ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  bpw_cli_print (stderr, "bpw: %s\n", message);
  if (command != NULL)
    g_printerr ("Try 'bpw %s --help' for more information.\n", command);
  else
    g_printerr ("Try 'bpw --help' for more information.\n");
  return BPW_CLI_EXIT_USAGE;
}

static void
bpw_cli_print_help (FILE *stream)
{
  fprintf (stream, "Usage:\n");
  for (guint i = 0; i < G_N_ELEMENTS (bpw_cli_commands); i++)
    fprintf (stream, "  bpw %s\n", bpw_cli_commands[i].synopsis);
  fprintf (stream,
           "\n"
           "MODEL is a bundled model name (see 'bpw list models'), a native workload file,\n"
           "a Hugging Face config.json or a Calculon model file.\n"
           "'bpw COMMAND --help' describes the options of COMMAND.\n"
           "\n"
           "Exit status: 0 success, 1 invalid input, 2 usage error, 3 illegal plan.\n");
}

int
main (int    argc,
      char **argv)
{
  const char *command;
  /* BPW_LOCALEDIR: catalogues laid out as LOCALEDIR, e.g. a build tree's for the tests. */
  const char *localedir = g_getenv ("BPW_LOCALEDIR") != NULL ? g_getenv ("BPW_LOCALEDIR")
                                                             : LOCALEDIR;

  setlocale (LC_ALL, "");
  /* The charts and the memo (ui/plot) speak the application's domain, the errors the core's. */
  bindtextdomain (GETTEXT_PACKAGE, localedir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  bpw_core_i18n_init (localedir);
  /* Numbers on stdout are for scripts too: always a decimal point. */
  setlocale (LC_NUMERIC, "C");
  g_set_prgname ("bpw");

  if (argc < 2)
    {
      bpw_cli_print_help (stderr);
      return BPW_CLI_EXIT_USAGE;
    }

  command = argv[1];
  if (strcmp (command, "--help") == 0 || strcmp (command, "-h") == 0 ||
      strcmp (command, "help") == 0)
    {
      bpw_cli_print_help (stdout);
      return BPW_CLI_EXIT_OK;
    }
  if (strcmp (command, "--version") == 0)
    {
      g_print ("bpw %s\n", PACKAGE_VERSION);
      return BPW_CLI_EXIT_OK;
    }

  for (guint i = 0; i < G_N_ELEMENTS (bpw_cli_commands); i++)
    {
      if (strcmp (command, bpw_cli_commands[i].name) == 0)
        return bpw_cli_commands[i].run (argc - 1, argv + 1);
    }

  if (command[0] == '-')
    return bpw_cli_usage (NULL, "unknown option '%s' before the command", command);
  return bpw_cli_usage (NULL, "unknown command '%s'", command);
}
