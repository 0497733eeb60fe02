// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Syscall numbers come from the C library's <sys/syscall.h> for the
 * architecture we are built for, turned into a table at build time: the
 * numbers are ABI and never change, while the kernel's own sources of them
 * are not always there (sys_call_table left kallsyms when x86 moved to a
 * switch in 6.9; the syscalls tracefs events need CONFIG_FTRACE_SYSCALLS
 * and a mounted tracefs; vmlinux BTF has the handlers but not their numbers).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <syslog.h>

#include "core/agent-int.h"
#include "layers/syscalls.h"
#include "config/values.h"

#define SYSCALL_MAX_NR 1024     /* sys_ids in bpf/syscall.bpf.h */

static const struct {
	const char *name;
	int nr;
} table[] = {
#define SYSCALL(n) { #n, __NR_##n },
#include "syscall-names.h"
#undef SYSCALL
};

static const char *const names[] = {
#define SYSCALL(n) #n,
#include "syscall-names.h"
#undef SYSCALL
};

int syscalls_nr(const char *name)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(table[i].name, name) == 0)
			return table[i].nr;
	return -ENOENT;
}

const char *syscalls_suggest(const char *name)
{
	return values_suggest(name, names, sizeof(names) / sizeof(names[0]));
}

static bool is_syscall_func(const struct func *f)
{
	return f->layer == LAYER_FUNC && f->symbol && strncmp(f->symbol, "syscall:", 8) == 0;
}

/* sys_enter/sys_exit serve every syscall probe: attached once, by the first. */
static int tracepoints_attach(struct agent *a)
{
	int r;

	for (uint32_t i = 0; i < a->funcs.n; i++)
		if (is_syscall_func(&a->funcs.v[i]) && a->funcs.v[i].backend != BACKEND_NONE)
			return a->funcs.v[i].backend;
	/* Exit first: an entry without its exit would leave frames behind. */
	r = probes_attach_tracepoint(a->probes, "sys_exit");
	if (r < 0)
		return r;
	return probes_attach_tracepoint(a->probes, "sys_enter");
}

static const struct func *nr_taken(struct agent *a, const char *symbol, uint32_t self)
{
	for (uint32_t i = 0; i < a->funcs.n; i++)
		if (i != self && is_syscall_func(&a->funcs.v[i]) && !a->funcs.v[i].missing &&
		    strcmp(a->funcs.v[i].symbol, symbol) == 0)
			return &a->funcs.v[i];
	return NULL;
}

int syscalls_probe_add(struct agent *a, const struct probe_config *pc)
{
	const char *name = pc->target + 8, *hint, *tw;
	const struct func *other;
	struct func *f;
	int nr = syscalls_nr(name), id, r;

	if (nr < 0 || nr >= SYSCALL_MAX_NR) {
		hint = syscalls_suggest(name);
		agent_status(a, LOG_WARNING, "probe %s: unknown syscall \"%s\"%s%s%s", pc->label, name,
			     hint ? ", did you mean \"" : "", hint ? hint : "", hint ? "\"?" : "");
		return 0;
	}
	id = func_table_add(&a->funcs, LAYER_FUNC, GROUP_NONE, pc->label, pc->target, NULL);
	if (id < 0)
		return id;
	f = &a->funcs.v[id];
	f->cfg.threshold_ns = config_probe_threshold_ns(a->cfg, pc);
	f->cfg.flags = FF_ENABLED | (pc->kernel_stack ? FF_KSTACK : 0) |
		       (pc->user_stack ? FF_USTACK : 0) | (pc->errors ? FF_ERRORS : 0);
	f->cfg.nargs = pc->args;
	f->cfg.ret_kind = RK_LONG;
	other = nr_taken(a, pc->target, f->id);
	if (other) {
		if (asprintf(&f->missing, "%s is traced by probe %s already", pc->target,
			     other->name) < 0)
			f->missing = NULL;
		agent_status(a, LOG_WARNING, "probe %s: not attached: %s", pc->label,
			     f->missing ? f->missing : pc->target);
		return 0;
	}
	probes_update(a->probes, f);
	r = tracepoints_attach(a);
	if (r < 0) {
		tw = probes_tp_btf_why(a->probes);
		if (asprintf(&f->missing, "sys_enter/sys_exit: %s%s%s", strerror(-r),
			     tw ? "; " : "", tw ? tw : "") < 0)
			f->missing = NULL;
		agent_status(a, LOG_WARNING, "probe %s: not attached: %s", pc->label,
			     f->missing ? f->missing : strerror(-r));
		return 0;
	}
	f->backend = r;
	return probes_set_syscall_id(a->probes, nr, id);
}
