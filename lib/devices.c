/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Devices (layer: devices): detection without spawning a process (KFD
 * topology in sysfs for AMD, the CUDA backend's enumeration for NVIDIA)
 * and the override precedence of DESIGN §2.  The list is built once per
 * context.  Uses the backends below it; nothing here reaches up.
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

#include "backend.h"
#include "config-api.h"
#include "devices.h"
#include "devices-visible.h"
#include "backend-cuda.h"
#include "context.h"
#include "target.h"
#include "util.h"
#include "util-targets.h"

#define KFD_NODES "/sys/class/kfd/kfd/topology/nodes"
#define MAX_DEVICES 64
#define MAX_KFD_NODES 1024
#define MAX_PROPS_SIZE (64 * 1024)

/* include/uapi/linux/kfd_sysfs.h.  (0x00080000 is the retired old SRAM ECC bit.) */
#define HSA_CAP_SRAM_EDCSUPPORTED 0x04000000u

struct hr_devices {
	size_t n;
	struct hr_visible visible;     /* devices-visible.c */
	struct hr_device dev[];
};

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
/* Which features KFD may report for a processor (lib/util-targets.def). */
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

static int detect_amd(struct hanzo_rocm *ctx, struct hr_device *devs,
                      size_t max, size_t *n)
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

int hr_devices_cuda(struct hanzo_rocm *ctx, struct hr_device *devs, size_t max,
                    size_t *n)
{
	const struct hr_backend_ops *ops;
	void *b;
	int r;

	*n = 0;
	r = hr_backend_get(ctx, HR_PLATFORM_NVIDIA, &ops, &b);
	if (r == -ENODEV)
		return 0;
	if (r < 0)
		return r;
	return hr_cuda_enumerate(ctx, b, devs, max, n);
}

static void detect_nvidia(struct hanzo_rocm *ctx, struct hr_device *devs,
                          size_t max, size_t *n)
{
	int r = hr_devices_cuda(ctx, devs, max, n);

	if (r == -ENOENT || r == -ENOSYS) {
		*n = 0;
		return;
	}
	if (r < 0) {
		hr_warn(ctx, "CUDA driver: %s; no NVIDIA GPU detected\n", strerror(-r));
		*n = 0;
		return;
	}
	if (*n > max)
		*n = max;
	for (size_t i = 0; i < *n; i++) {
		devs[i].platform = HR_PLATFORM_NVIDIA;
		/* Defensive: an odd driver answer must not become a path component later. */
		if (hr_target_validate(devs[i].target) < 0 && hr_target_validate(devs[i].detected) == 0)
			snprintf(devs[i].target, sizeof(devs[i].target), "%s", devs[i].detected);
		if (!devs[i].detected[0])
			snprintf(devs[i].detected, sizeof(devs[i].detected), "%s", devs[i].target);
	}
}

/* ---- precedence ---------------------------------------------------------- */

/* An override value usable for AMD devices, or NULL (warned once per context build). */
static const char *amd_override(struct hanzo_rocm *ctx, const char *what,
                                const char *v)
{
	if (!v)
		return NULL;
	if (hr_target_platform(v) != HR_PLATFORM_AMD) {
		hr_err(ctx, "%s: '%s' is not an AMD target ID (e.g. gfx90a); ignored\n", what, v);
		return NULL;
	}
	return v;
}

/* [targets] map: exact ID first, then the generic processor. */
static const char *map_lookup(const struct hr_config *cfg, const char *detected)
{
	char generic[HR_TARGET_MAX];

	for (size_t i = 0; i < cfg->n_map; i++)
		if (cfg->map[i].from && strcmp(cfg->map[i].from, detected) == 0)
			return cfg->map[i].to;
	if (hr_target_generic(detected, generic, sizeof(generic)) < 0)
		return NULL;
	for (size_t i = 0; i < cfg->n_map; i++)
		if (cfg->map[i].from && strcmp(cfg->map[i].from, generic) == 0)
			return cfg->map[i].to;
	return NULL;
}

static void apply_precedence(struct hanzo_rocm *ctx, struct hr_device *devs,
                             size_t n)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	const char *arch = NULL, *ovr = NULL, *hsa = NULL;
	char hsa_buf[HR_TARGET_MAX];
	bool any_amd = false;

	for (size_t i = 0; i < n; i++)
		any_amd |= devs[i].platform == HR_PLATFORM_AMD;
	if (!any_amd || !cfg)
		goto assign;
	arch = amd_override(ctx, "HANZO_ROCM_ARCH/CANDLE_ROCM_ARCH", cfg->env_arch);
	ovr = amd_override(ctx, "[targets] override", cfg->override);
	if (cfg->hsa_override) {
		if (hr_target_from_hsa_override(cfg->hsa_override, hsa_buf, sizeof(hsa_buf)) == 0)
			hsa = hsa_buf;
		else
			hr_err(ctx, "HSA_OVERRIDE_GFX_VERSION: invalid value '%s' (want MAJOR.MINOR.STEPPING, e.g. 10.3.0); ignored\n",
			       cfg->hsa_override);
	}
assign:
	for (size_t i = 0; i < n; i++) {
		struct hr_device *d = &devs[i];
		const char *t = NULL;

		d->index = (unsigned)i;
		if (d->platform != HR_PLATFORM_AMD)
			continue;
		if (arch)
			t = arch;
		else if (ovr)
			t = ovr;
		else if (hsa)
			t = hsa;
		else if (cfg && (t = map_lookup(cfg, d->detected)) && hr_target_validate(t) < 0) {
			hr_err(ctx, "[targets] map: '%s' is not a target ID; ignored\n", t);
			t = NULL;
		}
		snprintf(d->target, sizeof(d->target), "%s", t ? t : d->detected);
		if (t)
			hr_info(ctx, "device %zu: detected %s, using %s\n", i, d->detected, d->target);
	}
}

/* Host devices come last, and only when asked for (never a fallback). */
static void add_host(struct hanzo_rocm *ctx, struct hr_device *devs, size_t max,
                     size_t *n)
{
	char *const *host = hr_ctx_config(ctx) ? hr_ctx_config(ctx)->host : NULL;

	for (size_t i = 0; host && host[i] && *n < max; i++) {
		struct hr_device *d = &devs[*n];
		unsigned wave = hr_platform_host.wave(host[i]);

		if (!wave)
			continue;
		*d = (struct hr_device){ .platform = HR_PLATFORM_HOST,
		                         .ordinal = wave == 64 ? 0 : 1 };
		snprintf(d->detected, sizeof(d->detected), "%s", host[i]);
		snprintf(d->target, sizeof(d->target), "%s", host[i]);
		snprintf(d->name, sizeof(d->name), "CPU (wave %u)", wave);
		(*n)++;
	}
}

/* Detects unlocked (sysfs, a driver); hr_ctx_lazy frees a lost race's copy. */
static int detect(struct hanzo_rocm *ctx, void **ret)
{
	struct hr_devices *d;
	size_t n_amd = 0, n_nv = 0;
	int r;

	d = calloc(1, sizeof(*d) + MAX_DEVICES * sizeof(d->dev[0]));
	if (!d)
		return -ENOMEM;
	r = detect_amd(ctx, d->dev, MAX_DEVICES, &n_amd);
	if (r < 0) {
		free(d);
		return r;
	}
	hr_devices_visible_apply(ctx, d->dev, &n_amd, &d->visible);
	detect_nvidia(ctx, d->dev + n_amd, MAX_DEVICES - n_amd, &n_nv);
	d->n = n_amd + n_nv;
	add_host(ctx, d->dev, MAX_DEVICES, &d->n);
	apply_precedence(ctx, d->dev, d->n);
	*ret = d;
	return 0;
}

int hr_devices_get(struct hanzo_rocm *ctx, const struct hr_device **devs,
                   size_t *n)
{
	const struct hr_devices *d;
	void *p;
	int r;

	if (!ctx || !devs || !n)
		return -EINVAL;
	r = hr_ctx_lazy(ctx, HR_SLOT_DEVICES, detect, free, &p);
	if (r < 0)
		return r;
	d = p;
	*devs = d->dev;
	*n = d->n;
	return 0;
}

const struct hr_visible *hr_devices_visible(struct hanzo_rocm *ctx)
{
	const struct hr_device *devs;
	size_t n;

	if (hr_devices_get(ctx, &devs, &n) < 0)
		return NULL;
	return &((const struct hr_devices *)hr_ctx_peek(ctx, HR_SLOT_DEVICES))->visible;
}

/* ---- public API ---------------------------------------------------------- */

HR_EXPORT int hanzo_rocm_device_count(struct hanzo_rocm *ctx)
{
	const struct hr_device *devs;
	size_t n;
	int r = hr_devices_get(ctx, &devs, &n);

	return r < 0 ? r : (int)n;
}

static int device_at(struct hanzo_rocm *ctx, unsigned device,
                     const struct hr_device **ret)
{
	const struct hr_device *devs;
	size_t n;
	int r = hr_devices_get(ctx, &devs, &n);

	if (r < 0)
		return r;
	if (device >= n)
		return -ENODEV;
	*ret = &devs[device];
	return 0;
}

HR_EXPORT int hanzo_rocm_device_target(struct hanzo_rocm *ctx, unsigned device,
                                       const char **target)
{
	const struct hr_device *d;
	int r;

	if (!target)
		return -EINVAL;
	r = device_at(ctx, device, &d);
	if (r < 0)
		return r;
	*target = d->target;
	return 0;
}

HR_EXPORT int hanzo_rocm_device_platform(struct hanzo_rocm *ctx, unsigned device)
{
	const struct hr_device *d;
	int r = device_at(ctx, device, &d);

	return r < 0 ? r : (int)d->platform;
}
