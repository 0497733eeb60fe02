// SPDX-License-Identifier: LGPL-2.1-or-later
/* The call template's unit (bpf/func.bpf.c), which every start loads. */
#include "probes/progs.h"

static const struct prog_spec call_progs[] = {
	PROG(call_fentry, PROG_FENTRY),   PROG(call_fexit, PROG_FENTRY),    PROG(call_kprobe, PROG_PLAIN),
	PROG(call_kretprobe, PROG_PLAIN), PROG(call_kmulti, PROG_KMULTI),   PROG(call_kretmulti, PROG_KMULTI),
	PROG(call_uprobe, PROG_PLAIN),    PROG(call_uretprobe, PROG_PLAIN), PROG(umulti_entry, PROG_UMULTI),
	PROG(umulti_exit, PROG_UMULTI),   PROG(usession, PROG_USESSION),    PROG(usdt_entry, PROG_PLAIN),
	PROG(usdt_exit, PROG_PLAIN),
};

const struct prog_unit prog_unit_call = { .name = "call", .progs = call_progs, .n = ELEMENTSOF(call_progs) };

const struct kprog_family kprogs_call = {
	.fentry = PROG_AT(call_fentry),
	.fexit = PROG_AT(call_fexit),
	.kprobe = PROG_AT(call_kprobe),
	.kretprobe = PROG_AT(call_kretprobe),
	.kmulti = PROG_AT(call_kmulti),
	.kretmulti = PROG_AT(call_kretmulti),
};
