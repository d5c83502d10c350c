/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The configuration's key table (lib/config/keys.c) against what documents
 * it: etc/hanzo-rocm.conf shows every key commented out, in its section,
 * with the table's value and its documentation line above it, and names no
 * other key; hanzo-rocm.conf(5) describes every key in its section and no
 * other.  A key added to the table alone, or to a document alone, fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "../tap.h"

#define MAX_SEEN 64

struct seen {
	char section[32], name[64], value[1024], doc[1024];
	int line;
};

static const struct hr_config_key *find_key(const char *section, const char *name)
{
	const struct hr_config_key *k;

	for (size_t i = 0; (k = hr_config_key_at(i)) != NULL; i++)
		if (strcmp(k->section, section) == 0 && strcmp(k->name, name) == 0)
			return k;
	return NULL;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

/* "#name = value" lines of etc/hanzo-rocm.conf, with the comment above. */
static size_t read_conf(const char *path, struct seen *out)
{
	char line[1024], section[32] = "", doc[1024] = "";
	size_t n = 0;
	int lineno = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && n < MAX_SEEN) {
		char name[64];
		int len = 0;

		lineno++;
		chomp(line);
		if (line[0] == '[') {
			sscanf(line, "[%31[^]]]", section);
			doc[0] = '\0';
		} else if (section[0] && sscanf(line, "#%63[a-z_] =%n", name, &len) == 1 && len > 0) {
			struct seen *s = &out[n++];
			const char *v = line + len;

			v += strspn(v, " ");
			snprintf(s->section, sizeof(s->section), "%s", section);
			snprintf(s->name, sizeof(s->name), "%s", name);
			snprintf(s->value, sizeof(s->value), "%s", v);
			snprintf(s->doc, sizeof(s->doc), "%s", doc);
			s->line = lineno;
			doc[0] = '\0';
		} else if (strncmp(line, "# ", 2) == 0) {
			size_t d = strlen(doc);

			snprintf(doc + d, sizeof(doc) - d, "%s%s", d ? " " : "", line + 2);
		} else {
			doc[0] = '\0';
		}
	}
	fclose(f);
	return n;
}

/* ".BI name " = " ..." / ".BR name " = " ..." lines of hanzo-rocm.conf(5). */
static size_t read_man(const char *path, struct seen *out)
{
	char line[1024], section[32] = "";
	size_t n = 0;
	int lineno = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && n < MAX_SEEN) {
		char name[64], tail[16];

		lineno++;
		chomp(line);
		if (strncmp(line, ".SH ", 4) == 0) {
			if (sscanf(line, ".SH \"[%31[^]]]\"", section) != 1)
				section[0] = '\0';
		} else if (section[0] &&
		           sscanf(line, ".B%*1[IR] %63[a-z_] \" %1[=]", name, tail) == 2) {
			struct seen *s = &out[n++];

			snprintf(s->section, sizeof(s->section), "%s", section);
			snprintf(s->name, sizeof(s->name), "%s", name);
			s->line = lineno;
		}
	}
	fclose(f);
	return n;
}

static const struct seen *find_seen(const struct seen *v, size_t n, const struct hr_config_key *k)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].section, k->section) == 0 && strcmp(v[i].name, k->name) == 0)
			return &v[i];
	return NULL;
}

int main(void)
{
	static struct seen conf[MAX_SEEN], man[MAX_SEEN];
	const char *conf_path = HR_SRCDIR "/etc/hanzo-rocm.conf";
	const char *man_path = HR_SRCDIR "/doc/hanzo-rocm.conf.5";
	size_t n_conf = read_conf(conf_path, conf), n_man = read_man(man_path, man), n_keys = 0;
	const struct hr_config_key *k;

	plan_lazy();
	ok(n_conf > 0, "%s shows %zu keys", conf_path, n_conf);
	ok(n_man > 0, "%s describes %zu keys", man_path, n_man);
	for (size_t i = 0; (k = hr_config_key_at(i)) != NULL; i++) {
		const struct seen *c = find_seen(conf, n_conf, k), *m = find_seen(man, n_man, k);

		n_keys++;
		if (!ok(c != NULL, "[%s] %s is in etc/hanzo-rocm.conf", k->section, k->name))
			continue;
		if (!ok(strcmp(c->value, k->shown) == 0, "[%s] %s: etc shows the table's value '%s'",
		        k->section, k->name, k->shown))
			diag("line %d: '%s'", c->line, c->value);
		if (!ok(strcmp(c->doc, k->doc) == 0, "[%s] %s: etc's comment is the table's doc line",
		        k->section, k->name))
			diag("line %d: '%s'\n  table: '%s'", c->line, c->doc, k->doc);
		ok(m != NULL, "[%s] %s is in hanzo-rocm.conf(5)", k->section, k->name);
		ok(k->expected[0] && k->type <= HR_CONFIG_UINT, "[%s] %s: a grammar and a type",
		   k->section, k->name);
	}
	ok(n_keys > 15, "the table has %zu keys", n_keys);
	for (size_t i = 0; i < n_conf; i++)
		ok(find_key(conf[i].section, conf[i].name) != NULL,
		   "etc/hanzo-rocm.conf:%d: [%s] %s is a key of the table", conf[i].line,
		   conf[i].section, conf[i].name);
	for (size_t i = 0; i < n_man; i++)
		ok(find_key(man[i].section, man[i].name) != NULL,
		   "hanzo-rocm.conf.5:%d: [%s] %s is a key of the table", man[i].line,
		   man[i].section, man[i].name);
	return done_testing();
}
