/* bpw-cli-print.c — what the `bpw` command line prints, made safe for a terminal
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Names, paths and numbers in messages come from files and the command line; printed raw,
 * an escape sequence in a model's name would drive the user's terminal, and a 100 000-digit
 * number would be echoed whole.
 */
#define G_LOG_DOMAIN "bpw-cli-print"

#include "config.h"

#include "bpw-cli-print.h"

#include <stdarg.h>
#include <string.h>

#define BPW_CLI_PRINT_KEPT_DIGITS 20

static gboolean
bpw_cli_print_is_control (gunichar c)
{
  return (c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c <= 0x9f);
}

char *
bpw_cli_printable (const char *text)
{
  GString *out = g_string_sized_new (strlen (text));
  const char *p = text;

  while (*p != '\0')
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      if (g_ascii_isdigit (*p))
        {
          gsize run = strspn (p, "0123456789");

          if (run > BPW_CLI_PRINT_MAX_DIGITS)
            {
              g_string_append_len (out, p, BPW_CLI_PRINT_KEPT_DIGITS);
              g_string_append_printf (out, "\xe2\x80\xa6 (%" G_GSIZE_FORMAT " digits)", run);
            }
          else
            g_string_append_len (out, p, (gssize) run);
          p += run;
        }
      else if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_printf (out, "\\x%02x", (guint) (guchar) *p);
          p++;
        }
      else
        {
          const char *next = g_utf8_next_char (p);

          if (bpw_cli_print_is_control (c))
            g_string_append_printf (out, "\\u%04x", (guint) c);
          else
            g_string_append_len (out, p, next - p);
          p = next;
        }
    }
  return g_string_free (out, FALSE);
}

void
bpw_cli_print (FILE       *stream,
               const char *format,
               ...)
{
  g_autofree char *text = NULL;
  g_autofree char *printable = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  printable = bpw_cli_printable (text);
  fputs (printable, stream);
}
