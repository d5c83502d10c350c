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
#include "backend-hip.h"
#include "context.h"
#include "target.h"
#include "util.h"
#include "util-targets.h"

#define MAX_DEVICES 64

struct hr_devices {
	size_t n;
	struct hr_visible visible;     /* devices-visible.c */
	struct hr_device dev[];
};

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
	r = hr_hip_enumerate(ctx, NULL, d->dev, MAX_DEVICES, &n_amd);
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
