/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Host-side micro benchmarks (bench/host.sh drives them; `make bench`):
 *   bench-host init N                 hanzo_rocm_new + unref, ns per pair
 *   bench-host hit FAMILY TARGET N    repeated hanzo_rocm_code_object, ns/call
 *   bench-host first FAMILY TARGET    one process start's first code object;
 *                                     prints µs and whether a child ran
 *   bench-host seed SOURCE FILE       what a naive crate does per process
 *                                     start: spawn `hipcc --version` and
 *                                     `rocm_agent_enumerator`, sha256 the
 *                                     source, read the code object
 *   bench-host spawn M CMD ARGS...    run CMD ARGS M times as new processes
 *                                     (CMD "-": bench-host itself); median
 *                                     and min wall ms
 * Only the public API, plus hr_sha256 for the seed flow.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cache/cache.h"
#include "hanzo-rocm.h"
#include "shared/util.h"

extern char **environ;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static unsigned long count(const char *s)
{
	char *end;
	unsigned long n = strtoul(s, &end, 10);

	if (*end || n == 0) {
		fprintf(stderr, "bench-host: bad count '%s'\n", s);
		exit(2);
	}
	return n;
}

static int bench_init(unsigned long n)
{
	double t0 = now_ns();

	for (unsigned long i = 0; i < n; i++) {
		struct hanzo_rocm *ctx;
		int r = hanzo_rocm_new(&ctx);

		if (r < 0) {
			fprintf(stderr, "hanzo_rocm_new: %s\n", hanzo_rocm_strerror(r));
			return 1;
		}
		hanzo_rocm_unref(ctx);
	}
	printf("init_ns %.0f\n", (now_ns() - t0) / (double)n);
	return 0;
}

static int code_object(struct hanzo_rocm *ctx, const char *family,
                       const char *target, size_t *size)
{
	const void *data;
	int r = hanzo_rocm_code_object(ctx, family, target, &data, size);

	if (r < 0)
		fprintf(stderr, "hanzo_rocm_code_object(%s, %s): %s\n", family,
		        target, hanzo_rocm_strerror(r));
	return r;
}

static int bench_hit(const char *family, const char *target, unsigned long n)
{
	struct hanzo_rocm *ctx;
	size_t size;
	double t0;
	int r = hanzo_rocm_new(&ctx);

	if (r < 0 || code_object(ctx, family, target, &size) < 0)
		return 1;
	t0 = now_ns();
	for (unsigned long i = 0; i < n && r == 0; i++)
		r = code_object(ctx, family, target, &size);
	printf("hit_ns %.1f\n", (now_ns() - t0) / (double)n);
	hanzo_rocm_unref(ctx);
	return r < 0;
}

static int bench_first(const char *family, const char *target)
{
	struct hanzo_rocm *ctx;
	struct rusage ru;
	double t0 = now_ns();
	size_t size = 0;
	int r = hanzo_rocm_new(&ctx);

	if (r < 0 || code_object(ctx, family, target, &size) < 0)
		return 1;
	printf("first_us %.1f size %zu", (now_ns() - t0) / 1e3, size);
	hanzo_rocm_unref(ctx);
	/* A child that ran and was reaped leaves its peak RSS here. */
	getrusage(RUSAGE_CHILDREN, &ru);
	printf(" children %s\n", ru.ru_maxrss ? "yes" : "none");
	return 0;
}

static int run_quiet(const char *prog, char *const argv[])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, r;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	r = posix_spawnp(&pid, prog, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0)
		return -r;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return 0;
}

static int bench_seed(const char *source, const char *file)
{
	char *hv[] = { "hipcc", "--version", NULL };
	char *ra[] = { "rocm_agent_enumerator", NULL };
	void *data = NULL;
	size_t size = 0;
	uint8_t sum[32];
	double t0 = now_ns();

	if (run_quiet("hipcc", hv) < 0 || run_quiet("rocm_agent_enumerator", ra) < 0)
		fprintf(stderr, "bench-host: seed: cannot spawn a tool\n");
	if (hr_read_file(source, 64 << 20, &data, &size) < 0)
		return 1;
	hr_sha256(data, size, sum);
	free(data);
	if (hr_read_file(file, 256 << 20, &data, &size) < 0)
		return 1;
	free(data);
	printf("seed_us %.1f\n", (now_ns() - t0) / 1e3);
	return 0;
}

static int bench_spawn(unsigned long m, char **args)
{
	double *t = calloc(m, sizeof(*t));
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (!t || n <= 0)
		return 1;
	self[n] = '\0';
	if (strcmp(args[0], "-") == 0)
		args[0] = self;
	for (unsigned long i = 0; i < m; i++) {
		double t0 = now_ns();

		if (run_quiet(args[0], args) < 0)
			return 1;
		t[i] = (now_ns() - t0) / 1e6;
	}
	qsort(t, m, sizeof(*t), cmp_double);
	printf("spawn_ms median %.2f min %.2f runs %lu\n", t[m / 2], t[0], m);
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "init") == 0)
		return bench_init(count(argv[2]));
	if (argc == 5 && strcmp(argv[1], "hit") == 0)
		return bench_hit(argv[2], argv[3], count(argv[4]));
	if (argc == 4 && strcmp(argv[1], "first") == 0)
		return bench_first(argv[2], argv[3]);
	if (argc == 4 && strcmp(argv[1], "seed") == 0)
		return bench_seed(argv[2], argv[3]);
	if (argc >= 4 && strcmp(argv[1], "spawn") == 0)
		return bench_spawn(count(argv[2]), argv + 3);
	fprintf(stderr, "usage: bench-host init N | hit FAMILY TARGET N | first FAMILY TARGET |\n"
	        "                  seed SOURCE FILE | spawn M CMD ARGS...\n");
	return 2;
}
