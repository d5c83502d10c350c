/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one name grammar (layer: shared; pure, no context): family, target,
 * kernel and source names are all checked by hr_name_is_valid(), in the
 * library, the CLI and the SDK's hanzo-rocm-embed alike.  A caller that
 * needs more (a family in the family table, a target in the platform
 * table's grammar, a kernel a C identifier) checks that by meaning, after
 * this.  Documented for users in libhanzo-rocm(3), NAMES.
 */
#ifndef HR_UTIL_NAME_H
#define HR_UTIL_NAME_H

#include <stdbool.h>

#define HR_NAME_MAX 64
/* The grammar in words, for messages ("invalid family name 'x' (%s)"). */
#define HR_NAME_RULE "1-64 of A-Z a-z 0-9 _ + : -, not starting with + : -"

/*
 * A name: 1..HR_NAME_MAX characters of [A-Za-z0-9_+:-], the first one a
 * letter, a digit or '_'.  The stricter of the two grammars the library
 * had (a safe path component, [A-Za-z0-9._+:-]; a family, [a-z0-9_]) on
 * the axis where they differ for safety: no '.', so a name is never "." or
 * "..", never a hidden file, and never mistaken for a cache entry
 * ("NAME.KEY") or a temporary file; it keeps what real names need:
 * capitals (kernel q4_K), ':' '+' '-' (targets gfx90a:xnack+, host-w64).
 * Every name is one path component, an index field and a log word as is.
 */
bool hr_name_is_valid(const char *s);

/*
 * A caller's source name (hanzo_rocm_source_code_object, the Rust crate's
 * get_or_compile): names joined by single dots ("candle.binary"), at most
 * HR_NAME_MAX characters in all: the seed's callers label sources by
 * module, and each part is still a name, so the whole is never "." or
 * "..", never hidden, never ends in a dot.
 */
bool hr_name_dotted_is_valid(const char *s);

/*
 * A cache entry's stem: a family's name, or a caller source's NAME.KEY
 * (the dotted name, '.', the key's 16 lower-case hex digits;
 * lib/source/key.c), split at the LAST dot: a family has no dot, so
 * the two never meet.
 */
#define HR_NAME_KEY_HEX 16
bool hr_name_stem_is_valid(const char *s);

#endif
