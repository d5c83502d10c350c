/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Caller source text: checks, the text each platform compiles, and the
 * compile through hipcc/nvcc (argv), hipRTC/NVRTC (in-process, dlopen:
 * source/hiprtc.c) or the host C++ compiler.
 *
 * Host targets: the source is compiled after the host execution header
 * (kernels/hr-kernel.h with hr-host.h inlined, generated into
 * kernels/source-prelude.c), and the host backend calls each kernel through an
 * HR_HOST_ENTRY(name) appended to it.  Kernel names may come out of macros,
 * so they are read from the preprocessor's output, where __global__ has
 * been redefined to a marker: `__hr_global__ void NAME (`.
 * Layer: build (lib/layers).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "toolchain/toolchain.h"
#include "config/config.h"
#include "context.h"
#include "target/target.h"
#include "shared/util.h"
#include "shared/name.h"
#include "shared/elf.h"

extern const unsigned char hr_source_prelude[];
extern const size_t hr_source_prelude_len;

#define MARKER "__hr_global__"

/* Characters of an option's value that name no path and split into no other option. */
static bool plain(const char *v)
{
	for (; *v; v++)
		if (!isalnum((unsigned char)*v) && !strchr("_-+=.:", *v))
			return false;
	return true;
}

/*
 * A caller's compile flag, by an allow-list: a flag is an option that
 * neither reads nor writes a file (no -o, -MF/-MD/-MT, -save-temps,
 * @file, -I, -include, -fplugin=..., -Wl,...): -D and -U (any value
 * without a newline), -O, -g, -std=, -w, -W (no comma), -f and -m
 * (plain values; not the -f options that write or load files).
 */
static bool flag_allowed(const char *f)
{
	static const char *const f_denied[] = {
		"-fplugin", "-fpass-plugin", "-fprofile", "-fcoverage", "-fdump", "-fsave",
		"-fcrash", "-fmodule", "-fdebug-prefix", "-ffile-prefix", "-fmacro-prefix",
		"-fdiagnostics-", "-fembed", "-fopenmp", "-fsanitize-blacklist",
		"-fsanitize-ignorelist", "-frandom-seed", "-ftime-trace", "-fproc-stat",
		"-fgpu-rdc", "-fno-gpu-rdc", "-fstack-usage", "-fcs-profile", "-fxray",
	};
	static const char *const o_levels[] = { "-O0", "-O1", "-O2", "-O3", "-Os", "-Oz", "-Og",
	                                        "-Ofast", "-O", "-g", "-g0", "-g1", "-g2", "-g3",
	                                        "-w" };

	if (strchr(f, '\n'))
		return false;
	if ((f[0] == '-' && (f[1] == 'D' || f[1] == 'U')) && f[2])
		return true;
	for (size_t i = 0; i < sizeof(o_levels) / sizeof(o_levels[0]); i++)
		if (strcmp(f, o_levels[i]) == 0)
			return true;
	if (strncmp(f, "-std=", 5) == 0)
		return f[5] && plain(f + 5);
	if (strncmp(f, "-W", 2) == 0)
		return f[2] && plain(f + 2);   /* no comma: never -Wl, -Wa, -Wp, */
	if (strncmp(f, "-f", 2) == 0) {
		for (size_t i = 0; i < sizeof(f_denied) / sizeof(f_denied[0]); i++)
			if (strncmp(f, f_denied[i], strlen(f_denied[i])) == 0)
				return false;
		return f[2] && plain(f + 2);
	}
	if (strncmp(f, "-m", 2) == 0)
		return f[2] && plain(f + 2) && strcmp(f, "-mllvm") != 0;
	return false;
}

int hr_source_check(struct hanzo_rocm *ctx, const struct hr_source_spec *s)
{
	size_t n = 0;

	if (!s->name || !hr_name_dotted_is_valid(s->name) || strlen(s->name) > HR_SOURCE_NAME_MAX) {
		hr_err(ctx, "invalid source name '%s' (names of %s, joined by single dots; at most %d here)\n",
		       s->name ? s->name : "(null)", HR_NAME_RULE, HR_SOURCE_NAME_MAX);
		return -EINVAL;
	}
	if (!s->source || s->source_len == 0 || s->source_len > HR_SOURCE_MAX_TEXT ||
	    memchr(s->source, '\0', s->source_len)) {
		hr_err(ctx, "source '%s': empty, larger than %u bytes or with a NUL byte\n",
		       s->name, HR_SOURCE_MAX_TEXT);
		return -EINVAL;
	}
	for (; s->flags && s->flags[n]; n++) {
		const char *f = s->flags[n];

		if (n >= HR_SOURCE_MAX_FLAGS || strlen(f) > HR_SOURCE_MAX_FLAG || !flag_allowed(f)) {
			hr_err(ctx, "source '%s': refusing compile flag '%s' (allowed: -D, -U, -O, -g, "
			       "-std=, -W, -w, -f and -m options that name no file; at most %d flags "
			       "of %d characters)\n", s->name, f, HR_SOURCE_MAX_FLAGS,
			       HR_SOURCE_MAX_FLAG);
			return -EINVAL;
		}
	}
	return 0;
}

/* `#include <hip/hip_runtime.h>` (or "..." or _api.h): other platforms supply it. */
static bool is_hip_include(const char *p, size_t n)
{
	char line[256];
	const char *q = line;

	if (n >= sizeof(line))
		return false;
	memcpy(line, p, n);
	line[n] = '\0';
	while (*q == ' ' || *q == '\t')
		q++;
	if (*q++ != '#')
		return false;
	while (*q == ' ' || *q == '\t')
		q++;
	if (strncmp(q, "include", 7) != 0)
		return false;
	q += 7;
	while (*q == ' ' || *q == '\t')
		q++;
	return strncmp(q, "<hip/hip_runtime.h>", 19) == 0 ||
	       strncmp(q, "\"hip/hip_runtime.h\"", 19) == 0 ||
	       strncmp(q, "<hip/hip_runtime_api.h>", 23) == 0 ||
	       strncmp(q, "\"hip/hip_runtime_api.h\"", 23) == 0;
}

struct buf {
	char *p;
	size_t n, cap;
	int err;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->err || n == 0)
		return;
	if (!b->p || b->n + n + 1 > b->cap) {
		size_t cap = (b->n + n + 1) * 2;
		char *p = realloc(b->p, cap);

		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* -DNAME[=VALUE] / -UNAME as preprocessor lines (host targets). */
static void put_defines(struct buf *b, const char *const *flags)
{
	for (size_t i = 0; flags && flags[i]; i++) {
		const char *f = flags[i], *eq;

		if (strncmp(f, "-D", 2) == 0 && f[2]) {
			eq = strchr(f + 2, '=');
			puts_(b, "#define ");
			if (eq) {
				put(b, f + 2, (size_t)(eq - f - 2));
				puts_(b, " ");
				puts_(b, eq + 1);
			} else {
				puts_(b, f + 2);
				puts_(b, " 1");
			}
			puts_(b, "\n");
		} else if (strncmp(f, "-U", 2) == 0 && f[2]) {
			puts_(b, "#undef ");
			puts_(b, f + 2);
			puts_(b, "\n");
		}
	}
}

static void put_source(struct buf *b, const struct hr_source_spec *s, bool drop_hip)
{
	const char *p = s->source, *end = s->source + s->source_len;

	puts_(b, "#line 1 \"");
	puts_(b, s->name);
	puts_(b, ".hip\"\n");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!(drop_hip && is_hip_include(p, n)))
			put(b, p, n);
		put(b, "\n", 1);
		p += n + (nl ? 1 : 0);
	}
}

static int text_for(const struct hr_source_spec *s, const char *target, bool scan,
                    struct buf *b)
{
	const struct hr_platform_facts *pf = hr_target_validate(target) == 0 ? hr_platform_of(target) : NULL;

	if (!pf)
		return -EINVAL;
	if (pf->source_prelude) {
		put(b, (const char *)hr_source_prelude, hr_source_prelude_len);
		if (scan)
			puts_(b, "\n#undef __global__\n#define __global__ " MARKER "\n");
		put_defines(b, s->flags);
	}
	put_source(b, s, !pf->hip_runtime);
	return b->err;
}

int hr_source_text(const struct hr_source_spec *s, const char *target,
                   char **text, size_t *len)
{
	struct buf b = { 0 };
	int r = text_for(s, target, false, &b);

	if (r < 0) {
		free(b.p);
		return r;
	}
	*text = b.p;
	*len = b.n;
	return 0;
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* `__hr_global__ void NAME (` in preprocessed text: NAME, once each. */
static int scan_kernels(const char *text, char ***names)
{
	char **v = hr_strv_new();
	const char *p = text;
	size_t ml = strlen(MARKER);

	if (!v)
		return -ENOMEM;
	while ((p = strstr(p, MARKER))) {
		const char *q = p + ml, *id;
		char name[256];

		if ((p > text && ident_char(p[-1])) || ident_char(*q)) {
			p = q;
			continue;
		}
		p = q;
		while (isspace((unsigned char)*q))
			q++;
		if (strncmp(q, "void", 4) != 0 || ident_char(q[4]))
			continue;
		q += 4;
		while (isspace((unsigned char)*q))
			q++;
		id = q;
		while (ident_char(*q))
			q++;
		if (q == id || (size_t)(q - id) >= sizeof(name))
			continue;
		memcpy(name, id, (size_t)(q - id));
		name[q - id] = '\0';
		while (isspace((unsigned char)*q))
			q++;
		if (*q != '(' || hr_strv_contains(v, name))
			continue;
		if (hr_strv_push(&v, name) < 0) {
			hr_strv_free(v);
			return -ENOMEM;
		}
	}
	*names = v;
	return 0;
}

static int compile_host(struct hanzo_rocm *ctx, const struct hr_source_spec *s,
                        const char *target, void **obj, size_t *size,
                        char **identity, char **diag)
{
	const struct hr_platform_facts *pf = hr_platform_of(target);
	struct hr_toolchain *tc = NULL;
	struct buf scan = { 0 }, full = { 0 };
	char *pp = NULL, **names = NULL;
	int r;

	r = pf ? hr_toolchain_find(ctx, pf->cc->kind, &tc) : -EINVAL;
	if (r < 0) {
		hr_err(ctx, "source '%s': no %s for %s\n", s->name,
		       pf ? pf->compiler_label : "compiler", target);
		return r;
	}
	hr_info(ctx, "compiling source '%s' for %s with %s\n", s->name, target,
	        tc->identity ? tc->identity : tc->path);
	r = text_for(s, target, true, &scan);
	if (r == 0)
		r = hr_toolchain_preprocess(ctx, tc, scan.p, scan.n, target, &pp, diag);
	if (r == -EIO)
		r = -EILSEQ;
	if (r == 0)
		r = scan_kernels(pp, &names);
	if (r == 0)
		r = text_for(s, target, false, &full);
	if (r == 0) {
		puts_(&full, "\n/* host entry points (hanzo-rocm) */\n");
		for (size_t i = 0; names[i]; i++) {
			puts_(&full, "HR_HOST_ENTRY(");
			puts_(&full, names[i]);
			puts_(&full, ")\n");
		}
		r = full.err;
	}
	if (r == 0) {
		hr_dbg(ctx, "source '%s': %zu kernels for %s\n", s->name, hr_strv_len(names), target);
		r = hr_toolchain_compile(ctx, tc, full.p, full.n, NULL, NULL, target, obj,
		                         size, diag);
		if (r == -EIO)
			r = -EILSEQ;
	}
	if (r == 0 && !(*identity = strdup(tc->identity ? tc->identity : tc->path))) {
		free(*obj);
		*obj = NULL;
		r = -ENOMEM;
	}
	hr_strv_free(names);
	free(pp);
	free(scan.p);
	free(full.p);
	hr_toolchain_free(tc);
	return r;
}

static int compile_program(struct hanzo_rocm *ctx, struct hr_toolchain *tc,
                           const struct hr_source_spec *s, const char *target,
                           const char *text, size_t len, void **obj, size_t *size,
                           char **identity, char **diag)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	char reason[256] = "";
	int r = hr_toolchain_can_build(tc, target, reason, sizeof(reason));

	if (r < 0) {
		hr_info(ctx, "source '%s': cannot build %s: %s\n", s->name, target, reason);
		return r;
	}
	r = hr_toolchain_compile(ctx, tc, text, len, s->flags, cfg ? cfg->flags : NULL,
	                         target, obj, size, diag);
	if (r == -EIO)
		return -EILSEQ;
	if (r == 0 && !(*identity = strdup(tc->identity ? tc->identity : tc->path))) {
		free(*obj);
		*obj = NULL;
		return -ENOMEM;
	}
	return r;
}

/*
 * What a compiler gave is checked like a cache entry before anyone (the
 * cache, a driver, dlopen) sees it: ELF machine and target, segments
 * inside the bytes (shared/elf.c).
 */
static int check_output(struct hanzo_rocm *ctx, const struct hr_source_spec *s,
                        const char *target, int r, void **obj, size_t *size,
                        char **identity)
{
	char why[160] = "";

	if (r < 0)
		return r;
	/* The target's platform row says what its code objects are (shared/elf.c). */
	r = hr_elf_check(*obj, *size, target, why, sizeof(why));
	if (r == 0)
		return 0;
	hr_err(ctx, "source '%s': the compiler's output for %s is not a valid code object: %s\n",
	       s->name, target, why);
	free(*obj);
	*obj = NULL;
	*size = 0;
	free(*identity);
	*identity = NULL;
	return -ENOEXEC;
}

static int compile_any(struct hanzo_rocm *ctx, const struct hr_source_spec *s,
                       const char *target, void **obj, size_t *size,
                       char **identity, char **diag);

int hr_source_compile(struct hanzo_rocm *ctx, const struct hr_source_spec *s,
                      const char *target, void **obj, size_t *size,
                      char **identity, char **diag)
{
	int r = compile_any(ctx, s, target, obj, size, identity, diag);

	return check_output(ctx, s, target, r, obj, size, identity);
}

static int compile_any(struct hanzo_rocm *ctx, const struct hr_source_spec *s,
                       const char *target, void **obj, size_t *size,
                       char **identity, char **diag)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	enum hr_compile_backend be = cfg ? cfg->backend : HR_BACKEND_AUTO;
	const struct hr_platform_facts *pf = hr_platform_facts(hr_target_platform(target));
	struct hr_toolchain *tc = NULL;
	char *text = NULL;
	size_t len = 0;
	bool found = false;
	int r;

	*obj = NULL;
	*size = 0;
	*identity = NULL;
	if (diag)
		*diag = NULL;
	if (!pf)
		return -EINVAL;
	if (pf->source_prelude)
		return compile_host(ctx, s, target, obj, size, identity, diag);
	r = hr_source_text(s, target, &text, &len);
	if (r < 0)
		return r;
	r = -ENOENT;
	if (be != HR_BACKEND_HIPRTC) {
		r = hr_toolchain_find(ctx, pf->cc->kind, &tc);
		if (r == 0) {
			found = true;
			hr_info(ctx, "compiling source '%s' for %s with %s\n", s->name, target,
			        tc->identity ? tc->identity : tc->path);
			r = compile_program(ctx, tc, s, target, text, len, obj, size, identity, diag);
			hr_toolchain_free(tc);
		} else if (be == HR_BACKEND_HIPCC) {
			hr_err(ctx, "source '%s': no %s found to build %s ([compiler] backend = hipcc)\n",
			       s->name, pf->compiler_label, target);
		}
	}
	if (be == HR_BACKEND_HIPRTC || (be == HR_BACKEND_AUTO && !found)) {
		hr_info(ctx, "compiling source '%s' for %s in-process (%s)\n", s->name, target,
		        pf->rtc_label ? pf->rtc_label : "none");
		r = hr_rtc_compile(ctx, s->name, text, len, s->flags, cfg ? cfg->flags : NULL,
		                   target, obj, size, identity, diag);
		if (r == -ENOENT)
			hr_err(ctx, "source '%s': no compiler for %s (neither %s nor %s was found)\n",
			       s->name, target, pf->compiler_label,
			       pf->rtc_need ? pf->rtc_need : "an in-process compiler");
	}
	free(text);
	return r;
}
