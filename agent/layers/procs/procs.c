// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "base/syscalls.h"
#include "layers/layer.h"
#include "layers/procs/procs.h"
#include "base/macro.h"

static const char *const follow_tps[] = {
	"sched_process_exit",
	"sched_process_fork",
	"sched_process_exec",
};

/* What each syscall means to smbd's views; the numbers are the architecture's. */
static const struct {
	const char *name;
	enum sys_class cls;
} classes[] = {
	{ "epoll_wait", SC_WAIT },  { "epoll_pwait", SC_WAIT }, { "epoll_pwait2", SC_WAIT },
	{ "poll", SC_WAIT },        { "ppoll", SC_WAIT },       { "select", SC_WAIT },
	{ "pselect6", SC_WAIT },    { "recvmsg", SC_RECV },     { "recvfrom", SC_RECV },
	{ "recvmmsg", SC_RECV },    { "readv", SC_RECV },       { "sendmsg", SC_SEND },
	{ "sendto", SC_SEND },      { "sendmmsg", SC_SEND },    { "writev", SC_SEND },
	{ "sendfile", SC_SEND },    { "pread64", SC_READ },     { "preadv", SC_READ },
	{ "preadv2", SC_READ },     { "pwrite64", SC_WRITE },   { "pwritev", SC_WRITE },
	{ "pwritev2", SC_WRITE },   { "fsync", SC_WRITE },      { "fdatasync", SC_WRITE },
	{ "getpeername", SC_PEER }, { "futex", SC_IDLE },       { "futex_waitv", SC_IDLE },
};

/* The programs that follow processes (bpf/tasks.bpf.c) and account their syscalls (bpf/sysacct.bpf.c). */
static const struct prog_spec tasks_progs[] = {
	PROG(tasks_exec_btf, PROG_TP_BTF), PROG(tasks_exec_raw, PROG_PLAIN),
	PROG(tasks_fork_btf, PROG_TP_BTF), PROG(tasks_fork_raw, PROG_PLAIN),
	PROG(tasks_exit_btf, PROG_TP_BTF), PROG(tasks_exit_raw, PROG_PLAIN),
	PROG(tasks_seed, PROG_PLAIN),      PROG(tasks_seed_peer, PROG_PLAIN),
	PROG(tasks_exe_inode, PROG_PLAIN),
};

static const struct prog_spec sysacct_progs[] = {
	PROG(sysacct_enter_btf, PROG_TP_BTF),
	PROG(sysacct_enter_raw, PROG_PLAIN),
	PROG(sysacct_exit_btf, PROG_TP_BTF),
	PROG(sysacct_exit_raw, PROG_PLAIN),
};

static const struct prog_unit tasks_unit = PROG_UNIT("tasks", tasks_progs, true);
static const struct prog_unit sysacct_unit = PROG_UNIT("sysacct", sysacct_progs, true);
const struct prog_unit *const procs_units[PROCS_UNITS] = { &tasks_unit, &sysacct_unit };

int procs_want(struct probes_opts *po)
{
	int r = probes_opts_want(po, &tasks_unit, NULL);

	return r < 0 ? r : probes_opts_want(po, &sysacct_unit, NULL);
}

struct procs_ctl *procs_ctl(struct probes *p)
{
	return &probes_skel(p)->bss->procs_ctl;
}

static int sys_info_update(struct probes *p, int nr, const int *id, const enum sys_class *cls)
{
	int fd = bpf_map__fd(probes_skel(p)->maps.sys_info);
	uint32_t key = (uint32_t)nr;
	struct sys_info v = {};

	if (fd < 0)
		return fd;
	if (nr < 0 || nr >= SMBLAT_SYSCALL_MAX)
		return -ERANGE;
	if (bpf_map_lookup_elem(fd, &key, &v) < 0)
		return -errno;
	if (id)
		v.acct_id = *id < 0 ? 0 : (uint32_t)*id + 1;
	if (cls)
		v.cls = *cls;
	return bpf_map_update_elem(fd, &key, &v, BPF_ANY) < 0 ? -errno : 0;
}

int procs_set_acct_id(struct probes *p, int nr, int id)
{
	return sys_info_update(p, nr, &id, NULL);
}

static int attach_one(struct probes *p, const struct prog_unit *u, const char *tp, char *why, size_t n)
{
	enum backend be = probes_tracepoint_backend(p, u, tp);
	int r;

	if (be != BACKEND_NONE)
		return be;
	r = probes_attach_tracepoint(p, u, tp);
	if (r < 0) {
		const char *tw = probes_tp_btf_why(p);

		snprintf(why, n, "%s: %s%s%s", tp, strerror(-r), tw ? "; " : "", tw ? tw : "");
	}
	return r;
}

int procs_attach(struct probes *p, enum procs_sys sys, char *why, size_t n)
{
	int r = 0;

	if (!probes_unit_loaded(p, &tasks_unit) || !probes_unit_loaded(p, &sysacct_unit)) {
		snprintf(why, n, "the process and syscall programs were not loaded at start");
		return -ENOENT;
	}
	for (size_t i = 0; i < ELEMENTSOF(classes); i++) {
		int nr = syscalls_nr(classes[i].name);

		if (nr >= 0 && (r = sys_info_update(p, nr, NULL, &classes[i].cls)) < 0) {
			snprintf(why, n, "sys_info map: %s", strerror(-r));
			return r;
		}
	}
	/* exit first: an entry without its exit would leave state behind */
	if (sys != PROCS_SYS_NONE)
		r = attach_one(p, &sysacct_unit, "sys_exit", why, n);
	if (r >= 0 && sys == PROCS_SYS_BOTH)
		r = attach_one(p, &sysacct_unit, "sys_enter", why, n);
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(follow_tps); i++)
		r = attach_one(p, &tasks_unit, follow_tps[i], why, n);
	return r;
}

/*
 * binary is kept open while it is followed (its descriptor in ctl->exe_fd):
 * the inode the kernel side compares with stays that file's.
 */
int procs_follow_smbd(struct probes *p, const char *binary, char *why, size_t n)
{
	struct procs_ctl *ctl = procs_ctl(p);
	int was = ctl->smbd_inode ? (int)ctl->exe_fd : -1, fd = open(binary, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0) {
		snprintf(why, n, "%s: %m", binary);
		return -errno;
	}
	ctl->exe_fd = (uint32_t)fd;
	ctl->exe_inode = 0;
	r = probes_iter_run_task(p, PROG_AT(tasks_exe_inode), getpid());
	if (r >= 0 && !ctl->exe_inode)
		r = -ENOENT;
	if (r < 0) {
		snprintf(why, n, "%s: %s", binary,
			 r == -ENOENT ? "the kernel's inode of it not found (task_file iterator)" :
					strerror((int)-r));
		close(fd);
		ctl->exe_fd = (uint32_t)was;
		return (int)r;
	}
	__atomic_store_n(&ctl->smbd_inode, ctl->exe_inode, __ATOMIC_SEQ_CST);
	if (was >= 0)
		close(was);
	ctl->smbd = 1;
	return 0;
}

int procs_seed(struct probes *p, const struct procs_seed *seed)
{
	struct procs_ctl *ctl = procs_ctl(p);
	ssize_t n;

	ctl->seed_pid = seed->acct_pid;
	ctl->seed_count = seed->count;
	n = probes_iter_run(p, PROG_AT(tasks_seed));
	ctl->seed_pid = ctl->seed_count = 0;
	/* their clients: smbd's connections older than the agent */
	if (n > 0 && ctl->smbd)
		(void)probes_iter_run(p, PROG_AT(tasks_seed_peer));
	return n < 0 ? (int)n : (int)(n / sizeof(uint32_t));
}

void procs_list(struct probes *p, FILE *out, const char *function, enum layer_id l)
{
	static const struct {
		const struct prog_unit *unit;
		const char *tp;
	} tps[] = {
		{ &sysacct_unit, "sys_enter" },        { &sysacct_unit, "sys_exit" },
		{ &tasks_unit, "sched_process_exec" }, { &tasks_unit, "sched_process_fork" },
		{ &tasks_unit, "sched_process_exit" },
	};

	for (size_t i = 0; i < ELEMENTSOF(tps); i++) {
		enum backend be = probes_tracepoint_backend(p, tps[i].unit, tps[i].tp);

		if (be != BACKEND_NONE)
			layer_list_row(out, function, l, tps[i].tp, backend_name(be), "attached");
	}
}

const char *procs_upper(const char *prefix, const char *name, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "%s%s", prefix, name);

	for (size_t i = 0; i < k && i < n; i++)
		buf[i] = (char)toupper((unsigned char)buf[i]);
	return buf;
}
