/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library's private API for its own tools (the hanzo-rocm CLI in
 * tools/), as kmod's tools use libkmod-internal.  Not installed, not part
 * of the ABI: the CLI links the internal convenience library.  Layer: top
 * (lib/layers); tools/ include this header and the public ones, nothing else
 * of lib/.  It gives the tools:
 *
 *   the effective configuration, read-only   hr_tools_config() (config/config.h)
 *   strict configuration checking             hr_config_load/check_file
 *   the cache tiers, entries, scan, gc        cache.h
 *   plugins: scan, index state, families      plugin/plugin.h
 *   devices, targets, toolchains              devices.h target.h toolchain/toolchain.h
 *   visible-devices variables applied         devices/visible.h
 *   precompile and its target choice          precompile/precompile.h
 *   device memory, modules, events (selftest) runtime.h
 *   small helpers (strv, sizes, paths)        util.h
 *
 * The context itself (struct hanzo_rocm) stays opaque here.
 */
#ifndef HANZO_ROCM_TOOLS_H
#define HANZO_ROCM_TOOLS_H

#include <signal.h>

#include "hanzo-rocm.h"

#include "cache/cache.h"
#include "config/config.h"
#include "devices/devices.h"
#include "devices/visible.h"
#include "plugin/plugin.h"
#include "precompile/precompile.h"
#include "remote/remote.h"
#include "runtime/runtime.h"
#include "target/target.h"
#include "toolchain/toolchain.h"
#include "shared/util.h"
#include "shared/name.h"

/* The configuration ctx was created with (never NULL for a live context). */
const struct hr_config *hr_tools_config(struct hanzo_rocm *ctx);
/*
 * A flag the tool's SIGINT/SIGTERM handler sets (non-zero): from then on
 * every compile of ctx kills its compiler's process group, removes its temp
 * dir and fails with -ECANCELED, and none starts.  The library installs no
 * signal handler itself.
 */
void hr_tools_set_cancel(struct hanzo_rocm *ctx, const volatile sig_atomic_t *flag);

#endif
