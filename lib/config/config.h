/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Configuration: /etc/hanzo-rocm.conf, then conf.d/NAME.conf in C-locale order
 * (later wins), then the environment.  Everything here is final: system paths
 * already carry the root prefix, defaults are filled in.
 * Layer: config (lib/layers).
 */
#ifndef HR_CONFIG_H
#define HR_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

struct hanzo_rocm;

enum hr_policy { HR_POLICY_READWRITE, HR_POLICY_READONLY, HR_POLICY_OFF };
enum hr_compile { HR_COMPILE_AUTO, HR_COMPILE_NEVER };
/* [compiler] backend: who compiles caller source (lib/source/source.c) */
enum hr_compile_backend { HR_BACKEND_AUTO, HR_BACKEND_HIPCC, HR_BACKEND_HIPRTC };

/* A compile's time limit unless the configuration's timeout says otherwise. */
#define HR_COMPILE_TIMEOUT_S 600

struct hr_target_map {
	char *from;
	char *to;
};

struct hr_config {
	char *root;                 /* "" when none, else absolute without trailing '/' */
	char **files;               /* config files actually read, in order */

	/* [targets] */
	char *override;             /* NULL = none */
	struct hr_target_map *map;
	size_t n_map;
	char **extra;
	char **default_targets;
	char **host;                /* host devices (host-w64, host-w32): option > env > config */

	/* [cache] */
	char *system_dir;           /* root-prefixed */
	char *user_dir;             /* NULL when neither HANZO_ROCM_CACHE_DIR, XDG_CACHE_HOME nor HOME */
	char **site_dirs;           /* root-prefixed */
	enum hr_policy policy;
	enum hr_compile compile;
	uint64_t max_size;          /* bytes */

	/* [compiler] */
	char *hipcc;                /* as configured: a name searched in PATH or a path */
	char *nvcc;
	char *cxx;                  /* host backend: the system C++ compiler */
	char **flags;
	unsigned jobs;              /* 0 = online CPUs */
	unsigned timeout_s;         /* a compile is killed after this; 0 = HR_COMPILE_TIMEOUT_S */
	enum hr_compile_backend backend; /* auto: hipcc/nvcc where found, else hipRTC/NVRTC */

	/* [remote] (lib/remote/remote.c) */
	char **remote_url;          /* base URLs, tried in order; none: no remote tier */
	char **remote_trusted_keys; /* "name:base64" public keys (checked when used) */
	char *remote_signing_key;   /* secret key file; NULL: a node that only reads */
	char *remote_module;        /* the HTTP module, remote.so */
	unsigned remote_connect_ms, remote_timeout_ms, remote_budget_ms;
	char *remote_redis;         /* redis://HOST:PORT for leases; NULL: none */
	unsigned remote_lease_ms;
	char *remote_auth_file;     /* "Bearer TOKEN" or "Basic USER:PASSWORD"; NULL: none */
	char *remote_ca_file;       /* TLS: CAs to trust; NULL: the system's */
	char *remote_client_cert;   /* TLS client certificate (PEM); NULL: none */
	char *remote_client_key;    /* ... and its key (PEM); NULL: none */

	/* [plugins] */
	char **plugin_path;         /* options.plugin_path, HANZO_ROCM_PLUGIN_PATH (as is), else
	                             * config (root-prefixed); the default directory (root-prefixed)
	                             * last when none or a value starting with '+' */
	bool plugin_path_keep_default; /* while loading: a '+' value seen */
	char **disable;

	/* environment */
	char *env_arch;             /* HANZO_ROCM_ARCH / CANDLE_ROCM_ARCH */
	char **env_targets;         /* HANZO_ROCM_TARGETS */
	char *version_label;        /* HANZO_ROCM_VERSION / CANDLE_ROCM_VERSION */
	char *hsa_override;         /* HSA_OVERRIDE_GFX_VERSION */
};

/*
 * Load the effective configuration.  conf_path NULL means $HANZO_ROCM_CONF,
 * else <root>/etc/hanzo-rocm.conf; a missing default file means defaults, a
 * missing explicit one is -ENOENT.  Problems are logged as "FILE:LINE:
 * message" (or "VARIABLE: message"); unknown keys only warn.  strict (config
 * check): problems are errors and the result is -EINVAL.  Not strict (the
 * library): each is a warning for the administrator (hr_warn_admin) and the
 * bad setting is left out, so the key keeps its default or earlier value.
 */
int hr_config_load(struct hanzo_rocm *ctx, const char *root,
                   const char *conf_path, bool strict, struct hr_config **ret);
void hr_config_free(struct hr_config *cfg);

/* Parse one file strictly for `hanzo-rocm config check`; 0 or -EINVAL. */
int hr_config_check_file(struct hanzo_rocm *ctx, const char *path);

/*
 * Host devices from a list like "host-w64,host-w32" (commas or spaces;
 * "none" or empty = none), replacing cfg->host; -EINVAL logged naming
 * what (the option or variable) and the bad value.
 */
int hr_config_set_host(struct hanzo_rocm *ctx, struct hr_config *cfg,
                       const char *list, const char *what);

/*
 * [remote] url's value: http:// or https:// URLs separated by blanks,
 * printable ASCII without ?#"'<>\ (a final '/' dropped).  -EINVAL with
 * *bad_word pointing at the bad one in v; -ENOMEM.
 */
int hr_config_url_list(const char *v, char ***out, const char **bad_word);

/*
 * Plugin path values (doc/DESIGN.md §6): absolute directories separated by ':';
 * a leading '+' keeps the default directory after them (config.c);
 * set_plugin_path: options.plugin_path, which beats the variable and files.
 */
int hr_config_set_plugin_path(struct hanzo_rocm *ctx, struct hr_config *cfg,
                              const char *list, const char *what);

const char *hr_policy_name(enum hr_policy p);
const char *hr_compile_name(enum hr_compile c);
const char *hr_backend_name(enum hr_compile_backend b);

/*
 * The configuration keys, one row each (lib/config/keys.c): the parser
 * (file values, and the built-in default, go through it), the field it sets,
 * its default, how it prints and its documentation.  config.c (defaults,
 * free), `hanzo-rocm info` and t/config/test-keys (etc/hanzo-rocm.conf and
 * hanzo-rocm.conf(5) against the table) loop over it.
 */
enum hr_config_type {
	HR_CONFIG_STR,          /* char * */
	HR_CONFIG_STRV,         /* char ** */
	HR_CONFIG_MAP,          /* struct hr_target_map *, then size_t n */
	HR_CONFIG_POLICY,       /* enum hr_policy */
	HR_CONFIG_COMPILE,      /* enum hr_compile */
	HR_CONFIG_BACKEND,      /* enum hr_compile_backend */
	HR_CONFIG_SIZE,         /* uint64_t bytes */
	HR_CONFIG_UINT,         /* unsigned */
};

struct hr_config_key {
	const char *section, *name;
	enum hr_config_type type;
	size_t offset;          /* of the field in struct hr_config */
	const char *def;        /* the built-in default, given to the parser; NULL: unset */
	const char *shown;      /* the value etc/hanzo-rocm.conf shows commented out */
	const char *expected;   /* the grammar, in "invalid value" errors */
	const char *doc;        /* its comment in etc/hanzo-rocm.conf, lines joined by ' ' */
	const char *none;       /* what info prints for an empty (or 0) value */
	const char *unit;       /* after a number in info ("" for none) */
	unsigned zero;          /* HR_CONFIG_UINT: what 0 stands for (info --json) */
};

/* The i-th key, NULL past the last. */
const struct hr_config_key *hr_config_key_at(size_t i);
/* The key's field in cfg. */
static inline const void *hr_config_field(const struct hr_config *cfg,
                                          const struct hr_config_key *k)
{
	return (const char *)cfg + k->offset;
}
/* The key's value as text (info's line); NULL when out of memory. */
char *hr_config_key_text(const struct hr_config *cfg, const struct hr_config_key *k);

#endif
