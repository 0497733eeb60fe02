/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>

#include "base/ratelimit.h"

struct bucket {
	double tokens;
	uint64_t at_ns; /* 0: never filled, so full at first */
};

struct ratelimit {
	double rate, burst;
	double quiet_rate; /* a key under it is quiet: it may run the bucket into debt */
	double debt;       /* how far below empty quiet keys may take it */
	struct bucket all;
	unsigned int nkeys;
	struct bucket key[]; /* each key's own pace, at quiet_rate */
};

int ratelimit_new(unsigned int nkeys, struct ratelimit **ret)
{
	struct ratelimit *rl = calloc(1, sizeof(*rl) + nkeys * sizeof(rl->key[0]));

	if (!rl)
		return -ENOMEM;
	rl->nkeys = nkeys;
	*ret = rl;
	return 0;
}

void ratelimit_free(struct ratelimit *rl)
{
	free(rl);
}

void ratelimit_set(struct ratelimit *rl, uint32_t rate, uint32_t burst, uint64_t now_ns)
{
	rl->rate = rate;
	rl->burst = burst ? burst : rate;
	rl->quiet_rate = rate / 10.0 > 1 ? rate / 10.0 : 1;
	rl->debt = rl->burst / 4 > 1 ? rl->burst / 4 : 1;
	if (!rl->all.at_ns) {
		rl->all.tokens = rl->burst;
		rl->all.at_ns = now_ns;
	}
}

/* Tokens for the time since the last fill, up to burst. */
static void bucket_fill(struct bucket *b, double rate, double burst, uint64_t now_ns)
{
	if (!b->at_ns)
		b->tokens = burst;
	else if (now_ns > b->at_ns)
		b->tokens += (now_ns - b->at_ns) / 1e9 * rate;
	if (b->tokens > burst)
		b->tokens = burst;
	b->at_ns = now_ns;
}

/*
 * Whether the key's calls, written or not, came at under quiet_rate. Each
 * costs a token of its own bucket, which goes negative (down to a second's
 * worth): a flood stays below zero, and is quiet again only once it
 * has been calm again for a while.
 */
static bool key_quiet(struct ratelimit *rl, unsigned int key, uint64_t now_ns)
{
	struct bucket *b = &rl->key[key];
	bool quiet;

	bucket_fill(b, rl->quiet_rate, rl->quiet_rate, now_ns);
	quiet = b->tokens >= 1;
	b->tokens -= 1;
	if (b->tokens < -rl->quiet_rate)
		b->tokens = -rl->quiet_rate;
	return quiet;
}

bool ratelimit_allows(struct ratelimit *rl, unsigned int key, uint64_t now_ns)
{
	bool quiet;

	if (!rl->rate)
		return true;
	bucket_fill(&rl->all, rl->rate, rl->burst, now_ns);
	quiet = key < rl->nkeys && key_quiet(rl, key, now_ns);
	if (rl->all.tokens < (quiet ? 1 - rl->debt : 1))
		return false;
	rl->all.tokens -= 1;
	return true;
}
