// SPDX-License-Identifier: GPL-2.0
/*
 * Reads kernel memory for the agent through BPF_PROG_TEST_RUN: the cifs ops
 * tables, to learn which function serves which member on this kernel.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

__u64 peek_addr = 0;
__u32 peek_len = 0;
__s32 peek_err = 0;
__u8 peek_buf[4096];

SEC("raw_tp")
int peek(void *ctx)
{
	/* The mask keeps the verifier sure of the bound; ops tables are smaller. */
	peek_err = bpf_probe_read_kernel(peek_buf, peek_len & (sizeof(peek_buf) - 1), (void *)peek_addr);
	return 0;
}
