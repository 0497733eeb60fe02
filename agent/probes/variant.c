// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which build of the BPF object this kernel gets: the session kfuncs take
 * the program's context from Linux 7.0 on, and libbpf before 1.2 refuses a
 * whole object over one weak kfunc whose prototype differs from the
 * kernel's (bpf/func_ctx.bpf.c); and a kernel before 5.17 refuses any
 * program that names a callback, which the user stack walk does
 * (bpf/ustack.bpf.h): three builds.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "probes/btfargs.h"
#include "probes/probes-int.h"
#include "features.skel.h"
#include "peek.skel.h"
#include "smblat.skel.h"
#include "smblat_ctx.skel.h"
#include "smblat_ctx_kustack.skel.h"
#include "smblat_kustack.skel.h"

/*
 * Whether the session kfuncs take the program's context (Linux 7.0): the
 * object's declaration must match the kernel's even where no program calls
 * them, or libbpf 1.1 refuses the whole object.
 */
bool object_session_ctx(struct btfs *btfs)
{
	const struct btf *btf;
	const struct btf_type *t;
	int id = btfs_func(btfs, NULL, "bpf_session_cookie", &btf);

	if (id < 0)
		return false;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	return t && btf_is_func_proto(t) && btf_vlen(t) > 0;
}

/*
 * The object for this kernel: smblat_ctx, smblat_kustack and
 * smblat_ctx_kustack differ from smblat only in their code (the session
 * kfuncs' prototype; who walks user stacks), so the one skeleton fits all.
 */
struct smblat_bpf *object_open(bool session_ctx, bool kernel_ustack)
{
	struct smblat_bpf *skel;
	int r;

	if (!session_ctx && !kernel_ustack)
		return smblat_bpf__open();
	skel = calloc(1, sizeof(*skel));
	if (!skel)
		return NULL;
	r = smblat_bpf__create_skeleton(skel);
	if (r == 0) {
		size_t *sz = &skel->skeleton->data_sz;

		/* both: the fentry templates of a kernel with the session kfuncs' new prototype (7.0) */
		skel->skeleton->data = session_ctx && kernel_ustack ? smblat_ctx_kustack_bpf__elf_bytes(sz) :
				       session_ctx                  ? smblat_ctx_bpf__elf_bytes(sz) :
								      smblat_kustack_bpf__elf_bytes(sz);
		r = bpf_object__open_skeleton(skel->skeleton, NULL);
	}
	if (r < 0) {
		smblat_bpf__destroy(skel);
		errno = -r;
		return NULL;
	}
	return skel;
}

static void elf_pages_release(const void *data, size_t size)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t b = ((uintptr_t)data + page - 1) & ~(page - 1);
	uintptr_t e = ((uintptr_t)data + size) & ~(page - 1);

	/* read-only pages of the executable: touched again, they come back from the file */
	if (e > b)
		(void)madvise((void *)b, e - b, MADV_DONTNEED);
}

void probes_trim(void)
{
	const void *(*const objs[])(size_t *) = {
		smblat_bpf__elf_bytes,         smblat_ctx_bpf__elf_bytes,
		smblat_kustack_bpf__elf_bytes, smblat_ctx_kustack_bpf__elf_bytes,
		peek_bpf__elf_bytes,           features_bpf__elf_bytes,
	};

	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		size_t sz;
		const void *d = objs[i](&sz);

		elf_pages_release(d, sz);
	}
}
