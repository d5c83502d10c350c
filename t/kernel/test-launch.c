// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The launch API (lib/kernel/geometry.c, lib/shared/launch-meta.c, lib/context-layout.c): the `#@launch` grammar and
 * its refusals; every kernel of every kernels/F.list covered by a line; the
 * geometry derivation on made-up devices (tiny, > 2^32 elements, odd and
 * zero work, wave 32 and 64, a row longer than shared memory, splits); the
 * layout helpers against candle's packed array; and on the host backend
 * with the real plugins: a reduction launched by work, a unary kernel in
 * place (NULL input), num_dims 200 through the raw call staying in bounds
 * (the sanitized build makes a stray access fatal), a plugin without
 * metadata refused with -ENODATA.  The element-wise kernels on views go
 * through the same call in t/backend/host-selftest.sh (common/selftest-run.c).
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hanzo-rocm.h"
#include "shared/launch-meta.h"
#include "kernel/kernel.h"
#include "plugin/plugin.h"
#include "runtime/runtime.h"
#include "target/target.h"
#include "../host-test.h"
#include "../tap.h"

/* ---- the grammar ------------------------------------------------------ */

static int parse(const char *line, struct hr_launch_meta *m, char *why)
{
	char pattern[HR_LAUNCH_MAX_PATTERN + 1];

	return hr_launch_meta_parse(line, pattern, sizeof(pattern), m, why, 160);
}

static void test_grammar(void)
{
	static const char *const bad[] = {
		"#@launch",                                     /* no pattern */
		"#@launch u*",                                  /* no kind */
		"#@launch u* rowz",                             /* unknown kind */
		"#@launch u* elementwise speed=9",              /* unknown key */
		"#@launch u* elementwise vec=4 vec=4",          /* twice */
		"#@launch u* elementwise vec=0",                /* out of range */
		"#@launch u* elementwise vec=65",
		"#@launch u* elementwise vec=4x",
		"#@launch u* elementwise block=100",            /* not a multiple of 32 */
		"#@launch u* elementwise block=auto",           /* auto is for rows */
		"#@launch u* rows block=96",                    /* rows: multiple of 64 */
		"#@launch u* rows vec=2",                       /* vec is element-wise */
		"#@launch u* elementwise pad=pow2",
		"#@launch u* rows pad=pow3",
		"#@launch u* rows grid=maybe",
		"#@launch u* rows shared_per_col=0",
		"#@launch u* elementwise waves=65",
		"#@launch u/x elementwise",                     /* not a glob of names */
		"#@launchu* elementwise",
		"#@launch u* elementwise vec=99999999999999999999",
		"#@launch u* elementwise \x7f",
		"#@launch u* elementwise \xc3\xa9",
		"#@launch u* elementwise vec=",
		"#@launch u* elementwise =4",
		"#@launch u* rows split_share=4",               /* rows-split only */
		"#@launch u* rows-split split_share=65",
		"#@launch u* rows-split split_min=256",         /* needs split_share */
		"#@launch u* rows-split split_share=4 split_min=0",
		"#@launch u* rows-split wave_rows=64",          /* rows only */
		"#@launch u* rows grid=exact wave_rows=64",     /* a block takes several rows */
		"#@launch u* rows wave_rows=0",
		"#@launch u* rows wave_rows=65537",
	};
	struct hr_launch_meta m;
	char why[160], line[700];
	unsigned no;
	const char *text;
	int r;

	r = parse("#@launch u*_f32 elementwise vec=4", &m, why);
	ok(r == 0 && m.kind == HR_LAUNCH_ELEMENTWISE && m.vec == 4 && m.block == 0 &&
	   m.waves == 0, "elementwise vec=4 parses, defaults block auto and no grid cap");
	r = parse("#@launch\tasort_*\trows grid=exact pad=pow2 block=auto per_thread=2 shared_per_col=4",
	          &m, why);
	ok(r == 0 && m.kind == HR_LAUNCH_ROWS && m.exact && m.pad_pow2 && m.per_thread == 2 &&
	   m.shared_per_col == 4 && m.waves == 0, "rows with every key parses (tabs too)");
	r = parse("#@launch fast_*_split_* rows-split block=256 shared=512", &m, why);
	ok(r == 0 && m.kind == HR_LAUNCH_ROWS_SPLIT && m.block == 256 && m.shared == 512,
	   "rows-split parses");
	r = parse("#@launch p_* rows-split grid=exact block=128 split_share=4 split_min=256", &m, why);
	ok(r == 0 && m.split_share == 4 && m.split_min == 256, "rows-split with split_share/split_min parses");
	r = parse("#@launch fast_* rows block=auto per_thread=64 shared=512 wave_rows=64", &m, why);
	ok(r == 0 && m.kind == HR_LAUNCH_ROWS && m.wave_rows == 64 && !m.exact, "rows with wave_rows parses");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		r = parse(bad[i], &m, why);
		ok(r == -EINVAL && why[0], "refused: '%s' (%s)", bad[i], why);
	}
	memset(line, 'a', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	memcpy(line, "#@launch a* elementwise ", 24);
	is_int(parse(line, &m, why), -EINVAL, "a line longer than %u bytes is refused",
	       HR_LAUNCH_MAX_LINE);

	text = "#@launch ucopy_* elementwise vec=1\n#@launch u* elementwise vec=4\n";
	r = hr_launch_meta_find(text, strlen(text), "ucopy_f32", &m, &no, why, sizeof(why));
	ok(r == 0 && m.vec == 1 && no == 1, "the first matching line wins");
	r = hr_launch_meta_find(text, strlen(text), "uexp_f32", &m, &no, why, sizeof(why));
	ok(r == 0 && m.vec == 4 && no == 2, "  ... the next one for another name");
	r = hr_launch_meta_find(text, strlen(text), "badd_f32", &m, &no, why, sizeof(why));
	is_int(r, -ENOENT, "no matching line: -ENOENT");
	text = "#@launch u* elementwise\n# a comment\n";
	r = hr_launch_meta_find(text, strlen(text), "uexp_f32", &m, &no, why, sizeof(why));
	ok(r == -EINVAL && no == 2, "any line that is not metadata is refused, even after a match (line %u)", no);
	text = "#@launch u* elementwise\n\0#@launch x* rows";
	r = hr_launch_meta_find(text, 40, "uexp_f32", &m, &no, why, sizeof(why));
	is_int(r, -EINVAL, "a NUL byte inside the text is refused");
	{
		/* Once reported "at line 0: invalid" before. */
		size_t big = HR_LAUNCH_MAX_TEXT + 1;
		char *t = malloc(big);

		if (t) {
			for (size_t i = 0; i < big; i++)
				t[i] = i % 32 == 31 ? '\n' : 'x';
			why[0] = '\0';
			no = 77;
			r = hr_launch_meta_find(t, big, "uexp_f32", &m, &no, why, sizeof(why));
			ok(r == -E2BIG && no == 0 && strstr(why, "more than 1048576 bytes (1 MiB)"),
			   "metadata over 1 MiB: -E2BIG, no line, the reason (%s)", why);
			free(t);
		}
	}
}

/* ---- every kernel of every list has a line ----------------------------- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, len = 0, n;

	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = (cap ? cap * 2 : 8192));

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* The metadata as hr-embed embeds it: the #@launch lines of a list's text,
 * each ending in a newline, written to meta (which may be text itself: it
 * never runs ahead of the reading); their length. */
static size_t launch_lines(const char *text, char *meta)
{
	size_t n_meta = 0;

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		const bool last = p[n] == '\0';        /* read before meta is written */

		if (strncmp(p, HR_LAUNCH_PREFIX, strlen(HR_LAUNCH_PREFIX)) == 0) {
			memmove(meta + n_meta, p, n);
			n_meta += n;
			meta[n_meta++] = '\n';
		}
		if (last)
			break;
		p += n + 1;
	}
	return n_meta;
}

/* The reduce family's wave_rows keys (columns a lane) and the kernel's
 * RED_WAVE_ROW_BYTES (kernels/reduce.hip) say the same for every one-pass
 * kernel: the library's grid gives a short row's wave a row only if the
 * kernel reduces it with one wave. */
static void test_wave_rows(const char *srcdir)
{
	static const char *const ops[] = { "sum", "min", "max", "argmin", "argmax" };
	static const struct { const char *t; unsigned size; } types[] = {
		{ "f32", 4 }, { "f64", 8 }, { "f16", 2 }, { "bf16", 2 },
	};
	char path[1024], name[64], why[160];
	char *list, *hip, *def;
	unsigned bytes = 0, no, good = 0, n_k = 0;
	size_t n;

	snprintf(path, sizeof(path), "%s/kernels/reduce.list", srcdir);
	list = slurp(path);
	snprintf(path, sizeof(path), "%s/kernels/reduce.hip", srcdir);
	hip = slurp(path);
	if (!list || !hip) {
		ok(0, "reduce: cannot read kernels/reduce.list and reduce.hip");
		free(list);
		free(hip);
		return;
	}
	n = launch_lines(list, list);
	def = strstr(hip, "#define RED_WAVE_ROW_BYTES ");
	if (def)
		bytes = (unsigned)strtoul(def + strlen("#define RED_WAVE_ROW_BYTES "), NULL, 10);
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
		for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
			struct hr_launch_meta m = { 0 };

			snprintf(name, sizeof(name), "fast_%s_%s", ops[o], types[t].t);
			n_k++;
			if (hr_launch_meta_find(list, n, name, &m, &no, why, sizeof(why)) == 0 &&
			    bytes && m.wave_rows * types[t].size == bytes)
				good++;
			else
				diag("%s: wave_rows %u x %u bytes, RED_WAVE_ROW_BYTES %u", name, m.wave_rows,
				     types[t].size, bytes);
		}
	}
	ok(bytes && good == n_k, "reduce: every one-pass kernel's wave_rows is RED_WAVE_ROW_BYTES (%u) "
	   "a lane (%u of %u)", bytes, good, n_k);
	free(list);
	free(hip);
}

static void test_lists(const char *srcdir)
{
	char path[1024], *fams, *save = NULL;

	snprintf(path, sizeof(path), "%s/plugins/families", srcdir);
	fams = slurp(path);
	if (!fams) {
		skip(1, "no plugins/families");
		return;
	}
	for (char *fam = strtok_r(fams, "\n", &save); fam; fam = strtok_r(NULL, "\n", &save)) {
		char *text, *meta, *ls = NULL;
		size_t n_meta, kernels = 0, uncovered = 0;
		char first[128] = "";

		if (fam[0] == '#' || !fam[0])
			continue;
		snprintf(path, sizeof(path), "%s/kernels/%s.list", srcdir, fam);
		text = slurp(path);
		meta = text ? calloc(1, strlen(text) + 1) : NULL;
		if (!meta) {
			ok(0, "%s: cannot read its list", fam);
			free(text);
			continue;
		}
		n_meta = launch_lines(text, meta);
		for (char *l = strtok_r(text, "\n", &ls); l; l = strtok_r(NULL, "\n", &ls)) {
			struct hr_launch_meta m;
			char name[128], why[160];
			unsigned no;

			if (l[0] == '#' || l[0] == '@' || !l[0])
				continue;
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(l, " \t"), l);
			kernels++;
			if (hr_launch_meta_find(meta, n_meta, name, &m, &no, why, sizeof(why)) < 0) {
				if (!uncovered++)
					snprintf(first, sizeof(first), "%s", name);
			}
		}
		ok(kernels > 0 && n_meta > 0 && uncovered == 0,
		   "%s: each of its %zu kernels matches a #@launch line%s%s", fam, kernels,
		   uncovered ? "; not: " : "", first);
		free(meta);
		free(text);
	}
	free(fams);
	test_wave_rows(srcdir);
}

/* ---- the derivation on made-up devices ---------------------------------- */

static struct hr_launch_meta meta(const char *line)
{
	struct hr_launch_meta m;
	char why[160];

	if (parse(line, &m, why) < 0)
		diag("bad test line '%s': %s", line, why);
	return m;
}

#define GEO(g, gx, gy, bx, sh)                                                 \
	((g).grid[0] == (gx) && (g).grid[1] == (gy) && (g).grid[2] == ((gx) ? 1u : 0u) && \
	 (g).block[0] == (bx) && (g).shared == (sh))

static void show(const char *what, const struct hanzo_rocm_geometry *g)
{
	diag("%s: grid %u %u %u block %u %u %u shared %u splits %u", what, g->grid[0],
	     g->grid[1], g->grid[2], g->block[0], g->block[1], g->block[2], g->shared, g->splits);
}

/* grid x x block x of g, the count HIP refuses above 2^32 - 1. */
static uint64_t threads_x(const struct hanzo_rocm_geometry *g)
{
	return (uint64_t)g->grid[0] * g->block[0];
}

/* The platform table's limits (doc/DESIGN.md §7): grid-stride kinds
 * capped to them, exact grids -E2BIG; the host row takes both GPUs'. */
static void test_grid_limits(const struct hr_device_limits *nv, const struct hr_device_limits *amd,
                             const uint16_t *occ)
{
	struct hr_launch_meta red = meta("#@launch fast_* rows block=256 shared=512");
	struct hr_launch_meta fill = meta("#@launch const_set_* elementwise");
	struct hr_launch_meta un = meta("#@launch u*_f32 elementwise vec=4");
	struct hr_launch_meta norm = meta("#@launch * rows grid=exact block=auto per_thread=8 shared=512");
	struct hr_launch_meta e2 = meta("#@launch x elementwise2d");
	const struct hr_grid_limits *host = hr_platform_grid_limits(HR_PLATFORM_HOST);
	struct hr_device_limits unknown = *amd;
	struct hanzo_rocm_geometry g;
	char why[128];
	int r;

	ok(host->blocks[0] == 0x7fffffffu && host->blocks[1] == 65535 && host->blocks[2] == 65535 &&
	   host->threads == 0xffffffffu, "the host row is both GPUs' limits at once");
	r = hr_launch_derive(&red, amd, occ, 4096ull * 4096, 8, &g);
	ok(r == 0 && g.grid[0] == 0xffffffffu / 256 && threads_x(&g) <= 0xffffffffu,
	   "AMD: fast_sum_f32 over the last dim of [4096, 4096, 8]: grid x x block <= 2^32 - 1 (%u blocks)",
	   g.grid[0]);
	r = hr_launch_derive(&red, nv, occ, 4096ull * 4096, 8, &g);
	ok(r == 0 && g.grid[0] == 4096u * 4096, "  ... CUDA: a block per row, 2^24 blocks (%u)", g.grid[0]);
	r = hr_launch_derive(&fill, amd, occ, 1ull << 32, 1, &g);
	ok(r == 0 && threads_x(&g) <= 0xffffffffu && g.grid[0] == 0xffffffffu / 256,
	   "AMD: const_set_f32 over 2^32 elements: capped grid (%u blocks)", g.grid[0]);
	r = hr_launch_derive(&un, amd, occ, 1ull << 34, 1, &g);
	ok(r == 0 && threads_x(&g) <= 0xffffffffu, "AMD: uexp_f32 over 2^34 elements: capped grid (%u blocks)",
	   g.grid[0]);
	r = hr_launch_derive(&norm, amd, occ, 4ull << 20, 8192, &g);
	is_int(r, -E2BIG, "AMD: softmax of 4M x 8192 (an exact grid of 2^22 x 1024 threads): -E2BIG");
	r = hr_launch_derive(&norm, nv, occ, 4ull << 20, 8192, &g);
	ok(r == 0 && g.grid[0] == 4u << 20 && g.block[0] == 1024, "  ... CUDA: one launch");
	r = hr_launch_derive(&norm, amd, occ, (4ull << 20) - 1, 8192, &g);
	ok(r == 0 && threads_x(&g) == 0xffffffffull - 1023, "  ... AMD: 4M - 1 rows fit");
	memset(&unknown.grid, 0, sizeof(unknown.grid));
	r = hr_launch_derive(&norm, &unknown, occ, 4ull << 20, 8192, &g);
	is_int(r, -E2BIG, "a device with no grid limits gets the host row (the strictest)");
	r = hr_launch_derive(&e2, amd, occ, 65535, 3, &g);
	ok(r == 0 && g.grid[1] == 65535, "elementwise2d: 65535 rows fit grid y");
	{
		const unsigned b64[3] = { 64, 1, 1 }, b1[3] = { 1, 1, 1 };
		const unsigned wrap[3] = { 1u << 31, 1u << 31, 4 }, cube[3] = { 1u << 16, 1u << 16, 1u << 16 };
		const unsigned x[3] = { 0x7fffffffu, 1, 1 }, ok3[3] = { 0x7fffffffu, 65535, 65535 };

		is_int(hr_grid_check(host, wrap, b1, why, sizeof(why)), -E2BIG, "grid {2^31, 2^31, 4}: -E2BIG (%s)", why);
		is_int(hr_grid_check(host, cube, b1, why, sizeof(why)), -E2BIG, "grid {2^16, 2^16, 2^16}: -E2BIG (%s)", why);
		is_int(hr_grid_check(host, x, b64, why, sizeof(why)), -E2BIG,
		       "grid x 2^31 - 1 of 64 threads on the host: -E2BIG (%s)", why);
		is_int(hr_grid_check(hr_platform_grid_limits(HR_PLATFORM_NVIDIA), x, b64, why, sizeof(why)), 0,
		       "  ... CUDA takes it");
		is_int(hr_grid_check(host, ok3, b1, why, sizeof(why)), 0, "grid {2^31 - 1, 65535, 65535} of 1 thread fits");
	}
}

static void test_geometry(void)
{
	/* An H100-like and an MI300-like device, a small RDNA one. */
	const struct hr_device_limits nv = { 132, 32, 1024, 48u << 10,
	                                     *hr_platform_grid_limits(HR_PLATFORM_NVIDIA) };
	const struct hr_device_limits amd = { 304, 64, 1024, 64u << 10,
	                                      *hr_platform_grid_limits(HR_PLATFORM_AMD) };
	const struct hr_device_limits odd = { 7, 32, 1000, 64u << 10, { { 0 }, 0 } };
	struct hr_launch_meta ew4 = meta("#@launch x elementwise vec=4");
	struct hr_launch_meta ew4cap = meta("#@launch x elementwise vec=4 waves=2");
	struct hr_launch_meta ew = meta("#@launch x elementwise");
	struct hr_launch_meta full = meta("#@launch x elementwise waves=0");
	struct hr_launch_meta big = meta("#@launch x elementwise block=1024");
	struct hr_launch_meta e2 = meta("#@launch x elementwise2d");
	struct hr_launch_meta sort = meta("#@launch x rows grid=exact pad=pow2 block=auto per_thread=2 shared_per_col=4");
	struct hr_launch_meta norm = meta("#@launch x rows grid=exact block=auto per_thread=8 shared=512");
	struct hr_launch_meta red = meta("#@launch x rows block=256 shared=512");
	struct hr_launch_meta wr = meta("#@launch x rows block=auto per_thread=64 shared=512 wave_rows=32");
	struct hr_launch_meta wr256 = meta("#@launch x rows block=256 wave_rows=64");
	struct hr_launch_meta split = meta("#@launch x rows-split block=256 shared=512");
	struct hr_launch_meta dec = meta("#@launch x rows-split grid=exact block=128 shared=8320 "
	                                 "split_share=4 split_min=256");
	uint16_t occ[HR_LAUNCH_OCC] = { 0 };
	struct hanzo_rocm_geometry g, g2;
	int r;

	occ[256 / 32] = 8;
	occ[1024 / 32] = 2;

	r = hr_launch_derive(&ew4, &nv, occ, 1, 1, &g);
	ok(r == 0 && GEO(g, 1, 1, 256, 0) && g.splits == 1, "tiny: one element is one block of 256");
	r = hr_launch_derive(&ew4, &nv, occ, 5125, 1, &g);
	ok(r == 0 && GEO(g, 6, 1, 256, 0), "odd: 5125 elements, vec 4 -> 1282 threads -> 6 blocks");
	r = hr_launch_derive(&ew4, &nv, occ, 1, 5125, &g2);
	ok(r == 0 && memcmp(&g, &g2, sizeof(g)) == 0, "  ... 1 x 5125 is the same work for an element-wise kernel");
	r = hr_launch_derive(&ew4, &nv, occ, 0, 1, &g);
	ok(r == 0 && GEO(g, 0, 0, 0, 0), "zero elements: nothing to launch");
	r = hr_launch_derive(&norm, &nv, occ, 5, 0, &g);
	ok(r == 0 && g.grid[0] == 0, "zero columns: nothing to launch");
	r = hr_launch_derive(&ew4cap, &nv, occ, (1ull << 32) + 3, 1, &g);
	ok(r == 0 && GEO(g, 132 * 8 * 2, 1, 256, 0),
	   "> 2^32 elements, waves=2: capped at 2 waves of resident blocks (132 SMs x 8 x 2)");
	if (tap_failed)
		show("2^32+3", &g);
	r = hr_launch_derive(&ew4cap, &nv, NULL, (1ull << 32) + 3, 1, &g);
	ok(r == 0 && GEO(g, 132 * 8 * 2, 1, 256, 0), "  ... occupancy unknown: estimated as 2048 threads per SM");
	r = hr_launch_derive(&full, &nv, occ, (1ull << 32) + 3, 1, &g);
	ok(r == 0 && GEO(g, ((1ull << 32) + 3 + 255) / 256, 1, 256, 0),
	   "  ... waves=0: one thread per element, %u blocks", g.grid[0]);
	r = hr_launch_derive(&full, &nv, occ, 1ull << 45, 1, &g);
	ok(r == 0 && GEO(g, 0x7fffffffu, 1, 256, 0), "  ... 2^45: the grid stays within 2^31 - 1 (CUDA)");
	r = hr_launch_derive(&ew, &nv, occ, 1ull << 33, 1ull << 31, &g);
	is_int(r, -EOVERFLOW, "rows x cols overflowing 64 bits is -EOVERFLOW");

	r = hr_launch_derive(&big, &odd, occ, 100000, 1, &g);
	ok(r == 0 && g.block[0] == 992, "a 1024 block on a device of 1000 threads: 992 at wave 32");
	{
		struct hr_device_limits odd64 = odd;

		odd64.wave = 64;
		r = hr_launch_derive(&big, &odd64, occ, 100000, 1, &g);
		ok(r == 0 && g.block[0] == 960, "  ... 960 at wave 64");
		r = hr_launch_derive(&norm, &odd64, occ, 3, 100000, &g);
		ok(r == 0 && g.block[0] == 960, "  ... and rows kinds use multiples of 64 under it (%u)", g.block[0]);
	}

	r = hr_launch_derive(&e2, &amd, occ, 7, 3000, &g);
	ok(r == 0 && GEO(g, 12, 7, 256, 0), "elementwise2d: grid y = rows, x covers the columns");
	r = hr_launch_derive(&e2, &amd, occ, 70000, 3, &g);
	is_int(r, -E2BIG, "  ... more rows than grid y allows: -E2BIG");

	r = hr_launch_derive(&norm, &amd, occ, 32, 151936, &g);
	ok(r == 0 && GEO(g, 32, 1, 1024, 0), "norm 32 x 151936: a block per row, 1024 threads");
	r = hr_launch_derive(&norm, &amd, occ, 4096, 100, &g);
	ok(r == 0 && GEO(g, 4096, 1, 64, 0), "norm 4096 x 100: 64 threads (the least)");
	r = hr_launch_derive(&norm, &nv, occ, 3, 4000, &g);
	r += hr_launch_derive(&norm, &amd, occ, 3, 4000, &g2);
	ok(r == 0 && g.block[0] == 512 && g2.block[0] == 512,
	   "norm 3 x 4000: 512 threads on wave 32 and on wave 64");

	r = hr_launch_derive(&sort, &amd, occ, 10, 16384, &g);
	ok(r == 0 && GEO(g, 10, 1, 1024, 65536), "sort 16384 columns: 64 KiB of shared memory fits 64 KiB");
	r = hr_launch_derive(&sort, &amd, occ, 10, 16385, &g);
	is_int(r, -E2BIG, "sort 16385 columns (pad 32768): the row is longer than shared memory: -E2BIG");
	r = hr_launch_derive(&sort, &nv, occ, 10, 16384, &g);
	is_int(r, -E2BIG, "  ... 16384 on a 48 KiB device too");
	r = hr_launch_derive(&sort, &nv, occ, 10, 1000, &g);
	ok(r == 0 && GEO(g, 10, 1, 512, 4096), "sort 1000 columns: padded to 1024, 512 threads, 4 KiB");
	r = hr_launch_derive(&sort, &nv, occ, 1, 1ull << 63, &g);
	is_int(r, -E2BIG, "  ... 2^63 columns: -E2BIG, no overflow");

	r = hr_launch_derive(&red, &nv, occ, 1000000, 64, &g);
	ok(r == 0 && GEO(g, 1000000, 1, 256, 0), "reduce: rows grid-strided, uncapped by default");
	r = hr_launch_derive(&wr, &nv, occ, 16384, 1024, &g);
	ok(r == 0 && GEO(g, 4096, 1, 128, 0), "wave_rows=32, 16384 x 1024 on wave 32: 4 rows a block of 4 waves");
	r = hr_launch_derive(&wr, &nv, occ, 16385, 1024, &g);
	ok(r == 0 && GEO(g, 4097, 1, 128, 0), "  ... 16385 rows: 4097 blocks");
	r = hr_launch_derive(&wr, &nv, occ, 16384, 1025, &g);
	ok(r == 0 && GEO(g, 16384, 1, 64, 0), "  ... 1025 columns (over 32 x 32): a block a row, the per_thread block");
	r = hr_launch_derive(&wr, &amd, occ, 16384, 2048, &g);
	ok(r == 0 && GEO(g, 4096, 1, 256, 0), "  ... wave 64, 2048 columns: 4 rows a block of 256");
	r = hr_launch_derive(&wr256, &nv, occ, 1001, 300, &g);
	ok(r == 0 && GEO(g, 126, 1, 256, 0), "  ... block=256 on wave 32: 8 rows a block, 1001 rows in 126");
	r = hr_launch_derive(&wr, &nv, occ, 1, 1, &g);
	ok(r == 0 && GEO(g, 1, 1, 128, 0), "  ... one 1-column row: one block");
	r = hr_launch_derive(&wr, &odd, occ, 9, 100, &g);
	ok(r == 0 && GEO(g, 3, 1, 128, 0), "  ... a device of 1000 threads a block: 4 waves still fit");
	r = hr_launch_derive(&split, &nv, occ, 1, 1 << 24, &g);
	ok(r == 0 && g.splits == 528 && g.grid[1] == 528 && g.grid[0] == 1,
	   "rows-split 1 x 2^24 on 132 SMs: 4 x 132 splits (%u)", g.splits);
	r = hr_launch_derive(&split, &nv, occ, 1, 20000, &g);
	ok(r == 0 && g.splits == 9, "  ... 1 x 20000: chunks of at least 8 x 256 (9 splits, got %u)", g.splits);
	r = hr_launch_derive(&split, &nv, occ, 1000, 1 << 20, &g);
	ok(r == 0 && g.splits == 1, "  ... many rows: one split");
	r = hr_launch_derive(&split, &amd, occ, 2, 1ull << 40, &g);
	ok(r == 0 && g.splits == 608, "  ... 2 x 2^40 on 304 CUs: 608 splits (%u)", g.splits);
	/* The decode's rule (split_share=4): rows / 4 blocks of work, splits
	 * filling one wave of resident blocks (occupancy 2 at 128 threads:
	 * 264 on 132 SMs), chunks of at least split_min columns. */
	occ[128 / 32] = 2;
	r = hr_launch_derive(&dec, &nv, occ, 8 * 32, 4096, &g);
	ok(r == 0 && g.splits == 4 && g.grid[1] == 4 && g.grid[0] == 256,
	   "decode 8 seqs x 32 heads x 4096: 64 KV groups, 264 / 64 = 4 splits (%u)", g.splits);
	r = hr_launch_derive(&dec, &nv, occ, 32, 32768, &g);
	ok(r == 0 && g.splits == 33, "  ... 1 x 32 heads x 32768: 8 groups, 264 / 8 = 33 splits (%u)", g.splits);
	r = hr_launch_derive(&dec, &nv, occ, 32, 2000, &g);
	ok(r == 0 && g.splits == 7, "  ... 2000 keys: at least 256 a split (7, got %u)", g.splits);
	r = hr_launch_derive(&dec, &nv, occ, 32, 511, &g);
	ok(r == 0 && g.splits == 1, "  ... 511 keys: under two splits' worth, one split (%u)", g.splits);
	r = hr_launch_derive(&dec, &nv, occ, 4 * 264, 1 << 20, &g);
	ok(r == 0 && g.splits == 1, "  ... a wave of groups already: one split (%u)", g.splits);
	r = hr_launch_derive(&dec, &odd, NULL, 3, 1 << 20, &g);
	ok(r == 0 && g.splits == 112, "  ... no occupancy: the estimate, 16 blocks x 7 MPs / 1 group (%u)",
	   g.splits);
	occ[128 / 32] = 0;
	test_grid_limits(&nv, &amd, occ);
}

/* ---- layouts --------------------------------------------------------- */

static void test_layout(void)
{
	/* candle: a [2, 3, 4] tensor, lhs transposed-ish, rhs broadcast. */
	const size_t packed[4 * 3] = { 2, 3, 4, 12, 1, 3, 0, 4, 1, 1, 2, 6 };
	const size_t dims[3] = { 2, 3, 4 }, s0[3] = { 12, 1, 3 };
	const size_t *const strides[3] = { s0, NULL, NULL };
	struct hanzo_rocm_layout l, l2;
	size_t back[4 * 8];
	size_t nine[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	bool same = true;

	for (size_t ops = 1; ops <= 3; ops++) {
		memset(back, 0xee, sizeof(back));
		ok(hanzo_rocm_layout_from_candle(&l, 3, ops, packed) == 0 &&
		   hanzo_rocm_layout_to_candle(&l, 3, ops, back) == 0 &&
		   memcmp(back, packed, (1 + ops) * 3 * sizeof(size_t)) == 0 &&
		   back[(1 + ops) * 3] == (size_t)0xeeeeeeeeeeeeeeeeull,
		   "candle's packed array round-trips with %zu operand(s)", ops);
	}
	hanzo_rocm_layout_from_candle(&l, 3, 3, packed);
	for (size_t i = 0; i < 32; i++) {
		size_t slot = i / 8, d = i % 8;
		uint64_t want = d < 3 ? packed[slot * 3 + d] : 0;

		same &= l.v[i] == want;
	}
	ok(same, "  ... placed as the kernels' hr_layout: dims, then 8 slots per operand, rest 0");
	ok(hanzo_rocm_layout_init(&l2, 3, dims, 3, strides) == 0 &&
	   l2.v[8] == 12 && l2.v[9] == 1 && l2.v[10] == 3 &&
	   l2.v[16] == 12 && l2.v[17] == 4 && l2.v[18] == 1 &&
	   l2.v[24] == 12 && l2.v[25] == 4 && l2.v[26] == 1 && l2.v[3] == 0,
	   "layout_init: given strides, NULL = contiguous row-major");
	is_int(hanzo_rocm_layout_init(&l, 9, nine, 1, NULL), -EINVAL, "9 dims: -EINVAL");
	is_int(hanzo_rocm_layout_from_candle(&l, 9, 1, nine), -EINVAL, "  ... from candle too");
	is_int(hanzo_rocm_layout_to_candle(&l, 9, 1, back), -EINVAL, "  ... and back");
	is_int(hanzo_rocm_layout_init(&l, 3, dims, 4, NULL), -EINVAL, "4 operands: -EINVAL");
	is_int(hanzo_rocm_layout_init(&l, 3, dims, 0, NULL), -EINVAL, "0 operands: -EINVAL");
	is_int(hanzo_rocm_layout_init(NULL, 3, dims, 1, NULL), -EINVAL, "NULL layout: -EINVAL");
	is_int(hanzo_rocm_layout_init(&l, 3, NULL, 1, NULL), -EINVAL, "NULL dims: -EINVAL");
	ok(hanzo_rocm_layout_init(&l, 0, NULL, 1, NULL) == 0 && l.v[0] == 0,
	   "0 dims (contiguous): fine, all zero");
}

/* ---- on the host backend ------------------------------------------------ */

static struct hanzo_rocm *ctx;
static uint64_t dev_buf(unsigned dev, const void *src, size_t n)
{
	uint64_t p = 0;

	if (hr_runtime_alloc(ctx, dev, n, &p) < 0)
		return 0;
	if (src)
		hr_runtime_copy_htod(ctx, dev, p, src, n);
	return p;
}

static void test_host(unsigned dev)
{
	enum { N = 777, R = 3, C = 5000 };
	struct hanzo_rocm_kernel *k = NULL, *ks = NULL, *kw = NULL, *km = NULL, *kr = NULL, *kc = NULL;
	float *x = malloc(R * C * sizeof(float)), *y = malloc(R * C * sizeof(float));
	struct hanzo_rocm_geometry g;
	struct hanzo_rocm_layout info;
	size_t numel, ndims, el, src_numel;
	uint64_t px, py, pnull = 0;
	bool good = true;
	int r;

	if (!x || !y)
		goto out;
	for (size_t i = 0; i < R * C; i++)
		x[i] = (float)((i * 7919) % 1000) / 100.0f - 5.0f;

	/* Unary in place: NULL input reads out (candle parity). */
	r = hanzo_rocm_kernel_get(ctx, dev, "unary", "uneg_f32", &k);
	is_int(r, 0, "dev %u: uneg_f32 loads", dev);
	if (r < 0) {
		diag("log:\n%s", logbuf);
		goto out;
	}
	px = dev_buf(dev, x, N * sizeof(float));
	numel = N;
	ndims = 2;
	{
		const size_t dims[2] = { 37, 21 }, st[2] = { 1, 37 };
		const size_t *const strides[1] = { st };

		hanzo_rocm_layout_init(&info, 2, dims, 1, strides);
	}
	{
		void *args[] = { &numel, &ndims, &info, &pnull, &px };

		r = hanzo_rocm_kernel_launch_work(k, numel, 1, NULL, args);
	}
	hr_runtime_copy_dtoh(ctx, dev, y, px, N * sizeof(float));
	for (size_t i = 0; i < N; i++)
		good &= y[i] == -x[i];
	ok(r == 0 && good, "dev %u: uneg_f32 with a NULL input negates out in place, whatever the layout", dev);

	/* num_dims 200 through the raw call: nothing written, nothing read
	 * past the layout (ASan in the sanitized build). */
	{
		const unsigned grid[3] = { 2, 1, 1 }, block[3] = { 64, 1, 1 };
		uint64_t po = dev_buf(dev, NULL, N * sizeof(float));
		float *poison = malloc(N * sizeof(float));

		memset(&info, 0x7f, sizeof(info));      /* huge dims and strides */
		ndims = 200;
		if (poison) {
			memset(poison, 0xff, N * sizeof(float));
			hr_runtime_copy_htod(ctx, dev, po, poison, N * sizeof(float));
		}
		{
			void *args[] = { &numel, &ndims, &info, &px, &po };

			r = hanzo_rocm_kernel_launch(k, grid, block, 0, NULL, args);
		}
		hr_runtime_copy_dtoh(ctx, dev, y, po, N * sizeof(float));
		good = poison != NULL;
		for (size_t i = 0; poison && i < N; i++)
			good &= memcmp(&y[i], &poison[i], sizeof(float)) == 0;
		ok(r == 0 && good, "dev %u: uneg_f32 with num_dims 200 (raw launch) writes nothing", dev);
		if (hanzo_rocm_kernel_get(ctx, dev, "reduce", "fast_sum_f32", &kr) == 0) {
			el = C;
			src_numel = R * C;
			{
				void *args[] = { &src_numel, &el, &ndims, &info, &px, &po };

				r = hanzo_rocm_kernel_launch(kr, grid, block, 0, NULL, args);
			}
			hr_runtime_copy_dtoh(ctx, dev, y, po, N * sizeof(float));
			good = poison != NULL;
			for (size_t i = 0; poison && i < N; i++)
				good &= memcmp(&y[i], &poison[i], sizeof(float)) == 0;
			ok(r == 0 && good, "dev %u: fast_sum_f32 with num_dims 200 writes nothing", dev);
		} else {
			ok(0, "dev %u: fast_sum_f32 loads", dev);
		}
		free(poison);
		hr_runtime_mem_free(ctx, dev, po);
	}
	hr_runtime_mem_free(ctx, dev, px);

	/* A row-wise kernel by work: R rows of C, summed. */
	if (kr) {
		double want[R] = { 0 };

		px = dev_buf(dev, x, R * C * sizeof(float));
		py = dev_buf(dev, NULL, R * sizeof(float));
		el = C;
		src_numel = R * C;
		ndims = 0;
		{
			void *args[] = { &src_numel, &el, &ndims, &info, &px, &py };

			r = hanzo_rocm_kernel_launch_work(kr, R, C, NULL, args);
		}
		hr_runtime_copy_dtoh(ctx, dev, y, py, R * sizeof(float));
		good = true;
		for (size_t i = 0; i < R; i++) {
			for (size_t j = 0; j < C; j++)
				want[i] += x[i * C + j];
			good &= fabs(y[i] - want[i]) <= 1e-5 * fmax(1, fabs(want[i])) + 1e-3;
		}
		ok(r == 0 && good, "dev %u: fast_sum_f32 over %d x %d by work matches float64", dev, R, C);
		r = hanzo_rocm_kernel_geometry(kr, R, C, &g);
		/* reduce.list: block=auto per_thread=64, ceil(5000 / 64) = 79 -> 128 */
		ok(r == 0 && g.block[0] == 128 && g.grid[0] == R, "  ... geometry: %u blocks of %u", g.grid[0], g.block[0]);
		hr_runtime_mem_free(ctx, dev, px);
		hr_runtime_mem_free(ctx, dev, py);
	}

	/* Norm by work: block_size is an argument, read from the geometry. */
	if (hanzo_rocm_kernel_get(ctx, dev, "norm", "rmsnorm_f32", &kc) == 0) {
		int ncols = C, bs = 0;
		float eps = 1e-6f;
		uint64_t pa = 0;

		px = dev_buf(dev, x, R * C * sizeof(float));
		py = dev_buf(dev, NULL, R * C * sizeof(float));
		r = hanzo_rocm_kernel_geometry(kc, R, C, &g);
		bs = (int)g.block[0];
		if (r == 0) {
			void *args[] = { &px, &py, &pa, &ncols, &bs, &eps };

			r = hanzo_rocm_kernel_launch_work(kc, R, C, NULL, args);
		}
		hr_runtime_copy_dtoh(ctx, dev, y, py, R * C * sizeof(float));
		good = true;
		for (size_t i = 0; i < R; i++) {
			double ss = 0;

			for (size_t j = 0; j < C; j++)
				ss += (double)x[i * C + j] * x[i * C + j];
			ss = 1 / sqrt(ss / C + eps);
			for (size_t j = 0; j < C; j++)
				good &= fabs(y[i * C + j] - x[i * C + j] * ss) <= 1e-5 * fmax(1, fabs(x[i * C + j] * ss));
		}
		ok(r == 0 && good && g.grid[0] == R && bs == 320,
		   "dev %u: rmsnorm_f32 %d x %d by work (block %d from the geometry) matches float64",
		   dev, R, C, bs);
		hr_runtime_mem_free(ctx, dev, px);
		hr_runtime_mem_free(ctx, dev, py);
		kc = NULL;
	}

	/* The host device's limits reach the plan: 64 KiB of shared memory. */
	r = hanzo_rocm_kernel_get(ctx, dev, "sort", "asort_asc_f32", &ks);
	r = r ? r : hanzo_rocm_kernel_get(ctx, dev, "sort", "asort_asc_wide_f32", &kw);
	if (r == 0) {
		r = hanzo_rocm_kernel_geometry(ks, 4, 16384, &g);
		ok(r == 0 && g.shared == 65536 && g.grid[0] == 4, "dev %u: asort 16384 columns: 64 KiB shared", dev);
		is_int(hanzo_rocm_kernel_geometry(ks, 4, 16385, &g), -E2BIG,
		       "dev %u: asort 16385 columns: -E2BIG (longer than shared memory)", dev);
		/* sort.list: a block of about ncols_pad / 4 threads for the radix
		 * types, ncols_pad / 2 for f64 and i64 (the bitonic network) */
		r = hanzo_rocm_kernel_geometry(ks, 4, 1000, &g);
		ok(r == 0 && g.block[0] == 256, "dev %u: asort_asc_f32 1000 columns: block 256 (%u)", dev, g.block[0]);
		{
			struct hanzo_rocm_kernel *k64 = NULL;

			r = hanzo_rocm_kernel_get(ctx, dev, "sort", "asort_desc_i64", &k64);
			r = r ? r : hanzo_rocm_kernel_geometry(k64, 4, 1000, &g);
			ok(r == 0 && g.block[0] == 512, "dev %u: asort_desc_i64 1000 columns: block 512 (%u)", dev, g.block[0]);
		}
		r = hanzo_rocm_kernel_geometry(kw, 4, 16385, &g);
		ok(r == 0 && g.shared == 0 && g.block[0] == 1024, "  ... the one-block wide kernel takes it");
		r = hanzo_rocm_kernel_get(ctx, dev, "sort", "asort_asc_multi_f32", &km);
		r = r ? r : hanzo_rocm_kernel_geometry(km, 4, 16385, &g);
		ok(r == 0 && g.shared == 0 && g.block[0] == 256 && g.grid[0] == 4,
		   "  ... so does the multi-block one (block 256, %u blocks a row)", g.grid[1]);
		is_int(hanzo_rocm_kernel_launch_work(ks, 4, 16385, NULL, NULL), -E2BIG,
		       "  ... and launch_work refuses it before launching");
		{
			/* hanzo_rocm_op_run takes that row (the wide form, the
			 * multi-block sort for f32): geometry_ex answers as it does,
			 * with that kernel's launch. */
			struct hanzo_rocm_geometry_ex gx = { .size = sizeof(gx) };
			size_t bytes = 0;

			is_int(hanzo_rocm_op_workspace(ks, 4, 16385, &bytes), 0, "  ... op_workspace takes it");
			is_int(hanzo_rocm_kernel_geometry_ex(ks, 4, 16385, &gx), 0,
			       "  ... and so does geometry_ex (once -E2BIG)");
			ok(gx.op_form && strcmp(gx.op_form, "wide") == 0 && gx.op_passes == 16 &&
			   bytes == 4 * 32768 * 16 && gx.op_workspace == bytes && gx.workspace == bytes &&
			   memcmp(&gx.geometry, &g, sizeof(g)) == 0,
			   "  ... form wide, 16 launches, rows x 32768 x 16 workspace bytes, the multi-block kernel's geometry (%s, %zu)",
			   gx.op_form ? gx.op_form : "(null)", gx.op_workspace);
			is_int(hanzo_rocm_kernel_geometry_ex(ks, 4, 16384, &gx), 0, "  ... 16384 columns");
			ok(strcmp(gx.op_form, "shared") == 0 && gx.workspace == 0 && gx.op_workspace == 0 &&
			   gx.geometry.shared == 65536, "  ... the shared form, no workspace (%s)", gx.op_form);
		}
		{
			int ncols = 1000, pad = 1024;
			uint32_t *idx = malloc(R * 1000 * sizeof(uint32_t));

			px = dev_buf(dev, x, R * 1000 * sizeof(float));
			py = dev_buf(dev, NULL, R * 1000 * sizeof(uint32_t));
			{
				void *args[] = { &px, &py, &ncols, &pad };

				r = hanzo_rocm_kernel_launch_work(ks, R, 1000, NULL, args);
			}
			good = idx != NULL;
			if (idx) {
				hr_runtime_copy_dtoh(ctx, dev, idx, py, R * 1000 * sizeof(uint32_t));
				for (size_t i = 0; i < R; i++)
					for (size_t j = 1; j < 1000; j++)
						good &= idx[i * 1000 + j] < 1000 && idx[i * 1000 + j - 1] < 1000 &&
						        x[i * 1000 + idx[i * 1000 + j - 1]] <= x[i * 1000 + idx[i * 1000 + j]];
			}
			ok(r == 0 && good, "dev %u: asort_asc_f32 %d x 1000 by work sorts every row", dev, R);
			free(idx);
			hr_runtime_mem_free(ctx, dev, px);
			hr_runtime_mem_free(ctx, dev, py);
		}
	} else {
		ok(0, "dev %u: sort kernels load", dev);
	}
	if (hanzo_rocm_kernel_get(ctx, dev, "reduce", "fast_sum_split_f32", &kc) == 0) {
		r = hanzo_rocm_kernel_geometry(kc, 1, 1 << 22, &g);
		ok(r == 0 && g.splits > 1 && g.grid[1] == g.splits,
		   "dev %u: one long row splits on the host (%u splits)", dev, g.splits);
	}
	/* The host refuses what a GPU refuses (doc/DESIGN.md §7). */
	if (kr) {
		const unsigned wrap[3] = { 1u << 31, 1u << 31, 4 }, b256[3] = { 256, 1, 1 };
		struct hanzo_rocm_kernel *ksm = NULL;

		r = hanzo_rocm_kernel_geometry(kr, 4096ull * 4096, 8, &g);
		ok(r == 0 && threads_x(&g) <= 0xffffffffu,
		   "dev %u: fast_sum_f32 over the last dim of [4096, 4096, 8]: grid x x block <= 2^32 - 1 (%u blocks)",
		   dev, g.grid[0]);
		logbuf[0] = '\0';
		is_int(hanzo_rocm_kernel_launch(kr, wrap, b256, 0, NULL, NULL), -E2BIG,
		       "dev %u: a raw launch of grid {2^31, 2^31, 4} (0 blocks if it wrapped): -E2BIG", dev);
		ok(strstr(logbuf, "grid x of 2147483648 blocks") != NULL, "  ... logged: %s", logbuf);
		if (hanzo_rocm_kernel_get(ctx, dev, "norm", "softmax_f32", &ksm) == 0) {
			memset(&g, 0x55, sizeof(g));
			is_int(hanzo_rocm_kernel_geometry(ksm, 4ull << 20, 16384, &g), -E2BIG,
			       "dev %u: softmax_f32 of 4M x 16384 (one block per row of 1024): -E2BIG", dev);
			{
				struct hanzo_rocm_geometry same;

				memset(&same, 0x55, sizeof(same));
				ok(memcmp(&g, &same, sizeof(g)) == 0, "  ... the geometry is left untouched, not half written");
			}
		} else {
			ok(0, "dev %u: softmax_f32 loads", dev);
		}
	}
	is_int(hanzo_rocm_kernel_launch_work(k, 0, 1, NULL, NULL), 0, "dev %u: zero work launches nothing", dev);
	is_int(hanzo_rocm_kernel_launch_work(NULL, 1, 1, NULL, NULL), -EINVAL, "NULL kernel: -EINVAL");
	is_int(hanzo_rocm_kernel_geometry(k, 1, 1, NULL), -EINVAL, "NULL geometry: -EINVAL");
out:
	free(x);
	free(y);
}

/* A plugin built from a list without #@launch lines (the host fixture). */
static void test_no_metadata(const char *builddir, const char *dir)
{
	struct hanzo_rocm_options o = { .size = sizeof(o), .log_fn = log_capture,
	                                .log_priority = LOG_ERR, .host = "host-w64" };
	char conf[600];
	struct hanzo_rocm *c2 = NULL;
	struct hanzo_rocm_kernel *k;
	struct hanzo_rocm_geometry g;
	FILE *f;

	snprintf(conf, sizeof(conf), "%s/nometa.conf", dir);
	f = fopen(conf, "w");
	if (!f) {
		skip(2, "cannot write a config");
		return;
	}
	fprintf(f, "[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\n[plugins]\npath = %s/t/fixtures/host/.libs\n",
	        dir, dir, builddir);
	fclose(f);
	o.config = conf;
	if (hanzo_rocm_new_with_options(&o, &c2) < 0 ||
	    hanzo_rocm_kernel_get(c2, 0, "hostcheck", "pairsum_ok", &k) < 0) {
		skip(2, "no hostcheck fixture");
		hanzo_rocm_unref(c2);
		return;
	}
	logbuf[0] = '\0';
	is_int(hanzo_rocm_kernel_geometry(k, 10, 1, &g), -ENODATA,
	       "a plugin without launch metadata: -ENODATA");
	ok(strstr(logbuf, "no launch metadata") != NULL, "  ... logged: %s", logbuf);
	hanzo_rocm_unref(c2);
}


/*
 * The operation calls on the host: the workspace follows the split
 * kernel's geometry, a short workspace or a missing pointer is refused
 * before any launch (dst keeps its poison), a kernel with arguments the
 * call cannot bind is -EINVAL.
 */
static void test_ops(unsigned dev)
{
	enum { C = 1 << 16 };
	struct hanzo_rocm_kernel *k = NULL, *ks = NULL, *kn = NULL, *kt = NULL;
	struct hanzo_rocm_geometry g;
	float *x = malloc(C * sizeof(float)), y = -1.0f, ws[64];
	size_t bytes = 99;
	int r;

	if (!x || hanzo_rocm_kernel_get(ctx, dev, "reduce", "fast_sum_f32", &k) < 0 ||
	    hanzo_rocm_kernel_get(ctx, dev, "reduce", "fast_sum_split_f32", &ks) < 0 ||
	    hanzo_rocm_kernel_get(ctx, dev, "norm", "rmsnorm_f32", &kn) < 0 ||
	    hanzo_rocm_kernel_get(ctx, dev, "sort", "asort_asc_f32", &kt) < 0) {
		ok(0, "dev %u: reduce, norm and sort kernels load", dev);
		free(x);
		return;
	}
	for (size_t i = 0; i < C; i++)
		x[i] = (float)(i % 3);
	r = hanzo_rocm_op_workspace(k, 64, 100, &bytes);
	ok(r == 0 && bytes == 0, "dev %u: many short rows: one-pass, no workspace (%zu)", dev, bytes);
	r = hanzo_rocm_op_workspace(k, 1, C, &bytes);
	is_int(hanzo_rocm_kernel_geometry(ks, 1, C, &g), 0, "dev %u: split geometry", dev);
	ok(r == 0 && g.splits > 1 && bytes == (size_t)g.splits * 4,
	   "dev %u: one long row: rows x splits x 4 bytes (%zu, %u splits)", dev, bytes, g.splits);
	struct hanzo_rocm_op_args a = { .size = sizeof(a), .src = x, .dst = &y, .workspace = ws,
	                                .workspace_size = bytes - 1 };
	is_int(hanzo_rocm_op_run(k, 1, C, &a), -ENOSPC, "dev %u: a workspace one byte short: -ENOSPC", dev);
	ok(y == -1.0f, "dev %u:   ... nothing launched", dev);
	a.workspace_size = sizeof(ws);
	a.workspace = NULL;
	is_int(hanzo_rocm_op_run(k, 1, C, &a), -EINVAL, "dev %u: a NULL workspace: -EINVAL", dev);
	a.workspace = ws;
	a.src = NULL;
	is_int(hanzo_rocm_op_run(k, 1, C, &a), -EINVAL, "dev %u: a NULL src: -EINVAL", dev);
	ok(y == -1.0f, "dev %u:   ... nothing launched", dev);
	a.src = x;
	is_int(hanzo_rocm_op_run(k, 1, C, &a), 0, "dev %u: fast_sum_f32 over 1 x %d (split)", dev, C);
	ok(y == (float)(C / 3 * 3), "dev %u:   ... sums right (%g)", dev, (double)y);
	{
		/* Sort: shared memory up to 16384 columns here, the wide form past it. */
		enum { SC = 20000, SR = 2 };
		uint32_t *idx = malloc(SR * SC * sizeof(uint32_t)), *sws = NULL;
		struct hanzo_rocm_kernel *ku = NULL;
		bool sorted = idx != NULL;

		if (idx)
			memset(idx, 0xff, SR * SC * sizeof(uint32_t));  /* poison: unwritten fails */

		is_int(hanzo_rocm_op_workspace(kt, SR, 1000, &bytes), 0, "dev %u: asort_asc_f32 2 x 1000", dev);
		ok(bytes == 0, "dev %u:   ... fits shared memory: no workspace (%zu)", dev, bytes);
		is_int(hanzo_rocm_op_workspace(kt, SR, SC, &bytes), 0, "dev %u: asort_asc_f32 2 x %d", dev, SC);
		ok(bytes == (size_t)SR * 32768 * 16, "dev %u:   ... the wide form (multi-block): rows x 32768 x 16 bytes (%zu)", dev, bytes);
		{
			struct hanzo_rocm_geometry_ex gx = { .size = sizeof(gx) };

			is_int(hanzo_rocm_kernel_geometry_ex(kt, SR, SC, &gx), 0, "dev %u:   ... geometry_ex", dev);
			ok(gx.op_passes == 16 && strcmp(gx.op_form, "wide") == 0 &&
			   gx.op_workspace == bytes && gx.geometry.grid[0] == SR,
			   "dev %u:   ... 16 launches of the wide form, grid (%u, %u) (%u, %s)", dev,
			   gx.geometry.grid[0], gx.geometry.grid[1], gx.op_passes, gx.op_form);
		}
		sws = malloc(bytes);
		struct hanzo_rocm_op_args sa = { .size = sizeof(sa), .src = x, .dst = idx,
		                                 .workspace = sws, .workspace_size = sws ? bytes : 0 };
		for (size_t i = 0; i < SR * SC && i < C; i++)
			x[i] = (float)((i * 7919) % 10007);
		is_int(hanzo_rocm_op_run(kt, SR, SC, &sa), 0, "dev %u:   ... runs", dev);
		for (size_t r2 = 0; sorted && r2 < SR; r2++)
			for (size_t c = 1; c < SC; c++)
				if (idx[r2 * SC + c] >= SC ||
				    x[r2 * SC + idx[r2 * SC + c - 1]] > x[r2 * SC + idx[r2 * SC + c]]) {
					sorted = false;
					break;
				}
		ok(sorted, "dev %u:   ... every row sorted", dev);
		free(idx);
		free(sws);
		if (hanzo_rocm_kernel_get(ctx, dev, "unary", "uneg_f32", &ku) == 0)
			is_int(hanzo_rocm_op_run(ku, 1, 8, &a), -EINVAL,
			       "dev %u: uneg_f32 (numel unbound): -EINVAL", dev);
	}
	a.size = 8;
	is_int(hanzo_rocm_op_run(kn, 1, 8, &a), -EINVAL, "dev %u: an args struct too small: -EINVAL", dev);
	is_int(hanzo_rocm_op_workspace(NULL, 1, 1, &bytes), -EINVAL, "op_workspace(NULL): -EINVAL");
	free(x);
}

/* The catalogue's versioned structs and its bounds. */
static void test_catalogue(void)
{
	struct hanzo_rocm_catalogue *cat = NULL;
	struct hanzo_rocm_kernel_desc d = { .size = sizeof(d) };
	struct hanzo_rocm_arg_desc a = { .size = sizeof(a) };
	size_t n, found = 0;

	is_int(hanzo_rocm_catalogue_new(ctx, "nope", &cat), -ENOENT, "catalogue of an unknown family: -ENOENT");
	is_int(hanzo_rocm_catalogue_new(ctx, "reduce", &cat), 0, "catalogue of reduce");
	n = hanzo_rocm_catalogue_count(cat);
	ok(n == 60, "  ... 60 kernels (%zu)", n);
	for (size_t i = 0; i < n; i++)
		if (hanzo_rocm_catalogue_kernel(cat, i, &d) == 0 && strcmp(d.name, "fast_argmin_f64") == 0) {
			found++;
			ok(strcmp(d.form, "one-pass") == 0 && strcmp(d.split, "fast_argmin_split_f64") == 0 &&
			   strcmp(d.second, "fast_argmin_finish_f64") == 0 && d.n_args == 6,
			   "  ... fast_argmin_f64: one-pass, its two passes, 6 arguments");
			is_int(hanzo_rocm_catalogue_arg(cat, i, 4, &a), 0, "  ... its argument 4");
			ok(strcmp(a.type, "const double *") == 0 && strcmp(a.name, "src") == 0 && a.bytes == sizeof(void *),
			   "  ... is 'const double *src'");
			is_int(hanzo_rocm_catalogue_arg(cat, i, 6, &a), -ERANGE, "  ... argument 6: -ERANGE");
		} else if (strcmp(d.name, "fast_argmin_split_f64") == 0) {
			ok(d.ws_per_partial == 16 && strcmp(d.op, "fast_argmin_f64") == 0,
			   "  ... fast_argmin_split_f64: 16 bytes a partial, a pass of fast_argmin_f64");
		}
	ok(found == 1, "  ... lists fast_argmin_f64 once");
	is_int(hanzo_rocm_catalogue_kernel(cat, n, &d), -ERANGE, "  ... index past the end: -ERANGE");
	{
		/* An older caller's smaller struct: only what it covers is written. */
		struct { struct hanzo_rocm_kernel_desc d; char guard[8]; } old;

		memset(&old, 0x5a, sizeof(old));
		old.d.size = offsetof(struct hanzo_rocm_kernel_desc, signature);
		is_int(hanzo_rocm_catalogue_kernel(cat, 0, &old.d), 0, "  ... an older struct size");
		ok(old.d.name && ((unsigned char *)&old.d.signature)[0] == 0x5a,
		   "  ... filled up to its size, nothing past it");
		old.d.size = 4;
		is_int(hanzo_rocm_catalogue_kernel(cat, 0, &old.d), -EINVAL, "  ... a size below the first field: -EINVAL");
	}
	ok(hanzo_rocm_catalogue_unref(cat) == NULL, "  ... unref frees it");
}

/* Every descriptor this process may still open, taken (RLIMIT_NOFILE
 * lowered first so that is few); fds_free gives them back. */
static int fds[256], n_fds;
static struct rlimit saved_nofile;

static void fds_exhaust(void)
{
	struct rlimit rl;

	getrlimit(RLIMIT_NOFILE, &saved_nofile);
	rl = saved_nofile;
	rl.rlim_cur = 200;
	setrlimit(RLIMIT_NOFILE, &rl);
	for (n_fds = 0; n_fds < (int)(sizeof(fds) / sizeof(fds[0])); n_fds++)
		if ((fds[n_fds] = dup(2)) < 0)
			break;
}

static void fds_free(void)
{
	while (n_fds > 0)
		close(fds[--n_fds]);
	setrlimit(RLIMIT_NOFILE, &saved_nofile);
}

/*
 * Out of descriptors while the plan opens the family's
 * plugin (lazily, through the plugin index) is -EMFILE now and a success
 * once descriptors are free, not -EMFILE for the context's life.  The code
 * objects are in dir/cache already (test_host compiled them).
 */
static void test_transient(const char *conf, const char *cache)
{
	struct hanzo_rocm_options o = { .size = sizeof(o), .log_fn = log_capture,
	                                .log_priority = LOG_ERR, .host = "host-w64",
	                                .config = conf };
	struct hanzo_rocm *c3 = NULL;
	struct hanzo_rocm_kernel *k = NULL;
	struct hanzo_rocm_geometry g;
	int status, r, taken;
	pid_t pid = fork();

	if (pid == 0) {
		struct hanzo_rocm *cw = NULL;

		r = hanzo_rocm_new_with_options(&o, &cw);
		r = r == 0 ? hr_plugins_write_index(cw, cache) : -1;
		_exit(r < 0 ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0 || hanzo_rocm_new_with_options(&o, &c3) < 0 ||
	    hanzo_rocm_kernel_get(c3, 0, "unary", "uneg_f32", &k) < 0) {
		ok(0, "a context with a plugin index and a cached uneg_f32");
		diag("log:\n%s", logbuf);
		hanzo_rocm_unref(c3);
		return;
	}
	fds_exhaust();
	taken = n_fds;
	r = hanzo_rocm_kernel_geometry(k, 1000, 1, &g);
	fds_free();
	is_int(r, -EMFILE, "out of descriptors while the plan opens the plugin: -EMFILE (%d taken)", taken);
	r = hanzo_rocm_kernel_geometry(k, 1000, 1, &g);
	ok(r == 0 && g.grid[0] == 1 && g.block[0] == 256,
	   "  ... descriptors free again: the plan is built (%s)", hanzo_rocm_strerror(r));
	hanzo_rocm_unref(c3);
}

int main(void)
{
	const char *src = getenv("top_srcdir"), *top = getenv("top_builddir");
	struct host_test h;
	int r;

	test_grammar();
	test_geometry();
	test_layout();
	if (!src || !top) {
		skip(1, "top_srcdir/top_builddir not set (run through make check)");
		return done_testing();
	}
	test_lists(src);
	r = host_test_open(&h, "test-launch", top);
	ctx = h.ctx;
	if (r == 0) {
		test_host(0);
		test_host(1);
		test_ops(0);
		test_ops(1);
		test_catalogue();
		test_no_metadata(top, h.dir);
		{
			char cache[620];

			snprintf(cache, sizeof(cache), "%s/cache", h.dir);
			test_transient(h.conf, cache);
		}
	} else {
		skip(1, r == -1 ? "no scratch directory" : "no context with two host devices");
	}
	host_test_close(&h);
	return done_testing();
}
