// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The writer's accounting without a journald: with the thread not started
 * nothing is sent, so the queue fills. A full queue refuses events (the
 * caller counts those), keeps room for loss entries, and what is still
 * queued at stop is counted per function, loss entries giving their counts back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sinks/writer.h"

/* Pushes a two-field entry. */
static int push(struct writer *w, const char *msg, int32_t id, const struct loss *carry, unsigned int n_carry)
{
	char *v[] = { (char *)msg, "SYSLOG_IDENTIFIER=smblat-test" };

	return writer_push(w, entry_of_strings(v, 2), id, carry, n_carry);
}

int main(void)
{
	struct writer_losses *wl = calloc(SMBLAT_MAX_FUNCS, sizeof(*wl));
	struct func f7 = { .id = 7, .name = "F7" };
	struct loss carry = { .func = &f7, .ringbuf = 5, .suppressed = 3, .write_failed = 2 };
	struct writer *w;
	uint64_t written, failed, left;
	unsigned int ok = 0, refused = 0;
	int err;

	check(writer_new(&w) == 0, "writer_new");
	for (unsigned int i = 0; i < WRITER_QUEUE_MAX + 10; i++) {
		int r = push(w, "MESSAGE=event", 3, NULL, 0);

		if (r == 0)
			ok++;
		else if (r == -EAGAIN)
			refused++;
	}
	check(ok == WRITER_QUEUE_MAX, "%u events queued, queue holds %u", ok, WRITER_QUEUE_MAX);
	check(refused == 10, "%u events refused, expected 10", refused);
	/* Loss entries still fit: the reserve. */
	check(push(w, "MESSAGE=lost", -1, &carry, 1) == 0, "loss entry refused by a queue full of events");
	writer_counts(w, &written, &failed, &err);
	check(written == 0 && failed == 10 && err == EAGAIN, "written %llu failed %llu err %d",
	      (unsigned long long)written, (unsigned long long)failed, err);

	/* Refused pushes are the caller's to count: nothing per function yet. */
	writer_take(w, wl, SMBLAT_MAX_FUNCS);
	check(wl[3].write_failed == 0, "refused pushes counted per function: %llu",
	      (unsigned long long)wl[3].write_failed);

	left = writer_stop(w, 0);
	check(left == WRITER_QUEUE_MAX + 1, "%llu left at stop, expected %u", (unsigned long long)left,
	      WRITER_QUEUE_MAX + 1);
	writer_take(w, wl, SMBLAT_MAX_FUNCS);
	check(wl[3].write_failed == WRITER_QUEUE_MAX, "function 3: %llu unsent counted",
	      (unsigned long long)wl[3].write_failed);
	check(wl[7].carried.ringbuf == 5 && wl[7].carried.suppressed == 3 && wl[7].carried.write_failed == 2,
	      "loss entry's counts not given back: %llu/%llu/%llu", (unsigned long long)wl[7].carried.ringbuf,
	      (unsigned long long)wl[7].carried.suppressed, (unsigned long long)wl[7].carried.write_failed);
	/* Taken once: a second take adds nothing. */
	memset(wl, 0, SMBLAT_MAX_FUNCS * sizeof(*wl));
	writer_take(w, wl, SMBLAT_MAX_FUNCS);
	check(wl[3].write_failed == 0 && wl[7].carried.ringbuf == 0, "counts taken twice");
	/* After stop, pushes are refused rather than queued forever. */
	check(push(w, "MESSAGE=late", 3, NULL, 0) == -EAGAIN, "push after stop accepted");
	writer_free(w);
	free(wl);
	return check_done("writer");
}
