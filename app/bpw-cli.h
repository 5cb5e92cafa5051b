/* bpw-cli.h — subcommands of the `bpw` command line and their shared exit conventions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-cli-options.h"

#include <glib.h>

G_BEGIN_DECLS

/* Exit codes are a contract (DESIGN.md, "The `bpw` command line"). */
typedef enum
{
  BPW_CLI_EXIT_OK = 0,
  BPW_CLI_EXIT_INVALID_INPUT = 1,
  BPW_CLI_EXIT_USAGE = 2,
  BPW_CLI_EXIT_ILLEGAL_PLAN = 3,
} BpwCliExit;

/* Each subcommand gets its own argv, argv[0] being the subcommand's name. Ownership of
 * @argv stays with the caller, but the parser may reorder and remove entries. */
int         bpw_cli_facts (int argc, char **argv);
int         bpw_cli_evaluate (int argc, char **argv);
/* `bpw evaluate --cost-model calculon` (bpw-cli-evaluate-calculon.c). */
int         bpw_cli_evaluate_calculon (const char *model, const char *blueprint,
                                       const BpwCliOptions *options, gboolean json);
int         bpw_cli_serve (int argc, char **argv);
int         bpw_cli_validate (int argc, char **argv);
int         bpw_cli_export (int argc, char **argv);
int         bpw_cli_check (int argc, char **argv);
int         bpw_cli_list  (int argc, char **argv);
int         bpw_cli_search (int argc, char **argv);
int         bpw_cli_search_merge (int argc, char **argv);
int         bpw_cli_compare (int argc, char **argv);
int         bpw_cli_profile (int argc, char **argv);

/* g_option_context_parse(), and the "--" that ends the options removed from the
 * arguments left: after it, everything (a "--" too) is an argument. */
gboolean    bpw_cli_parse (GOptionContext   *context,
                           int              *argc,
                           char           ***argv,
                           GError          **error);

/* The exit code for @error: usage errors (GOptionError, BPW_CLI_USAGE_ERROR) 2, illegal
 * plans 3, everything else 1. */
BpwCliExit  bpw_cli_exit_code_for_error (const GError *error);

/* Prints "bpw: MESSAGE" on stderr (plus a hint to --help for usage errors of @command)
 * and returns the exit code for @error. */
int         bpw_cli_report_error (const char   *command,
                                  const GError *error);

/* Usage errors found after option parsing (a missing MODEL, a bad enum value). */
#define BPW_CLI_USAGE_ERROR (bpw_cli_usage_error_quark ())
GQuark      bpw_cli_usage_error_quark (void);

/* Prints "bpw: MESSAGE" and the --help hint for @command, returns 2. */
int         bpw_cli_usage (const char *command,
                           const char *format,
                           ...) G_GNUC_PRINTF (2, 3);

G_END_DECLS
