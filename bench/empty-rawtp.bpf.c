// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Programs on the raw sys_enter/sys_exit tracepoints, the hooks smblat's
 * syscall probes ride, for P2's end-to-end rows (bpftrace 0.17 attaches
 * only through perf tracepoints, a dearer hook): empty_*, the floor of any
 * program there, and stamp_*, which read the clock on both sides and
 * nothing else, the floor of any latency probe there.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("raw_tp/sys_enter")
int empty_enter(void *ctx)
{
	return 0;
}

SEC("raw_tp/sys_exit")
int empty_exit(void *ctx)
{
	return 0;
}

/* written so the clock reads are not optimized out */
volatile __u64 stamp;

SEC("raw_tp/sys_enter")
int stamp_enter(void *ctx)
{
	stamp = bpf_ktime_get_ns();
	return 0;
}

SEC("raw_tp/sys_exit")
int stamp_exit(void *ctx)
{
	stamp = bpf_ktime_get_ns();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
