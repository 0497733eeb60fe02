/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stacks symbolized: kernel and user addresses into frames, joined as the
 * journal's STACK (innermost first, one per line) and STACK_FOLDED (outer
 * to inner, ';', without offsets: flame graphs merge frames by name). For
 * slow-call events, counted stacks and smbd's exit entries alike.
 */
#pragma once

#include <stdint.h>

#include "symbols/ksyms.h"
#include "symbols/usyms.h"

#define STACK_FRAME_MAX 256

struct stack_src {
	const struct ksyms *ks; /* NULL: raw addresses */
	struct usyms *us;       /* NULL: raw addresses */
	uint32_t pid;           /* whose user addresses */
	uint32_t fallback_pid;  /* whose maps to read when pid is gone (its parent), 0: none */
	const char *first;      /* an innermost kernel frame to name first, or NULL */
	/* frames kept of each stack; more captured (nk, nu) means it was cut
	 * there, which the frames say; 0: SMBLAT_STACK_DEPTH, events' stacks */
	unsigned int depth;
	const uint64_t *k;
	unsigned int nk;
	const uint64_t *u;
	unsigned int nu;
	uint32_t uflags; /* how the user stack was walked and ended (bpf/ustack.h) */
};

/* Frames in a captured stack of size bytes, at most SMBLAT_STACK_SLOTS whatever size says. */
unsigned int stack_frames(int32_t size);

/*
 * *text and *folded malloc'd, NULL when there are no frames; -ENOMEM. A
 * user stack that ended early ends with why ("[unwind: not code]").
 */
int stack_symbolize(const struct stack_src *s, char **text, char **folded);

/*
 * How a user stack of nu frames was walked, for STACK_UNWIND: "dwarf"
 * (unwind tables), "fp" (frame pointers), "dwarf+fp", "kernel-fp" (the
 * kernel's walk); NULL when there is no user stack.
 */
const char *stack_unwind_name(uint32_t uflags, unsigned int nu);
