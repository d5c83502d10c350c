/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A client of the remote tier's HTTP module for t/remote/http.sh: loads
 * remote.so as the library does (hr_remote_http_load) and runs requests
 * through the breaker and budget (client.c).
 *   remote-http-client [OPTIONS] MODULE get URL OUT
 *   remote-http-client [OPTIONS] MODULE put URL FILE
 *   remote-http-client [OPTIONS] MODULE seq URL N
 * Options: -r request_ms -k connect_ms -t threshold -B backoff_ms -b budget_ms
 * -c PID (seq: after the N requests, SIGCONT PID, wait out the back-off,
 * request once more).  Prints "REASON STATUS" per request (seq: "I REASON
 * MS"), then "total MS".  Exit 0 when every request ran (whatever its
 * answer), 1 on a bad module, 2 on usage.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "remote/remote.h"
#include "shared/util.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const struct hr_remote_http_ops *ops;
static void *client;
static struct hr_remote_guard guard;
static unsigned request_ms = 1000;

static enum hr_remote_reason guarded_get(const char *url, void **body, size_t *n, long *status)
{
	unsigned t = request_ms;
	uint64_t start = now_ns();
	enum hr_remote_reason r = hr_remote_guard_enter(&guard, start, &t);

	*status = 0;
	if (r != HR_REMOTE_OK)
		return r;
	r = ops->get(client, url, 1u << 20, t, body, n, status);
	hr_remote_guard_leave(&guard, start, now_ns(), r);
	return r;
}

int main(int argc, char **argv)
{
	struct hr_remote_http_opts o = { .connect_ms = 250, .low_speed_bps = 1024, .low_speed_s = 2 };
	unsigned threshold = 3, backoff = 200, budget = 5000;
	pid_t cont = 0;
	char why[512];
	void *dl, *body = NULL;
	size_t n = 0;
	long status = 0;
	uint64_t t0;
	int c;

	while ((c = getopt(argc, argv, "r:k:t:B:b:c:")) != -1) {
		switch (c) {
		case 'r': request_ms = (unsigned)atoi(optarg); break;
		case 'k': o.connect_ms = (unsigned)atoi(optarg); break;
		case 't': threshold = (unsigned)atoi(optarg); break;
		case 'B': backoff = (unsigned)atoi(optarg); break;
		case 'b': budget = (unsigned)atoi(optarg); break;
		case 'c': cont = (pid_t)atoi(optarg); break;
		default: return 2;
		}
	}
	if (argc - optind < 4)
		return 2;
	if (hr_remote_http_load(argv[optind], &ops, &dl, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s\n", why);
		return 1;
	}
	o.request_ms = request_ms;
	client = ops->client_new(&o);
	if (!client)
		return 1;
	hr_remote_guard_init(&guard, threshold, backoff, 8 * backoff, budget);
	t0 = now_ns();
	if (strcmp(argv[optind + 1], "get") == 0 && argc - optind == 4) {
		enum hr_remote_reason r = guarded_get(argv[optind + 2], &body, &n, &status);

		printf("%s %ld\n", hr_remote_reason_name(r), status);
		if (r == HR_REMOTE_OK) {
			FILE *f = fopen(argv[optind + 3], "w");

			if (!f || fwrite(body, 1, n, f) != n || fclose(f) != 0)
				return 1;
		}
		free(body);
	} else if (strcmp(argv[optind + 1], "put") == 0 && argc - optind == 4) {
		void *data;
		size_t size;
		unsigned t = request_ms;
		uint64_t start = now_ns();
		enum hr_remote_reason r = hr_remote_guard_enter(&guard, start, &t);

		if (hr_read_file(argv[optind + 3], 1u << 20, &data, &size) < 0)
			return 1;
		if (r == HR_REMOTE_OK) {
			r = ops->put(client, argv[optind + 2], data, size, t, &status);
			hr_remote_guard_leave(&guard, start, now_ns(), r);
		}
		printf("%s %ld\n", hr_remote_reason_name(r), status);
		free(data);
	} else if (strcmp(argv[optind + 1], "seq") == 0) {
		int count = atoi(argv[optind + 3]);

		for (int i = 0; i <= count; i++) {
			uint64_t s;
			enum hr_remote_reason r;

			if (i == count) {
				if (!cont)
					break;
				kill(cont, SIGCONT);
				usleep(8 * backoff * 1000 + 100000);
			}
			s = now_ns();
			r = guarded_get(argv[optind + 2], &body, &n, &status);
			free(body);
			body = NULL;
			printf("%d %s %llu\n", i + 1, hr_remote_reason_name(r),
			       (unsigned long long)((now_ns() - s) / 1000000u));
		}
	} else {
		return 2;
	}
	printf("total %llu\n", (unsigned long long)((now_ns() - t0) / 1000000u));
	ops->client_free(client);
	dlclose(dl);
	return 0;
}
