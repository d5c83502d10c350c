/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libhanzo-rocm: precompiled, cached GPU kernels for AMD (HIP) and NVIDIA GPUs.
 *
 * Every function returning int returns 0 (or a count) on success and a
 * negative errno on failure; hanzo_rocm_strerror() turns it into text.
 * A context is thread-safe: one may be shared by all threads of a process.
 */
#ifndef HANZO_ROCM_H
#define HANZO_ROCM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hanzo_rocm;
struct hanzo_rocm_kernel;

/* Priorities are syslog's: LOG_ERR 3, LOG_WARNING 4, LOG_INFO 6, LOG_DEBUG 7. */
typedef void (*hanzo_rocm_log_fn)(void *data, int priority, const char *file,
                                  int line, const char *fn, const char *format,
                                  va_list args);

/*
 * Options for hanzo_rocm_new_with_options().  Set .size to sizeof(struct
 * hanzo_rocm_options) so later versions can grow the struct; every field may
 * be left zero for the default.
 */
struct hanzo_rocm_options {
	size_t size;
	const char *root;       /* prefix for every system path; default $HANZO_ROCM_ROOT or "/" */
	const char *config;     /* main config file; default $HANZO_ROCM_CONF or /etc/hanzo-rocm.conf */
	hanzo_rocm_log_fn log_fn; /* receives messages from the very first one on */
	void *log_data;
	int log_priority;       /* 0 = default (silent unless $HANZO_ROCM_LOG) */
	/*
	 * Host (CPU) devices to add after the GPUs, e.g. "host-w64 host-w32";
	 * NULL = $HANZO_ROCM_HOST, else [targets] host, else none.
	 */
	const char *host;
};

/* Reads the configuration; an invalid one fails with -EINVAL (logged). */
int hanzo_rocm_new(struct hanzo_rocm **ret);
int hanzo_rocm_new_with_options(const struct hanzo_rocm_options *opts,
                                struct hanzo_rocm **ret);
struct hanzo_rocm *hanzo_rocm_ref(struct hanzo_rocm *ctx);
/* Drops a reference; returns NULL when the context was freed. */
struct hanzo_rocm *hanzo_rocm_unref(struct hanzo_rocm *ctx);

void hanzo_rocm_set_log_fn(struct hanzo_rocm *ctx, hanzo_rocm_log_fn fn,
                           void *data);
int hanzo_rocm_get_log_priority(const struct hanzo_rocm *ctx);
void hanzo_rocm_set_log_priority(struct hanzo_rocm *ctx, int priority);

/* Text for a negative errno returned by this library (never NULL). */
const char *hanzo_rocm_strerror(int err);

/* Devices, AMD first (KFD node order) then NVIDIA (CUDA ordinal order). */
enum hanzo_rocm_platform {
	HANZO_ROCM_PLATFORM_AMD = 1,
	HANZO_ROCM_PLATFORM_NVIDIA = 2,
	HANZO_ROCM_PLATFORM_HOST = 3,   /* the CPU, opt-in: see options.host */
};
int hanzo_rocm_device_count(struct hanzo_rocm *ctx);
/* Effective target after overrides, e.g. "gfx90a" or "sm_90"; owned by ctx. */
int hanzo_rocm_device_target(struct hanzo_rocm *ctx, unsigned device,
                             const char **target);
int hanzo_rocm_device_platform(struct hanzo_rocm *ctx, unsigned device);

/*
 * The code object (raw AMDGPU ELF or cubin) of a family for a target, from
 * the first cache tier that has a valid one, compiling it on a miss when the
 * configuration allows.  The bytes are owned by ctx and stay valid until it
 * is freed.
 */
int hanzo_rocm_code_object(struct hanzo_rocm *ctx, const char *family,
                           const char *target, const void **data,
                           size_t *size);

/*
 * A loaded kernel function on a device.  The handle is owned by ctx and
 * cached: a second call with the same arguments is a hash lookup.
 */
int hanzo_rocm_kernel_get(struct hanzo_rocm *ctx, unsigned device,
                          const char *family, const char *kernel,
                          struct hanzo_rocm_kernel **ret);

/*
 * Launch: args is an array of pointers to each argument's value, as for
 * hipModuleLaunchKernel/cuLaunchKernel; stream is a hipStream_t/CUstream
 * (NULL = the default stream).
 */
int hanzo_rocm_kernel_launch(struct hanzo_rocm_kernel *kernel,
                             const unsigned grid[3], const unsigned block[3],
                             unsigned shared_mem_bytes, void *stream,
                             void **args);

#ifdef __cplusplus
}
#endif
#endif
