/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the cache's files share and the rest of lib/ does not see (private
 * to lib/cache/, whose files only include it; the rest includes
 * cache/cache.h).  Layer: cache.
 */
#ifndef HR_CACHE_INTERNAL_H
#define HR_CACHE_INTERNAL_H

#include <sys/types.h>

#include "cache.h"

/*
 * Create <dir>/<target> (tdir) if needed, with the mode of dir; *file_mode
 * is the mode entries get there.  Shared by entries and their locks.
 */
int hr_cache_target_dir(const char *dir, const char *tdir, mode_t *file_mode);

/* The key of l's family for target (either of l's two). */
void hr_cache_lookup_key(const struct hr_lookup *l, const char *target,
                         struct hr_cache_key *key);

#endif
