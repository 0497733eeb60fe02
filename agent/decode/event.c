// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode/event.h"
#include "decode/stack.h"
#include "probes/probes.h"
#include "base/macro.h"
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
	if (!fn->kernel)
		return NULL; /* a user function, a USDT probe, a tracepoint */
	return ksyms_lookup(d->ks, fn->symbol, fn->module);
}

int event_decode_stacks(const struct decoder *d, const struct rec_head *h, const struct rec_stacks *st,
			uint32_t fallback_pid, struct record *r)
{
	char first[STACK_FRAME_MAX];
	const struct ksym *k;
	const char *unwind;
	struct stack_src s = { .ks = d->ks, .us = d->us, .pid = h->pid, .fallback_pid = fallback_pid };

	s.k = st->kstack;
	s.nk = stack_frames(st->kstack_sz);
	s.u = st->ustack;
	s.nu = stack_frames(st->ustack_sz);
	s.uflags = st->uflags & 0xff;
	unwind = stack_unwind_name(s.uflags, s.nu);
	/* Named first, when there is a recorded stack to complete. */
	k = s.nk && r->func ? probed_function(d, r->func) : NULL;
	if (k) {
		ksyms_format(d->ks, k->addr, first, sizeof(first));
		s.first = first;
	}
	free(r->stack);
	free(r->stack_folded);
	r->stack = r->stack_folded = NULL;
	if (unwind && record_add(r, "STACK_UNWIND", "%s", unwind) < 0)
		return -ENOMEM;
	return stack_symbolize(&s, &r->stack, &r->stack_folded);
}

/* The value as the function's type reads it; user functions of unknown type: the whole register. */
static int64_t ret_value(uint8_t kind, uint64_t raw)
{
	switch (kind) {
	case RK_INT:
	case RK_USER_S32:
		return (int32_t)raw;
	case RK_USER_S8:
		return (int8_t)raw;
	case RK_USER_S16:
		return (int16_t)raw;
	case RK_USER_U8:
		return (uint8_t)raw;
	case RK_USER_U16:
		return (uint16_t)raw;
	case RK_USER_U32:
		return (uint32_t)raw;
	}
	return (int64_t)raw;
}

/* The errno of a failed kernel call; user functions have no errno convention. */
static int ret_errno(uint8_t kind, int64_t ret)
{
	switch (kind) {
	case RK_INT:
	case RK_LONG:
	case RK_PTR:
		return smblat_is_errno(ret) ? (int)-ret : 0;
	}
	return 0;
}

int event_decode_head(const struct decoder *d, const void *data, size_t size, struct record *r)
{
	const struct rec_head *h = data;
	const struct func *fn;

	memset(r, 0, sizeof(*r));
	if (size < sizeof(*h) || h->func_id >= d->funcs->n)
		return -EINVAL;
	fn = &d->funcs->v[h->func_id];
	r->func = fn;
	/* unsigned: a garbled end_ns must wrap, not overflow */
	r->end_realtime_us = (h->end_ns + (uint64_t)d->boot_to_realtime_ns) / 1000;
	r->latency_ns = h->latency_ns;
	r->threshold_ns = fn->cfg.threshold_ns;
	r->pid = h->pid;
	r->tid = h->tid;
	r->uid = h->uid;
	memcpy(r->comm, h->comm, SMBLAT_COMM_LEN);
	r->comm[SMBLAT_COMM_LEN] = '\0';
	return 0;
}

int event_decode_call(const struct decoder *d, const struct rec_call *c, size_t size, struct record *r)
{
	const struct func *fn = r->func;

	if (size < sizeof(*c) || !fn)
		return -EINVAL;
	if (c->h.flags & RF_HAS_RET) {
		r->has_ret = true;
		r->ret = ret_value(fn->cfg.ret_kind, c->ret);
		r->err = ret_errno(fn->cfg.ret_kind, r->ret);
	}
	r->nargs = fn->cfg.nargs > SMBLAT_MAX_ARGS ? SMBLAT_MAX_ARGS : fn->cfg.nargs;
	memcpy(r->args, c->args, sizeof(r->args));
	/* off a CPU cannot exceed the call; a thread switched out across the entry's snapshot could */
	if (c->h.flags & RF_OFFCPU) {
		uint64_t off = c->offcpu_ns < c->h.latency_ns ? c->offcpu_ns : c->h.latency_ns;

		record_add(r, "OFFCPU_US", "%" PRIu64, off / 1000);
		record_add(r, "ONCPU_US", "%" PRIu64, (c->h.latency_ns - off) / 1000);
	}
	return event_decode_stacks(d, &c->h, &c->st, 0, r);
}

int event_decode_file(const struct decoder *d, uint32_t flags, uint32_t dev, const char *name,
		      struct record *r)
{
	if ((flags & RF_HAS_DEV) && d->mounts)
		r->share = mounts_share(d->mounts, dev);
	if (flags & RF_HAS_NAME) {
		r->file = strndup(name, SMBLAT_NAME_LEN);
		if (!r->file)
			return -ENOMEM;
	}
	return 0;
}

void event_record_clear(struct record *r)
{
	record_clear(r);
}
