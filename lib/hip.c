/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PLACEHOLDER: being written; keeps the tree linking meanwhile. */
#include "hip.h"
