// SPDX-License-Identifier: LGPL-2.1-or-later
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

#include "agent-int.h"
#include "cifsops.h"
#include "privs.h"

#define CIFS_WATCH_USEC (2 * 1000000ULL)
#define FUNC_SLACK 256          /* ids kept free for cifs.ko loaded after start */

static uint32_t attached_count(const struct agent *a)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < a->funcs.n; i++)
		n += a->funcs.v[i].backend != BACKEND_NONE && !a->funcs.v[i].missing;
	return n;
}

void agent_status(struct agent *a, int prio, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return;
	fprintf(stderr, "smblat: %s\n", msg);
	if (a->journal)
		journal_write_status(a->journal, prio, msg);
	free(msg);
}

static int func_probe_add(struct agent *a, const struct probe_config *pc)
{
	const char *target = pc->target, *colon = strrchr(target, ':');
	char *binary = NULL;
	struct func *f;
	int id, r = 0;

	if (strncmp(target, "usdt:", 5) == 0 || strncmp(target, "syscall:", 8) == 0) {
		agent_status(a, LOG_WARNING, "probe %s: target kind of \"%s\" is not supported yet",
		       pc->label, target);
		return 0;
	}
	id = func_table_add(&a->funcs, LAYER_FUNC, GROUP_NONE, pc->label, target, NULL);
	if (id < 0)
		return id;
	f = &a->funcs.v[id];
	f->cfg.threshold_ns = pc->threshold_set ? pc->threshold_ns : config_layer_threshold_ns(a->cfg, LAYER_FUNC);
	f->cfg.flags = FF_ENABLED | (pc->kernel_stack ? FF_KSTACK : 0) |
		       (pc->user_stack ? FF_USTACK : 0) | (pc->errors ? FF_ERRORS : 0);
	f->cfg.nargs = pc->args;
	/* User functions have no BTF: read the return value as C's int, the common case. */
	f->cfg.ret_kind = RK_INT;
	if (colon && (strchr(target, '/') || strstr(target, ".so") || strncmp(target, "lib", 3) == 0)) {
		binary = strndup(target, colon - target);
		if (!binary)
			return -ENOMEM;
		probes_update(a->probes, f);
		r = probes_attach_uprobe(a->probes, f, binary, colon + 1, -1);
		if (r < 0)
			agent_status(a, LOG_WARNING, "probe %s: cannot attach uprobe to %s: %s", pc->label,
			       target, strerror(-r));
		free(binary);
		return 0;
	}
	if (colon) {    /* module:function */
		free(f->module);
		f->module = strndup(target, colon - target);
		free(f->symbol);
		f->symbol = strdup(colon + 1);
	}
	(void)btfargs_fill(btfs_get(a->btfs, f->module), f->symbol, &f->cfg, NULL);
	f->cfg.nargs = pc->args;
	probes_update(a->probes, f);
	r = probes_attach_kernel(a->probes, &f, 1);
	if (r <= 0)
		agent_status(a, LOG_WARNING, "probe %s: not attached: %s", pc->label,
		       f->missing ? f->missing : "unknown reason");
	return 0;
}

/* ---- events ---- */

/* rate_burst = 0 means a burst of rate_limit (smblat.conf(5)). */
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

static int on_event(void *ctx, void *data, size_t size)
{
	struct agent *a = ctx;
	struct record r;
	int err;

	if (event_decode(&a->dec, data, size, &r) < 0)
		return 0;
	if (!rate_allows(a)) {
		a->loss[r.func->id].suppressed++;
	} else if (a->journal) {
		err = journal_write_event(a->journal, &r);
		if (err < 0) {
			a->loss[r.func->id].write_failed++;
			a->failed++;
		} else {
			a->written++;
		}
	} else if (!a->opt->hist_only) {
		term_print_event(stdout, &a->opt->term, &r);
		fflush(stdout);
		a->written++;
	}
	event_record_clear(&r);
	return 0;
}

static int on_ringbuf(sd_event_source *s, int fd, uint32_t revents, void *ctx)
{
	struct agent *a = ctx;

	ring_buffer__consume(a->rb);
	return 0;
}

/* Time sources fire once; periodic ones are armed again each time. */
static int rearm(sd_event_source *s, uint64_t usec)
{
	int r = sd_event_source_set_time(s, usec);

	return r < 0 ? r : sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static int on_summary_timer(sd_event_source *s, uint64_t usec, void *ctx)
{
	struct agent *a = ctx;

	ring_buffer__consume(a->rb);
	report_now(a, true, false);
	return rearm(s, usec + a->hist_interval_ns / 1000);
}

static int on_loss_timer(sd_event_source *s, uint64_t usec, void *ctx)
{
	struct agent *a = ctx;

	ring_buffer__consume(a->rb);
	report_now(a, false, true);
	sd_notifyf(false, "STATUS=%u functions attached, %llu events written, %llu failed",
		   attached_count(a), (unsigned long long)a->written,
		   (unsigned long long)a->failed);
	return rearm(s, usec + a->cfg->lost_interval_ns / 1000);
}

static int on_cifs_watch(sd_event_source *s, uint64_t usec, void *ctx)
{
	struct agent *a = ctx;

	if (a->smb_attached)
		return sd_event_source_set_enabled(s, SD_EVENT_OFF);
	if (access("/sys/module/cifs", F_OK) == 0) {
		if (a->dropped && privs_raise() < 0)
			agent_status(a, LOG_WARNING, "smb: cannot raise attach capabilities: %m");
		if (smb_attach(a) == 0)
			sd_notifyf(false, "STATUS=cifs loaded: %u functions attached",
				   attached_count(a));
		if (a->dropped) {
			privs_lower();
			if (a->smb_attached)
				privs_forget();     /* no attach can come any more */
		}
	}
	return rearm(s, usec + CIFS_WATCH_USEC);
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

	ring_buffer__consume(a->rb);
	report_now(a, true, false);
	return 0;
}

static int on_hup(sd_event_source *s, const struct signalfd_siginfo *si, void *ctx)
{
	struct agent *a = ctx;
	struct config next;

	sd_notify(false, "RELOADING=1");
	config_init(&next);
	if (config_load(&next, a->opt->config_path, !a->opt->config_explicit) < 0) {
		agent_status(a, LOG_ERR, "reload: configuration has errors, keeping the running one");
		config_free(&next);
		sd_notify(false, "READY=1");
		return 0;
	}
	/* Thresholds apply live; counters and histograms carry on. */
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		struct func *f = &a->funcs.v[i];

		if (f->layer != LAYER_FUNC) {
			f->cfg.threshold_ns = config_layer_threshold_ns(&next, f->layer);
			probes_update(a->probes, f);
		}
	}
	a->cfg->threshold_ns = next.threshold_ns;
	for (int l = 0; l < _LAYER_MAX; l++) {
		a->cfg->layer[l].threshold_ns = next.layer[l].threshold_ns;
		a->cfg->layer[l].threshold_set = next.layer[l].threshold_set;
	}
	config_free(&next);
	agent_status(a, LOG_INFO, "reload: thresholds updated");
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

static int setup_sinks(struct agent *a)
{
	struct journal_opts jo = {
		.priority_slow = a->cfg->priority_slow,
		.priority_summary = a->cfg->priority_summary,
		.priority_lost = LOG_ERR,
	};
	int r;

	if (a->opt->to_stdout || !a->cfg->journal)
		return 0;
	r = journal_probe();
	if (r < 0) {
		fprintf(stderr, "smblat: journald is not running (/run/systemd/journal/socket: %s): "
			"printing events to the terminal instead\n", strerror(-r));
		return 0;
	}
	return journal_new(&jo, &a->journal);
}

static int setup_symbols(struct agent *a)
{
	int r = ksyms_load(&a->ks);

	if (r < 0) {
		const char *why = ksyms_explain(r);

		fprintf(stderr, "smblat: cannot read kernel symbols: %s\n", why ? why : strerror(-r));
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

static int setup_probes(struct agent *a)
{
	struct probes_opts po = {
		.choice = a->cfg->backend,
		.tgid = a->cfg->pid,
		.comm = a->cfg->comm,
		.ringbuf_bytes = a->cfg->ringbuf_bytes,
		.func_capacity = FUNC_SLACK + a->cfg->n_probes,
	};
	int r;

	if (a->cfg->cgroup && *a->cfg->cgroup) {
		po.cgroup_id = cgroup_id_of(a->cfg->cgroup);
		if (!po.cgroup_id) {
			fprintf(stderr, "smblat: cgroup %s: %m\n", a->cfg->cgroup);
			return -ECANCELED;
		}
	}
	r = probes_open(&po, a->ks, a->btfs, &a->probes);
	if (r < 0)
		return -ECANCELED;      /* said why already */
	a->rb = ring_buffer__new(probes_ringbuf_fd(a->probes), on_event, a, NULL);
	return a->rb ? 0 : -errno;
}

static void layers_attach(struct agent *a)
{
	const char *why = NULL;

	if (a->cfg->layer[LAYER_SMB].enabled) {
		if (probes_kernel_backend(a->probes, &why) == BACKEND_NONE) {
			agent_status(a, LOG_WARNING, "smb: layer unavailable on this kernel: %s",
			       why ? why : "no backend");
			a->smb_attached = true;     /* nothing to wait for */
		} else if (smb_attach(a) == -ENOENT) {
			agent_status(a, LOG_NOTICE, "smb: cifs module not loaded; attaching when it is");
		}
	}
	for (unsigned int i = 0; i < a->cfg->n_probes; i++)
		func_probe_add(a, &a->cfg->probes[i]);
	for (int l = LAYER_SMB2; l < _LAYER_MAX; l++)
		if (l != LAYER_FUNC && a->cfg->layer[l].enabled)
			agent_status(a, LOG_WARNING, "%s: layer not available in this version", layer_name(l));
}

static void list_probes(struct agent *a)
{
	const char *why = NULL;
	enum backend be = probes_kernel_backend(a->probes, &why);

	if (be == BACKEND_NONE)
		printf("# kernel functions: no backend: %s\n", why ? why : "?");
	else
		printf("# kernel functions: %s first, falling back per function\n", backend_name(be));
	printf("%-28s %-6s %-36s %-13s %s\n", "FUNCTION", "LAYER", "TARGET", "BACKEND", "STATUS");
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		const struct func *f = &a->funcs.v[i];
		char target[256];

		snprintf(target, sizeof(target), "%s%s%s%s", f->symbol ? f->symbol : "-",
			 f->module ? " [" : "", f->module ? f->module : "", f->module ? "]" : "");
		printf("%-28s %-6s %-36s %-13s %s\n", f->name, layer_name(f->layer), target,
		       f->missing ? "-" : backend_name(f->backend),
		       f->missing ? f->missing : "attached");
	}
	if (a->cfg->layer[LAYER_SMB].enabled) {
		for (const char *const *k = cifsops_known; *k; k++) {
			bool found = false;

			for (uint32_t i = 0; i < a->funcs.n; i++)
				found |= strcmp(a->funcs.v[i].name, *k) == 0;
			if (!found)
				printf("%-28s %-6s %-36s %-13s %s\n", *k, "smb", "-", "-",
				       a->smb_attached ? "not served by cifs on this kernel" :
				       "cifs module not loaded");
		}
	}
}

static int drop_privileges(struct agent *a)
{
	int r;

	/* Attach rights stay (permitted, not effective) only while cifs may still load. */
	bool late = a->cfg->layer[LAYER_SMB].enabled && !a->smb_attached;

	if (geteuid() != 0 || !a->cfg->user || !*a->cfg->user)
		return 0;
	r = privs_drop(a->cfg->user, late);
	if (r == -ESRCH) {
		agent_status(a, LOG_WARNING, "user %s does not exist: running as root", a->cfg->user);
		return 0;
	}
	if (r < 0)
		return r;
	a->dropped = true;
	return 0;
}

static int setup_loop(struct agent *a)
{
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
	sd_event_add_signal(a->loop, NULL, SIGTERM, on_stop, a);
	sd_event_add_signal(a->loop, NULL, SIGINT, on_stop, a);
	sd_event_add_signal(a->loop, NULL, SIGHUP, on_hup, a);
	sd_event_add_signal(a->loop, NULL, SIGUSR1, on_usr1, a);
	r = sd_event_add_io(a->loop, NULL, ring_buffer__epoll_fd(a->rb), EPOLLIN, on_ringbuf, a);
	if (r < 0)
		return r;
	sd_event_now(a->loop, CLOCK_MONOTONIC, &now);
	if (a->hist_interval_ns)
		sd_event_add_time(a->loop, NULL, CLOCK_MONOTONIC, now + a->hist_interval_ns / 1000,
				  0, on_summary_timer, a);
	if (a->cfg->lost_interval_ns)
		sd_event_add_time(a->loop, NULL, CLOCK_MONOTONIC,
				  now + a->cfg->lost_interval_ns / 1000, 0, on_loss_timer, a);
	if (a->cfg->layer[LAYER_SMB].enabled && !a->smb_attached)
		sd_event_add_time(a->loop, NULL, CLOCK_MONOTONIC, now + CIFS_WATCH_USEC, 0,
				  on_cifs_watch, a);
	if (a->opt->duration_ns)
		sd_event_add_time(a->loop, NULL, CLOCK_MONOTONIC, now + a->opt->duration_ns / 1000,
				  0, on_duration, a);
	return sd_event_set_watchdog(a->loop, true);
}

static void teardown(struct agent *a)
{
	sd_event_unref(a->loop);
	ring_buffer__free(a->rb);
	probes_close(a->probes);
	journal_free(a->journal);
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
	agent_status(a, LOG_INFO, "ready: %u functions attached, threshold %.3f ms, output %s",
	       attached_count(a), a->cfg->threshold_ns / 1e6,
	       a->journal ? "journal" : "terminal");
	sd_notifyf(false, "READY=1\nSTATUS=%u functions attached", attached_count(a));
	if (a->opt->to_stdout && !a->opt->hist_only)
		term_print_header(stdout, &a->opt->term);
	fflush(stdout);
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
	r = setup_sinks(&a);
	if (r == 0)
		r = setup_symbols(&a);
	if (r == 0)
		r = setup_probes(&a);
	if (r < 0)
		goto out;
	a.dec = (struct decoder) {
		.funcs = &a.funcs, .ks = a.ks, .us = a.us, .mounts = a.mounts,
		.boot_to_realtime_ns = event_clock_offset(),
	};
	layers_attach(&a);
	if (o->list_probes) {
		list_probes(&a);
		goto out;
	}
	r = drop_privileges(&a);
	if (r == 0)
		r = setup_loop(&a);
	if (r < 0)
		goto out;
	a.tokens = rate_burst(c);
	a.tokens_at_ns = a.last_summary_ns = a.last_loss_ns = agent_now_ns();
	ready(&a);
	r = sd_event_loop(a.loop);
	sd_notify(false, "STOPPING=1");
	ring_buffer__consume(a.rb);
	report_now(&a, a.hist_interval_ns != 0, true);
	agent_status(&a, LOG_INFO, "stopped: %llu events written, %llu failed",
	       (unsigned long long)a.written, (unsigned long long)a.failed);
out:
	if (r < 0 && r != -ECANCELED)
		fprintf(stderr, "smblat: cannot start: %s\n", strerror(-r));
	teardown(&a);
	return r < 0 ? 1 : 0;
}
