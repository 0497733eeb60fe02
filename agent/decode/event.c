// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode/event.h"

#define FRAME_MAX 256

int64_t event_clock_offset(void)
{
	struct timespec rt, bt;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	return (rt.tv_sec - bt.tv_sec) * 1000000000LL + (rt.tv_nsec - bt.tv_nsec);
}

/* Frames of the tracing machinery itself say nothing about the caller. */
static bool frame_is_noise(const char *s)
{
	return strncmp(s, "bpf_prog_", 9) == 0 || strncmp(s, "bpf_trampoline_", 15) == 0 ||
	       strstr(s, "kretprobe_trampoline") || strstr(s, "rethook_trampoline");
}

/*
 * Where a tracepoint hands over to BPF, on top of its stacks: bpf_trace_runN
 * and __bpf_trace_TP (raw_tp, tp_btf), __traceiter_TP when the tracepoint
 * has several probes, and the functions firing sys_enter and sys_exit,
 * which run only because the tracepoint is on.
 */
static const char *const hook_frames[] = {
	"bpf_trace_run", "__bpf_trace_", "__traceiter_",
	"syscall_trace_enter", "syscall_trace_exit", "syscall_exit_work",
	"syscall_exit_to_user_mode_prepare",
};

static bool frame_is_hook(const char *s)
{
	for (size_t i = 0; i < sizeof(hook_frames) / sizeof(*hook_frames); i++)
		if (strncmp(s, hook_frames[i], strlen(hook_frames[i])) == 0)
			return true;
	return false;
}

struct frames {
	char **v;
	size_t n;
};

static int frames_push(struct frames *f, const char *s)
{
	char **v = realloc(f->v, (f->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	f->v = v;
	v[f->n] = strdup(s);
	if (!v[f->n])
		return -ENOMEM;
	f->n++;
	return 0;
}

static void frames_free(struct frames *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i]);
	free(f->v);
}

/* Frames in a stack of the event, at most SMBLAT_STACK_SLOTS whatever size says. */
static int stack_frames(int32_t size)
{
	return size <= 0 ? 0 : size / 8 > SMBLAT_STACK_SLOTS ? SMBLAT_STACK_SLOTS : size / 8;
}

/* The slot past SMBLAT_STACK_DEPTH was filled: there was more than was kept. */
static void push_cut_marker(struct frames *out, int n, const char *which)
{
	char buf[64];

	if (n <= SMBLAT_STACK_DEPTH)
		return;
	snprintf(buf, sizeof(buf), "[%s stack cut at %d frames]", which, SMBLAT_STACK_DEPTH);
	frames_push(out, buf);
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
	char sym[FRAME_MAX];

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++) {
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
		return NULL;    /* a user function or USDT probe */
	return ksyms_lookup(d->ks, fn->symbol, fn->module);
}

static void kernel_frames(const struct decoder *d, const struct event *e, const struct func *fn,
			  struct frames *out)
{
	char buf[FRAME_MAX];
	int n = stack_frames(e->kstack_sz);
	const struct ksym *k;
	bool top = true;

	/* Named first, when there is a recorded stack to complete. */
	k = n > 0 ? probed_function(d, fn) : NULL;
	if (k) {
		ksyms_format(d->ks, k->addr, buf, sizeof(buf));
		frames_push(out, buf);
	}
	for (int i = 0; i < n && i < SMBLAT_STACK_DEPTH; i++) {
		int r = 0;

		if (d->ks)
			r = ksyms_format(d->ks, e->kstack[i], buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)e->kstack[i]);
		if (frame_is_noise(buf))
			continue;
		/*
		 * On top, what no symbol covers is a BPF program kallsyms did not
		 * list when it was read; with the tracepoint's hooks it goes.
		 */
		if (top && d->ks && (r < 0 || frame_is_hook(buf)))
			continue;
		top = false;
		frames_push(out, buf);
	}
	push_cut_marker(out, n, "kernel");
}

static void user_frames(const struct decoder *d, const struct event *e, struct frames *out)
{
	char buf[FRAME_MAX];
	int n = stack_frames(e->ustack_sz);

	for (int i = 0; i < n && i < SMBLAT_STACK_DEPTH; i++) {
		if (d->us)
			usyms_format(d->us, e->pid, e->ustack[i], buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)e->ustack[i]);
		frames_push(out, buf);
	}
	push_cut_marker(out, n, "user");
}

static char *join(struct frames *f, bool reverse, char sep)
{
	size_t len = 1;
	char *s, *p;

	if (!f->n)
		return NULL;
	for (size_t i = 0; i < f->n; i++)
		len += strlen(f->v[i]) + 1;
	s = p = malloc(len);
	if (!s)
		return NULL;
	for (size_t i = 0; i < f->n; i++) {
		const char *frame = f->v[reverse ? f->n - 1 - i : i];
		size_t l = strlen(frame);

		memcpy(p, frame, l);
		p += l;
		*p++ = sep;
	}
	p[-1] = '\0';
	return s;
}

/* Folded frames carry no offsets or module tags: flame graphs merge by name. Markers stay whole. */
static void strip_frame(char *s)
{
	char *c = strpbrk(s, "+ ");

	if (c && s[0] != '0' && s[0] != '[')
		*c = '\0';
}

static int stacks(const struct decoder *d, const struct event *e, const struct func *fn,
		  struct record *r)
{
	struct frames k = {}, u = {}, all = {};

	kernel_frames(d, e, fn, &k);
	user_frames(d, e, &u);
	for (size_t i = 0; i < k.n; i++)
		frames_push(&all, k.v[i]);
	for (size_t i = 0; i < u.n; i++)
		frames_push(&all, u.v[i]);
	r->stack = join(&all, false, '\n');
	for (size_t i = 0; i < all.n; i++)
		strip_frame(all.v[i]);
	r->stack_folded = join(&all, true, ';');
	frames_free(&k);
	frames_free(&u);
	frames_free(&all);
	return 0;
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
