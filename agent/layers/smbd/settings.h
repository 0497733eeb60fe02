/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* [smbd]: which smbd the smbd layer probes, and its views' switches. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "config/config.h"

/* The rest of [smbd] (enabled=, threshold=, ... are struct layer_config's). */
struct smbd_settings {
	char *binary;     /* smbd executable, NULL: found on PATH (smbd_settings_binary()) */
	bool vfs;         /* every smb_vfs_call_*, not only include=d ones; default no */
	bool exits;       /* SMBD_EXIT entries; default yes */
	bool exit_errors; /* their last failed syscall (hooks every syscall's exit); default no */
	bool breaks;      /* SMBD_OPLOCK_BREAK, SMBD_LEASE_BREAK entries; default yes */
	bool split;       /* time split summaries (SMBD_TIME_SPLIT); default no */
};

extern const struct config_section smbd_settings_section;

static inline struct smbd_settings *smbd_settings(const struct config *c)
{
	return config_layer_settings(c, LAYER_SMBD);
}

/* The smbd to probe: binary=, else smbd on PATH or where Samba installs it; NULL: none (malloc'd). */
char *smbd_settings_binary(const struct config *c);
/*
 * Whether process pid runs that smbd (its executable is the same file):
 * 0, or negative errno with why (size n) said: -ESRCH no such process,
 * -EINVAL it is not an smbd, or what kept it from being told.
 */
int smbd_settings_check_pid(const struct config *c, pid_t pid, char *why, size_t n);
