/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the plugin loader's files share (layer: build; private to lib/plugin/,
 * whose build-plugin*.c files only include it): limits, the family table,
 * where to look, the candidates of a scan, and the helpers they use.
 */
#ifndef HR_PLUGIN_INTERNAL_H
#define HR_PLUGIN_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "context.h"
#include "plugin.h"

#define INDEX_NAME "plugins.index"
#define INDEX_MAGIC "hanzo-rocm-plugin-index"
#define INDEX_VERSION 1
#define INDEX_MAX_SIZE (4u << 20)
#define MAX_NAME 64
#define MAX_VERSION 64
#define MAX_FLAGS 256
#define MAX_FLAG_LEN 1024
#define MAX_KERNELS 65536
#define MAX_SOURCE (256u << 20)

/* A family as handed out (the public part) plus what the loader keeps. */
struct fam {
	struct hr_family pub;
	void *dl;               /* dlopen handle once loaded */
	int load_err;           /* a refused load is not retried */
};

struct hr_plugins {
	pthread_mutex_t lock;   /* guards everything below */
	bool ready;             /* table filled from the index or a scan */
	bool from_index;
	struct fam **fams;
	size_t n_fams;
};

/* Where to look: from the context's configuration. */
struct settings {
	char **path;            /* deduplicated, in order */
	char **disable;         /* sorted */
	const char *index_dirs[2];
};

enum cand_state { CAND_OK, CAND_REJECTED, CAND_DISABLED };

/* The index's spelling of each state (plugin/check.c). */
#define CAND_N_STATES 3
extern const char *const hr_plugin_state_names[CAND_N_STATES];

/* A stat time as the index stores it: nanoseconds. */
static inline unsigned long long hr_plugin_ts_ns(const struct timespec *t)
{
	return (unsigned long long)t->tv_sec * 1000000000ull + (unsigned long long)t->tv_nsec;
}

/* One *.so found in a plugin directory, and what came of it. */
struct cand {
	char *path;
	bool have_st;
	struct stat st;         /* of the file, following a symlink */
	enum cand_state state;
	char *why;
	void *dl;
	const struct hanzo_rocm_plugin *desc;
	uint32_t abi;
	char *family, *version;
	uint8_t sha[32];
	char **flags, **kernels;
	int sys_err;            /* a transient errno behind a rejection (util.h), else 0 */
};

struct scan {
	struct cand *c;
	size_t n;
};

struct dir_list {
	int fd;                 /* -1 when missing */
	char why[512];          /* "" when trusted */
	char **names;           /* *.so, sorted */
};

/* plugin/check.c: the leaf (validators, settings, directories, examining). */
int hr_plugin_dir_list_open(struct hanzo_rocm *ctx, const char *dir, struct dir_list *d);
void hr_plugin_dir_list_release(struct dir_list *d);
void hr_plugin_fam_free(struct fam *f);
int hr_plugin_hex_val(char c);
bool hr_plugin_kernel_name_is_valid(const char *s);
int hr_plugin_settings_get(struct hanzo_rocm *ctx, struct settings *s);
void hr_plugin_settings_release(struct settings *s);
/*
 * "" when the open directory dfd (dir) and its ancestors pass the trust rule
 * (shared/trust.h), else why not (in buf).
 */
const char *hr_plugin_dir_untrusted(struct hanzo_rocm *ctx, int dfd, const char *dir,
                                    char *buf, size_t n);
bool hr_plugin_strv_equal(char *const *a, char *const *b);
bool hr_plugin_text_is_valid(const char *s, size_t max);

/* plugin/check.c: one candidate examined, or every one along the path. */
int hr_plugin_cand_examine(struct hanzo_rocm *ctx, int dfd, const char *dir,
                           const char *name, const char *dir_why,
                           char *const *disable, struct cand *c);
void hr_plugin_cand_release(struct cand *c);
int hr_plugin_scan_all(struct hanzo_rocm *ctx, const struct settings *set,
                    bool loud, struct scan *s);
void hr_plugin_scan_release(struct scan *s);

/* plugin/index.c: the family table from the tiers' indexes. */
int hr_plugin_table_from_indexes(struct hanzo_rocm *ctx, struct hr_plugins *p,
                              const struct settings *set, char **used,
                              char *msg, size_t msg_size);

#endif
