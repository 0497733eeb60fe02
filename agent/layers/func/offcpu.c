// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Off-CPU time of timed calls (offcpu = yes, --offcpu): the sched_switch
 * programs of bpf/offcpu.bpf.c, loaded and attached only then.
 */
#include <errno.h>
#include <string.h>

#include "layers/func/func.h"
#include "layers/layer.h"

static const struct prog_spec offcpu_progs[] = {
	PROG(offcpu_switch_btf, PROG_TP_BTF),
	PROG(offcpu_switch_raw, PROG_PLAIN),
};

const struct prog_unit offcpu_unit = PROG_UNIT("offcpu", offcpu_progs, true);

int offcpu_want(struct probes_opts *po)
{
	po->offcpu = true;
	return probes_opts_want(po, &offcpu_unit, NULL);
}

int offcpu_attach(struct probes *p, char *why, size_t n)
{
	int r;

	if (probes_tracepoint_backend(p, &offcpu_unit, "sched_switch") != BACKEND_NONE)
		return 0;
	r = probes_attach_tracepoint(p, &offcpu_unit, "sched_switch");
	if (r < 0) {
		const char *tw = probes_tp_btf_why(p);

		snprintf(why, n, "sched_switch: %s%s%s", strerror(-r), tw ? "; " : "", tw ? tw : "");
		return r;
	}
	return 0;
}
