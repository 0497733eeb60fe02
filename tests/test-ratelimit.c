/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rate limit on a clock of the test's own: the burst at once, the rate
 * over time, and a quiet key written through a flood of another.
 */
#include <stdint.h>

#include "base/ratelimit.h"

#include "check.h"

#define MS 1000000ULL
#define T0 (1000 * MS)

/* How many of n calls of key at time t are allowed. */
static unsigned int calls(struct ratelimit *rl, unsigned int key, unsigned int n, uint64_t t)
{
	unsigned int ok = 0;

	for (unsigned int i = 0; i < n; i++)
		ok += ratelimit_allows(rl, key, t);
	return ok;
}

static struct ratelimit *limit(uint32_t rate, uint32_t burst)
{
	struct ratelimit *rl = NULL;

	if (ratelimit_new(32, &rl) < 0)
		abort();
	ratelimit_set(rl, rate, burst, T0);
	return rl;
}

/* One key alone: the burst at once, then the rate, as a plain token bucket. */
static void test_one_key(void)
{
	struct ratelimit *rl = limit(5, 10);
	unsigned int n;

	check(calls(rl, 0, 20, T0) == 10, "20 calls at once with burst 10");
	check(calls(rl, 0, 20, T0 + 1000 * MS) == 5, "a second later, the rate");
	n = 0;
	for (unsigned int s = 2; s < 12; s++)
		n += calls(rl, 0, 100, T0 + s * 1000 * MS);
	check(n == 50, "ten seconds of a flood: %u written, want 50", n);
	ratelimit_free(rl);

	rl = limit(5, 0);
	check(calls(rl, 0, 20, T0) == 5, "burst 0 is the rate");
	ratelimit_free(rl);
}

static void test_no_limit(void)
{
	struct ratelimit *rl = limit(0, 0);

	check(calls(rl, 0, 100000, T0) == 100000, "rate 0 limits nothing");
	ratelimit_free(rl);
}

/* A flood of key 0 leaves the bucket empty; key 1's rare calls still pass. */
static void test_quiet_key(void)
{
	struct ratelimit *rl = limit(100, 200);
	unsigned int quiet = 0, flood = 0;

	flood += calls(rl, 0, 1000, T0);
	for (unsigned int ms = 1; ms <= 2000; ms++) {
		flood += calls(rl, 0, 10, T0 + ms * MS);
		if (ms % 500 == 0)
			quiet += calls(rl, 1, 1, T0 + ms * MS);
	}
	check(quiet == 4, "the quiet key: %u of 4 written", quiet);
	/* the flood pays for them: the burst and 2 s of the rate, in all,
	 * give or take the debt the last calls left (each key has a tenth of
	 * the rate as its quiet pace, the flood's as well) */
	check(flood + quiet >= 399 && flood + quiet <= 400 + 50,
	      "%u + %u written in 2 s at rate 100, burst 200", flood, quiet);
	ratelimit_free(rl);
}

/* Twenty floods at once: none of them is quiet (a tenth of the rate each
 * would be more than the rate), so the twenty-first key still is. */
static void test_many_floods(void)
{
	struct ratelimit *rl = limit(100, 200);
	unsigned int quiet = 0;

	for (unsigned int ms = 0; ms <= 3000; ms++) {
		for (unsigned int k = 0; k < 20; k++)
			if (ms >= k * 5) /* started one by one, not in step */
				calls(rl, k, 2, T0 + ms * MS);
		if (ms % 300 == 150)
			quiet += calls(rl, 20, 1, T0 + ms * MS);
	}
	check(quiet == 10, "the quiet key beside twenty floods: %u of 10 written", quiet);
	ratelimit_free(rl);
}

/* The debt is bounded: quiet keys together go no further than a quarter of
 * the burst below empty, and a key at its quiet pace's end is a flood. */
static void test_debt(void)
{
	struct ratelimit *rl = limit(100, 200);
	unsigned int n = 0;

	check(calls(rl, 0, 1000, T0) == 200, "the flood takes the burst");
	for (unsigned int k = 1; k < 8; k++)
		n += calls(rl, k, 10, T0);
	check(n == 50, "7 quiet keys of 10 calls, bucket empty: %u written, want the debt of 50", n);
	check(calls(rl, 0, 1, T0 + 100 * MS) == 0, "the flood waits while the bucket is in debt");
	check(calls(rl, 1, 1, T0 + 100 * MS) == 1, "a quiet key passes while the debt is under its bound");
	check(calls(rl, 0, 200, T0 + 2000 * MS) == 149, "2 s later: the rate's 200 less the debt of 51");
	ratelimit_free(rl);
}

/* A new rate on a running bucket keeps its tokens, up to the new burst. */
static void test_set_again(void)
{
	struct ratelimit *rl = limit(100, 200);

	check(calls(rl, 0, 150, T0) == 150, "150 of the burst of 200");
	ratelimit_set(rl, 10, 20, T0);
	check(calls(rl, 0, 100, T0) == 20, "the new burst caps what was left");
	ratelimit_free(rl);
}

int main(void)
{
	test_one_key();
	test_no_limit();
	test_quiet_key();
	test_many_floods();
	test_debt();
	test_set_again();
	return check_done("test-ratelimit");
}
