/* test-quantity.c — quantities with units: parsing, formatting and located reading
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-quantity"

#include "config.h"

#include <math.h>

#include "bpw-error.h"
#include "bpw-quantity.h"

typedef struct
{
  const char *text;
  BpwUnit     unit;
  double      value;
} ParseCase;

/* Expected values are the written number times the unit's definition. */
static const ParseCase parse_cases[] = {
  { "3.35 TB/s",      BPW_UNIT_BYTES_PER_S,     3.35e12 },
  { "80 GiB",         BPW_UNIT_BYTES,           80.0 * 1024 * 1024 * 1024 },
  { "80GiB",          BPW_UNIT_BYTES,           80.0 * 1024 * 1024 * 1024 },
  { "989.4 TFLOP/s",  BPW_UNIT_FLOPS_PER_S,     989.4e12 },
  { "989.4 TFLOPS",   BPW_UNIT_FLOPS_PER_S,     989.4e12 },
  { "700 W",          BPW_UNIT_WATTS,           700 },
  { "10 us",          BPW_UNIT_SECONDS,         10e-6 },
  { "10 \xC2\xB5s",   BPW_UNIT_SECONDS,         10e-6 },
  { "10 \xCE\xBCs",   BPW_UNIT_SECONDS,         10e-6 },
  { "1.5 ms",         BPW_UNIT_SECONDS,         1.5e-3 },
  { "20 ns",          BPW_UNIT_SECONDS,         20e-9 },
  { "  2 h ",         BPW_UNIT_SECONDS,         7200 },
  { "3 min",          BPW_UNIT_SECONDS,         180 },
  { "2 GHz",          BPW_UNIT_HERTZ,           2e9 },
  { "128 KiB",        BPW_UNIT_BYTES,           131072 },
  { "50 MB",          BPW_UNIT_BYTES,           50e6 },
  { "4 kB",           BPW_UNIT_BYTES,           4000 },
  { "512 B",          BPW_UNIT_BYTES,           512 },
  { "25 GB/s",        BPW_UNIT_BYTES_PER_S,     25e9 },
  { "400 Gb/s",       BPW_UNIT_BYTES_PER_S,     50e9 },
  { "1 GiB/s",        BPW_UNIT_BYTES_PER_S,     1073741824.0 },
  { "1e-5 s",         BPW_UNIT_SECONDS,         1e-5 },
  { "0.65",           BPW_UNIT_NONE,            0.65 },
  { "65 %",           BPW_UNIT_NONE,            0.65 },
  { "-3",             BPW_UNIT_NONE,            -3 },
  { "$2.50",          BPW_UNIT_DOLLARS,         2.5 },
  { "2.5 USD",        BPW_UNIT_DOLLARS,         2.5 },
  { "0.5 pJ/FLOP",    BPW_UNIT_JOULES_PER_FLOP, 0.5e-12 },
  { "10 pJ/B",        BPW_UNIT_JOULES_PER_BYTE, 10e-12 },
  { "1 pJ/bit",       BPW_UNIT_JOULES_PER_BYTE, 8e-12 },
  { "1 kWh",          BPW_UNIT_JOULES,          3.6e6 },
  { "1.5 kJ",         BPW_UNIT_JOULES,          1500 },
  { "1.2 MW",         BPW_UNIT_WATTS,           1.2e6 },
  { ".5 s",           BPW_UNIT_SECONDS,         0.5 },
};

static void
test_parse (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (parse_cases); i++)
    {
      const ParseCase *c = &parse_cases[i];
      g_autoptr(GError) error = NULL;
      double value = NAN;

      g_test_message ("parsing \"%s\"", c->text);
      g_assert_true (bpw_quantity_parse (c->text, c->unit, &value, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat_with_epsilon (value, c->value, fabs (c->value) * 1e-12);
    }
}

typedef struct
{
  const char *text;
  BpwUnit     unit;
  const char *message;
} ErrorCase;

static const ErrorCase error_cases[] = {
  { "80 GiB", BPW_UNIT_BYTES_PER_S,
    "expected a bandwidth such as \"3.35 TB/s\", got \"80 GiB\"" },
  { "3.35 TB/s", BPW_UNIT_BYTES, "expected a size such as \"80 GiB\", got \"3.35 TB/s\"" },
  { "3.35", BPW_UNIT_BYTES_PER_S, "expected a bandwidth such as \"3.35 TB/s\", got \"3.35\"" },
  { "700 W", BPW_UNIT_FLOPS_PER_S,
    "expected a compute rate such as \"989.4 TFLOP/s\", got \"700 W\"" },
  { "10 W", BPW_UNIT_SECONDS, "expected a time such as \"10 us\", got \"10 W\"" },
  { "10 s", BPW_UNIT_WATTS, "expected a power such as \"700 W\", got \"10 s\"" },
  { "2 GB", BPW_UNIT_HERTZ, "expected a frequency such as \"2 GHz\", got \"2 GB\"" },
  { "abc", BPW_UNIT_BYTES, "expected a size such as \"80 GiB\", got \"abc\"" },
  { "", BPW_UNIT_NONE, "expected a number such as \"0.65\", got \"\"" },
  { "nan", BPW_UNIT_NONE, "expected a number such as \"0.65\", got \"nan\"" },
  { "inf B", BPW_UNIT_BYTES, "expected a size such as \"80 GiB\", got \"inf B\"" },
  { "0x10 B", BPW_UNIT_BYTES, "expected a size such as \"80 GiB\", got \"0x10 B\"" },
  { "5 mB", BPW_UNIT_BYTES, "expected a size such as \"80 GiB\", got \"5 mB\"" },
  { "5 XB", BPW_UNIT_BYTES, "expected a size such as \"80 GiB\", got \"5 XB\"" },
  { "5 GiHz", BPW_UNIT_HERTZ, "expected a frequency such as \"2 GHz\", got \"5 GiHz\"" },
  { "1.5.2 s", BPW_UNIT_SECONDS, "expected a time such as \"10 us\", got \"1.5.2 s\"" },
  { "1e s", BPW_UNIT_SECONDS, "expected a time such as \"10 us\", got \"1e s\"" },
  { "$2 USD", BPW_UNIT_DOLLARS, "expected a price such as \"$2.50\", got \"$2 USD\"" },
  { "1e999 B", BPW_UNIT_BYTES, "the value \"1e999 B\" is out of range" },
  { "0.5 B", BPW_UNIT_BYTES, "expected a whole number of bytes, got \"0.5 B\"" },
  { "1024.5 B", BPW_UNIT_BYTES, "expected a whole number of bytes, got \"1024.5 B\"" },
  { "1 pJ", BPW_UNIT_JOULES_PER_FLOP,
    "expected an energy per FLOP such as \"0.5 pJ/FLOP\", got \"1 pJ\"" },
};

static void
test_parse_errors (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (error_cases); i++)
    {
      const ErrorCase *c = &error_cases[i];
      g_autoptr(GError) error = NULL;
      double value = 42;

      g_test_message ("parsing \"%s\"", c->text);
      g_assert_false (bpw_quantity_parse (c->text, c->unit, &value, &error));
      g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
      g_assert_cmpstr (error->message, ==, c->message);
      g_assert_cmpfloat (value, ==, 42);
    }
}

typedef struct
{
  double      value;
  BpwUnit     unit;
  const char *text;
} FormatCase;

static const FormatCase format_cases[] = {
  { 3.35e12,                          BPW_UNIT_BYTES_PER_S,     "3.35 TB/s" },
  { 80.0 * 1024 * 1024 * 1024,        BPW_UNIT_BYTES,           "80 GiB" },
  { 1.5 * 1024,                       BPW_UNIT_BYTES,           "1.5 KiB" },
  { 1024.0 * 1024 * 1024 * 1024,      BPW_UNIT_BYTES,           "1 TiB" },
  { 1e12,                             BPW_UNIT_BYTES,           "1 TB" },
  { 50e6,                             BPW_UNIT_BYTES,           "50 MB" },
  { 1000,                             BPW_UNIT_BYTES,           "1 kB" },
  { 512,                              BPW_UNIT_BYTES,           "512 B" },
  { 989.4e12,                         BPW_UNIT_FLOPS_PER_S,     "989.4 TFLOP/s" },
  { 999.96e9,                         BPW_UNIT_FLOPS_PER_S,     "1 TFLOP/s" },
  { 27.3,                             BPW_UNIT_SECONDS,         "27.3 s" },
  { 336.8e-6,                         BPW_UNIT_SECONDS,         "336.8 \xC2\xB5s" },
  { 1e-5,                             BPW_UNIT_SECONDS,         "10 \xC2\xB5s" },
  { 1.5e-3,                           BPW_UNIT_SECONDS,         "1.5 ms" },
  { 12345,                            BPW_UNIT_SECONDS,         "12345 s" },
  { 0,                                BPW_UNIT_SECONDS,         "0 s" },
  { 700,                              BPW_UNIT_WATTS,           "700 W" },
  { 2e9,                              BPW_UNIT_HERTZ,           "2 GHz" },
  { 0.5e-12,                          BPW_UNIT_JOULES_PER_FLOP, "0.5 pJ/FLOP" },
  { 10e-12,                           BPW_UNIT_JOULES_PER_BYTE, "10 pJ/B" },
  { 1500,                             BPW_UNIT_JOULES,          "1.5 kJ" },
  { 0.65,                             BPW_UNIT_NONE,            "0.65" },
  { 2.5,                              BPW_UNIT_DOLLARS,         "$2.50" },
  { -3e9,                             BPW_UNIT_BYTES_PER_S,     "-3 GB/s" },
  { 123456789,                        BPW_UNIT_BYTES,           "123.5 MB" },
  /* Never hundreds of digits: a time or a price beyond its whole-number range. */
  { 99999999,                         BPW_UNIT_SECONDS,         "99999999 s" },
  { 1e300,                            BPW_UNIT_SECONDS,         "1e+300 s" },
  { 123456789012.5,                   BPW_UNIT_DOLLARS,         "$123456789012.50" },
  { 1e300,                            BPW_UNIT_DOLLARS,         "$1e+300" },
  { -G_MAXDOUBLE,                     BPW_UNIT_DOLLARS,         "-$1.798e+308" },
};

static void
test_format (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (format_cases); i++)
    {
      g_autofree char *text = bpw_quantity_format (format_cases[i].value, format_cases[i].unit);

      g_assert_cmpstr (text, ==, format_cases[i].text);
    }
}

/* Formatting keeps 4 significant digits, so parsing it back is within half a unit in the
 * 4th digit: relative error at most 5e-4. */
static void
test_round_trip (void)
{
  static const BpwUnit units[] = {
    BPW_UNIT_NONE, BPW_UNIT_BYTES, BPW_UNIT_BYTES_PER_S, BPW_UNIT_FLOPS_PER_S,
    BPW_UNIT_SECONDS, BPW_UNIT_WATTS, BPW_UNIT_HERTZ, BPW_UNIT_JOULES,
    BPW_UNIT_JOULES_PER_FLOP, BPW_UNIT_JOULES_PER_BYTE,
  };

  for (guint u = 0; u < G_N_ELEMENTS (units); u++)
    for (int e = -14; e <= 20; e++)
      for (double m = 1.0; m < 10.0; m += 0.737)
        {
          double value = m * pow (10, e);
          g_autofree char *text = bpw_quantity_format (value, units[u]);
          g_autoptr(GError) error = NULL;
          double back = NAN;

          /* Bytes are whole: "173.7 B" is refused by design (below 1000 B four digits may
           * hold a fraction). */
          if (units[u] == BPW_UNIT_BYTES && e < 3)
            continue;
          if (!bpw_quantity_parse (text, units[u], &back, &error))
            g_error ("\"%s\" does not parse back: %s", text, error->message);
          g_assert_cmpfloat (fabs (back - value), <=, 5e-4 * value);
        }

  /* Exact binary sizes come back exactly. */
  for (int k = 10; k <= 60; k++)
    {
      double value = ldexp (3, k);
      g_autofree char *text = bpw_quantity_format (value, BPW_UNIT_BYTES);
      double back = 0;

      g_assert_true (bpw_quantity_parse (text, BPW_UNIT_BYTES, &back, NULL));
      g_assert_cmpfloat (back, ==, value);
    }
}

static const char quantity_text[] =
  "{\n"
  "  \"hbm\": {\n"                                         /* 2:10 */
  "    \"bandwidth\": \"3.35 TB/s\",\n"                    /* 3:18 */
  "    \"capacity\": 85899345920,\n"                       /* 4:17 */
  "    \"peak\": {\"value\": \"989.4 TFLOP/s\", \"source\": \"NVIDIA H100 datasheet (2023)\",\n"
  "             \"kind\": \"datasheet\"},\n"                /* value at 5:23 */
  "    \"latency\": {\"value\": 1e-6},\n"                   /* 7:25 */
  "    \"bad\": \"80 GiB\",\n"                              /* 8:12 */
  "    \"neg\": \"-3 TB/s\",\n"                             /* 9:12 */
  "    \"flag\": true,\n"                                   /* 10:13 */
  "    \"typo\": {\"value\": 1, \"sorce\": \"x\"},\n"       /* sorce's value at 11:35 */
  "    \"kindbad\": {\"value\": 1, \"kind\": \"guess\"},\n" /* 12:37 */
  "    \"novalue\": {\"source\": \"x\"}\n"                 /* 13:16 */
  "  }\n"
  "}\n";

static void
assert_message (GError     **error,
                const char  *expected)
{
  g_assert_error (*error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_cmpstr ((*error)->message, ==, expected);
  g_clear_error (error);
}

static void
test_json_quantity (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwJsonDoc) doc = bpw_json_doc_new_from_data ("h100.json", quantity_text, -1, &error);
  JsonObject *hbm;
  double v = 0;
  char *source = NULL;
  int kind = 99;

  g_assert_no_error (error);
  hbm = json_object_get_object_member (json_node_get_object (bpw_json_doc_get_root (doc)), "hbm");

  g_assert_true (bpw_json_doc_get_quantity (doc, hbm, "hbm", "bandwidth", TRUE,
                                            BPW_UNIT_BYTES_PER_S, G_MINDOUBLE, G_MAXDOUBLE, &v,
                                            &source, &kind, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (v, 3.35e12, 1);
  g_assert_null (source);
  g_assert_cmpint (kind, ==, -1);

  g_assert_true (bpw_json_doc_get_quantity (doc, hbm, "hbm", "capacity", TRUE, BPW_UNIT_BYTES,
                                            0, G_MAXDOUBLE, &v, NULL, NULL, &error));
  g_assert_cmpfloat (v, ==, 80.0 * 1024 * 1024 * 1024);

  g_assert_true (bpw_json_doc_get_quantity (doc, hbm, "hbm", "peak", TRUE, BPW_UNIT_FLOPS_PER_S,
                                            0, G_MAXDOUBLE, &v, &source, &kind, &error));
  g_assert_cmpfloat_with_epsilon (v, 989.4e12, 1);
  g_assert_cmpstr (source, ==, "NVIDIA H100 datasheet (2023)");
  g_assert_cmpint (kind, ==, BPW_PROVENANCE_DATASHEET);
  g_clear_pointer (&source, g_free);

  g_assert_true (bpw_json_doc_get_quantity (doc, hbm, "hbm", "latency", TRUE, BPW_UNIT_SECONDS,
                                            0, 1, &v, &source, &kind, &error));
  g_assert_cmpfloat (v, ==, 1e-6);
  g_assert_null (source);
  g_assert_cmpint (kind, ==, -1);

  v = 7;
  g_assert_true (bpw_json_doc_get_quantity (doc, hbm, "hbm", "absent", FALSE, BPW_UNIT_SECONDS,
                                            0, 1, &v, NULL, NULL, &error));
  g_assert_cmpfloat (v, ==, 7);

  g_assert_false (bpw_json_doc_get_quantity (doc, hbm, "hbm", "absent", TRUE, BPW_UNIT_SECONDS,
                                             0, 1, &v, NULL, NULL, &error));
  assert_message (&error, "h100.json:2:10: hbm: missing required field 'absent'");
  g_assert_false (bpw_json_doc_get_quantity (doc, hbm, "hbm", "bad", TRUE, BPW_UNIT_BYTES_PER_S,
                                             0, G_MAXDOUBLE, &v, NULL, NULL, &error));
  assert_message (&error, "h100.json:8:12: hbm.bad: expected a bandwidth such as \"3.35 TB/s\", "
                          "got \"80 GiB\"");
  g_assert_false (bpw_json_doc_get_quantity (doc, hbm, "hbm", "neg", TRUE, BPW_UNIT_BYTES_PER_S,
                                             G_MINDOUBLE, G_MAXDOUBLE, &v, NULL, NULL, &error));
  assert_message (&error, "h100.json:9:12: hbm.neg: expected a bandwidth greater than zero, "
                          "got -3 TB/s");
  g_assert_false (bpw_json_doc_get_quantity (doc, hbm, "hbm", "bandwidth", TRUE,
                                             BPW_UNIT_BYTES_PER_S, 0, 1e12, &v, NULL, NULL,
                                             &error));
  assert_message (&error, "h100.json:3:18: hbm.bandwidth: expected a bandwidth between 0 B/s "
                          "and 1 TB/s, got 3.35 TB/s");
  g_assert_false (bpw_json_doc_get_quantity (doc, hbm, "hbm", "peak", TRUE, BPW_UNIT_FLOPS_PER_S,
                                             1e15, G_MAXDOUBLE, &v, NULL, NULL, &error));
  assert_message (&error, "h100.json:5:23: hbm.peak.value: expected a compute rate of at least "
                          "1 PFLOP/s, got 989.4 TFLOP/s");
  g_assert_false (bpw_json_doc_get_quantity (doc, hbm, "hbm", "flag", TRUE, BPW_UNIT_WATTS,
                                             0, G_MAXDOUBLE, &v, NULL, NULL, &error));
  assert_message (&error, "h100.json:10:13: hbm.flag: expected a power such as \"700 W\", "
                          "got true");
  g_assert_false (bpw_json_doc_get_quantity (doc, hbm, "hbm", "typo", TRUE, BPW_UNIT_NONE,
                                             0, G_MAXDOUBLE, &v, NULL, NULL, &error));
  assert_message (&error, "h100.json:11:35: hbm.typo.sorce: unknown field; a quantity object "
                          "has \"value\", \"source\", \"kind\" and \"note\"");
  g_assert_false (bpw_json_doc_get_quantity (doc, hbm, "hbm", "kindbad", TRUE, BPW_UNIT_NONE,
                                             0, G_MAXDOUBLE, &v, NULL, NULL, &error));
  assert_message (&error, "h100.json:12:37: hbm.kindbad.kind: expected one of \"datasheet\", "
                          "\"estimate\", \"calibrated\", \"measured\", got \"guess\"");
  g_assert_false (bpw_json_doc_get_quantity (doc, hbm, "hbm", "novalue", TRUE, BPW_UNIT_NONE,
                                             0, G_MAXDOUBLE, &v, NULL, NULL, &error));
  assert_message (&error, "h100.json:13:16: hbm.novalue: missing required field 'value'");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/core/Quantity/parse", test_parse);
  g_test_add_func ("/bpw/core/Quantity/parse-errors", test_parse_errors);
  g_test_add_func ("/bpw/core/Quantity/format", test_format);
  g_test_add_func ("/bpw/core/Quantity/round-trip", test_round_trip);
  g_test_add_func ("/bpw/core/Quantity/json", test_json_quantity);

  return g_test_run ();
}
