/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/json.c: strings that are not UTF-8 still give valid JSON, and
 * nesting past the bound is cut to null without breaking the document.
 * The output is checked byte for byte and, where python3 is installed, by
 * its strict parser.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "../tap.h"

static char *render(void (*fn)(struct json *j), int *rc)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	struct json j;

	if (!f)
		abort();
	json_init(&j, f);
	fn(&j);
	*rc = json_finish(&j);
	fclose(f);
	return buf;
}

static void strings(struct json *j)
{
	json_begin_array(j);
	json_string(j, "/tmp/caf\xe9");             /* Latin-1 path */
	json_string(j, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); /* é € 😀 */
	json_string(j, "\xc0\xaf");                 /* overlong '/' */
	json_string(j, "\xed\xa0\x80");             /* a surrogate */
	json_string(j, "\xf4\x90\x80\x80");         /* above U+10FFFF */
	json_string(j, "cut \xe2\x82");             /* truncated sequence */
	json_string(j, "q\"b\\\x01\x7f");
	json_end_array(j);
}

static void deep(struct json *j)
{
	json_begin_object(j);
	json_kv_int(j, "before", 1);
	json_key(j, "nest");
	for (int i = 0; i < 40; i++)
		json_begin_array(j);
	json_int(j, 7);
	json_begin_object(j);
	json_kv_string(j, "k", "v");
	json_end_object(j);
	for (int i = 0; i < 40; i++)
		json_end_array(j);
	json_kv_int(j, "after", 2);
	json_end_object(j);
}

static int python_accepts(const char *doc)
{
	FILE *p = popen("python3 -c 'import json,sys; json.loads(sys.stdin.buffer.read().decode(\"utf-8\", \"strict\"))' 2>/dev/null", "w");

	if (!p)
		return -1;
	fputs(doc, p);
	return pclose(p) == 0;
}

int main(void)
{
	int rc, have_py = system("python3 -c '' 2>/dev/null") == 0;
	char *s, want[1024];

	s = render(strings, &rc);
	is_int(rc, 0, "strings: finished");
	is_str(s, "[\"/tmp/caf\\ufffd\","
	          "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\","
	          "\"\\ufffd\\ufffd\",\"\\ufffd\\ufffd\\ufffd\","
	          "\"\\ufffd\\ufffd\\ufffd\\ufffd\",\"cut \\ufffd\\ufffd\","
	          "\"q\\\"b\\\\\\u0001\\u007f\"]\n",
	       "invalid UTF-8 becomes U+FFFD, valid UTF-8 is kept, controls escaped");
	if (have_py)
		is_int(python_accepts(s), 1, "strict UTF-8 JSON parser accepts it");
	else
		skip(1, "no python3");
	free(s);

	s = render(deep, &rc);
	is_int(rc, -E2BIG, "40 levels: json_finish reports the cut");
	want[0] = '\0';
	strcat(want, "{\"before\":1,\"nest\":");
	for (int i = 0; i < JSON_DEPTH_MAX - 1; i++)
		strcat(want, "[");
	strcat(want, "null");
	for (int i = 0; i < JSON_DEPTH_MAX - 1; i++)
		strcat(want, "]");
	strcat(want, ",\"after\":2}\n");
	is_str(s, want, "nesting past the bound is null, the rest intact");
	if (have_py)
		is_int(python_accepts(s), 1, "and still parses");
	else
		skip(1, "no python3");
	free(s);
	return done_testing();
}
