/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Privileges: leave root once the BPF objects are loaded. */
#pragma once

#include <linux/capability.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * What privs_drop(keep_attach_caps = true) leaves in the permitted set:
 *   CAP_BPF      bpf() map and program creation (unprivileged BPF is off on
 *                distribution kernels)
 *   CAP_PERFMON  tracing program types (with CAP_BPF), kprobe perf events
 *   CAP_SYSLOG   /proc/kallsyms shows addresses only to an opener holding
 *                it, needed to symbolize stacks in modules loaded later
 * That is enough for later map creation, kprobes, kprobe_multi, fentry/fexit
 * on vmlinux functions, raw tracepoints and uprobe_multi links (Linux 6.6).
 *
 * CAP_SYS_ADMIN is not kept: it is what separates "read any kernel memory"
 * from "write any process' memory" (bpf_probe_write_user). Its loss costs:
 *   - uprobe/USDT attaches through perf events, which kernels carrying the
 *     2025 fix ("perf: Require CAP_SYS_ADMIN for uprobes", also in stable
 *     series) refuse without it; attach those before privs_drop(), or later
 *     with uprobe_multi links;
 *   - fentry on functions of a module loaded after the drop: libbpf finds
 *     module BTF by id (BPF_BTF_GET_NEXT_ID), which needs CAP_SYS_ADMIN;
 *     fall back to kprobes for those.
 */
#define PRIVS_ATTACH_CAPS \
	((UINT64_C(1) << CAP_BPF) | (UINT64_C(1) << CAP_PERFMON) | (UINT64_C(1) << CAP_SYSLOG))

/* What /proc/PID/status says about a process' credentials. */
struct privs_state {
	uid_t uid[4];               /* real, effective, saved, filesystem */
	gid_t gid[4];
	unsigned int n_groups;      /* supplementary groups */
	uint64_t cap_inh;
	uint64_t cap_prm;
	uint64_t cap_eff;
	uint64_t cap_bnd;
	uint64_t cap_amb;
	bool no_new_privs;
};

/*
 * Becomes USER for good: supplementary groups dropped, uid/gid changed, the
 * bounding and ambient sets emptied, no_new_privs set. With keep_attach_caps
 * the PRIVS_ATTACH_CAPS stay in the permitted set only, so that later
 * attaches can be bracketed by privs_raise()/privs_lower(); without it no
 * capability is left at all.
 *
 * Capabilities are per thread: call this before any thread is started.
 * Returns -ESRCH when USER does not exist, -EOPNOTSUPP when the kernel has
 * no CAP_BPF/CAP_PERFMON (before 5.8), -EPERM when the change was refused;
 * the reason is logged to stderr.
 */
int privs_drop(const char *user, bool keep_attach_caps);

/*
 * Makes the kept capabilities effective in the calling thread, or removes
 * them from the effective set again. No-ops when privs_drop() was never
 * called (still root); -EPERM when it dropped everything.
 */
int privs_raise(void);
int privs_lower(void);

/* Reads /proc/PID/status; pid 0 is the calling process. */
int privs_status(pid_t pid, struct privs_state *out);
