/* bpw-cli-print.h — what the `bpw` command line prints, made safe for a terminal
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <stdio.h>

#include <glib.h>

G_BEGIN_DECLS

/* Runs of digits longer than this are cut to a prefix: exact 128-bit counts (39 digits)
 * stay whole, a number pasted from a hostile file does not fill the screen. */
#define BPW_CLI_PRINT_MAX_DIGITS 64

/* @text as it may reach a terminal: control characters other than newline and tab (ESC
 * and the rest of C0, DEL, C1) become "\u001b", bytes that are not UTF-8 "\xff", and a run
 * of more than BPW_CLI_PRINT_MAX_DIGITS digits its first 20 and "… (N digits)". The
 * escapes are JSON's, so a JSON document passes through unchanged in meaning. */
char *bpw_cli_printable (const char *text);

/* Formats, then writes the printable form to @stream: every path that prints names,
 * paths or messages from input goes through here. */
void  bpw_cli_print     (FILE       *stream,
                         const char *format,
                         ...) G_GNUC_PRINTF (2, 3);

G_END_DECLS
