/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Streaming JSON writer for --json outputs. */
#include <math.h>

#include "tools.h"

void json_init(struct json *j, FILE *f)
{
	*j = (struct json){ .f = f };
}

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
	value_prefix(j);
	fputc(c, j->f);
	if (j->depth < (int)(sizeof(j->need_comma) / sizeof(j->need_comma[0])) - 1)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_nested(struct json *j, char c)
{
	if (j->depth > 0)
		j->depth--;
	fputc(c, j->f);
}

void json_begin_object(struct json *j) { open_nested(j, '{'); }
void json_end_object(struct json *j) { close_nested(j, '}'); }
void json_begin_array(struct json *j) { open_nested(j, '['); }
void json_end_array(struct json *j) { close_nested(j, ']'); }

static void write_escaped(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
	value_prefix(j);
	write_escaped(j->f, key);
	fputc(':', j->f);
	j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
	value_prefix(j);
	if (s)
		write_escaped(j->f, s);
	else
		fputs("null", j->f);
}

void json_int(struct json *j, long long v)
{
	value_prefix(j);
	fprintf(j->f, "%lld", v);
}

void json_uint(struct json *j, unsigned long long v)
{
	value_prefix(j);
	fprintf(j->f, "%llu", v);
}

void json_double(struct json *j, double v)
{
	value_prefix(j);
	if (isfinite(v))
		fprintf(j->f, "%.9g", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, bool v)
{
	value_prefix(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	value_prefix(j);
	fputs("null", j->f);
}

void json_kv_string(struct json *j, const char *key, const char *s) { json_key(j, key); json_string(j, s); }
void json_kv_int(struct json *j, const char *key, long long v) { json_key(j, key); json_int(j, v); }
void json_kv_uint(struct json *j, const char *key, unsigned long long v) { json_key(j, key); json_uint(j, v); }
void json_kv_bool(struct json *j, const char *key, bool v) { json_key(j, key); json_bool(j, v); }

void json_finish(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}
