/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The setup the host-backend tests of the launch and operation calls share
 * (t/kernel/test-launch.c, t/kernel/test-op.c; header-only, like t/gpu-test.h): a scratch
 * directory holding a config whose user and system tiers live inside it and
 * whose plugin path is the build tree's plugins, a context with the two host
 * devices (host-w64, host-w32) logging into logbuf, and its teardown.
 */
#ifndef HR_HOST_TEST_H
#define HR_HOST_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include "hanzo-rocm.h"
#include "log-capture.h"
#include "tap.h"

struct host_test {
	char dir[64];           /* the scratch directory */
	char conf[600];         /* its hanzo-rocm.conf */
	struct hanzo_rocm *ctx; /* NULL until host_test_open succeeds */
};

/*
 * Make the scratch directory (/tmp/hr-NAME-XXXXXX) and its config, and open
 * the context on top_builddir's plugins, with the suite's host cache
 * (t/host-cache, t/backend/local.mk) as a read-only site tier.  0 with two host devices; -1 when
 * there is no scratch directory (h->dir[0] is then 0); -2 without the context
 * (h->ctx may be set: host_test_close releases it).
 */
static inline int host_test_open(struct host_test *h, const char *name, const char *top)
{
	struct hanzo_rocm_options o = { .size = sizeof(o), .log_fn = log_capture,
	                                .log_priority = LOG_ERR, .host = "host-w64 host-w32" };
	FILE *f;

	h->ctx = NULL;
	snprintf(h->dir, sizeof(h->dir), "/tmp/hr-%s-XXXXXX", name);
	if (!top || !mkdtemp(h->dir)) {
		h->dir[0] = '\0';
		return -1;
	}
	snprintf(h->conf, sizeof(h->conf), "%s/hanzo-rocm.conf", h->dir);
	f = fopen(h->conf, "w");
	if (!f)
		return -2;
	fprintf(f, "[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\nsite_dirs = %s/t/host-cache\n"
	           "[plugins]\npath = %s/plugins/.libs\n",
	        h->dir, h->dir, top, top);
	fclose(f);
	o.config = h->conf;
	if (hanzo_rocm_new_with_options(&o, &h->ctx) < 0 || hanzo_rocm_device_count(h->ctx) != 2)
		return -2;
	return 0;
}

/* The log when a check failed, the context released, the directory removed. */
static inline void host_test_close(struct host_test *h)
{
	char cmd[100];

	if (tap_failed)
		diag("log:\n%s", logbuf);
	hanzo_rocm_unref(h->ctx);
	h->ctx = NULL;
	if (!h->dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", h->dir);
	if (system(cmd) != 0)
		diag("could not remove %s", h->dir);
}

#endif
