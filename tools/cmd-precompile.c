/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hanzo-rocm precompile: build every (target, family) code object into a
 * cache tier and print one table row per pair as it completes.
 */
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hanzo-rocm-tools.h"
#include "tools.h"

#define DIAG_MAX_LINES 60

struct pc_out {
	bool bar;               /* draw a progress bar on stderr */
	bool bar_drawn;
	bool header_done;       /* the table header, before the first row */
	bool quiet;             /* -q: only failed rows, no summary line */
	struct json *j;         /* --json: results as objects, no table */
	char **pairs;           /* --remote: "target/family" built or up to date */
	bool oom;
};

static void header(struct pc_out *po)
{
	if (!po->header_done)
		printf("%-14s %-12s %7s %8s  %s\n", "TARGET", "FAMILY", "TIME", "SIZE", "STATUS");
	po->header_done = true;
}

static void bar_clear(struct pc_out *po)
{
	if (po->bar_drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		po->bar_drawn = false;
	}
}

/* Compiler diagnostics, indented under their row; long ones are cut. */
static void print_diag(const char *diag)
{
	unsigned shown = 0, cut = 0;

	for (const char *l = diag; *l;) {
		size_t len = strcspn(l, "\n");

		if (len > 0 && shown < DIAG_MAX_LINES) {
			printf("    %.*s\n", (int)len, l);
			shown++;
		} else if (len > 0) {
			cut++;
		}
		l += len;
		if (*l)
			l++;
	}
	if (cut)
		printf("    … (%u more lines)\n", cut);
}

/* --json: one object per pair, in completion order (calls are serialised). */
static void json_result(struct json *j, const struct hr_precompile_result *r)
{
	json_begin_object(j);
	json_kv_string(j, "target", r->target);
	json_kv_string(j, "family", r->family);
	json_kv_string(j, "status", hr_precompile_status_name(r->status));
	json_kv_string(j, r->status == HR_PRECOMPILE_PROVIDED ? "provided_by" : "reason",
	               r->reason);
	json_key(j, "seconds");
	json_double(j, r->seconds);
	json_kv_uint(j, "size", r->size);
	json_kv_string(j, "diagnostics", r->diag && *r->diag ? r->diag : NULL);
	json_end_object(j);
	fflush(stdout);
}

static void on_result(void *data, const struct hr_precompile_result *r)
{
	struct pc_out *po = data;
	char size[16] = "-", secs[16] = "-", *pair = NULL;

	if (po->pairs && (r->status == HR_PRECOMPILE_BUILT ||
	                  r->status == HR_PRECOMPILE_UP_TO_DATE)) {
		if (asprintf(&pair, "%s/%s", r->target, r->family) < 0 ||
		    hr_strv_push(&po->pairs, pair) < 0)
			po->oom = true;
		free(pair);
	}
	bar_clear(po);
	if (po->j) {
		json_result(po->j, r);
		return;
	}
	if (po->quiet && r->status != HR_PRECOMPILE_FAILED)
		return;
	header(po);
	if (r->size)
		hr_format_size(r->size, size, sizeof(size));
	if (r->status == HR_PRECOMPILE_BUILT || r->status == HR_PRECOMPILE_FAILED ||
	    r->status == HR_PRECOMPILE_UP_TO_DATE)
		snprintf(secs, sizeof(secs), "%.2fs", r->seconds);
	printf("%-14s %-12s %7s %8s  %s", r->target, r->family, secs, size,
	       hr_precompile_status_name(r->status));
	if (r->status == HR_PRECOMPILE_PROVIDED)
		printf(" by %s", r->reason ? r->reason : "?");
	else if (r->reason)
		printf(" (%s)", r->reason);
	putchar('\n');
	if (r->diag && *r->diag)
		print_diag(r->diag);
	fflush(stdout);
}

static void on_progress(void *data, unsigned done, unsigned total,
                        const char *target, const char *family)
{
	struct pc_out *po = data;
	enum { W = 30 };
	unsigned fill = total ? done * W / total : W;
	char bar[W + 1];

	if (!po->bar)
		return;
	memset(bar, '#', fill);
	memset(bar + fill, '.', W - fill);
	bar[W] = '\0';
	fprintf(stderr, "\r\033[K[%s] %u/%u %s %s", bar, done, total, target, family);
	fflush(stderr);
	po->bar_drawn = true;
}

static void usage(FILE *f)
{
	fputs("Usage: hanzo-rocm precompile [--system|--user|--output DIR] [--target T]...\n"
	      "                             [--family F]... [-j N] [--force]\n"
	      "                             [--progress auto|always|never] [--json]\n"
	      "                             [--remote]\n"
	      "       hanzo-rocm precompile --source FILE --name NAME [--flags FLAGS]\n"
	      "                             [--system|--user|--output DIR] [--target T]...\n"
	      "                             [--force] [--json]\n"
	      "\n"
	      "Build the code object of every (target, family) pair into a cache tier.\n"
	      "Targets: --target, else HANZO_ROCM_TARGETS, else detected GPUs and\n"
	      "[targets] extra, else [targets] default.  Families: --family, else all.\n"
	      "\n"
	      "  --system        the system tier (needs root; package hooks use it); the\n"
	      "                  entries of families the last run found and that are no\n"
	      "                  longer installed are removed\n"
	      "  --user          the user tier (default)\n"
	      "  --output DIR    any directory, e.g. to build a cache package or image\n"
	      "  -t, --target T  a target (repeatable)\n"
	      "  -f, --family F  a family (repeatable)\n"
	      "  -j, --jobs N    parallel compiles (default [compiler] jobs; 0 = CPUs)\n"
	      "  --force         rebuild even what is up to date\n"
	      "  --source FILE   instead of the families: an application's HIP source,\n"
	      "                  found later by hanzo_rocm_module_get(3) with the same\n"
	      "                  name, source and flags\n"
	      "  --name NAME     the name the application gives that source\n"
	      "  --flags FLAGS   its compiler flags, separated by spaces\n"
	      "  --progress WHEN progress bar on stderr: auto (a terminal, not TERM=dumb,\n"
	      "                  not -q), always, never\n"
	      "  --remote        then sign and push every pair built or up to date to\n"
	      "                  each [remote] url (a builder: needs [remote] url and\n"
	      "                  signing_key); a push that fails fails the run\n"
	      "  --json          print one JSON object: dir, the counts and results (an\n"
	      "                  array of {target, family, status, reason or provided_by,\n"
	      "                  seconds, size, diagnostics}) instead of the table\n"
	      "\n"
	      "With hanzo-rocm -q only failed pairs are printed, and no summary line.\n"
	      "A --target whose processor is not known (lib/shared/targets.def) is a usage\n"
	      "error; a known one the installed compiler cannot build is skipped.\n"
	      "\n"
	      "Exit status: 0 every buildable pair is built, up to date or provided;\n"
	      "1 a pair failed, or the cache could not be written; 2 usage or\n"
	      "configuration error (an unknown target; --system without root).\n", f);
}

/* An invented processor (gfx9999) is a usage error naming the known ones;
 * "skipped" stays for real targets the installed compiler cannot build. */
static bool targets_known(char **targets)
{
	for (size_t i = 0; targets && targets[i]; i++) {
		const char *p;

		if (hr_target_known(targets[i]))
			continue;
		fprintf(stderr, "hanzo-rocm precompile: %s target '%s'; known AMD processors:\n ",
		        hr_target_validate(targets[i]) < 0 ? "invalid" : "unknown", targets[i]);
		for (size_t k = 0, col = 1; (p = hr_target_known_amd(k)); k++) {
			if (col + 1 + strlen(p) > 78) {
				fputs("\n ", stderr);
				col = 1;
			}
			col += (size_t)fprintf(stderr, " %s", p);
		}
		fputs("\n  (with optional :feature+/- such as gfx90a:xnack-), or NVIDIA sm_NN[a]\n", stderr);
		cli_try_help("precompile");
		return false;
	}
	return true;
}

static int exit_for(int r, enum hr_precompile_dest dest)
{
	/* The system tier without the privileges to write it is a usage error
	 * (run it as root); any other trouble there (EIO, ENOSPC) is a failure. */
	if (dest == HR_PRECOMPILE_SYSTEM && (r == -EACCES || r == -EPERM || r == -EROFS))
		return EXIT_USAGE;
	return r == -EINVAL || r == -ENOENT ? EXIT_USAGE : EXIT_FAILED;
}

/*
 * SIGINT/SIGTERM during a precompile: the library kills the compilers' process
 * groups (they run in their own, out of reach of the terminal's Ctrl-C) and
 * removes their temp dirs; then this process dies of the same signal.
 */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void catch_stop(bool on, struct sigaction old[2])
{
	static const int sigs[2] = { SIGINT, SIGTERM };
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 2; i++) {
		/* Back to the old one; or a signal our parent ignores stays ignored. */
		if (!on || (sigaction(sigs[i], &sa, &old[i]) == 0 &&
		            old[i].sa_handler == SIG_IGN))
			sigaction(sigs[i], &old[i], NULL);
	}
}

int cmd_precompile(struct cli *cli, int argc, char **argv)
{
	enum { OPT_SYSTEM = 256, OPT_USER, OPT_OUTPUT, OPT_FORCE, OPT_PROGRESS, OPT_JSON,
	       OPT_SOURCE, OPT_NAME, OPT_FLAGS, OPT_REMOTE };
	static const struct option opts[] = {
		{ "system", no_argument, NULL, OPT_SYSTEM },
		{ "user", no_argument, NULL, OPT_USER },
		{ "output", required_argument, NULL, OPT_OUTPUT },
		{ "target", required_argument, NULL, 't' },
		{ "family", required_argument, NULL, 'f' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "progress", required_argument, NULL, OPT_PROGRESS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "source", required_argument, NULL, OPT_SOURCE },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "flags", required_argument, NULL, OPT_FLAGS },
		{ "remote", no_argument, NULL, OPT_REMOTE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hr_precompile_opts o = { .dest = HR_PRECOMPILE_USER };
	struct hr_precompile_summary sum;
	struct pc_out po = { 0 };
	struct json j;
	bool as_json = false, remote = false;
	unsigned pushed = 0, push_failed = 0;
	const char *progress = "auto", *term, *source = NULL, *name = NULL;
	char **targets = NULL, **families = NULL, **flags = NULL;
	struct hr_source_spec spec = { 0 };
	void *text = NULL;
	unsigned n_dest = 0;
	struct hanzo_rocm *ctx;
	uint64_t v;
	int c, r, ret = EXIT_USAGE;

	while ((c = getopt_long(argc, argv, "t:f:j:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SYSTEM: o.dest = HR_PRECOMPILE_SYSTEM; n_dest++; break;
		case OPT_USER: o.dest = HR_PRECOMPILE_USER; n_dest++; break;
		case OPT_OUTPUT: o.dest = HR_PRECOMPILE_OUTPUT; o.output = optarg; n_dest++; break;
		case 't':
			if (hr_strv_push(&targets, optarg) < 0)
				goto oom;
			break;
		case 'f':
			if (hr_strv_push(&families, optarg) < 0)
				goto oom;
			break;
		case 'j':
			if (hr_parse_uint(optarg, 4096, &v) < 0) {
				cli_usage_error("precompile", "invalid -j '%s' (want 0..4096)", optarg);
				goto out;
			}
			o.jobs = (unsigned)v;
			if (v == 0) { /* explicit 0 = online CPUs, not the config's */
				long n = sysconf(_SC_NPROCESSORS_ONLN);

				o.jobs = n > 0 ? (unsigned)n : 1;
			}
			break;
		case OPT_FORCE: o.force = true; break;
		case OPT_SOURCE: source = optarg; break;
		case OPT_NAME: name = optarg; break;
		case OPT_FLAGS:
			hr_strv_free(flags);
			flags = hr_strv_split(optarg, " \t");
			if (!flags)
				goto oom;
			break;
		case OPT_JSON: as_json = true; break;
		case OPT_REMOTE: remote = true; break;
		case OPT_PROGRESS:
			if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "always") != 0 &&
			    strcmp(optarg, "never") != 0) {
				cli_usage_error("precompile", "invalid --progress '%s' (auto, always or never)",
				          optarg);
				goto out;
			}
			progress = optarg;
			break;
		case 'h': usage(stdout); ret = EXIT_OK; goto out;
		default: cli_try_help("precompile"); goto out;
		}
	}
	if (optind < argc) {
		cli_usage_error("precompile", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!targets_known(targets))
		goto out;
	if (n_dest > 1) {
		cli_usage_error("precompile", "give one of --system, --user, --output");
		goto out;
	}
	if (!source != !name || (families && source) || (flags && !source)) {
		cli_usage_error("precompile", "--source and --name go together (with --flags, "
		                "without --family)");
		goto out;
	}
	if (remote && (source || as_json)) {
		cli_usage_error("precompile", "--remote goes without --source and --json");
		goto out;
	}
	if (source) {
		r = hr_read_file(source, HR_SOURCE_MAX_TEXT, &text, &spec.source_len);
		if (r < 0) {
			cli_error("precompile: cannot read %s: %s", source, strerror(-r));
			ret = EXIT_USAGE;
			goto out;
		}
		spec.name = name;
		spec.source = text;
		spec.flags = (const char *const *)flags;
	}
	ctx = cli_ctx(cli);
	if (!ctx)
		goto out;
	if (remote && (!hr_remote_configured(ctx) || !hr_tools_config(ctx)->remote_signing_key)) {
		cli_error("precompile --remote: a builder needs [remote] url and signing_key in "
		          "the configuration");
		goto out;
	}
	if (remote && !(po.pairs = hr_strv_new()))
		goto oom;
	/* auto: a terminal that can draw it (not TERM=dumb), and not -q. */
	term = getenv("TERM");
	po.quiet = cli->verbosity < 0;
	po.bar = strcmp(progress, "always") == 0 ||
	         (strcmp(progress, "auto") == 0 && !po.quiet && isatty(STDERR_FILENO) &&
	          !(term && strcmp(term, "dumb") == 0));
	o.targets = targets;
	o.families = families;
	o.on_result = on_result;
	o.on_progress = on_progress;
	o.data = &po;
	if (as_json) {
		json_init(&j, stdout);
		json_begin_object(&j);
		json_key(&j, "results");
		json_begin_array(&j);
		po.j = &j;
	}
	{
		struct sigaction old[2];

		stop_signal = 0;
		hr_tools_set_cancel(ctx, &stop_signal);
		catch_stop(true, old);
		r = source ? hr_precompile_source(ctx, &o, &spec, &sum) : hr_precompile(ctx, &o, &sum);
		catch_stop(false, old);
		hr_tools_set_cancel(ctx, NULL);
	}
	bar_clear(&po);
	if (stop_signal) {
		if (r == 0)
			hr_precompile_summary_release(&sum);
		hr_strv_free(targets);
		hr_strv_free(families);
		hr_strv_free(flags);
		free(text);
		raise(stop_signal); /* the old disposition: normally death by it */
		return 128 + stop_signal;
	}
	if (as_json) {
		/* Valid JSON whatever happened; the error itself is on stderr. */
		json_end_array(&j);
		json_kv_string(&j, "dir", r < 0 ? NULL : sum.dir);
		json_kv_uint(&j, "built", r < 0 ? 0 : sum.built);
		json_kv_uint(&j, "up_to_date", r < 0 ? 0 : sum.up_to_date);
		json_kv_uint(&j, "provided", r < 0 ? 0 : sum.provided);
		json_kv_uint(&j, "skipped", r < 0 ? 0 : sum.skipped);
		json_kv_uint(&j, "failed", r < 0 ? 0 : sum.failed);
		json_key(&j, "pruned");
		json_begin_array(&j);
		for (size_t i = 0; r >= 0 && sum.pruned && sum.pruned[i]; i++)
			json_string(&j, sum.pruned[i]);
		json_end_array(&j);
		json_end_object(&j);
		json_finish(&j);
	}
	if (r < 0) {
		/* The library has logged the precise error already. */
		if (o.dest == HR_PRECOMPILE_SYSTEM &&
		    (r == -EACCES || r == -EPERM || r == -EROFS))
			cli_error("precompile --system: cannot write the system cache (needs root)");
		ret = exit_for(r, o.dest);
		goto out;
	}
	/* --remote: what this run built or found up to date, signed and pushed. */
	for (size_t i = 0; po.pairs && po.pairs[i]; i++) {
		char *fam = strchr(po.pairs[i], '/');

		*fam++ = '\0';
		r = remote_push_dir(ctx, sum.dir, po.pairs[i], fam, &pushed, &push_failed);
		if (r < 0) {
			cli_error("precompile --remote: cannot read %s: %s", sum.dir, strerror(-r));
			push_failed++;
		}
	}
	if (po.oom)
		push_failed++;
	if (!as_json && !po.quiet) {
		printf("%u built, %u up to date, %u skipped, %u failed", sum.built,
		       sum.up_to_date, sum.skipped, sum.failed);
		if (sum.provided)
			printf(", %u provided", sum.provided);
		printf(" (%s)\n", sum.dir);
		for (size_t i = 0; sum.pruned && sum.pruned[i]; i++)
			printf("pruned family %s: no longer installed\n", sum.pruned[i]);
		if (sum.pruned && sum.pruned[0])
			printf("%u entries of families no longer installed removed\n",
			       sum.pruned_entries);
		if (remote)
			printf("%u pushed, %u failed to push\n", pushed, push_failed);
	}
	ret = sum.failed || push_failed ? EXIT_FAILED : EXIT_OK;
	hr_precompile_summary_release(&sum);
	goto out;
oom:
	cli_error("precompile: out of memory");
	ret = EXIT_FAILED;
out:
	hr_strv_free(po.pairs);
	hr_strv_free(targets);
	hr_strv_free(families);
	hr_strv_free(flags);
	free(text);
	return ret;
}
