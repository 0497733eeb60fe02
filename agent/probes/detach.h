/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Links taken down side by side. A kprobe's or uprobe's detach waits for an
 * RCU grace period of its own, so one after another a stop costs a grace
 * period per link; from several threads the waits overlap. (fentry links
 * on kernels whose ftrace holds its lock across the wait gain nothing from
 * it, and lose nothing.)
 */
#pragma once

#include <stddef.h>
#include <bpf/libbpf.h>

struct detach_item {
	struct bpf_link *link; /* or */
	int fd;                /* a link of our own: its fd */
};

struct detach_set {
	struct detach_item *v;
	size_t n, cap;
};

/* Each takes the link (setting *link to NULL, *fd to -1), unless it cannot
 * (-ENOMEM): then the caller keeps it and takes it down itself. */
int detach_add_link(struct detach_set *s, struct bpf_link **link);
int detach_add_fd(struct detach_set *s, int *fd);
/* Takes every link of the set down and empties it. */
void detach_run(struct detach_set *s);
