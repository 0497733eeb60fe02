// SPDX-License-Identifier: GPL-2.0
/* The one definition of what every unit shares besides the weak maps. */
#include "core.bpf.h"
#include "view.h"

char LICENSE[] SEC("license") = "GPL";

const volatile struct smblat_cfg cfg = {};

__u64 epoch = 1;

/* Views the agent switches on and off (view.bpf.h). */
struct view_ctl views = {};
