/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Devices (layer: devices): every backend's devices, in the backends'
 * order, through their enumerate ops (none spawns a process: KFD in sysfs
 * for AMD, the CUDA driver for NVIDIA, the configuration for the host), and
 * the override precedence of doc/DESIGN.md §2.  The list is built once per
 * context.  Uses the backends below it; nothing here reaches up.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "config/config.h"
#include "devices.h"
#include "visible.h"
#include "devices-internal.h"
#include "context.h"
#include "target/target.h"
#include "shared/util.h"

#define MAX_DEVICES 64

struct hr_devices {
	size_t n;
	struct hr_visible visible;     /* devices/visible.c */
	struct hr_device dev[];
};

int hr_devices_cuda(struct hanzo_rocm *ctx, struct hr_device *devs, size_t max,
                    size_t *n)
{
	return hr_backend_enumerate(ctx, hr_backend_for(HR_PLATFORM_NVIDIA), devs, max, n);
}

/*
 * One backend's devices appended to d: a missing driver or library is no
 * device (quietly: most machines lack all but one), another error is
 * warned about; only running out of memory fails the detection.
 */
static int detect_backend(struct hanzo_rocm *ctx, const struct hr_backend_ops *ops,
                          struct hr_devices *d)
{
	const struct hr_platform_facts *pf = hr_platform_facts(ops->platform);
	struct hr_device *devs = d->dev + d->n;
	size_t max = MAX_DEVICES - d->n, n = 0;
	int r = hr_backend_enumerate(ctx, ops, devs, max, &n);

	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		if (r != -ENOENT && r != -ENOSYS)
			hr_warn(ctx, "%s driver: %s; no %s GPU detected\n", ops->name,
			        strerror(-r), pf ? pf->label : ops->name);
		n = 0;
	}
	if (n > max)
		n = max;
	for (size_t i = 0; i < n; i++) {
		devs[i].platform = ops->platform;
		/* Defensive: an odd driver answer must not become a path component later. */
		if (hr_target_validate(devs[i].target) < 0 && hr_target_validate(devs[i].detected) == 0)
			snprintf(devs[i].target, sizeof(devs[i].target), "%s", devs[i].detected);
		if (!devs[i].detected[0])
			snprintf(devs[i].detected, sizeof(devs[i].detected), "%s", devs[i].target);
	}
	if (ops->kfd_visible)
		hr_devices_visible_apply(ctx, devs, &n, &d->visible);
	d->n += n;
	return 0;
}

/* ---- precedence ---------------------------------------------------------- */

/* The overrides of doc/DESIGN.md §2 apply to the device's platform (AMD's). */
static bool overridable(const struct hr_device *d)
{
	const struct hr_platform_facts *pf = hr_platform_facts(d->platform);

	return pf && pf->overridable;
}

/* An override value usable for AMD devices, or NULL (warned once per context build). */
static const char *amd_override(struct hanzo_rocm *ctx, const char *what,
                                const char *v)
{
	if (!v)
		return NULL;
	const struct hr_platform_facts *pf = hr_platform_facts(hr_target_platform(v));

	if (!pf || !pf->overridable) {
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
	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= overridable(&devs[i]);
	if (!any || !cfg)
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
		if (!overridable(d))
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

/* Detects unlocked (sysfs, a driver); hr_ctx_lazy frees a lost race's copy. */
static int detect(struct hanzo_rocm *ctx, void **ret)
{
	const struct hr_backend_ops *ops;
	struct hr_devices *d;

	d = calloc(1, sizeof(*d) + MAX_DEVICES * sizeof(d->dev[0]));
	if (!d)
		return -ENOMEM;
	/* Each backend's devices in the backends' order (backend.c). */
	for (size_t i = 0; (ops = hr_backend_at(i)); i++) {
		int r = detect_backend(ctx, ops, d);

		if (r < 0) {
			free(d);
			return r;
		}
	}
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
