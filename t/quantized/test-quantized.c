/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The quantized family against t/fixtures/quantized/vectors.txt: ggml
 * blocks and their values, written by make-vectors.py from the block
 * layouts alone (the script shares no code with the kernels or the
 * selftest's C reference), and against ggml-vectors.txt, written by real
 * ggml's reference quantizers (ggml-vectors.c with Debian sid's libggml,
 * which also checks vectors.txt bit for bit; Debian 12 and 13 package no
 * ggml, so neither runs here).  On both host
 * targets: dequantize_block_Q_f32 and get_rows_Q decode the blocks bit for
 * bit, quantize_q8_1 encodes the input byte for byte.  The selftest checks
 * its own C reference against the same kernels, so the three agree.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "../tap.h"
#include "hanzo-rocm.h"
#include "runtime/runtime.h"

static struct hanzo_rocm *ctx;

struct vec {
	char name[16], kind[16];
	uint8_t *data;
	size_t len;
};

static struct vec vecs[32];
static int nvecs;
static const char *set;     /* the vectors file being checked */

static int load_vectors(const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0 && nvecs < 32) {
		struct vec *v = &vecs[nvecs];
		char *hex = NULL;
		size_t n;

		if (line[0] == '#' || sscanf(line, "%15s %15s", v->name, v->kind) != 2)
			continue;
		hex = strchr(strchr(line, ' ') + 1, ' ');
		if (!hex)
			continue;
		hex++;
		n = strcspn(hex, "\n") / 2;
		v->data = malloc(n ? n : 1);
		if (!v->data)
			break;
		for (size_t i = 0; i < n; i++) {
			unsigned b;

			if (sscanf(hex + 2 * i, "%2x", &b) != 1)
				break;
			v->data[i] = (uint8_t)b;
		}
		v->len = n;
		nvecs++;
	}
	free(line);
	fclose(f);
	return nvecs;
}

static const struct vec *find(const char *name, const char *kind)
{
	for (int i = 0; i < nvecs; i++)
		if (strcmp(vecs[i].name, name) == 0 && strcmp(vecs[i].kind, kind) == 0)
			return &vecs[i];
	return NULL;
}

static uint64_t dev_buf(unsigned dev, const void *src, size_t n)
{
	uint64_t p = 0;

	if (hr_runtime_alloc(ctx, dev, n, &p) < 0)
		return 0;
	if (src)
		hr_runtime_copy_htod(ctx, dev, p, src, n);
	else
		memset((void *)(uintptr_t)p, 0xff, n);
	return p;
}

static int launch(unsigned dev, const char *name, unsigned gx, unsigned gy, void **args)
{
	unsigned grid[3] = { gx, gy, 1 }, block[3] = { 64, 1, 1 };
	struct hanzo_rocm_kernel *k;
	int r = hanzo_rocm_kernel_get(ctx, dev, "quantized", name, &k);

	if (r == 0)
		r = hanzo_rocm_kernel_launch(k, grid, block, 0, NULL, args);
	/* launches are asynchronous: wait before reading the output */
	return r < 0 ? r : hr_runtime_synchronize(ctx, dev, NULL);
}

static void test_format(unsigned dev, const char *fmt, int qk)
{
	const struct vec *b = find(fmt, "blocks"), *w = find(fmt, "want");
	char name[64];

	if (!b || !w || w->len == 0 || w->len % ((size_t)qk * 4) != 0) {
		ok(0, "%s: vectors present", fmt);
		return;
	}
	const int k = (int)(w->len / 4), nblk = k / qk, nids = 4;
	const uint32_t ids[4] = { 2u % nblk, 0, 2u % nblk, 1u % nblk };
	const size_t rowb = (size_t)qk * 4;
	uint64_t x = dev_buf(dev, b->data, b->len), y = dev_buf(dev, NULL, w->len + 4);
	uint64_t di = dev_buf(dev, ids, sizeof(ids)), g = dev_buf(dev, NULL, nids * rowb + 4);
	int ncols = qk, ni = nids;
	void *args[] = { &x, &y, (void *)&k };
	void *gargs[] = { &x, &di, &g, &ncols, &ni };
	const uint8_t *out = (const uint8_t *)(uintptr_t)y, *gout = (const uint8_t *)(uintptr_t)g;
	int bad = 0, rc;

	snprintf(name, sizeof(name), "dequantize_block_%s_f32", fmt);
	rc = launch(dev, name, 1, 1, args);
	if (rc != 0)
		diag("%s: launch %d", name, rc);
	ok(rc == 0 && memcmp(out, w->data, w->len) == 0 && out[w->len] == 0xff, "dev %u: %s decodes %d blocks bit for bit (%s)", dev, name, nblk, set);
	for (size_t i = 0; i < w->len / 4; i++) {
		float gv, e;

		memcpy(&gv, out + 4 * i, 4);
		memcpy(&e, w->data + 4 * i, 4);
		if (memcmp(&gv, &e, 4) != 0) {
			diag("%s element %zu: got %.9g, want %.9g", fmt, i, gv, e);
			break;
		}
	}
	if (out[w->len] != 0xff)
		diag("%s: byte %zu after the output was written", name, w->len);
	snprintf(name, sizeof(name), "get_rows_%s", fmt);
	if (launch(dev, name, 1, 1, gargs) < 0)
		bad++;
	for (int r = 0; r < nids && !bad; r++)
		bad += memcmp(gout + r * rowb, w->data + ids[r] * rowb, rowb) != 0;
	ok(!bad && gout[nids * rowb] == 0xff, "dev %u: %s picks and decodes rows (%s)", dev, name, set);
	hr_runtime_mem_free(ctx, dev, x);
	hr_runtime_mem_free(ctx, dev, y);
	hr_runtime_mem_free(ctx, dev, di);
	hr_runtime_mem_free(ctx, dev, g);
}

static void test_q8_1(unsigned dev)
{
	const struct vec *in = find("q8_1", "input"), *want = find("q8_1", "blocks");

	if (!in || !want) {
		ok(0, "q8_1: vectors present");
		return;
	}
	int kx = (int)(in->len / 4);
	uint64_t x = dev_buf(dev, in->data, in->len), y = dev_buf(dev, NULL, want->len + 4);
	void *args[] = { &x, &y, &kx, &kx };
	const uint8_t *out = (const uint8_t *)(uintptr_t)y;

	ok(launch(dev, "quantize_q8_1", 1, 1, args) == 0 && memcmp(out, want->data, want->len) == 0 &&
	   out[want->len] == 0xff, "dev %u: quantize_q8_1 encodes byte for byte (%s)", dev, set);
	hr_runtime_mem_free(ctx, dev, x);
	hr_runtime_mem_free(ctx, dev, y);
}

int main(void)
{
	static const char *const sets[] = { "vectors.txt", "ggml-vectors.txt" };
	static const char *const fmts[] = { "q4_0", "q4_1", "q5_0", "q5_1", "q8_0",
	                                    "q4_K", "q5_K", "q6_K" };
	char dir[] = "/tmp/hr-test-quantized-XXXXXX", conf[512], path[512], cmd[600];
	const char *top = getenv("top_builddir"), *src = getenv("top_srcdir");
	struct hanzo_rocm_options o = { .size = sizeof(o), .log_priority = LOG_ERR,
	                                .host = "host-w64 host-w32" };
	FILE *f;

	if (!top || !src || !mkdtemp(dir))
		skip_all("top_builddir/top_srcdir not set (run through make check)");
	snprintf(conf, sizeof(conf), "%s/hanzo-rocm.conf", dir);
	f = fopen(conf, "we");
	if (!f)
		skip_all("cannot write a config file");
	/* the suite's host cache (t/backend/local.mk) as a read-only site tier */
	fprintf(f, "[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\nsite_dirs = %s/t/host-cache\n"
	           "[plugins]\npath = %s/plugins/.libs\n",
	        dir, dir, top, top);
	fclose(f);
	o.config = conf;
	if (hanzo_rocm_new_with_options(&o, &ctx) < 0 || hanzo_rocm_device_count(ctx) != 2)
		skip_all("no context with two host devices");
	for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
		set = sets[s];
		snprintf(path, sizeof(path), "%s/t/fixtures/quantized/%s", src, set);
		if (!ok(load_vectors(path) >= 17, "%s: read", set))
			continue;
		for (unsigned dev = 0; dev < 2; dev++) {
			for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
				test_format(dev, fmts[i], i < 5 ? 32 : 256);
			test_q8_1(dev);
		}
		for (int i = 0; i < nvecs; i++)
			free(vecs[i].data);
		nvecs = 0;
	}
	hanzo_rocm_unref(ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
