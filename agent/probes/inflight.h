/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The in-flight tables of BPF: hash maps holding requests between the hook
 * that starts them and the one that ends them (block requests, SMB2
 * requests of the client and of smbd). They are plain hashes, which never
 * evict a live entry; the price is that a request whose end no hook sees
 * keeps its entry, so the agent sweeps those from user space.
 *
 * Every value starts with the bpf_ktime_get_ns() (CLOCK_MONOTONIC) of the
 * request's start.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct inflight_sweep {
	uint64_t now_ns;     /* CLOCK_MONOTONIC (now_ns()), the clock of bpf_ktime_get_ns() */
	uint64_t max_age_ns; /* entries started longer ago go */
	/* Optional: entries it calls stale go whatever their age. */
	bool (*stale)(const void *key, const void *value, void *userdata);
	/* Optional: each entry that went, as it was. */
	void (*swept)(const void *key, const void *value, void *userdata);
	void *userdata;
};

/*
 * Deletes the entries of map fd that s says are stale. Returns how many
 * went (an entry its request ended meanwhile is not counted), or negative
 * errno.
 */
int inflight_sweep(int fd, uint32_t key_size, uint32_t value_size, const struct inflight_sweep *s);
