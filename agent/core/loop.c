// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The agent's loop: signals, the ring buffers, and the timers of the
 * summaries, the loss entries and the watch of modules and layers.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <string.h>
#include <syslog.h>
#include <bpf/libbpf.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "base/log.h"
#include "base/macro.h"
#include "core/agent-int.h"
#include "sinks/writer.h"

#define WATCH_USEC (2 * 1000000ULL)

static void layer_watch(struct agent *a, enum layer_id l, void *userdata)
{
	if (a->cfg->layer[l].enabled && layer_table[l]->watch)
		layer_table[l]->watch(a->layer[l]);
}

/*
 * Once attaching is over, what only attaching needs goes: BTF, kernel data
 * symbols and the name index, and the heap they leave free. Loaded again
 * when a module comes or a reload attaches more.
 */
void agent_services_trim(struct agent *a)
{
	bool freed = btfs_trim(a->btfs);

	freed |= ksyms_trim(a->ks);
	probes_trim();
	if (freed)
		malloc_trim(0);
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
	sd_notifyf(false, "STATUS=%u %s attached, %llu %s written, %llu failed",
		   func_table_attached(&a->funcs, -1),
		   PLURAL(func_table_attached(&a->funcs, -1), "function", "functions"),
		   (unsigned long long)written, PLURAL(written, "entry", "entries"),
		   (unsigned long long)failed);
	return rearm(s, usec + a->cfg->lost_interval_ns / 1000);
}

static int on_watch(sd_event_source *s, uint64_t usec, void *ctx)
{
	struct agent *a = ctx;
	int r;

	r = agent_layers_privileged(a, layer_watch, NULL);
	if (r < 0 && !a->raise_failed)
		log_status(STATUS_AGENT_DEGRADED, REASON_PRIVILEGES, LOG_WARNING,
			   "cannot raise the attach capabilities: %s; kernel modules loaded or unloaded "
			   "are not followed until they can be",
			   strerror(-r));
	a->raise_failed = r < 0;
	/* threads that died inside a traced call (exit_group never returns) */
	(void)probes_frames_sweep(a->probes);
	agent_services_trim(a);
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
	agent_drain_all(a); /* events of removed functions still have their names */
	(void)reload_config(a);
	agent_services_trim(a);
	sd_notify(false, "READY=1");
	return 0;
}

int agent_loop_watch_room(struct agent *a)
{
	int r = sd_event_add_io(a->loop, &a->room_source, writer_room_fd(a->writer), EPOLLIN, agent_on_room,
				a);

	return r < 0 ? r : sd_event_source_set_enabled(a->room_source, SD_EVENT_OFF);
}

int agent_loop_setup(struct agent *a)
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
	r = sd_event_add_io(a->loop, &a->ring_source, ring_buffer__epoll_fd(a->rb), EPOLLIN, agent_on_ringbuf,
			    a);
	if (r < 0)
		return r;
	sd_event_source_set_priority(a->ring_source, SD_EVENT_PRIORITY_IDLE);
	if (a->notes) {
		r = sd_event_add_io(a->loop, NULL, ring_buffer__epoll_fd(a->notes), EPOLLIN, agent_on_notes,
				    a);
		if (r < 0)
			return r;
	}
	sd_event_now(a->loop, CLOCK_MONOTONIC, &now);
	if (a->hist_interval_ns)
		sd_event_add_time(a->loop, NULL, CLOCK_MONOTONIC, now + a->hist_interval_ns / 1000, 0,
				  on_summary_timer, a);
	if (a->cfg->lost_interval_ns)
		sd_event_add_time(a->loop, NULL, CLOCK_MONOTONIC, now + a->cfg->lost_interval_ns / 1000, 0,
				  on_loss_timer, a);
	/* always: modules load late or go, and a reload may enable a layer */
	sd_event_add_time(a->loop, NULL, CLOCK_MONOTONIC, now + WATCH_USEC, 0, on_watch, a);
	if (a->opt->duration_ns) {
		sd_event_add_time(a->loop, &s, CLOCK_MONOTONIC, now + a->opt->duration_ns / 1000, 0,
				  on_duration, a);
		sd_event_source_set_priority(s, SD_EVENT_PRIORITY_IMPORTANT);
	}
	return sd_event_set_watchdog(a->loop, true);
}
