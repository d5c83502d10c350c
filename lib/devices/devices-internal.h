/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the devices unit's files share and the rest of lib/ does not see
 * (private to lib/devices/, whose files only include it; the rest includes
 * devices/devices.h and devices/visible.h).  Layer: devices.
 */
#ifndef HR_DEVICES_INTERNAL_H
#define HR_DEVICES_INTERNAL_H

#include <stddef.h>

#include "devices.h"
#include "visible.h"

/*
 * Filter and reorder devs[0..*n) (AMD devices in KFD order) in place by
 * the variables of devices/visible.h, read with secure_getenv (empty = unset); renumbers
 * their ordinals 0..*n-1, HIP's numbering.  Never fails: a value the
 * runtime would not accept past some entry keeps the entries before it.
 */
void hr_devices_visible_apply(struct hanzo_rocm *ctx, struct hr_device *devs,
                              size_t *n, struct hr_visible *vis);

#endif
