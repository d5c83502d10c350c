/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The HIP backend's devices, from KFD's topology in sysfs (what ROCr
 * enumerates too), without opening the runtime or spawning a process:
 * gfx_target_version, features, name, and the launch geometry's facts.
 * Paths are resolved under the configured root.  Layer: backend.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hip.h"
#include "config/config.h"
#include "context.h"
#include "target/target.h"
#include "shared/util.h"
#include "shared/targets.h"

#define KFD_NODES "/sys/class/kfd/kfd/topology/nodes"
#define MAX_KFD_NODES 1024
#define MAX_PROPS_SIZE (64 * 1024)

/* include/uapi/linux/kfd_sysfs.h.  (0x00080000 is the retired old SRAM ECC bit.) */
#define HSA_CAP_SRAM_EDCSUPPORTED 0x04000000u

/* ---- KFD ----------------------------------------------------------------- */

/* sysfs files report a 4096-byte st_size whatever they hold: read to EOF. */
static int read_small_file(const char *path, size_t max, char **ret)
{
	char *buf;
	size_t len = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	buf = malloc(max + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t k = read(fd, buf + len, max - len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int r = -errno;

			free(buf);
			close(fd);
			return r;
		}
		if (k == 0)
			break;
		len += (size_t)k;
		if (len == max) {
			free(buf);
			close(fd);
			return -EFBIG;
		}
	}
	close(fd);
	buf[len] = '\0';
	if (memchr(buf, '\0', len)) {
		free(buf);
		return -EINVAL;
	}
	*ret = buf;
	return 0;
}

struct kfd_props {
	bool has_version, has_simd;
	uint64_t gfx_target_version, simd_count, capability;
	uint64_t simd_per_cu, wave_front_size, lds_size_in_kb, unique_id;
};

/* "key value" lines, every value an unsigned decimal; anything else is -EINVAL at that line. */
static int parse_props(char *text, struct kfd_props *p, unsigned *bad_line)
{
	unsigned line = 0;
	char *save = NULL;

	*p = (struct kfd_props){ 0 };
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *key, *val, *end;
		uint64_t v;

		line++;
		key = hr_strstrip(l);
		if (!*key)
			continue;
		val = key + strcspn(key, " \t");
		if (!*val)
			goto bad;
		*val++ = '\0';
		val = hr_strstrip(val);
		if (!isdigit((unsigned char)*val))
			goto bad;
		errno = 0;
		v = strtoull(val, &end, 10);
		if (errno || *end)
			goto bad;
		for (const char *k = key; *k; k++)
			if (!islower((unsigned char)*k) && !isdigit((unsigned char)*k) && *k != '_')
				goto bad;
		if (strcmp(key, "gfx_target_version") == 0) {
			p->gfx_target_version = v;
			p->has_version = true;
		} else if (strcmp(key, "simd_count") == 0) {
			p->simd_count = v;
			p->has_simd = true;
		} else if (strcmp(key, "capability") == 0) {
			p->capability = v;
		} else if (strcmp(key, "simd_per_cu") == 0) {
			p->simd_per_cu = v;
		} else if (strcmp(key, "wave_front_size") == 0) {
			p->wave_front_size = v;
		} else if (strcmp(key, "lds_size_in_kb") == 0) {
			p->lds_size_in_kb = v;
		} else if (strcmp(key, "unique_id") == 0) {
			p->unique_id = v;
		}
	}
	return 0;
bad:
	*bad_line = line;
	return -EINVAL;
}

/* Processors that have an SRAM ECC mode (clang's sramecc target feature). */
/* Which features KFD may report for a processor (lib/shared/targets.def). */
static bool has_sramecc_feature(const char *gfx)
{
	const struct hr_amd_target *t = hr_amd_target_find(gfx, strlen(gfx));

	return t && t->sramecc;
}

static bool has_xnack_feature(const char *gfx)
{
	const struct hr_amd_target *t = hr_amd_target_find(gfx, strlen(gfx));

	return t && t->xnack;
}

static void add_features(const char *gfx, uint64_t cap, char *out, size_t n)
{
	const char *xnack = hr_getenv("HSA_XNACK");

	snprintf(out, n, "%s", gfx);
	if (has_sramecc_feature(gfx))
		strncat(out, cap & HSA_CAP_SRAM_EDCSUPPORTED ? ":sramecc+" : ":sramecc-",
		        n - strlen(out) - 1);
	if (has_xnack_feature(gfx) && xnack && (strcmp(xnack, "0") == 0 || strcmp(xnack, "1") == 0))
		strncat(out, xnack[0] == '1' ? ":xnack+" : ":xnack-", n - strlen(out) - 1);
}

/* nodes/N/name: printable text only, else "". */
static void read_node_name(const char *node_dir, char *out, size_t n)
{
	char *path = hr_path_join(node_dir, "name"), *text = NULL;
	char *s;

	out[0] = '\0';
	if (!path || read_small_file(path, 4096, &text) < 0) {
		free(path);
		return;
	}
	s = hr_strstrip(text);
	for (const char *c = s; *c; c++)
		if (!isprint((unsigned char)*c))
			goto out;
	snprintf(out, n, "%s", s);
out:
	free(text);
	free(path);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Node ids (all-digit directory names) in numeric order. */
static int list_nodes(const char *dir, uint32_t **ids, size_t *n)
{
	uint32_t *v = NULL;
	size_t cnt = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	*ids = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		uint64_t id;

		if (hr_parse_uint(de->d_name, UINT32_MAX, &id) < 0)
			continue;
		if (cnt == MAX_KFD_NODES)
			break;
		if (cnt % 16 == 0) {
			uint32_t *nv = realloc(v, (cnt + 16) * sizeof(*v));

			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		v[cnt++] = (uint32_t)id;
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_u32);
	*ids = v;
	*n = cnt;
	return 0;
}

/* One node: 1 = a GPU filled in, 0 = not a GPU or skipped (warned). */
static int kfd_node(struct hanzo_rocm *ctx, const char *nodes_dir, uint32_t id,
                    struct hr_device *dev)
{
	char sub[16], *node_dir, *path = NULL, *text = NULL, gfx[HR_TARGET_MAX];
	struct kfd_props p;
	unsigned bad_line = 0;
	int r;

	snprintf(sub, sizeof(sub), "%" PRIu32, id);
	node_dir = hr_path_join(nodes_dir, sub);
	path = node_dir ? hr_path_join(node_dir, "properties") : NULL;
	if (!path) {
		r = -ENOMEM;
		goto out;
	}
	r = read_small_file(path, MAX_PROPS_SIZE, &text);
	if (r == -EINVAL) {
		hr_warn(ctx, "%s: binary data, not a KFD properties file; node skipped\n", path);
		r = 0;
		goto out;
	}
	if (r < 0) {
		hr_warn(ctx, "%s: cannot read: %s; node skipped\n", path, strerror(-r));
		r = 0;
		goto out;
	}
	if (parse_props(text, &p, &bad_line) < 0) {
		hr_warn(ctx, "%s:%u: not a KFD properties line; node skipped\n", path, bad_line);
		r = 0;
		goto out;
	}
	r = 0;
	if ((p.has_simd && p.simd_count == 0) || (p.has_version && p.gfx_target_version == 0))
		goto out; /* a CPU node */
	if (!p.has_version) {
		hr_warn(ctx, "%s: no gfx_target_version (kernel too old?); node skipped\n", path);
		goto out;
	}
	if (p.gfx_target_version > UINT32_MAX ||
	    hr_target_from_gfx_version((uint32_t)p.gfx_target_version, gfx, sizeof(gfx)) < 0) {
		hr_warn(ctx, "%s: invalid gfx_target_version %" PRIu64 "; node skipped\n",
		        path, p.gfx_target_version);
		goto out;
	}
	*dev = (struct hr_device){ .platform = HR_PLATFORM_AMD, .kfd_node = id,
	                           .unique_id = p.unique_id };
	/* Launch geometry facts; implausible values stay 0 (unknown). */
	if (p.simd_per_cu && p.simd_count / p.simd_per_cu <= 4096)
		dev->compute_units = (unsigned)(p.simd_count / p.simd_per_cu);
	if (p.wave_front_size == 32 || p.wave_front_size == 64)
		dev->wave = (unsigned)p.wave_front_size;
	if (p.lds_size_in_kb && p.lds_size_in_kb <= 1024)
		dev->lds_bytes = (unsigned)p.lds_size_in_kb << 10;
	add_features(gfx, p.capability, dev->detected, sizeof(dev->detected));
	read_node_name(node_dir, dev->name, sizeof(dev->name));
	if (!dev->name[0])
		snprintf(dev->name, sizeof(dev->name), "%s", gfx);
	r = 1;
out:
	free(text);
	free(path);
	free(node_dir);
	return r;
}

int hr_hip_enumerate(struct hanzo_rocm *ctx, struct hr_backend *b HR_UNUSED,
                     struct hr_device *devs, size_t max, size_t *n)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	char *dir = hr_root_path(cfg ? cfg->root : NULL, KFD_NODES);
	uint32_t *ids = NULL;
	size_t n_ids = 0;
	int r;

	*n = 0;
	if (!dir)
		return -ENOMEM;
	r = list_nodes(dir, &ids, &n_ids);
	if (r < 0) {
		if (r != -ENOENT)
			hr_warn(ctx, "%s: %s; no AMD GPU detected\n", dir, strerror(-r));
		else
			hr_dbg(ctx, "%s: absent (no amdgpu/KFD)\n", dir);
		free(dir);
		return r == -ENOMEM ? r : 0;
	}
	for (size_t i = 0; i < n_ids && *n < max; i++) {
		r = kfd_node(ctx, dir, ids[i], &devs[*n]);
		if (r < 0)
			break;
		if (r > 0) {
			devs[*n].ordinal = (int)*n;
			(*n)++;
		}
	}
	free(ids);
	free(dir);
	return r < 0 ? r : 0;
}
