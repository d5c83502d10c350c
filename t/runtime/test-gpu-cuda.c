/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The backend on a real GPU, below the kernel table: load a module, find a
 * function, allocate, copy, launch, time with events, and refuse foreign code
 * objects with -ENOEXEC instead of crashing.  NVIDIA: the module is PTX the
 * driver JIT-compiles (no compiler needed); an sm_80 cubin (if nvcc exists)
 * must be refused on a newer GPU.
 */
#include <errno.h>
#include <math.h>
#include <sys/stat.h>

#include "../tap.h"
#include "../gpu-test.h"
#include "context.h"
#include "runtime/runtime.h"
#include "shared/util.h"

static const char vadd_ptx[] =
	".version 7.0\n"
	".target sm_75\n"
	".address_size 64\n"
	".visible .entry hr_vadd(\n"
	"\t.param .u64 hr_vadd_param_0,\n"
	"\t.param .u64 hr_vadd_param_1,\n"
	"\t.param .u64 hr_vadd_param_2,\n"
	"\t.param .u64 hr_vadd_param_3\n"
	")\n"
	"{\n"
	"\t.reg .pred \t%p<3>;\n"
	"\t.reg .f32 \t%f<4>;\n"
	"\t.reg .b32 \t%r<5>;\n"
	"\t.reg .b64 \t%rd<21>;\n"
	"\tld.param.u64 \t%rd9, [hr_vadd_param_0];\n"
	"\tld.param.u64 \t%rd10, [hr_vadd_param_1];\n"
	"\tld.param.u64 \t%rd11, [hr_vadd_param_2];\n"
	"\tld.param.u64 \t%rd12, [hr_vadd_param_3];\n"
	"\tmov.u32 \t%r1, %ctaid.x;\n"
	"\tmov.u32 \t%r2, %ntid.x;\n"
	"\tcvt.u64.u32 \t%rd1, %r2;\n"
	"\tmul.wide.u32 \t%rd13, %r1, %r2;\n"
	"\tmov.u32 \t%r3, %tid.x;\n"
	"\tcvt.u64.u32 \t%rd14, %r3;\n"
	"\tadd.s64 \t%rd20, %rd13, %rd14;\n"
	"\tsetp.ge.u64 \t%p1, %rd20, %rd12;\n"
	"\t@%p1 bra \t$L__BB0_3;\n"
	"\tmov.u32 \t%r4, %nctaid.x;\n"
	"\tcvt.u64.u32 \t%rd15, %r4;\n"
	"\tmul.lo.s64 \t%rd3, %rd15, %rd1;\n"
	"\tcvta.to.global.u64 \t%rd4, %rd9;\n"
	"\tcvta.to.global.u64 \t%rd5, %rd10;\n"
	"\tcvta.to.global.u64 \t%rd6, %rd11;\n"
	"$L__BB0_2:\n"
	"\tshl.b64 \t%rd16, %rd20, 2;\n"
	"\tadd.s64 \t%rd17, %rd5, %rd16;\n"
	"\tld.global.f32 \t%f1, [%rd17];\n"
	"\tadd.s64 \t%rd18, %rd4, %rd16;\n"
	"\tld.global.f32 \t%f2, [%rd18];\n"
	"\tadd.f32 \t%f3, %f2, %f1;\n"
	"\tadd.s64 \t%rd19, %rd6, %rd16;\n"
	"\tst.global.f32 \t[%rd19], %f3;\n"
	"\tadd.s64 \t%rd20, %rd20, %rd3;\n"
	"\tsetp.lt.u64 \t%p2, %rd20, %rd12;\n"
	"\t@%p2 bra \t$L__BB0_2;\n"
	"$L__BB0_3:\n"
	"\tret;\n"
	"}\n";

static const char vadd_cu[] =
	"extern \"C\" __global__ void hr_vadd(const float *a, const float *b, float *c,\n"
	"                                     unsigned long long n)\n"
	"{ for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;\n"
	"       i < n; i += (unsigned long long)gridDim.x * blockDim.x) c[i] = a[i] + b[i]; }\n";

/* A cubin of vadd_cu for arch from nvcc (NULL without nvcc); caller frees. */
static void *cubin_for(const char *arch, size_t *size)
{
	char dir[] = "/tmp/hr-gpu-cuda.XXXXXX", cmd[8192], *src, *out;
	const char *nvcc = gpu_nvcc();
	void *data = NULL;
	FILE *f;

	if (!nvcc || !mkdtemp(dir))
		return NULL;
	src = hr_path_join(dir, "vadd.cu");
	out = hr_path_join(dir, "vadd.cubin");
	f = fopen(src, "w");
	if (f) {
		fputs(vadd_cu, f);
		fclose(f);
		snprintf(cmd, sizeof(cmd), "'%s' -cubin -arch=%s -O3 -o '%s' '%s' >/dev/null 2>&1",
		         nvcc, arch, out, src);
		if (system(cmd) != 0 || hr_read_file(out, 1 << 24, &data, size) < 0)
			data = NULL;
	}
	unlink(src);
	unlink(out);
	rmdir(dir);
	free(src);
	free(out);
	return data;
}

int main(void)
{
	struct hanzo_rocm *ctx = NULL;
	const char *target = NULL;
	const size_t n = (1u << 22) + 3;
	unsigned char elf[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	unsigned grid[3] = { 1024, 1, 1 }, block[3] = { 256, 1, 1 };
	float *a, *b, *c, ms = -1;
	double *want;
	uint64_t da = 0, db = 0, dc = 0;
	unsigned long long nn = n;
	void *mod = NULL, *fn = NULL, *e0 = NULL, *e1 = NULL, *cubin, *args[4];
	unsigned dev;
	size_t size;

	if (hanzo_rocm_new(&ctx) < 0)
		skip_all("no context");
	dev = gpu_first_device(ctx, &target);
	if (hanzo_rocm_device_platform(ctx, dev) != HANZO_ROCM_PLATFORM_NVIDIA)
		skip_all("the PTX module needs an NVIDIA GPU");
	diag("device %u: %s", dev, target);

	is_int(hr_runtime_module_load(ctx, dev, vadd_ptx, sizeof(vadd_ptx), &mod), 0,
	       "PTX module loads (driver JIT)");
	is_int(hr_runtime_module_function(ctx, dev, mod, "hr_vadd", &fn), 0, "hr_vadd found");
	is_int(hr_runtime_module_function(ctx, dev, mod, "no_such_kernel", &e0),
	       -ENOENT, "a missing kernel is -ENOENT");

	a = malloc(n * sizeof(float));
	b = malloc(n * sizeof(float));
	c = malloc(n * sizeof(float));
	want = malloc(n * sizeof(double));
	gpu_fill(a, n, 1, -10, 10);
	gpu_fill(b, n, 2, -10, 10);
	for (size_t i = 0; i < n; i++)
		want[i] = (double)a[i] + (double)b[i];
	memset(c, 0xff, n * sizeof(float));     /* NaN poison */
	is_int(hr_runtime_alloc(ctx, dev, n * 4, &da) | hr_runtime_alloc(ctx, dev, n * 4, &db) |
	       hr_runtime_alloc(ctx, dev, n * 4, &dc), 0, "3 x 16 MiB allocated");
	is_int(hr_runtime_copy_htod(ctx, dev, da, a, n * 4) | hr_runtime_copy_htod(ctx, dev, db, b, n * 4) |
	       hr_runtime_copy_htod(ctx, dev, dc, c, n * 4), 0, "inputs copied, output poisoned");
	args[0] = &da; args[1] = &db; args[2] = &dc; args[3] = &nn;
	is_int(hr_runtime_event_create(ctx, dev, &e0) | hr_runtime_event_create(ctx, dev, &e1), 0, "events");
	hr_runtime_event_record(ctx, dev, e0, NULL);
	is_int(hr_runtime_launch(ctx, dev, fn, grid, block, 0, NULL, args), 0, "launch");
	hr_runtime_event_record(ctx, dev, e1, NULL);
	is_int(hr_runtime_event_elapsed(ctx, dev, e0, e1, &ms), 0, "elapsed time");
	ok(ms > 0 && ms < 10000, "a plausible time (%.3f ms)", ms);
	is_int(hr_runtime_synchronize(ctx, dev, NULL), 0, "synchronize");
	is_int(hr_runtime_copy_dtoh(ctx, dev, c, dc, n * 4), 0, "result copied back");
	ok(gpu_max_rel(c, want, n) <= 1e-6, "c = a + b on %zu elements (max rel %.2g)", n,
	   gpu_max_rel(c, want, n));
	block[0] = 4096;
	is_int(hr_runtime_launch(ctx, dev, fn, grid, block, 0, NULL, args), -EINVAL,
	       "a 4096-thread block is refused by the driver: -EINVAL, no crash");
	hr_runtime_event_destroy(ctx, dev, e0);
	hr_runtime_event_destroy(ctx, dev, e1);
	hr_runtime_mem_free(ctx, dev, da);
	hr_runtime_mem_free(ctx, dev, db);
	hr_runtime_mem_free(ctx, dev, dc);
	hr_runtime_module_unload(ctx, dev, mod);

	/* Foreign code objects are refused, not crashes. */
	elf[16] = 2;
	elf[18] = 224;                          /* EM_AMDGPU: a gfx90a-looking header */
	is_int(hr_runtime_module_load(ctx, dev, elf, sizeof(elf), &mod), -ENOEXEC,
	       "an AMDGPU ELF is refused: -ENOEXEC");
	is_int(hr_runtime_module_load(ctx, dev, "not a code object", 18, &mod), -ENOEXEC,
	       "junk is refused: -ENOEXEC");
	cubin = cubin_for("sm_80", &size);
	if (cubin && strncmp(target, "sm_8", 4) != 0) {
		is_int(hr_runtime_module_load(ctx, dev, cubin, size, &mod), -ENOEXEC,
		       "an sm_80 cubin is refused on %s: -ENOEXEC", target);
	} else {
		skip(1, "needs nvcc and a GPU newer than sm_8x");
	}
	free(cubin);

	/* Which header damage does this driver notice?  (Informational.) */
	cubin = cubin_for(target, &size);
	if (cubin && size > 64) {
		static const struct { unsigned off; uint8_t val; const char *what; } dmg[] = {
			{ 8, 0x7f, "EI_ABIVERSION 0x7f" }, { 7, 0x00, "EI_OSABI 0" },
			{ 16, 1, "e_type ET_REL" }, { 49, 0xff, "e_flags bits 8..15" },
			{ 50, 0xff, "e_flags bits 16..23" },
		};
		for (size_t i = 0; i < sizeof(dmg) / sizeof(dmg[0]); i++) {
			uint8_t *c2 = malloc(size);
			int r;

			memcpy(c2, cubin, size);
			c2[dmg[i].off] = dmg[i].val;
			r = hr_runtime_module_load(ctx, dev, c2, size, &mod);
			diag("%s: %s", dmg[i].what, r == 0 ? "accepted" : hanzo_rocm_strerror(r));
			if (r == 0)
				hr_runtime_module_unload(ctx, dev, mod);
			free(c2);
		}
	}
	free(cubin);
	free(a); free(b); free(c); free(want);
	hanzo_rocm_unref(ctx);
	return done_testing();
}
