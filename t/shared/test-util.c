/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Generic helpers: sizes, safe names, string vectors, atomic writes. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>

#include "../tap.h"
#include "shared/util.h"

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' || (e->d_name[1] && e->d_name[1] != '.'))
			n++;
	if (d)
		closedir(d);
	return n;
}

/*
 * A 65k-entry HANZO_ROCM_PLUGIN_PATH took 1.5 s to split
 * and de-duplicate (quadratic).  400k entries, split, copied and made
 * unique, in a child under alarm(60): milliseconds when linear, many
 * minutes when quadratic (a hang guard with a margin of 1000x, not a speed
 * assertion).
 */
static void test_long_path(void)
{
	enum { N = 400000 };
	char *s = malloc((size_t)N * 8 + 1), *p = s;
	int status = -1;
	pid_t pid;

	if (!s) {
		skip(1, "no memory for a long path");
		return;
	}
	for (int i = 0; i < N; i++)
		p += sprintf(p, "/d%05x:", i % (N / 2));        /* each twice */
	pid = fork();
	if (pid == 0) {
		char **v, **c, **u;

		alarm(60);
		v = hr_strv_split(s, ":");
		c = v ? hr_strv_copy(v) : NULL;
		u = c ? hr_strv_uniq(c) : NULL;
		_exit(u && hr_strv_len(v) == N && hr_strv_len(u) == N / 2 &&
		      strcmp(u[N / 2 - 1], "/d30d3f") == 0 ? 0 : 1);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "a 400k-entry path is split, copied and de-duplicated in linear time (status %#x)", status);
	free(s);
}

int main(void)
{
	uint64_t v = 0;
	char buf[64], dir[] = "/tmp/hr-util.XXXXXX";
	char **sv;
	void *data;
	size_t size;

	is_int(hr_parse_size("1G", &v), 0, "1G parses");
	is_int(v, 1ULL << 30, "1G is 2^30 bytes");
	is_int(hr_parse_size("512m", &v), 0, "512m parses");
	is_int(v, 512ULL << 20, "512m is 512 MiB");
	is_int(hr_parse_size("100", &v), 0, "plain bytes parse");
	is_int(hr_parse_size("lots", &v), -EINVAL, "'lots' is rejected");
	is_int(hr_parse_size("", &v), -EINVAL, "empty size is rejected");
	is_int(hr_parse_size("-1G", &v), -EINVAL, "negative size is rejected");
	is_int(hr_parse_size("99999999999999999999", &v), -ERANGE, "overflow is -ERANGE");
	is_int(hr_parse_size("17179869184G", &v), -ERANGE, "overflow after the suffix shift is -ERANGE");
	hr_format_size(1536, buf, sizeof(buf));
	is_str(buf, "1.5K", "1536 bytes format as 1.5K");
	is_int(hr_parse_size("1.5G", &v), 0, "1.5G parses");
	is_int(v, 3ULL << 29, "1.5G is 1.5 * 2^30 bytes");
	is_int(hr_parse_size("512B", &v), 0, "512B parses");
	is_int(v, 512, "512B is 512 bytes");
	is_int(hr_parse_size("2MiB", &v), 0, "2MiB parses");
	is_int(v, 2ULL << 20, "2MiB is 2 MiB");
	is_int(hr_parse_size("1.5", &v), -EINVAL, "a fraction of a byte is rejected");
	is_int(hr_parse_size("1.G", &v), -EINVAL, "a dot without digits is rejected");
	is_int(hr_parse_size("1.5GB", &v), -EINVAL, "GB (decimal?) is rejected");
	is_int(hr_parse_size("16777215.99T", &v), 0, "near the top parses");
	is_int(hr_parse_size("16777216T", &v), -ERANGE, "2^64 is -ERANGE");
	hr_format_size(1048575, buf, sizeof(buf));
	is_str(buf, "1.0M", "1048575 bytes are 1.0M, not 1024.0K");
	{
		/* Everything printed reads back, and prints the same again. */
		uint64_t x = 1, back = 0;
		int bad = 0;
		char again[64];

		for (int i = 0; i < 4000 && !bad && x < (UINT64_C(1) << 62); i++) {
			hr_format_size(x, buf, sizeof(buf));
			if (hr_parse_size(buf, &back) < 0) {
				diag("'%s' (from %llu) does not parse", buf, (unsigned long long)x);
				bad++;
				break;
			}
			hr_format_size(back, again, sizeof(again));
			if (strcmp(buf, again) != 0) {
				diag("%llu -> '%s' -> %llu -> '%s'", (unsigned long long)x, buf,
				     (unsigned long long)back, again);
				bad++;
			}
			x = x + x / 97 + 1;
		}
		ok(!bad, "hr_format_size output round-trips through hr_parse_size");
	}

	ok(hr_name_is_safe("gfx90a:xnack+"), "a target ID is a safe name");
	ok(!hr_name_is_safe("../etc"), "'..' is not a safe name");
	ok(!hr_name_is_safe("a/b"), "'/' is not a safe name");
	ok(!hr_name_is_safe(".hidden"), "a leading dot is not a safe name");
	ok(!hr_name_is_safe(""), "empty is not a safe name");

	sv = hr_strv_split("  gfx90a  gfx942\tgfx1100 ", " \t");
	is_int(hr_strv_len(sv), 3, "split drops empty fields");
	is_str(sv[2], "gfx1100", "split keeps order");
	ok(hr_strv_contains(sv, "gfx942"), "strv_contains finds a member");
	hr_strv_free(sv);
	{
		char *const dup[] = { "/b", "/a", "/b", "/c", "/a", NULL };
		char **u = hr_strv_uniq(dup);

		ok(u && hr_strv_len(u) == 3 && strcmp(u[0], "/b") == 0 && strcmp(u[1], "/a") == 0 &&
		   strcmp(u[2], "/c") == 0, "strv_uniq keeps the first of each, in order");
		hr_strv_free(u);
	}
	test_long_path();

	ok(mkdtemp(dir) != NULL, "scratch dir");
	is_int(hr_write_atomic(dir, "entry", "hello", 5, 0644), 0, "atomic write succeeds");
	is_int(count_entries(dir), 1, "no temp file is left behind");
	is_int(hr_read_file(strcat(strcpy(buf, dir), "/entry"), 1024, &data, &size), 0, "read back");
	ok(size == 5 && memcmp(data, "hello", 5) == 0, "content is what was written");
	free(data);
	is_int(hr_read_file(buf, 4, &data, &size), -EFBIG, "read_file enforces its limit");
	is_int(hr_write_atomic("/nonexistent-dir", "x", "y", 1, 0644), -ENOENT, "atomic write into a missing dir fails cleanly");
	{
		/* A FIFO must not hang the reader (alarm kills a hang: a failure). */
		char fifo[96], link[96];

		snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
		snprintf(link, sizeof(link), "%s/link", dir);
		ok(mkfifo(fifo, 0600) == 0, "mkfifo");
		alarm(10);
		is_int(hr_read_file(fifo, 1024, &data, &size), -EINVAL,
		       "read_file refuses a FIFO without blocking on it");
		alarm(0);
		ok(symlink("entry", link) == 0, "symlink to a regular file");
		is_int(hr_read_file(link, 1024, &data, &size), -EINVAL,
		       "read_file never reads through a symlink");
		unlink(fifo);
		unlink(link);
	}
	unlink(buf);
	rmdir(dir);
	return done_testing();
}
