// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Kernel stacks taken at a call's entry (COMPAT_ENTRY_KSTACK): before 5.15
 * a kretprobe's stack ends at its trampoline, so the programs keep the
 * entry's stack in the kstacks map and put its id in the event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "probes/probes-int.h"

const void *probes_event_complete(struct probes *p, const void *data, size_t size)
{
	const struct event *e = data;
	uint32_t id;

	if (size < sizeof(*e) || !(e->flags & EF_KSTACK_ID))
		return data;
	if (!p->ev_copy && !(p->ev_copy = malloc(sizeof(*e))))
		return data; /* the event goes on without its stack */
	memcpy(p->ev_copy, e, sizeof(*e));
	p->ev_copy->flags &= ~EF_KSTACK_ID;
	if (e->kstack_sz < 0)
		return p->ev_copy; /* the entry's bpf_get_stackid() failed: its errno */
	id = (uint32_t)e->kstack_sz;
	memset(p->ev_copy->kstack, 0, sizeof(p->ev_copy->kstack));
	if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.kstacks), &id, p->ev_copy->kstack) < 0) {
		p->ev_copy->kstack_sz = -errno;
		return p->ev_copy;
	}
	/* the map's value is zero-filled past the last frame */
	p->ev_copy->kstack_sz = 0;
	while ((size_t)p->ev_copy->kstack_sz / sizeof(uint64_t) < SMBLAT_STACK_SLOTS &&
	       p->ev_copy->kstack[p->ev_copy->kstack_sz / sizeof(uint64_t)])
		p->ev_copy->kstack_sz += sizeof(uint64_t);
	return p->ev_copy;
}
