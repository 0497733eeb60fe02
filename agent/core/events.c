// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The ring buffer's events to their sink: decoded by the layer that owns
 * their kind, then rate limited into the journal, or printed on the
 * terminal; drained in batches from the loop.
 */
#include <errno.h>
#include <stdio.h>
#include <bpf/libbpf.h>
#include <systemd/sd-event.h>

#include "base/clock.h"
#include "base/ratelimit.h"
#include "core/agent-int.h"
#include "sinks/writer.h"
#include "bpf/vfs.h"

/*
 * ringbuf_size = auto: room for what the rate limit lets through while the
 * decoder is not reading (a summary, an attach when a module comes, the
 * thread descheduled on a busy machine): a full burst and DECODER_LATE_MS
 * more at the limit, in the largest record, to a power of two. What the
 * ring loses beyond that the limit would have suppressed; both are counted.
 * No limit keeps the 4 MiB of before.
 */
#define DECODER_LATE_MS 250
#define RECORD_MAX (sizeof(struct rec_vfs_call) + 8) /* and the ring's own header */
#define RINGBUF_UNLIMITED (4ULL << 20)
#define RINGBUF_AUTO_MIN (64ULL << 10)
#define RINGBUF_AUTO_MAX (64ULL << 20)

uint64_t agent_ringbuf_bytes(const struct config *c)
{
	uint64_t n, b = RINGBUF_AUTO_MIN;

	if (c->ringbuf_bytes)
		return c->ringbuf_bytes;
	if (!c->rate_limit)
		return RINGBUF_UNLIMITED;
	n = (uint64_t)config_rate_burst(c) + (uint64_t)c->rate_limit * DECODER_LATE_MS / 1000;
	while (b < n * RECORD_MAX && b < RINGBUF_AUTO_MAX)
		b <<= 1;
	return b;
}

/*
 * --folded: standard output is flame graph input, in one unit. Without
 * counted stacks it is the slow calls, weighed by their latency (us); with
 * them (--stacks) the counted stacks alone, weighed by calls (or their
 * summed latency), and the slow calls are lines on standard error.
 * Events that are no call (an smbd's exit weighs its lifetime, a break the
 * client's answer) are never flame graph input: lines on standard error.
 */
static void term_print(struct agent *a, const struct record *r)
{
	struct term_opts lines = a->opt->term;
	FILE *out = stdout;

	lines.name_width = a->name_width;
	if (lines.folded && (r->message_id || a->stacks)) {
		lines.folded = false;
		out = stderr;
	}
	term_print_event(out, &lines, r);
	fflush(out);
}

static void event_sink(struct agent *a, struct record *r)
{
	int err;

	if (!ratelimit_allows(a->rate, r->func->id, now_ns())) {
		a->loss[r->func->id].suppressed++;
	} else if (a->journal) {
		err = journal_write_event(a->journal, r);
		if (err < 0) {
			a->loss[r->func->id].write_failed++;
			a->failed++;
			a->backlogged |= err == -EAGAIN;
		} else {
			a->written++;
		}
	} else if (!a->opt->hist_only) {
		term_print(a, r);
		a->written++;
	}
}

int agent_on_note(void *ctx, void *data, size_t size)
{
	struct agent *a = ctx;

	return probes_ufile_note(a->probes, data, size);
}

/*
 * A note is in its ring before any frame naming its file is in another:
 * taken before each event, every file the event names is known.
 */
void agent_notes(struct agent *a)
{
	if (a->notes)
		(void)ring_buffer__consume(a->notes);
}

int agent_on_notes(sd_event_source *s, int fd, uint32_t revents, void *ctx)
{
	agent_notes(ctx);
	return 0;
}

int agent_on_event(void *ctx, void *data, size_t size)
{
	struct agent *a = ctx;
	struct record r;

	agent_notes(a);
	if (layers_decode(&a->env, data, size, &r) == 0)
		event_sink(a, &r);
	event_record_clear(&r);
	/* negative stops this turn once the batch is full; the event itself is taken */
	return ++a->batch >= DRAIN_BATCH || (a->until_full && a->backlogged) ? -EAGAIN : 0;
}

static unsigned int drain(struct agent *a, unsigned int max)
{
	unsigned int taken = 0;

	a->backlogged = false;
	do {
		a->batch = 0;
		(void)ring_buffer__consume(a->rb);
		taken += a->batch;
	} while (a->batch >= DRAIN_BATCH && taken < max && !(a->until_full && a->backlogged));
	/* the writer sends what this turn queued */
	journal_flush(a->journal);
	return taken;
}

/*
 * Backpressure: when journald does not keep up and the writer's queue is
 * full, the loop stops reading the ring buffer until half the queue is free
 * again. Read on, every event would be decoded only to be refused, and that
 * work takes the CPU journald needs to catch up (the agent and journald
 * share it with the traced load). Meanwhile the ring fills and the kernel
 * counts, per function, what it has no room for: every event is still
 * written or counted. The loop's turns (the ring's, the timers') pause;
 * SIGHUP's and the last drain read everything (agent_drain_all()).
 */
unsigned int agent_drain(struct agent *a, unsigned int max)
{
	unsigned int taken;

	if (a->paused)
		return 0;
	a->until_full = a->room_source != NULL;
	taken = drain(a, max);
	if (a->until_full && a->backlogged && writer_wait_room(a->writer)) {
		sd_event_source_set_enabled(a->room_source, SD_EVENT_ONESHOT);
		sd_event_source_set_enabled(a->ring_source, SD_EVENT_OFF);
		a->paused = true;
	}
	a->until_full = false;
	return taken;
}

/* As many events as the ring buffer can hold: that much empties what was there. */
unsigned int agent_drain_all(struct agent *a)
{
	return drain(a, agent_ringbuf_bytes(a->cfg) / sizeof(struct rec_head) + DRAIN_BATCH);
}

int agent_on_ringbuf(sd_event_source *s, int fd, uint32_t revents, void *ctx)
{
	agent_drain(ctx, DRAIN_BATCH);
	return 0;
}

int agent_on_room(sd_event_source *s, int fd, uint32_t revents, void *ctx)
{
	struct agent *a = ctx;

	a->paused = false;
	return sd_event_source_set_enabled(a->ring_source, SD_EVENT_ON);
}
