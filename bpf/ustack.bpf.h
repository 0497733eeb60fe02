/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user stack of the current task, walked here (ustack.h says what the
 * frames are): from the task's user registers, each frame's mapping looked
 * up (bpf_find_vma(), Linux 5.17) and the frame told by its file's index
 * and the offset in it; the caller found by the file's unwind table
 * (compiled by the agent from .eh_frame/.debug_frame, agent/symbols/cfi.c),
 * by frame pointers where the file has none, and the walk ends, the reason
 * in the flags, at anything that is not code: junk never becomes a frame.
 *
 * The walk is a global function stepping a frame per bpf_loop() round,
 * each step a global function too (a direct call: bpf_loop()'s callbacks
 * are indirect calls, dear behind return thunks); the verifier goes
 * through each once per program. It works on per-CPU state with a slot
 * per nesting level (a perf sample or a tracepoint may interrupt a probe
 * that walks). A row found is kept for the next frame (recursion, loops).
 * Kernels without bpf_find_vma() and bpf_loop() get the object built with
 * SMBLAT_KERNEL_USTACK: the kernel's frame-pointer walk and raw addresses.
 * What it costs: bench/stacks-cost.
 */
#ifndef SMBLAT_USTACK_BPF_H
#define SMBLAT_USTACK_BPF_H

#include "core.bpf.h"
#include "ustack.h"

#define USTACK_NEST 4
#define VM_EXEC_FLAG 0x4ull
#define PATH_MASK (SMBLAT_UFILE_PATH - 1)

/* Where the search for a free file index starts; ufile_slots makes a claim safe. */
extern __u32 ufile_hint;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SMBLAT_UFILES);
	__type(key, struct ufile_key);
	__type(value, struct ufile_val);
} ufiles SEC(".maps") __weak;

/* Index -> file: an index is taken by inserting it here (BPF_NOEXIST), by the agent too. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SMBLAT_UFILES);
	__type(key, __u32);
	__type(value, struct ufile_key);
} ufile_slots SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 << 10);
} ufile_notes SEC(".maps") __weak;

/* The unwind tables: a file's 64 KiB pages of code to their rows (both sized by the agent). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SMBLAT_UNWIND_PAGES);
	__type(key, struct upage_key);
	__type(value, struct upage_val);
} unwind_pages SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SMBLAT_UNWIND_ROWS);
	__type(key, __u32);
	__type(value, struct urow);
} unwind_rows SEC(".maps") __weak;

/* A walk in progress. */
struct uwalk {
	__u64 pc, sp, bp;
	/* the mapping pc was last found in: the offset in its file is pc - vm_base */
	__u64 vm_start, vm_end, vm_base;
	__u32 vm_index; /* its file's index; 0: code mapped from no file */
	__u32 vm_state; /* enum ufile_state of that file */
	__u32 max;      /* frames to take at most */
	__u32 inner;    /* pc is where the task is, not a return address */
	/* pending uretprobes: the trampoline their return addresses were replaced by, the next one */
	__u64 tramp;
	__u64 ri;
	__u64 hash; /* of the frames so far */
	/* the row last found, its file and the offsets it covers: recursion and loops find it again */
	struct urow row;
	__u32 row_index, row_end;
	struct ustack_val stk;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, USTACK_NEST);
	__type(key, __u32);
	__type(value, struct uwalk);
} uwalks SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} uwalk_depth SEC(".maps") __weak;

/* A note being written: the path is built backwards, the slack takes what a bound allows past it. */
struct unote_buf {
	struct ufile_note note;
	char slack[SMBLAT_UFILE_PATH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unote_buf);
} unote_bufs SEC(".maps") __weak;

/* ---- files ---- */

/* A file's path, from its last component outward into note->path. */
struct upath {
	__u64 dentry, mnt; /* struct dentry *, struct mount * */
	__u32 off;
	__u32 whole;
};

static long upath_step(__u64 i, struct upath *p)
{
	struct dentry *d = (struct dentry *)p->dentry, *parent;
	struct mount *m = (struct mount *)p->mnt;
	const unsigned char *name;
	struct unote_buf *b;
	__u32 zero = 0, len, off;

	parent = BPF_CORE_READ(d, d_parent);
	if (d == BPF_CORE_READ(m, mnt.mnt_root) || d == parent) {
		struct mount *up = BPF_CORE_READ(m, mnt_parent);

		/* the root of the tree of mounts: the path is whole */
		if (up == m || !up) {
			p->whole = 1;
			return 1;
		}
		p->dentry = (__u64)BPF_CORE_READ(m, mnt_mountpoint);
		p->mnt = (__u64)up;
		return 0;
	}
	b = bpf_map_lookup_elem(&unote_bufs, &zero);
	if (!b)
		return 1;
	len = BPF_CORE_READ(d, d_name.len);
	name = BPF_CORE_READ(d, d_name.name);
	off = p->off;
	if (len == 0 || len + 1 > off)
		return 1; /* longer than a note holds: the path stays unknown */
	off -= len + 1;
	off &= PATH_MASK;
	b->note.path[off] = '/';
	if (bpf_probe_read_kernel(&b->note.path[off + 1], len & PATH_MASK, name) < 0)
		return 1;
	p->off = off;
	p->dentry = (__u64)parent;
	return 0;
}

/* The agent learns the file of index: its identity, and its path as the mount tree has it. */
static __always_inline int ufile_notify(const struct ufile_key *k, __u32 index, __u64 file)
{
	struct unote_buf *b;
	struct upath p = {};
	__u32 zero = 0;

	/* set here: an initializer would be a constant in .rodata, which the builds must share */
	p.off = SMBLAT_UFILE_PATH - 1;
	b = bpf_map_lookup_elem(&unote_bufs, &zero);
	if (!b)
		return -1;
	b->note.ino = k->ino;
	b->note.dev = k->dev;
	b->note.index = index;
	b->note.tgid = bpf_get_current_pid_tgid() >> 32;
	b->note.path[SMBLAT_UFILE_PATH - 1] = 0;
	p.dentry = (__u64)BPF_CORE_READ((struct file *)file, f_path.dentry);
	p.mnt = (__u64)container_of(BPF_CORE_READ((struct file *)file, f_path.mnt), struct mount, mnt);
	bpf_loop(64, upath_step, &p, 0);
	b->note.path_off = p.whole ? p.off : SMBLAT_UFILE_PATH;
	return bpf_ringbuf_output(&ufile_notes, &b->note, sizeof(b->note), 0);
}

/*
 * The index of the file of a mapping, given one the first time: an index
 * is claimed by inserting it into ufile_slots, the file then into ufiles;
 * a CPU that lost the race for the file gives its index back. 0: no index
 * left, or no note could be sent (tried again at the next stack).
 */
static __always_inline __u32 ufile_index(const struct ufile_key *k, __u64 file, __u32 *state)
{
	struct ufile_val *v = bpf_map_lookup_elem(&ufiles, k), nv = {};
	__u32 idx = 0;

	if (v) {
		*state = v->state;
		return v->index;
	}
	for (int i = 0; i < 8; i++) {
		__u32 try = (ufile_hint + i) % SMBLAT_UFILES;

		if (try == 0)
			continue;
		if (bpf_map_update_elem(&ufile_slots, &try, k, BPF_NOEXIST) == 0) {
			idx = try;
			break;
		}
	}
	if (!idx)
		return 0;
	ufile_hint = idx + 1;
	nv.index = idx;
	nv.state = UFILE_NEW;
	if (bpf_map_update_elem(&ufiles, k, &nv, BPF_NOEXIST) < 0) {
		bpf_map_delete_elem(&ufile_slots, &idx);
		v = bpf_map_lookup_elem(&ufiles, k);
		if (!v)
			return 0;
		*state = v->state;
		return v->index;
	}
	if (ufile_notify(k, idx, file) < 0) {
		bpf_map_delete_elem(&ufiles, k);
		bpf_map_delete_elem(&ufile_slots, &idx);
		return 0;
	}
	*state = nv.state;
	return idx;
}

/* ---- mappings ---- */

struct uvma {
	__u64 start, end, pgoff, flags, file, ino;
	__u32 dev;
	__u32 found;
};

static long uvma_found(struct task_struct *task, struct vm_area_struct *vma, struct uvma *v)
{
	struct file *f = BPF_CORE_READ(vma, vm_file);

	v->start = BPF_CORE_READ(vma, vm_start);
	v->end = BPF_CORE_READ(vma, vm_end);
	v->pgoff = BPF_CORE_READ(vma, vm_pgoff);
	v->flags = BPF_CORE_READ(vma, vm_flags);
	v->file = (__u64)f;
	if (f) {
		v->ino = BPF_CORE_READ(f, f_inode, i_ino);
		v->dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
	}
	v->found = 1;
	return 0;
}

static __always_inline void uwalk_end(struct uwalk *w, enum ustack_end why)
{
	w->stk.flags = (w->stk.flags & ~US_END_MASK) | ((__u32)why << US_END_SHIFT);
}

/*
 * The code mappings walks have found, by address space and page of an
 * address in them. With interrupts off (a perf event's sample) the kernel
 * looks up one mapping per program run (bpf_find_vma()'s unlock is
 * deferred to an irq_work of the CPU, busy until it ran): the mappings
 * further out are taken from here, each sample that finds one missing
 * looking that one up. A mapping unmapped and replaced at the same
 * address by other code before the entry is evicted would tell a wrong
 * frame; the lookup is tried first, so only such samples read it.
 */
struct umap_key {
	__u64 mm; /* struct mm_struct * */
	__u64 page;
};

struct umap_val {
	__u64 start, end, base;
	struct ufile_key file; /* ino 0: code mapped from no file */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct umap_key);
	__type(value, struct umap_val);
} umaps SEC(".maps") __weak;

/* Per address space: an address whose mapping a walk could not look up, for the next walk to. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u64);
} umap_wants SEC(".maps") __weak;

static __always_inline void umap_keep(const struct umap_key *mk, const struct uvma *v)
{
	struct umap_val c = { .start = v->start, .end = v->end, .base = v->start - (v->pgoff << 12) };

	if (bpf_map_lookup_elem(&umaps, mk))
		return;
	if (v->file) {
		c.file.ino = v->ino;
		c.file.dev = v->dev;
	}
	bpf_map_update_elem(&umaps, mk, &c, BPF_ANY);
}

/*
 * Before a walk looks anything up: the mapping an earlier walk of t's
 * address space wanted, looked up now (this run's one lookup where only
 * one is possible) and kept.
 */
static __always_inline void umap_learn(struct task_struct *t)
{
	__u64 mm = (__u64)BPF_CORE_READ(t, mm), *pc = bpf_map_lookup_elem(&umap_wants, &mm);
	struct umap_key mk = { .mm = mm };
	struct uvma v = {};

	if (!pc)
		return;
	mk.page = *pc >> 12;
	if (bpf_find_vma(t, *pc, uvma_found, &v, 0) == 0 && v.found && (v.flags & VM_EXEC_FLAG))
		umap_keep(&mk, &v);
	bpf_map_delete_elem(&umap_wants, &mm);
}

/* The mapping of w->pc as a walk found it before, into w->vm_*; false: not known, or its file not indexed. */
static __always_inline bool uwalk_map_known(struct uwalk *w, const struct umap_key *mk)
{
	struct umap_val *c = bpf_map_lookup_elem(&umaps, mk);
	struct ufile_val *f;

	if (!c)
		return false;
	w->vm_index = 0;
	w->vm_state = UFILE_FP;
	if (c->file.ino) {
		f = bpf_map_lookup_elem(&ufiles, &c->file);
		if (!f)
			return false;
		w->vm_index = f->index;
		w->vm_state = f->state;
	}
	w->vm_start = c->start;
	w->vm_end = c->end;
	w->vm_base = c->base;
	return true;
}

/*
 * The mapping of w->pc into w->vm_*; false, the walk ended, when pc is in
 * none that is code. cached (a constant): the profile's walk, which takes
 * the mappings it cannot look up from umaps; the calls' walks have no part
 * of it to verify or run.
 */
static __always_inline bool uwalk_map(struct uwalk *w, const bool cached)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct umap_key mk = { .mm = cached ? (__u64)BPF_CORE_READ(t, mm) : 0, .page = w->pc >> 12 };
	struct uvma v = {};
	struct ufile_key k = {};
	long r;

	if (w->pc >= w->vm_start && w->pc < w->vm_end)
		return true;
	r = bpf_find_vma(t, w->pc, uvma_found, &v, 0);
	if (r == -16 /* EBUSY */) {
		if (!cached)
			goto locked;
		if (uwalk_map_known(w, &mk))
			return true;
		bpf_map_update_elem(&umap_wants, &mk.mm, &w->pc, BPF_ANY);
	locked:
		uwalk_end(w, US_END_LOCKED);
		return false;
	}
	if (r < 0 || !v.found || !(v.flags & VM_EXEC_FLAG)) {
		uwalk_end(w, US_END_NOT_CODE);
		return false;
	}
	w->vm_start = v.start;
	w->vm_end = v.end;
	w->vm_base = v.start - (v.pgoff << 12);
	w->vm_index = 0;
	w->vm_state = UFILE_FP;
	k.ino = v.ino;
	k.dev = v.dev;
	if (cached)
		umap_keep(&mk, &v);
	if (!v.file)
		return true;
	w->vm_index = ufile_index(&k, v.file, &w->vm_state);
	if (!w->vm_index) {
		uwalk_end(w, US_END_NO_ROOM);
		return false;
	}
	return true;
}

/* ---- unwinding ---- */

static __always_inline bool read_user(__u64 *dst, __u64 addr)
{
	return bpf_probe_read_user(dst, sizeof(*dst), (const void *)addr) == 0;
}

/* The caller's frame address (its sp), return address and rbp by the frame pointer chain. */
static __always_inline bool uwalk_fp(struct uwalk *w, __u64 *cfa, __u64 *ra, __u64 *bp)
{
	if (w->bp < w->sp || (w->bp & 7)) {
		uwalk_end(w, US_END_NO_INFO);
		return false;
	}
	__u64 pair[2]; /* the saved rbp, the return address: one read */

	*cfa = w->bp + 16;
	if (bpf_probe_read_user(pair, sizeof(pair), (const void *)w->bp) < 0) {
		uwalk_end(w, US_END_UNREADABLE);
		return false;
	}
	*bp = pair[0];
	*ra = pair[1];
	w->stk.flags |= US_FP;
	return true;
}

struct usearch {
	__u32 lo, hi; /* rows lo..hi-1 of unwind_rows */
	__u32 off;
};

/* One halving of the search for the last row at or before off (a loop verified once). */
static long usearch_step(__u64 i, struct usearch *s)
{
	__u32 mid = s->lo + (s->hi - s->lo) / 2;
	struct urow *r;

	if (s->hi - s->lo <= 1)
		return 1;
	r = bpf_map_lookup_elem(&unwind_rows, &mid);
	if (!r)
		return 1;
	if (r->pc <= s->off)
		s->lo = mid;
	else
		s->hi = mid;
	return 0;
}

/* The row of the file's table in force at off (into w->row); false when the table has none there. */
static __always_inline bool urow_find(struct uwalk *w, __u32 index, __u64 off)
{
	struct upage_key pk = { .index = index, .page = off >> SMBLAT_UNWIND_PAGE_SHIFT };
	struct upage_val *pv;
	struct usearch sr;
	struct urow *r;
	__u32 next, lo;

	if (w->row_index == index && off >= w->row.pc && off < w->row_end)
		return true;
	pv = bpf_map_lookup_elem(&unwind_pages, &pk);
	if (!pv || !pv->n)
		return false;
	/* the last row at or before off: a page's first row is the one in force at its start */
	sr.lo = pv->first;
	sr.hi = pv->first + pv->n;
	sr.off = off;
	bpf_loop(32, usearch_step, &sr, 0);
	lo = sr.lo;
	r = bpf_map_lookup_elem(&unwind_rows, &lo);
	if (!r || r->pc > off)
		return false;
	w->row = *r;
	w->row_index = index;
	/* the next row ends it; past a file's last row (code's end) comes another file's */
	next = lo + 1;
	r = bpf_map_lookup_elem(&unwind_rows, &next);
	w->row_end = r && r->pc > w->row.pc ? r->pc : w->row.pc + 1;
	return true;
}

/* The caller's frame address (its sp), return address and rbp by a row of the file's table. */
static __always_inline bool uwalk_row(struct uwalk *w, const struct urow *row, __u64 *cfa, __u64 *ra,
				      __u64 *bp)
{
	switch (row->cfa) {
	case UROW_CFA_SP:
		*cfa = w->sp + row->cfa_off;
		break;
	case UROW_CFA_FP:
		*cfa = w->bp + row->cfa_off;
		break;
	case UROW_CFA_PLT:
		*cfa = w->sp + 8 + ((w->pc & 15) >= (__u64)row->cfa_off ? 8 : 0);
		break;
	case UROW_END:
		*ra = 0;
		return true;
	case UROW_GAP:
		return uwalk_fp(w, cfa, ra, bp);
	default:
		uwalk_end(w, US_END_NO_INFO);
		return false;
	}
	*bp = w->bp;
	/* rbp is most often saved right below the return address: both in one read */
	if (row->fp_at && row->fp_off == -16) {
		__u64 pair[2];

		if (bpf_probe_read_user(pair, sizeof(pair), (const void *)(*cfa - 16)) < 0) {
			uwalk_end(w, US_END_UNREADABLE);
			return false;
		}
		*bp = pair[0];
		*ra = pair[1];
	} else if (!read_user(ra, *cfa - 8) || (row->fp_at && !read_user(bp, *cfa + row->fp_off))) {
		uwalk_end(w, US_END_UNREADABLE);
		return false;
	}
	w->stk.flags |= US_DWARF;
	return true;
}

/*
 * The caller of the frame at w->pc (off into its file): by the file's
 * table, by frame pointers where it has none or no rule there, and while
 * the agent compiles the table (a binary's first slow call keeps its
 * stack where the binary has frame pointers; where it has none, rbp leads
 * outside the stack or to no code, and the walk ends with a marker).
 */
static __always_inline bool uwalk_caller(struct uwalk *w, __u64 off, __u64 *cfa, __u64 *ra, __u64 *bp)
{
	/* a return address is past its call: the call's own row says where the caller is */
	if (!w->inner)
		off--;
	if (w->vm_index && w->vm_state == UFILE_NEW && (w->bp < w->sp || (w->bp & 7))) {
		uwalk_end(w, US_END_PENDING);
		return false;
	}
	if (w->vm_index && w->vm_state == UFILE_TABLE && urow_find(w, w->vm_index, off))
		return uwalk_row(w, &w->row, cfa, ra, bp);
	return uwalk_fp(w, cfa, ra, bp);
}

/* A return address the trampoline of a pending uretprobe stands in for: the real one. */
static __always_inline __u64 uwalk_untramp(struct uwalk *w, __u64 pc)
{
	struct return_instance *ri = (struct return_instance *)w->ri;

	if (!w->tramp || pc != w->tramp || !ri)
		return pc;
	w->ri = (__u64)BPF_CORE_READ(ri, next);
	return BPF_CORE_READ(ri, orig_ret_vaddr);
}

static __always_inline struct uwalk *uwalk_slot(__u32 slot)
{
	return bpf_map_lookup_elem(&uwalks, &slot);
}

/*
 * One frame of the walk in slot: taken, and its caller found; 1 ends the
 * walk. A global function: verified once, and called directly (a
 * bpf_loop() callback is an indirect call).
 */
static __always_inline int uwalk_step(__u32 slot, const bool cached)
{
	struct uwalk *w = uwalk_slot(slot);
	__u64 off, frame, cfa = 0, ra = 0, bp = 0;
	__u32 n;

	if (!w)
		return 1;
	n = w->stk.n;
	if (n >= w->max || n >= SMBLAT_STACK_FRAMES || !uwalk_map(w, cached))
		return 1;
	off = w->pc - w->vm_base;
	frame = w->vm_index ? uframe_make(w->vm_index, off) : w->pc;
	w->stk.frames[n & (SMBLAT_STACK_FRAMES - 1)] = frame;
	w->stk.n = n + 1;
	w->hash = (w->hash ^ frame) * 0x100000001b3ull;
	if (n + 1 >= w->max)
		return 1;
	if (!uwalk_caller(w, off, &cfa, &ra, &bp) || !ra)
		return 1; /* !ra: the outermost frame */
	if (cfa <= w->sp) {
		uwalk_end(w, US_END_LOOP);
		return 1;
	}
	w->pc = uwalk_untramp(w, ra);
	w->sp = cfa;
	w->bp = bp;
	w->inner = 0;
	return 0;
}

__weak __noinline int ustack_step(__u32 slot)
{
	return uwalk_step(slot, false);
}

__weak __noinline int ustack_step_cached(__u32 slot)
{
	return uwalk_step(slot, true);
}

/* bpf_loop()'s steps: a loop the verifier goes through once, around a direct call. */
static long uwalk_next(__u64 i, __u32 *slot)
{
	return ustack_step(*slot) ? 1 : 0;
}

static long uwalk_next_cached(__u64 i, __u32 *slot)
{
	return ustack_step_cached(*slot) ? 1 : 0;
}

/* The pending uretprobes of the task: those whose return address slot lies above sp. */

static __always_inline void uwalk_uretprobes(struct uwalk *w, struct task_struct *t)
{
	struct return_instance *ri = BPF_CORE_READ(t, utask, return_instances);
	struct xol_area *xa = BPF_CORE_READ(t, mm, uprobes_state.xol_area);

	w->tramp = xa ? BPF_CORE_READ(xa, vaddr) : 0;
	/* the one returned from now, on kernels that keep it listed during its handlers */
	for (int i = 0; i < 4 && ri && BPF_CORE_READ(ri, stack) < w->sp; i++)
		ri = BPF_CORE_READ(ri, next);
	w->ri = (__u64)ri;
}

static __always_inline struct uwalk *uwalk_begin(__u32 max, __u32 *slot)
{
	__u32 zero = 0, *depth = bpf_map_lookup_elem(&uwalk_depth, &zero);
	struct uwalk *w;

	if (!depth || *depth >= USTACK_NEST)
		return NULL;
	*slot = (*depth)++;
	w = uwalk_slot(*slot);
	if (!w) {
		(*depth)--;
		return NULL;
	}
	w->stk.n = 0;
	w->stk.flags = 0;
	w->hash = 0xcbf29ce484222325ull;
	w->max = max < SMBLAT_STACK_FRAMES ? max : SMBLAT_STACK_FRAMES;
	w->vm_start = w->vm_end = 0;
	w->row_index = 0;
	w->inner = 1;
	return w;
}

#if defined(SMBLAT_KERNEL_USTACK) || !defined(__TARGET_ARCH_x86)
/*
 * The current task's user stack, at most max frames (ctx: the program's,
 * for the kernel's walk): valid until ustack_put(); NULL when there is no
 * state to walk with, then nothing to put back. A kernel thread's stack
 * has no frames. stk.n is max when the stack went deeper.
 */
static __always_inline struct uwalk *ustack_take_walk(void *ctx, __u32 max, const bool cached)
{
	/* not bpf_get_current_task_btf(): this build is for 5.10, which has no such helper */
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct uwalk *w;
	__u32 slot;
	long sz;

	w = uwalk_begin(max, &slot);
	if (!w || !BPF_CORE_READ(t, mm))
		return w;
	sz = bpf_get_stack(ctx, w->stk.frames, sizeof(w->stk.frames), BPF_F_USER_STACK);
	w->stk.n = sz > 0 ? (__u32)sz / 8 : 0;
	if (w->stk.n > w->max)
		w->stk.n = w->max;
	w->stk.flags = US_KERNEL;
	for (int i = 0; i < SMBLAT_STACK_FRAMES; i++) {
		if (i >= w->stk.n)
			break;
		w->hash = (w->hash ^ w->stk.frames[i]) * 0x100000001b3ull;
	}
	w->hash = ((w->hash ^ w->stk.flags) * 0x100000001b3ull) | 1;
	return w;
}
#else
static __always_inline int uwalk_run(__u32 max, const bool cached)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct pt_regs *regs;
	struct uwalk *w;
	__u32 slot;

	w = uwalk_begin(max, &slot);
	if (!w)
		return -1;
	if (!BPF_CORE_READ(t, mm))
		return slot;
	if (cached)
		umap_learn(t);
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	w->pc = BPF_CORE_READ(regs, ip);
	w->sp = BPF_CORE_READ(regs, sp);
	w->bp = BPF_CORE_READ(regs, bp);
	uwalk_uretprobes(w, t);
	bpf_loop(SMBLAT_STACK_FRAMES, cached ? uwalk_next_cached : uwalk_next, &slot, 0);
	/* how it ended is part of what tells it from another; never 0: none */
	w->hash = ((w->hash ^ w->stk.flags) * 0x100000001b3ull) | 1;
	return slot;
}

/*
 * The walk, as a global function: the verifier goes through it once per
 * program, however many places of the program take a stack. Its slot in
 * uwalks, or -1 when there is no state to walk with. The profile's, with
 * the cache of mappings, is another, which only its program includes.
 */
__weak __noinline int ustack_walk(__u32 max)
{
	return uwalk_run(max, false);
}

__weak __noinline int ustack_walk_cached(__u32 max)
{
	return uwalk_run(max, true);
}

/* As above: the walk, valid until ustack_put(); NULL when there was no state to walk with. */
static __always_inline struct uwalk *ustack_take_walk(void *ctx, __u32 max, const bool cached)
{
	int slot = cached ? ustack_walk_cached(max) : ustack_walk(max);

	return slot < 0 ? NULL : uwalk_slot(slot);
}
#endif

static __always_inline struct uwalk *ustack_take(void *ctx, __u32 max)
{
	return ustack_take_walk(ctx, max, false);
}

static __always_inline void ustack_put(void)
{
	__u32 zero = 0, *depth = bpf_map_lookup_elem(&uwalk_depth, &zero);

	if (depth && *depth)
		(*depth)--;
}

/* The user stack kept for later (n frames of 8 bytes at most): frames, their bytes, how walked. */
static __always_inline void ustack_keep(void *ctx, __u64 *frames, __s32 *bytes, __u32 *flags)
{
	struct uwalk *w = ustack_take(ctx, SMBLAT_STACK_DEPTH);

	if (!w) {
		*bytes = -16;
		return;
	}
	__builtin_memcpy(frames, w->stk.frames, SMBLAT_STACK_DEPTH * sizeof(__u64));
	*bytes = w->stk.n * sizeof(__u64);
	*flags = w->stk.flags;
	ustack_put();
}

/* A user stack taken earlier into a record's stacks, as ustack_fill() puts one; NULL: none was kept. */
static __always_inline void ustack_fill_kept(struct rec_stacks *st, const struct ustack_val *v)
{
	__u32 n;

	if (!v) {
		st->ustack_sz = -2; /* ENOENT: none kept (no walk at the entry, or evicted since) */
		return;
	}
	n = v->n < SMBLAT_STACK_SLOTS ? v->n : SMBLAT_STACK_SLOTS;
	__builtin_memcpy(st->ustack, v->frames, sizeof(st->ustack));
	st->ustack_sz = n * sizeof(__u64);
	st->uflags = v->flags & 0xff;
}

/* The user stack into a record's stacks: its frames, how many (one past what is kept when cut), how walked. */
static __always_inline void ustack_fill(void *ctx, struct rec_stacks *st)
{
	struct uwalk *w = ustack_take(ctx, SMBLAT_STACK_SLOTS);

	if (!w) {
		st->ustack_sz = -16; /* EBUSY: no state to walk with */
		return;
	}
	__builtin_memcpy(st->ustack, w->stk.frames, sizeof(st->ustack));
	st->ustack_sz = w->stk.n * sizeof(__u64);
	st->uflags = w->stk.flags & 0xff;
	ustack_put();
}

#endif
