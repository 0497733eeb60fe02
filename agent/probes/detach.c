/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "probes/detach.h"

/* Past a few dozen waiters a grace period is shared by all anyway. */
#define DETACH_THREADS 32

static int add(struct detach_set *s, struct detach_item it)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct detach_item *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = it;
	return 0;
}

int detach_add_link(struct detach_set *s, struct bpf_link **link)
{
	int r;

	if (!*link)
		return 0;
	r = add(s, (struct detach_item) { .link = *link, .fd = -1 });
	if (r == 0)
		*link = NULL;
	return r;
}

int detach_add_fd(struct detach_set *s, int *fd)
{
	int r;

	if (*fd < 0)
		return 0;
	r = add(s, (struct detach_item) { .fd = *fd });
	if (r == 0)
		*fd = -1;
	return r;
}

struct worker {
	struct detach_set *s;
	size_t next; /* the next item to take, shared by the workers */
};

static void *work(void *arg)
{
	struct worker *w = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->s->n) {
		bpf_link__destroy(w->s->v[i].link);
		if (w->s->v[i].fd >= 0)
			close(w->s->v[i].fd);
	}
	return NULL;
}

void detach_run(struct detach_set *s)
{
	struct worker w = { .s = s };
	pthread_t t[DETACH_THREADS];
	size_t n = 0;

	/* the calling thread works too: with no thread started it does it all */
	while (n < DETACH_THREADS && n + 1 < s->n && pthread_create(&t[n], NULL, work, &w) == 0)
		n++;
	work(&w);
	while (n > 0)
		pthread_join(t[--n], NULL);
	free(s->v);
	*s = (struct detach_set) {};
}
