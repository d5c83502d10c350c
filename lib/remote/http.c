/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * remote.so: the remote tier's HTTP(S) transport through libcurl, a module
 * the base library dlopens only when a remote tier is used (so that the
 * library itself links no network library).  It moves bytes and nothing
 * else: bounded (connect and request timeouts, a low-speed abort, a size
 * cap), no redirects, no signals (CURLOPT_NOSIGNAL), HTTP and HTTPS only.
 * Every check of what it returns is the base library's (remote.h).
 */
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "remote.h"
#include "redis.h"

struct client {
	CURL *curl;
	struct curl_slist *headers;
	struct hr_remote_http_opts o;
};

struct sink {
	char *buf;
	size_t n, cap, max;
	bool over;
};

static size_t on_data(char *p, size_t size, size_t nmemb, void *data)
{
	struct sink *s = data;
	size_t len = size * nmemb;

	if (len > s->max - s->n) {
		s->over = true;
		return 0;          /* aborts the transfer */
	}
	if (s->n + len > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		char *b;

		while (cap < s->n + len)
			cap *= 2;
		b = realloc(s->buf, cap);
		if (!b)
			return 0;
		s->buf = b;
		s->cap = cap;
	}
	memcpy(s->buf + s->n, p, len);
	s->n += len;
	return len;
}

static void *client_new(const struct hr_remote_http_opts *o)
{
	struct client *c;

	/* Thread-safe since curl 7.84 when the TLS backend is (OpenSSL is). */
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->o = *o;
	c->o.ca_file = c->o.cert_file = c->o.key_file = c->o.auth_header = NULL;
	if ((o->ca_file && !(c->o.ca_file = strdup(o->ca_file))) ||
	    (o->cert_file && !(c->o.cert_file = strdup(o->cert_file))) ||
	    (o->key_file && !(c->o.key_file = strdup(o->key_file))) ||
	    (o->auth_header && !(c->headers = curl_slist_append(NULL, o->auth_header))))
		goto fail;
	c->curl = curl_easy_init();
	if (!c->curl)
		goto fail;
	return c;
fail:
	free((char *)c->o.ca_file);
	free((char *)c->o.cert_file);
	free((char *)c->o.key_file);
	curl_slist_free_all(c->headers);
	free(c);
	return NULL;
}

static void client_free(void *client)
{
	struct client *c = client;

	if (!c)
		return;
	curl_easy_cleanup(c->curl);
	curl_slist_free_all(c->headers);
	free((char *)c->o.ca_file);
	free((char *)c->o.cert_file);
	free((char *)c->o.key_file);
	free(c);
}

/* The options every request has; the connection is kept between them. */
static void setup(struct client *c, const char *url, unsigned timeout_ms)
{
	CURL *h = c->curl;
	unsigned connect_ms = c->o.connect_ms < timeout_ms ? c->o.connect_ms : timeout_ms;

	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(connect_ms ? connect_ms : 1));
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(timeout_ms ? timeout_ms : 1));
	if (c->o.low_speed_s) {
		curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, (long)c->o.low_speed_bps);
		curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, (long)c->o.low_speed_s);
	}
	if (c->o.ca_file)
		curl_easy_setopt(h, CURLOPT_CAINFO, c->o.ca_file);
	if (c->o.cert_file)
		curl_easy_setopt(h, CURLOPT_SSLCERT, c->o.cert_file);
	if (c->o.key_file)
		curl_easy_setopt(h, CURLOPT_SSLKEY, c->o.key_file);
	if (c->headers)
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, c->headers);
}

static enum hr_remote_reason classify(CURL *h, CURLcode e, long *status)
{
	*status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	switch (e) {
	case CURLE_OK: break;
	case CURLE_OPERATION_TIMEDOUT: return HR_REMOTE_TIMEOUT;
	default: return *status >= 500 ? HR_REMOTE_HTTP_5XX : HR_REMOTE_CONNECT;
	}
	if (*status == 404)
		return HR_REMOTE_NOT_FOUND;
	if (*status >= 500)
		return HR_REMOTE_HTTP_5XX;
	if (*status >= 300)
		return HR_REMOTE_HTTP_4XX;   /* a redirect is not followed either */
	return HR_REMOTE_OK;
}

static enum hr_remote_reason http_get(void *client, const char *url, size_t max,
                                      unsigned timeout_ms, void **body, size_t *n,
                                      long *status)
{
	struct client *c = client;
	struct sink s = { .max = max };
	enum hr_remote_reason r;
	CURLcode e;

	setup(c, url, timeout_ms);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &s);
	e = curl_easy_perform(c->curl);
	r = classify(c->curl, e, status);
	if (r == HR_REMOTE_OK && s.over)
		r = HR_REMOTE_HTTP_4XX;
	if (s.over && r == HR_REMOTE_CONNECT)
		r = HR_REMOTE_BAD_SIZE;      /* more bytes than any valid answer */
	if (r != HR_REMOTE_OK) {
		free(s.buf);
		return r;
	}
	*body = s.buf ? s.buf : malloc(1);
	*n = s.n;
	return *body ? HR_REMOTE_OK : HR_REMOTE_CONNECT;
}

struct source {
	const char *p;
	size_t left;
};

static size_t on_read(char *out, size_t size, size_t nmemb, void *data)
{
	struct source *s = data;
	size_t len = size * nmemb;

	if (len > s->left)
		len = s->left;
	memcpy(out, s->p, len);
	s->p += len;
	s->left -= len;
	return len;
}

static enum hr_remote_reason http_put(void *client, const char *url, const void *body,
                                      size_t n, unsigned timeout_ms, long *status)
{
	struct client *c = client;
	struct source s = { body, n };
	CURLcode e;

	setup(c, url, timeout_ms);
	curl_easy_setopt(c->curl, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c->curl, CURLOPT_READFUNCTION, on_read);
	curl_easy_setopt(c->curl, CURLOPT_READDATA, &s);
	curl_easy_setopt(c->curl, CURLOPT_INFILESIZE_LARGE, (curl_off_t)n);
	e = curl_easy_perform(c->curl);
	return classify(c->curl, e, status);
}

__attribute__((visibility("default")))
const struct hr_remote_http_ops hr_remote_http_ops = {
	.abi = HR_REMOTE_HTTP_ABI,
	.client_new = client_new,
	.client_free = client_free,
	.get = http_get,
	.put = http_put,
	.redis_new = hr_redis_new,
	.redis_free = hr_redis_free,
	.lease_take = hr_redis_lease_take,
	.lease_held = hr_redis_lease_held,
	.lease_release = hr_redis_lease_release,
};
