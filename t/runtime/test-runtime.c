/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runtime without a GPU (CI): argument validation, no device is -ENODEV
 * (never a crash or a compile), missing driver libraries are reported by
 * name.  The stand-in driver tests are t/runtime/test-driver (via
 * t/runtime/driver.sh); real GPU tests are t/test-gpu-*.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "backend/cuda.h"
#include "backend/hip.h"
#include "context.h"
#include "kernel/kernel.h"
#include "runtime/runtime.h"
#include "backend/backend.h"
#include "devices/devices.h"
#include "target/target.h"

static char logbuf[8192];

/*
 * LeakSanitizer hook (the ASan CI run): ROCm 5.2's libamdhip64 leaks a few
 * objects when hipInit fails for want of /dev/kfd; not ours to fix.
 */
const char *__lsan_default_suppressions(void);
__attribute__((visibility("default"), used))
const char *__lsan_default_suppressions(void)
{
	return "leak:libamdhip64.so\n";
}

__attribute__((format(printf, 6, 0)))
static void log_capture(void *data, int prio, const char *file, int line,
                        const char *fn, const char *fmt, va_list ap)
{
	size_t len = strlen(logbuf);

	(void)data; (void)prio; (void)file; (void)line; (void)fn;
	vsnprintf(logbuf + len, sizeof(logbuf) - len, fmt, ap);
}

/*
 * Left loaded on purpose: unloading Debian 13's libamdhip64 (5.7) and loading
 * it again aborts the process ("Option 'disassemble' registered more than
 * once": its LLVM's options outlive the dlclose), as the library never does.
 */
static int lib_present(const char *name)
{
	return dlopen(name, RTLD_NOW | RTLD_LOCAL) != NULL;
}

int main(void)
{
	struct hanzo_rocm_options o = { .size = sizeof(o), .log_fn = log_capture,
	                                .log_priority = LOG_DEBUG };
	struct hanzo_rocm_kernel *k = (void *)1;
	struct hanzo_rocm *ctx;
	struct hr_kernel_stats st;
	unsigned grid[3] = { 1, 1, 1 }, block[3] = { 1, 1, 1 };
	uint64_t ptr = 1;
	struct hr_backend *b;
	int n, r;

	if (!ok(hanzo_rocm_new_with_options(&o, &ctx) == 0, "context"))
		return done_testing();

	/* Argument validation. */
	is_int(hanzo_rocm_kernel_get(NULL, 0, "unary", "ucopy_f32", &k), -EINVAL, "NULL ctx");
	ok(k == NULL, "*ret cleared on error");
	is_int(hanzo_rocm_kernel_get(ctx, 0, "unary", "ucopy_f32", NULL), -EINVAL, "NULL ret");
	is_int(hanzo_rocm_kernel_get(ctx, 0, NULL, "ucopy_f32", &k), -EINVAL, "NULL family");
	is_int(hanzo_rocm_kernel_get(ctx, 0, "unary", NULL, &k), -EINVAL, "NULL kernel");
	is_int(hanzo_rocm_kernel_get(ctx, 0, "../unary", "ucopy_f32", &k), -EINVAL, "family with a path");
	is_int(hanzo_rocm_kernel_get(ctx, 0, "unary", "", &k), -EINVAL, "empty kernel name");
	ok(strstr(logbuf, "../unary") != NULL, "the offending name is logged");
	is_int(hanzo_rocm_kernel_launch(NULL, grid, block, 0, NULL, NULL), -EINVAL, "launch NULL kernel");
	is_int(hr_backend_get(ctx, 42, &b), -EINVAL, "unknown platform");

	/* A device number past the end is -ENODEV, GPU or not. */
	is_int(hanzo_rocm_kernel_get(ctx, 4096, "unary", "ucopy_f32", &k), -ENODEV,
	       "device 4096 is -ENODEV");
	is_int(hr_runtime_alloc(ctx, 4096, 16, &ptr), -ENODEV, "alloc on device 4096 is -ENODEV");
	is_int(ptr, 0, "no pointer returned");

	n = hanzo_rocm_device_count(ctx);
	diag("devices: %d", n);
	if (n == 0) {
		is_int(hanzo_rocm_kernel_get(ctx, 0, "unary", "ucopy_f32", &k), -ENODEV,
		       "no GPU: kernel_get is -ENODEV");
		hr_kernel_stats(ctx, &st);
		is_int(st.modules, 0, "no module was loaded");
		is_int(hr_runtime_synchronize(ctx, 0, NULL), -ENODEV, "no GPU: synchronize is -ENODEV");
	} else {
		skip(3, "a GPU is present");
	}

	/* Absent drivers are a clean, named -ENOENT (the CI machine has none). */
	if (!lib_present("libcuda.so.1")) {
		struct hr_device devs[4];
		size_t nd = 99;

		/* Target detection may have tried it already: the log keeps it. */
		is_int(hr_backend_get(ctx, HR_PLATFORM_NVIDIA, &b), -ENOENT,
		       "no libcuda.so.1: -ENOENT");
		ok(strstr(logbuf, "libcuda.so.1") != NULL, "the message names libcuda.so.1");
		is_int(hr_devices_cuda(ctx, devs, 4, &nd), -ENOENT, "hr_cuda_devices: -ENOENT");
		is_int(nd, 0, "no NVIDIA device");
	} else {
		skip(4, "libcuda.so.1 is installed");
	}
	/*
	 * HIP only where there is no GPU (CI): a ROCm runtime dlopen-ed into a
	 * process that already has the CUDA driver can abort in LLVM's static
	 * initialisers (seen on the NVIDIA test machine); the library itself
	 * opens HIP only for AMD devices.
	 */
	if (n > 0) {
		skip(3, "HIP checks run only without a GPU");
	} else if (!lib_present("libamdhip64.so.6") && !lib_present("libamdhip64.so.5")) {
		r = hr_backend_get(ctx, HR_PLATFORM_AMD, &b);
		is_int(r, -ENOENT, "no libamdhip64: -ENOENT");
		ok(strstr(logbuf, "libamdhip64.so.6") && strstr(logbuf, "libamdhip64.so.5"),
		   "the message names both sonames");
		is_int(hr_backend_get(ctx, HR_PLATFORM_AMD, &b), -ENOENT,
		       "the result is remembered");
	} else if (access("/dev/kfd", F_OK) != 0) {
		r = hr_backend_get(ctx, HR_PLATFORM_AMD, &b);
		is_int(r, -ENODEV, "libamdhip64 without /dev/kfd: -ENODEV, no crash");
		ok(strstr(logbuf, "hipInit") != NULL, "hipInit's error is logged");
		is_int(hr_backend_get(ctx, HR_PLATFORM_AMD, &b), r, "the result is remembered");
	} else {
		skip(3, "an AMD GPU is present");
	}
	hanzo_rocm_unref(ctx);
	return done_testing();
}
