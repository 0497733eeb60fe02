/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* [syscalls]: whose syscalls the syscalls layer accounts (select=, --syscalls=WHO). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

/* select=: whose syscalls are accounted (one grammar, syscalls_select_parse()). */
struct sys_select {
	bool smbd;    /* every smbd */
	uint32_t pid; /* this process and its later children, 0: none */
	char *comm;   /* processes exec'ing with this name, NULL: none */
	char *cgroup; /* the tasks of this cgroup v2 (and below), NULL: none */
};

/* The rest of [syscalls] (enabled=, threshold=, ... are struct layer_config's). */
struct syscalls_settings {
	struct sys_select select; /* nothing chosen: [agent]'s pid=, comm=, cgroup=, else every smbd */
};

extern const struct config_section syscalls_settings_section;

static inline struct syscalls_settings *syscalls_settings(const struct config *c)
{
	return config_layer_settings(c, LAYER_SYSCALLS);
}

/*
 * select= and --syscalls=: "smbd", "pid:N", "comm:NAME", "cgroup:PATH",
 * separated by commas or blanks, into s (freed first). On error -EINVAL and
 * *problem says what is wrong (static).
 */
int syscalls_select_parse(const char *v, struct sys_select *s, const char **problem);
void syscalls_select_free(struct sys_select *s);
/* "smbd, pid:12" into buf (size n): the dump's and the messages' spelling. */
const char *syscalls_select_format(const struct sys_select *s, char *buf, size_t n);
