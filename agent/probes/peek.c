// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probes/peek.h"
#include "peek.skel.h"

struct peek {
	struct peek_bpf skel;
};

int peek_open(struct peek **ret)
{
	struct peek_bpf *skel = peek_bpf__open_and_load();

	if (!skel)
		return -errno;
	*ret = (struct peek *)skel;
	return 0;
}

void peek_close(struct peek *p)
{
	peek_bpf__destroy((struct peek_bpf *)p);
}

int peek_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct peek_bpf *skel = ctx;
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int r;

	if (len >= sizeof(skel->bss->peek_buf))
		return -E2BIG;
	skel->bss->peek_addr = addr;
	skel->bss->peek_len = len;
	skel->bss->peek_err = -EIO;
	r = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.peek), &opts);
	if (r < 0)
		return -errno;
	if (skel->bss->peek_err < 0)
		return skel->bss->peek_err;
	memcpy(buf, skel->bss->peek_buf, len);
	return 0;
}
