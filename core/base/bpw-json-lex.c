/* bpw-json-lex.c — the scalar tokens of BpwJsonDoc's parser: strings, numbers, literals
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-json-doc"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-json-doc-private.h"

void
bpw_json_parser_skip_ws (BpwJsonParser *self)
{
  while (self->p < self->end &&
         (*self->p == ' ' || *self->p == '\t' || *self->p == '\n' || *self->p == '\r'))
    bpw_json_parser_advance (self);
}

gboolean
bpw_json_parser_fail_at (BpwJsonParser *self,
                         guint          line,
                         guint          column,
                         const char    *format,
                         ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (self->error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "%s:%u:%u: %s",
               self->doc->filename, line, column, message);
  return FALSE;
}

/* "'x'", "U+000A" for invisible characters, or _("end of input"). */
static char *
describe_char (const char *p,
               const char *end)
{
  gunichar c;
  char buf[8];
  int len;

  if (p >= end)
    return g_strdup (_("end of input"));

  c = g_utf8_get_char (p);
  if (c < 0x20 || c == 0x7F)
    return g_strdup_printf ("U+%04X", c);

  len = g_unichar_to_utf8 (c, buf);
  buf[len] = '\0';
  return g_strdup_printf ("'%s'", buf);
}

/* Fails at the cursor with "expected WHAT, got <the character there>". */
gboolean
bpw_json_parser_expected (BpwJsonParser *self,
                          const char    *what)
{
  g_autofree char *got = describe_char (self->p, self->end);

  return bpw_json_parser_fail_at (self, self->line, self->column, _("expected %s, got %s"), what, got);
}

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Reads the four hex digits after "\u" at the cursor (which points at the backslash). */
static gboolean
parse_hex4 (BpwJsonParser *self,
            gunichar      *out)
{
  gunichar value = 0;

  if (self->end - self->p < 6 || self->p[1] != 'u')
    return FALSE;
  for (int i = 2; i < 6; i++)
    {
      int digit = hex_value (self->p[i]);

      if (digit < 0)
        return FALSE;
      value = value * 16 + (gunichar) digit;
    }
  *out = value;
  return TRUE;
}

static gboolean
parse_escape (BpwJsonParser *self,
              GString       *buf)
{
  guint line = self->line;
  guint column = self->column;
  gunichar cp;
  gunichar low;
  char c;

  if (self->end - self->p < 2)
    return bpw_json_parser_fail_at (self, line, column, _("unterminated escape at end of input"));

  c = self->p[1];
  switch (c)
    {
    case '"': g_string_append_c (buf, '"'); break;
    case '\\': g_string_append_c (buf, '\\'); break;
    case '/': g_string_append_c (buf, '/'); break;
    case 'b': g_string_append_c (buf, '\b'); break;
    case 'f': g_string_append_c (buf, '\f'); break;
    case 'n': g_string_append_c (buf, '\n'); break;
    case 'r': g_string_append_c (buf, '\r'); break;
    case 't': g_string_append_c (buf, '\t'); break;
    case 'u':
      if (!parse_hex4 (self, &cp))
        return bpw_json_parser_fail_at (self, line, column,
                                        _("expected four hex digits after '\\u' in string"));
      if (cp >= 0xDC00 && cp <= 0xDFFF)
        return bpw_json_parser_fail_at (self, line, column,
                                        _("unpaired surrogate '\\u%04X' in string"), cp);
      if (cp >= 0xD800 && cp <= 0xDBFF)
        {
          for (int i = 0; i < 6; i++)
            bpw_json_parser_advance (self);
          if (!parse_hex4 (self, &low) || self->p[0] != '\\' || low < 0xDC00 || low > 0xDFFF)
            return bpw_json_parser_fail_at (self, line, column,
                                            _("unpaired surrogate '\\u%04X' in string"), cp);
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
      /* GLib strings end at the first NUL, so an embedded one would silently truncate. */
      if (cp == 0)
        return bpw_json_parser_fail_at (self, line, column, _("'\\u0000' is not allowed in strings"));
      g_string_append_unichar (buf, cp);
      for (int i = 0; i < 6; i++)
        bpw_json_parser_advance (self);
      return TRUE;
    default:
      if (g_ascii_isgraph (c))
        return bpw_json_parser_fail_at (self, line, column, _("invalid escape '\\%c' in string"), c);
      else
        {
          g_autofree char *got = describe_char (self->p + 1, self->end);

          return bpw_json_parser_fail_at (self, line, column,
                                          _("invalid escape in string: '\\' followed by %s"), got);
        }
    }

  bpw_json_parser_advance (self);
  bpw_json_parser_advance (self);
  return TRUE;
}

/* The cursor is on the opening quote. */
gboolean
bpw_json_parse_string (BpwJsonParser  *self,
                       char          **out)
{
  guint line = self->line;
  guint column = self->column;
  g_autoptr(GString) buf = g_string_new (NULL);

  bpw_json_parser_advance (self);
  for (;;)
    {
      const char *run = self->p;

      while (self->p < self->end && *self->p != '"' && *self->p != '\\' &&
             (guchar) *self->p >= 0x20)
        bpw_json_parser_advance (self);
      g_string_append_len (buf, run, self->p - run);

      if (self->p >= self->end)
        return bpw_json_parser_fail_at (self, line, column, _("unterminated string"));
      if (*self->p == '"')
        break;
      if (*self->p == '\\')
        {
          if (!parse_escape (self, buf))
            return FALSE;
          continue;
        }
      return bpw_json_parser_fail_at (self, self->line, self->column,
                                      _("control character U+%04X in string must be escaped"),
                                      (guint) (guchar) *self->p);
    }
  bpw_json_parser_advance (self);

  *out = g_string_free (g_steal_pointer (&buf), FALSE);
  return TRUE;
}

static gboolean
scan_digits (BpwJsonParser *self)
{
  gboolean any = FALSE;

  while (self->p < self->end && g_ascii_isdigit (*self->p))
    {
      bpw_json_parser_advance (self);
      any = TRUE;
    }
  return any;
}

gboolean
bpw_json_parse_number (BpwJsonParser  *self,
                       JsonNode      **out)
{
  const char *start = self->p;
  guint line = self->line;
  guint column = self->column;
  gboolean integral = TRUE;
  g_autofree char *text = NULL;
  JsonNode *node;

  if (*self->p == '-')
    {
      bpw_json_parser_advance (self);
      if (self->p < self->end && *self->p == 'I')
        return bpw_json_parser_fail_at (self, line, column,
                                        _("NaN and Infinity are not valid JSON numbers"));
      if (self->p >= self->end || !g_ascii_isdigit (*self->p))
        return bpw_json_parser_expected (self, _("a digit after '-'"));
    }

  if (*self->p == '0')
    {
      bpw_json_parser_advance (self);
      if (self->p < self->end && g_ascii_isdigit (*self->p))
        return bpw_json_parser_fail_at (self, line, column,
                                        _("leading zeros are not allowed in numbers"));
    }
  else
    {
      scan_digits (self);
    }

  if (self->p < self->end && *self->p == '.')
    {
      integral = FALSE;
      bpw_json_parser_advance (self);
      if (!scan_digits (self))
        return bpw_json_parser_expected (self, _("a digit after '.'"));
    }

  if (self->p < self->end && (*self->p == 'e' || *self->p == 'E'))
    {
      integral = FALSE;
      bpw_json_parser_advance (self);
      if (self->p < self->end && (*self->p == '+' || *self->p == '-'))
        bpw_json_parser_advance (self);
      if (!scan_digits (self))
        return bpw_json_parser_expected (self, _("a digit in the exponent"));
    }

  text = g_strndup (start, self->p - start);
  node = json_node_new (JSON_NODE_VALUE);

  if (integral)
    {
      gint64 value;

      errno = 0;
      value = g_ascii_strtoll (text, NULL, 10);
      if (errno == 0)
        {
          json_node_set_int (node, value);
          *out = node;
          return TRUE;
        }
    }

  {
    /* Underflow to zero or a subnormal is harmless; overflow to infinity is not. */
    double value = g_ascii_strtod (text, NULL);

    if (!isfinite (value))
      {
        json_node_unref (node);
        return bpw_json_parser_fail_at (self, line, column, _("number %s is out of range"), text);
      }
    json_node_set_double (node, value);
  }

  *out = node;
  return TRUE;
}

gboolean
bpw_json_parse_word (BpwJsonParser  *self,
                     JsonNode      **out)
{
  const char *start = self->p;
  guint line = self->line;
  guint column = self->column;
  gsize len;

  while (self->p < self->end && (g_ascii_isalnum (*self->p) || *self->p == '_'))
    bpw_json_parser_advance (self);
  len = self->p - start;

  if (len == 4 && memcmp (start, "true", 4) == 0)
    {
      *out = json_node_init_boolean (json_node_alloc (), TRUE);
      return TRUE;
    }
  if (len == 5 && memcmp (start, "false", 5) == 0)
    {
      *out = json_node_init_boolean (json_node_alloc (), FALSE);
      return TRUE;
    }
  if (len == 4 && memcmp (start, "null", 4) == 0)
    {
      *out = json_node_init_null (json_node_alloc ());
      return TRUE;
    }
  if ((len == 3 && g_ascii_strncasecmp (start, "nan", 3) == 0) ||
      (len == 8 && g_ascii_strncasecmp (start, "infinity", 8) == 0))
    return bpw_json_parser_fail_at (self, line, column,
                                    _("NaN and Infinity are not valid JSON numbers"));

  {
    g_autofree char *word = g_strndup (start, MIN (len, 32));

    return bpw_json_parser_fail_at (self, line, column, _("expected a value, got '%s'"), word);
  }
}
