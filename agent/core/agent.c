// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The core: sets up the services, drives the layers of layer_table through
 * their interface, and runs the main loop (events, timers, signals). It
 * names no layer.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "base/macro.h"
#include "base/log.h"
#include "base/privs.h"
#include "base/profile.h"
#include "base/ratelimit.h"
#include "core/agent-int.h"
#include "sinks/writer.h"
#include "smblat-config.h"
#include "base/clock.h"

#define FUNC_SLACK 128 /* ids beyond what the layers asked for: a reload may enable one */
/*
 * Events taken per turn of the loop: a ring buffer that never runs dry
 * must not starve the signals and timers (stop, duration, watchdog).
 */

/* ---- layers ---- */

static void layer_attach(struct agent *a, enum layer_id l, void *userdata)
{
	if (a->cfg->layer[l].enabled)
		layer_table[l]->attach(a->layer[l]);
}

/* ---- setup and teardown ---- */

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

static int libbpf_verbose(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return vfprintf(stderr, fmt, ap);
}

static int status_to_journal(void *userdata, const struct status *s)
{
	return journal_write_status(userdata, s);
}

static int setup_sinks(struct agent *a)
{
	struct journal_opts jo = {
		.priority_slow = a->cfg->priority_slow,
		.priority_summary = a->cfg->priority_summary,
		.priority_lost = LOG_ERR,
	};
	int r;

	if (a->opt->to_stdout || a->opt->list_probes || !a->cfg->journal)
		return 0;
	r = journal_probe();
	if (r < 0) {
		log_status(STATUS_AGENT_DEGRADED, REASON_NO_JOURNAL, LOG_WARNING,
			   "journald is not running "
			   "(/run/systemd/journal/socket: %s): printing events to the terminal instead",
			   strerror(-r));
		return 0;
	}
	r = journal_new(&jo, &a->journal);
	if (r < 0)
		return r;
	/* under systemd stderr is the journal already: say it once, with the fields */
	log_set_sink(status_to_journal, a->journal, !journal_is_stderr());
	/* a terminal: one screen says what the start and layer statuses say in the journal */
	a->overview = isatty(STDERR_FILENO) && !journal_is_stderr();
	if (a->overview)
		log_stderr_skip(1u << STATUS_AGENT_START | 1u << STATUS_LAYER_ATTACHED |
				1u << STATUS_LAYER_WAITING | 1u << STATUS_LAYER_UNAVAILABLE |
				1u << STATUS_LAYER_OFF);
	log_status(STATUS_AGENT_START, REASON_NONE, LOG_INFO, "starting smblat %s, configuration %s%s",
		   SMBLAT_VERSION, a->opt->config_path ? a->opt->config_path : "built in",
		   a->opt->config_path && access(a->opt->config_path, F_OK) < 0 ? " (absent: defaults)" : "");
	return 0;
}

static int setup_symbols(struct agent *a)
{
	int r = ksyms_load(&a->ks);
	const char *why = ksyms_explain(r);

	if (r < 0 && why && a->opt->kernel_symbols_optional) {
		/* no kernel function to find: kernel frames can stay addresses */
		log_status(STATUS_AGENT_DEGRADED, REASON_SYSTEM, LOG_NOTICE,
			   "kernel stacks show addresses only: %s", why);
		r = ksyms_new_empty(&a->ks);
	}
	if (r < 0) {
		log_status(STATUS_AGENT_FAILED, REASON_SYSTEM, LOG_ERR, "cannot read kernel symbols: %s",
			   why ? why : strerror(-r));
		return -ECANCELED;
	}
	r = btfs_new(&a->btfs);
	if (r == 0)
		r = usyms_new(&a->us);
	if (r == 0)
		r = mounts_new(NULL, &a->mounts);
	if (r == 0)
		r = stats_new(&a->stats);
	return r;
}

static uint64_t cgroup_id_of(const char *path)
{
	char full[4096];
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	int mount_id;

	snprintf(full, sizeof(full), "%s%s",
		 path[0] == '/' && strncmp(path, "/sys/fs/cgroup", 14) ? "/sys/fs/cgroup" : "", path);
	if (name_to_handle_at(AT_FDCWD, full, &h.fh, &mount_id, 0) < 0)
		return 0;
	return h.id;
}

/* Every layer exists (a reload may enable it), before the BPF object loads. */
static int layers_new(struct agent *a)
{
	for (int l = 0; l < _LAYER_MAX; l++) {
		a->layer[l] = layer_new(l, &a->env);
		if (!a->layer[l])
			return -ENOMEM;
	}
	return 0;
}

/* What the layers want of the BPF object, asked before it loads. */
static int layers_prepare(struct agent *a, struct probes_opts *po)
{
	int r;

	po->func_capacity = FUNC_SLACK;
	for (int l = 0; l < _LAYER_MAX; l++) {
		if (a->cfg->layer[l].enabled)
			po->func_capacity += layer_table[l]->ids_needed(a->cfg);
		if (!layer_table[l]->prepare)
			continue;
		r = layer_table[l]->prepare(a->layer[l], po);
		if (r < 0)
			return -ECANCELED; /* said why */
	}
	if (po->func_capacity > SMBLAT_MAX_FUNCS)
		po->func_capacity = SMBLAT_MAX_FUNCS;
	return 0;
}

/* What the kernel lacks that the user stack walk needs (ustack.bpf.h). */
static const char *fallback_ustack_why(struct agent *a)
{
	static const enum kfeature needs[] = { KF_FIND_VMA, KF_LOOP, KF_TASK_PT_REGS };
	static char buf[128];

#ifndef __x86_64__
	return "the walk by unwind tables is for x86-64";
#endif
	for (size_t i = 0; i < sizeof(needs) / sizeof(*needs); i++)
		if (!features_has(a->features, needs[i]))
			return features_missing(needs[i], buf, sizeof(buf));
	return "?";
}

/* One line for each feature the core works around: what is missing, and what it does instead. */
static void fallbacks_report(struct agent *a)
{
	char what[96], how[64];

	if (a->cfg->thread_state == TSTATE_HASH)
		log_status(STATUS_AGENT_DEGRADED, REASON_NONE, LOG_NOTICE,
			   "thread_state = hash: per-thread state in %s",
			   probes_thread_state(a->probes, how, sizeof(how)));
	else if (!features_has(a->features, KF_TASK_STORAGE))
		log_status(STATUS_AGENT_DEGRADED, REASON_NONE, LOG_NOTICE,
			   "kernel lacks %s: per-thread state in %s "
			   "(max_threads=), calls of further threads counted as not timed",
			   features_missing(KF_TASK_STORAGE, what, sizeof(what)),
			   probes_thread_state(a->probes, how, sizeof(how)));
	if (!features_has(a->features, KF_COOKIE))
		log_status(STATUS_AGENT_DEGRADED, REASON_NONE, LOG_NOTICE,
			   "kernel lacks %s: kprobes and uprobes tell their "
			   "function by the probed address",
			   features_missing(KF_COOKIE, what, sizeof(what)));
}

static int setup_probes(struct agent *a)
{
	char why[512] = "";
	struct probes_opts po = {
		.thread_state = a->cfg->thread_state,
		.max_threads = a->cfg->max_threads,
		.offcpu = a->cfg->offcpu,
		.choice = a->cfg->backend,
		.tgid = a->cfg->pid,
		.self_tgid = getpid(),
		.comm = a->cfg->comm,
		.ringbuf_bytes = agent_ringbuf_bytes(a->cfg),
		.us = a->us,
	};
	int r;

	a->env = (struct layer_env) {
		.cfg = a->cfg,
		.funcs = &a->funcs,
		.ks = a->ks,
		.btfs = a->btfs,
		.us = a->us,
		.mounts = a->mounts,
		.dec = &a->dec,
	};
	if (a->cfg->cgroup && *a->cfg->cgroup) {
		po.cgroup_id = cgroup_id_of(a->cfg->cgroup);
		if (!po.cgroup_id) {
			log_status(STATUS_AGENT_FAILED, REASON_NOT_FOUND, LOG_ERR, "cgroup %s: %m",
				   a->cfg->cgroup);
			return -ECANCELED;
		}
	}
	r = features_probe(a->btfs, &a->features);
	if (r < 0)
		return r;
	a->env.features = po.features = a->features;
	r = layers_new(a);
	if (r < 0)
		return r;
	r = layers_prepare(a, &po);
	if (r < 0)
		return -ECANCELED; /* said why already */
	r = probes_open(&po, a->ks, a->btfs, &a->probes, why, sizeof(why));
	if (r < 0) {
		log_status(STATUS_AGENT_FAILED, r == -EOPNOTSUPP ? REASON_NO_BACKEND : REASON_SYSTEM, LOG_ERR,
			   "%s", why);
		return -ECANCELED;
	}
	if (po.offcpu && (r = offcpu_new(&a->offcpu)) < 0)
		return r;
	if (po.stacks && (r = stacks_new(&a->stacks)) < 0)
		return r;
	a->env.probes = a->probes;
	fallbacks_report(a);
	a->rb = ring_buffer__new(probes_ringbuf_fd(a->probes), agent_on_event, a, NULL);
	if (!a->rb)
		return -errno;
	if (probes_ufile_notes_fd(a->probes) >= 0) {
		a->notes = ring_buffer__new(probes_ufile_notes_fd(a->probes), agent_on_note, a, NULL);
		if (!a->notes)
			return -errno;
	} else {
		log_status(STATUS_AGENT_DEGRADED, REASON_NONE, LOG_NOTICE,
			   "user stacks walked by the kernel (frame pointers) and symbolized from "
			   "/proc/PID/maps: %s",
			   fallback_ustack_why(a));
	}
	return 0;
}

/* The layers enabled attach now. */
static int layers_start(struct agent *a)
{
	int r = agent_layers_privileged(a, layer_attach, NULL);

	if (r < 0)
		log_status(STATUS_AGENT_FAILED, REASON_PRIVILEGES, LOG_ERR,
			   "cannot raise the attach capabilities: %s", strerror(-r));
	return r < 0 ? -ECANCELED : 0;
}

/*
 * Running makes sense while something is traced or can still come; else
 * the reasons, and a failed start.
 */
static int layers_check(struct agent *a)
{
	char waiting[512] = "", none[1024] = "";
	size_t nw = 0, nn = 0;
	bool active = false;

	for (int l = 0; l < _LAYER_MAX; l++) {
		const char *why = NULL;
		enum layer_state s;

		if (!a->cfg->layer[l].enabled)
			continue;
		s = layer_table[l]->state(a->layer[l], &why);
		active |= s == LAYER_ACTIVE;
		if (s == LAYER_WAITING && nw < sizeof(waiting))
			nw += snprintf(waiting + nw, sizeof(waiting) - nw, "%s%s: %s", nw ? "; " : "",
				       layer_name(l), why ? why : "?");
		if (s == LAYER_UNAVAILABLE && nn < sizeof(none))
			nn += snprintf(none + nn, sizeof(none) - nn, "%s%s: %s", nn ? "; " : "",
				       layer_name(l), why ? why : "?");
	}
	if (active || nw) {
		/* the ready line says what it waits for */
		if (!active)
			snprintf(a->waiting, sizeof(a->waiting), "%s", waiting);
		return 0;
	}
	log_status(STATUS_AGENT_FAILED, REASON_NOTHING_TO_TRACE, LOG_ERR, "nothing to trace: %s",
		   nn ? none : "no layer enabled");
	return -ECANCELED;
}

/*
 * Kernels before 5.19 with kernel.unprivileged_bpf_disabled (Debian 11's
 * default) refuse bpf() as a whole to a process without CAP_BPF: the
 * counters, the counted stacks and the views' maps could not be read
 * after the drop, and every summary would be lost. CAP_BPF stays
 * effective there, and the start says so.
 */
static int maps_access(struct agent *a)
{
	int r = probes_maps_readable(a->probes);

	if (r != -EPERM)
		return 0;
	r = privs_keep_effective(UINT64_C(1) << CAP_BPF);
	if (r < 0 || probes_maps_readable(a->probes) < 0) {
		log_status(STATUS_AGENT_FAILED, REASON_PRIVILEGES, LOG_ERR,
			   "cannot read the BPF maps as user %s: the kernel refuses bpf() to it, and "
			   "CAP_BPF could not be kept effective",
			   a->cfg->user);
		return -ECANCELED; /* said */
	}
	log_status(STATUS_AGENT_DEGRADED, REASON_NONE, LOG_NOTICE,
		   "kernel refuses bpf() to unprivileged processes (kernel.unprivileged_bpf_disabled, "
		   "before Linux 5.19): CAP_BPF stays effective as user %s, to read the counters",
		   a->cfg->user);
	return 0;
}

static int drop_privileges(struct agent *a)
{
	char why[256];
	int r;

	if (geteuid() != 0 || !a->cfg->user || !*a->cfg->user)
		return 0;
	/*
	 * Attach rights stay permitted, never effective but around an attach:
	 * cifs may load later, and SIGHUP may add probes (smblat(8), PRIVILEGES).
	 */
	r = privs_drop(a->cfg->user, true, why, sizeof(why));
	if (r == -ESRCH) {
		log_status(STATUS_AGENT_DEGRADED, REASON_NO_USER, LOG_WARNING,
			   "user %s does not exist: running as root; create it with systemd-sysusers "
			   "(smblat.sysusers, installed as /usr/lib/sysusers.d/smblat.conf) or set user= "
			   "in [agent] of smblat.conf",
			   a->cfg->user);
		return 0;
	}
	if (r < 0) {
		log_status(STATUS_AGENT_FAILED, REASON_PRIVILEGES, LOG_ERR, "cannot drop privileges: %s",
			   why);
		return -ECANCELED; /* said */
	}
	a->dropped = true;
	return maps_access(a);
}

/*
 * Journal writes move to a thread of their own (writer.c says why). Started
 * after the privilege drop: threads keep the credentials they were created
 * with, and privs_drop() wants to be the only thread; and after
 * agent_loop_setup(), so that it inherits the mask that leaves signals to signalfd.
 */
static int writer_setup(struct agent *a)
{
	int r;

	if (!a->journal)
		return 0;
	r = writer_new(&a->writer);
	if (r == 0)
		r = writer_start(a->writer);
	if (r == 0)
		r = agent_loop_watch_room(a);
	if (r < 0)
		return r;
	journal_set_writer(a->journal, a->writer);
	return 0;
}

static void teardown(struct agent *a)
{
	uint64_t t0 = now_ns();

	sd_event_unref(a->loop);
	ring_buffer__free(a->notes);
	ring_buffer__free(a->rb);
	probes_close(a->probes);
	/* after the last status line: a terminal's stderr only, for whoever times a stop */
	if (!a->opt->list_probes && !journal_is_stderr() && now_ns() - t0 >= 1000000)
		fprintf(stderr, "smblat: detached in %.2f s\n", (now_ns() - t0) / 1e9);
	for (int l = _LAYER_MAX - 1; l >= 0; l--)
		layer_free(l, a->layer[l]);
	features_free(a->features);
	log_set_sink(NULL, NULL, true);
	log_stderr_skip(0);
	writer_free(a->writer);
	journal_free(a->journal);
	reload_free(a);
	stats_free(a->stats);
	mounts_free(a->mounts);
	usyms_free(a->us);
	btfs_free(a->btfs);
	ksyms_free(a->ks);
	func_table_free(&a->funcs);
	stacks_free(a->stacks);
	offcpu_free(a->offcpu);
	folded_free(&a->run_stacks);
	free(a->acc);
	free(a->loss);
	ratelimit_free(a->rate);
}

static void ready(struct agent *a)
{
	struct status s = { .kind = STATUS_AGENT_READY, .priority = LOG_INFO };
	char spent[256];

	prof_format(spent, sizeof(spent));
	status_count_set(&s, COUNT_ATTACHED, func_table_attached(&a->funcs, -1));
	status_count_set(&s, COUNT_THRESHOLD_US, a->cfg->threshold_ns / 1000);
	log_emit(&s, "ready: %u %s attached%s%s%s, threshold %.3f ms, output %s (start-up %.2f s%s%s)",
		 func_table_attached(&a->funcs, -1),
		 PLURAL(func_table_attached(&a->funcs, -1), "function", "functions"),
		 a->waiting[0] ? " (waiting: " : "", a->waiting, a->waiting[0] ? ")" : "",
		 a->cfg->threshold_ns / 1e6, a->journal ? "journal" : "terminal",
		 (now_ns() - a->started_ns) / 1e9, spent[0] ? ": " : "", spent);
	sd_notifyf(false, "READY=1\nSTATUS=%u %s attached", func_table_attached(&a->funcs, -1),
		   PLURAL(func_table_attached(&a->funcs, -1), "function", "functions"));
	if (a->opt->to_stdout && !a->opt->hist_only) {
		struct term_opts o = a->opt->term;

		/* the names known now (all but those a reload adds): no long one pushes its line aside */
		for (uint32_t i = 0; i < a->funcs.n; i++)
			if (func_attached(&a->funcs.v[i]) && (int)strlen(a->funcs.v[i].name) > a->name_width)
				a->name_width = (int)strlen(a->funcs.v[i].name);
		o.name_width = a->name_width;
		term_print_header(stdout, &o);
	}
	fflush(stdout);
}

/*
 * The last events, summary and loss report; the writer gets time to deliver
 * them. -errno when an output asked for (--svg) could not be written.
 */
static int finish(struct agent *a)
{
	struct status s = { .kind = STATUS_AGENT_STOP, .priority = LOG_INFO };
	uint64_t written, failed;
	int r;

	sd_notify(false, "STOPPING=1");
	a->stopping = true;
	agent_drain_all(a);
	if (a->writer)
		writer_drain(a->writer, 3000); /* so that the last loss report has its failures */
	/* the final summary, also when periodic ones are off ([histogram] interval = 0) */
	report_now(a, true, true);
	r = report_flame(a);
	/* the stop line counts these last entries too, once they are sent */
	if (a->writer)
		writer_drain(a->writer, 3000);
	report_counts(a, &written, &failed);
	status_count_set(&s, COUNT_ENTRIES_WRITTEN, written);
	status_count_set(&s, COUNT_ENTRIES_FAILED, failed);
	log_emit(&s, "stopped: %llu %s written, %llu failed", (unsigned long long)written,
		 PLURAL(written, "entry", "entries"), (unsigned long long)failed);
	report_writer_stop(a);
	return r;
}

static int start(struct agent *a)
{
	int r = setup_sinks(a);

	if (r == 0)
		r = setup_symbols(a);
	if (r == 0)
		r = setup_probes(a);
	if (r < 0)
		return r;
	a->dec = (struct decoder) {
		.funcs = &a->funcs,
		.ks = a->ks,
		.us = a->us,
		.mounts = a->mounts,
		.boot_to_realtime_ns = event_clock_offset(),
	};
	return layers_start(a);
}

int agent_config_register(void)
{
	for (enum layer_id l = 0; l < _LAYER_MAX; l++) {
		int r = config_layer_register(l, layer_table[l]->config);

		if (r < 0)
			return r;
	}
	return 0;
}

int agent_run(struct config *c, const struct run_opts *o)
{
	struct agent a = { .cfg = c, .opt = o, .started_ns = now_ns() };
	int r;

	libbpf_set_print(o->verbose ? libbpf_verbose : libbpf_quiet);
	a.hist_interval_ns = o->hist_only ? o->hist_interval_ns : c->hist_interval_ns;
	/* zero-filled summaries are empty ones (hist_merge()): pages of ids never used stay untouched */
	a.acc = calloc(SMBLAT_MAX_FUNCS, sizeof(*a.acc));
	a.loss = calloc(SMBLAT_MAX_FUNCS, sizeof(*a.loss));
	if (!a.acc || !a.loss || ratelimit_new(SMBLAT_MAX_FUNCS, &a.rate) < 0) {
		r = -ENOMEM;
		goto out;
	}
	r = start(&a);
	if (r < 0)
		goto out;
	if (o->list_probes) {
		overview_list_probes(&a, stdout);
		goto out;
	}
	if (a.overview)
		overview_print(&a, stderr);
	r = layers_check(&a);
	if (r == 0)
		r = drop_privileges(&a);
	if (r == 0)
		r = agent_loop_setup(&a);
	if (r < 0)
		goto out;
	a.last_summary_ns = a.last_loss_ns = now_ns();
	ratelimit_set(a.rate, c->rate_limit, config_rate_burst(c), a.last_summary_ns);
	r = writer_setup(&a);
	if (r == 0)
		r = reload_init(&a);
	if (r < 0)
		goto out;
	ready(&a);
	agent_services_trim(&a);
	/* and what libbpf's load let go */
	malloc_trim(0);
	log_stderr_skip(0); /* from now on a terminal sees each change */
	r = sd_event_loop(a.loop);
	if (r >= 0)
		r = finish(&a) < 0 ? -ECANCELED : 0; /* said why */
	else
		(void)finish(&a);
out:
	if (r < 0 && r != -ECANCELED)
		log_status(STATUS_AGENT_FAILED, REASON_SYSTEM, LOG_ERR, "cannot start: %s", strerror(-r));
	teardown(&a);
	return r < 0 ? 1 : 0;
}
