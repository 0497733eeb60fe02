// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/stack.h"
#include "bpf/smblat.h"
#include "base/macro.h"

#define FRAME_MAX STACK_FRAME_MAX

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
	"bpf_trace_run",
	"__bpf_trace_",
	"__traceiter_",
	"syscall_trace_enter",
	"syscall_trace_exit",
	"syscall_exit_work",
	"syscall_exit_to_user_mode_prepare",
};

static bool frame_is_hook(const char *s)
{
	for (size_t i = 0; i < ELEMENTSOF(hook_frames); i++)
		if (strncmp(s, hook_frames[i], strlen(hook_frames[i])) == 0)
			return true;
	return false;
}

struct frames {
	char **v;
	size_t n;
	int error;
};

static void frames_push(struct frames *f, const char *s)
{
	char **v = realloc(f->v, (f->n + 1) * sizeof(*v));

	if (!v || !(v[f->n] = strdup(s))) {
		if (v)
			f->v = v;
		f->error = -ENOMEM;
		return;
	}
	f->v = v;
	f->n++;
}

static void frames_free(struct frames *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i]);
	free(f->v);
}

unsigned int stack_frames(int32_t size)
{
	return size <= 0 ? 0 : size / 8 > SMBLAT_STACK_SLOTS ? SMBLAT_STACK_SLOTS : (unsigned int)size / 8;
}

static unsigned int depth(const struct stack_src *s)
{
	return s->depth ? s->depth : SMBLAT_STACK_DEPTH;
}

/* A slot past the depth was filled: there was more than was kept. */
static void push_cut_marker(const struct stack_src *s, struct frames *out, unsigned int n, const char *which)
{
	char buf[64];

	if (n <= depth(s))
		return;
	snprintf(buf, sizeof(buf), "[%s stack cut at %u frames]", which, depth(s));
	frames_push(out, buf);
}

/* "cifs_unlink+0x1 [cifs]" and "cifs_unlink+0x0 [cifs]": one function. */
static bool same_function(const char *a, const char *b)
{
	size_t n = strcspn(a, "+ ");

	return n == strcspn(b, "+ ") && strncmp(a, b, n) == 0;
}

static void kernel_frames(const struct stack_src *s, struct frames *out)
{
	char buf[FRAME_MAX];
	bool top = true;

	if (s->nk && s->first)
		frames_push(out, s->first);
	for (unsigned int i = 0; i < s->nk && i < depth(s); i++) {
		int r = 0;

		if (s->ks)
			r = ksyms_format(s->ks, s->k[i], buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)s->k[i]);
		if (frame_is_noise(buf))
			continue;
		/*
		 * On top, what no symbol covers is a BPF program kallsyms did not
		 * list when it was read; with the tracepoint's hooks it goes.
		 */
		if (top && s->ks && (r < 0 || frame_is_hook(buf)))
			continue;
		/*
		 * A stack taken at the call's entry (kernels whose kretprobes
		 * cannot unwind) or inside it (fexit's trampoline) starts in
		 * the probed function: named once.
		 */
		if (top && s->first && same_function(buf, s->first)) {
			top = false;
			continue;
		}
		top = false;
		frames_push(out, buf);
	}
	push_cut_marker(s, out, s->nk, "kernel");
}

/* Why a user stack ended before its outermost frame, as its last frame says it. */
static const char *const end_markers[] = {
	[US_END_NOT_CODE] = "[unwind: not code]",
	[US_END_UNREADABLE] = "[unwind: stack unreadable]",
	[US_END_PENDING] = "[unwind: table pending]",
	[US_END_NO_INFO] = "[unwind: no unwind info]",
	[US_END_LOCKED] = "[unwind: mappings locked]",
	[US_END_NO_ROOM] = "[unwind: no room for the file]",
	[US_END_LOOP] = "[unwind: loop]",
};

static void push_end_marker(const struct stack_src *s, struct frames *out)
{
	uint32_t end = (s->uflags & US_END_MASK) >> US_END_SHIFT;

	if (s->nu > depth(s) || end >= sizeof(end_markers) / sizeof(*end_markers) || !end_markers[end])
		return;
	frames_push(out, end_markers[end]);
}

const char *stack_unwind_name(uint32_t uflags, unsigned int nu)
{
	if (!nu)
		return NULL;
	if (uflags & US_KERNEL)
		return "kernel-fp";
	if ((uflags & (US_DWARF | US_FP)) == (US_DWARF | US_FP))
		return "dwarf+fp";
	if (uflags & US_DWARF)
		return "dwarf";
	return "fp";
}

static void user_frames(const struct stack_src *s, struct frames *out)
{
	char buf[FRAME_MAX];
	/* a process gone before its stack was read: its parent maps the same files (fork) */
	uint32_t pid = s->pid;

	/* gone, or a zombie whose maps are empty already */
	if (s->us && s->nu && s->fallback_pid && usyms_format(s->us, pid, s->u[0], buf, sizeof(buf)) < 0 &&
	    usyms_format(s->us, s->fallback_pid, s->u[0], buf, sizeof(buf)) == 0)
		pid = s->fallback_pid;
	for (unsigned int i = 0; i < s->nu && i < depth(s); i++) {
		if (s->us)
			usyms_format(s->us, pid, s->u[i], buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)s->u[i]);
		frames_push(out, buf);
	}
	push_cut_marker(s, out, s->nu, "user");
	push_end_marker(s, out);
}

static char *join(const struct frames *f, bool reverse, char sep)
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

/*
 * Folded frames carry no offsets or module tags: flame graphs merge by
 * name, and a file's frames without a symbol by the file ("[libc.so.6]").
 * Addresses and markers stay whole.
 */
static void strip_frame(char *s)
{
	char *c = strpbrk(s, "+ ");

	if (c && s[0] != '0' && (s[0] != '[' || (c[0] == '+' && c > s && c[-1] == ']')))
		*c = '\0';
	/* ';' separates frames */
	for (; *s; s++)
		if (*s == ';')
			*s = '_';
}

int stack_symbolize(const struct stack_src *s, char **text, char **folded)
{
	struct frames all = {};

	*text = *folded = NULL;
	kernel_frames(s, &all);
	user_frames(s, &all);
	if (!all.error && all.n) {
		*text = join(&all, false, '\n');
		for (size_t i = 0; i < all.n; i++)
			strip_frame(all.v[i]);
		*folded = join(&all, true, ';');
		if (!*text || !*folded)
			all.error = -ENOMEM;
	}
	frames_free(&all);
	return all.error;
}
