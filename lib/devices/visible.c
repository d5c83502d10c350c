/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The visible-devices variables (layer: devices; devices/visible.h): the
 * same hiding and reordering HIP applies, applied to the KFD list, so a
 * device number means the same device to hanzo-rocm and to HIP.  The
 * levels, lowest first (ROCm "GPU isolation techniques"):
 *   ROCR_VISIBLE_DEVICES   ROCr: indices into the KFD GPU order, or
 *                          GPU-<hex> matching a node's unique_id
 *   GPU_DEVICE_ORDINAL     ROCclr: indices into what ROCr exposed
 *   HIP_VISIBLE_DEVICES    HIP: indices into what ROCclr exposed;
 *   else CUDA_VISIBLE_DEVICES  read only when HIP_VISIBLE_DEVICES is unset
 * A list is comma separated (blanks around an entry ignored).  An entry
 * that is not a valid index (or UUID) of its level, or names a device
 * already listed, ends the list: the devices listed before it stay
 * visible (the CUDA runtime's documented rule).  An empty value counts as
 * unset, as in ROCr and ROCclr, whose unset default is the empty string.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "visible.h"
#include "devices-internal.h"
#include "target/target.h"
#include "shared/util.h"

/* "GPU-" and 1..16 hex digits: ROCr's UUID of a KFD node (its unique_id). */
static bool parse_uuid(const char *s, size_t len, uint64_t *id)
{
	uint64_t v = 0;

	if (len < 5 || len > 20 || strncasecmp(s, "GPU-", 4) != 0)
		return false;
	for (size_t i = 4; i < len; i++) {
		int c = tolower((unsigned char)s[i]);

		if (!isxdigit(c))
			return false;
		v = v << 4 | (uint64_t)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	*id = v;
	return v != 0;
}

/* Decimal digits only, below n. */
static bool parse_index(const char *s, size_t len, size_t n, size_t *idx)
{
	size_t v = 0;

	if (len == 0 || len > 9)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (size_t)(s[i] - '0');
	}
	if (v >= n)
		return false;
	*idx = v;
	return true;
}

/* The index of entry [s, s+len) among devs[0..n), or false. */
static bool entry_device(const char *s, size_t len, const struct hr_device *devs,
                         size_t n, bool uuids, size_t *idx)
{
	uint64_t id;

	if (parse_index(s, len, n, idx))
		return true;
	if (!uuids || !parse_uuid(s, len, &id))
		return false;
	for (size_t i = 0; i < n; i++)
		if (devs[i].unique_id == id) {
			*idx = i;
			return true;
		}
	return false;
}

/* One level: devs[0..*n) becomes the devices its list names, in its order. */
static int apply_level(struct hanzo_rocm *ctx, const char *var, const char *raw,
                       bool uuids, struct hr_device *devs, size_t *n,
                       struct hr_visible_level *lv)
{
	struct hr_device *copy;
	bool *taken;
	size_t kept = 0;
	char *val = strdup(raw);
	const char *p = val;

	*lv = (struct hr_visible_level){ .var = var, .before = *n };
	copy = malloc((*n ? *n : 1) * sizeof(*copy));
	taken = calloc(*n ? *n : 1, sizeof(*taken));
	if (!val || !copy || !taken) {
		free(val);
		free(copy);
		free(taken);
		return -ENOMEM;
	}
	/* Shown on terminals and in logs: a control character (never part
	 * of a valid entry) becomes '?'; tabs stay, they are trimmed. */
	for (char *c = val; *c; c++)
		if (!isprint((unsigned char)*c) && *c != '\t')
			*c = '?';
	if (strlen(val) < sizeof(lv->value))
		snprintf(lv->value, sizeof(lv->value), "%s", val);
	else
		snprintf(lv->value, sizeof(lv->value), "%.*s...", (int)sizeof(lv->value) - 4, val);
	if (*n)
		memcpy(copy, devs, *n * sizeof(*copy));
	for (;;) {
		size_t len = strcspn(p, ","), idx = 0;
		const char *s = p, *next = p[len] ? p + len + 1 : NULL;

		while (len && (*s == ' ' || *s == '\t'))
			s++, len--;
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		if (!entry_device(s, len, copy, *n, uuids, &idx) || taken[idx]) {
			lv->ended = true;
			hr_warn(ctx, "%s=%s: entry '%.*s' %s; the list ends before it, as in the runtime\n",
			        var, lv->value, (int)(len > 64 ? 64 : len), s,
			        len && entry_device(s, len, copy, *n, uuids, &idx) ? "repeats a device" :
			        uuids ? "is not a device index or GPU-<unique_id> of the KFD GPUs" :
			        "is not an index of the devices the level below exposes");
			break;
		}
		taken[idx] = true;
		devs[kept++] = copy[idx];
		if (!next)
			break;
		p = next;
	}
	free(val);
	free(copy);
	free(taken);
	*n = kept;
	lv->after = kept;
	hr_info(ctx, "%s=%s: %zu of %zu devices visible\n", var, lv->value, lv->after, lv->before);
	return 0;
}

void hr_devices_visible_apply(struct hanzo_rocm *ctx, struct hr_device *devs,
                              size_t *n, struct hr_visible *vis)
{
	static const struct {
		const char *var;
		bool uuids;
	} levels[HR_VISIBLE_LEVELS] = {
		{ "ROCR_VISIBLE_DEVICES", true },
		{ "GPU_DEVICE_ORDINAL", false },
		{ "HIP_VISIBLE_DEVICES", false },     /* else CUDA_VISIBLE_DEVICES */
	};

	*vis = (struct hr_visible){ .kfd_gpus = *n };
	for (size_t i = 0; i < HR_VISIBLE_LEVELS; i++) {
		const char *var = levels[i].var, *val = hr_getenv(var);

		if (!val && i == HR_VISIBLE_LEVELS - 1) {
			var = "CUDA_VISIBLE_DEVICES";
			val = hr_getenv(var);
		}
		if (!val)
			continue;
		if (apply_level(ctx, var, val, levels[i].uuids, devs, n, &vis->level[vis->n]) < 0) {
			hr_err(ctx, "%s: out of memory; not applied\n", var);
			continue;
		}
		vis->n++;
	}
	for (size_t i = 0; i < *n; i++)
		devs[i].ordinal = (int)i;
}
