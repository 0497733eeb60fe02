/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The CPU profile (profile.bpf.c): what the agent tells its sampling program. */
#ifndef SMBLAT_PROFILE_H
#define SMBLAT_PROFILE_H

/* "profile_ctl" in .data, set when the profile attaches. */
struct profile_ctl {
	uint32_t on;      /* 0: the samples are dropped (before the function id is set, after a detach) */
	uint32_t func_id; /* the samples are counted as calls of it */
	uint32_t smbd;    /* only the followed smbd processes (procs.bpf.h), beside the [agent] filters */
	uint32_t pad;
};
SMBLAT_SIZE(profile_ctl, 16);

#endif
