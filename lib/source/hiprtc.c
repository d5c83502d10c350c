/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Runtime compilation in-process: hipRTC for AMD targets (Debian 12/13 carry
 * it inside libamdhip64.so.5, with libhiprtc-builtins5; ROCm 6 and sid ship
 * libhiprtc.so.6) and NVRTC for NVIDIA (libnvrtc.so.*), both opened with
 * dlopen on use, never linked.  hipRTC's code is a raw AMDGPU ELF, or a
 * clang offload bundle holding one (unbundled here); either way it is
 * checked (shared/elf.c) before anyone keeps it.
 * Layer: build (lib/layers).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "context.h"
#include "target/target.h"
#include "shared/util.h"
#include "shared/elf.h"

/* hipRTC and NVRTC share the shape of this API (results: 0 = success). */
typedef int (*rtc_version_fn)(int *, int *);
typedef int (*rtc_create_fn)(void **, const char *, const char *, int,
                             const char *const *, const char *const *);
typedef int (*rtc_compile_fn)(void *, int, const char *const *);
typedef int (*rtc_size_fn)(void *, size_t *);
typedef int (*rtc_get_fn)(void *, char *);
typedef int (*rtc_destroy_fn)(void **);
typedef const char *(*rtc_error_fn)(int);

struct rtc {
	const char *lib;
	rtc_version_fn version;
	rtc_create_fn create;
	rtc_compile_fn compile;
	rtc_size_fn log_size, code_size;
	rtc_get_fn log, code;
	rtc_destroy_fn destroy;
	rtc_error_fn error;
};


static void *sym(void *h, const char *prefix, const char *name)
{
	char full[64];

	snprintf(full, sizeof(full), "%s%s", prefix, name);
	return dlsym(h, full);
}

/* The first library that has the API; kept loaded (RTLD_NODELETE). */
static int rtc_open(struct hanzo_rocm *ctx, const struct hr_rtc_facts *f, struct rtc *r)
{
	const char *const *libs = f->libs;
	const char *p = f->prefix;

	for (size_t i = 0; libs[i]; i++) {
		void *h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);

		if (!h) {
			hr_dbg(ctx, "%s: %s\n", libs[i], dlerror());
			continue;
		}
		*r = (struct rtc){
			.lib = libs[i],
			.version = (rtc_version_fn)sym(h, p, "Version"),
			.create = (rtc_create_fn)sym(h, p, "CreateProgram"),
			.compile = (rtc_compile_fn)sym(h, p, "CompileProgram"),
			.log_size = (rtc_size_fn)sym(h, p, "GetProgramLogSize"),
			.log = (rtc_get_fn)sym(h, p, "GetProgramLog"),
			.code_size = (rtc_size_fn)sym(h, p, f->code_size_fn),
			.code = (rtc_get_fn)sym(h, p, f->code_fn),
			.destroy = (rtc_destroy_fn)sym(h, p, "DestroyProgram"),
			.error = (rtc_error_fn)sym(h, p, "GetErrorString"),
		};
		if (r->create && r->compile && r->log_size && r->log && r->code_size &&
		    r->code && r->destroy)
			return 0;
		hr_dbg(ctx, "%s: no %sCreateProgram/... API\n", libs[i], p);
		dlclose(h);
	}
	return -ENOENT;
}

static const char *rtc_error(const struct rtc *r, int e)
{
	const char *s = r->error ? r->error(e) : NULL;

	return s ? s : "error";
}

/*
 * A clang offload bundle: "__CLANG_OFFLOAD_BUNDLE__", u64 count, then per
 * entry u64 offset, u64 size, u64 id length, id ("hipv4-amdgcn-amd-amdhsa--
 * gfx90a").  The AMDGPU entry, bounds-checked, copied out.
 */
#define BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int unbundle(const unsigned char *b, size_t n, void **obj, size_t *size)
{
	size_t pos = sizeof(BUNDLE_MAGIC) - 1 + 8;
	uint64_t count;

	if (n < pos)
		return -ENOEXEC;
	count = rd64(b + sizeof(BUNDLE_MAGIC) - 1);
	for (uint64_t i = 0; i < count && i < 64; i++) {
		uint64_t off, sz, idlen;

		if (n - pos < 24)
			return -ENOEXEC;
		off = rd64(b + pos);
		sz = rd64(b + pos + 8);
		idlen = rd64(b + pos + 16);
		pos += 24;
		if (idlen > n - pos)
			return -ENOEXEC;
		if (memmem(b + pos, idlen, "amdgcn-amd-amdhsa", 17) && off <= n && sz <= n - off &&
		    sz > 0) {
			*obj = malloc(sz);
			if (!*obj)
				return -ENOMEM;
			memcpy(*obj, b + off, sz);
			*size = sz;
			return 0;
		}
		pos += idlen;
	}
	return -ENOEXEC;
}

/*
 * hipRTC defines some fixed-width types itself (ROCm 5.2: only the 32- and
 * 64-bit ones, uint64_t as unsigned long long) and has no C library: the
 * system's <stdint.h> would redefine them differently (NVRTC has no C
 * library either).  So `#include
 * <stdint.h>` and its kin become blank lines (line numbers stay) and this
 * preamble, ahead of the text, gives what they would have: the same types
 * hipRTC uses where it has them (a repeated typedef of one type is fine),
 * the rest as on the host, and the limits as literals.
 */
static const char rtc_preamble[] =
	"#ifndef HR_RTC_PREAMBLE\n#define HR_RTC_PREAMBLE 1\n"
	"typedef signed char int8_t;\ntypedef unsigned char uint8_t;\n"
	"typedef short int16_t;\ntypedef unsigned short uint16_t;\n"
	"typedef signed int int32_t;\ntypedef unsigned int uint32_t;\n"
	"typedef signed long long int64_t;\ntypedef unsigned long long uint64_t;\n"
	"typedef long intptr_t;\ntypedef unsigned long uintptr_t;\n"
	"#ifndef NULL\n#define NULL nullptr\n#endif\n"
	"#ifndef offsetof\n#define offsetof(t, m) __builtin_offsetof(t, m)\n#endif\n"
	"#ifndef INT8_MAX\n"
	"#define INT8_MAX 127\n#define INT8_MIN (-INT8_MAX - 1)\n#define UINT8_MAX 255\n"
	"#define INT16_MAX 32767\n#define INT16_MIN (-INT16_MAX - 1)\n#define UINT16_MAX 65535\n"
	"#define INT32_MAX 2147483647\n#define INT32_MIN (-INT32_MAX - 1)\n#define UINT32_MAX 4294967295U\n"
	"#define INT64_MAX 9223372036854775807LL\n#define INT64_MIN (-INT64_MAX - 1)\n"
	"#define UINT64_MAX 18446744073709551615ULL\n#define SIZE_MAX 18446744073709551615UL\n"
	"#define INTPTR_MAX 9223372036854775807L\n#define UINTPTR_MAX 18446744073709551615UL\n"
	"#define INT32_C(c) c\n#define UINT32_C(c) c##U\n#define INT64_C(c) c##LL\n#define UINT64_C(c) c##ULL\n"
	"#endif\n#endif\n";
/* hipRTC (clang) has no size_t of its own without the C library; NVRTC does. */
static bool is_type_include(const char *p, size_t n)
{
	static const char *const names[] = { "<stdint.h>", "<stddef.h>", "<cstdint>", "<cstddef>" };
	size_t i = 0;

	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (i >= n || p[i++] != '#')
		return false;
	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (n - i < 7 || memcmp(p + i, "include", 7) != 0)
		return false;
	i += 7;
	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	for (size_t k = 0; k < HR_ARRAY_SIZE(names); k++) {
		size_t l = strlen(names[k]);

		if (n - i >= l && memcmp(p + i, names[k], l) == 0)
			return true;
	}
	return false;
}

static char *rtc_text(const char *text, size_t len, const struct hr_rtc_facts *f)
{
	size_t own = strlen(f->preamble);
	char *out = malloc(sizeof(rtc_preamble) + own + len + 1), *o = out;
	const char *p = text, *end = text + len;

	if (!out)
		return NULL;
	memcpy(o, f->preamble, own);
	o += own;
	memcpy(o, rtc_preamble, sizeof(rtc_preamble) - 1);
	o += sizeof(rtc_preamble) - 1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!is_type_include(p, n)) {
			memcpy(o, p, n);
			o += n;
		}
		if (nl)
			*o++ = '\n';
		p += n + (nl ? 1 : 0);
	}
	*o = '\0';
	return out;
}

int hr_rtc_compile(struct hanzo_rocm *ctx, const char *name, const char *text,
                   size_t len, const char *const *flags, char *const *config_flags,
                   const char *target, void **obj, size_t *size, char **identity,
                   char **diag)
{
	static char *const default_flags[] = { "-O3", NULL };
	const struct hr_platform_facts *pf = hr_platform_facts(hr_target_platform(target));
	char **opts = hr_strv_new(), arch[HR_TARGET_MAX + 32], *src = NULL, *code = NULL,
	     *log = NULL, why[160];
	void *prog = NULL;
	struct rtc rtc;
	size_t log_size = 0, code_size = 0;
	int maj = 0, min = 0, e, r;

	*obj = NULL;
	*size = 0;
	if (!opts)
		return -ENOMEM;
	if (!pf || !pf->rtc_label || !pf->rtc) {
		hr_strv_free(opts);
		return -EINVAL;
	}
	r = rtc_open(ctx, pf->rtc, &rtc);
	if (r < 0) {
		hr_strv_free(opts);
		return r;
	}
	if (!config_flags)
		config_flags = default_flags;
	snprintf(arch, sizeof(arch), "%s%s", pf->rtc->arch_option, target);
	r = hr_strv_push(&opts, arch);
	for (size_t i = 0; pf->rtc->options[i] && r == 0; i++)
		r = hr_strv_push(&opts, pf->rtc->options[i]);
	for (size_t i = 0; flags && flags[i] && r == 0; i++)
		r = hr_strv_push(&opts, flags[i]);
	/* NVRTC always optimises and knows no -O: the config's -O3 is not for it. */
	for (size_t i = 0; config_flags[i] && r == 0; i++)
		if (pf->rtc->takes_opt_level || strncmp(config_flags[i], "-O", 2) != 0)
			r = hr_strv_push(&opts, config_flags[i]);
	/* The API takes a C string. */
	if (r == 0 && !(src = rtc_text(text, len, pf->rtc)))
		r = -ENOMEM;
	if (r < 0)
		goto out;
	if (rtc.version)
		(void)rtc.version(&maj, &min);
	e = rtc.create(&prog, src, name, 0, NULL, NULL);
	if (e != 0) {
		hr_err(ctx, "%s: creating the program '%s': %s\n", rtc.lib, name, rtc_error(&rtc, e));
		r = -EIO;
		goto out;
	}
	e = rtc.compile(prog, (int)hr_strv_len(opts), (const char *const *)opts);
	if (rtc.log_size(prog, &log_size) == 0 && log_size > 1 && log_size < (16u << 20) &&
	    (log = calloc(1, log_size + 1)) && rtc.log(prog, log) != 0) {
		free(log);
		log = NULL;
	}
	if (e != 0) {
		hr_dbg(ctx, "%s: compiling '%s' for %s: %s\n", rtc.lib, name, target,
		       rtc_error(&rtc, e));
		if (diag && asprintf(diag, "%s (%s) failed for %s: %s\n%s", pf->rtc_label,
		                     rtc.lib, target, rtc_error(&rtc, e), log ? log : "") < 0)
			*diag = NULL;
		r = -EILSEQ;
		goto out;
	}
	if (rtc.code_size(prog, &code_size) != 0 || code_size == 0 || code_size > (512u << 20) ||
	    !(code = malloc(code_size)) || rtc.code(prog, code) != 0) {
		hr_err(ctx, "%s: no code object for '%s' (%s)\n", rtc.lib, name, target);
		r = code || code_size == 0 ? -ENOEXEC : -ENOMEM;
		goto out;
	}
	if (code_size >= sizeof(BUNDLE_MAGIC) - 1 &&
	    memcmp(code, BUNDLE_MAGIC, sizeof(BUNDLE_MAGIC) - 1) == 0) {
		r = unbundle((const unsigned char *)code, code_size, obj, size);
		free(code);
	} else {
		*obj = code;
		*size = code_size;
	}
	code = NULL;
	if (r == 0 && hr_elf_check(*obj, *size, target, why, sizeof(why)) < 0) {
		hr_err(ctx, "%s: the code object of '%s' for %s is not valid: %s\n", rtc.lib,
		       name, target, why);
		r = -ENOEXEC;
	}
	if (r == 0 && asprintf(identity, "%s %d.%d (%s)", pf->rtc_label, maj, min,
	                       rtc.lib) < 0) {
		*identity = NULL;
		r = -ENOMEM;
	}
	if (r < 0) {
		free(*obj);
		*obj = NULL;
		*size = 0;
	}
out:
	if (prog)
		rtc.destroy(&prog);
	free(code);
	free(log);
	free(src);
	hr_strv_free(opts);
	return r;
}
