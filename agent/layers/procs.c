// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "base/syscalls.h"
#include "layers/layer.h"
#include "layers/procs.h"

static const char *const follow_tps[] = {
	"sched_process_exit", "sched_process_fork", "sched_process_exec",
};

/* What each syscall means to smbd's views; the numbers are the architecture's. */
static const struct {
	const char *name;
	enum sys_class cls;
} classes[] = {
	{ "epoll_wait", SC_WAIT }, { "epoll_pwait", SC_WAIT }, { "epoll_pwait2", SC_WAIT },
	{ "poll", SC_WAIT }, { "ppoll", SC_WAIT }, { "select", SC_WAIT }, { "pselect6", SC_WAIT },
	{ "recvmsg", SC_RECV }, { "recvfrom", SC_RECV }, { "recvmmsg", SC_RECV }, { "readv", SC_RECV },
	{ "sendmsg", SC_SEND }, { "sendto", SC_SEND }, { "sendmmsg", SC_SEND }, { "writev", SC_SEND },
	{ "sendfile", SC_SEND },
	{ "pread64", SC_READ }, { "preadv", SC_READ }, { "preadv2", SC_READ },
	{ "pwrite64", SC_WRITE }, { "pwritev", SC_WRITE }, { "pwritev2", SC_WRITE },
	{ "fsync", SC_WRITE }, { "fdatasync", SC_WRITE },
	{ "getpeername", SC_PEER },
	{ "futex", SC_IDLE }, { "futex_waitv", SC_IDLE },
};

static int sys_info_update(struct probes *p, int nr, const int *id, const enum sys_class *cls)
{
	int fd = probes_map_fd(p, "sys_info");
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

static int attach_one(struct probes *p, enum prog_unit u, const char *tp, char *why, size_t n)
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

int procs_attach(struct probes *p, bool enter, char *why, size_t n)
{
	int r = 0;

	if (!probes_unit_loaded(p, UNIT_TASKS) || !probes_unit_loaded(p, UNIT_SYSACCT)) {
		snprintf(why, n, "the process and syscall programs were not loaded at start");
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof(classes) / sizeof(*classes); i++) {
		int nr = syscalls_nr(classes[i].name);

		if (nr >= 0 && (r = sys_info_update(p, nr, NULL, &classes[i].cls)) < 0) {
			snprintf(why, n, "sys_info map: %s", strerror(-r));
			return r;
		}
	}
	/* exit first: an entry without its exit would leave state behind */
	r = attach_one(p, UNIT_SYSACCT, "sys_exit", why, n);
	if (r >= 0 && enter)
		r = attach_one(p, UNIT_SYSACCT, "sys_enter", why, n);
	for (size_t i = 0; r >= 0 && i < sizeof(follow_tps) / sizeof(*follow_tps); i++)
		r = attach_one(p, UNIT_TASKS, follow_tps[i], why, n);
	return r;
}

static bool read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)n, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* ppid from /proc/PID/stat: after the last ')' of comm come state and ppid. */
static uint32_t read_ppid(const char *pid)
{
	char path[64], buf[512], *p;
	unsigned int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if (!read_line(path, buf, sizeof(buf)) || !(p = strrchr(buf, ')')))
		return 0;
	return sscanf(p + 1, " %*c %u", &ppid) == 1 ? ppid : 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static bool seed_one(struct probes *p, const char *pid, const struct procs_seed *seed,
		     const struct procs_ctl *ctl)
{
	char path[64], comm[32];
	uint32_t key = (uint32_t)strtoul(pid, NULL, 10), flags = 0, old = 0;
	int fd = probes_map_fd(p, "procs");

	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	if (fd < 0 || !read_line(path, comm, sizeof(comm)))
		return false;
	if (ctl->smbd && strcmp(comm, "smbd") == 0)
		flags |= PROC_SMBD | (ctl->acct_smbd ? PROC_ACCT : 0);
	if (ctl->acct_comm[0] && strncmp(comm, ctl->acct_comm, sizeof(ctl->acct_comm)) == 0)
		flags |= PROC_ACCT;
	if (seed->acct_pid && key == seed->acct_pid)
		flags |= PROC_ACCT | PROC_ACCT_KEEP;
	if (!flags)
		return false;
	(void)bpf_map_lookup_elem(fd, &key, &old);
	flags |= old;
	if (bpf_map_update_elem(fd, &key, &flags, BPF_ANY) < 0)
		return false;
	if (flags & PROC_SMBD) {
		/* calloc: the value is larger than a stack frame should carry */
		struct smbd_proc *v = calloc(1, sizeof(*v));
		int sfd = probes_map_fd(p, "smbd_procs");

		if (v && sfd >= 0) {
			v->start_ns = mono_ns();
			v->ppid = read_ppid(pid);
			/* one the kernel side met already knows more */
			(void)bpf_map_update_elem(sfd, &key, v, BPF_NOEXIST);
		}
		free(v);
	}
	return true;
}

int procs_seed(struct probes *p, const struct procs_seed *seed)
{
	const struct procs_ctl *ctl = probes_procs_ctl(p);
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]) && (uint32_t)atoi(de->d_name) != (uint32_t)getpid())
			n += seed_one(p, de->d_name, seed, ctl);
	closedir(d);
	return n;
}

void procs_list(struct probes *p, FILE *out, const char *function, enum layer_id l)
{
	static const struct {
		enum prog_unit unit;
		const char *tp;
	} tps[] = {
		{ UNIT_SYSACCT, "sys_enter" }, { UNIT_SYSACCT, "sys_exit" },
		{ UNIT_TASKS, "sched_process_exec" }, { UNIT_TASKS, "sched_process_fork" },
		{ UNIT_TASKS, "sched_process_exit" },
	};

	for (size_t i = 0; i < sizeof(tps) / sizeof(*tps); i++) {
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
