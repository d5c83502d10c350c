/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * precompile (layer: top): every (target, family) pair into one cache tier.
 * Its target choice is precompile/targets.c, its destination and the tiers
 * that already serve it precompile/dest.c, its toolchain stamps
 * precompile/stamp.c.  The three phases share one run structure and worker
 * pool, and read best in order in one file.
 *
 * Three phases:
 *  1. classify every pair without spawning anything: the destination entry
 *     (key + compiler identity), the read-only tiers that would serve it,
 *     whether the toolchain can build its target;
 *  2. probe a toolchain (`hipcc --version`) only when a pair must be built;
 *  3. build the rest with a pthread worker pool, each pair under its entry
 *     lock, re-checked after the lock (another precompile may have won).
 *
 * Compiler identity without a spawn: precompile/stamp.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache/cache.h"
#include "config/config.h"
#include "context.h"
#include "plugin/plugin.h"
#include "precompile-internal.h"
#include "precompile.h"
#include "devices/devices.h"
#include "target/target.h"
#include "toolchain/toolchain.h"
#include "shared/util.h"
#include "shared/name.h"

#define N_KINDS 3       /* enum hr_compiler: hipcc, nvcc, cxx */

struct pc_pair {
	const char *target;             /* in run->targets */
	struct hr_family *fam;          /* owned by ctx */
	enum hr_compiler kind;
	struct hr_cache_key key;
	char *path;                     /* destination entry */
	/* phase 1: what the destination held */
	bool have_entry;                /* valid, with our key */
	char entry_compiler[128];
	uint64_t entry_size;
	dev_t entry_dev;
	ino_t entry_ino;
	bool queued;
};

struct pc_kind {
	struct hr_toolchain *stamp;     /* reconstructed from the stamp, no spawn */
	struct hr_toolchain *tc;        /* probed, when something must be built */
	int err;                        /* probe result */
	bool probed;
};

struct pc_run {
	struct hanzo_rocm *ctx;
	const struct hr_precompile_opts *o;
	struct hr_precompile_summary *sum;
	const char *dest;
	char **targets;
	char **ro_dirs;                 /* tiers that would serve a pair first */
	struct pc_pair *pairs;
	size_t n_pairs;
	size_t *todo, n_todo, next;     /* work queue, under lock */
	unsigned done, total;
	struct pc_kind kinds[N_KINDS];
	unsigned lock_timeout;
	bool dest_readonly;             /* a user cache we cannot write: check only */
	pthread_mutex_t lock;           /* queue, counters, callbacks */
};

const char *hr_precompile_status_name(enum hr_precompile_status s)
{
	switch (s) {
	case HR_PRECOMPILE_BUILT: return "built";
	case HR_PRECOMPILE_UP_TO_DATE: return "up-to-date";
	case HR_PRECOMPILE_PROVIDED: return "provided";
	case HR_PRECOMPILE_SKIPPED: return "skipped";
	case HR_PRECOMPILE_FAILED: return "failed";
	}
	return "unknown";
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- reporting -------------------------------------------------------- */

static void report(struct pc_run *run, const struct pc_pair *p,
                   enum hr_precompile_status st, const char *reason,
                   const char *diag, double seconds, uint64_t size)
{
	const struct hr_precompile_opts *o = run->o;
	struct hr_precompile_result res = {
		.target = p->target, .family = p->fam->family, .status = st,
		.reason = reason, .diag = diag, .seconds = seconds, .size = size,
	};
	struct hr_precompile_summary *s = run->sum;

	pthread_mutex_lock(&run->lock);
	switch (st) {
	case HR_PRECOMPILE_BUILT: s->built++; break;
	case HR_PRECOMPILE_UP_TO_DATE: s->up_to_date++; break;
	case HR_PRECOMPILE_PROVIDED: s->provided++; break;
	case HR_PRECOMPILE_SKIPPED: s->skipped++; break;
	case HR_PRECOMPILE_FAILED: s->failed++; break;
	}
	run->done++;
	if (o->on_result)
		o->on_result(o->data, &res);
	if (o->on_progress)
		o->on_progress(o->data, run->done, run->total, p->target,
		               p->fam->family);
	pthread_mutex_unlock(&run->lock);
}

/* Probe once per kind, then remember the result in the destination. */
static int kind_probe(struct pc_run *run, enum hr_compiler k)
{
	struct pc_kind *pk = &run->kinds[k];

	if (pk->probed)
		return pk->err;
	pk->probed = true;
	pk->err = hr_toolchain_find(run->ctx, k, &pk->tc);
	if (pk->err == 0)
		hr_stamp_save(run->ctx, hr_ctx_config(run->ctx), run->dest, pk->tc);
	return pk->err;
}

/* ---- phase 1: classify ------------------------------------------------ */

static bool entry_valid(struct hanzo_rocm *ctx, const char *path,
                        const struct hr_cache_key *key, struct hr_entry *e)
{
	memset(e, 0, sizeof(*e));
	return hr_entry_read(ctx, path, key, e) == 0;
}

static void pair_inspect(struct pc_run *run, struct pc_pair *p)
{
	struct hr_entry e;
	struct stat st;

	p->have_entry = false;
	if (stat(p->path, &st) < 0)
		return;
	if (entry_valid(run->ctx, p->path, &p->key, &e)) {
		p->have_entry = true;
		snprintf(p->entry_compiler, sizeof(p->entry_compiler), "%s", e.compiler);
		p->entry_size = e.payload_size;
		p->entry_dev = st.st_dev;
		p->entry_ino = st.st_ino;
		hr_entry_release(&e);
	}
}

/* Which read-only tier already serves this pair, if any. */
static const char *pair_provider(struct pc_run *run, const struct pc_pair *p)
{
	for (size_t i = 0; run->ro_dirs[i]; i++) {
		char why[PATH_MAX + 256];
		struct hr_entry e;
		bool ok;
		/* What lookups would refuse (ownership, mode, symlinks) provides nothing. */
		int r = hr_entry_read_tier(run->ctx, run->ro_dirs[i], p->target,
		                           p->fam->family, true, &p->key, &e, why,
		                           sizeof(why));

		if (r == -EPERM)
			hr_warn(run->ctx, "%s: not used\n", why);
		ok = r == 0;
		if (ok)
			hr_entry_release(&e);
		if (ok)
			return run->ro_dirs[i];
	}
	return NULL;
}

/*
 * Decide what can be decided without a compiler.  Returns true when the pair
 * is settled (reported), false when it needs the probed toolchain.
 */
static bool pair_settle_early(struct pc_run *run, struct pc_pair *p, double t0)
{
	const struct hr_toolchain *tc = run->kinds[p->kind].stamp;
	const char *by;
	char why[256] = "";

	if (!run->o->force && p->have_entry && tc &&
	    strcmp(p->entry_compiler, tc->identity) == 0) {
		report(run, p, HR_PRECOMPILE_UP_TO_DATE, NULL, NULL, now_s() - t0,
		       p->entry_size);
		return true;
	}
	if (!run->o->force && (by = pair_provider(run, p))) {
		report(run, p, HR_PRECOMPILE_PROVIDED, by, NULL, now_s() - t0, 0);
		return true;
	}
	/* can_build is a pure check; the stamp's toolchain answers it too. */
	if (tc && hr_toolchain_can_build(tc, p->target, why, sizeof(why)) == -ENOTSUP) {
		report(run, p, HR_PRECOMPILE_SKIPPED, why[0] ? why : "not buildable",
		       NULL, 0, 0);
		return true;
	}
	return false;
}

/* After a probe: identity known for sure, skip reasons, or queue it. */
static void pair_settle_probed(struct pc_run *run, struct pc_pair *p)
{
	struct pc_kind *pk = &run->kinds[p->kind];
	char why[256] = "";
	int r;

	/* No compiler installed is a skip; one that is there but cannot run fails. */
	if (pk->err < 0) {
		if (pk->err == -ENOENT)
			snprintf(why, sizeof(why), "%s not found",
			         hr_precompile_compiler_name(hr_ctx_config(run->ctx), p->kind));
		else
			snprintf(why, sizeof(why), "%s unusable: %s",
			         hr_precompile_compiler_name(hr_ctx_config(run->ctx), p->kind),
			         strerror(-pk->err));
		report(run, p, pk->err == -ENOENT ? HR_PRECOMPILE_SKIPPED : HR_PRECOMPILE_FAILED,
		       why, NULL, 0, 0);
		return;
	}
	if (!run->o->force && p->have_entry &&
	    strcmp(p->entry_compiler, pk->tc->identity) == 0) {
		report(run, p, HR_PRECOMPILE_UP_TO_DATE, NULL, NULL, 0, p->entry_size);
		return;
	}
	/* Only a target this compiler lacks is a skip; a broken toolchain fails. */
	r = hr_toolchain_can_build(pk->tc, p->target, why, sizeof(why));
	if (r < 0) {
		report(run, p, r == -ENOTSUP ? HR_PRECOMPILE_SKIPPED : HR_PRECOMPILE_FAILED,
		       why[0] ? why : "not buildable", NULL, 0, 0);
		return;
	}
	if (run->dest_readonly) {
		snprintf(why, sizeof(why), "needs building, but %s is not writable", run->dest);
		report(run, p, HR_PRECOMPILE_FAILED, why, NULL, 0, 0);
		return;
	}
	p->queued = true;
	run->todo[run->n_todo++] = (size_t)(p - run->pairs);
}

/* ---- phase 3: build --------------------------------------------------- */

/*
 * Under the entry lock, someone else may have published it meanwhile: a
 * valid entry with our key and identity is up to date, except under --force
 * when it is still the very file we saw before (same inode).
 */
static bool pair_recheck(struct pc_run *run, struct pc_pair *p,
                         const struct hr_toolchain *tc, uint64_t *size)
{
	struct hr_entry e;
	struct stat st;
	bool fresh;

	if (stat(p->path, &st) < 0 || !entry_valid(run->ctx, p->path, &p->key, &e))
		return false;
	fresh = strcmp(e.compiler, tc->identity) == 0;
	if (fresh && run->o->force)
		fresh = !(p->have_entry && st.st_dev == p->entry_dev &&
		          st.st_ino == p->entry_ino);
	*size = e.payload_size;
	hr_entry_release(&e);
	return fresh;
}

static void pair_build(struct pc_run *run, struct pc_pair *p)
{
	struct hanzo_rocm *ctx = run->ctx;
	const struct hr_toolchain *tc = run->kinds[p->kind].tc;
	const struct hanzo_rocm_plugin *desc = NULL;
	double t0 = now_s();
	void *obj = NULL;
	size_t obj_size = 0;
	uint64_t size = 0;
	char *diag = NULL, *dir = hr_path_join(run->dest, p->target);
	char why[320];
	int fd = -1, r;

	if (!dir || (r = hr_mkdir_p(dir, 0755)) < 0) {
		r = dir ? r : -ENOMEM;
		snprintf(why, sizeof(why), "cannot create %s: %s", dir ? dir : run->dest,
		         strerror(-r));
		report(run, p, HR_PRECOMPILE_FAILED, why, NULL, now_s() - t0, 0);
		free(dir);
		return;
	}
	free(dir);
	r = hr_entry_lock(run->dest, p->target, p->fam->family, run->lock_timeout, &fd);
	if (r < 0) {
		/* Publishing is atomic: going on unlocked only risks duplicate work. */
		hr_warn(ctx, "%s/%s: no lock (%s); building anyway\n", p->target,
		        p->fam->family, strerror(-r));
		fd = -1;
	}
	if (pair_recheck(run, p, tc, &size)) {
		hr_entry_unlock(fd);
		report(run, p, HR_PRECOMPILE_UP_TO_DATE, NULL, NULL, now_s() - t0, size);
		return;
	}
	r = hr_family_load(ctx, p->fam, &desc);
	if (r < 0 || !desc || !desc->source) {
		snprintf(why, sizeof(why), "cannot load plugin %s: %s", p->fam->path,
		         strerror(r < 0 ? -r : EINVAL));
		goto fail;
	}
	r = hr_toolchain_compile(ctx, tc, desc->source, desc->source_len,
	                         (const char *const *)p->fam->flags,
	                         hr_ctx_config(ctx)->flags, p->target, &obj, &obj_size,
	                         &diag);
	if (r < 0) {
		snprintf(why, sizeof(why), "%s: %s", hr_compiler_name(p->kind),
		         r == -ETIMEDOUT ? "timed out" : "compile failed");
		goto fail;
	}
	r = hr_entry_write(ctx, run->dest, p->fam->family, p->target, &p->key,
	                   tc->identity, obj, obj_size);
	if (r < 0) {
		snprintf(why, sizeof(why), "cannot write %s: %s", p->path, strerror(-r));
		goto fail;
	}
	hr_entry_unlock(fd);
	report(run, p, HR_PRECOMPILE_BUILT, NULL, NULL, now_s() - t0, obj_size);
	free(obj);
	free(diag);
	return;
fail:
	/* Nothing published: no lock file of ours stays behind either. */
	hr_entry_unlock_discard(run->dest, p->target, p->fam->family, fd);
	report(run, p, HR_PRECOMPILE_FAILED, why, diag, now_s() - t0, 0);
	free(obj);
	free(diag);
}

static void *worker(void *arg)
{
	struct pc_run *run = arg;

	for (;;) {
		struct pc_pair *p = NULL;

		pthread_mutex_lock(&run->lock);
		if (run->next < run->n_todo)
			p = &run->pairs[run->todo[run->next++]];
		pthread_mutex_unlock(&run->lock);
		if (!p)
			return NULL;
		pair_build(run, p);
	}
}

static unsigned jobs_effective(const struct pc_run *run)
{
	unsigned j = run->o->jobs ? run->o->jobs : hr_ctx_config(run->ctx)->jobs;

	if (j == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		j = n > 0 ? (unsigned)n : 1;
	}
	if (j > run->n_todo)
		j = (unsigned)run->n_todo;
	return j ? j : 1;
}

static void pool_run(struct pc_run *run)
{
	unsigned n = jobs_effective(run), started = 0;
	pthread_t *th = calloc(n, sizeof(*th));

	for (unsigned i = 0; th && i < n; i++) {
		if (pthread_create(&th[i], NULL, worker, run) != 0)
			break;
		started++;
	}
	if (started == 0) /* no threads to be had: do it ourselves */
		worker(run);
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
}

/* ---- setup ------------------------------------------------------------ */

static int targets_get(struct pc_run *run, char ***ret)
{
	struct hanzo_rocm *ctx = run->ctx;
	char **in = NULL, **out = hr_strv_new();
	int r = 0;

	if (!out)
		return -ENOMEM;
	if (run->o->targets) {
		in = hr_strv_copy(run->o->targets);
		run->sum->targets_why = "command line";
		if (!in)
			r = -ENOMEM;
	} else {
		r = hr_targets_for_precompile(ctx, &in, &run->sum->targets_why);
		if (r < 0)
			hr_err(ctx, "cannot choose targets: %s\n", hanzo_rocm_strerror(r));
	}
	for (size_t i = 0; r == 0 && in && in[i]; i++) {
		if (hr_target_validate(in[i]) < 0 || !hr_name_is_valid(in[i])) {
			hr_err(ctx, "invalid target '%s' (want gfx… or sm_NN)\n", in[i]);
			r = -EINVAL;
		} else if (!hr_strv_contains(out, in[i])) {
			r = hr_strv_push(&out, in[i]);
		}
	}
	hr_strv_free(in);
	if (r < 0) {
		hr_strv_free(out);
		return r;
	}
	*ret = out;
	return 0;
}

static int families_get(struct pc_run *run, struct hr_family ***ret, size_t *n)
{
	struct hanzo_rocm *ctx = run->ctx;
	char **names = NULL;
	struct hr_family **fams;
	size_t k = 0;
	int r = 0;

	if (run->o->families)
		names = hr_strv_copy(run->o->families);
	else if ((r = hr_plugins_families(ctx, &names)) < 0)
		hr_err(ctx, "cannot list plugin families: %s\n", hanzo_rocm_strerror(r));
	if (r == 0 && !names)
		r = -ENOMEM;
	if (r < 0)
		return r;
	fams = calloc(hr_strv_len(names) + 1, sizeof(*fams)); // NOLINT(bugprone-sizeof-expression): an array of pointers
	for (size_t i = 0; fams && names[i] && r == 0; i++) {
		bool dup = false;

		if (!hr_name_is_valid(names[i])) {
			hr_err(ctx, "invalid family name '%s'\n", names[i]);
			r = -EINVAL;
			break;
		}
		r = hr_plugins_family(ctx, names[i], &fams[k]);
		if (r < 0) {
			hr_err(ctx, "unknown or disabled family '%s' (see hanzo-rocm plugins)\n",
			       names[i]);
			break;
		}
		for (size_t j = 0; j < k; j++)
			dup |= fams[j] == fams[k];
		if (!dup)
			k++;
	}
	hr_strv_free(names);
	if (!fams)
		return -ENOMEM;
	if (r < 0) {
		free(fams);
		return r;
	}
	*ret = fams;
	*n = k;
	return 0;
}

static int pairs_make(struct pc_run *run, struct hr_family **fams, size_t n_fams)
{
	const struct hr_config *cfg = hr_ctx_config(run->ctx);
	size_t nt = hr_strv_len(run->targets), k = 0;

	run->pairs = calloc(nt * n_fams + 1, sizeof(*run->pairs));
	run->todo = calloc(nt * n_fams + 1, sizeof(*run->todo));
	if (!run->pairs || !run->todo)
		return -ENOMEM;
	for (size_t t = 0; t < nt; t++) {
		for (size_t f = 0; f < n_fams; f++) {
			struct pc_pair *p = &run->pairs[k++];

			p->target = run->targets[t];
			p->fam = fams[f];
			p->kind = hr_compiler_for(hr_target_platform(p->target));
			hr_cache_key_compute(p->fam->family, p->fam->source_sha256,
			                     (const char *const *)p->fam->flags,
			                     cfg->flags, p->target, &p->key);
			p->path = hr_entry_path(run->dest, p->target, p->fam->family);
			if (!p->path)
				return -ENOMEM;
		}
	}
	run->n_pairs = k;
	run->total = (unsigned)k;
	return 0;
}

static void run_free(struct pc_run *run)
{
	for (size_t i = 0; i < run->n_pairs; i++)
		free(run->pairs[i].path);
	free(run->pairs);
	free(run->todo);
	hr_strv_free(run->targets);
	hr_strv_free(run->ro_dirs);
	for (int k = 0; k < N_KINDS; k++) {
		hr_toolchain_free(run->kinds[k].stamp);
		hr_toolchain_free(run->kinds[k].tc);
	}
	pthread_mutex_destroy(&run->lock);
}

static void phases(struct pc_run *run)
{
	for (int k = 0; k < N_KINDS; k++)
		if (!run->o->force)
			run->kinds[k].stamp = hr_stamp_load(hr_ctx_config(run->ctx), run->dest,
			                                 (enum hr_compiler)k);
	/* 1: no process spawned for anything settled here. */
	for (size_t i = 0; i < run->n_pairs; i++) {
		struct pc_pair *p = &run->pairs[i];
		double t0 = now_s();

		pair_inspect(run, p);
		if (!pair_settle_early(run, p, t0))
			p->queued = true;
	}
	/* 2: probe only what is needed; re-decide with the real identity. */
	for (size_t i = 0; i < run->n_pairs; i++) {
		struct pc_pair *p = &run->pairs[i];

		if (!p->queued)
			continue;
		p->queued = false;
		kind_probe(run, p->kind);
		pair_settle_probed(run, p);
	}
	/* 3: build.  Wait on a busy entry about as long as its compile may take. */
	run->lock_timeout = 60;
	for (int k = 0; k < N_KINDS; k++)
		if (run->kinds[k].tc && run->kinds[k].tc->timeout_s + 30 > run->lock_timeout)
			run->lock_timeout = run->kinds[k].tc->timeout_s + 30;
	if (run->n_todo)
		pool_run(run);
}

int hr_precompile(struct hanzo_rocm *ctx, const struct hr_precompile_opts *o,
                  struct hr_precompile_summary *sum)
{
	const struct hr_config *cfg = ctx ? hr_ctx_config(ctx) : NULL;
	struct pc_run run = { .ctx = ctx, .o = o, .sum = sum };
	struct hr_family **fams = NULL;
	char **before = NULL;
	size_t n_fams = 0;
	int r;

	if (!ctx || !o || !sum)
		return -EINVAL;
	memset(sum, 0, sizeof(*sum));
	if (!cfg) {
		hr_err(ctx, "precompile: no configuration loaded\n");
		return -EINVAL;
	}
	pthread_mutex_init(&run.lock, NULL);
	r = hr_precompile_dest(ctx, cfg, o, &run.dest, &run.dest_readonly);
	if (r < 0)
		goto out;
	sum->dir = strdup(run.dest);
	if (!sum->dir) {
		r = -ENOMEM;
		goto out;
	}
	r = targets_get(&run, &run.targets);
	if (r < 0)
		goto out;
	r = families_get(&run, &fams, &n_fams);
	if (r < 0)
		goto out;
	r = hr_precompile_ro_dirs(ctx, cfg, o, run.dest, &run.ro_dirs);
	if (r < 0)
		goto out;
	r = pairs_make(&run, fams, n_fams);
	if (r < 0)
		goto out;
	if (n_fams == 0)
		hr_warn(ctx, "no kernel-family plugins found: nothing to precompile (see hanzo-rocm plugins)\n");
	hr_info(ctx, "precompile: %zu target(s) × %zu famil%s into %s\n",
	        hr_strv_len(run.targets), n_fams, n_fams == 1 ? "y" : "ies",
	        run.dest);
	/* The families the last run found, before this run's index replaces them. */
	if (o->dest == HR_PRECOMPILE_SYSTEM && !run.dest_readonly &&
	    hr_plugins_index_families(run.dest, &before) == -ENOMEM) {
		r = -ENOMEM;
		goto out;
	}
	phases(&run);
	if (before) {
		r = hr_precompile_prune(ctx, run.dest, before, &sum->pruned,
		                        &sum->pruned_entries);
		if (r < 0)
			hr_warn(ctx, "cannot prune %s: %s\n", run.dest, hanzo_rocm_strerror(r));
	}
	r = run.dest_readonly ? 0 : hr_plugins_write_index(ctx, run.dest);
	if (r < 0)
		hr_warn(ctx, "cannot write the plugin index into %s: %s\n", run.dest,
		        hanzo_rocm_strerror(r));
	r = 0;
out:
	if (r < 0)
		hr_precompile_summary_release(sum);
	free(fams);
	hr_strv_free(before);
	run_free(&run);
	return r;
}

void hr_precompile_summary_release(struct hr_precompile_summary *s)
{
	if (!s)
		return;
	free(s->dir);
	s->dir = NULL;
	hr_strv_free(s->pruned);
	s->pruned = NULL;
}
