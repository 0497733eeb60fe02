// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The core: sets up the services, drives the layers of layer_table through
 * their interface, and runs the main loop (events, timers, signals). It
 * names no layer.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "base/log.h"
#include "base/privs.h"
#include "core/agent-int.h"
#include "sinks/writer.h"

#define WATCH_USEC (2 * 1000000ULL)
#define FUNC_SLACK 128          /* ids beyond what the layers asked for: a reload may enable one */
/*
 * Events taken per turn of the loop: a ring buffer that never runs dry
 * must not starve the signals and timers (stop, duration, watchdog).
 */
#define DRAIN_BATCH 4096

/* ---- events ---- */

/* rate_burst = 0 means as many as rate_limit, one second's worth. */
static double rate_burst(const struct config *c)
{
	return c->rate_burst ? c->rate_burst : c->rate_limit;
}

static bool rate_allows(struct agent *a)
{
	uint64_t now;

	if (!a->cfg->rate_limit)
		return true;
	now = agent_now_ns();
	a->tokens += (now - a->tokens_at_ns) / 1e9 * a->cfg->rate_limit;
	if (a->tokens > rate_burst(a->cfg))
		a->tokens = rate_burst(a->cfg);
	a->tokens_at_ns = now;
	if (a->tokens < 1)
		return false;
	a->tokens -= 1;
	return true;
}

static void event_sink(struct agent *a, struct record *r)
{
	int err;

	if (!rate_allows(a)) {
		a->loss[r->func->id].suppressed++;
	} else if (a->journal) {
		err = journal_write_event(a->journal, r);
		if (err < 0) {
			a->loss[r->func->id].write_failed++;
			a->failed++;
		} else {
			a->written++;
		}
	} else if (!a->opt->hist_only) {
		term_print_event(stdout, &a->opt->term, r);
		fflush(stdout);
		a->written++;
	}
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct agent *a = ctx;
	const struct layer_ops *ops;
	struct record r;

	if (event_decode(&a->dec, data, size, &r) == 0) {
		/* each layer decodes its own part of the event (the flags say which) */
		for (int l = 0; l < _LAYER_MAX; l++) {
			ops = layer_table[l];
			if (ops->decode && a->layer[l])
				ops->decode(a->layer[l], data, &r);
		}
		event_sink(a, &r);
	}
	event_record_clear(&r);
	/* negative stops this turn once the batch is full; the event itself is taken */
	return ++a->batch >= DRAIN_BATCH ? -EAGAIN : 0;
}

unsigned int agent_drain(struct agent *a, unsigned int max)
{
	unsigned int taken = 0;

	do {
		a->batch = 0;
		(void)ring_buffer__consume(a->rb);
		taken += a->batch;
	} while (a->batch >= DRAIN_BATCH && taken < max);
	return taken;
}

/* What the ring buffer can hold: draining that much empties what was there. */
static unsigned int ringbuf_events(const struct agent *a)
{
	return a->cfg->ringbuf_bytes / sizeof(struct event) + DRAIN_BATCH;
}

static int on_ringbuf(sd_event_source *s, int fd, uint32_t revents, void *ctx)
{
	agent_drain(ctx, DRAIN_BATCH);
	return 0;
}

/* ---- layers ---- */

void agent_layers_privileged(struct agent *a, void (*fn)(struct agent *a, enum layer_id l, void *),
			     void *userdata)
{
	/* Attach rights stay permitted after the drop, effective only around an attach. */
	if (a->dropped && privs_raise() < 0) {
		log_status(STATUS_AGENT, LOG_WARNING, "cannot raise the attach capabilities: %m");
		return;
	}
	for (int l = 0; l < _LAYER_MAX; l++)
		if (a->layer[l])
			fn(a, l, userdata);
	if (a->dropped)
		privs_lower();
}

static void layer_watch(struct agent *a, enum layer_id l, void *userdata)
{
	if (a->cfg->layer[l].enabled && layer_table[l]->watch)
		layer_table[l]->watch(a->layer[l]);
}

static void layer_attach(struct agent *a, enum layer_id l, void *userdata)
{
	if (a->cfg->layer[l].enabled)
		layer_table[l]->attach(a->layer[l]);
}

/* ---- the loop ---- */

/* Time sources fire once; periodic ones are armed again each time. */
static int rearm(sd_event_source *s, uint64_t usec)
{
	int r = sd_event_source_set_time(s, usec);

	return r < 0 ? r : sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static int on_summary_timer(sd_event_source *s, uint64_t usec, void *ctx)
{
	struct agent *a = ctx;

	agent_drain(a, DRAIN_BATCH);
	report_now(a, true, false);
	return rearm(s, usec + a->hist_interval_ns / 1000);
}

static int on_loss_timer(sd_event_source *s, uint64_t usec, void *ctx)
{
	struct agent *a = ctx;
	uint64_t written, failed;

	agent_drain(a, DRAIN_BATCH);
	report_now(a, false, true);
	report_writer_health(a);
	report_counts(a, &written, &failed);
	sd_notifyf(false, "STATUS=%u functions attached, %llu entries written, %llu failed",
		   func_table_attached(&a->funcs, -1), (unsigned long long)written,
		   (unsigned long long)failed);
	return rearm(s, usec + a->cfg->lost_interval_ns / 1000);
}

static int on_watch(sd_event_source *s, uint64_t usec, void *ctx)
{
	agent_layers_privileged(ctx, layer_watch, NULL);
	return rearm(s, usec + WATCH_USEC);
}

static int on_stop(sd_event_source *s, const struct signalfd_siginfo *si, void *ctx)
{
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

static int on_duration(sd_event_source *s, uint64_t usec, void *ctx)
{
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

static int on_usr1(sd_event_source *s, const struct signalfd_siginfo *si, void *ctx)
{
	struct agent *a = ctx;

	agent_drain(a, DRAIN_BATCH);
	report_now(a, true, false);
	return 0;
}

static int on_hup(sd_event_source *s, const struct signalfd_siginfo *si, void *ctx)
{
	struct agent *a = ctx;

	sd_notify(false, "RELOADING=1");
	agent_drain(a, ringbuf_events(a));  /* events of removed functions still have their names */
	(void)reload_config(a);
	sd_notify(false, "READY=1");
	return 0;
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

static void status_to_journal(void *userdata, const struct status *s)
{
	journal_write_status(userdata, s);
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
		log_status(STATUS_AGENT, LOG_WARNING, "journald is not running "
			   "(/run/systemd/journal/socket: %s): printing events to the terminal instead",
			   strerror(-r));
		return 0;
	}
	r = journal_new(&jo, &a->journal);
	if (r < 0)
		return r;
	/* under systemd stderr is the journal already: say it once, with the fields */
	log_set_sink(status_to_journal, a->journal, !journal_is_stderr());
	return 0;
}

static int setup_symbols(struct agent *a)
{
	int r = ksyms_load(&a->ks);

	if (r < 0) {
		const char *why = ksyms_explain(r);

		log_status(STATUS_AGENT, LOG_ERR, "cannot read kernel symbols: %s",
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

	snprintf(full, sizeof(full), "%s%s", path[0] == '/' && strncmp(path, "/sys/fs/cgroup", 14) ?
		 "/sys/fs/cgroup" : "", path);
	if (name_to_handle_at(AT_FDCWD, full, &h.fh, &mount_id, 0) < 0)
		return 0;
	return h.id;
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
		r = layer_table[l]->prepare(a->cfg, &a->env, po);
		if (r < 0)
			return -ECANCELED;  /* said why */
	}
	if (po->func_capacity > SMBLAT_MAX_FUNCS)
		po->func_capacity = SMBLAT_MAX_FUNCS;
	return 0;
}

static int setup_probes(struct agent *a)
{
	struct probes_opts po = {
		.choice = a->cfg->backend,
		.tgid = a->cfg->pid,
		.self_tgid = getpid(),
		.comm = a->cfg->comm,
		.ringbuf_bytes = a->cfg->ringbuf_bytes,
		.share_view_max = a->cfg->hist_per_share_max,
	};
	int r;

	a->env = (struct layer_env) {
		.cfg = a->cfg, .funcs = &a->funcs, .ks = a->ks, .btfs = a->btfs, .us = a->us,
		.mounts = a->mounts,
	};
	if (a->cfg->cgroup && *a->cfg->cgroup) {
		po.cgroup_id = cgroup_id_of(a->cfg->cgroup);
		if (!po.cgroup_id) {
			log_status(STATUS_AGENT, LOG_ERR, "cgroup %s: %m", a->cfg->cgroup);
			return -ECANCELED;
		}
	}
	r = layers_prepare(a, &po);
	if (r == 0)
		r = probes_open(&po, a->ks, a->btfs, &a->probes);
	if (r < 0)
		return -ECANCELED;      /* said why already */
	a->env.probes = a->probes;
	a->rb = ring_buffer__new(probes_ringbuf_fd(a->probes), on_event, a, NULL);
	return a->rb ? 0 : -errno;
}

/* Every layer exists (a reload may enable it); those enabled attach now. */
static int layers_start(struct agent *a)
{
	for (int l = 0; l < _LAYER_MAX; l++) {
		a->layer[l] = layer_new(l, &a->env);
		if (!a->layer[l])
			return -ENOMEM;
	}
	agent_layers_privileged(a, layer_attach, NULL);
	return 0;
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
		if (!active)
			log_status(STATUS_AGENT, LOG_NOTICE, "nothing attached yet; waiting (%s)", waiting);
		return 0;
	}
	log_status(STATUS_AGENT, LOG_ERR, "nothing to trace: %s", nn ? none : "no layer enabled");
	return -ECANCELED;
}

static void list_probes(struct agent *a)
{
	const char *why = NULL;
	enum backend be = probes_kernel_backend(a->probes, &why);
	char buf[256];

	if (be == BACKEND_NONE)
		printf("# kernel functions: no backend: %s\n", why ? why : "?");
	else
		printf("# kernel functions: %s first, falling back per function\n", backend_name(be));
	why = probes_tp_btf_why(a->probes);
	printf("# tracepoints (block, syscall:): %s\n", why ? why : "tp_btf first, raw_tp when refused");
	printf("%-28s %-6s %-36s %-13s %s\n", "FUNCTION", "LAYER", "TARGET", "BACKEND", "STATUS");
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		const struct func *f = &a->funcs.v[i];
		char target[256];

		snprintf(target, sizeof(target), "%s%s%s%s", f->symbol ? f->symbol : "-",
			 f->module ? " [" : "", f->module ? f->module : "", f->module ? "]" : "");
		layer_list_row(stdout, f->name, f->layer, target,
			       func_attached(f) ? backend_name(f->backend) : "-",
			       func_state_text(f, buf, sizeof(buf)));
	}
	for (int l = 0; l < _LAYER_MAX; l++)
		if (a->cfg->layer[l].enabled && layer_table[l]->list)
			layer_table[l]->list(a->layer[l], stdout);
}

static int drop_privileges(struct agent *a)
{
	int r;

	if (geteuid() != 0 || !a->cfg->user || !*a->cfg->user)
		return 0;
	/*
	 * Attach rights stay permitted, never effective but around an attach:
	 * cifs may load later, and SIGHUP may add probes (smblat(8), PRIVILEGES).
	 */
	r = privs_drop(a->cfg->user, true);
	if (r == -ESRCH) {
		log_status(STATUS_AGENT, LOG_WARNING, "user %s does not exist: running as root",
			   a->cfg->user);
		return 0;
	}
	if (r < 0)
		return r;
	a->dropped = true;
	return 0;
}

static int setup_loop(struct agent *a)
{
	sd_event_source *s = NULL;
	sigset_t ss;
	uint64_t now;
	int r;

	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	sigaddset(&ss, SIGUSR1);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	r = sd_event_default(&a->loop);
	if (r < 0)
		return r;
	/* stopping goes before events: a flood must not hold off SIGTERM or -d */
	sd_event_add_signal(a->loop, &s, SIGTERM, on_stop, a);
	sd_event_source_set_priority(s, SD_EVENT_PRIORITY_IMPORTANT);
	sd_event_add_signal(a->loop, &s, SIGINT, on_stop, a);
	sd_event_source_set_priority(s, SD_EVENT_PRIORITY_IMPORTANT);
	sd_event_add_signal(a->loop, NULL, SIGHUP, on_hup, a);
	sd_event_add_signal(a->loop, NULL, SIGUSR1, on_usr1, a);
	r = sd_event_add_io(a->loop, &s, ring_buffer__epoll_fd(a->rb), EPOLLIN, on_ringbuf, a);
	if (r < 0)
		return r;
	sd_event_source_set_priority(s, SD_EVENT_PRIORITY_IDLE);
	sd_event_now(a->loop, CLOCK_MONOTONIC, &now);
	if (a->hist_interval_ns)
		sd_event_add_time(a->loop, NULL, CLOCK_MONOTONIC, now + a->hist_interval_ns / 1000,
				  0, on_summary_timer, a);
	if (a->cfg->lost_interval_ns)
		sd_event_add_time(a->loop, NULL, CLOCK_MONOTONIC,
				  now + a->cfg->lost_interval_ns / 1000, 0, on_loss_timer, a);
	/* always: modules load late or go, and a reload may enable a layer */
	sd_event_add_time(a->loop, NULL, CLOCK_MONOTONIC, now + WATCH_USEC, 0, on_watch, a);
	if (a->opt->duration_ns) {
		sd_event_add_time(a->loop, &s, CLOCK_MONOTONIC, now + a->opt->duration_ns / 1000,
				  0, on_duration, a);
		sd_event_source_set_priority(s, SD_EVENT_PRIORITY_IMPORTANT);
	}
	return sd_event_set_watchdog(a->loop, true);
}

/*
 * Journal writes move to a thread of their own (writer.c says why). Started
 * after the privilege drop: threads keep the credentials they were created
 * with, and privs_drop() wants to be the only thread; and after
 * setup_loop(), so that it inherits the mask that leaves signals to signalfd.
 */
static int writer_setup(struct agent *a)
{
	int r;

	if (!a->journal)
		return 0;
	r = writer_new(&a->writer);
	if (r == 0)
		r = writer_start(a->writer);
	if (r < 0)
		return r;
	journal_set_writer(a->journal, a->writer);
	return 0;
}

static void teardown(struct agent *a)
{
	sd_event_unref(a->loop);
	ring_buffer__free(a->rb);
	probes_close(a->probes);
	for (int l = _LAYER_MAX - 1; l >= 0; l--)
		layer_free(l, a->layer[l]);
	log_set_sink(NULL, NULL, true);
	writer_free(a->writer);
	journal_free(a->journal);
	reload_free(a);
	stats_free(a->stats);
	mounts_free(a->mounts);
	usyms_free(a->us);
	btfs_free(a->btfs);
	ksyms_free(a->ks);
	func_table_free(&a->funcs);
	free(a->acc);
	free(a->loss);
}

static void ready(struct agent *a)
{
	log_status(STATUS_AGENT, LOG_INFO, "ready: %u functions attached, threshold %.3f ms, output %s",
		   func_table_attached(&a->funcs, -1), a->cfg->threshold_ns / 1e6,
		   a->journal ? "journal" : "terminal");
	sd_notifyf(false, "READY=1\nSTATUS=%u functions attached", func_table_attached(&a->funcs, -1));
	if (a->opt->to_stdout && !a->opt->hist_only)
		term_print_header(stdout, &a->opt->term);
	fflush(stdout);
}

/* The last events, summary and loss report; the writer gets time to deliver them. */
static void finish(struct agent *a)
{
	uint64_t written, failed;

	sd_notify(false, "STOPPING=1");
	a->stopping = true;
	agent_drain(a, ringbuf_events(a));
	if (a->writer)
		writer_drain(a->writer, 3000);   /* so that the last loss report has its failures */
	/* the final summary, also when periodic ones are off ([histogram] interval = 0) */
	report_now(a, true, true);
	report_counts(a, &written, &failed);
	log_status(STATUS_AGENT, LOG_INFO, "stopped: %llu entries written, %llu failed",
		   (unsigned long long)written, (unsigned long long)failed);
	report_writer_stop(a);
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
		.funcs = &a->funcs, .ks = a->ks, .us = a->us, .mounts = a->mounts,
		.boot_to_realtime_ns = event_clock_offset(),
	};
	return layers_start(a);
}

int agent_run(struct config *c, const struct run_opts *o)
{
	struct agent a = { .cfg = c, .opt = o };
	int r;

	libbpf_set_print(o->verbose ? libbpf_verbose : libbpf_quiet);
	a.hist_interval_ns = o->hist_only ? o->hist_interval_ns : c->hist_interval_ns;
	a.acc = calloc(SMBLAT_MAX_FUNCS, sizeof(*a.acc));
	a.loss = calloc(SMBLAT_MAX_FUNCS, sizeof(*a.loss));
	if (!a.acc || !a.loss) {
		r = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < SMBLAT_MAX_FUNCS; i++)
		hist_init(&a.acc[i]);
	r = start(&a);
	if (r < 0)
		goto out;
	if (o->list_probes) {
		list_probes(&a);
		goto out;
	}
	r = layers_check(&a);
	if (r == 0)
		r = drop_privileges(&a);
	if (r == 0)
		r = setup_loop(&a);
	if (r < 0)
		goto out;
	a.tokens = rate_burst(c);
	a.tokens_at_ns = a.last_summary_ns = a.last_loss_ns = agent_now_ns();
	r = writer_setup(&a);
	if (r == 0)
		r = reload_init(&a);
	if (r < 0)
		goto out;
	ready(&a);
	r = sd_event_loop(a.loop);
	finish(&a);
out:
	if (r < 0 && r != -ECANCELED)
		log_status(STATUS_AGENT, LOG_ERR, "cannot start: %s", strerror(-r));
	teardown(&a);
	return r < 0 ? 1 : 0;
}
