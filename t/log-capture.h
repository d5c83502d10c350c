/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library's log, captured for a test program (header-only, one per
 * program, like t/gpu-test.h): pass log_capture as the context's log_fn;
 * every message is appended to logbuf (thread-safe; empty it with
 * logbuf[0] = '\0') and a failing test prints it with diag.
 */
#ifndef HR_LOG_CAPTURE_H
#define HR_LOG_CAPTURE_H

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifndef LOG_CAPTURE_SIZE
#define LOG_CAPTURE_SIZE 16384
#endif

static char logbuf[LOG_CAPTURE_SIZE];
static pthread_mutex_t loglock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((format(printf, 6, 0)))
static void log_capture(void *data, int prio, const char *file, int line,
                        const char *fn, const char *fmt, va_list ap)
{
	size_t len;

	(void)data; (void)prio; (void)file; (void)line; (void)fn;
	pthread_mutex_lock(&loglock);
	len = strlen(logbuf);
	if (len < sizeof(logbuf) - 1)
		vsnprintf(logbuf + len, sizeof(logbuf) - len, fmt, ap);
	pthread_mutex_unlock(&loglock);
}

#endif
