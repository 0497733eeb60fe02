/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where start-up time goes, by phase: the ready line says it, so that an
 * operator (and bench/) sees what a slow start was made of.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

enum prof_phase {
	PROF_SYMBOLS, /* /proc/kallsyms read and indexed */
	PROF_BTF,     /* vmlinux and module BTF parsed */
	PROF_LOAD,    /* the BPF object loaded: verification of its programs */
	PROF_OPS,     /* cifs operation tables resolved */
	PROF_CLONE,   /* fentry/fexit clones loaded: verification of each */
	PROF_LINK,    /* links created: trampolines, kprobes, multi links */
	_PROF_MAX,
};

/* Adds the time since `since` (now_ns(), base/clock.h) to phase p. */
void prof_add(enum prof_phase p, uint64_t since);
/* "symbols 0.31 s, BTF 0.52 s, ...": the phases that took time, in buf. */
void prof_format(char *buf, size_t n);
