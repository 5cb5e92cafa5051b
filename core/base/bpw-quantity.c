/* bpw-quantity.c — physical quantities with units, as written in blueprints
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-quantity"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-quantity.h"

enum
{
  PREFIX_SMALL  = 1 << 0,  /* p n u µ m */
  PREFIX_LARGE  = 1 << 1,  /* k M G T P E */
  PREFIX_BINARY = 1 << 2,  /* Ki Mi Gi Ti Pi Ei */
};

typedef struct
{
  const char *symbol;
  BpwUnit     unit;
  double      scale;     /* base units per symbol */
  guint       prefixes;
} UnitDef;

static const UnitDef unit_defs[] = {
  { "B",      BPW_UNIT_BYTES,           1,     PREFIX_LARGE | PREFIX_BINARY },
  { "byte",   BPW_UNIT_BYTES,           1,     0 },
  { "bytes",  BPW_UNIT_BYTES,           1,     0 },
  { "B/s",    BPW_UNIT_BYTES_PER_S,     1,     PREFIX_LARGE | PREFIX_BINARY },
  { "b/s",    BPW_UNIT_BYTES_PER_S,     0.125, PREFIX_LARGE },  /* link rates in bits */
  { "bit/s",  BPW_UNIT_BYTES_PER_S,     0.125, PREFIX_LARGE },
  { "bps",    BPW_UNIT_BYTES_PER_S,     0.125, PREFIX_LARGE },
  { "FLOP/s", BPW_UNIT_FLOPS_PER_S,     1,     PREFIX_LARGE },
  { "FLOPS",  BPW_UNIT_FLOPS_PER_S,     1,     PREFIX_LARGE },
  { "FLOPs",  BPW_UNIT_FLOPS_PER_S,     1,     PREFIX_LARGE },
  { "flop/s", BPW_UNIT_FLOPS_PER_S,     1,     PREFIX_LARGE },
  { "s",      BPW_UNIT_SECONDS,         1,     PREFIX_SMALL },
  { "min",    BPW_UNIT_SECONDS,         60,    0 },
  { "h",      BPW_UNIT_SECONDS,         3600,  0 },
  { "W",      BPW_UNIT_WATTS,           1,     PREFIX_SMALL | PREFIX_LARGE },
  { "Hz",     BPW_UNIT_HERTZ,           1,     PREFIX_LARGE },
  { "J",      BPW_UNIT_JOULES,          1,     PREFIX_SMALL | PREFIX_LARGE },
  { "Wh",     BPW_UNIT_JOULES,          3600,  PREFIX_LARGE },
  { "J/FLOP", BPW_UNIT_JOULES_PER_FLOP, 1,     PREFIX_SMALL },
  { "J/flop", BPW_UNIT_JOULES_PER_FLOP, 1,     PREFIX_SMALL },
  { "J/B",    BPW_UNIT_JOULES_PER_BYTE, 1,     PREFIX_SMALL },
  { "J/byte", BPW_UNIT_JOULES_PER_BYTE, 1,     PREFIX_SMALL },
  { "J/bit",  BPW_UNIT_JOULES_PER_BYTE, 8,     PREFIX_SMALL },
  { "USD",    BPW_UNIT_DOLLARS,         1,     0 },
  { "$",      BPW_UNIT_DOLLARS,         1,     0 },
  { "%",      BPW_UNIT_NONE,            0.01,  0 },
};

typedef struct
{
  const char *symbol;
  double      factor;
  guint       kind;
} PrefixDef;

/* Two-letter binary prefixes come first so that "Mi" is not read as "M" + "iB". */
static const PrefixDef prefix_defs[] = {
  { "Ki", 1024.0,                   PREFIX_BINARY },
  { "Mi", 1048576.0,                PREFIX_BINARY },
  { "Gi", 1073741824.0,             PREFIX_BINARY },
  { "Ti", 1099511627776.0,          PREFIX_BINARY },
  { "Pi", 1125899906842624.0,       PREFIX_BINARY },
  { "Ei", 1152921504606846976.0,    PREFIX_BINARY },
  { "p",  1e-12,                    PREFIX_SMALL },
  { "n",  1e-9,                     PREFIX_SMALL },
  { "u",  1e-6,                     PREFIX_SMALL },
  { "\xC2\xB5", 1e-6,               PREFIX_SMALL },  /* U+00B5 MICRO SIGN */
  { "\xCE\xBC", 1e-6,               PREFIX_SMALL },  /* U+03BC GREEK SMALL LETTER MU */
  { "m",  1e-3,                     PREFIX_SMALL },
  { "k",  1e3,                      PREFIX_LARGE },
  { "K",  1e3,                      PREFIX_LARGE },
  { "M",  1e6,                      PREFIX_LARGE },
  { "G",  1e9,                      PREFIX_LARGE },
  { "T",  1e12,                     PREFIX_LARGE },
  { "P",  1e15,                     PREFIX_LARGE },
  { "E",  1e18,                     PREFIX_LARGE },
};

static const struct
{
  const char *symbol;
  const char *noun;
  const char *describe;
} unit_info[] = {
  [BPW_UNIT_NONE]            = { "",       N_("a number"),             N_("a number such as \"0.65\"") },
  [BPW_UNIT_BYTES]           = { "B",      N_("a size"),               N_("a size such as \"80 GiB\"") },
  [BPW_UNIT_BYTES_PER_S]     = { "B/s",    N_("a bandwidth"),
                                 N_("a bandwidth such as \"3.35 TB/s\"") },
  [BPW_UNIT_FLOPS_PER_S]     = { "FLOP/s", N_("a compute rate"),
                                 N_("a compute rate such as \"989.4 TFLOP/s\"") },
  [BPW_UNIT_SECONDS]         = { "s",      N_("a time"),               N_("a time such as \"10 us\"") },
  [BPW_UNIT_WATTS]           = { "W",      N_("a power"),              N_("a power such as \"700 W\"") },
  [BPW_UNIT_HERTZ]           = { "Hz",     N_("a frequency"),
                                 N_("a frequency such as \"2 GHz\"") },
  [BPW_UNIT_JOULES]          = { "J",      N_("an energy"),            N_("an energy such as \"1.5 kJ\"") },
  [BPW_UNIT_JOULES_PER_FLOP] = { "J/FLOP", N_("an energy per FLOP"),
                                 N_("an energy per FLOP such as \"0.5 pJ/FLOP\"") },
  [BPW_UNIT_JOULES_PER_BYTE] = { "J/B",    N_("an energy per byte"),
                                 N_("an energy per byte such as \"10 pJ/B\"") },
  [BPW_UNIT_DOLLARS]         = { "$",      N_("a price"),              N_("a price such as \"$2.50\"") },
};

const char *
bpw_unit_describe (BpwUnit unit)
{
  g_return_val_if_fail (unit <= BPW_UNIT_DOLLARS, "a number");

  return _(unit_info[unit].describe);
}

const char *
bpw_unit_symbol (BpwUnit unit)
{
  g_return_val_if_fail (unit <= BPW_UNIT_DOLLARS, "");

  return unit_info[unit].symbol;
}

const char *
bpw_provenance_kind_to_string (BpwProvenanceKind kind)
{
  static const char * const names[] = { "datasheet", "estimate", "calibrated", "measured" };

  g_return_val_if_fail (kind <= BPW_PROVENANCE_MEASURED, NULL);

  return names[kind];
}

/* Resolves a unit symbol, possibly prefixed, to its dimension and scale. */
static gboolean
lookup_unit (const char *symbol,
             BpwUnit    *unit,
             double     *scale)
{
  for (guint i = 0; i < G_N_ELEMENTS (unit_defs); i++)
    if (strcmp (symbol, unit_defs[i].symbol) == 0)
      {
        *unit = unit_defs[i].unit;
        *scale = unit_defs[i].scale;
        return TRUE;
      }

  for (guint p = 0; p < G_N_ELEMENTS (prefix_defs); p++)
    {
      gsize len = strlen (prefix_defs[p].symbol);

      if (strncmp (symbol, prefix_defs[p].symbol, len) != 0)
        continue;
      for (guint i = 0; i < G_N_ELEMENTS (unit_defs); i++)
        if ((unit_defs[i].prefixes & prefix_defs[p].kind) != 0 &&
            strcmp (symbol + len, unit_defs[i].symbol) == 0)
          {
            *unit = unit_defs[i].unit;
            *scale = unit_defs[i].scale * prefix_defs[p].factor;
            return TRUE;
          }
    }
  return FALSE;
}

/* Scans [+-]digits[.digits][e[+-]digits] at @p; returns its end, or NULL if none is there.
 * Hand-written so that "nan", "inf" and hex, which strtod would take, are refused. */
static const char *
scan_number (const char *p)
{
  gboolean digits = FALSE;

  if (*p == '+' || *p == '-')
    p++;
  while (g_ascii_isdigit (*p))
    p++, digits = TRUE;
  if (*p == '.')
    {
      p++;
      while (g_ascii_isdigit (*p))
        p++, digits = TRUE;
    }
  if (!digits)
    return NULL;
  if (*p == 'e' || *p == 'E')
    {
      const char *q = p + 1;

      if (*q == '+' || *q == '-')
        q++;
      if (!g_ascii_isdigit (*q))
        return NULL;
      while (g_ascii_isdigit (*q))
        q++;
      p = q;
    }
  return p;
}

/* Rounds @bytes to whole bytes when it is one up to a rounding error; FALSE when it has a
 * real fraction. Beyond 2^53 every double is whole. */
static gboolean
bpw_quantity_whole_bytes (double *bytes)
{
  double whole = nearbyint (*bytes);

  if (fabs (*bytes - whole) > 1e-9 * fabs (whole))
    return FALSE;
  *bytes = whole;
  return TRUE;
}

gboolean
bpw_quantity_parse (const char  *text,
                    BpwUnit      expected,
                    double      *value,
                    GError     **error)
{
  g_autofree char *number = NULL;
  g_autofree char *symbol = NULL;
  const char *p;
  const char *end;
  gboolean dollar = FALSE;
  gboolean negative = FALSE;
  BpwUnit unit = BPW_UNIT_NONE;
  double scale = 1;
  double result;
  /* Messages are shown in the GUI and written to JSON: keep them UTF-8 whatever came in. */
  g_autofree char *shown = NULL;

  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (expected <= BPW_UNIT_DOLLARS, FALSE);
  g_return_val_if_fail (value != NULL, FALSE);

  p = text;
  while (g_ascii_isspace (*p))
    p++;
  /* "-$2.50" is how bpw_quantity_format writes a negative price; "$-2.50" is read too. */
  if (p[0] == '-' && p[1] == '$')
    {
      negative = TRUE;
      p++;
    }
  if (*p == '$')
    {
      dollar = TRUE;
      p++;
    }
  if (negative && (*p == '-' || *p == '+'))
    goto fail;

  end = scan_number (p);
  if (end == NULL)
    goto fail;
  number = g_strndup (p, end - p);

  while (g_ascii_isspace (*end))
    end++;
  symbol = g_strchomp (g_strdup (end));

  if (dollar)
    {
      if (symbol[0] != '\0')
        goto fail;
      unit = BPW_UNIT_DOLLARS;
    }
  else if (symbol[0] != '\0')
    {
      if (!lookup_unit (symbol, &unit, &scale))
        goto fail;
    }
  else if (expected != BPW_UNIT_NONE)
    {
      /* A bare number in a string is most likely a forgotten unit, not base units. */
      goto fail;
    }

  if (unit != expected)
    goto fail;

  result = g_ascii_strtod (number, NULL) * scale;
  if (negative)
    result = -result;
  if (!isfinite (result))
    {
      shown = g_utf8_make_valid (text, -1);
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("the value \"%s\" is out of range"),
                   shown);
      return FALSE;
    }

  /* Bytes are counted: "0.5 B" or "1.5 B" is no size. A decimal prefix may leave a
   * rounding error ("3.35 GB" is 3350000000.0000005 in binary), which is not a fraction. */
  if (unit == BPW_UNIT_BYTES && !bpw_quantity_whole_bytes (&result))
    {
      shown = g_utf8_make_valid (text, -1);
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("expected a whole number of bytes, got \"%s\""), shown);
      return FALSE;
    }

  *value = result;
  return TRUE;

fail:
  shown = g_utf8_make_valid (text, -1);
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("expected %s, got \"%s\""),
               _(unit_info[expected].describe), shown);
  return FALSE;
}

/* %.4g, which drops trailing zeros; never uses the current locale's decimal point. */
static char *
format_sig4 (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (buf, sizeof buf, "%.4g", value);
  return g_strdup (buf);
}

/* "80 GiB" when @value is a whole number of binary units with at most 4 significant digits. */
static char *
format_binary_bytes (double value)
{
  static const char * const names[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  double magnitude = fabs (value);
  double factor = 1024.0;
  int level = 0;
  g_autofree char *mantissa = NULL;
  double q;

  if (magnitude < 1024.0)
    return NULL;
  while (level < 5 && magnitude >= factor * 1024.0)
    {
      factor *= 1024.0;
      level++;
    }

  /* Dividing by a power of two is exact, so the check below is exact too. */
  q = value / factor;
  mantissa = format_sig4 (q);
  if (g_ascii_strtod (mantissa, NULL) != q)
    return NULL;
  return g_strdup_printf ("%s %s", mantissa, names[level]);
}

char *
bpw_quantity_format (double  value,
                     BpwUnit unit)
{
  static const char * const names[] = { "p", "n", "\xC2\xB5", "m", "", "k", "M", "G", "T",
                                        "P", "E" };
  static const double factors[] = { 1e-12, 1e-9, 1e-6, 1e-3, 1, 1e3, 1e6, 1e9, 1e12, 1e15,
                                    1e18 };
  const int base = 4;  /* index of the empty prefix */
  const char *symbol;
  int lowest = base;
  int highest = base;
  int level;

  g_return_val_if_fail (unit <= BPW_UNIT_DOLLARS, NULL);

  symbol = unit_info[unit].symbol;

  if (unit == BPW_UNIT_DOLLARS)
    {
      /* "%.2f" writes every integer digit: up to 309 for G_MAXDOUBLE. Cents are exact up to
       * a trillion dollars; beyond, 4 significant digits as for every other unit. */
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      g_ascii_formatd (buf, sizeof buf, fabs (value) < 1e12 ? "%.2f" : "%.4g", fabs (value));
      return g_strdup_printf ("%s$%s", value < 0 ? "-" : "", buf);
    }
  if (unit == BPW_UNIT_NONE || !isfinite (value))
    {
      g_autofree char *number = format_sig4 (value);

      return unit == BPW_UNIT_NONE ? g_steal_pointer (&number)
                                   : g_strdup_printf ("%s %s", number, symbol);
    }
  if (value == 0)
    return g_strdup_printf ("0 %s", symbol);

  if (unit == BPW_UNIT_BYTES)
    {
      char *binary = format_binary_bytes (value);

      if (binary != NULL)
        return binary;
    }

  /* Which prefixes read naturally for each dimension. */
  switch (unit)
    {
    case BPW_UNIT_SECONDS:
    case BPW_UNIT_JOULES_PER_FLOP:
    case BPW_UNIT_JOULES_PER_BYTE:
      lowest = 0;
      break;
    case BPW_UNIT_WATTS:
    case BPW_UNIT_JOULES:
      lowest = 0;
      highest = G_N_ELEMENTS (names) - 1;
      break;
    case BPW_UNIT_NONE:
    case BPW_UNIT_DOLLARS:
      break;
    case BPW_UNIT_BYTES:
    case BPW_UNIT_BYTES_PER_S:
    case BPW_UNIT_FLOPS_PER_S:
    case BPW_UNIT_HERTZ:
    default:
      highest = G_N_ELEMENTS (names) - 1;
      break;
    }

  level = base + (int) floor (log10 (fabs (value)) / 3.0);
  level = CLAMP (level, lowest, highest);

  for (;;)
    {
      g_autofree char *mantissa = format_sig4 (value / factors[level]);

      /* 999.96 rounds up to "1000": print it as 1 of the next prefix instead. */
      if (fabs (g_ascii_strtod (mantissa, NULL)) >= 1000.0 && level < highest)
        {
          level++;
          continue;
        }
      /* Large times read better as whole seconds than as "1.235e+04 s", up to about a
       * year; "%.0f" of a huge time would print hundreds of digits. */
      if (unit == BPW_UNIT_SECONDS && fabs (value) >= 1000.0 && fabs (value) < 1e8)
        return g_strdup_printf ("%.0f s", value);
      return g_strdup_printf ("%s %s%s", mantissa, names[level], symbol);
    }
}

/* "a bandwidth between 1 B/s and 10 TB/s" and the like, for range errors. */
static char *
describe_range (BpwUnit unit,
                double  min,
                double  max)
{
  const char *noun = _(unit_info[unit].noun);
  g_autofree char *lo = bpw_quantity_format (min, unit);
  g_autofree char *hi = bpw_quantity_format (max, unit);
  gboolean open_max = max >= G_MAXDOUBLE;
  gboolean open_min = min <= -G_MAXDOUBLE;

  if (open_max && open_min)
    return g_strdup (noun);
  if (open_max && min == G_MINDOUBLE)
    return g_strdup_printf (_("%s greater than zero"), noun);
  if (open_max)
    return g_strdup_printf (_("%s of at least %s"), noun, lo);
  if (open_min)
    return g_strdup_printf (_("%s of at most %s"), noun, hi);
  return g_strdup_printf (_("%s between %s and %s"), noun, lo, hi);
}

/* Reads a number or a string with a unit from @node; @path names it in messages. */
static gboolean
read_quantity_value (BpwJsonDoc  *doc,
                     JsonNode    *node,
                     const char  *path,
                     BpwUnit      expected,
                     double      *out,
                     GError     **error)
{
  if (JSON_NODE_HOLDS_VALUE (node))
    {
      GType type = json_node_get_value_type (node);

      if (type == G_TYPE_INT64 || type == G_TYPE_DOUBLE)
        {
          *out = json_node_get_double (node);
          if (expected == BPW_UNIT_BYTES && isfinite (*out) && !bpw_quantity_whole_bytes (out))
            return bpw_json_doc_error (doc, node, path, error,
                                       _("expected a whole number of bytes, got %.17g"), *out);
          return TRUE;
        }
      if (type == G_TYPE_STRING)
        {
          g_autoptr(GError) local = NULL;

          if (bpw_quantity_parse (json_node_get_string (node), expected, out, &local))
            return TRUE;
          return bpw_json_doc_error (doc, node, path, error, "%s", local->message);
        }
    }

  {
    g_autofree char *got = bpw_json_doc_describe_node (node);

    return bpw_json_doc_error (doc, node, path, error, _("expected %s, got %s"),
                               _(unit_info[expected].describe), got);
  }
}

gboolean
bpw_json_doc_get_quantity (BpwJsonDoc  *doc,
                           JsonObject  *object,
                           const char  *path,
                           const char  *member,
                           gboolean     required,
                           BpwUnit      expected,
                           double       min,
                           double       max,
                           double      *out,
                           char       **source,
                           int         *kind,
                           GError     **error)
{
  static const char * const known[] = { "value", "source", "kind", "note", NULL };
  static const char * const kinds[] = { "datasheet", "estimate", "calibrated", "measured", NULL };
  g_autofree char *full = NULL;
  g_autofree char *value_path = NULL;
  JsonNode *node;
  JsonNode *value_node;
  const char *source_str = NULL;
  int kind_index = -1;
  double value;

  g_return_val_if_fail (expected <= BPW_UNIT_DOLLARS, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  if (!bpw_json_doc_get_member (doc, object, path, member, required, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;

  full = bpw_json_doc_member_path (path, member);
  value_node = node;
  value_path = g_strdup (full);

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *prov = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (prov);

      /* A misspelt "sorce" would otherwise drop the provenance without a word. */
      for (const GList *l = members; l != NULL; l = l->next)
        if (!g_strv_contains (known, l->data))
          {
            g_autofree char *bad = bpw_json_doc_member_path (full, l->data);

            return bpw_json_doc_error (doc, json_object_get_member (prov, l->data), bad, error,
                                       _("unknown field; a quantity object has \"value\", "
                                       "\"source\", \"kind\" and \"note\""));
          }

      if (!bpw_json_doc_get_member (doc, prov, full, "value", TRUE, &value_node, error) ||
          !bpw_json_doc_get_string (doc, prov, full, "source", FALSE, &source_str, error) ||
          !bpw_json_doc_get_enum (doc, prov, full, "kind", FALSE, kinds, &kind_index, error))
        return FALSE;

      g_free (value_path);
      value_path = bpw_json_doc_member_path (full, "value");
    }

  if (!read_quantity_value (doc, value_node, value_path, expected, &value, error))
    return FALSE;

  if (!isfinite (value) || value < min || value > max)
    {
      g_autofree char *range = describe_range (expected, min, max);
      g_autofree char *got = bpw_quantity_format (value, expected);

      return bpw_json_doc_error (doc, value_node, value_path, error, _("expected %s, got %s"),
                                 range, got);
    }

  *out = value;
  if (source != NULL)
    *source = g_strdup (source_str);
  if (kind != NULL)
    *kind = kind_index;
  return TRUE;
}
