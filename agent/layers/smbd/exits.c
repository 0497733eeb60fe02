// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Why smbd dropped a client: an SMBD_EXIT entry for every smbd process that
 * exits (its lifetime as latency), with what smbd said on the way out (the
 * first NT status a connection was disconnected with, the termination's
 * reason and source location, exit_server's explanation and user stack),
 * the client's address and the last syscall that failed; and oplock and
 * lease breaks from sent to answered (SMBD_OPLOCK_BREAK, SMBD_LEASE_BREAK).
 * The kernel side gathers it per process (bpf/smbdviews.bpf.c,
 * bpf/sysacct.bpf.c) and writes the exit at the process's end
 * (bpf/tasks.bpf.c), so a killed smbd has its entry too.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "base/log.h"
#include "base/syscalls.h"
#include "base/units.h"
#include "decode/event.h"
#include "decode/stack.h"
#include "decode/smb2.h"
#include "layers/procs/procs.h"
#include "layers/smbd/views.h"
#include "layers/smbd/settings.h"
#include "sinks/journal.h"
#include "symbols/usyms.h"
#include "base/macro.h"

#define NAME "smbd"

struct hook {
	struct uprog_pair prog;
	const char *const *syms;
	size_t n;
	const uint64_t *cookies;
	bool ret;
	bool required; /* the view means nothing without it */
};

#define HOOK(prog, syms, cookies, ret, required)                     \
	{                                                            \
		prog, syms, ELEMENTSOF(syms), cookies, ret, required \
	}

static const char *const add_conn[] = { "smbd_add_connection" };
static const char *const disconnect[] = { "smbXsrv_connection_disconnect_transport" };
static const char *const terminate[] = { "smbd_server_connection_terminate_ex" };
static const char *const exit_server[] = { "smbd_exit_server", "smbd_exit_server_cleanly" };
static const uint64_t exit_how[] = { 1, 2 };
static const char *const oplock_send[] = { "smbd_smb2_send_oplock_break" };
static const char *const oplock_done[] = { "remove_oplock", "downgrade_oplock" };
static const char *const oplock_answer[] = { "smbd_smb2_request_process_break",
					     "smbd_smb2_request_process_close" };
static const char *const lease_send[] = { "smbd_smb2_send_lease_break" };
static const char *const lease_done[] = { "downgrade_lease" };

static const struct hook exit_hooks[] = {
	HOOK(UPROG_PAIR(smbd_exit_server, umulti_smbd_exit_server), exit_server, exit_how, false, true),
	HOOK(UPROG_PAIR(smbd_exit_conn, umulti_smbd_exit_conn), add_conn, NULL, false, false),
	HOOK(UPROG_PAIR(smbd_exit_disconnect, umulti_smbd_exit_disconnect), disconnect, NULL, false, false),
	HOOK(UPROG_PAIR(smbd_exit_terminate, umulti_smbd_exit_terminate), terminate, NULL, false, false),
};
/* where uprobe programs may sleep: the strings are read by programs that fault their pages in */
static const struct hook exit_hooks_sleep[] = {
	HOOK(UPROG_PAIR(smbd_exit_server, umulti_smbd_exit_server), exit_server, exit_how, false, true),
	HOOK(UPROG_PAIR(smbd_exit_server_sleep, umulti_smbd_exit_server_sleep), exit_server, NULL, false,
	     false),
	HOOK(UPROG_PAIR(smbd_exit_conn, umulti_smbd_exit_conn), add_conn, NULL, false, false),
	HOOK(UPROG_PAIR(smbd_exit_disconnect, umulti_smbd_exit_disconnect), disconnect, NULL, false, false),
	HOOK(UPROG_PAIR(smbd_exit_terminate_sleep, umulti_smbd_exit_terminate_sleep), terminate, NULL, false,
	     false),
};
static const struct hook oplock_hooks[] = {
	/* first: every break sent once the others are on sees the BREAK or CLOSE answering it */
	HOOK(UPROG_PAIR(smbd_break_answer, umulti_smbd_break_answer), oplock_answer, NULL, false, true),
	HOOK(UPROG_PAIR(smbd_break_oplock, umulti_smbd_break_oplock), oplock_send, NULL, false, true),
	HOOK(UPROG_PAIR(smbd_break_oplock_done, umulti_smbd_break_oplock_done), oplock_done, NULL, false,
	     true),
};
static const struct hook lease_hooks[] = {
	HOOK(UPROG_PAIR(smbd_break_lease, umulti_smbd_break_lease), lease_send, NULL, false, true),
	HOOK(UPROG_PAIR(smbd_break_lease_done, umulti_smbd_break_lease_done), lease_done, NULL, false, true),
};

struct func *smbd_view_func(const struct layer_env *env, const char *name, const char *target)
{
	struct func_table *t = env->funcs;
	int id;

	for (uint32_t i = 0; i < t->n; i++)
		if (t->v[i].layer == LAYER_SMBD && strcmp(t->v[i].name, name) == 0)
			return &t->v[i];
	if (!target)
		return NULL;
	id = func_table_add(t, LAYER_SMBD, GROUP_NONE, name, target, NULL);
	return id < 0 ? NULL : &t->v[id];
}

int smbd_hook(const struct layer_env *env, struct func *f, const struct uprog_pair *prog, const char *file,
	      const char *const *syms, const uint64_t *cookies, size_t n, bool ret, char *missing,
	      size_t msize)
{
	uint64_t offsets[8], cks[8];
	size_t k = 0, m = strlen(missing);
	int r;

	for (size_t i = 0; i < n && k < 8; i++) {
		if (usyms_resolve(env->us, file, syms[i], &offsets[k]) < 0) {
			if (m < msize)
				m += (size_t)snprintf(missing + m, msize - m, "%s%s", m ? ", " : "", syms[i]);
			continue;
		}
		cks[k++] = cookies ? cookies[i] : 0;
	}
	if (!k)
		return -ENOENT;
	r = probes_attach_uprobe_set(env->probes, f, prog, file, offsets, cks, (uint32_t)k, ret);
	return r < 0 ? r : (int)k;
}

/* f on its hooks in file; false (f detached, why said) when a required one is missing. */
static bool view_attach(const struct layer_env *env, struct func *f, const struct smbd_places *pl,
			const struct hook *h, size_t nh)
{
	const char *file = pl->lib;
	char missing[256] = "", buf[256];
	int r = 0;

	for (size_t i = 0; i < nh; i++) {
		r = smbd_hook(env, f, &h[i].prog, file, h[i].syms, h[i].cookies, h[i].n, h[i].ret, missing,
			      sizeof(missing));
		if (r < 0 && h[i].required)
			break;
		r = 0;
	}
	if (r < 0) {
		probes_detach(env->probes, f, FUNC_NOT_FOUND, NULL);
		func_set_state(f, r == -ENOENT ? FUNC_NOT_FOUND : FUNC_FAILED, "%s: %s", file,
			       r == -ENOENT ? "does not export what it needs" : strerror(-r));
		log_layer(NAME, STATUS_PROBE_FAILED, r == -ENOENT ? REASON_NOT_FOUND : REASON_ATTACH_FAILED,
			  LOG_WARNING, "%s not attached: %s", f->name, func_state_text(f, buf, sizeof(buf)));
		return false;
	}
	if (*missing)
		log_layer(NAME, STATUS_AGENT_DEGRADED, REASON_NOT_FOUND, LOG_NOTICE,
			  "%s: %s (%s) lacks %s; attached without", f->name, file, pl->version, missing);
	return true;
}

/* One view: attached when wanted and not yet, detached when attached and no more wanted. */
static void view_sync(const struct layer_env *env, const struct smbd_places *pl, const char *name,
		      const char *target, bool want, const struct hook *h, size_t nh, uint32_t *ctl_id)
{
	char t[512];
	struct func *f;

	snprintf(t, sizeof(t), "%s:%s", pl->lib, target);
	/* a view never wanted stays out of the table (and of --list-probes) */
	f = smbd_view_func(env, name, want ? t : NULL);
	if (!f)
		return;
	if (func_attached(f) && !want) {
		*ctl_id = 0;
		probes_detach(env->probes, f, FUNC_DISABLED, NULL);
		return;
	}
	if (func_attached(f) || !want)
		return;
	/* every exit and break is an entry: threshold 0 */
	f->cfg = (struct func_cfg) { .flags = FF_ENABLED, .ret_kind = RK_VOID };
	probes_update(env->probes, f);
	if (view_attach(env, f, pl, h, nh))
		*ctl_id = f->id + 1;
}

bool smbd_exits_sleep(const struct layer_env *env)
{
	const struct smblat_bpf *skel = probes_skel(env->probes);

	return bpf_program__fd(skel->progs.smbd_exit_server_sleep) >= 0 &&
	       bpf_program__fd(skel->progs.smbd_exit_terminate_sleep) >= 0;
}

void smbd_exits_sync(const struct layer_env *env, const struct smbd_places *pl)
{
	struct procs_ctl *ctl = procs_ctl(env->probes);
	const struct config *c = env->cfg;
	bool sleep = smbd_exits_sleep(env);

	ctl->str_sleep = sleep;
	view_sync(env, pl, "SMBD_EXIT", "smbd_exit_server", smbd_settings(c)->exits,
		  sleep ? exit_hooks_sleep : exit_hooks,
		  sleep ? ELEMENTSOF(exit_hooks_sleep) : ELEMENTSOF(exit_hooks), &ctl->exit_id);
	view_sync(env, pl, "SMBD_OPLOCK_BREAK", "smbd_smb2_send_oplock_break", smbd_settings(c)->breaks,
		  oplock_hooks, ELEMENTSOF(oplock_hooks), &ctl->oplock_id);
	view_sync(env, pl, "SMBD_LEASE_BREAK", "smbd_smb2_send_lease_break", smbd_settings(c)->breaks,
		  lease_hooks, ELEMENTSOF(lease_hooks), &ctl->lease_id);
}

unsigned int smbd_exits_detach(const struct layer_env *env, enum func_state why)
{
	static const char *const names[] = { "SMBD_EXIT", "SMBD_OPLOCK_BREAK", "SMBD_LEASE_BREAK" };
	struct procs_ctl *ctl = procs_ctl(env->probes);
	unsigned int n = 0;

	ctl->exit_id = ctl->oplock_id = ctl->lease_id = 0;
	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		struct func *f = smbd_view_func(env, names[i], NULL);

		if (f && func_attached(f)) {
			probes_detach(env->probes, f, why, NULL);
			n++;
		}
	}
	return n;
}

/* ---- decoding ---- */

/* "192.0.2.1:445", "[2001:db8::1]:445" from the sockaddr getpeername(2) filled; "" if none. */
static void peer_format(const struct rec_smbd_exit *e, char *buf, size_t n)
{
	const void *raw = e->peer;
	struct sockaddr_in6 a6;
	struct sockaddr_in a4;
	char ip[INET6_ADDRSTRLEN];
	uint16_t family;

	memcpy(&family, raw, sizeof(family));
	buf[0] = '\0';
	if (family == AF_INET) {
		memcpy(&a4, raw, sizeof(a4));
		if (inet_ntop(AF_INET, &a4.sin_addr, ip, sizeof(ip)))
			snprintf(buf, n, "%s:%u", ip, ntohs(a4.sin_port));
	} else if (family == AF_INET6) {
		memcpy(&a6, raw, sizeof(a6));
		if (inet_ntop(AF_INET6, &a6.sin6_addr, ip, sizeof(ip)))
			snprintf(buf, n, "[%s]:%u", ip, ntohs(a6.sin6_port));
	}
}

static void text_copy(char *dst, const char *src, size_t n)
{
	memcpy(dst, src, n - 1);
	dst[n - 1] = '\0';
	for (char *p = dst; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
}

/*
 * The hook that saw the exit, as TARGET: the one of smbd's two exit
 * functions that was called (the function's TARGET names the first), or,
 * for a process that called neither (killed, or exited otherwise), the
 * kernel's end of the process.
 */
static void exit_target(struct record *r, uint32_t how)
{
	const char *sym = r->func->symbol, *colon = sym ? strrchr(sym, ':') : NULL;

	if (how == 0)
		r->target = strdup("sched_process_exit");
	else if (how <= ELEMENTSOF(exit_server) && colon &&
		 asprintf(&r->target, "%.*s%s", (int)(colon + 1 - sym), sym, exit_server[how - 1]) < 0)
		r->target = NULL;
}

static int exit_decode(const struct layer_env *env, const struct rec_smbd_exit *e, struct record *r)
{
	static const char *const hows[] = { "none", "exit_server", "exit_server_cleanly" };
	char reason[SMBLAT_REASON_LEN], location[SMBLAT_REASON_LEN], peer[80], status[16], last[96] = "",
											   ago[32];
	uint32_t ppid = e->ppid, how = e->exit_how, unread = e->unread;
	uint32_t err_nr = e->last_err_nr, err = (uint32_t)e->last_err;
	int code = e->exit_code, sig = code & 0x7f;
	const char *st = e->status ? smb2_status_name(e->status, status, sizeof(status)) : NULL;
	/* the syscall's number + 1, 0: none; a larger one than any is no syscall's */
	const char *sysname = err_nr && err_nr <= INT_MAX ? syscalls_name((int)(err_nr - 1)) : NULL;
	const char *ename = err_nr ? strerrorname_np((int)err) : NULL;
	char *outcome = NULL;

	text_copy(reason, e->reason, sizeof(reason));
	text_copy(location, e->location, sizeof(location));
	peer_format(e, peer, sizeof(peer));
	r->message_id = SMBLAT_MID_EXIT;
	r->has_ret = false;
	if (*reason)
		record_add(r, "SMBD_EXIT_REASON", "%s", reason);
	record_add(r, "SMBD_EXIT_HOW", "%s", how < 3 ? hows[how] : "?");
	if (*location)
		record_add(r, "SMBD_EXIT_LOCATION", "%s", location);
	/* smbd handed them over, but their page was not in memory (a kernel without sleepable uprobes) */
	if (unread)
		record_add(r, "SMBD_EXIT_UNREAD", "%s%s%s", unread & SMBD_STR_REASON ? "reason" : "",
			   (unread & SMBD_STR_REASON) && (unread & SMBD_STR_LOCATION) ? " " : "",
			   unread & SMBD_STR_LOCATION ? "location" : "");
	if (st)
		record_add(r, "SMB_STATUS", "%s", st);
	if (*peer)
		record_add(r, "SMB_CLIENT", "%s", peer);
	if (sig) {
		record_add(r, "EXIT_SIGNAL", "%d", sig);
		if (sigabbrev_np(sig))
			record_add(r, "EXIT_SIGNAL_NAME", "SIG%s", sigabbrev_np(sig));
	} else {
		record_add(r, "EXIT_STATUS", "%d", (code >> 8) & 0xff);
	}
	if (err_nr) {
		if (sysname)
			record_add(r, "LAST_ERROR_SYSCALL", "%s", sysname);
		else
			record_add(r, "LAST_ERROR_SYSCALL", "%u", err_nr - 1);
		record_add(r, "LAST_ERROR_ERRNO", "%u", err);
		if (ename)
			record_add(r, "LAST_ERROR_ERRNO_NAME", "%s", ename);
		record_add(r, "LAST_ERROR_AGO_US", "%" PRIu64, e->last_err_ago_ns / 1000);
		snprintf(last, sizeof(last), "; last failed syscall %s (%s) %s ms before",
			 sysname ? sysname : "?", ename ? ename : "?",
			 units_ms(ago, sizeof(ago), e->last_err_ago_ns, 3));
	}
	if (ppid)
		record_add(r, "PPID", "%u", ppid);
	exit_target(r, how);
	/* smbd --version, -b, a daemon's helper: no client, nothing said, status 0 */
	r->routine = !*reason && !st && !*peer && !sig && !((code >> 8) & 0xff) && how != 1;
	/* a process gone before its stack was read: its parent has the same mappings (fork) */
	(void)event_decode_stacks(env->dec, &e->h, &e->st, ppid, r);
	if (asprintf(&outcome, "%s%s%s%s%s%s%s",
		     *reason ? reason :
		     sig     ? "killed" :
			       "exited",
		     st ? ", " : "", st ? st : "", *peer ? ", client " : "", peer,
		     sig && sigabbrev_np(sig) ? ", signal SIG" : "",
		     sig && sigabbrev_np(sig) ? sigabbrev_np(sig) : "") < 0)
		outcome = NULL;
	record_set_place(r, "%s%s", outcome ? outcome : "?", last);
	if (asprintf(&r->message, "smbd %s[%u] exited after %s s: %s%s", r->comm, r->pid,
		     units_s(ago, sizeof(ago), e->h.latency_ns), outcome ? outcome : "?", last) < 0)
		r->message = NULL;
	free(outcome);
	return 0;
}

/* Lease states as MS-SMB2 spells them: R, RH, RWH; "none". */
static const char *lease_state(uint32_t s, char buf[4])
{
	char *p = buf;

	/* the bits are R 1, H 2, W 4; the letters go R, W, H */
	if (s & 1)
		*p++ = 'R';
	if (s & 4)
		*p++ = 'W';
	if (s & 2)
		*p++ = 'H';
	*p = '\0';
	return p == buf ? "none" : buf;
}

static const char *oplock_level(uint32_t l)
{
	switch (l) {
	case 0:
		return "none";
	case 1:
		return "level2";
	case 8:
		return "exclusive";
	case 9:
		return "batch";
	}
	return "?";
}

static int break_decode(const struct rec_smbd_break *e, struct record *r)
{
	bool oplock = e->oplock;
	char from[4], to[4], ms[32];

	r->message_id = SMBLAT_MID_BREAK;
	r->has_ret = false;
	if (oplock) {
		record_add(r, "BREAK_TO", "%s", oplock_level(e->to));
		record_set_place(r, "oplock to %s", oplock_level(e->to));
	} else {
		record_add(r, "LEASE_KEY", "%016" PRIx64 "%016" PRIx64, e->key[0], e->key[1]);
		record_add(r, "BREAK_FROM", "%s", lease_state(e->from, from));
		record_add(r, "BREAK_TO", "%s", lease_state(e->to, to));
		record_set_place(r, "lease %016" PRIx64 "%016" PRIx64 " %s to %s", e->key[0], e->key[1],
				 from[0] ? lease_state(e->from, from) : "none", lease_state(e->to, to));
	}
	if (asprintf(&r->message, "%s answered after %s ms: smbd[%u] %s", r->func->name,
		     units_ms(ms, sizeof(ms), e->h.latency_ns, 3), r->pid, r->place ? r->place : "") < 0)
		r->message = NULL;
	return 0;
}

int smbd_exits_decode(const struct layer_env *env, const struct rec_head *h, size_t size, struct record *r)
{
	if (h->kind == REC_SMBD_EXIT && size >= sizeof(struct rec_smbd_exit))
		return exit_decode(env, (const struct rec_smbd_exit *)h, r);
	if (h->kind == REC_SMBD_BREAK && size >= sizeof(struct rec_smbd_break))
		return break_decode((const struct rec_smbd_break *)h, r);
	return -EINVAL;
}
