// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The syscalls layer: every syscall of the chosen processes (select=: every
 * smbd, a pid, a comm, a cgroup) counted and timed in the kernel, as
 * strace -c counts them but without stopping the process: per-CPU counters
 * and histograms per syscall (one function each, SYSCALL_<NAME>), failures
 * per errno, and an event only for the calls a threshold or errors= asks
 * for. Its summaries are its own (summarize): per syscall with ERRORS and
 * the top errno, and on the terminal a table sorted by time, as strace -c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/macro.h"
#include "base/log.h"
#include "base/syscalls.h"
#include "layers/layer.h"
#include "layers/procs/procs.h"
#include "layers/smbd/settings.h"
#include "layers/syscalls/settings.h"
#include "sinks/journal.h"

#define NAME "syscalls"
#define PREFIX "SYSCALL_"
#define ERRNO_LIST_MAX 8

/* Failed calls of one function with one errno: what the kernel counted, and reported. */
struct err_count {
	uint32_t id;
	uint32_t err;
	uint64_t seen; /* cumulative, from the kernel */
	uint64_t reported;
};

struct layer {
	const struct layer_env *env;
	enum backend backend; /* of sys_enter/sys_exit; BACKEND_NONE: not attached */
	int *ids;             /* per syscalls_at() index: function id, or -1 */
	unsigned int n_ids;
	struct err_count *errs;
	size_t n_errs;
	int cgroup_fd;
	char what[512]; /* the selection, as said */
	const char *why;
	bool off; /* why says it is off, not unavailable */
	char why_buf[512];
};

static int syscalls_init(struct layer *l)
{
	l->cgroup_fd = -1;
	l->n_ids = syscalls_count();
	l->ids = malloc(l->n_ids * sizeof(*l->ids));
	if (!l->ids)
		return -ENOMEM;
	for (unsigned int i = 0; i < l->n_ids; i++)
		l->ids[i] = -1;
	return 0;
}

/* select=, else [agent] pid=/comm=/cgroup=, else every smbd. */
static struct sys_select selection(const struct config *c)
{
	const struct sys_select *s = &syscalls_settings(c)->select;
	struct sys_select r = {};

	if (s->smbd || s->pid || s->comm || s->cgroup)
		return *s;
	r.pid = c->pid;
	r.comm = c->comm;
	r.cgroup = c->cgroup;
	r.smbd = !r.pid && !(r.comm && *r.comm) && !(r.cgroup && *r.cgroup);
	return r;
}

static int cgroup_select(struct layer *l, const char *path)
{
	char full[4096];
	uint32_t zero = 0;
	int fd, map = bpf_map__fd(probes_skel(l->env->probes)->maps.acct_cgroups);

	snprintf(full, sizeof(full), "%s%s", strncmp(path, "/sys/fs/cgroup", 14) ? "/sys/fs/cgroup" : "",
		 path);
	fd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (map < 0 || bpf_map_update_elem(map, &zero, &fd, BPF_ANY) < 0) {
		int r = map < 0 ? map : -errno;

		close(fd);
		return r;
	}
	l->cgroup_fd = fd;
	return 0;
}

/* Tells the kernel side whom to account; -errno with why said. */
static int select_apply(struct layer *l, const struct sys_select *s)
{
	struct procs_ctl *ctl = procs_ctl(l->env->probes);
	int r;

	if (s->cgroup && *s->cgroup) {
		r = cgroup_select(l, s->cgroup);
		if (r < 0) {
			l->why = layer_unavailable(NAME, r == -ENOENT ? REASON_NOT_FOUND : REASON_SYSTEM,
						   l->why_buf, sizeof(l->why_buf), "cgroup %s: %s", s->cgroup,
						   strerror(-r));
			return r;
		}
	}
	if (s->comm)
		strncpy(ctl->acct_comm, s->comm, sizeof(ctl->acct_comm) - 1);
	ctl->acct_cgroup = l->cgroup_fd >= 0;
	syscalls_select_format(s, l->what, sizeof(l->what));
	if (s->smbd) {
		char *binary = smbd_settings_binary(l->env->cfg), why[PATH_MAX + 128];

		r = binary ? procs_follow_smbd(l->env->probes, binary, why, sizeof(why)) : -ENOENT;
		if (!binary)
			snprintf(why, sizeof(why),
				 "no smbd found on PATH or in /usr/sbin; set [smbd] binary=");
		free(binary);
		if (r < 0) {
			l->why = layer_unavailable(NAME, r == -ENOENT ? REASON_NO_BINARY : REASON_SYSTEM,
						   l->why_buf, sizeof(l->why_buf), "%s: %s", l->what, why);
			return r;
		}
	}
	ctl->acct_smbd = s->smbd;
	return 0;
}

static void configure(struct layer *l, struct func *f)
{
	const struct config *c = l->env->cfg;
	const struct layer_config *lc = &c->layer[LAYER_SYSCALLS];

	f->cfg = (struct func_cfg) {
		/* no threshold set: accounting only, no slow entries (a wait is slow by design) */
		.threshold_ns = lc->threshold_set ? lc->threshold_ns : UINT64_MAX,
		.flags = FF_ENABLED | (lc->errors ? FF_ERRORS : 0) | (c->user_stack ? FF_USTACK : 0) |
			 (lc->stacks ? FF_STACKS_USER : 0),
		.ret_kind = RK_LONG,
	};
	probes_update(l->env->probes, f);
}

/*
 * SYSCALL_<NAME> for each syscall include=/exclude= keep; returns how many,
 * and in *missed those wanted that found no room in the function table.
 */
static unsigned int functions_sync(struct layer *l, unsigned int *missed)
{
	char name[SMBLAT_NAME_LEN], target[SMBLAT_NAME_LEN + 16];
	unsigned int n = 0;
	const char *sys;
	int nr, id;

	for (unsigned int i = 0; (sys = syscalls_at(i, &nr)); i++) {
		struct func *f = l->ids[i] >= 0 ? &l->env->funcs->v[l->ids[i]] : NULL;

		procs_upper(PREFIX, sys, name, sizeof(name));
		if (!config_wants(l->env->cfg, LAYER_SYSCALLS, name) || nr >= SMBLAT_SYSCALL_MAX) {
			if (f && func_attached(f))
				probes_detach(l->env->probes, f, FUNC_EXCLUDED, NULL);
			procs_set_acct_id(l->env->probes, nr, -1);
			continue;
		}
		if (!f && *missed) {
			(*missed)++;
			continue;
		}
		if (!f) {
			snprintf(target, sizeof(target), "syscall:%s", sys);
			id = func_table_add(l->env->funcs, LAYER_SYSCALLS, GROUP_NONE, name, target, NULL);
			if (id < 0) {
				log_layer(NAME, STATUS_PROBE_FAILED, REASON_SYSTEM, LOG_WARNING,
					  "%s and later syscalls not accounted: %s", sys, strerror(-id));
				(*missed)++;
				continue;
			}
			l->ids[i] = id;
			f = &l->env->funcs->v[id];
		}
		configure(l, f);
		procs_set_acct_id(l->env->probes, nr, (int)f->id);
		func_set_attached(f, l->backend);
		n++;
	}
	return n;
}

static void syscalls_attach(struct layer *l)
{
	struct status st = { .kind = STATUS_LAYER_ATTACHED, .priority = LOG_INFO, .layer = NAME };
	struct sys_select s = selection(l->env->cfg);
	unsigned int missed = 0;
	char why[256];
	int r, seeded;

	l->why = NULL;
	l->off = false;
	if (l->env->cfg->layer[LAYER_SYSCALLS].automatic) {
		l->off = true;
		l->why = layer_off(NAME, REASON_DISABLED, l->why_buf, sizeof(l->why_buf),
				   "enabled = auto does not count every syscall (a probe on each); "
				   "enabled = yes does");
		return;
	}

	r = procs_attach(l->env->probes, PROCS_SYS_BOTH, why, sizeof(why));
	if (r < 0) {
		l->why = layer_unavailable(NAME, REASON_ATTACH_FAILED, l->why_buf, sizeof(l->why_buf), "%s",
					   why);
		return;
	}
	l->backend = r;
	if (select_apply(l, &s) < 0)
		return;
	r = (int)functions_sync(l, &missed);
	seeded = procs_seed(l->env->probes, &(struct procs_seed) { .acct_pid = s.pid, .count = PROC_ACCT });
	if (seeded < 0)
		log_layer(NAME, STATUS_AGENT_DEGRADED, REASON_ATTACH_FAILED, LOG_WARNING,
			  "processes running before the agent are not accounted (task iterator: %s); "
			  "those started later are",
			  strerror(-seeded));
	status_count_set(&st, COUNT_ATTACHED, r < 0 ? 0 : (uint64_t)r);
	status_count_set(&st, COUNT_NOT_ATTACHED, missed);
	log_emit(&st, "%d %s of %s accounted (%s), %d running %s chosen", r, PLURAL(r, "syscall", "syscalls"),
		 l->what, backend_name(l->backend), seeded < 0 ? 0 : seeded,
		 PLURAL(seeded, "process", "processes"));
}

static void syscalls_apply(struct layer *l, const struct config *old, struct reload_counts *n)
{
	char was[512], now[512];
	struct sys_select s = selection(l->env->cfg), o = selection(old);
	unsigned int missed = 0;

	if (l->backend == BACKEND_NONE)
		return;
	if (strcmp(syscalls_select_format(&o, was, sizeof(was)),
		   syscalls_select_format(&s, now, sizeof(now))))
		log_layer(NAME, STATUS_RELOAD_REFUSED, REASON_RESTART_NEEDED, LOG_NOTICE,
			  "select = %s takes effect at the next start (still %s)", now, was);
	n->attached += functions_sync(l, &missed);
}

static unsigned int syscalls_detach(struct layer *l, enum func_state why)
{
	struct procs_ctl *ctl = procs_ctl(l->env->probes);
	unsigned int n = 0;
	const char *sys;
	int nr;

	ctl->acct_smbd = 0;
	ctl->acct_cgroup = 0;
	ctl->acct_comm[0] = '\0';
	for (unsigned int i = 0; (sys = syscalls_at(i, &nr)); i++) {
		if (l->ids[i] < 0 || !func_attached(&l->env->funcs->v[l->ids[i]]))
			continue;
		procs_set_acct_id(l->env->probes, nr, -1);
		probes_detach(l->env->probes, &l->env->funcs->v[l->ids[i]], why, NULL);
		n++;
	}
	return n;
}

/* ---- summaries ---- */

static struct err_count *err_find(struct layer *l, uint32_t id, uint32_t err)
{
	struct err_count *v;

	for (size_t i = 0; i < l->n_errs; i++)
		if (l->errs[i].id == id && l->errs[i].err == err)
			return &l->errs[i];
	v = realloc(l->errs, (l->n_errs + 1) * sizeof(*v));
	if (!v)
		return NULL;
	l->errs = v;
	v[l->n_errs] = (struct err_count) { .id = id, .err = err };
	return &v[l->n_errs++];
}

/* The kernel's per-CPU failure counts, summed: cumulative, never reset. */
static void errs_read(struct layer *l)
{
	int fd = bpf_map__fd(probes_skel(l->env->probes)->maps.acct_errs), ncpus = libbpf_num_possible_cpus();
	struct acct_err_key k, next, *prev = NULL;
	uint64_t *v;

	if (fd < 0 || ncpus <= 0 || !(v = calloc(ncpus, sizeof(*v))))
		return;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		struct err_count *e;
		uint64_t sum = 0;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, v) < 0)
			continue;
		for (int c = 0; c < ncpus; c++)
			sum += v[c];
		e = err_find(l, k.id, k.err);
		if (e)
			e->seen = sum;
	}
	free(v);
}

/* One syscall's interval: its failures, the most frequent errno first. */
struct row {
	const struct func *f;
	const char *syscall;
	const struct summary *s;
	uint64_t errors;
	uint32_t top_err;
	uint64_t top_count;
	char errnos[256]; /* "ENOENT:12 EAGAIN:3" */
};

static void row_errors(struct layer *l, struct row *r)
{
	size_t n = 0;

	for (int k = 0; k < ERRNO_LIST_MAX; k++) {
		struct err_count *best = NULL;

		for (size_t i = 0; i < l->n_errs; i++) {
			struct err_count *e = &l->errs[i];

			if (e->id == r->f->id && e->seen > e->reported &&
			    (!best || e->seen - e->reported > best->seen - best->reported))
				best = e;
		}
		if (!best)
			break;
		if (!k) {
			r->top_err = best->err;
			r->top_count = best->seen - best->reported;
		}
		r->errors += best->seen - best->reported;
		if (n < sizeof(r->errnos)) {
			const char *en = strerrorname_np((int)best->err);

			n += (size_t)snprintf(r->errnos + n, sizeof(r->errnos) - n, "%s%s:%" PRIu64,
					      n ? " " : "", en ? en : "?", best->seen - best->reported);
		}
		best->reported = best->seen;
	}
	/* past the list: counted, not named */
	for (size_t i = 0; i < l->n_errs; i++)
		if (l->errs[i].id == r->f->id && l->errs[i].seen > l->errs[i].reported) {
			r->errors += l->errs[i].seen - l->errs[i].reported;
			l->errs[i].reported = l->errs[i].seen;
		}
}

static void row_journal(struct layer *l, const struct summary_out *out, const struct row *r)
{
	char errors[32], top[32], topn[32];
	const char *en = r->top_err ? strerrorname_np((int)r->top_err) : NULL;
	struct record_field extra[6];
	unsigned int n = 0;

	snprintf(errors, sizeof(errors), "%" PRIu64, r->errors);
	extra[n++] = (struct record_field) { "SYSCALL", (char *)r->syscall };
	extra[n++] = (struct record_field) { "ERRORS", errors };
	if (r->errors) {
		snprintf(top, sizeof(top), "%" PRIu32, r->top_err);
		snprintf(topn, sizeof(topn), "%" PRIu64, r->top_count);
		extra[n++] = (struct record_field) { "ERRNO", top };
		if (en)
			extra[n++] = (struct record_field) { "ERRNO_NAME", (char *)en };
		extra[n++] = (struct record_field) { "ERRNO_COUNT", topn };
		extra[n++] = (struct record_field) { "ERRNOS", (char *)r->errnos };
	}
	journal_write_view_summary(out->journal, r->f->name, LAYER_SYSCALLS, r->s, out->interval_s, extra, n,
				   SMBLAT_MID_SYSCALLS);
}

static int row_by_time(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->s->total_ns != y->s->total_ns)
		return x->s->total_ns < y->s->total_ns ? 1 : -1;
	return x->s->count < y->s->count ? 1 : x->s->count > y->s->count ? -1 : 0;
}

#define RULE "------ ----------- ----------- --------- --------- ----------------\n"

/*
 * strace -c's table, sorted by time; a syscall's errors and all its errnos
 * beside (as the journal's ERRNOS), after the longest name of the table.
 */
static void table_print(FILE *out, const struct layer *l, struct row *v, size_t n, double interval_s)
{
	uint64_t total_ns = 0, calls = 0, errors = 0;
	int width = 16;

	qsort(v, n, sizeof(*v), row_by_time);
	for (size_t i = 0; i < n; i++) {
		total_ns += v[i].s->total_ns;
		calls += v[i].s->count;
		errors += v[i].errors;
		if (v[i].errors && (int)strlen(v[i].syscall) > width)
			width = (int)strlen(v[i].syscall);
	}
	fprintf(out, "syscalls of %s over %.1f s:\n", l->what, interval_s);
	fprintf(out, "%% time     seconds  usecs/call     calls    errors syscall\n" RULE);
	for (size_t i = 0; i < n; i++) {
		const struct summary *s = v[i].s;

		fprintf(out, "%6.2f %11.6f %11" PRIu64 " %9" PRIu64 " ",
			total_ns ? 100.0 * s->total_ns / total_ns : 0, s->total_ns / 1e9,
			s->total_ns / s->count / 1000, s->count);
		if (v[i].errors)
			fprintf(out, "%9" PRIu64 " %-*s %s\n", v[i].errors, width, v[i].syscall, v[i].errnos);
		else
			fprintf(out, "%9s %s\n", "", v[i].syscall);
	}
	fprintf(out, RULE "100.00 %11.6f %11" PRIu64 " %9" PRIu64 " %9" PRIu64 " total\n", total_ns / 1e9,
		calls ? total_ns / calls / 1000 : 0, calls, errors);
}

static void syscalls_summarize(struct layer *l, const struct summary_out *out)
{
	struct row *v = calloc(l->n_ids ? l->n_ids : 1, sizeof(*v));
	const char *sys;
	size_t n = 0;
	int nr;

	if (!v)
		return;
	errs_read(l);
	for (unsigned int i = 0; (sys = syscalls_at(i, &nr)); i++) {
		if (l->ids[i] < 0 || !out->acc[l->ids[i]].count)
			continue;
		v[n] = (struct row) { .f = &l->env->funcs->v[l->ids[i]],
				      .syscall = sys,
				      .s = &out->acc[l->ids[i]] };
		row_errors(l, &v[n]);
		if (out->journal)
			row_journal(l, out, &v[n]);
		n++;
	}
	if (!out->journal && n)
		table_print(out->table, l, v, n, out->interval_s);
	free(v);
}

static void syscalls_list(struct layer *l, FILE *out)
{
	procs_list(l->env->probes, out, "(syscalls)", LAYER_SYSCALLS);
}

static enum layer_state syscalls_state(struct layer *l, const char **why)
{
	if (l->why) {
		*why = l->why;
		return l->off ? LAYER_OFF : LAYER_UNAVAILABLE;
	}
	if (l->backend != BACKEND_NONE)
		return LAYER_ACTIVE;
	*why = "not attached";
	return LAYER_UNAVAILABLE;
}

static int syscalls_prepare(struct layer *l, struct probes_opts *po)
{
	const struct config *c = l->env->cfg;

	/* a probe on every syscall of the machine: never switched on by auto */
	if (!c->layer[LAYER_SYSCALLS].enabled || c->layer[LAYER_SYSCALLS].automatic)
		return 0;
	po->stacks |= c->layer[LAYER_SYSCALLS].stacks;
	return procs_want(po);
}

static uint32_t syscalls_ids_needed(const struct config *c)
{
	return syscalls_count();
}

static void syscalls_free(struct layer *l)
{
	if (l->cgroup_fd >= 0)
		close(l->cgroup_fd);
	free(l->ids);
	free(l->errs);
}

const struct layer_ops syscalls_layer = {
	.id = LAYER_SYSCALLS,
	.config = &syscalls_settings_section,
	.traces = "every syscall of chosen processes, counted",
	.size = sizeof(struct layer),
	.own_summaries = true,
	.ids_needed = syscalls_ids_needed,
	.prepare = syscalls_prepare,
	.init = syscalls_init,
	.attach = syscalls_attach,
	.apply = syscalls_apply,
	.detach = syscalls_detach,
	.list = syscalls_list,
	.summarize = syscalls_summarize,
	.state = syscalls_state,
	.free = syscalls_free,
};
