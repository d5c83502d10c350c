/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Compilers (layer: build): finding hipcc/nvcc/c++, their versions and
 * buildable targets.  Compiling one source is toolchain/compile.c.
 * Only precompile and compile-on-miss come here; nothing on a hot path.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/spawn.h"

#include "config/config.h"
#include "platform/platform.h"
#include "shared/elf.h"
#include "context.h"
#include "target/target.h"
#include "toolchain.h"
#include "shared/util.h"
#include "shared/targets.h"

#define PROBE_TIMEOUT_MS 60000  /* `hipcc --version` runs perl + a python enumerator */

/* ---- finding ------------------------------------------------------------- */

static bool is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/*
 * A configured name is looked up in PATH, then in the vendor directories; a
 * configured path must be absolute (a relative one would depend on the cwd).
 * Empty PATH entries are skipped rather than meaning ".".  precompile's
 * toolchain stamp resolves the name through here too, so both agree.
 */
int hr_toolchain_locate(const char *name, enum hr_compiler kind, char **ret)
{
	static const char *const no_dirs[] = { NULL };
	const struct hr_compiler_facts *cc = hr_compiler_facts(kind);
	const char *const *extra_dirs = cc ? cc->search_dirs : no_dirs;
	const char *path_env = hr_getenv("PATH");
	char **dirs;
	int r = -ENOENT;

	*ret = NULL;
	if (!name || !*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if (name[0] != '/')
			return -EINVAL;
		if (!is_executable_file(name))
			return -ENOENT;
		*ret = strdup(name);
		return *ret ? 0 : -ENOMEM;
	}
	dirs = hr_strv_split(path_env ? path_env : "/usr/local/bin:/usr/bin:/bin", ":");
	if (!dirs)
		return -ENOMEM;
	for (size_t i = 0; extra_dirs[i]; i++)
		if (hr_strv_push(&dirs, extra_dirs[i]) < 0) {
			hr_strv_free(dirs);
			return -ENOMEM;
		}
	for (size_t i = 0; dirs[i]; i++) {
		char *p;

		if (dirs[i][0] != '/')
			continue;
		p = hr_path_join(dirs[i], name);
		if (!p) {
			r = -ENOMEM;
			break;
		}
		if (is_executable_file(p)) {
			*ret = p;
			r = 0;
			break;
		}
		free(p);
	}
	hr_strv_free(dirs);
	return r;
}

/* Runs a short query (`--version`), judged by exit status; stderr noise is ignored. */
static int probe(struct hanzo_rocm *ctx, const char *path, const char *arg,
                 bool optional, char **out)
{
	char *argv[] = { (char *)path, (char *)arg, NULL };
	struct hr_spawn s = { .argv = argv, .timeout_ms = PROBE_TIMEOUT_MS,
	                      .max_output = 64 * 1024 };
	int r = hr_spawn_run(&s);

	*out = NULL;
	if (r == 0 && s.exit_status != 0)
		r = -EIO;
	if (r < 0) {
		if (optional)
			hr_dbg(ctx, "%s %s: %s\n", path, arg, r == -EIO ? "failed" : strerror(-r));
		else
			hr_warn(ctx, "%s %s: %s\n", path, arg, r == -EIO ? "failed" : strerror(-r));
		hr_spawn_release(&s);
		return r;
	}
	*out = s.out;
	s.out = NULL;
	hr_spawn_release(&s);
	return 0;
}

/* The version-looking token (digits and dots) after prefix on some line, or NULL. */
static char *version_after(const char *text, const char *prefix)
{
	const char *p = strstr(text, prefix);
	size_t len;

	if (!p)
		return NULL;
	p += strlen(prefix);
	while (*p == ' ')
		p++;
	len = strspn(p, "0123456789.");
	if (len == 0 || !isdigit((unsigned char)p[0]))
		return NULL;
	while (len > 0 && p[len - 1] == '.')
		len--;
	return strndup(p, len);
}

/* First line of a small text file, as a version token ("6.2.0-66" -> "6.2.0"). */
static char *version_from_file(const char *path)
{
	void *data;
	size_t size;
	char *v = NULL;

	if (hr_read_file(path, 4096, &data, &size) < 0)
		return NULL;
	if (isdigit(((unsigned char *)data)[0]))
		v = version_after(data, "");
	free(data);
	return v;
}

/*
 * The install prefixes a compiler may belong to: <prefix>/bin/hipcc as
 * configured (/opt/rocm/bin/hipcc -> /opt/rocm) and after resolving links
 * (-> /opt/rocm-6.2.0, or ROCm 6's /opt/rocm-6.2.0/lib/llvm).
 */
static int install_prefixes(const char *exe, char out[2][PATH_MAX])
{
	char real[PATH_MAX];
	const char *src[2] = { exe, realpath(exe, real) };
	int n = 0;

	for (int i = 0; i < 2; i++) {
		char *slash;

		if (!src[i] || strlen(src[i]) >= PATH_MAX)
			continue;
		strcpy(out[n], src[i]);
		for (int up = 0; up < 2; up++) {
			slash = strrchr(out[n], '/');
			if (!slash)
				break;
			*slash = '\0';
		}
		if (slash && out[n][0] && (n == 0 || strcmp(out[0], out[n]) != 0))
			n++;
	}
	return n;
}

/*
 * The ROCm release: <prefix>/.info/version of a /opt/rocm-like tree.  A
 * distribution's hipcc has none: its version is then the compiler's own
 * answer (HIP major.minor from `hipcc --version`, see init_hipcc).  The
 * package database is not read: it can be huge, is not under --root, and
 * is the package manager's private business.
 */
static char *rocm_version(const char *hipcc_path)
{
	char prefix[2][PATH_MAX], *v = NULL;
	int n = install_prefixes(hipcc_path, prefix);

	for (int i = 0; i < n && !v; i++) {
		char *info;

		if (asprintf(&info, "%s/.info/version", prefix[i]) < 0)
			return NULL;
		v = version_from_file(info);
		free(info);
	}
	return v;
}

/* The directory of the last (highest clang version) match of pattern, or NULL. */
static char *glob_dir(const char *pattern)
{
	char *result = NULL;
	glob_t g;

	if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0) {
		const char *p = g.gl_pathv[g.gl_pathc - 1];

		result = strndup(p, (size_t)(strrchr(p, '/') - p));
	}
	globfree(&g);
	return result;
}

/* dir/<tail> (a glob) when it holds device libraries, resolved, else NULL. */
static char *devlib_under(const char *dir, const char *tail)
{
	char *pattern, *found, *real;

	if (asprintf(&pattern, "%s%s/oclc_isa_version_*.bc", dir, tail) < 0)
		return NULL;
	found = glob_dir(pattern);
	free(pattern);
	real = found ? realpath(found, NULL) : NULL;
	free(found);
	return real;
}

/*
 * The distro prefix of a Debian LLVM resource dir: "/usr" for
 * /usr/lib/llvm-15/lib/clang/15.0.6, else NULL.
 */
static char *llvm_distro_prefix(const char *res)
{
	const char *l = strstr(res, "/lib/llvm-"), *p;

	if (!l)
		return NULL;
	p = l + strlen("/lib/llvm-");
	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p))
		p++;
	if (strncmp(p, "/lib/clang/", 11) != 0 || !p[11] || strchr(p + 11, '/'))
		return NULL;
	return strndup(res, (size_t)(l - res));
}

/*
 * AMD device libraries, where the compiler itself looks.  First ask it:
 * hipcc passes -print-resource-dir to the clang it drives, whose resource
 * directory holds them (Debian 13 and later: /usr/lib/llvm-N/lib/clang/N/
 * amdgcn/bitcode; ROCm 6: <resource>/lib/amdgcn/bitcode) or, for Debian
 * 12's LLVM 15, the multiarch dir of its distro prefix
 * (/usr/lib/<multiarch>/amdgcn/bitcode, where hipcc's ROCM_PATH=/usr points
 * clang).  Then the layouts under hipcc's own install prefix, for a hipcc
 * that does not pass the option on: a /opt/rocm-like tree (ROCm 5:
 * amdgcn/, ROCm 6: lib/llvm/lib/clang/N/lib/amdgcn/) or a distro prefix.
 * No absolute guesses: another compiler's libraries would be wrong ones.
 * Runs only when a toolchain is probed, never on a cache hit.
 */
static char *find_devlib_dir(struct hanzo_rocm *ctx, const char *hipcc_path)
{
	static const char *const res_tails[] = { "/amdgcn/bitcode", "/lib/amdgcn/bitcode" };
	static const char *const tails[] = { "/amdgcn/bitcode",
	                                     "/lib/llvm/lib/clang/*/lib/amdgcn/bitcode",
	                                     "/lib/clang/*/lib/amdgcn/bitcode",
	                                     "/llvm/lib/clang/*/lib/amdgcn/bitcode",
	                                     "/lib/*/amdgcn/bitcode",
	                                     "/lib/llvm-*/lib/clang/*/amdgcn/bitcode" };
	char prefix[2][PATH_MAX], *result = NULL, *res = NULL;
	int n;

	if (probe(ctx, hipcc_path, "-print-resource-dir", true, &res) == 0 && res) {
		res[strcspn(res, "\r\n")] = '\0';
		for (size_t t = 0; res[0] == '/' && t < HR_ARRAY_SIZE(res_tails) && !result; t++)
			result = devlib_under(res, res_tails[t]);
		if (!result && res[0] == '/') {
			char *distro = llvm_distro_prefix(res);

			result = distro ? devlib_under(distro, "/lib/*/amdgcn/bitcode") : NULL;
			free(distro);
		}
		free(res);
		if (result)
			return result;
	}
	n = install_prefixes(hipcc_path, prefix);
	for (int i = 0; i < n && !result; i++)
		for (size_t t = 0; t < HR_ARRAY_SIZE(tails) && !result; t++)
			result = devlib_under(prefix[i], tails[t]);
	return result;
}

static int init_hipcc(struct hanzo_rocm *ctx, struct hr_toolchain *tc)
{
	char *text = NULL, *hip = NULL, *clang = NULL;
	const char *label = ctx && hr_ctx_config(ctx) ? hr_ctx_config(ctx)->version_label : NULL;
	int r, k;

	r = probe(ctx, tc->path, "--version", false, &text);
	if (r < 0)
		return r;
	hip = version_after(text, "HIP version:");
	clang = version_after(text, "clang version");
	free(text);
	if (label)
		tc->version = strdup(label);
	else if (!(tc->version = rocm_version(tc->path)) && hip) {
		/* HIP's third field is a build number, not the ROCm patch: keep major.minor. */
		char *dot = strchr(hip, '.');

		dot = dot ? strchr(dot + 1, '.') : NULL;
		tc->version = dot ? strndup(hip, (size_t)(dot - hip)) : strdup(hip);
	}
	if (!tc->version)
		tc->version = strdup("unknown");
	k = asprintf(&tc->identity, "hipcc %s (HIP %s, clang %s)", tc->version,
	             hip ? hip : "unknown", clang ? clang : "unknown");
	free(hip);
	free(clang);
	if (k < 0 || !tc->version) {
		tc->identity = NULL;
		return -ENOMEM;
	}
	tc->devlib_dir = find_devlib_dir(ctx, tc->path);
	if (!tc->devlib_dir)
		hr_warn(ctx, "%s: AMD device libraries (oclc_isa_version_*.bc) not found\n", tc->path);
	return 0;
}

static int init_nvcc(struct hanzo_rocm *ctx, struct hr_toolchain *tc)
{
	const char *label = ctx && hr_ctx_config(ctx) ? hr_ctx_config(ctx)->version_label : NULL;
	char *text = NULL, *rel, *build;
	int r, k;

	r = probe(ctx, tc->path, "--version", false, &text);
	if (r < 0)
		return r;
	rel = version_after(text, "release");
	build = version_after(text, ", V");
	free(text);
	tc->version = strdup(label ? label : rel ? rel : "unknown");
	k = asprintf(&tc->identity, "nvcc %s (V%s)", rel ? rel : "unknown",
	             build ? build : "unknown");
	free(rel);
	free(build);
	if (k < 0 || !tc->version) {
		tc->identity = NULL;
		return -ENOMEM;
	}
	/* Older nvcc lacks --list-gpu-code; can_build then falls back to a minimum. */
	if (probe(ctx, tc->path, "--list-gpu-code", true, &text) == 0) {
		char **codes = hr_strv_split(text, " \t\r\n");

		free(text);
		if (!codes)
			return -ENOMEM;
		tc->gpu_codes = hr_strv_new();
		for (size_t i = 0; codes[i] && tc->gpu_codes; i++)
			if (strncmp(codes[i], "sm_", 3) == 0 && hr_target_validate(codes[i]) == 0 &&
			    hr_strv_push(&tc->gpu_codes, codes[i]) < 0)
				break;
		hr_strv_free(codes);
	}
	return 0;
}

/* The system C++ compiler: "c++ (Debian 12.2.0-14) 12.2.0" -> 12.2.0. */
static int init_cxx(struct hanzo_rocm *ctx, struct hr_toolchain *tc)
{
	char *text = NULL, *nl, *sp;
	int k;

	if (probe(ctx, tc->path, "--version", false, &text) < 0)
		return -ENOENT;
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	sp = strrchr(text, ' ');
	tc->version = strdup(sp ? sp + 1 : text);
	k = asprintf(&tc->identity, "%s", text);
	free(text);
	if (k < 0 || !tc->version) {
		tc->identity = NULL;
		return -ENOMEM;
	}
	return 0;
}

const char *hr_compiler_name(enum hr_compiler k)
{
	const struct hr_compiler_facts *cc = hr_compiler_facts(k);

	return cc ? cc->name : "?";
}

const char *hr_toolchain_program(const struct hr_config *cfg, enum hr_compiler kind)
{
	const struct hr_compiler_facts *cc = hr_compiler_facts(kind);
	const struct hr_config_key *k;

	/* [compiler] NAME: the compiler row's name is its key. */
	for (size_t i = 0; cfg && cc && (k = hr_config_key_at(i)); i++) {
		const char *v;

		if (k->type != HR_CONFIG_STR || strcmp(k->section, "compiler") != 0 ||
		    strcmp(k->name, cc->name) != 0)
			continue;
		v = *(char *const *)hr_config_field(cfg, k);
		if (v && *v)
			return v;
	}
	return cc ? cc->program : NULL;
}

enum hr_compiler hr_compiler_for(int platform)
{
	const struct hr_platform_facts *f = hr_platform_facts(platform);

	return f ? f->cc->kind : HR_COMPILER_HIPCC;
}

/*
 * What a kind of compiler does that is code rather than a fact (its facts:
 * the compiler row, platform/platform.h): probe it, say whether it builds a
 * target of its platform (NULL: every one), list what it builds.  The
 * table is at the end of this file.
 */
struct probe {
	int (*init)(struct hanzo_rocm *ctx, struct hr_toolchain *tc);
	int (*can_build)(const struct hr_toolchain *tc, const char *generic, char *reason, size_t n);
	char **(*targets)(const struct hr_toolchain *tc, int *err);
};
static const struct probe *probe_of(enum hr_compiler kind);

int hr_toolchain_find(struct hanzo_rocm *ctx, enum hr_compiler kind,
                      struct hr_toolchain **ret)
{
	const struct hr_config *cfg = ctx ? hr_ctx_config(ctx) : NULL;
	const char *name;
	struct hr_toolchain *tc;
	int r;

	if (!ret)
		return -EINVAL;
	*ret = NULL;
	name = hr_toolchain_program(cfg, kind);
	if (!name)
		return -EINVAL;
	tc = calloc(1, sizeof(*tc));
	if (!tc)
		return -ENOMEM;
	tc->kind = kind;
	tc->timeout_s = cfg && cfg->timeout_s ? cfg->timeout_s : HR_COMPILE_TIMEOUT_S;
	r = hr_toolchain_locate(name, kind, &tc->path);
	if (r == -EINVAL)
		hr_err(ctx, "[compiler]: '%s' must be a name or an absolute path\n", name);
	if (r == -ENOENT)
		hr_dbg(ctx, "%s: not found\n", name);
	if (r == 0)
		r = probe_of(kind) ? probe_of(kind)->init(ctx, tc) : -EINVAL;
	if (r < 0) {
		hr_toolchain_free(tc);
		return r;
	}
	hr_dbg(ctx, "toolchain %s: %s\n", tc->path, tc->identity);
	*ret = tc;
	return 0;
}

void hr_toolchain_free(struct hr_toolchain *tc)
{
	if (!tc)
		return;
	free(tc->path);
	free(tc->version);
	free(tc->identity);
	free(tc->devlib_dir);
	hr_strv_free(tc->gpu_codes);
	free(tc);
}

/* ---- what can be built --------------------------------------------------- */

/* The ROCm release whose compiler and device libraries first know a processor. */
static const char *rocm_release_for(const char *gfx)
{
	const struct hr_amd_target *t = hr_amd_target_find(gfx, strlen(gfx));

	if (t)
		return t->first_rocm;
	/* Generic processors arrived together; one not listed yet is as new. */
	if (strstr(gfx, "-generic"))
		return "6.4";
	return NULL;
}

static int amd_can_build(const struct hr_toolchain *tc, const char *gfx,
                         char *reason, size_t n)
{
	const char *rocm;
	char *bc;
	bool ok;

	/* A broken install, not a target this compiler lacks: a failure. */
	if (!tc->devlib_dir) {
		snprintf(reason, n, "AMD device libraries (oclc_isa_version_*.bc) not found for %s",
		         tc->path);
		return -ENOPKG;
	}
	if (asprintf(&bc, "%s/oclc_isa_version_%s.bc", tc->devlib_dir, gfx + 3) < 0)
		return -ENOMEM;
	ok = access(bc, R_OK) == 0;
	free(bc);
	if (ok)
		return 0;
	rocm = rocm_release_for(gfx);
	if (rocm)
		snprintf(reason, n, "needs ROCm >= %s (installed: %s)", rocm, tc->version);
	else
		snprintf(reason, n, "not supported by the installed ROCm (%s): no device library for %s",
		         tc->version, gfx);
	return -ENOTSUP;
}

static unsigned sm_number(const char *sm)
{
	return (unsigned)strtoul(sm + 3, NULL, 10);
}

static int nv_can_build(const struct hr_toolchain *tc, const char *sm,
                        char *reason, size_t n)
{
	unsigned want = sm_number(sm), major, min_sm;

	if (tc->gpu_codes) {
		for (size_t i = 0; tc->gpu_codes[i]; i++)
			if (sm_number(tc->gpu_codes[i]) == want)
				return 0; /* sm_90a builds wherever sm_90 does */
		snprintf(reason, n, "nvcc %s cannot build %s (it lists no such GPU code)",
		         tc->version, sm);
		return -ENOTSUP;
	}
	/* No list: the minimum each CUDA major release kept. */
	major = (unsigned)strtoul(tc->version, NULL, 10);
	min_sm = major >= 13 ? 75 : major >= 12 ? 50 : major >= 11 ? 35 : 30;
	if (want >= min_sm)
		return 0;
	snprintf(reason, n, "nvcc %s dropped %s (oldest: sm_%u)", tc->version, sm, min_sm);
	return -ENOTSUP;
}

int hr_toolchain_can_build(const struct hr_toolchain *tc, const char *target,
                           char *reason, size_t n)
{
	char generic[HR_TARGET_MAX], dummy[1];
	const struct hr_platform_facts *f = hr_target_validate(target) == 0 ? hr_platform_of(target) : NULL;

	if (!reason || n == 0) {
		reason = dummy;
		n = sizeof(dummy);
	}
	reason[0] = '\0';
	if (!tc || !f || hr_target_generic(target, generic, sizeof(generic)) < 0) {
		snprintf(reason, n, "invalid target '%s'", target ? target : "(null)");
		return -EINVAL;
	}
	/* Another platform's target, or one whose code objects this CPU has no
	 * machine for (the host row on an unknown CPU). */
	if (tc->kind != f->cc->kind || !f->elf_machine) {
		const struct hr_compiler_facts *cc = hr_compiler_facts(tc->kind);

		if (tc->kind != f->cc->kind && cc)
			snprintf(reason, n, "%s %s (%s builds for another platform)", generic,
			         f->compiler_need, cc->name);
		else
			snprintf(reason, n, "%s %s", generic, f->compiler_need);
		return -ENOTSUP;
	}
	return probe_of(tc->kind)->can_build ? probe_of(tc->kind)->can_build(tc, generic, reason, n) : 0;
}

/* gfx600 < gfx90a < gfx1030, sm_90 < sm_100: shorter names are older. */
static int cmp_target(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t lx = strlen(x), ly = strlen(y);

	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

/* hipcc: the processors its device libraries know (oclc_isa_version_*.bc). */
static char **amd_targets(const struct hr_toolchain *tc, int *err)
{
	DIR *d;
	struct dirent *de;
	char **v;

	if (!tc->devlib_dir || !(d = opendir(tc->devlib_dir))) {
		*err = -ENODATA;
		return NULL;
	}
	v = hr_strv_new();
	while (v && (de = readdir(d))) {
		char t[HR_TARGET_MAX];
		size_t len = strlen(de->d_name);

		if (strncmp(de->d_name, "oclc_isa_version_", 17) != 0 || len < 21 ||
		    strcmp(de->d_name + len - 3, ".bc") != 0 || len - 20 + 3 >= sizeof(t))
			continue;
		snprintf(t, sizeof(t), "gfx%.*s", (int)(len - 20), de->d_name + 17);
		if (hr_target_validate(t) == 0 && hr_strv_push(&v, t) < 0) {
			hr_strv_free(v);
			v = NULL;
		}
	}
	closedir(d);
	*err = v ? 0 : -ENOMEM;
	return v;
}

/* nvcc: what `nvcc --list-gpu-code` said. */
static char **nv_targets(const struct hr_toolchain *tc, int *err)
{
	char **v;

	if (!tc->gpu_codes) {
		*err = -ENODATA;
		return NULL;
	}
	v = hr_strv_copy(tc->gpu_codes);
	*err = v ? 0 : -ENOMEM;
	return v;
}

/* The host compiler: its platform's two targets. */
static char **cxx_targets(const struct hr_toolchain *tc, int *err)
{
	char **v = hr_strv_split("host-w32 host-w64", " ");

	(void)tc;
	*err = v ? 0 : -ENOMEM;
	return v;
}

int hr_toolchain_targets(const struct hr_toolchain *tc, char ***targets)
{
	char **v;
	int r;

	if (!tc || !targets || !probe_of(tc->kind))
		return -EINVAL;
	*targets = NULL;
	v = probe_of(tc->kind)->targets(tc, &r);
	if (!v)
		return r;
	qsort(v, hr_strv_len(v), sizeof(*v), cmp_target);
	*targets = v;
	return 0;
}

static const struct probe probes[] = {
	[HR_COMPILER_HIPCC] = { init_hipcc, amd_can_build, amd_targets },
	[HR_COMPILER_NVCC] = { init_nvcc, nv_can_build, nv_targets },
	[HR_COMPILER_CXX] = { init_cxx, NULL, cxx_targets },
};

static const struct probe *probe_of(enum hr_compiler kind)
{
	return (size_t)kind < HR_ARRAY_SIZE(probes) && probes[kind].init ? &probes[kind] : NULL;
}
