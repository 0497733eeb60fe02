// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>

#include "probes/inflight.h"
#include "base/clock.h"

/*
 * A key deleted by BPF under the walk sends bpf_map_get_next_key() back to
 * the first one: bound the walk by the table's size, twice over.
 */
#define WALK_FACTOR 2

/* Every in-flight value begins with its start time (INFLIGHT_VALUE() in bpf/smblat.h). */
static bool is_stale(const struct inflight_sweep *s, const void *key, const void *value)
{
	uint64_t start;

	memcpy(&start, value, sizeof(start));
	if (start < s->now_ns && s->now_ns - start > s->max_age_ns)
		return true;
	return s->stale && s->stale(key, value, s->userdata);
}

/* The stale entries, keys and values side by side, found in one walk. */
struct found {
	uint8_t *v;
	size_t n, cap, size;
};

static int found_add(struct found *f, const void *key, uint32_t key_size, const void *value,
		     uint32_t value_size)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		uint8_t *v = realloc(f->v, cap * f->size);

		if (!v)
			return -ENOMEM;
		f->v = v;
		f->cap = cap;
	}
	memcpy(f->v + f->n * f->size, key, key_size);
	memcpy(f->v + f->n * f->size + key_size, value, value_size);
	f->n++;
	return 0;
}

static int walk(int fd, uint32_t key_size, uint32_t value_size, const struct inflight_sweep *s,
		struct found *f)
{
	struct bpf_map_info info = {};
	uint32_t info_len = sizeof(info);
	uint8_t *key, *next, *value, *t;
	uint64_t steps = 0;
	int r;

	if (bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0)
		return -errno;
	key = malloc(key_size);
	next = malloc(key_size);
	value = malloc(value_size);
	if (!key || !next || !value) {
		r = -ENOMEM;
		goto out;
	}
	for (r = bpf_map_get_next_key(fd, NULL, next); r == 0; r = bpf_map_get_next_key(fd, key, next)) {
		t = key, key = next, next = t;
		if (++steps > (uint64_t)info.max_entries * WALK_FACTOR)
			break;
		if (bpf_map_lookup_elem(fd, key, value) < 0)
			continue; /* ended meanwhile */
		if (is_stale(s, key, value)) {
			r = found_add(f, key, key_size, value, value_size);
			if (r < 0)
				goto out;
		}
	}
	r = r < 0 && errno != ENOENT ? -errno : 0;
out:
	free(key);
	free(next);
	free(value);
	return r;
}

int inflight_sweep(int fd, uint32_t key_size, uint32_t value_size, const struct inflight_sweep *s)
{
	struct found f = { .size = key_size + value_size };
	int r, n = 0;

	if (value_size < sizeof(uint64_t))
		return -EINVAL;
	r = walk(fd, key_size, value_size, s, &f);
	/* Deleted after the walk: deleting under it would restart it. */
	for (size_t i = 0; r == 0 && i < f.n; i++) {
		const uint8_t *k = f.v + i * f.size;

		if (bpf_map_delete_elem(fd, k) < 0)
			continue; /* ended meanwhile, or seen twice by a restarted walk */
		n++;
		if (s->swept)
			s->swept(k, k + key_size, s->userdata);
	}
	free(f.v);
	return r < 0 ? r : n;
}
