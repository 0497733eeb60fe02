// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Connection events: attached (cifs tracepoints, or read from the requests
 * the mid hooks see) and decoded, each kind its own MESSAGE_ID (the catalog
 * explains them) and MESSAGE, with the server, session and share it
 * concerns as far as the event or the mount table tells them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>

#include "config/config.h"
#include "decode/record.h"
#include "layers/layer.h"
#include "decode/smb2.h"
#include "layers/cifs/smbevent.h"
#include "layers/cifs/settings.h"
#include "probes/btfargs.h"
#include "sinks/journal.h"
#include "symbols/mounts.h"

#define SHARES_MAX 8
#define CIFS_MODULE "cifs"

/*
 * Connection events: FUNCTION, and the cifs tracepoints they come from
 * with the arguments their program reads (none: from the requests).
 */
static const struct {
	const char *function;
	const char *tracepoint[2];
	int nargs;
} events[_SMB_EV_MAX] = {
	[SMB_EV_RECONNECT] = { "SMB_RECONNECT", { "smb3_reconnect" }, 3 },
	[SMB_EV_SESSION_SETUP] = { "SMB_SESSION_SETUP" },
	[SMB_EV_LOGOFF] = { "SMB_LOGOFF" },
	[SMB_EV_SESSION_EXPIRED] = { "SMB_SESSION_EXPIRED", { "smb3_ses_expired" }, 4 },
	[SMB_EV_TREE_CONNECT] = { "SMB_TREE_CONNECT", { "smb3_tcon" }, 5 },
	[SMB_EV_CREDIT_STALL] = { "SMB_CREDIT_STALL",
				  { "smb3_credit_timeout", "smb3_insufficient_credits" },
				  6 },
	[SMB_EV_SLOW_RESPONSE] = { "SMB_SLOW_RESPONSE", { "smb3_slow_rsp" }, 5 },
};

static const char *const message_ids[_SMB_EV_MAX] = {
	[SMB_EV_RECONNECT] = SMBLAT_MID_SMB_RECONNECT,
	[SMB_EV_SESSION_SETUP] = SMBLAT_MID_SMB_SESSION_SETUP,
	[SMB_EV_LOGOFF] = SMBLAT_MID_SMB_LOGOFF,
	[SMB_EV_SESSION_EXPIRED] = SMBLAT_MID_SMB_SESSION_EXPIRED,
	[SMB_EV_TREE_CONNECT] = SMBLAT_MID_SMB_TREE_CONNECT,
	[SMB_EV_CREDIT_STALL] = SMBLAT_MID_SMB_CREDIT_STALL,
	[SMB_EV_SLOW_RESPONSE] = SMBLAT_MID_SMB_SLOW_RESPONSE,
};

const char *smbevent_message_id(unsigned int k)
{
	return k < _SMB_EV_MAX ? message_ids[k] : NULL;
}

/* "\\server\share" -> "server" into buf; NULL when unc is no UNC name. */
static const char *unc_server(const char *unc, char *buf, size_t size)
{
	size_t n;

	if (strncmp(unc, "\\\\", 2) != 0)
		return NULL;
	n = strcspn(unc + 2, "\\");
	if (!n || n >= size)
		return NULL;
	memcpy(buf, unc + 2, n);
	buf[n] = '\0';
	return buf;
}

/*
 * SMB_SHARE: the event's own share (its device), else every share mounted
 * from its server, the first as the record's share, the others added.
 * Returns the first, for MESSAGE; NULL when none is known.
 */
static const char *shares_add(struct record *r, const char *server, struct mounts *m)
{
	const char *v[SHARES_MAX];
	size_t n;

	if (r->share || !m || !server || !*server)
		return r->share;
	n = mounts_server_shares(m, server, v, SHARES_MAX);
	if (!n)
		return NULL;
	r->share = v[0];
	for (size_t i = 1; i < n; i++)
		record_add(r, "SMB_SHARE", "%s", v[i]);
	return r->share;
}

/* The server's name as a string: the record's field need not end in a NUL. */
static void server_of(const struct rec_smb2 *e, char out[SMBLAT_NAME_LEN + 1])
{
	snprintf(out, SMBLAT_NAME_LEN + 1, "%.*s", SMBLAT_NAME_LEN, e->server);
}

static void server_add(struct record *r, const char *server, uint64_t conn_id)
{
	if (server && *server)
		record_add(r, "SMB_SERVER", "%s", server);
	if (conn_id)
		record_add(r, "SMB_CONN_ID", "0x%llx", (unsigned long long)conn_id);
}

/* " (session 0x..., \\srv\share)": who the event is about, as far as known. */
static void about(char *buf, size_t size, const struct rec_smb2 *e, const char *share)
{
	char ses[32] = "";

	if (e->ids.session)
		snprintf(ses, sizeof(ses), "session " SMB2_SESSION_FMT, (unsigned long long)e->ids.session);
	if (*ses && share)
		snprintf(buf, size, " (%s, %s)", ses, share);
	else if (*ses || share)
		snprintf(buf, size, " (%s)", *ses ? ses : share);
	else
		buf[0] = '\0';
}

static const char *command(const struct rec_smb2 *e)
{
	const char *c = smb2_command_name(e->ids.cmd);

	return c ? c : "SMB2_?";
}

static void server_event(const struct rec_smb2 *e, struct record *r, struct mounts *m)
{
	char server[SMBLAT_NAME_LEN + 1], who[256];
	const char *share;

	server_of(e, server);

	server_add(r, server, e->conn_id);
	if (e->ids.session)
		smb2_decode_ids(&e->ids, e->h.flags, r);
	share = shares_add(r, server, m);
	about(who, sizeof(who), e, share);
	switch (e->event) {
	case SMB_EV_RECONNECT:
		record_set_message(r, message_ids[e->event],
				   "SMB_RECONNECT: connection to %s "
				   "lost, reconnecting%s",
				   *server ? server : "?", who);
		break;
	case SMB_EV_CREDIT_STALL:
		record_add(r, "SMB_CREDITS", "%d", e->event_val[0]);
		record_add(r, "SMB_CREDITS_NEEDED", "%d", e->event_val[1]);
		record_add(r, "SMB_IN_FLIGHT", "%d", e->event_val[2]);
		record_add(r, "SMB_STALL", "%s", e->event_val[3] ? "insufficient" : "timeout");
		record_set_message(r, message_ids[e->event],
				   "SMB_CREDIT_STALL: %s: %d credits "
				   "for %d needed, %d in flight%s%s",
				   *server ? server : "?", e->event_val[0], e->event_val[1], e->event_val[2],
				   e->event_val[3] ? ", none to wait for" : ", timed out waiting", who);
		break;
	}
}

static void session_event(const struct rec_smb2 *e, struct record *r, struct mounts *m)
{
	char server[SMBLAT_NAME_LEN + 1], who[256];
	uint64_t us = e->h.latency_ns / 1000;
	const char *share;

	server_of(e, server);

	server_add(r, server, e->conn_id);
	smb2_decode_ids(&e->ids, e->h.flags, r);
	share = shares_add(r, server, m);
	about(who, sizeof(who), e, share);
	switch (e->event) {
	case SMB_EV_SESSION_SETUP:
		record_set_message(r, message_ids[e->event],
				   "SMB_SESSION_SETUP: session " SMB2_SESSION_FMT
				   " set up with %s in %llu.%03llu ms",
				   (unsigned long long)e->ids.session, *server ? server : "?",
				   (unsigned long long)us / 1000, (unsigned long long)us % 1000);
		break;
	case SMB_EV_LOGOFF:
		record_set_message(r, message_ids[e->event],
				   "SMB_LOGOFF: session " SMB2_SESSION_FMT " logged off from %s%s",
				   (unsigned long long)e->ids.session, *server ? server : "?", who);
		break;
	case SMB_EV_SESSION_EXPIRED:
		record_add(r, "SMB_COMMAND", "%s", command(e));
		record_set_message(r, message_ids[e->event],
				   "SMB_SESSION_EXPIRED: session " SMB2_SESSION_FMT " expired (%s mid %llu)",
				   (unsigned long long)e->ids.session, command(e),
				   (unsigned long long)e->ids.mid);
		break;
	}
}

static void tree_event(const struct rec_smb2 *e, struct record *r)
{
	char unc[SMBLAT_NAME_LEN + 1], server[SMBLAT_NAME_LEN];
	int rc = e->event_val[0];

	snprintf(unc, sizeof(unc), "%.*s", SMBLAT_NAME_LEN, e->name);
	server_add(r, unc_server(unc, server, sizeof(server)), 0);
	if (*unc)
		record_add(r, "SMB_SHARE", "%s", unc);
	record_add(r, "SMB_SESSION_ID", SMB2_SESSION_FMT, (unsigned long long)e->ids.session);
	if (rc == 0) {
		record_add(r, "SMB_TREE_ID", SMB2_TREE_FMT, e->ids.tree);
		record_set_message(r, message_ids[e->event],
				   "SMB_TREE_CONNECT: %s connected, "
				   "tree " SMB2_TREE_FMT " of session " SMB2_SESSION_FMT,
				   unc, e->ids.tree, (unsigned long long)e->ids.session);
		return;
	}
	r->err = smblat_is_errno(rc) ? -rc : 0;
	record_set_message(r, message_ids[e->event],
			   "SMB_TREE_CONNECT: %s failed (%d) in "
			   "session " SMB2_SESSION_FMT,
			   unc, rc, (unsigned long long)e->ids.session);
}

static void slow_response_event(const struct rec_smb2 *e, struct record *r, struct mounts *m)
{
	char server[SMBLAT_NAME_LEN + 1], who[256];
	uint64_t us = e->h.latency_ns / 1000;
	const char *share;

	server_of(e, server);
	server_add(r, server, e->conn_id);
	record_add(r, "SMB_COMMAND", "%s", command(e));
	if (e->ids.session)
		smb2_decode_ids(&e->ids, e->h.flags, r);
	else
		record_add(r, "SMB_MID", "%llu", (unsigned long long)e->ids.mid);
	share = shares_add(r, server, m);
	about(who, sizeof(who), e, share);
	if (us)
		record_set_message(r, message_ids[e->event],
				   "SMB_SLOW_RESPONSE: cifs saw %s "
				   "mid %llu of %s answered slowly, %llu.%03llu ms%s",
				   command(e), (unsigned long long)e->ids.mid, *server ? server : "?",
				   (unsigned long long)us / 1000, (unsigned long long)us % 1000, who);
	else
		record_set_message(r, message_ids[e->event],
				   "SMB_SLOW_RESPONSE: cifs saw %s "
				   "mid %llu answered slowly",
				   command(e), (unsigned long long)e->ids.mid);
}

int smbevent_decode(const struct rec_smb2 *e, struct record *r, struct mounts *m)
{
	if (e->h.kind != REC_SMB_EVENT || e->event >= _SMB_EV_MAX)
		return -EINVAL;
	switch (e->event) {
	case SMB_EV_RECONNECT:
	case SMB_EV_CREDIT_STALL:
		server_event(e, r, m);
		break;
	case SMB_EV_SESSION_SETUP:
	case SMB_EV_LOGOFF:
	case SMB_EV_SESSION_EXPIRED:
		session_event(e, r, m);
		break;
	case SMB_EV_TREE_CONNECT:
		tree_event(e, r);
		break;
	case SMB_EV_SLOW_RESPONSE:
		slow_response_event(e, r, m);
		break;
	}
	return r->message ? 0 : -ENOMEM;
}

static bool events_wanted(const struct layer_env *env, enum smb_event k)
{
	const struct config *c = env->cfg;

	return smb2_settings(c)->events && config_wants(c, LAYER_SMB2, events[k].function);
}

/*
 * Arguments of cifs tracepoint tp as its BTF says (btf_trace_<tp>, the
 * first being the tracing context); -ENOENT: no such tracepoint.
 */
static int tracepoint_nargs(const struct btf *btf, const char *tp)
{
	char name[96];
	const struct btf_type *t;
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -ENOENT;
	id = btf__resolve_type(btf, btf__type_by_id(btf, id)->type);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (t && btf_is_ptr(t))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return -EINVAL;
	return btf_vlen(t) - 1;
}

/* The tracepoints of event k, where this cifs has them with the arguments read. */
static void event_attach(struct smbevents *ev, const struct layer_env *env, enum smb_event k)
{
	const struct btf *btf = btfs_get(env->btfs, CIFS_MODULE);
	struct func *f = ev->f[k];
	int r = 0, n = 0, first = 0;

	for (int i = 0; i < 2 && events[k].tracepoint[i]; i++) {
		const char *tp = events[k].tracepoint[i];
		int args = btf ? tracepoint_nargs(btf, tp) : events[k].nargs;

		if (args != events[k].nargs) {
			r = args == -ENOENT ? -ENOENT : -EPROTO;
		} else {
			r = probes_attach_tracepoint(env->probes, ev->unit, tp);
			if (r >= 0) {
				ev->tp_on[k][i] = true;
				n++;
				continue;
			}
		}
		if (!first)
			first = r;
	}
	if (n) {
		func_set_attached(f, BACKEND_RAW_TP);
		return;
	}
	if (first == -ENOENT)
		func_set_state(f, FUNC_NOT_FOUND, "cifs has no tracepoint %s here", events[k].tracepoint[0]);
	else if (first == -EPROTO)
		func_set_state(f, FUNC_UNUSABLE, "cifs tracepoint %s has other arguments here",
			       events[k].tracepoint[0]);
	else
		func_set_state(f, FUNC_FAILED, "raw_tp: %s", strerror(-first));
}

static void event_detach(struct smbevents *ev, const struct layer_env *env, enum smb_event k,
			 enum func_state why, const char *detail)
{
	for (int i = 0; i < 2; i++)
		if (ev->tp_on[k][i]) {
			probes_detach_tracepoint(env->probes, ev->unit, events[k].tracepoint[i]);
			ev->tp_on[k][i] = false;
		}
	if (ev->f[k])
		func_set_state(ev->f[k], why, detail ? "%s" : NULL, detail);
}

/* From tracepoints (attached to this cifs) or from the requests (with the mid hooks). */
unsigned int smbevent_sync(struct smbevents *ev, const struct layer_env *env, enum backend req_backend,
			   uint32_t event_id[_SMB_EV_MAX])
{
	unsigned int n = 0;

	for (int k = 0; k < _SMB_EV_MAX; k++) {
		struct func *f = ev->f[k];
		bool tp = events[k].tracepoint[0] != NULL;

		if (!f)
			f = ev->f[k] = func_table_find_or_add(env->funcs, LAYER_SMB2, events[k].function,
							      events[k].tracepoint[0], "cifs");
		if (!f)
			continue;
		if (!events_wanted(env, k)) {
			event_detach(ev, env, k,
				     smb2_settings(env->cfg)->events ? FUNC_EXCLUDED : FUNC_DISABLED, NULL);
			event_id[k] = SMB2_NO_HOOK;
			continue;
		}
		if (tp && !func_attached(f))
			event_attach(ev, env, k);
		else if (!tp)
			func_set_attached(f, req_backend);
		event_id[k] = func_attached(f) ? f->id : SMB2_NO_HOOK;
		n += func_attached(f);
	}
	return n;
}

void smbevent_off(struct smbevents *ev, const struct layer_env *env, enum func_state why, const char *detail,
		  uint32_t event_id[_SMB_EV_MAX])
{
	for (int k = 0; k < _SMB_EV_MAX; k++) {
		event_detach(ev, env, k, why, detail);
		event_id[k] = SMB2_NO_HOOK;
	}
}
