/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The program tables (probes/progs.h): every program of the BPF object is
 * in exactly one unit (the call template's, a layer's, the processes'), as
 * the kind its section says, so that a program added to bpf/ without its
 * table entry (it would never load) or listed as the wrong kind fails here.
 */
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "layers/layer.h"
#include "layers/func/func.h"
#include "layers/procs/procs.h"
#include "probes/progs.h"

#include "check.h"

/* The kind a program's section and name allow: which refusal would drop it. */
static int kind_ok(const struct bpf_program *prog, enum prog_kind k)
{
	const char *sec = bpf_program__section_name(prog);

	if (strncmp(sec, "fentry", 6) == 0 || strncmp(sec, "fexit", 5) == 0)
		return k == PROG_FENTRY;
	if (strncmp(sec, "tp_btf/", 7) == 0)
		return k == PROG_TP_BTF;
	if (strstr(sec, "probe.multi"))
		return k == PROG_KMULTI || k == PROG_UMULTI || k == PROG_USESSION || k == PROG_UMULTI_SLEEP;
	if (strcmp(sec, "uprobe.s") == 0)
		return k == PROG_USLEEP;
	return k == PROG_PLAIN;
}

static void count_unit(const struct smblat_bpf *skel, const struct prog_unit *u, unsigned int *seen,
		       struct bpf_program **progs, size_t n)
{
	for (size_t i = 0; i < u->n; i++) {
		struct bpf_program *prog = prog_at(skel, u->progs[i].at);
		size_t j = 0;

		while (j < n && progs[j] != prog)
			j++;
		check(j < n, "unit %s: entry %zu is no program", u->name, i);
		if (j == n)
			continue;
		seen[j]++;
		check(kind_ok(prog, u->progs[i].kind), "unit %s: %s (%s) listed as kind %d", u->name,
		      bpf_program__name(prog), bpf_program__section_name(prog), u->progs[i].kind);
	}
}

int main(void)
{
	struct smblat_bpf *skel = smblat_bpf__open();
	struct bpf_program *progs[256], *prog;
	unsigned int seen[256] = {};
	size_t n = 0;

	if (!skel) {
		fprintf(stderr, "progs: cannot open the object\n");
		return 1;
	}
	bpf_object__for_each_program (prog, skel->obj)
		if (n < 256)
			progs[n++] = prog;
	count_unit(skel, &prog_unit_call, seen, progs, n);
	count_unit(skel, &offcpu_unit, seen, progs, n);
	for (size_t i = 0; i < PROCS_UNITS; i++)
		count_unit(skel, procs_units[i], seen, progs, n);
	for (int l = 0; l < _LAYER_MAX; l++)
		if (layer_table[l]->unit)
			count_unit(skel, layer_table[l]->unit, seen, progs, n);
	for (size_t j = 0; j < n; j++)
		check(seen[j] == 1, "%s is in %u program tables, not one", bpf_program__name(progs[j]),
		      seen[j]);
	check(n > 0 && n < 256, "%zu programs", n);
	smblat_bpf__destroy(skel);
	return check_done("progs");
}
