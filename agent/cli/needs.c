// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/capability.h>

#include "base/macro.h"
#include "base/privs.h"
#include "cli/needs.h"
#include "config/target.h"
#include "symbols/kmodules.h"

/* Whether target probes user space (uprobe, USDT), kernel functions, or neither (a syscall). */
static void target_needs(const char *target, bool *user, bool *kernel)
{
	const char *problem;
	struct target tg;

	*user = *kernel = false;
	if (target_parse(target, &tg, &problem) < 0)
		return;
	/* NAME:function is a module's when the running kernel has one of that name */
	*user = tg.kind == TARGET_USER || tg.kind == TARGET_USDT ||
		(tg.kind == TARGET_QUALIFIED && !kmodule_known(tg.object));
	*kernel = tg.kind == TARGET_KERNEL || (tg.kind == TARGET_QUALIFIED && !*user);
	target_done(&tg);
}

void needs_of(const struct config *c, struct needs *n)
{
	*n = (struct needs) {};
	for (int l = 0; l < _LAYER_MAX; l++) {
		if (!c->layer[l].enabled)
			continue;
		/* the profile's samples are counted stacks */
		n->counted_stacks |= c->layer[l].stacks || (l == LAYER_PROFILE && !c->layer[l].automatic);
		/* the SMB client's layers probe kernel functions; smbd's are uprobes */
		n->kernel_functions |= l == LAYER_SMB || l == LAYER_SMB2;
		n->user_functions |= l == LAYER_SMBD;
		/* block requests have their issuer's kernel stack; smbd and syscall accounts none */
		n->kernel_stacks |= l == LAYER_SMB || l == LAYER_SMB2 || l == LAYER_BLOCK;
	}
	for (unsigned int i = 0; c->layer[LAYER_FUNC].enabled && i < c->n_probes; i++) {
		bool user, kernel;

		target_needs(c->probes[i].target, &user, &kernel);
		n->user_functions |= user;
		n->kernel_functions |= kernel;
		/* a syscall's kernel stack is its way through the kernel's entry */
		n->kernel_stacks |= !user;
		n->counted_stacks |= c->probes[i].stacks;
		if (user && !n->user_target)
			n->user_target = c->probes[i].target;
	}
}

/* Kernels before 5.8 have no CAP_BPF and CAP_PERFMON: CAP_SYS_ADMIN stands for them. */
static bool kernel_has_cap_bpf(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int last = CAP_LAST_CAP;

	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = CAP_LAST_CAP;
		fclose(f);
	}
	return last >= CAP_BPF;
}

int needs_check_privileges(const struct needs *n)
{
	static const struct {
		unsigned int cap;
		const char *name, *why;
	} caps[] = {
		{ CAP_BPF, "CAP_BPF", "BPF programs" },
		{ CAP_PERFMON, "CAP_PERFMON", "tracing" },
		{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN", "uprobes and kernel modules' BTF" },
		{ CAP_SYSLOG, "CAP_SYSLOG", "kernel function addresses in /proc/kallsyms" },
	};
	bool bpf = kernel_has_cap_bpf();
	uint64_t want = 0, missing;
	char what[256] = "";
	size_t len = 0;

	for (size_t i = 0; i < ELEMENTSOF(caps); i++) {
		unsigned int cap = caps[i].cap;

		if ((cap == CAP_BPF || cap == CAP_PERFMON) ? bpf :
		    cap == CAP_SYS_ADMIN ? n->user_functions || n->kernel_functions || !bpf :
					   n->kernel_functions)
			want |= UINT64_C(1) << cap;
	}
	missing = privs_missing(want);
	for (size_t i = 0; i < ELEMENTSOF(caps) && len < sizeof(what); i++)
		if (missing & (UINT64_C(1) << caps[i].cap))
			len += (size_t)snprintf(what + len, sizeof(what) - len, "%s%s (%s)", len ? ", " : "",
						caps[i].name, caps[i].why);
	if (!missing)
		return 0;
	fprintf(stderr, "smblat: this run needs %s, which this process lacks: run it as root\n", what);
	return -EPERM;
}
