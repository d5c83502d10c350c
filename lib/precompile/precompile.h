/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * precompile: build the code object of every (target, family) pair into one
 * cache tier (doc/DESIGN.md §4, §5), in parallel, skipping what is already there.
 *
 * The no-op path spawns no process: an entry counts as up to date when its
 * key matches and its compiler identity equals the one remembered for the
 * compiler binary (a stamp in the destination keyed by the binary's path and
 * stat data).  Only when something must be built is the toolchain probed.
 * Layer: top (lib/layers).
 */
#ifndef HR_PRECOMPILE_H
#define HR_PRECOMPILE_H

#include <stdbool.h>
#include <stdint.h>

#include "source/source.h"
#include "toolchain/toolchain.h"
#include "cache/cache.h"

struct hanzo_rocm;

enum hr_precompile_dest {
	HR_PRECOMPILE_USER = 0,     /* cfg->user_dir (default) */
	HR_PRECOMPILE_SYSTEM,       /* cfg->system_dir; must be writable (root) */
	HR_PRECOMPILE_OUTPUT,       /* opts->output, any directory (created) */
};

enum hr_precompile_status {
	HR_PRECOMPILE_BUILT,
	HR_PRECOMPILE_UP_TO_DATE,
	HR_PRECOMPILE_PROVIDED,     /* a read-only tier already has it */
	HR_PRECOMPILE_SKIPPED,      /* not buildable here: reason says why */
	HR_PRECOMPILE_FAILED,
};
const char *hr_precompile_status_name(enum hr_precompile_status s);

struct hr_precompile_result {
	const char *target;
	const char *family;
	enum hr_precompile_status status;
	const char *reason;         /* skipped: why; provided: tier dir; failed: error */
	const char *diag;           /* failed compiles: compiler diagnostics, else NULL */
	double seconds;             /* wall time spent on this pair */
	uint64_t size;              /* code-object bytes (0 when none) */
};

/* Callbacks are serialised by precompile: never two at once. */
typedef void (*hr_precompile_result_fn)(void *data,
                                        const struct hr_precompile_result *r);
typedef void (*hr_precompile_progress_fn)(void *data, unsigned done,
                                          unsigned total, const char *target,
                                          const char *family);

struct hr_precompile_opts {
	enum hr_precompile_dest dest;
	const char *output;         /* HR_PRECOMPILE_OUTPUT */
	char *const *targets;       /* NULL: hr_targets_for_precompile() */
	char *const *families;      /* NULL: hr_plugins_families() */
	unsigned jobs;              /* 0: cfg->jobs, itself 0 = online CPUs */
	bool force;                 /* rebuild even what is up to date */
	hr_precompile_result_fn on_result;
	hr_precompile_progress_fn on_progress;
	void *data;
};

struct hr_precompile_summary {
	unsigned built, up_to_date, provided, skipped, failed;
	/* --system: families the previous run's index named that are no longer
	 * installed, their entries removed (precompile/prune.c) */
	char **pruned;
	unsigned pruned_entries;
	char *dir;                  /* the destination used (malloc'd) */
	const char *targets_why;    /* which rule chose the targets (static) */
};

/*
 * Run it.  Per-pair outcomes go to on_result and the summary; the return is
 * negative only when nothing could be attempted: -EACCES/-EROFS destination
 * not writable (for the system tier: needs root), -ENOTDIR/-EIO other
 * destination errors, -EINVAL bad target or option, -ENOENT unknown family
 * or no user cache directory.  Free summary->dir with
 * hr_precompile_summary_release().
 */
int hr_precompile(struct hanzo_rocm *ctx, const struct hr_precompile_opts *opts,
                  struct hr_precompile_summary *summary);
void hr_precompile_summary_release(struct hr_precompile_summary *summary);

/*
 * precompile --source (precompile/source.c): caller source s for each
 * target of o (o->families unused, one compile at a time) into o's
 * destination; results and errors as hr_precompile.
 */
int hr_precompile_source(struct hanzo_rocm *ctx, const struct hr_precompile_opts *o,
                         const struct hr_source_spec *s,
                         struct hr_precompile_summary *summary);

/* Whether a tier file (entry, quarantined, temp, lock; hr_cache_scan's
 * name and kind) is family's: the prune and `cache clear --family`. */
bool hr_cache_file_is_family(const char *name, enum hr_cache_file kind, const char *family);

/*
 * The targets `precompile` builds when none are given on the command line:
 * HANZO_ROCM_TARGETS, else detected ∪ [targets] extra, else [targets] default.
 * Deduplicated, validated; *why says which rule chose them (static string).
 */
int hr_targets_for_precompile(struct hanzo_rocm *ctx, char ***targets,
                              const char **why);

#endif
