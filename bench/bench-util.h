/* bench-util.h — what the benchmark programs share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <sys/resource.h>

/* User + system CPU time of this process so far: a rate per CPU second does not depend on
 * what else runs on the machine. */
static inline double
bench_cpu_seconds (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return (double) ru.ru_utime.tv_sec + 1e-6 * (double) ru.ru_utime.tv_usec +
         (double) ru.ru_stime.tv_sec + 1e-6 * (double) ru.ru_stime.tv_usec;
}
