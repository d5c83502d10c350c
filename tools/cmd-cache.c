/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PLACEHOLDER: being written; keeps the tree linking meanwhile. */
#include "tools.h"
int cmd_cache(struct cli *cli, int argc, char **argv) { (void)cli; (void)argc; (void)argv; cli_error("cache: not built yet"); return EXIT_FAILED; }
