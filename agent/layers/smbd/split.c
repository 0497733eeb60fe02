// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * smbd's time split (tsmbd's report): per smbd process and interval, what
 * its event loop thread spent its wall time on, in phases that add up to
 * it (bpf/smbd.h, enum split_phase): waiting for events, receiving,
 * parsing, running SMB2 requests, sending, waiting for ctdb, the rest;
 * besides, over all its threads, time in syscalls and in disk reads and
 * writes; and counts of tevent events, SMB2 requests and ctdb calls.
 * Which function or syscall marks each phase: smblat(8), SMBD VIEWS.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <bpf/bpf.h>

#include "base/log.h"
#include "layers/procs/procs.h"
#include "layers/smbd/views.h"
#include "layers/smbd/settings.h"
#include "sinks/journal.h"
#include "symbols/usyms.h"
#include "base/macro.h"
#include "base/clock.h"

#define NAME "smbd"

static const char *const phase_names[_SPLIT_MAX] = {
	[SPLIT_OTHER] = "other",
	[SPLIT_WAIT] = "waiting for events",
	[SPLIT_RECV] = "receiving",
	[SPLIT_PARSE] = "parsing",
	[SPLIT_RUN] = "running SMB2 requests",
	[SPLIT_SEND] = "sending",
	[SPLIT_CTDB] = "waiting for ctdb",
	[SPLIT_RUN_IO] = "  of which their disk I/O",
};
static const char *const phase_fields[_SPLIT_MAX] = {
	[SPLIT_OTHER] = "OTHER_US", [SPLIT_WAIT] = "WAIT_US",     [SPLIT_RECV] = "RECV_US",
	[SPLIT_PARSE] = "PARSE_US", [SPLIT_RUN] = "RUN_US",       [SPLIT_SEND] = "SEND_US",
	[SPLIT_CTDB] = "CTDB_US",   [SPLIT_RUN_IO] = "RUN_IO_US",
};
static const char *const count_fields[_SPLIT_N_MAX] = {
	[SPLIT_N_FD] = "EVENTS_FD",
	[SPLIT_N_TIMER] = "EVENTS_TIMER",
	[SPLIT_N_IMMEDIATE] = "EVENTS_IMMEDIATE",
	[SPLIT_N_SIGNAL] = "EVENTS_SIGNAL",
	[SPLIT_N_REQUESTS] = "REQUESTS",
	[SPLIT_N_CTDB] = "CTDB_CALLS",
	[SPLIT_N_RECV] = "RECVS",
	[SPLIT_N_SEND] = "SENDS",
};

/* The split's programs (bpf/smbdviews.bpf.c), each a uprobe and its uprobe.multi twin. */
static const struct uprog_pair split_dispatch_prog = UPROG_PAIR(smbd_split_dispatch,
								umulti_smbd_split_dispatch);
static const struct uprog_pair split_dispatch_ret_prog = UPROG_PAIR(smbd_split_dispatch_ret,
								    umulti_smbd_split_dispatch_ret);
static const struct uprog_pair split_event_prog = UPROG_PAIR(smbd_split_event, umulti_smbd_split_event);
static const struct uprog_pair split_ctdb_prog = UPROG_PAIR(smbd_split_ctdb, umulti_smbd_split_ctdb);
static const struct uprog_pair split_ctdb_ret_prog = UPROG_PAIR(smbd_split_ctdb_ret,
								umulti_smbd_split_ctdb_ret);
static const struct uprog_pair split_io_send_prog = UPROG_PAIR(smbd_split_io_send, umulti_smbd_split_io_send);
static const struct uprog_pair split_io_recv_prog = UPROG_PAIR(smbd_split_io_recv, umulti_smbd_split_io_recv);

/* What a loop thread had at the last summary. */
struct thread_prev {
	uint32_t tid;
	bool seen;
	uint64_t at_ns;
	uint64_t cum[_SPLIT_MAX];
	uint64_t n[_SPLIT_N_MAX];
};

/* Per process: the interval's share, and the cumulative counters it came from. */
struct proc_split {
	uint32_t tgid;
	bool seen;
	unsigned int threads;
	uint64_t wall_ns;
	uint64_t phase[_SPLIT_MAX];
	uint64_t n[_SPLIT_N_MAX];
	/* smbd_procs: now, and at the last summary */
	uint64_t sys[6], sys_prev[6];
	char client[80];
};

struct smbd_split {
	struct thread_prev *t;
	size_t nt;
	struct proc_split *p;
	size_t np;
};

int smbd_split_new(struct smbd_split **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

void smbd_split_free(struct smbd_split *s)
{
	if (!s)
		return;
	free(s->t);
	free(s->p);
	free(s);
}

/* ---- attaching ---- */

static const char *const dispatch[] = { "smbd_smb2_request_dispatch" };
static const char *const handlers[] = {
	"tevent_common_invoke_fd_handler",
	"tevent_common_invoke_timer_handler",
	"tevent_common_invoke_immediate_handler",
	"tevent_common_invoke_signal_handler",
};
static const uint64_t handler_kinds[] = { SPLIT_N_FD, SPLIT_N_TIMER, SPLIT_N_IMMEDIATE, SPLIT_N_SIGNAL };
/* the synchronous ones: smbd waits in them for ctdbd's answer */
static const char *const ctdbd[] = {
	"ctdbd_migrate",   "ctdbd_parse",  "ctdbd_traverse",       "ctdbd_control_local",
	"ctdbd_db_attach", "ctdbd_dbpath", "ctdbd_process_exists", "ctdbd_probe",
};

/*
 * Asynchronous disk I/O: sent to a worker thread, its result taken later.
 * The receive is a macro's function before Samba 4.25 (SMB_VFS_PREAD_RECV)
 * and a VFS call of its own from 4.25 on (smb_vfs_call_pread_recv): the
 * one the library exports is hooked.
 */
static const char *const io_kinds[] = { "pread", "pwrite", "fsync", "getxattrat" };

/* The exported function of lib among "smb_vfs_call_KIND_recv" and "SMB_VFS_KIND_RECV", in name (size n). */
static bool io_recv_name(const struct layer_env *env, const char *lib, const char *kind, char *name, size_t n)
{
	uint64_t off;
	size_t k;

	snprintf(name, n, "smb_vfs_call_%s_recv", kind);
	if (usyms_resolve(env->us, lib, name, &off) == 0)
		return true;
	k = (size_t)snprintf(name, n, "SMB_VFS_%s_RECV", kind);
	for (size_t i = 0; i < k && i < n; i++)
		name[i] = (char)toupper((unsigned char)name[i]);
	return usyms_resolve(env->us, lib, name, &off) == 0;
}

/* "a, b" lists: one more item. */
static void list_add(char *list, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void list_add(char *list, size_t size, const char *fmt, ...)
{
	size_t m = strlen(list);
	va_list ap;

	if (m >= size)
		return;
	if (m)
		m += (size_t)snprintf(list + m, size - m, ", ");
	if (m >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(list + m, size - m, fmt, ap);
	va_end(ap);
}

/*
 * The sends and receives of the kinds of I/O whose both ends smbd exports:
 * a send counted without its receive would leave the loop "running" for good.
 */
static void io_attach(const struct layer_env *env, const struct smbd_places *pl, struct func *f,
		      char *missing, size_t msize)
{
	char send_names[ELEMENTSOF(io_kinds)][64], recv_names[ELEMENTSOF(io_kinds)][64];
	const char *send[ELEMENTSOF(io_kinds)], *recv[ELEMENTSOF(io_kinds)];
	size_t k = 0;
	uint64_t off;

	for (size_t i = 0; i < ELEMENTSOF(io_kinds); i++) {
		bool has_send, has_recv;

		snprintf(send_names[k], sizeof(send_names[k]), "smb_vfs_call_%s_send", io_kinds[i]);
		has_send = usyms_resolve(env->us, pl->lib, send_names[k], &off) == 0;
		has_recv = io_recv_name(env, pl->lib, io_kinds[i], recv_names[k], sizeof(recv_names[k]));
		if (!has_send || !has_recv) {
			list_add(missing, msize, "%s%s%s (the disk I/O of %s)", has_send ? "" : send_names[k],
				 !has_send && !has_recv ? " and " : "", has_recv ? "" : recv_names[k],
				 io_kinds[i]);
			continue;
		}
		send[k] = send_names[k];
		recv[k] = recv_names[k];
		k++;
	}
	if (k && smbd_hook(env, f, &split_io_recv_prog, pl->lib, recv, NULL, k, false, missing, msize) > 0)
		(void)smbd_hook(env, f, &split_io_send_prog, pl->lib, send, NULL, k, false, missing, msize);
}

static int split_attach(const struct layer_env *env, const struct smbd_places *pl, struct func *f,
			char *missing, size_t msize)
{
	int r;

	/* returns first: an entry without its return would leave a phase open */
	r = smbd_hook(env, f, &split_dispatch_ret_prog, pl->lib, dispatch, NULL, 1, true, missing, msize);
	if (r >= 0)
		r = smbd_hook(env, f, &split_dispatch_prog, pl->lib, dispatch, NULL, 1, false, missing,
			      msize);
	if (r < 0)
		return r;
	io_attach(env, pl, f, missing, msize);
	if (pl->tevent)
		(void)smbd_hook(env, f, &split_event_prog, pl->tevent, handlers, handler_kinds,
				ELEMENTSOF(handlers), false, missing, msize);
	if (pl->cluster && smbd_hook(env, f, &split_ctdb_ret_prog, pl->cluster, ctdbd, NULL,
				     ELEMENTSOF(ctdbd), true, missing, msize) > 0)
		(void)smbd_hook(env, f, &split_ctdb_prog, pl->cluster, ctdbd, NULL, ELEMENTSOF(ctdbd), false,
				missing, msize);
	return 0;
}

void smbd_split_sync(struct smbd_split *s, const struct layer_env *env, const struct smbd_places *pl)
{
	struct procs_ctl *ctl = procs_ctl(env->probes);
	char target[512], missing[512] = "", buf[256];
	bool want = smbd_settings(env->cfg)->split;
	struct func *f;
	int r;

	snprintf(target, sizeof(target), "%s:smbd_smb2_request_dispatch", pl->lib);
	f = smbd_view_func(env, "SMBD_TIME_SPLIT", want ? target : NULL);
	if (!f)
		return;
	if (func_attached(f) && !want) {
		smbd_split_detach(s, env, FUNC_DISABLED);
		return;
	}
	if (func_attached(f) || !want)
		return;
	f->cfg = (struct func_cfg) { .flags = FF_ENABLED, .threshold_ns = UINT64_MAX };
	probes_update(env->probes, f);
	r = split_attach(env, pl, f, missing, sizeof(missing));
	if (r < 0) {
		probes_detach(env->probes, f, FUNC_NOT_FOUND, NULL);
		func_set_state(f, r == -ENOENT ? FUNC_NOT_FOUND : FUNC_FAILED, "%s: %s", pl->lib,
			       r == -ENOENT ? "no smbd_smb2_request_dispatch" : strerror(-r));
		log_layer(NAME, STATUS_PROBE_FAILED, r == -ENOENT ? REASON_NOT_FOUND : REASON_ATTACH_FAILED,
			  LOG_WARNING, "SMBD_TIME_SPLIT not attached: %s",
			  func_state_text(f, buf, sizeof(buf)));
		return;
	}
	if (*missing)
		log_layer(NAME, STATUS_AGENT_DEGRADED, REASON_NOT_FOUND, LOG_NOTICE,
			  "SMBD_TIME_SPLIT: %s (%s) lacks %s; attached without", pl->lib, pl->version,
			  missing);
	ctl->split_since_ns = now_ns();
	ctl->split = 1;
}

unsigned int smbd_split_detach(struct smbd_split *s, const struct layer_env *env, enum func_state why)
{
	struct func *f = smbd_view_func(env, "SMBD_TIME_SPLIT", NULL);

	procs_ctl(env->probes)->split = 0;
	if (!f || !func_attached(f))
		return 0;
	probes_detach(env->probes, f, why, NULL);
	return 1;
}

/* ---- reading ---- */

static struct thread_prev *thread_prev(struct smbd_split *s, uint32_t tid)
{
	struct thread_prev *v;

	for (size_t i = 0; i < s->nt; i++)
		if (s->t[i].tid == tid)
			return &s->t[i];
	v = realloc(s->t, (s->nt + 1) * sizeof(*v));
	if (!v)
		return NULL;
	s->t = v;
	v[s->nt] = (struct thread_prev) { .tid = tid };
	return &v[s->nt++];
}

static struct proc_split *proc_split(struct smbd_split *s, uint32_t tgid)
{
	struct proc_split *v;

	for (size_t i = 0; i < s->np; i++)
		if (s->p[i].tgid == tgid)
			return &s->p[i];
	v = realloc(s->p, (s->np + 1) * sizeof(*v));
	if (!v)
		return NULL;
	s->p = v;
	v[s->np] = (struct proc_split) { .tgid = tgid };
	return &v[s->np++];
}

/*
 * One loop thread's share of the interval: its phases now (the one in
 * force counted up to now), less what the last summary took.
 */
static void thread_read(struct smbd_split *s, uint32_t tid, const struct split_thread *st, uint64_t now)
{
	struct thread_prev *t = thread_prev(s, tid);
	struct proc_split *p = proc_split(s, st->tgid);
	uint64_t from;

	if (!t || !p)
		return;
	if (st->dead_ns)
		now = st->dead_ns;
	from = t->at_ns > st->first_ns ? t->at_ns : st->first_ns;
	t->seen = p->seen = true;
	p->threads++;
	p->wall_ns += now > from ? now - from : 0;
	for (int i = 0; i < _SPLIT_MAX; i++) {
		uint64_t cum = st->acc_ns[i] + (i == st->cur && now > st->since_ns ? now - st->since_ns : 0);

		p->phase[i] += cum > t->cum[i] ? cum - t->cum[i] : 0;
		t->cum[i] = cum;
	}
	for (int i = 0; i < _SPLIT_N_MAX; i++) {
		p->n[i] += st->n[i] - t->n[i];
		t->n[i] = st->n[i];
	}
	t->at_ns = now;
}

static void peer_text(const struct smbd_proc *sp, char *buf, size_t n)
{
	const uint8_t *a = sp->peer;
	uint16_t family;

	buf[0] = '\0';
	if (!sp->peer_len)
		return;
	memcpy(&family, a, sizeof(family));
	if (family == 2)
		snprintf(buf, n, "%u.%u.%u.%u:%u", a[4], a[5], a[6], a[7], a[2] << 8 | a[3]);
	else if (family == 10)
		snprintf(buf, n,
			 "[%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x]:%u", a[8],
			 a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20],
			 a[21], a[22], a[23], a[2] << 8 | a[3]);
}

static void procs_read(struct smbd_split *s, const struct layer_env *env)
{
	int fd = bpf_map__fd(probes_skel(env->probes)->maps.smbd_procs);
	struct smbd_proc *sp = calloc(1, sizeof(*sp));

	for (size_t i = 0; sp && fd >= 0 && i < s->np; i++) {
		struct proc_split *p = &s->p[i];

		if (bpf_map_lookup_elem(fd, &p->tgid, sp) < 0)
			continue;
		if (sp->dead_ns)
			(void)bpf_map_delete_elem(fd, &p->tgid);
		memcpy(p->sys_prev, p->sys, sizeof(p->sys));
		p->sys[0] = sp->syscall_ns;
		p->sys[1] = sp->syscalls;
		p->sys[2] = sp->disk_read_ns;
		p->sys[3] = sp->disk_reads;
		p->sys[4] = sp->disk_write_ns;
		p->sys[5] = sp->disk_writes;
		peer_text(sp, p->client, sizeof(p->client));
	}
	free(sp);
}

/* Every loop thread's map entry into the processes' interval shares. */
static void split_read(struct smbd_split *s, const struct layer_env *env)
{
	int fd = bpf_map__fd(probes_skel(env->probes)->maps.split_threads);
	uint32_t key, next, *prev = NULL;
	struct split_thread st;
	uint64_t now;
	size_t k = 0;

	/* the next interval begins: threads met from now on count from here */
	procs_ctl(env->probes)->split_since_ns = now = now_ns();

	for (size_t i = 0; i < s->np; i++) {
		struct proc_split keep = { .tgid = s->p[i].tgid };

		memcpy(keep.sys, s->p[i].sys, sizeof(keep.sys));
		s->p[i] = keep;
	}
	for (size_t i = 0; i < s->nt; i++)
		s->t[i].seen = false;
	uint32_t *dead = NULL;
	size_t nd = 0;

	while (fd >= 0 && bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &st) < 0)
			continue;
		thread_read(s, key, &st, now);
		if (st.dead_ns) {
			uint32_t *v = realloc(dead, (nd + 1) * sizeof(*v));

			if (v) {
				dead = v;
				dead[nd++] = key;
			}
		}
	}
	/* taken after the walk: deleting during it would restart it */
	for (size_t i = 0; i < nd; i++)
		(void)bpf_map_delete_elem(fd, &dead[i]);
	free(dead);
	/* threads and processes gone leave their state behind */
	for (size_t i = 0; i < s->nt; i++)
		if (s->t[i].seen)
			s->t[k++] = s->t[i];
	s->nt = k;
	k = 0;
	for (size_t i = 0; i < s->np; i++)
		if (s->p[i].seen)
			s->p[k++] = s->p[i];
	s->np = k;
	procs_read(s, env);
}

/* ---- writing ---- */

static uint64_t sys_delta(const struct proc_split *p, int i)
{
	return p->sys[i] >= p->sys_prev[i] ? p->sys[i] - p->sys_prev[i] : 0;
}

static uint64_t events(const struct proc_split *p)
{
	return p->n[SPLIT_N_FD] + p->n[SPLIT_N_TIMER] + p->n[SPLIT_N_IMMEDIATE] + p->n[SPLIT_N_SIGNAL];
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * part / whole : 0;
}

static uint64_t entry_events(const struct smbd_split_entry *e)
{
	return e->n[SPLIT_N_FD] + e->n[SPLIT_N_TIMER] + e->n[SPLIT_N_IMMEDIATE] + e->n[SPLIT_N_SIGNAL];
}

/*
 * Running requests includes the loop's waits for their disk I/O in worker
 * threads: the phases reported (RUN_IO_US a part of RUN_US) add up.
 */
static uint64_t phase_total(const uint64_t *phase, int i)
{
	return phase[i] + (i == SPLIT_RUN ? phase[SPLIT_RUN_IO] : 0);
}

#define ENTRY_FIELDS 40

/* The fields (values in v[]) and MESSAGE of an entry; returns how many, or -ENOMEM. */
static int entry_build(const struct smbd_split_entry *e, struct record_field *f, char v[][32], char **msg)
{
	int n = 0;

#define ADD(name, fmt, ...)                                  \
	do {                                                 \
		snprintf(v[n], 32, fmt, __VA_ARGS__);        \
		f[n] = (struct record_field) { name, v[n] }; \
		n++;                                         \
	} while (0)
	ADD("PID", "%" PRIu32, e->pid);
	ADD("INTERVAL_S", "%.3f", e->interval_s);
	ADD("WALL_US", "%" PRIu64, e->wall_ns / 1000);
	for (int i = 0; i < _SPLIT_MAX; i++)
		ADD(phase_fields[i], "%" PRIu64, phase_total(e->phase_ns, i) / 1000);
	ADD("SYSCALL_US", "%" PRIu64, e->syscall_ns / 1000);
	ADD("SYSCALLS", "%" PRIu64, e->syscalls);
	ADD("DISK_READ_US", "%" PRIu64, e->read_ns / 1000);
	ADD("DISK_READS", "%" PRIu64, e->reads);
	ADD("DISK_WRITE_US", "%" PRIu64, e->write_ns / 1000);
	ADD("DISK_WRITES", "%" PRIu64, e->writes);
	ADD("EVENTS", "%" PRIu64, entry_events(e));
	for (int i = 0; i < _SPLIT_N_MAX; i++)
		ADD(count_fields[i], "%" PRIu64, e->n[i]);
	ADD("LOOP_THREADS", "%u", e->threads);
#undef ADD
	if (e->client && *e->client)
		f[n++] = (struct record_field) { "SMB_CLIENT", (char *)e->client };
	if (asprintf(msg,
		     "smbd[%u] over %.1f s: waiting %.1f %%, receiving %.1f %%, parsing %.1f %%, "
		     "running requests %.1f %% (their disk I/O %.1f %%), sending %.1f %%, ctdb %.1f %%, "
		     "other %.1f %%; %" PRIu64 " %s, %" PRIu64
		     " %s, %.3f s in syscalls, disk read %.3f s, write %.3f s",
		     e->pid, e->wall_ns / 1e9, pct(e->phase_ns[SPLIT_WAIT], e->wall_ns),
		     pct(e->phase_ns[SPLIT_RECV], e->wall_ns), pct(e->phase_ns[SPLIT_PARSE], e->wall_ns),
		     pct(phase_total(e->phase_ns, SPLIT_RUN), e->wall_ns),
		     pct(e->phase_ns[SPLIT_RUN_IO], e->wall_ns), pct(e->phase_ns[SPLIT_SEND], e->wall_ns),
		     pct(e->phase_ns[SPLIT_CTDB], e->wall_ns), pct(e->phase_ns[SPLIT_OTHER], e->wall_ns),
		     e->n[SPLIT_N_REQUESTS], PLURAL(e->n[SPLIT_N_REQUESTS], "request", "requests"),
		     entry_events(e), PLURAL(entry_events(e), "event", "events"), e->syscall_ns / 1e9,
		     e->read_ns / 1e9, e->write_ns / 1e9) < 0)
		return -ENOMEM;
	return n;
}

int smbd_split_write(struct journal *j, const struct smbd_split_entry *e)
{
	struct record_field f[ENTRY_FIELDS];
	char v[ENTRY_FIELDS][32], *msg = NULL;
	int n = entry_build(e, f, v, &msg);

	if (n >= 0)
		n = journal_write_view(j, "SMBD_TIME_SPLIT", LAYER_SMBD, SMBLAT_MID_SPLIT, msg, f,
				       (unsigned int)n);
	free(msg);
	return n;
}

int smbd_split_fields(const struct smbd_split_entry *e, char ***fields)
{
	struct record_field f[ENTRY_FIELDS];
	char v[ENTRY_FIELDS][32], *msg = NULL;
	int n = entry_build(e, f, v, &msg);

	if (n >= 0)
		n = journal_view_fields("SMBD_TIME_SPLIT", LAYER_SMBD, SMBLAT_MID_SPLIT, msg, f,
					(unsigned int)n, fields);
	free(msg);
	return n;
}

static struct smbd_split_entry entry_of(const struct proc_split *p, double interval_s)
{
	struct smbd_split_entry e = {
		.pid = p->tgid,
		.interval_s = interval_s,
		.threads = p->threads,
		.wall_ns = p->wall_ns,
		.syscall_ns = sys_delta(p, 0),
		.syscalls = sys_delta(p, 1),
		.read_ns = sys_delta(p, 2),
		.reads = sys_delta(p, 3),
		.write_ns = sys_delta(p, 4),
		.writes = sys_delta(p, 5),
		.client = p->client,
	};

	memcpy(e.phase_ns, p->phase, sizeof(e.phase_ns));
	memcpy(e.n, p->n, sizeof(e.n));
	return e;
}

static const int print_order[] = {
	SPLIT_WAIT, SPLIT_RECV, SPLIT_PARSE, SPLIT_RUN, SPLIT_RUN_IO, SPLIT_SEND, SPLIT_CTDB, SPLIT_OTHER,
};

/* tsmbd's layout: the phases, then the time that overlaps them, then the counts. */
static void split_print(FILE *out, const struct proc_split *p)
{
	uint64_t sum = 0;

	fprintf(out, "smbd %u%s%s: %.3f s wall time, %u loop thread%s\n", p->tgid,
		*p->client ? ", client " : "", p->client, p->wall_ns / 1e9, p->threads,
		p->threads == 1 ? "" : "s");
	for (size_t i = 0; i < ELEMENTSOF(print_order); i++) {
		int ph = print_order[i];
		uint64_t t = phase_total(p->phase, ph);

		/* the disk I/O wait is a part of running requests */
		sum += ph == SPLIT_RUN_IO ? 0 : t;
		fprintf(out, "  %-24s %12.6f s %7.2f %%\n", phase_names[ph], t / 1e9, pct(t, p->wall_ns));
	}
	fprintf(out, "  %-24s %12.6f s %7.2f %%\n", "(phases together)", sum / 1e9, pct(sum, p->wall_ns));
	fprintf(out, "  %-24s %12.6f s  %" PRIu64 " %s, all threads\n", "time in syscalls",
		sys_delta(p, 0) / 1e9, sys_delta(p, 1), PLURAL(sys_delta(p, 1), "call", "calls"));
	fprintf(out, "  %-24s %12.6f s  %" PRIu64 " %s\n", "disk read", sys_delta(p, 2) / 1e9,
		sys_delta(p, 3), PLURAL(sys_delta(p, 3), "call", "calls"));
	fprintf(out, "  %-24s %12.6f s  %" PRIu64 " %s\n", "disk write", sys_delta(p, 4) / 1e9,
		sys_delta(p, 5), PLURAL(sys_delta(p, 5), "call", "calls"));
	fprintf(out,
		"  tevent events %" PRIu64 " (fd %" PRIu64 ", timer %" PRIu64 ", immediate %" PRIu64
		", signal %" PRIu64 "), SMB2 requests %" PRIu64 ", ctdb requests %" PRIu64 "\n",
		events(p), p->n[SPLIT_N_FD], p->n[SPLIT_N_TIMER], p->n[SPLIT_N_IMMEDIATE],
		p->n[SPLIT_N_SIGNAL], p->n[SPLIT_N_REQUESTS], p->n[SPLIT_N_CTDB]);
}

void smbd_split_summarize(struct smbd_split *s, const struct layer_env *env, const struct summary_out *out)
{
	const struct config *c = env->cfg;
	struct func *f = smbd_view_func(env, "SMBD_TIME_SPLIT", NULL);

	if (!f || !func_attached(f))
		return;
	split_read(s, env);
	for (size_t i = 0; i < s->np; i++) {
		const struct proc_split *p = &s->p[i];

		/* an idle smbd (the parent, a quiet client) says nothing new */
		if (!events(p) && !p->n[SPLIT_N_REQUESTS] && !p->n[SPLIT_N_RECV])
			continue;
		if (c->pid && p->tgid != c->pid)
			continue;
		if (out->journal) {
			struct smbd_split_entry e = entry_of(p, out->interval_s);

			smbd_split_write(out->journal, &e);
		} else
			split_print(out->table, p);
	}
}
