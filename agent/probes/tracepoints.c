// SPDX-License-Identifier: LGPL-2.1-or-later
/* Tracepoints of a unit: its tp_btf program where the kernel takes it, else its raw_tp twin. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "probes/probes-int.h"

static struct bpf_program *tracepoint_prog(struct probes *p, const struct prog_unit *u, const char *tp,
					   bool btf)
{
	for (size_t i = 0; i < u->n; i++) {
		struct bpf_program *prog = prog_at(p->skel, u->progs[i].at);
		const char *name;
		bool b;

		name = prog_tracepoint(prog, &b);
		if (name && b == btf && strcmp(name, tp) == 0 && bpf_program__autoload(prog))
			return prog;
	}
	return NULL;
}

static int tracepoint_link_keep(struct probes *p, const struct prog_unit *u, const char *tp,
				struct bpf_link *l, enum backend be)
{
	typeof(p->tp) v = realloc(p->tp, (p->n_tp + 1) * sizeof(*v));

	if (!v) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	p->tp = v;
	v[p->n_tp].name = strdup(tp);
	v[p->n_tp].unit = u;
	v[p->n_tp].backend = be;
	v[p->n_tp++].link = l;
	return be;
}

static bool tracepoint_is(const struct probes *p, uint32_t i, const struct prog_unit *u, const char *tp)
{
	return p->tp[i].link && p->tp[i].unit == u && p->tp[i].name && strcmp(p->tp[i].name, tp) == 0;
}

void probes_detach_tracepoint(struct probes *p, const struct prog_unit *u, const char *tp)
{
	for (uint32_t i = 0; i < p->n_tp; i++)
		if (tracepoint_is(p, i, u, tp)) {
			bpf_link__destroy(p->tp[i].link);
			p->tp[i].link = NULL;
		}
}

enum backend probes_tracepoint_backend(const struct probes *p, const struct prog_unit *u, const char *tp)
{
	for (uint32_t i = 0; i < p->n_tp; i++)
		if (tracepoint_is(p, i, u, tp))
			return p->tp[i].backend;
	return BACKEND_NONE;
}

int probes_attach_tracepoint(struct probes *p, const struct prog_unit *u, const char *tp)
{
	struct bpf_program *prog = p->tp_btf ? tracepoint_prog(p, u, tp, true) : NULL;
	struct bpf_link *l;

	/* Loading is not enough: some kernels refuse tracing links at attach time. */
	if (prog) {
		l = bpf_program__attach_trace(prog);
		if (l)
			return tracepoint_link_keep(p, u, tp, l, BACKEND_TP_BTF);
		free(p->tp_btf_why);
		p->tp_btf_why = errdup("tp_btf attach refused", -errno);
		p->tp_btf = false;
	}
	prog = tracepoint_prog(p, u, tp, false);
	if (!prog)
		return -ENOENT;
	l = bpf_program__attach_raw_tracepoint(prog, tp);
	if (!l)
		return -errno;
	return tracepoint_link_keep(p, u, tp, l, BACKEND_RAW_TP);
}

uint32_t probes_attached_tracepoints(const struct probes *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->n_tp; i++)
		n += p->tp[i].link != NULL;
	return n;
}

const char *probes_tp_btf_why(const struct probes *p)
{
	return p->tp_btf ? NULL : p->tp_btf_why;
}
