// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU profile, as DTrace's profile-997 and bcc's profile: a software
 * clock event per CPU fires at the chosen rate, and each firing that finds
 * a chosen task on the CPU counts its kernel and user stacks in the
 * stacks maps (stacks.bpf.h), under the profile's own function id. The
 * idle task and the agent itself are not sampled.
 */
#include "call.bpf.h"
#include "procs.bpf.h"
#include "stacks.bpf.h"

/* Set by the agent when it attaches: the function id the samples count under, whom to sample. */
struct profile_ctl profile_ctl = {};

SEC("perf_event")
int profile_sample(struct bpf_perf_event_data *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (!profile_ctl.on || !tgid || !task_wanted())
		return 0;
	if (profile_ctl.smbd && !(proc_followed() & PROC_SMBD))
		return 0;
	stacks_sample(ctx, profile_ctl.func_id);
	return 0;
}
