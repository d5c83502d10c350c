/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A small streaming JSON writer for the CLI's --json outputs: keeps commas
 * and nesting right and escapes strings, so every output is valid JSON
 * whatever the data holds (bytes that are not UTF-8 become U+FFFD).
 * Nesting is bounded: a container opened deeper than JSON_DEPTH_MAX is
 * written as null, what goes into it is dropped, and json_finish() says so.
 * Above the library: uses nothing of it (common/ is shared by tools/ and t/).
 */
#ifndef HR_JSON_H
#define HR_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 32

struct json {
	FILE *f;
	int depth;
	int skip;               /* > 0: inside a container cut at the bound */
	bool truncated;
	bool need_comma[JSON_DEPTH_MAX + 1];
	bool after_key;
};
void json_init(struct json *j, FILE *f);
void json_begin_object(struct json *j);
void json_end_object(struct json *j);
void json_begin_array(struct json *j);
void json_end_array(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);  /* NULL -> null */
void json_int(struct json *j, long long v);
void json_uint(struct json *j, unsigned long long v);
void json_double(struct json *j, double v);       /* non-finite -> null */
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_int(struct json *j, const char *key, long long v);
void json_kv_uint(struct json *j, const char *key, unsigned long long v);
void json_kv_bool(struct json *j, const char *key, bool v);
/* Trailing newline; -E2BIG (after a note on stderr) if nesting was cut. */
int json_finish(struct json *j);

#endif
