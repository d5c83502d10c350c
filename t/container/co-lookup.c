/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-lookup FAMILY TARGET: what a framework does at start-up inside a
 * hanzo-rocm runtime image — a new context, then hanzo_rocm_code_object()
 * through the public API of the image's own libhanzo-rocm.so.1 (this file
 * is compiled on the host against <hanzo-rocm.h> only).  Prints
 * "FAMILY TARGET SIZE bytes, ELF machine M, T ms" and exits 0, or prints
 * the library's errors (log priority error) and exits 1.  The checks of
 * t/container/check.sh read the output; the time is from main() to the
 * code object in memory.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include <hanzo-rocm.h>

static void log_stderr(void *data, int priority, const char *file, int line,
                       const char *fn, const char *format, va_list args)
{
	(void)data; (void)priority; (void)file; (void)line; (void)fn;
	fputs("co-lookup: ", stderr);
	vfprintf(stderr, format, args);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	struct hanzo_rocm_options opts = {
		.size = sizeof(opts), .log_fn = log_stderr, .log_priority = LOG_ERR,
	};
	struct hanzo_rocm *ctx;
	const unsigned char *data;
	const void *p;
	size_t size;
	uint16_t machine = 0;
	double t0 = now_ms();
	int r;

	if (argc != 3) {
		fputs("usage: co-lookup FAMILY TARGET\n", stderr);
		return 2;
	}
	r = hanzo_rocm_new_with_options(&opts, &ctx);
	if (r < 0) {
		fprintf(stderr, "co-lookup: hanzo_rocm_new: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}
	r = hanzo_rocm_code_object(ctx, argv[1], argv[2], &p, &size);
	if (r < 0) {
		fprintf(stderr, "co-lookup: %s on %s: %s\n", argv[1], argv[2],
		        hanzo_rocm_strerror(r));
		hanzo_rocm_unref(ctx);
		return 1;
	}
	data = p;
	/* e_machine: EM_AMDGPU (224) or EM_CUDA (190), little-endian. */
	if (size >= 20 && memcmp(data, "\177ELF", 4) == 0)
		machine = (uint16_t)(data[18] | data[19] << 8);
	printf("%s %s %zu bytes, ELF machine %u, %.2f ms\n", argv[1], argv[2], size,
	       machine, now_ms() - t0);
	hanzo_rocm_unref(ctx);
	return 0;
}
