/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* inflight_sweep() on a real BPF hash map: old and stale entries go, live ones stay. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "probes/inflight.h"

#include "check.h"
#include "base/clock.h"

#define EXIT_SKIP 77
#define HOUR (3600ULL * 1000000000ULL)
#define N_MANY 5000

struct value {
	uint64_t start_ns;
	uint32_t tag;
	uint32_t pad;
};

struct seen {
	unsigned int n;
	uint64_t key_sum;
	unsigned int tags[8];
};

static bool tag_stale(const void *key, const void *value, void *userdata)
{
	return ((const struct value *)value)->tag == 7;
}

static void on_swept(const void *key, const void *value, void *userdata)
{
	struct seen *s = userdata;
	uint64_t k;

	memcpy(&k, key, sizeof(k));
	s->n++;
	s->key_sum += k;
	s->tags[((const struct value *)value)->tag & 7]++;
}

static void put(int fd, uint64_t key, uint64_t start, uint32_t tag)
{
	struct value v = { .start_ns = start, .tag = tag };

	check(bpf_map_update_elem(fd, &key, &v, BPF_ANY) == 0, "update %llu: %m", (unsigned long long)key);
}

static unsigned int count(int fd)
{
	uint64_t key, next;
	unsigned int n = 0;

	for (int r = bpf_map_get_next_key(fd, NULL, &next); r == 0;
	     r = bpf_map_get_next_key(fd, &key, &next)) {
		key = next;
		n++;
	}
	return n;
}

static void test_sweep(int fd, uint64_t now)
{
	struct seen seen = {};
	struct inflight_sweep s = {
		.now_ns = now,
		.max_age_ns = HOUR,
		.stale = tag_stale,
		.swept = on_swept,
		.userdata = &seen,
	};
	struct value v;
	uint64_t key;
	int n;

	put(fd, 1, now - 2 * HOUR, 1);    /* old: goes */
	put(fd, 2, now - HOUR - 1, 1);    /* just over: goes */
	put(fd, 3, now - HOUR + 1000, 2); /* just under: stays */
	put(fd, 4, now - 5, 2);           /* fresh: stays */
	put(fd, 5, now - 5, 7);           /* fresh, but its owner is gone: goes */
	put(fd, 6, now + 1000, 2);        /* started after now was read: stays */
	n = inflight_sweep(fd, sizeof(key), sizeof(v), &s);
	check(n == 3, "swept %d, want 3", n);
	check(seen.n == 3 && seen.key_sum == 1 + 2 + 5 && seen.tags[1] == 2 && seen.tags[7] == 1,
	      "swept callback saw %u entries, keys summing to %llu", seen.n,
	      (unsigned long long)seen.key_sum);
	for (key = 1; key <= 6; key++) {
		bool kept = bpf_map_lookup_elem(fd, &key, &v) == 0;

		check(kept == (key == 3 || key == 4 || key == 6), "entry %llu %s", (unsigned long long)key,
		      kept ? "kept" : "gone");
	}

	/* Nothing stale: nothing goes, and no callback. */
	memset(&seen, 0, sizeof(seen));
	n = inflight_sweep(fd, sizeof(key), sizeof(v), &s);
	check(n == 0 && seen.n == 0, "second sweep took %d", n);

	check(inflight_sweep(fd, sizeof(key), 4, &s) == -EINVAL, "a value without a start time taken");
}

/* A full table, half of it old: every old one goes in one sweep. */
static void test_many(int fd, uint64_t now)
{
	struct inflight_sweep s = { .now_ns = now, .max_age_ns = HOUR };
	int n;

	for (uint64_t key = 100; key < 100 + N_MANY; key++)
		put(fd, key, key % 2 ? now - 3 * HOUR : now, 0);
	n = inflight_sweep(fd, sizeof(uint64_t), sizeof(struct value), &s);
	check(n == N_MANY / 2, "swept %d of %d old entries", n, N_MANY / 2);
	check(count(fd) == N_MANY / 2 + 3, "%u entries left", count(fd));
}

int main(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "test_inflight", sizeof(uint64_t), sizeof(struct value),
				2 * N_MANY, NULL);
	/* The entries are made up, so is the time they are judged at. */
	uint64_t now = 100 * HOUR, t0 = now_ns();

	if (fd < 0 && (errno == EPERM || errno == EACCES)) {
		printf("skip: creating a BPF map needs CAP_BPF\n");
		return EXIT_SKIP;
	}
	check(fd >= 0, "bpf_map_create: %m");
	if (fd < 0)
		return check_done("inflight");
	check(t0 > 0 && now_ns() >= t0, "now_ns() %llu, then %llu", (unsigned long long)t0,
	      (unsigned long long)now_ns());
	test_sweep(fd, now);
	test_many(fd, now);
	return check_done("inflight");
}
