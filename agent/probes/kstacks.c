// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Kernel stacks taken at a call's entry (COMPAT_ENTRY_KSTACK): before 5.15
 * a kretprobe's stack ends at its trampoline, so the programs keep the
 * entry's stack in the kstacks map and put its id in the record.
 */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>

#include "probes/probes-int.h"

int probes_kstack_read(struct probes *p, uint32_t id, uint64_t *frames, size_t n)
{
	uint64_t v[SMBLAT_STACK_SLOTS] = {};
	size_t k = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.kstacks), &id, v) < 0)
		return -errno;
	/* the map's value is zero-filled past the last frame */
	while (k < n && k < SMBLAT_STACK_SLOTS && v[k]) {
		frames[k] = v[k];
		k++;
	}
	return (int)k;
}
