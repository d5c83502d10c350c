/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The remote tier's circuit breaker and time budget
 * (lib/remote/client.c) on a fake clock.
 */
#include "remote/remote.h"
#include "../tap.h"

#define MS 1000000ull

int main(void)
{
	struct hr_remote_guard g;
	unsigned t;
	uint64_t now = 1000 * MS;

	hr_remote_guard_init(&g, 2, 100, 400, 10000);
	t = 5000;
	is_int(hr_remote_guard_enter(&g, now, &t), HR_REMOTE_OK, "closed: a request may start");
	is_int(t, 5000, "with the whole request timeout");
	hr_remote_guard_leave(&g, now, now + 5 * MS, HR_REMOTE_NOT_FOUND);
	ok(g.failures == 0, "a 404 is an answer, not a failure");
	hr_remote_guard_leave(&g, now, now + 5 * MS, HR_REMOTE_BAD_SIGNATURE);
	ok(g.failures == 0 && !g.open_until_ns, "a refused entry is not a failure of the server");
	hr_remote_guard_leave(&g, now, now + 250 * MS, HR_REMOTE_TIMEOUT);
	t = 5000;
	is_int(hr_remote_guard_enter(&g, now, &t), HR_REMOTE_OK, "one failure of two: still closed");
	now += 250 * MS;
	hr_remote_guard_leave(&g, now - 250 * MS, now, HR_REMOTE_CONNECT);
	is_int(hr_remote_guard_enter(&g, now, &t), HR_REMOTE_BREAKER_OPEN, "two failures: open");
	is_int(hr_remote_guard_enter(&g, now + 99 * MS, &t), HR_REMOTE_BREAKER_OPEN, "open during the back-off");
	now += 100 * MS;
	is_int(hr_remote_guard_enter(&g, now, &t), HR_REMOTE_OK, "after the back-off: a probe");
	hr_remote_guard_leave(&g, now, now, HR_REMOTE_HTTP_5XX);
	is_int(hr_remote_guard_enter(&g, now + 199 * MS, &t), HR_REMOTE_BREAKER_OPEN, "a failed probe doubles the back-off");
	now += 200 * MS;
	hr_remote_guard_leave(&g, now, now, HR_REMOTE_TIMEOUT);
	now += 400 * MS;
	hr_remote_guard_leave(&g, now, now, HR_REMOTE_TIMEOUT);
	is_int(hr_remote_guard_enter(&g, now + 399 * MS, &t), HR_REMOTE_BREAKER_OPEN, "the back-off stops at its cap");
	is_int(hr_remote_guard_enter(&g, now + 400 * MS, &t), HR_REMOTE_OK, "and no longer");
	now += 400 * MS;
	hr_remote_guard_leave(&g, now, now, HR_REMOTE_OK);
	is_int(hr_remote_guard_enter(&g, now, &t), HR_REMOTE_OK, "a success closes it");
	hr_remote_guard_leave(&g, now, now, HR_REMOTE_TIMEOUT);
	is_int(hr_remote_guard_enter(&g, now, &t), HR_REMOTE_OK, "and resets the count of failures");

	hr_remote_guard_init(&g, 100, 100, 400, 1000);
	t = 800;
	hr_remote_guard_enter(&g, now, &t);
	hr_remote_guard_leave(&g, now, now + 700 * MS, HR_REMOTE_TIMEOUT);
	t = 800;
	is_int(hr_remote_guard_enter(&g, now, &t), HR_REMOTE_OK, "budget left: a request may start");
	is_int(t, 300, "its timeout cut to the budget left");
	hr_remote_guard_leave(&g, now, now + 300 * MS, HR_REMOTE_TIMEOUT);
	is_int(hr_remote_guard_enter(&g, now, &t), HR_REMOTE_BUDGET, "budget spent: no request");
	hr_remote_guard_init(&g, 0, 0, 0, 0);
	is_int(hr_remote_guard_enter(&g, now, &t), HR_REMOTE_BUDGET, "a zero budget allows nothing");
	return done_testing();
}
