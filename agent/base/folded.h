/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Folded stacks ("outer;...;inner"), each with the calls and the summed
 * latency counted for it, merged by stack: what flame graphs are drawn
 * from, whether counted in the kernel, read back from the journal or
 * parsed from "STACK COUNT" lines.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct folded_line {
	char *stack;
	uint64_t count;
	uint64_t total_ns;
	uint32_t tag; /* what the adder says of the stack, bits or'ed over its adds (0: nothing) */
};

struct folded {
	struct folded_line *v;
	size_t n;
	size_t cap;
	size_t *slots; /* open addressing over v, by stack */
	size_t nslots;
};

/* Adds count calls of total_ns to stack (merged with an equal one); -ENOMEM. */
int folded_add(struct folded *f, const char *stack, uint64_t count, uint64_t total_ns);
/* The same, with tag or'ed into the line's. */
int folded_add_tagged(struct folded *f, const char *stack, uint64_t count, uint64_t total_ns, uint32_t tag);
/* Adds every line of src. */
int folded_merge(struct folded *f, const struct folded *src);
/* Most calls first (by_time: most time first); ties by stack. */
void folded_sort(struct folded *f, bool by_time);
uint64_t folded_total(const struct folded *f, bool by_time);
void folded_free(struct folded *f);
/*
 * "a;b;c 42" (flamegraph.pl's input): the stack and the number after the
 * last blank, into *stack (pointing into line, the blank made NUL) and
 * *value. -EINVAL when the line has no number.
 */
int folded_parse_line(char *line, char **stack, uint64_t *value);
