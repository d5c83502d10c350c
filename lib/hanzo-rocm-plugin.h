/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel-family plugin ABI of hanzo-rocm.  A plugin is a shared object in
 * $(libdir)/hanzo-rocm/plugins exporting hanzo_rocm_plugin_entry(); it holds
 * data only (its HIP source and kernel table), so it needs no library.
 * Layer: context (lib/layers).
 */
#ifndef HANZO_ROCM_PLUGIN_H
#define HANZO_ROCM_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HANZO_ROCM_PLUGIN_ABI 1
#define HANZO_ROCM_PLUGIN_ENTRY "hanzo_rocm_plugin_entry"

struct hanzo_rocm_kernel_info {
	const char *name;       /* extern "C" entry point, e.g. "uexp_f32" */
	const char *signature;  /* argument list as written in the source */
};

struct hanzo_rocm_plugin {
	uint32_t abi;           /* HANZO_ROCM_PLUGIN_ABI */
	uint32_t struct_size;   /* sizeof(struct hanzo_rocm_plugin) when built */
	const char *family;     /* a name (libhanzo-rocm(3) Names), unique */
	const char *version;
	const char *source;     /* self-contained HIP source, headers inlined */
	size_t source_len;
	const char *const *flags;                  /* extra compile flags, NULL-terminated */
	const struct hanzo_rocm_kernel_info *kernels;
	size_t n_kernels;
	/*
	 * Launch metadata: the "#@launch PATTERN KIND key=value..." lines of
	 * the family's list, newline-separated, NUL-terminated (NULL: none;
	 * hanzo_rocm_kernel_launch_work is then -ENODATA).  Read only when
	 * struct_size covers it, so older plugins stay loadable.
	 */
	const char *launch;
	/*
	 * Catalogue metadata: the "#@work", "#@ws", "#@forms" and "#@note"
	 * lines of the list (doc/HACKING.md), newline-separated, NUL-terminated
	 * (NULL: none; the catalogue then states each launch kind's meaning of
	 * work and no forms).  Read only when struct_size covers it.
	 */
	const char *catalogue;
};

typedef const struct hanzo_rocm_plugin *(*hanzo_rocm_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif
