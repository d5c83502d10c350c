/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A minimal TAP producer for the C tests (read by automake's tap-driver). */
#ifndef HR_TAP_H
#define HR_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

static inline void plan(int n) { printf("1..%d\n", n); fflush(stdout); }
static inline void plan_lazy(void) { /* call done_testing() at the end */ }

static inline void skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

static inline __attribute__((format(printf, 2, 3))) int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		tap_failed++;
	return cond;
}

static inline __attribute__((format(printf, 1, 2))) void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static inline void skip(int n, const char *why)
{
	for (int i = 0; i < n; i++)
		printf("ok %d # SKIP %s\n", ++tap_n, why);
	fflush(stdout);
}

#define is_int(got, want, ...)                                                  \
	do {                                                                    \
		long long g_ = (long long)(got), w_ = (long long)(want);        \
		if (!ok(g_ == w_, __VA_ARGS__))                                 \
			diag("  got %lld, want %lld", g_, w_);                  \
	} while (0)

#define is_str(got, want, ...)                                                  \
	do {                                                                    \
		const char *g_ = (got), *w_ = (want);                           \
		if (!ok(g_ && w_ ? strcmp(g_, w_) == 0 : g_ == w_, __VA_ARGS__)) \
			diag("  got '%s', want '%s'", g_ ? g_ : "(null)",       \
			     w_ ? w_ : "(null)");                               \
	} while (0)

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

/* With plan(): exit status reflects failures. */
static inline int tap_exit(void) { return tap_failed ? 1 : 0; }

#endif
