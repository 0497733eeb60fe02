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

#include "core/agent-int.h"
#include "layers/block.h"
#include "layers/cifsops.h"
#include "base/privs.h"
#include "layers/syscalls.h"
#include "sinks/writer.h"

#define CIFS_WATCH_USEC (2 * 1000000ULL)
#define FUNC_SLACK 256          /* ids kept free for cifs.ko loaded after start */
#define SMBD_FUNCS 256          /* smb_vfs_call_* and SMB2 commands: ~120 in Samba 4.17 */

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

int func_probe_add(struct agent *a, const struct probe_config *pc)
{
	const char *target = pc->target, *colon = strrchr(target, ':');
	char *binary = NULL;
	struct func *f;
	int id, r = 0;

	if (strncmp(target, "syscall:", 8) == 0)
		return syscalls_probe_add(a, pc);
	if (strncmp(target, "usdt:", 5) == 0)
		return usdt_probe_add(a, pc);
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
	uint64_t written, failed;

	ring_buffer__consume(a->rb);
	report_now(a, false, true);
	report_writer_health(a);
	report_counts(a, &written, &failed);
	sd_notifyf(false, "STATUS=%u functions attached, %llu entries written, %llu failed",
		   attached_count(a), (unsigned long long)written,
		   (unsigned long long)failed);
	return rearm(s, usec + a->cfg->lost_interval_ns / 1000);
}

static int on_cifs_watch(sd_event_source *s, uint64_t usec, void *ctx)
{
	smb_watch(ctx);
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

	sd_notify(false, "RELOADING=1");
	ring_buffer__consume(a->rb);    /* events of removed functions still have their names */
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
		.func_capacity = FUNC_SLACK + a->cfg->n_probes + _BLOCK_OP_MAX +
				 (a->cfg->layer[LAYER_SMBD].enabled ? SMBD_FUNCS : 0),
	};
	struct block_cfg bc;
	int r;

	if (a->cfg->layer[LAYER_BLOCK].enabled) {
		if (block_cfg_build(a->cfg, btfs_get(a->btfs, NULL), NULL, &bc) < 0)
			return -ECANCELED;  /* said why already */
		po.block = &bc;
	}
	for (unsigned int i = 0; i < a->cfg->n_probes; i++)
		po.syscalls |= strncmp(a->cfg->probes[i].target, "syscall:", 8) == 0;

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
	if (a->cfg->layer[LAYER_SMB2].enabled)
		smb2_attach(a);
	if (a->cfg->layer[LAYER_BLOCK].enabled)
		block_attach(a);
	if (a->cfg->layer[LAYER_SMBD].enabled)
		(void)smbd_attach(a);
}

static void list_probes(struct agent *a)
{
	const char *why = NULL;
	enum backend be = probes_kernel_backend(a->probes, &why);

	if (be == BACKEND_NONE)
		printf("# kernel functions: no backend: %s\n", why ? why : "?");
	else
		printf("# kernel functions: %s first, falling back per function\n", backend_name(be));
	why = probes_tp_btf_why(a->probes);
	if (a->cfg->layer[LAYER_BLOCK].enabled || probes_attached_tracepoints(a->probes))
		printf("# tracepoints (block, syscall:): %s\n",
		       why ? why : "tp_btf first, raw_tp when refused");
	printf("%-28s %-6s %-36s %-13s %s\n", "FUNCTION", "LAYER", "TARGET", "BACKEND", "STATUS");
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		const struct func *f = &a->funcs.v[i];
		char target[256];

		if (f->layer == LAYER_BLOCK)
			snprintf(target, sizeof(target), "%s..block_rq_complete",
				 a->cfg->block_queue_time ? "block_rq_insert" : "block_rq_issue");
		else
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

	/*
	 * Attach rights stay permitted, never effective but around an attach:
	 * cifs may load later, and SIGHUP may add probes (smblat(8), PRIVILEGES).
	 */
	bool late = true;

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
	/* always: cifs may load late, unload, or the smb layer be enabled by a reload */
	sd_event_add_time(a->loop, NULL, CLOCK_MONOTONIC, now + CIFS_WATCH_USEC, 0,
			  on_cifs_watch, a);
	if (a->opt->duration_ns)
		sd_event_add_time(a->loop, NULL, CLOCK_MONOTONIC, now + a->opt->duration_ns / 1000,
				  0, on_duration, a);
	return sd_event_set_watchdog(a->loop, true);
}

/*
 * reliability: journal writes move to a thread of their own (writer.c says
 * why). Started after the privilege drop: threads keep the credentials they
 * were created with, and privs_drop() wants to be the only thread; and after
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
	uint64_t written, failed;
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
	r = writer_setup(&a);
	if (r == 0)
		r = reload_init(&a);
	if (r < 0)
		goto out;
	ready(&a);
	r = sd_event_loop(a.loop);
	sd_notify(false, "STOPPING=1");
	ring_buffer__consume(a.rb);
	if (a.writer)
		writer_drain(a.writer, 3000);   /* so that the last loss report has its failures */
	report_now(&a, a.hist_interval_ns != 0, true);
	report_counts(&a, &written, &failed);
	agent_status(&a, LOG_INFO, "stopped: %llu entries written, %llu failed",
	       (unsigned long long)written, (unsigned long long)failed);
	report_writer_stop(&a);
out:
	if (r < 0 && r != -ECANCELED)
		fprintf(stderr, "smblat: cannot start: %s\n", strerror(-r));
	teardown(&a);
	return r < 0 ? 1 : 0;
}
