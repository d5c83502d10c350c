/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PLACEHOLDER: being written; keeps the tree linking meanwhile. */
#include "tools.h"
void info_plugins(struct cli *cli, struct json *j) { (void)cli; (void)j; }
