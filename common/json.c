/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Streaming JSON writer for --json outputs (common/json.h). */
#include <errno.h>
#include <math.h>
#include <stddef.h>

#include "json.h"

void json_init(struct json *j, FILE *f)
{
	*j = (struct json){ .f = f };
}

/* Inside a container cut at the depth bound: nothing is written. */
#define SKIPPING(j) ((j)->skip > 0)

static void value_prefix(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = true;
}

static void open_nested(struct json *j, char c)
{
	if (SKIPPING(j)) {
		j->skip++;
		return;
	}
	value_prefix(j);
	if (j->depth >= JSON_DEPTH_MAX) {
		fputs("null", j->f);
		j->skip = 1;
		j->truncated = true;
		return;
	}
	fputc(c, j->f);
	j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_nested(struct json *j, char c)
{
	if (SKIPPING(j)) {
		j->skip--;
		return;
	}
	if (j->depth > 0)
		j->depth--;
	fputc(c, j->f);
}

void json_begin_object(struct json *j) { open_nested(j, '{'); }
void json_end_object(struct json *j) { close_nested(j, '}'); }
void json_begin_array(struct json *j) { open_nested(j, '['); }
void json_end_array(struct json *j) { close_nested(j, ']'); }

/*
 * Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0.
 */
static size_t utf8_len(const unsigned char *p)
{
	size_t n;
	unsigned lo = 0x80, hi = 0xbf;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

static void write_escaped(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n;

		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(f, "\\u%04x", *p);
				break;
			}
			n = utf8_len(p);
			if (n == 0) {
				/* Not UTF-8 (a raw path): the replacement character. */
				fputs("\\ufffd", f);
				break;
			}
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		p++;
	}
	fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
	if (SKIPPING(j))
		return;
	value_prefix(j);
	write_escaped(j->f, key);
	fputc(':', j->f);
	j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
	if (SKIPPING(j))
		return;
	value_prefix(j);
	if (s)
		write_escaped(j->f, s);
	else
		fputs("null", j->f);
}

void json_int(struct json *j, long long v)
{
	if (SKIPPING(j))
		return;
	value_prefix(j);
	fprintf(j->f, "%lld", v);
}

void json_uint(struct json *j, unsigned long long v)
{
	if (SKIPPING(j))
		return;
	value_prefix(j);
	fprintf(j->f, "%llu", v);
}

void json_double(struct json *j, double v)
{
	if (SKIPPING(j))
		return;
	value_prefix(j);
	if (isfinite(v))
		fprintf(j->f, "%.9g", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, bool v)
{
	if (SKIPPING(j))
		return;
	value_prefix(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	if (SKIPPING(j))
		return;
	value_prefix(j);
	fputs("null", j->f);
}

void json_kv_string(struct json *j, const char *key, const char *s) { json_key(j, key); json_string(j, s); }
void json_kv_int(struct json *j, const char *key, long long v) { json_key(j, key); json_int(j, v); }
void json_kv_uint(struct json *j, const char *key, unsigned long long v) { json_key(j, key); json_uint(j, v); }
void json_kv_bool(struct json *j, const char *key, bool v) { json_key(j, key); json_bool(j, v); }

int json_finish(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
	if (!j->truncated)
		return 0;
	fprintf(stderr, "hanzo-rocm: JSON nested deeper than %d levels; the deeper parts are null\n",
	        JSON_DEPTH_MAX);
	return -E2BIG;
}
