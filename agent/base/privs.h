/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Privileges: leave root once the BPF objects are loaded. */
#pragma once

#include <linux/capability.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * What privs_drop(keep_attach_caps = true) leaves in the permitted set, none
 * of it effective until privs_raise():
 *   CAP_BPF        bpf() maps, programs, links (unprivileged BPF is off on
 *                  distribution kernels)
 *   CAP_PERFMON    tracing program types, perf events where
 *                  perf_event_paranoid <= 2
 *   CAP_SYS_ADMIN  what a module loaded after start (cifs.ko) needs:
 *                  libbpf finds its BTF by id (BPF_BTF_GET_NEXT_ID and
 *                  _GET_FD_BY_ID), without which fentry cannot target it,
 *                  and Debian's perf_event_paranoid=3 lets only CAP_SYS_ADMIN
 *                  open perf events, kprobes included; perf uprobes want it
 *                  on every kernel with the 2025 uprobe fix
 *   CAP_SYSLOG     /proc/kallsyms shows addresses only to an opener holding
 *                  it, needed to symbolize frames of modules loaded later
 * Without CAP_SYS_ADMIN, cifs loaded after start could not be probed at all
 * on Debian 12. It is also what turns a compromised agent from a reader of
 * kernel memory into a writer of process memory (bpf_probe_write_user), so
 * keep it no longer than a late attach can come: privs_drop(user, false)
 * when none can, privs_forget() after the last one. The agent keeps them
 * for its lifetime, since a SIGHUP reload may attach new probes at any time
 * (reload.c, smblat(8) PRIVILEGES).
 */
#define PRIVS_ATTACH_CAPS                                                                           \
	((UINT64_C(1) << CAP_BPF) | (UINT64_C(1) << CAP_PERFMON) | (UINT64_C(1) << CAP_SYS_ADMIN) | \
	 (UINT64_C(1) << CAP_SYSLOG))

/* What /proc/PID/status says about a process' credentials. */
struct privs_state {
	uid_t uid[4]; /* real, effective, saved, filesystem */
	gid_t gid[4];
	unsigned int n_groups; /* supplementary groups */
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
 * why (n bytes, may be NULL) says which, for the caller to log.
 */
int privs_drop(const char *user, bool keep_attach_caps, char *why, size_t n);

/*
 * Makes the kept capabilities effective in the calling thread, or removes
 * them from the effective set again. No-ops when privs_drop() was never
 * called (still root); -EPERM when nothing was kept or it was forgotten.
 */
int privs_raise(void);
int privs_lower(void);

/*
 * Leaves caps (of the kept ones) effective in the calling thread between
 * raises too, from now on; privs_lower() keeps them. For kernels that
 * refuse every bpf() command, reading an existing map included, to a
 * process without CAP_BPF (kernel.unprivileged_bpf_disabled before Linux
 * 5.19). No-op when privs_drop() was never called; -EPERM for a capability
 * not kept.
 */
int privs_keep_effective(uint64_t caps);

/*
 * Empties the permitted set of the calling thread for good, once no later
 * attach can come. No-op when privs_drop() was never called.
 */
int privs_forget(void);

/*
 * open(2) with the file system rights USER will have after privs_drop() (its
 * uid and gid, no supplementary groups), so that a file named on the command
 * line is checked and created before the drop as the agent will write it
 * after. As root only; otherwise, or with no such USER (the agent stays root
 * then), a plain open. Call it while the process has one thread. The fd, or
 * -errno.
 */
int privs_open_as(const char *user, const char *path, int flags, mode_t mode);

/* The capabilities of want (bits CAP_*) not in the effective set. */
uint64_t privs_missing(uint64_t want);

/* Reads /proc/PID/status; pid 0 is the calling process. */
int privs_status(pid_t pid, struct privs_state *out);
