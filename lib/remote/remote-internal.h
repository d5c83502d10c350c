/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What only lib/remote/'s files share: strict base64 of fixed-size values. */
#ifndef HR_REMOTE_INTERNAL_H
#define HR_REMOTE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/*
 * Decode exactly n bytes from the n_text characters at text: only the
 * base64 alphabet with '=' padding, and canonical (the encoding of the
 * result is the input), so one value has one spelling.  0 or -EINVAL.
 */
int hr_remote_b64_decode(const char *text, size_t n_text, uint8_t *out, size_t n);
/* Encode n bytes with padding and a NUL (out: 4 * ((n + 2) / 3) + 1 bytes). */
void hr_remote_b64_encode(const uint8_t *in, size_t n, char *out);

#endif
