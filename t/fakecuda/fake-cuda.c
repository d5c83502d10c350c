/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stand-in libcuda.so.1 for tests on machines without a GPU, put first on
 * LD_LIBRARY_PATH.  HR_FAKE_CUDA_DEVICES=N pretends N devices (0: cuInit
 * fails with CUDA_ERROR_NO_DEVICE), sm_90 unless HR_FAKE_CUDA_CC lists each
 * one's compute capability ("90,80": device 0 sm_90, device 1 sm_80).  Like
 * the real driver it applies CUDA_VISIBLE_DEVICES itself (indices; an
 * invalid or repeated entry ends the list).  Module loading accepts only ELF
 * images for EM_CUDA (190) whose EI_ABIVERSION is not 0x7f, like a driver
 * refusing foreign or too-new code objects.
 *
 * Per device, as a driver is (doc/DESIGN.md §9): one primary context per device,
 * a per-thread current-context stack, modules, functions, memory and
 * streams tagged with the context current when they were made.  A call
 * mixing devices fails as a strict driver would: a launch whose function
 * or stream belongs to another context is CUDA_ERROR_INVALID_HANDLE, a
 * copy or a kernel touching another device's memory is
 * CUDA_ERROR_ILLEGAL_ADDRESS.  The one fake kernel that does something,
 * "fake_fill(unsigned *p, unsigned v, unsigned n)", stores v into p[0..n)
 * of the current device's memory, so a test can check where a launch ran.
 * hr_fake_cuda_launches(dev) counts launches per device.  Shared memory as
 * on an H100: 48 KiB a block by default, 227 KiB once a function opts in
 * (cuFuncSetAttribute MAX_DYNAMIC_SHARED_SIZE_BYTES); a function named
 * "..._smem1k" has 1 KiB of static shared memory; a launch with more
 * dynamic shared memory than the function allows is INVALID_VALUE, as the
 * driver's.  HR_FAKE_CUDA_NO_OPTIN=1: a driver without cuFuncSetAttribute's
 * opt-in (the attribute refused).  Built a second
 * time with HR_FAKE_PARTIAL, lacking cuLaunchKernel, to test a driver with
 * a missing symbol.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The driver API has no header here: the definitions are the prototypes. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define API __attribute__((visibility("default")))
#define MAX_DEV 16
#define SMEM_DEFAULT (48 << 10)
#define SMEM_OPTIN (227 << 10)

enum {
	OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, NO_DEVICE = 100, INVALID_DEVICE = 101,
	INVALID_IMAGE = 200, INVALID_CONTEXT = 201, NO_BINARY = 209, INVALID_HANDLE = 400,
	NOT_FOUND = 500, ILLEGAL_ADDRESS = 700,
};

struct fctx { int dev; };
static struct fctx ctxs[MAX_DEV];
static int n_dev, phys[MAX_DEV], cc[MAX_DEV];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned long launches[MAX_DEV];

static __thread struct fctx *stack[8];
static __thread int depth;

static struct fctx *current(void) { return depth ? stack[depth - 1] : NULL; }

static void setup(void)
{
	const char *v = getenv("HR_FAKE_CUDA_DEVICES"), *c = getenv("HR_FAKE_CUDA_CC");
	const char *vis = getenv("CUDA_VISIBLE_DEVICES");
	int total = v ? atoi(v) : 0, ccs[MAX_DEV];

	if (total < 0)
		total = 0;
	if (total > MAX_DEV)
		total = MAX_DEV;
	for (int i = 0; i < total; i++) {
		ccs[i] = 90;
		if (c && *c) {
			ccs[i] = atoi(c);
			c = strchr(c, ',');
			c = c ? c + 1 : NULL;
		}
	}
	n_dev = 0;
	if (vis && *vis) {
		int seen[MAX_DEV] = { 0 };

		for (const char *p = vis; p && n_dev < MAX_DEV; ) {
			char *end;
			long i = strtol(p, &end, 10);

			if (end == p || (*end && *end != ',') || i < 0 || i >= total || seen[i])
				break;
			seen[i] = 1;
			phys[n_dev++] = (int)i;
			p = *end ? end + 1 : NULL;
		}
	} else {
		for (int i = 0; i < total; i++)
			phys[n_dev++] = i;
	}
	for (int i = 0; i < n_dev; i++) {
		cc[i] = ccs[phys[i]];
		ctxs[i].dev = i;
	}
}

static int ndev(void) { pthread_once(&once, setup); return n_dev; }

static struct fctx *as_ctx(void *c)
{
	for (int i = 0; i < ndev(); i++)
		if (c == &ctxs[i])
			return &ctxs[i];
	return NULL;
}

API unsigned long hr_fake_cuda_launches(int dev)
{
	return dev >= 0 && dev < MAX_DEV ? __atomic_load_n(&launches[dev], __ATOMIC_RELAXED) : 0;
}

API int cuInit(unsigned f) { (void)f; return ndev() > 0 ? OK : NO_DEVICE; }
API int cuDeviceGetCount(int *n) { *n = ndev(); return OK; }
API int cuDeviceGet(int *d, int o) { if (o < 0 || o >= ndev()) return INVALID_DEVICE; *d = o; return OK; }
API int cuDeviceGetAttribute(int *v, int a, int d)
{
	if (d < 0 || d >= ndev())
		return INVALID_DEVICE;
	/* 4 SMs (16), 48 KiB (8), 227 KiB opt-in (97), the rest unknown (0):
	 * the launch geometry's defaults */
	*v = a == 75 ? cc[d] / 10 : a == 76 ? cc[d] % 10 : a == 16 ? 4 : a == 8 ? SMEM_DEFAULT :
	     a == 97 ? SMEM_OPTIN : 0;
	return OK;
}
API int cuDeviceGetName(char *s, int n, int d) { (void)d; strncpy(s, "Fake GPU", (size_t)n); return OK; }
API int cuDevicePrimaryCtxRetain(void **c, int d)
{
	if (d < 0 || d >= ndev())
		return INVALID_DEVICE;
	*c = &ctxs[d];
	return OK;
}
API int cuDevicePrimaryCtxRelease_v2(int d) { return d >= 0 && d < ndev() ? OK : INVALID_DEVICE; }
API int cuCtxPushCurrent_v2(void *c)
{
	struct fctx *x = as_ctx(c);

	if (!x)
		return INVALID_CONTEXT;
	if (depth == (int)(sizeof(stack) / sizeof(stack[0])))
		return INVALID_VALUE;
	stack[depth++] = x;
	return OK;
}
API int cuCtxPopCurrent_v2(void **c)
{
	if (!depth)
		return INVALID_CONTEXT;
	*c = stack[--depth];
	return OK;
}
API int cuCtxSynchronize(void) { return current() ? OK : INVALID_CONTEXT; }

/* ---- modules and functions, tagged with their context's device ---------- */
struct ffunc { int dev; char name[64]; int smem_static, max_dynamic; };
struct fmod { int dev; int n; struct ffunc fn[32]; };
static pthread_mutex_t mod_lock = PTHREAD_MUTEX_INITIALIZER;

API int cuModuleLoadData(void **m, const void *img)
{
	const unsigned char *p = img;
	struct fmod *mod;

	if (!current())
		return INVALID_CONTEXT;
	if (memcmp(p, "\177ELF", 4) != 0 || (p[18] | p[19] << 8) != 190)
		return INVALID_IMAGE;
	if (p[8] == 0x7f)      /* an ABI version this "driver" does not know */
		return NO_BINARY;
	mod = calloc(1, sizeof(*mod));
	if (!mod)
		return OUT_OF_MEMORY;
	mod->dev = current()->dev;
	*m = mod;
	return OK;
}
API int cuModuleUnload(void *m)
{
	struct fmod *mod = m;

	if (!current() || current()->dev != mod->dev)
		return INVALID_CONTEXT;
	free(m);
	return OK;
}
API int cuModuleGetFunction(void **f, void *m, const char *name)
{
	struct fmod *mod = m;
	int r = OK;

	if (!current() || current()->dev != mod->dev)
		return INVALID_HANDLE;
	if (strncmp(name, "missing", 7) == 0)
		return NOT_FOUND;
	pthread_mutex_lock(&mod_lock);
	for (int i = 0; i < mod->n; i++)
		if (strcmp(mod->fn[i].name, name) == 0) {
			*f = &mod->fn[i];
			goto out;
		}
	if (mod->n == (int)(sizeof(mod->fn) / sizeof(mod->fn[0]))) {
		r = OUT_OF_MEMORY;
		goto out;
	}
	mod->fn[mod->n].dev = mod->dev;
	strncpy(mod->fn[mod->n].name, name, sizeof(mod->fn[0].name) - 1);
	mod->fn[mod->n].smem_static = strstr(name, "_smem1k") ? 1024 : 0;
	mod->fn[mod->n].max_dynamic = SMEM_DEFAULT - mod->fn[mod->n].smem_static;
	*f = &mod->fn[mod->n++];
out:
	pthread_mutex_unlock(&mod_lock);
	return r;
}

/* ---- memory, tagged with its device ------------------------------------- */
struct falloc { struct falloc *next; uintptr_t p; size_t n; int dev; };
static struct falloc *allocs;
static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;

/* The device of [p, p+n), or -1 when no allocation holds it all. */
static int mem_dev(uintptr_t p, size_t n)
{
	int dev = -1;

	pthread_mutex_lock(&mem_lock);
	for (struct falloc *a = allocs; a; a = a->next)
		if (p >= a->p && p - a->p <= a->n && n <= a->n - (p - a->p)) {
			dev = a->dev;
			break;
		}
	pthread_mutex_unlock(&mem_lock);
	return dev;
}

API int cuMemAlloc_v2(unsigned long long *p, size_t n)
{
	struct falloc *a;

	if (!current())
		return INVALID_CONTEXT;
	a = malloc(sizeof(*a));
	if (!a)
		return OUT_OF_MEMORY;
	a->p = (uintptr_t)malloc(n ? n : 1);
	if (!a->p) {
		free(a);
		return OUT_OF_MEMORY;
	}
	a->n = n;
	a->dev = current()->dev;
	pthread_mutex_lock(&mem_lock);
	a->next = allocs;
	allocs = a;
	pthread_mutex_unlock(&mem_lock);
	*p = a->p;
	return OK;
}
API int cuMemFree_v2(unsigned long long p)
{
	struct falloc **pa, *a = NULL;

	pthread_mutex_lock(&mem_lock);
	for (pa = &allocs; *pa; pa = &(*pa)->next)
		if ((*pa)->p == p) {
			a = *pa;
			*pa = a->next;
			break;
		}
	pthread_mutex_unlock(&mem_lock);
	if (!a)
		return INVALID_VALUE;
	free((void *)a->p);
	free(a);
	return OK;
}
/* Unified addressing: a copy runs in the current context, on any device's memory. */
API int cuMemcpyHtoD_v2(unsigned long long d, const void *s, size_t n)
{
	if (!current())
		return INVALID_CONTEXT;
	if (mem_dev((uintptr_t)d, n) < 0)
		return INVALID_VALUE;
	memcpy((void *)(uintptr_t)d, s, n);
	return OK;
}
API int cuMemcpyDtoH_v2(void *d, unsigned long long s, size_t n)
{
	if (!current())
		return INVALID_CONTEXT;
	if (mem_dev((uintptr_t)s, n) < 0)
		return INVALID_VALUE;
	memcpy(d, (void *)(uintptr_t)s, n);
	return OK;
}
/* CU_POINTER_ATTRIBUTE_CONTEXT (1) and _DEVICE_ORDINAL (9). */
API int cuPointerGetAttribute(void *data, int attr, unsigned long long p)
{
	int dev = mem_dev((uintptr_t)p, 1);

	if (dev < 0)
		return INVALID_VALUE;
	if (attr == 1)
		*(void **)data = &ctxs[dev];
	else if (attr == 9)
		*(int *)data = dev;
	else
		return INVALID_VALUE;
	return OK;
}

/* ---- streams, tagged with their context --------------------------------- */
struct fstream { struct fctx *ctx; };
/* NULL, CU_STREAM_LEGACY (1), CU_STREAM_PER_THREAD (2): the current context's. */
static struct fctx *stream_ctx(void *s)
{
	return (uintptr_t)s <= 2 ? current() : ((struct fstream *)s)->ctx;
}
API int cuStreamCreate(void **s, unsigned flags)
{
	struct fstream *st;

	(void)flags;
	if (!current())
		return INVALID_CONTEXT;
	st = malloc(sizeof(*st));
	if (!st)
		return OUT_OF_MEMORY;
	st->ctx = current();
	*s = st;
	return OK;
}
API int cuStreamDestroy_v2(void *s) { free(s); return OK; }
API int cuStreamGetCtx(void *s, void **c)
{
	if (!stream_ctx(s))
		return INVALID_CONTEXT;
	*c = stream_ctx(s);
	return OK;
}
API int cuStreamSynchronize(void *s)
{
	if (!current() || stream_ctx(s) != current())
		return INVALID_HANDLE;
	return OK;
}

/* CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES (1), MAX_DYNAMIC_SHARED_SIZE_BYTES (8) */
API int cuFuncGetAttribute(int *v, int a, void *f)
{
	struct ffunc *fn = f;

	if (a == 1)
		*v = fn->smem_static;
	else if (a == 8)
		*v = fn->max_dynamic;
	else
		return INVALID_VALUE;
	return OK;
}
API int cuFuncSetAttribute(void *f, int a, int v)
{
	struct ffunc *fn = f;

	if (a != 8 || v < 0 || v > SMEM_OPTIN - fn->smem_static ||
	    (getenv("HR_FAKE_CUDA_NO_OPTIN") && v > SMEM_DEFAULT - fn->smem_static))
		return INVALID_VALUE;
	fn->max_dynamic = v;
	return OK;
}

#ifndef HR_FAKE_PARTIAL
API int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned sh, void *s, void **p, void **e)
{
	struct ffunc *fn = f;
	struct fctx *c = current();

	(void)gx; (void)gy; (void)gz; (void)e;
	if (!c)
		return INVALID_CONTEXT;
	if (fn->dev != c->dev || stream_ctx(s) != c)
		return INVALID_HANDLE;
	if (bx * by * bz > 1024 || sh > (unsigned)fn->max_dynamic)
		return INVALID_VALUE;
	if (strcmp(fn->name, "fake_fill") == 0) {
		unsigned long long ptr = *(unsigned long long *)p[0];
		unsigned v = *(unsigned *)p[1], n = *(unsigned *)p[2];

		if (mem_dev((uintptr_t)ptr, (size_t)n * sizeof(unsigned)) != c->dev)
			return ILLEGAL_ADDRESS;
		for (unsigned i = 0; i < n; i++)
			((unsigned *)(uintptr_t)ptr)[i] = v;
	}
	__atomic_add_fetch(&launches[c->dev], 1, __ATOMIC_RELAXED);
	return OK;
}
#endif
API int cuEventCreate(void **e, unsigned f) { (void)f; *e = malloc(1); return OK; }
API int cuEventRecord(void *e, void *s) { (void)e; (void)s; return OK; }
API int cuEventSynchronize(void *e) { (void)e; return OK; }
API int cuEventElapsedTime(float *ms, void *a, void *b) { (void)a; (void)b; *ms = 1.5f; return OK; }
API int cuEventDestroy_v2(void *e) { free(e); return OK; }
/* Launch geometry: 2048 resident threads per SM. */
API int cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f, int block, size_t shared)
{
	(void)f;
	(void)shared;
	*n = block > 0 ? 2048 / block : 0;
	return OK;
}
API int cuGetErrorName(int r, const char **s)
{
	*s = r == OK ? "CUDA_SUCCESS" : r == INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE" :
	     r == NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : r == INVALID_DEVICE ? "CUDA_ERROR_INVALID_DEVICE" :
	     r == INVALID_IMAGE ? "CUDA_ERROR_INVALID_IMAGE" : r == INVALID_CONTEXT ? "CUDA_ERROR_INVALID_CONTEXT" :
	     r == NO_BINARY ? "CUDA_ERROR_NO_BINARY_FOR_GPU" : r == INVALID_HANDLE ? "CUDA_ERROR_INVALID_HANDLE" :
	     r == NOT_FOUND ? "CUDA_ERROR_NOT_FOUND" : r == ILLEGAL_ADDRESS ? "CUDA_ERROR_ILLEGAL_ADDRESS" :
	     "CUDA_ERROR_UNKNOWN";
	return OK;
}
