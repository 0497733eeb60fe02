/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

#include "symbols/ksyms.h"

/*
 * One read of a kallsyms file: text symbols sorted by address, the best
 * name first among those at one address; data symbols in file order; every
 * name a pointer into pool.
 */
struct kallsyms {
	struct ksym *text;
	size_t n_text;
	struct ksym *data;
	size_t n_data;
	char *pool;
};

/*
 * Reads fd to its end. -ENODATA: no lines; -EPERM: every address reads as
 * zero (kernel.kptr_restrict); -EBADMSG: not kallsyms text.
 */
int kallsyms_read(int fd, struct kallsyms *ret);
void kallsyms_done(struct kallsyms *t);
