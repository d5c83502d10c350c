/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stand-in libcuda.so.1 for tests on machines without a GPU, put first on
 * LD_LIBRARY_PATH.  HR_FAKE_CUDA_DEVICES=N pretends N sm_90 devices (0: cuInit
 * fails with CUDA_ERROR_NO_DEVICE).  Module loading accepts only ELF images
 * for EM_CUDA (190) whose EI_ABIVERSION is not 0x7f, like a driver refusing
 * foreign or too-new code objects.  Built a
 * second time with HR_FAKE_PARTIAL, lacking cuLaunchKernel, to test a driver
 * with a missing symbol.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The driver API has no header here: the definitions are the prototypes. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define API __attribute__((visibility("default")))

static int ndev(void)
{
	const char *v = getenv("HR_FAKE_CUDA_DEVICES");

	return v ? atoi(v) : 0;
}

API int cuInit(unsigned f) { (void)f; return ndev() > 0 ? 0 : 100; }
API int cuDeviceGetCount(int *n) { *n = ndev(); return 0; }
API int cuDeviceGet(int *d, int o) { if (o < 0 || o >= ndev()) return 101; *d = o; return 0; }
API int cuDeviceGetAttribute(int *v, int a, int d)
{
	(void)d;
	/* sm_90; 4 SMs (16), the rest unknown (0): the launch geometry's defaults */
	*v = a == 75 ? 9 : a == 76 ? 0 : a == 16 ? 4 : 0;
	return 0;
}
API int cuDeviceGetName(char *s, int n, int d) { (void)d; strncpy(s, "Fake GPU", (size_t)n); return 0; }
static int primary = 0x1234;
API int cuDevicePrimaryCtxRetain(void **c, int d) { (void)d; *c = &primary; return 0; }
API int cuDevicePrimaryCtxRelease_v2(int d) { (void)d; return 0; }
API int cuCtxPushCurrent_v2(void *c) { return c == &primary ? 0 : 201; }
API int cuCtxPopCurrent_v2(void **c) { *c = &primary; return 0; }
API int cuCtxSynchronize(void) { return 0; }
API int cuModuleLoadData(void **m, const void *img)
{
	const unsigned char *p = img;

	if (memcmp(p, "\177ELF", 4) != 0 || (p[18] | p[19] << 8) != 190)
		return 200;    /* CUDA_ERROR_INVALID_IMAGE */
	if (p[8] == 0x7f)      /* an ABI version this "driver" does not know */
		return 209;    /* CUDA_ERROR_NO_BINARY_FOR_GPU */
	*m = malloc(1);
	return 0;
}
API int cuModuleUnload(void *m) { free(m); return 0; }
API int cuModuleGetFunction(void **f, void *m, const char *name)
{
	(void)m;
	if (strncmp(name, "missing", 7) == 0)
		return 500;    /* CUDA_ERROR_NOT_FOUND */
	*f = (void *)name;
	return 0;
}
#ifndef HR_FAKE_PARTIAL
API int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned sh, void *s, void **p, void **e)
{
	(void)f; (void)gx; (void)gy; (void)gz; (void)sh; (void)s; (void)p; (void)e;
	return bx * by * bz > 1024 ? 1 : 0;    /* CUDA_ERROR_INVALID_VALUE */
}
#endif
API int cuMemAlloc_v2(unsigned long long *p, size_t n) { *p = (uintptr_t)malloc(n); return *p ? 0 : 2; }
API int cuMemFree_v2(unsigned long long p) { free((void *)(uintptr_t)p); return 0; }
API int cuMemcpyHtoD_v2(unsigned long long d, const void *s, size_t n) { memcpy((void *)(uintptr_t)d, s, n); return 0; }
API int cuMemcpyDtoH_v2(void *d, unsigned long long s, size_t n) { memcpy(d, (void *)(uintptr_t)s, n); return 0; }
API int cuStreamSynchronize(void *s) { (void)s; return 0; }
API int cuEventCreate(void **e, unsigned f) { (void)f; *e = malloc(1); return 0; }
API int cuEventRecord(void *e, void *s) { (void)e; (void)s; return 0; }
API int cuEventSynchronize(void *e) { (void)e; return 0; }
API int cuEventElapsedTime(float *ms, void *a, void *b) { (void)a; (void)b; *ms = 1.5f; return 0; }
API int cuEventDestroy_v2(void *e) { free(e); return 0; }
/* Launch geometry: 2048 resident threads per SM. */
API int cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f, int block, size_t shared)
{
	(void)f;
	(void)shared;
	*n = block > 0 ? 2048 / block : 0;
	return 0;
}
API int cuGetErrorName(int r, const char **s)
{
	*s = r == 0 ? "CUDA_SUCCESS" : r == 1 ? "CUDA_ERROR_INVALID_VALUE" : r == 100 ? "CUDA_ERROR_NO_DEVICE" :
	     r == 200 ? "CUDA_ERROR_INVALID_IMAGE" : r == 209 ? "CUDA_ERROR_NO_BINARY_FOR_GPU" :
	     r == 500 ? "CUDA_ERROR_NOT_FOUND" : "CUDA_ERROR_UNKNOWN";
	return 0;
}
