/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The host-side clock and the median's comparison of bench/launch-cost.c
 * and bench/launch-exdev.c (nanoseconds, doubles). */
#ifndef HR_BENCH_CLOCK_H
#define HR_BENCH_CLOCK_H

#include <time.h>

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#endif
