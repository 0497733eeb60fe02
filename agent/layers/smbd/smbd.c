// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The smbd layer: Samba's server, without USDT probes, through uprobes on
 * the library that defines its VFS entry points (smb_vfs_call_<op>) and
 * SMB2 request handlers (smbd_smb2_request_process_<cmd>). The probes are
 * on the file (pid -1), so every smbd process, also those forked or started
 * after the agent, is covered. SMB2 requests are timed by default, the VFS
 * calls on request (vfs = yes, or include= naming them): a uprobe on every
 * VFS call costs far more than one per request. The views beyond functions
 * (exits, breaks, the time split) are in exits.c and split.c.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "base/log.h"
#include "decode/event.h"
#include "layers/layer.h"
#include "decode/smb2.h"
#include "layers/procs/procs.h"
#include "layers/smbd/cancel.h"
#include "layers/smbd/views.h"
#include "layers/smbd/reqlayout.h"
#include "layers/smbd/settings.h"
#include "probes/inflight.h"
#include "symbols/usyms.h"
#include "base/clock.h"
#include "base/macro.h"

#define VFS_PREFIX "smb_vfs_call_"
#define SMB2_PREFIX "smbd_smb2_request_process_"
#define ANCHOR VFS_PREFIX "openat" /* in every Samba since 4.14 */
#define NAME "smbd"

/* Where both completions of an SMB2 request go through. */
static const char *const smb2_ends[] = {
	"smbd_smb2_request_done_ex",
	"smbd_smb2_request_error_ex",
};

struct layer {
	const struct layer_env *env;
	char *binary;  /* smbd */
	char *lib;     /* the file defining its VFS and SMB2 entry points */
	char *tevent;  /* libtevent, for the time split; NULL when not found */
	char *cluster; /* libsamba-cluster-support (ctdbd calls); NULL when not found */
	struct smbd_split *split;
	bool followed;    /* the process tracepoints are attached */
	uint64_t ends[2]; /* offsets of smb2_ends[] in lib */
	bool requests;    /* both ends exist: SMB2 requests can be timed */
	bool ends_on;     /* the ends are hooked (once for all the requests' begins) */
	char version[64]; /* "Samba 4.17.12", from lib's export tags */
	bool ids;         /* the requests' inbound header is found (SMB_MID, ..., the command) */
	const char *why;  /* unavailable or off: why */
	bool off;         /* enabled = auto found no smbd */
	char why_buf[PATH_MAX + 128];
};

/* The layer's programs: SMB2 requests (bpf/smbd.bpf.c) and views (bpf/smbdviews.bpf.c). */
static const struct prog_spec smbd_progs[] = {
	PROG(smbd_req_begin, PROG_PLAIN),
	PROG(smbd_req_end, PROG_PLAIN),
	PROG(umulti_smbd_begin, PROG_UMULTI),
	PROG(umulti_smbd_end, PROG_UMULTI),
	PROG(smbd_cancel_dispatch, PROG_PLAIN),
	PROG(umulti_smbd_cancel_dispatch, PROG_UMULTI),
	PROG(smbd_cancel_dispatch_ret, PROG_PLAIN),
	PROG(umulti_smbd_cancel_dispatch_ret, PROG_UMULTI),
	PROG(smbd_split_dispatch, PROG_PLAIN),
	PROG(umulti_smbd_split_dispatch, PROG_UMULTI),
	PROG(smbd_split_dispatch_ret, PROG_PLAIN),
	PROG(umulti_smbd_split_dispatch_ret, PROG_UMULTI),
	PROG(smbd_split_event, PROG_PLAIN),
	PROG(umulti_smbd_split_event, PROG_UMULTI),
	PROG(smbd_split_ctdb, PROG_PLAIN),
	PROG(umulti_smbd_split_ctdb, PROG_UMULTI),
	PROG(smbd_split_ctdb_ret, PROG_PLAIN),
	PROG(umulti_smbd_split_ctdb_ret, PROG_UMULTI),
	PROG(smbd_split_io_send, PROG_PLAIN),
	PROG(umulti_smbd_split_io_send, PROG_UMULTI),
	PROG(smbd_split_io_recv, PROG_PLAIN),
	PROG(umulti_smbd_split_io_recv, PROG_UMULTI),
	PROG(smbd_exit_conn, PROG_PLAIN),
	PROG(umulti_smbd_exit_conn, PROG_UMULTI),
	PROG(smbd_exit_disconnect, PROG_PLAIN),
	PROG(umulti_smbd_exit_disconnect, PROG_UMULTI),
	PROG(smbd_exit_terminate, PROG_PLAIN),
	PROG(umulti_smbd_exit_terminate, PROG_UMULTI),
	PROG(smbd_exit_server, PROG_PLAIN),
	PROG(umulti_smbd_exit_server, PROG_UMULTI),
	PROG(smbd_exit_terminate_sleep, PROG_USLEEP),
	PROG(umulti_smbd_exit_terminate_sleep, PROG_UMULTI_SLEEP),
	PROG(smbd_exit_server_sleep, PROG_USLEEP),
	PROG(umulti_smbd_exit_server_sleep, PROG_UMULTI_SLEEP),
	PROG(smbd_break_answer, PROG_PLAIN),
	PROG(umulti_smbd_break_answer, PROG_UMULTI),
	PROG(smbd_break_oplock, PROG_PLAIN),
	PROG(umulti_smbd_break_oplock, PROG_UMULTI),
	PROG(smbd_break_oplock_done, PROG_PLAIN),
	PROG(umulti_smbd_break_oplock_done, PROG_UMULTI),
	PROG(smbd_break_lease, PROG_PLAIN),
	PROG(umulti_smbd_break_lease, PROG_UMULTI),
	PROG(smbd_break_lease_done, PROG_PLAIN),
	PROG(umulti_smbd_break_lease_done, PROG_UMULTI),
};

static const struct prog_unit smbd_unit = PROG_UNIT("smbd", smbd_progs, false);
/* An SMB2 request from its handler to whichever of its completions comes. */
static const struct uprog_pair req_begin = UPROG_PAIR(smbd_req_begin, umulti_smbd_begin);
static const struct uprog_pair req_end = UPROG_PAIR(smbd_req_end, umulti_smbd_end);

/* One kind of entry point (VFS calls or SMB2 requests) brought in line with the configuration. */
struct batch {
	struct layer *l;
	bool smb2;
	const char *prefix; /* FUNCTION prefix: SMBD_VFS_, SMBD_SMB2_ */
	struct func *fv[SMBLAT_MAX_FUNCS];
	uint64_t offsets[SMBLAT_MAX_FUNCS];
	uint32_t n; /* to attach */
	uint32_t detached;
	int error;
};

static void configure(struct batch *b, struct func *f)
{
	const struct config *c = b->l->env->cfg;

	f->cfg = (struct func_cfg) {
		.threshold_ns = config_layer_threshold_ns(c, LAYER_SMBD),
		.flags = FF_ENABLED | (c->user_stack ? FF_USTACK : 0) |
			 (c->layer[LAYER_SMBD].stacks ? FF_STACKS_USER : 0),
		/*
		 * VFS calls return int, ssize_t, NTSTATUS, pointers or nothing, and
		 * report errors in errno: no return value is better than a wrong one.
		 * SMB2 requests end with an NTSTATUS, shown in hex.
		 */
		.ret_kind = b->smb2 ? RK_PTR : RK_VOID,
	};
	probes_update(b->l->env->probes, f);
}

static struct func *find(struct layer *l, const char *name)
{
	struct func_table *t = l->env->funcs;

	for (uint32_t i = 0; i < t->n; i++)
		if (t->v[i].layer == LAYER_SMBD && strcmp(t->v[i].name, name) == 0)
			return &t->v[i];
	return NULL;
}

/* VFS calls: all with vfs = yes, else those include= names. */
static bool vfs_wanted(const struct config *c, const char *name)
{
	char **inc = c->layer[LAYER_SMBD].include;

	if (smbd_settings(c)->vfs)
		return true;
	for (; inc && *inc; inc++)
		if (strcasecmp(*inc, name) == 0)
			return true;
	return false;
}

/* Per entry point of the library: detach, update, or queue it for attaching. */
static int sync_one(const char *symbol, uint64_t offset, void *userdata)
{
	struct batch *b = userdata;
	struct layer *l = b->l;
	const char *op = symbol + strlen(b->smb2 ? SMB2_PREFIX : VFS_PREFIX);
	char name[SMBLAT_NAME_LEN], target[PATH_MAX + 128];
	struct func *f;
	bool want;
	int id;

	if (!*op || snprintf(name, sizeof(name), "%s%s", b->prefix, op) >= (int)sizeof(name))
		return 0;
	for (char *s = name; *s; s++)
		*s = (char)toupper((unsigned char)*s);
	want = config_wants(l->env->cfg, LAYER_SMBD, name) && (b->smb2 || vfs_wanted(l->env->cfg, name));
	f = find(l, name);
	if (f && func_attached(f) && !want) {
		probes_detach(l->env->probes, f, FUNC_DISABLED, NULL);
		b->detached++;
		return 0;
	}
	if (f && func_attached(f)) {
		configure(b, f);
		return 0;
	}
	if (!want)
		return 0;
	if (!f) {
		snprintf(target, sizeof(target), "%s:%s", l->lib, symbol);
		id = func_table_add(l->env->funcs, LAYER_SMBD, GROUP_NONE, name, target, NULL);
		if (id < 0)
			return id;
		f = &l->env->funcs->v[id];
	}
	if (b->n >= SMBLAT_MAX_FUNCS)
		return -ENOSPC;
	configure(b, f);
	b->fv[b->n] = f;
	b->offsets[b->n++] = offset;
	return 0;
}

static int batch_run(struct batch *b)
{
	struct layer *l = b->l;
	int r;

	r = usyms_functions(l->env->us, l->lib, b->smb2 ? SMB2_PREFIX : VFS_PREFIX, sync_one, b);
	if (r < 0 || !b->n)
		return r < 0 ? r : 0;
	if (b->smb2)
		return probes_attach_uprobe_requests(l->env->probes, b->fv, b->offsets, b->n, &req_begin,
						     &req_end, l->ends, 2, &l->ends_on, l->lib);
	return probes_attach_uprobes(l->env->probes, b->fv, b->offsets, b->n, l->lib);
}

static void report(struct batch *b, const char *what, int attached)
{
	struct status s = { .kind = STATUS_PROBE_FAILED,
			    .reason = REASON_ATTACH_FAILED,
			    .priority = LOG_WARNING,
			    .layer = NAME };

	status_count_set(&s, COUNT_NOT_ATTACHED, attached < 0 ? b->n : b->n - attached);
	if (attached < 0)
		log_emit(&s, "%s of %s not attached: %s", what, b->l->lib, strerror(-attached));
	else if ((uint32_t)attached < b->n)
		log_emit(&s, "%u of %u %s of %s not attached (see --list-probes)", b->n - attached, b->n,
			 what, b->l->lib);
}

/* VFS calls, then SMB2 requests (when both completions exist); counts what it attached. */
static void layer_sync(struct layer *l, unsigned int *attached, unsigned int *detached)
{
	struct batch *b = calloc(1, sizeof(*b));
	struct status s = { .kind = STATUS_LAYER_ATTACHED, .priority = LOG_INFO, .layer = NAME };
	enum backend be = BACKEND_NONE;
	int vfs, smb2 = 0;
	uint32_t n_vfs, n_smb2 = 0;

	if (!b)
		return;
	*b = (struct batch) { .l = l, .prefix = "SMBD_VFS_" };
	vfs = batch_run(b);
	report(b, "VFS operations", vfs);
	n_vfs = b->n;
	if (n_vfs)
		be = b->fv[0]->backend;
	*detached += b->detached;
	if (l->requests) {
		*b = (struct batch) { .l = l, .smb2 = true, .prefix = "SMBD_SMB2_" };
		smb2 = batch_run(b);
		n_smb2 = b->n;
		report(b, "SMB2 commands", smb2);
		*detached += b->detached;
	}
	*attached += (vfs > 0 ? vfs : 0) + (smb2 > 0 ? smb2 : 0);
	vfs = vfs < 0 ? 0 : vfs;
	smb2 = smb2 < 0 ? 0 : smb2;
	if (l->requests) {
		unsigned int c = 0;

		smbd_cancel_sync(l->env, l->lib, l->ids, &c, detached);
		*attached += c;
		smb2 += (int)c;
		n_smb2 += c;
	}
	status_count_set(&s, COUNT_ATTACHED, vfs + smb2);
	status_count_set(&s, COUNT_NOT_ATTACHED, n_vfs + n_smb2 - vfs - smb2);
	if (n_vfs || b->n)
		log_emit(&s, "%d VFS %s and %d SMB2 %s of %s (%s, %s) attached (%s)", vfs,
			 PLURAL(vfs, "operation", "operations"), smb2, PLURAL(smb2, "command", "commands"),
			 l->lib, l->version, l->binary, backend_name(n_vfs ? be : b->fv[0]->backend));
	free(b);
}

static struct smbd_places places(const struct layer *l)
{
	return (struct smbd_places) { .binary = l->binary,
				      .lib = l->lib,
				      .tevent = l->tevent,
				      .cluster = l->cluster,
				      .version = l->version };
}

/*
 * The views follow smbd processes: the process tracepoints; sys_exit for
 * the last failed syscall (exit_errors) and with sys_enter for the time
 * split, only when asked, as they cost every syscall on the machine; the
 * smbds that run already are told to the kernel side.
 * Returns how many run, or negative when the views cannot be had.
 */
static int follow(struct layer *l)
{
	const struct smbd_settings *s = smbd_settings(l->env->cfg);
	char why[256];
	int r;

	if (!s->exits && !s->breaks && !s->split)
		return -ENOENT;
	r = procs_attach(l->env->probes,
			 s->split                   ? PROCS_SYS_BOTH :
			 s->exits && s->exit_errors ? PROCS_SYS_EXIT :
						      PROCS_SYS_NONE,
			 why, sizeof(why));
	if (r < 0) {
		log_layer(NAME, STATUS_AGENT_DEGRADED, REASON_ATTACH_FAILED, LOG_WARNING,
			  "exits, breaks and time split not available: %s", why);
		return r;
	}
	r = procs_follow_smbd(l->env->probes, l->binary, why, sizeof(why));
	if (r < 0) {
		log_layer(NAME, STATUS_AGENT_DEGRADED, REASON_ATTACH_FAILED, LOG_WARNING,
			  "exits, breaks and time split not available: %s", why);
		return r;
	}
	r = l->followed ? 0 : procs_seed(l->env->probes, &(struct procs_seed) { .count = PROC_SMBD });
	if (r < 0)
		log_layer(NAME, STATUS_AGENT_DEGRADED, REASON_ATTACH_FAILED, LOG_WARNING,
			  "smbd processes running before the agent are not followed (task iterator: %s); "
			  "those started later are",
			  strerror(-r));
	l->followed = true;
	return r < 0 ? 0 : r;
}

/* The views' functions wanted and attached, said once they first are. */
static void views_say(struct layer *l, int running)
{
	const struct smbd_settings *set = smbd_settings(l->env->cfg);
	const struct {
		const char *name;
		bool want;
	} views[] = {
		{ "SMBD_EXIT", set->exits },
		{ "SMBD_OPLOCK_BREAK", set->breaks },
		{ "SMBD_LEASE_BREAK", set->breaks },
		{ "SMBD_TIME_SPLIT", set->split },
	};
	struct status s = { .kind = STATUS_LAYER_ATTACHED, .priority = LOG_INFO, .layer = NAME };
	unsigned int wanted = 0, attached = 0;

	for (size_t i = 0; i < ELEMENTSOF(views); i++) {
		struct func *f = views[i].want ? find(l, views[i].name) : NULL;

		wanted += views[i].want;
		attached += f && func_attached(f);
	}
	status_count_set(&s, COUNT_ATTACHED, attached);
	status_count_set(&s, COUNT_NOT_ATTACHED, wanted - attached);
	log_emit(&s, "following smbd processes (%d running): %u of %u %s attached", running, attached, wanted,
		 PLURAL(wanted, "view", "views"));
	if (set->exits && attached && !smbd_exits_sleep(l->env)) {
		char what[64];

		log_layer(NAME, STATUS_AGENT_DEGRADED, REASON_NONE, LOG_NOTICE,
			  "kernel lacks %s: SMBD_EXIT leaves out the reason and location smbd hands over "
			  "when their page is not in memory yet, and names them in SMBD_EXIT_UNREAD",
			  features_missing(KF_UPROBE_SLEEP, what, sizeof(what)));
	}
	if (attached && !features_has(l->env->features, KF_COOKIE)) {
		char what[64];

		log_layer(NAME, STATUS_AGENT_DEGRADED, REASON_NONE, LOG_NOTICE,
			  "kernel lacks %s: SMBD_EXIT does not tell smbd_exit_server from its _cleanly "
			  "twin, SMBD_TIME_SPLIT counts no tevent events",
			  features_missing(KF_COOKIE, what, sizeof(what)));
	}
}

static void views_sync(struct layer *l)
{
	struct smbd_places pl = places(l);
	bool first = !l->followed;
	int running = follow(l);

	if (running < 0)
		return;
	smbd_exits_sync(l->env, &pl);
	smbd_split_sync(l->split, l->env, &pl);
	if (first)
		views_say(l, running);
}

/* The requests' SMB2 header ids (SMB_SESSION_ID, SMB_MID, ...), to join them with the client's. */
static void ids_locate(struct layer *l)
{
	struct smbd_hdr_layout hl = {};
	int r = reqlayout_read(l->env->us, l->lib, &hl);

	if (r < 0) {
		log_layer(NAME, STATUS_AGENT_DEGRADED, REASON_NOT_FOUND, LOG_NOTICE,
			  "%s (%s) %s %s: SMB2 requests without their header ids, SMB2 CANCEL not timed",
			  l->lib, l->version,
			  r == -EPROTO ? "has a request layout not understood in" : "lacks",
			  SMBDREQ_FUNCTION);
		return;
	}
	probes_publish(&probes_skel(l->env->probes)->bss->smbd_hdr, &hl, sizeof(hl));
	l->ids = true;
}

/*
 * Samba's version, as its libraries tag their exports (SAMBA_4.17.12_DEBIAN_SAMBA4,
 * SAMBA_4.22.11_DEBIAN_4.22.11_DFSG_0_DEB13U1_PRIVATE_SAMBA): what a notice names
 * with a function the library lacks.
 */
static void version_find(struct layer *l)
{
	char *tag = NULL;
	size_t n = 0;

	if (usyms_version_def(l->lib, &tag) == 0 && strncmp(tag, "SAMBA_", 6) == 0)
		n = strspn(tag + 6, "0123456789.");
	if (n)
		snprintf(l->version, sizeof(l->version), "Samba %.*s", (int)n, tag + 6);
	else
		snprintf(l->version, sizeof(l->version), "Samba (version not known)");
	free(tag);
}

/* smbd, the library with its entry points, and whether SMB2 requests can be timed. */
static int locate(struct layer *l)
{
	const struct config *c = l->env->cfg;
	int r;

	free(l->binary);
	l->binary = smbd_settings_binary(c);
	if (!l->binary && c->layer[LAYER_SMBD].automatic) {
		l->off = true;
		l->why = layer_off(NAME, REASON_NO_BINARY, l->why_buf, sizeof(l->why_buf),
				   "no smbd on this machine (PATH, /usr/sbin, /usr/local/samba/sbin)");
		return -ENOENT;
	}
	if (!l->binary) {
		l->why = layer_unavailable(NAME, REASON_NO_BINARY, l->why_buf, sizeof(l->why_buf),
					   "no smbd found on PATH or in /usr/sbin; set [smbd] binary=");
		return -ENOENT;
	}
	r = usyms_provider(l->env->us, l->binary, ANCHOR, &l->lib);
	if (r == -EISDIR) {
		l->why = layer_unavailable(NAME, REASON_NO_BINARY, l->why_buf, sizeof(l->why_buf),
					   "%s is a directory, not smbd: set [smbd] binary= to the program",
					   l->binary);
		return r;
	}
	if (r < 0) {
		l->why = layer_unavailable(NAME, REASON_NOT_FOUND, l->why_buf, sizeof(l->why_buf),
					   "neither %s nor its libraries define " ANCHOR ": %s", l->binary,
					   strerror(-r));
		return r;
	}
	version_find(l);
	for (size_t i = 0; i < 2; i++) {
		r = usyms_resolve(l->env->us, l->lib, smb2_ends[i], &l->ends[i]);
		if (r < 0) {
			log_layer(NAME, STATUS_PROBE_FAILED, REASON_NOT_FOUND, LOG_NOTICE,
				  "%s (%s) lacks %s (%s): SMB2 requests not traced", l->lib, l->version,
				  smb2_ends[i], strerror(-r));
			return 0;
		}
	}
	l->requests = true;
	/* the time split's other files; without them it does with less */
	if (usyms_provider(l->env->us, l->binary, "tevent_common_invoke_fd_handler", &l->tevent) < 0)
		l->tevent = NULL;
	if (usyms_provider(l->env->us, l->binary, "ctdbd_migrate", &l->cluster) < 0)
		l->cluster = NULL;
	ids_locate(l);
	return 0;
}

static void smbd_attach(struct layer *l)
{
	unsigned int a = 0, d = 0;

	if (!l->lib) {
		l->why = NULL;
		l->off = false;
	}
	if (!probes_unit_loaded(l->env->probes, &smbd_unit) && l->env->cfg->layer[LAYER_SMBD].automatic &&
	    locate(l) < 0)
		return; /* off: no smbd, which is why the programs were not loaded */
	if (!probes_unit_loaded(l->env->probes, &smbd_unit)) {
		l->why = layer_unavailable(NAME, REASON_RESTART_NEEDED, l->why_buf, sizeof(l->why_buf),
					   "enabled by reload: takes effect at the next start");
		return;
	}
	if (!l->lib && locate(l) < 0)
		return;
	layer_sync(l, &a, &d);
	if (l->requests)
		views_sync(l);
}

static void smbd_apply(struct layer *l, const struct config *old, struct reload_counts *n)
{
	if (!l->lib)
		return;
	layer_sync(l, &n->attached, &n->detached);
	if (l->requests)
		views_sync(l);
}

static unsigned int smbd_detach(struct layer *l, enum func_state why)
{
	struct func_table *t = l->env->funcs;
	unsigned int n = 0;

	n += smbd_exits_detach(l->env, why);
	n += smbd_split_detach(l->split, l->env, why);
	n += smbd_cancel_detach(l->env, why);
	for (uint32_t i = 0; i < t->n; i++)
		if (t->v[i].layer == LAYER_SMBD && func_attached(&t->v[i])) {
			probes_detach(l->env->probes, &t->v[i], why, NULL);
			n++;
		}
	return n;
}

/*
 * The connection of an smbd process died with requests in flight (or
 * breaks not answered): they never end. Both keys begin with the tgid.
 */
static bool process_gone(const void *key, const void *value, void *userdata)
{
	const struct smbd_req_key *k = key;

	return kill((pid_t)k->tgid, 0) < 0 && errno == ESRCH;
}

/* A thread that died in the dispatch of a CANCEL (keyed by thread id). */
static bool thread_gone(const void *key, const void *value, void *userdata)
{
	const uint32_t *tid = key;

	return kill((pid_t)*tid, 0) < 0 && errno == ESRCH;
}

/* A request waits at most for a change notify or a lock; an hour is past that. */
#define STALE_NS (60 * 60 * NSEC_PER_SEC)

static void smbd_watch(struct layer *l)
{
	struct inflight_sweep s = { .max_age_ns = STALE_NS, .stale = process_gone };
	struct inflight_sweep c = { .max_age_ns = STALE_NS, .stale = thread_gone };
	struct inflight_sweep b = { .max_age_ns = STALE_NS, .stale = process_gone };

	/* a break not answered is no entry (smblat(8)): nothing to say of those that go */
	b.now_ns = now_ns();
	(void)probes_sweep(probes_skel(l->env->probes)->maps.smbd_breaks, &b);
	if (!l->requests)
		return;
	layer_sweep(l->env, NAME, probes_skel(l->env->probes)->maps.smbd_reqs, &s,
		    "their smbd process gone or not ended in 60 min", NULL);
	layer_sweep(l->env, NAME, probes_skel(l->env->probes)->maps.smbd_cancels, &c,
		    "SMB2 CANCELs whose thread is gone before their dispatch returned", NULL);
}

/* An SMB2 request (REC_SMBD_REQ): the call, and the client's header ids the two sides join on. */
static int request_decode(const struct layer_env *env, const struct rec_smbd_req *q, size_t size,
			  struct record *r)
{
	int err = event_decode_call(env->dec, &q->c, size, r);

	if (err < 0 || size < sizeof(*q) || !(q->c.h.flags & RF_SMB2_IDS))
		return err < 0 ? err : size < sizeof(*q) ? -EINVAL : 0;
	smb2_decode_ids(&q->ids, q->c.h.flags, r);
	record_add(r, "SMB_COMPOUND", "%d", !!(q->c.h.flags & RF_SMB2_COMPOUND));
	smb2_decode_credits(&q->ids, r);
	return 0;
}

static int smbd_decode(const struct layer_env *env, const struct rec_head *h, size_t size, struct record *r)
{
	if (h->kind == REC_SMBD_REQ)
		return request_decode(env, (const struct rec_smbd_req *)h, size, r);
	return smbd_exits_decode(env, h, size, r);
}

static void smbd_summarize(struct layer *l, const struct summary_out *out)
{
	smbd_split_summarize(l->split, l->env, out);
}

static void smbd_list(struct layer *l, FILE *out)
{
	if (l->followed)
		procs_list(l->env->probes, out, "(smbd processes)", LAYER_SMBD);
}

static enum layer_state smbd_state(struct layer *l, const char **why)
{
	if (l->why) {
		*why = l->why;
		return l->off ? LAYER_OFF : LAYER_UNAVAILABLE;
	}
	if (func_table_attached(l->env->funcs, LAYER_SMBD))
		return LAYER_ACTIVE;
	*why = "no smbd function attached";
	return LAYER_UNAVAILABLE;
}

/* Whether there is an smbd to probe, for enabled = auto. */
static bool smbd_present(const struct config *c)
{
	char *b = smbd_settings_binary(c);
	bool found = b;

	free(b);
	return found;
}

static int smbd_prepare(struct layer *l, struct probes_opts *po)
{
	const struct layer_config *lc = &l->env->cfg->layer[LAYER_SMBD];
	int r;

	if (!lc->enabled || (lc->automatic && !smbd_present(l->env->cfg)))
		return 0;
	po->stacks |= lc->stacks;
	/* the process programs always: a reload may switch a view on */
	r = probes_opts_want(po, &smbd_unit, l);
	return r < 0 ? r : procs_want(po);
}
static int smbd_init(struct layer *l)
{
	return smbd_split_new(&l->split);
}

static uint32_t smbd_ids_needed(const struct config *c)
{
	/* smb_vfs_call_* and SMB2 commands: ~120 in Samba 4.17; the views */
	return 256 + 4;
}

static void smbd_free(struct layer *l)
{
	free(l->binary);
	free(l->lib);
	free(l->tevent);
	free(l->cluster);
	smbd_split_free(l->split);
}

/* Its column of --breakdown. */
static const struct breakdown_column smbd_column = { "smbd", "BREAKDOWN_SMBD", 70 };

const struct layer_ops smbd_layer = {
	.columns = &smbd_column,
	.n_columns = 1,
	.id = LAYER_SMBD,
	.config = &smbd_settings_section,
	.traces = "Samba server (smbd)",
	.ids_needed = smbd_ids_needed,
	.prepare = smbd_prepare,
	.unit = &smbd_unit,
	.size = sizeof(struct layer),
	.init = smbd_init,
	.attach = smbd_attach,
	.apply = smbd_apply,
	.detach = smbd_detach,
	.watch = smbd_watch,
	.list = smbd_list,
	.records = REC_BIT(REC_SMBD_REQ) | REC_BIT(REC_SMBD_EXIT) | REC_BIT(REC_SMBD_BREAK),
	.decode = smbd_decode,
	.summarize = smbd_summarize,
	.state = smbd_state,
	.free = smbd_free,
};
