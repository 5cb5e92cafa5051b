/* test-format.c — numbers with units as the workbench shows them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-format"

#include "config.h"

#include <locale.h>

#include "bpw-format.h"

static void
check_string (char       *actual,
              const char *expected)
{
  g_assert_cmpstr (actual, ==, expected);
  g_free (actual);
}

static void
test_format_si (void)
{
  /* 6 * 175e9 parameters * 3,145,728 tokens: the GPT-3 175B step of 1536 x 2048 tokens. */
  check_string (bpw_format_si (6.0 * 175e9 * 1536 * 2048, "FLOP"), "3.30 EFLOP");
  check_string (bpw_format_si (0.0, "FLOP"), "0 FLOP");
  check_string (bpw_format_si (999.0, "FLOP"), "999 FLOP");
  /* Rounding that reaches the next prefix moves to it: 999.6e3 is 1.00 M, not 1000 k. */
  check_string (bpw_format_si (999.6e3, "FLOP"), "1.00 MFLOP");
  check_string (bpw_format_si (12.345e12, "FLOP"), "12.3 TFLOP");
  check_string (bpw_format_si (2.5e24, "FLOP"), "2.50 YFLOP");
  /* Past the last prefix the number grows instead. */
  check_string (bpw_format_si (2.5e27, "FLOP"), "2500 YFLOP");
  check_string (bpw_format_si (0.9996, "FLOP"), "1.00 FLOP");
}

static void
test_format_bytes (void)
{
  /* 80 GiB exactly, and 50e9 bytes = 46.566 GiB = 50.0 GB. */
  check_string (bpw_format_bytes (80ull << 30, BPW_BYTE_UNITS_BINARY), "80.0 GiB");
  check_string (bpw_format_bytes (50000000000ull, BPW_BYTE_UNITS_BINARY), "46.6 GiB");
  check_string (bpw_format_bytes (50000000000ull, BPW_BYTE_UNITS_DECIMAL), "50.0 GB");
  check_string (bpw_format_bytes (0, BPW_BYTE_UNITS_BINARY), "0 GiB");
  check_string (bpw_format_bytes (1ull << 29, BPW_BYTE_UNITS_BINARY), "0.500 GiB");
  check_string (bpw_format_bytes (1024, BPW_BYTE_UNITS_BINARY), "<0.001 GiB");
  check_string (bpw_format_bytes (150ull << 30, BPW_BYTE_UNITS_BINARY), "150 GiB");
}

static void
test_format_bytes_scaled (void)
{
  check_string (bpw_format_bytes_scaled (0, BPW_BYTE_UNITS_BINARY), "0 B");
  check_string (bpw_format_bytes_scaled (999, BPW_BYTE_UNITS_BINARY), "999 B");
  /* 1000 B is under one KiB: 1000 / 1024 = 0.977. */
  check_string (bpw_format_bytes_scaled (1000, BPW_BYTE_UNITS_BINARY), "0.977 KiB");
  check_string (bpw_format_bytes_scaled (12ull << 20, BPW_BYTE_UNITS_BINARY), "12.0 MiB");
  check_string (bpw_format_bytes_scaled (12000000, BPW_BYTE_UNITS_DECIMAL), "12.0 MB");
  check_string (bpw_format_bytes_scaled (3ull << 30, BPW_BYTE_UNITS_BINARY), "3.00 GiB");
  /* 1023.9 KiB rounds to the next prefix, not to "1024 KiB". */
  check_string (bpw_format_bytes_scaled (1048470, BPW_BYTE_UNITS_BINARY), "1.00 MiB");
  check_string (bpw_format_bytes_scaled (2500000000000ull, BPW_BYTE_UNITS_DECIMAL), "2.50 TB");
}

static void
test_format_seconds (void)
{
  check_string (bpw_format_seconds (0.0), "0 s");
  check_string (bpw_format_seconds (12.34), "12.3 s");
  check_string (bpw_format_seconds (0.0456), "45.6 ms");
  check_string (bpw_format_seconds (789e-6), "789 µs");
  /* 0.99996 s rounds to "1.00 s", not "1000 ms". */
  check_string (bpw_format_seconds (0.99996), "1.00 s");
  check_string (bpw_format_seconds (2e-9), "2.00 ns");
  check_string (bpw_format_seconds (5e-11), "0.050 ns");
  check_string (bpw_format_seconds (3600.0), "3600 s");
}

static void
test_format_parameters (void)
{
  check_string (bpw_format_parameters (174604259328ull), "175 B");
  check_string (bpw_format_parameters (8030261248ull), "8.03 B");
  check_string (bpw_format_parameters (1600000000000ull), "1.60 T");
  check_string (bpw_format_parameters (124439808ull), "124 M");
  check_string (bpw_format_parameters (512), "512");
}

static void
test_format_count (void)
{
  BpwU128 big = (BpwU128) 1000000000000ull * 1000000000000ull;  /* 10^24 > 2^64 */

  check_string (bpw_format_count (0), "0");
  check_string (bpw_format_count (999), "999");
  check_string (bpw_format_count (1000), "1,000");
  check_string (bpw_format_count (174604259328ull), "174,604,259,328");
  check_string (bpw_format_count (big), "1,000,000,000,000,000,000,000,000");
}

int
main (int   argc,
      char *argv[])
{
  /* The C locale writes "3.30"; German would write "3,30". */
  setlocale (LC_ALL, "C.UTF-8");
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/ui/Format/si", test_format_si);
  g_test_add_func ("/bpw/ui/Format/bytes", test_format_bytes);
  g_test_add_func ("/bpw/ui/Format/bytes-scaled", test_format_bytes_scaled);
  g_test_add_func ("/bpw/ui/Format/seconds", test_format_seconds);
  g_test_add_func ("/bpw/ui/Format/parameters", test_format_parameters);
  g_test_add_func ("/bpw/ui/Format/count", test_format_count);

  return g_test_run ();
}
