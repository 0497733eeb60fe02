// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode/event.h"
#include "decode/stack.h"
#include "base/macro.h"

int64_t event_clock_offset(void)
{
	struct timespec rt, bt;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	return (rt.tv_sec - bt.tv_sec) * 1000000000LL + (rt.tv_nsec - bt.tv_nsec);
}

/* The function serving syscall name: this architecture's wrapper (4.17 on), or sys_NAME. */
static const struct ksym *syscall_handler(const struct ksyms *ks, const char *name)
{
	static const char *const prefixes[] = {
#if defined(__x86_64__)
		"__x64_sys_",
#elif defined(__aarch64__)
		"__arm64_sys_",
#elif defined(__s390x__)
		"__s390x_sys_",
#elif defined(__riscv)
		"__riscv_sys_",
#endif
		"sys_",
	};
	const struct ksym *k;
	char sym[STACK_FRAME_MAX];

	for (size_t i = 0; i < ELEMENTSOF(prefixes); i++) {
		snprintf(sym, sizeof(sym), "%s%s", prefixes[i], name);
		k = ksyms_lookup(ks, sym, "vmlinux");
		if (k)
			return k;
	}
	return NULL;
}

/* The kernel function fn probes, when it has returned before the exit probe ran. */
static const struct ksym *probed_function(const struct decoder *d, const struct func *fn)
{
	if (!d->ks || !fn->symbol)
		return NULL;
	if (strncmp(fn->symbol, "syscall:", 8) == 0)
		return syscall_handler(d->ks, fn->symbol + 8);
	if (fn->layer == LAYER_FUNC && strchr(fn->symbol, '/'))
		return NULL; /* a user function or USDT probe */
	return ksyms_lookup(d->ks, fn->symbol, fn->module);
}

static int stacks(const struct decoder *d, const struct event *e, const struct func *fn, struct record *r)
{
	char first[STACK_FRAME_MAX];
	const struct ksym *k;
	struct stack_src s = {
		.ks = d->ks,
		.us = d->us,
		.pid = e->pid,
		.k = e->kstack,
		.nk = stack_frames(e->kstack_sz),
		.u = e->ustack,
		.nu = stack_frames(e->ustack_sz),
	};

	/* Named first, when there is a recorded stack to complete. */
	k = s.nk ? probed_function(d, fn) : NULL;
	if (k) {
		ksyms_format(d->ks, k->addr, first, sizeof(first));
		s.first = first;
	}
	return stack_symbolize(&s, &r->stack, &r->stack_folded);
}

static int64_t ret_value(uint8_t kind, uint64_t raw)
{
	/* user functions: the whole register, as funcslower shows it; no errno convention */
	return kind == RK_INT ? (int64_t)(int32_t)raw : (int64_t)raw;
}

static int ret_errno(uint8_t kind, int64_t ret)
{
	switch (kind) {
	case RK_INT:
	case RK_LONG:
	case RK_PTR:
		return ret < 0 && ret >= -4095 ? (int)-ret : 0;
	}
	return 0;
}

int event_decode(const struct decoder *d, const void *data, size_t size, struct record *r)
{
	const struct event *e = data;
	const struct func *fn;

	memset(r, 0, sizeof(*r));
	if (size < sizeof(*e) || e->func_id >= d->funcs->n)
		return -EINVAL;
	fn = &d->funcs->v[e->func_id];
	r->func = fn;
	/* unsigned: a garbled end_ns must wrap, not overflow */
	r->end_realtime_us = (e->end_ns + (uint64_t)d->boot_to_realtime_ns) / 1000;
	r->latency_ns = e->latency_ns;
	r->threshold_ns = fn->cfg.threshold_ns;
	r->pid = e->pid;
	r->tid = e->tid;
	r->uid = e->uid;
	memcpy(r->comm, e->comm, SMBLAT_COMM_LEN);
	r->comm[SMBLAT_COMM_LEN] = '\0';
	if ((e->flags & EF_HAS_DEV) && d->mounts)
		r->share = mounts_share(d->mounts, e->dev);
	if (e->flags & EF_HAS_NAME) {
		r->file = strndup(e->name, SMBLAT_NAME_LEN);
	}
	if (e->flags & EF_HAS_RET) {
		r->has_ret = true;
		r->ret = ret_value(fn->cfg.ret_kind, e->ret);
		r->err = ret_errno(fn->cfg.ret_kind, r->ret);
	}
	r->nargs = fn->cfg.nargs > SMBLAT_MAX_ARGS ? SMBLAT_MAX_ARGS : fn->cfg.nargs;
	memcpy(r->args, e->args, sizeof(r->args));
	return stacks(d, e, fn, r);
}

void event_record_clear(struct record *r)
{
	record_clear(r);
}
