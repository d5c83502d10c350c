/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one name grammar (shared/name.h).  Layer: shared (lib/layers); pure. */
#include <stddef.h>
#include <string.h>

#include "name.h"

static bool name_char(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
		return true;
	return !first && (c == '+' || c == ':' || c == '-');
}

bool hr_name_is_valid(const char *s)
{
	size_t n = 0;

	if (!s)
		return false;
	for (; s[n]; n++)
		if (n >= HR_NAME_MAX || !name_char(s[n], n == 0))
			return false;
	return n > 0;
}

bool hr_name_dotted_is_valid(const char *s)
{
	char part[HR_NAME_MAX + 1];
	const char *p = s, *dot;
	size_t n;

	if (!s || strlen(s) > HR_NAME_MAX)
		return false;
	for (;; p = dot + 1) {
		dot = strchr(p, '.');
		n = dot ? (size_t)(dot - p) : strlen(p);
		memcpy(part, p, n);
		part[n] = '\0';
		if (!hr_name_is_valid(part))
			return false;
		if (!dot)
			return true;
	}
}

bool hr_name_stem_is_valid(const char *s)
{
	char name[HR_NAME_MAX + 1];
	const char *dot = s ? strrchr(s, '.') : NULL;
	size_t n;

	if (!dot)
		return hr_name_is_valid(s);
	n = (size_t)(dot - s);
	if (n > HR_NAME_MAX || strlen(dot + 1) != HR_NAME_KEY_HEX ||
	    strspn(dot + 1, "0123456789abcdef") != HR_NAME_KEY_HEX)
		return false;
	memcpy(name, s, n);
	name[n] = '\0';
	return hr_name_dotted_is_valid(name);
}
