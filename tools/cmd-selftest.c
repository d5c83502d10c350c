/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hanzo-rocm selftest [--device N|host|host-w64|host-w32] [--family F]... [--kernel K] [--json]
 *                     [--bench-size LOG2]
 * Every kernel of every installed family (or of each F) on every GPU (or N) against
 * a float64 CPU reference (common/selftest-*.c), with the bandwidth of each
 * kernel over buffers of 2^LOG2 x 8 bytes (default 24 on a GPU: 128 MiB,
 * several times any L2; 16 on a host device; 0 skips it).
 * --device host (or one host target) adds the host devices (CPU, lib/backend/host/host.h)
 * for this run and tests only them.
 * Exit 0 all match, 1 any mismatch or kernel that could not be loaded or
 * has no reference, 2 usage error or no GPU.  A family the selftest has no
 * references for at all (a third-party plugin) is reported as skipped.  With --json and no GPU,
 * stdout holds an empty array, so it is always valid JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hanzo-rocm-tools.h"
#include "selftest.h"
#include "tools.h"

struct out {
	struct json *j;         /* NULL: table */
	unsigned device;
	const char *target;
	unsigned rows, failed, skipped;
};

/* A family this selftest knows nothing of: one row, skipped, not failed. */
static void skipped_family(struct out *o, const char *family)
{
	o->skipped++;
	if (o->j) {
		json_begin_object(o->j);
		json_kv_uint(o->j, "device", o->device);
		json_kv_string(o->j, "target", o->target);
		json_kv_string(o->j, "family", family);
		json_kv_bool(o->j, "skipped", true);
		json_kv_string(o->j, "reason", "no CPU reference for this family");
		json_end_object(o->j);
		return;
	}
	printf("family %-15s skipped: no CPU reference for this family\n", family);
	fflush(stdout);
}

static void emit(void *data, const struct st_result *r)
{
	struct out *o = data;
	char err[32] = "-", gbps[32] = "-", tol[32] = "exact";

	o->rows++;
	o->failed += !r->ok;
	if (o->j) {
		json_begin_object(o->j);
		json_kv_uint(o->j, "device", o->device);
		json_kv_string(o->j, "target", o->target);
		json_kv_string(o->j, "family", r->family);
		json_kv_string(o->j, "kernel", r->kernel);
		json_kv_string(o->j, "case", r->casename);
		json_kv_uint(o->j, "numel", r->numel);
		json_key(o->j, "max_error");
		json_double(o->j, r->max_err);          /* null when not finite */
		json_key(o->j, "tolerance");
		json_double(o->j, r->tol);
		json_key(o->j, "gbps");
		if (r->gbps >= 0)
			json_double(o->j, r->gbps);
		else
			json_null(o->j);
		json_kv_bool(o->j, "ok", r->ok);
		json_kv_string(o->j, "error", r->ok ? NULL : r->why);
		json_end_object(o->j);
		return;
	}
	if (!isnan(r->max_err))
		snprintf(err, sizeof(err), "%.3g", r->max_err);
	if (r->gbps >= 0)
		snprintf(gbps, sizeof(gbps), "%.1f", r->gbps);
	if (r->tol > 0)
		snprintf(tol, sizeof(tol), "%g", r->tol);
	printf("%-22s %-8s %10s %8s %9s  %s%s%s\n", r->kernel, r->casename, err, tol, gbps, r->ok ? "ok" : "FAIL",
	       r->ok ? "" : ": ", r->ok ? "" : r->why);
	fflush(stdout);
}

/* A kernel this selftest has no reference for is a failure: it is untested. */
static void no_reference(struct out *o, const char *family, const char *kernel, int r)
{
	struct st_result res = {
		.kernel = kernel, .family = family, .casename = "plan",
		.max_err = NAN, .gbps = -1, .ok = false,
	};

	snprintf(res.why, sizeof(res.why), "no CPU reference for this kernel (%s)",
	         hanzo_rocm_strerror(r));
	emit(o, &res);
}

static int run_family(struct hanzo_rocm *ctx, struct st_device *d, struct out *o,
                      const char *family, const char *only)
{
	struct hr_family *fam;
	int r = hr_plugins_family(ctx, family, &fam);

	if (r < 0) {
		cli_error("selftest: family %s: %s", family, hanzo_rocm_strerror(r));
		return r;
	}
	for (char **k = fam->kernels; k && *k; k++) {
		struct st_kernel spec;

		if (only && strcmp(only, *k) != 0)
			continue;
		r = st_plan(family, *k, &spec);
		if (r == -ENOPKG) {
			skipped_family(o, family);
			break;
		}
		if (r < 0)
			no_reference(o, family, *k, r);
		else
			st_run_kernel(d, &spec, emit, o);
	}
	return 0;
}

static int run_device(struct hanzo_rocm *ctx, unsigned dev, char **families,
                      const char *only, size_t bench_numel, struct out *o)
{
	struct st_device *d;
	int r;

	o->device = dev;
	if (hanzo_rocm_device_target(ctx, dev, &o->target) < 0)
		o->target = NULL;
	if (!o->j)
		printf("device %u: %s (bandwidth over %zu-element buffers%s)\n"
		       "%-22s %-8s %10s %8s %9s  %s\n", dev,
		       o->target ? o->target : "?", bench_numel, bench_numel ? "" : ": off",
		       "KERNEL", "CASE", "MAX_ERR", "TOL", "GB/s", "STATUS");
	r = st_device_new(ctx, dev, bench_numel, &d);
	if (r < 0) {
		cli_error("selftest: device %u: cannot allocate buffers: %s", dev,
		          hanzo_rocm_strerror(r));
		o->failed++;
		return r;
	}
	for (char **f = families; *f; f++)
		if (run_family(ctx, d, o, *f, only) < 0)
			o->failed++;
	st_device_free(d);
	return 0;
}

static void usage(void)
{
	printf("Usage: hanzo-rocm selftest [--device N|host|host-w64|host-w32] [--family F]...\n"
	       "                           [--kernel K] [--json] [--bench-size LOG2]\n"
	       "Runs every kernel of every family (or of each --family F, in order) on\n"
	       "each GPU against a float64 CPU reference and measures its bandwidth over\n"
	       "buffers of 2^LOG2 x 8 bytes\n"
	       "(default 24 on a GPU: 128 MiB; 16 on a host device; 0: off).\n"
	       "--device host runs them on the CPU\n"
	       "instead (wave 64 and wave 32; host-w64 or host-w32 for one).\n"
	       "\n"
	       "Exit status: 0 every kernel matches; 1 a mismatch, or a kernel that does\n"
	       "not load or has no reference; 2 usage error, or no GPU.  A family with no\n"
	       "reference at all (a third-party plugin) is reported as skipped.\n");
}

/*
 * The bandwidth buffers by default: 2^24 x 8 bytes (128 MiB, several times
 * any L2) on a GPU; 2^16 x 8 on the host backend, where the full size ran
 * over 15 minutes on 2 CPUs - its figures are not the point.
 */
#define BENCH_LOG2_GPU 24u
#define BENCH_LOG2_HOST 16u

static bool is_host(struct hanzo_rocm *ctx, unsigned dev)
{
	const char *t = NULL;

	return hanzo_rocm_device_target(ctx, dev, &t) == 0 &&
	       hr_target_platform(t) == HR_PLATFORM_HOST;
}

int cmd_selftest(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "family", required_argument, NULL, 'f' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "bench-size", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *only = NULL;
	char **asked = NULL;            /* --family, each once, in the order given */
	uint64_t device = UINT64_MAX, log2n = UINT64_MAX;       /* MAX: the device's default */
	const char *host = NULL;        /* --device host, host-w64 or host-w32 */
	struct out o = { 0 };
	struct hanzo_rocm *ctx;
	char **families = NULL;
	struct json j;
	int c, n, r;

	while ((c = getopt_long(argc, argv, "d:f:k:b:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (strcmp(optarg, "host") == 0 ||
			    hr_target_platform(optarg) == HR_PLATFORM_HOST) {
				host = optarg;
				/* An explicit ask: both host devices for this run. */
				cli->host = "host-w64 host-w32";
				break;
			}
			if (hr_parse_uint(optarg, 1u << 20, &device) < 0) {
				cli_usage_error("selftest", "--device: not a device number, host, host-w64 or host-w32: '%s'",
				                optarg);
				return EXIT_USAGE;
			}
			break;
		case 'f':
			if (!hr_name_is_valid(optarg)) {
				cli_usage_error("selftest", "--family: invalid name '%s'", optarg);
				return EXIT_USAGE;
			}
			if (!asked && !(asked = hr_strv_new()))
				return EXIT_FAILED;
			if (!hr_strv_contains(asked, optarg) && hr_strv_push(&asked, optarg) < 0) {
				hr_strv_free(asked);
				return EXIT_FAILED;
			}
			break;
		case 'k':
			only = optarg;
			break;
		case 'b':
			if (hr_parse_uint(optarg, 30, &log2n) < 0) {
				cli_usage_error("selftest", "--bench-size: want 0..30 (log2 elements), got '%s'",
				          optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			o.j = &j;
			break;
		case 'h':
			hr_strv_free(asked);
			usage();
			return EXIT_OK;
		default:
			hr_strv_free(asked);
			return cli_try_help("selftest");
		}
	}
	if (optind < argc) {
		cli_usage_error("selftest", "unexpected argument '%s'", argv[optind]);
		hr_strv_free(asked);
		return EXIT_USAGE;
	}
	ctx = cli_ctx(cli);
	if (!ctx) {
		hr_strv_free(asked);
		return EXIT_USAGE;
	}
	if (o.j) {
		/* Valid JSON on stdout whatever happens next. */
		json_init(&j, stdout);
		json_begin_array(&j);
	}
	n = hanzo_rocm_device_count(ctx);
	if (n <= 0) {
		cli_error("selftest: no GPU%s%s", n < 0 ? ": " : "",
		          n < 0 ? hanzo_rocm_strerror(n) : "");
		r = EXIT_USAGE;
		goto out;
	}
	if (device != UINT64_MAX && device >= (uint64_t)n) {
		cli_error("selftest: --device %llu: there are %d devices",
		          (unsigned long long)device, n);
		r = EXIT_USAGE;
		goto out;
	}
	if (asked) {
		/* Every --family must exist before anything runs. */
		for (char **f = asked; *f; f++) {
			struct hr_family *fam;

			if (hr_plugins_family(ctx, *f, &fam) < 0) {
				cli_error("selftest: --family %s: no such family (see hanzo-rocm plugins)",
				          *f);
				r = EXIT_USAGE;
				goto out;
			}
		}
		families = asked;
		asked = NULL;
	} else if ((r = hr_plugins_families(ctx, &families)) < 0 || !families[0]) {
		cli_error("selftest: no kernel families found%s%s", r < 0 ? ": " : "",
		          r < 0 ? hanzo_rocm_strerror(r) : " (see hanzo-rocm plugins)");
		r = EXIT_FAILED;
		goto out;
	}
	for (unsigned dev = 0; dev < (unsigned)n; dev++) {
		const char *t = NULL;

		if (host && (hanzo_rocm_device_target(ctx, dev, &t) < 0 ||
		             hr_target_platform(t) != HR_PLATFORM_HOST ||
		             (strcmp(host, "host") != 0 && strcmp(host, t) != 0)))
			continue;
		if (device == UINT64_MAX || dev == device) {
			unsigned lg = log2n != UINT64_MAX ? (unsigned)log2n :
			              is_host(ctx, dev) ? BENCH_LOG2_HOST : BENCH_LOG2_GPU;

			run_device(ctx, dev, families, only, lg ? (size_t)1 << lg : 0, &o);
		}
	}
	if (only && o.rows == 0 && o.skipped == 0) {
		cli_error("selftest: no kernel named '%s'", only);
		r = EXIT_USAGE;
		goto out;
	}
	if (!o.j && o.skipped)
		printf("%u cases, %u failed, %u families skipped\n", o.rows, o.failed,
		       o.skipped);
	else if (!o.j)
		printf("%u cases, %u failed\n", o.rows, o.failed);
	r = o.failed ? EXIT_FAILED : EXIT_OK;
out:
	if (o.j) {
		json_end_array(&j);
		json_finish(&j);
	}
	hr_strv_free(families);
	hr_strv_free(asked);
	return r;
}
