/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* syscall:NAME targets of [probe NAME]: names, numbers, attaching. */
#pragma once

#include "config/config.h"

struct agent;

/* Number of syscall NAME on this architecture, or -ENOENT. */
int syscalls_nr(const char *name);
/* The known name closest to a misspelt one, or NULL. */
const char *syscalls_suggest(const char *name);

/* Adds and attaches a [probe NAME] whose target is syscall:NAME; says why not. */
int syscalls_probe_add(struct agent *a, const struct probe_config *pc);
