// SPDX-License-Identifier: GPL-2.0
/*
 * Latency probes: entry handlers push a frame on a per-task stack, exit
 * handlers pop it, account the call in per-CPU stats and a histogram, and
 * send slow calls through the ring buffer. Every backend (fentry/fexit,
 * kprobe.multi, kprobe, uprobe) funnels into on_entry()/on_exit() with the
 * function id taken from the BPF cookie.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "smblat.h"

char LICENSE[] SEC("license") = "GPL";

const volatile struct smblat_cfg cfg = {};

/* Bumped by the agent at each histogram interval; selects the min/max slot. */
__u64 epoch = 1;

struct frame {
	__u64 start_ns;
	__u64 args[SMBLAT_MAX_ARGS];
	__u32 func_id;
	__u32 pad;
	/* smb2 layer: the SMB2 requests this call waited on */
	__u32 wire_n;
	__u32 pad2;
	__u64 wire_ns;
	struct wire_req wire[SMBLAT_WIRE_MAX];
};

struct frames {
	__u32 depth;
	__u32 pad;
	struct frame f[SMBLAT_NEST];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct frames);
} frames SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);       /* resized by the agent */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SMBLAT_MAX_FUNCS);
	__type(key, __u32);
	__type(value, struct func_cfg);
} funcs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SMBLAT_MAX_FUNCS);
	__type(key, __u32);
	__type(value, struct func_stats);
} stats SEC(".maps");

/* Indexed by func_id * SMBLAT_NBUCKETS + bucket; sized by the agent. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SMBLAT_NBUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct global_stats);
} totals SEC(".maps");

static __always_inline bool comm_matches(void)
{
	char comm[SMBLAT_COMM_LEN];

	bpf_get_current_comm(comm, sizeof(comm));
	for (int i = 0; i < SMBLAT_COMM_LEN; i++) {
		if (comm[i] != cfg.comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

static __always_inline bool task_wanted(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (tgid == cfg.self_tgid || (cfg.tgid && tgid != cfg.tgid))
		return false;
	if (cfg.cgroup_id && bpf_get_current_cgroup_id() != cfg.cgroup_id)
		return false;
	if (cfg.filter_comm && !comm_matches())
		return false;
	return true;
}

static __always_inline struct global_stats *global_stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&totals, &zero);
}

/* Chase one argument to the super_block it belongs to. */
static __always_inline struct super_block *arg_sb(__u8 kind, __u64 p)
{
	if (!p)
		return NULL;
	switch (kind) {
	case AK_INODE:
		return BPF_CORE_READ((struct inode *)p, i_sb);
	case AK_DENTRY:
		return BPF_CORE_READ((struct dentry *)p, d_sb);
	case AK_FILE:
		return BPF_CORE_READ((struct file *)p, f_inode, i_sb);
	case AK_SB:
		return (struct super_block *)p;
	case AK_FOLIO:
		if (bpf_core_type_exists(struct folio))
			return BPF_CORE_READ((struct folio *)p, mapping, host, i_sb);
		return NULL;
	case AK_PAGE:
		return BPF_CORE_READ((struct page *)p, mapping, host, i_sb);
	case AK_MAPPING:
		return BPF_CORE_READ((struct address_space *)p, host, i_sb);
	case AK_KIOCB:
		return BPF_CORE_READ((struct kiocb *)p, ki_filp, f_inode, i_sb);
	case AK_PATH:
		return BPF_CORE_READ((struct path *)p, dentry, d_sb);
	case AK_RAC:
		return BPF_CORE_READ((struct readahead_control *)p, mapping, host, i_sb);
	case AK_VMA:
		return BPF_CORE_READ((struct vm_area_struct *)p, vm_file, f_inode, i_sb);
	}
	return NULL;
}

static __always_inline struct dentry *arg_dentry(__u8 kind, __u64 p)
{
	if (!p)
		return NULL;
	switch (kind) {
	case AK_DENTRY:
		return (struct dentry *)p;
	case AK_FILE:
		return BPF_CORE_READ((struct file *)p, f_path.dentry);
	case AK_PATH:
		return BPF_CORE_READ((struct path *)p, dentry);
	case AK_KIOCB:
		return BPF_CORE_READ((struct kiocb *)p, ki_filp, f_path.dentry);
	case AK_VMA:
		return BPF_CORE_READ((struct vm_area_struct *)p, vm_file, f_path.dentry);
	}
	return NULL;
}

static __always_inline __u64 arg_at(const __u64 *args, __u8 i)
{
	return i < SMBLAT_MAX_ARGS ? args[i] : 0;
}

static __always_inline bool sb_is_smb(struct super_block *sb)
{
	unsigned long magic;

	if (!sb)
		return false;
	magic = BPF_CORE_READ(sb, s_magic);
	return magic == SMB_SUPER_MAGIC_CIFS || magic == SMB_SUPER_MAGIC_SMB2;
}

#include "smb2.bpf.h"

static __always_inline int on_entry(__u32 id, const __u64 *args)
{
	struct global_stats *gs;
	struct func_cfg *fc;
	struct frames *fr;
	__u32 d;

	if (smb2_hook_entry(id, args))
		return 0;
	if (!task_wanted())
		return 0;
	fc = bpf_map_lookup_elem(&funcs, &id);
	if (!fc || !(fc->flags & FF_ENABLED))
		return 0;
	/* Shared helpers (netfs_*, generic_*) serve every file system. */
	if ((fc->flags & FF_SB_CHECK) &&
	    !sb_is_smb(arg_sb(fc->sb_kind, arg_at(args, fc->sb_arg))))
		return 0;

	fr = bpf_task_storage_get(&frames, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!fr) {
		gs = global_stats();
		if (gs)
			__sync_fetch_and_add(&gs->no_storage, 1);
		return 0;
	}
	d = fr->depth;
	if (d >= SMBLAT_NEST) {
		gs = global_stats();
		if (gs)
			__sync_fetch_and_add(&gs->nest_overflow, 1);
		return 0;
	}
	fr->f[d].func_id = id;
	for (int i = 0; i < SMBLAT_MAX_ARGS; i++)
		fr->f[d].args[i] = args[i];
	smb2_frame_init(&fr->f[d]);
	fr->f[d].start_ns = bpf_ktime_get_ns();
	fr->depth = d + 1;
	return 0;
}

static __always_inline void account(__u32 id, __u64 lat, bool slow)
{
	struct func_stats *st;
	__u32 slot = epoch & 1;
	__u32 key;
	__u64 *b;

	st = bpf_map_lookup_elem(&stats, &id);
	if (!st)
		return;
	/* Atomic: a preempted program and its successor share this CPU's slot. */
	__sync_fetch_and_add(&st->count, 1);
	__sync_fetch_and_add(&st->total_ns, lat);
	if (slow)
		__sync_fetch_and_add(&st->slow, 1);
	/*
	 * Min/max restart each interval: the agent bumps epoch and reads the
	 * other slot, which no probe touches until the epoch after next.
	 */
	if (st->mm_epoch[slot] != epoch) {
		st->mm_epoch[slot] = epoch;
		st->min_ns[slot] = lat;
		st->max_ns[slot] = lat;
	} else {
		if (lat < st->min_ns[slot])
			st->min_ns[slot] = lat;
		if (lat > st->max_ns[slot])
			st->max_ns[slot] = lat;
	}
	key = id * SMBLAT_NBUCKETS + smblat_bucket(lat);
	b = bpf_map_lookup_elem(&hist, &key);
	if (b)
		__sync_fetch_and_add(b, 1);
}

static __always_inline bool ret_failed(__u8 kind, __u64 ret)
{
	switch (kind) {
	case RK_INT:
		return (__s32)ret < 0;
	case RK_LONG:
		return (__s64)ret < 0 && (__s64)ret >= -4095;
	case RK_PTR:
		return ret >= (__u64)-4095;
	case RK_USER:
		return (__s32)ret < 0;
	}
	return false;
}

static __always_inline void fill_event(void *ctx, struct event *e, struct func_cfg *fc,
				       struct frame *f, __u32 id, __u64 now, __u64 ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct super_block *sb;
	struct dentry *de;
	const unsigned char *name;

	e->end_ns = bpf_ktime_get_boot_ns();
	e->latency_ns = now - f->start_ns;
	e->ret = ret;
	e->func_id = id;
	e->pid = pid_tgid >> 32;
	e->tid = (__u32)pid_tgid;
	e->uid = (__u32)bpf_get_current_uid_gid();
	e->flags = fc->ret_kind != RK_VOID ? EF_HAS_RET : 0;
	e->dev = 0;
	e->name[0] = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	for (int i = 0; i < SMBLAT_MAX_ARGS; i++)
		e->args[i] = i < fc->nargs ? f->args[i] : 0;

	sb = arg_sb(fc->sb_kind, arg_at(f->args, fc->sb_arg));
	if (sb) {
		e->dev = BPF_CORE_READ(sb, s_dev);
		e->flags |= EF_HAS_DEV;
	}
	de = arg_dentry(fc->name_kind, arg_at(f->args, fc->name_arg));
	if (de) {
		name = BPF_CORE_READ(de, d_name.name);
		if (name && bpf_probe_read_kernel_str(e->name, sizeof(e->name), name) > 0)
			e->flags |= EF_HAS_NAME;
	}
	e->kstack_sz = (fc->flags & FF_KSTACK) ?
		bpf_get_stack(ctx, e->kstack, sizeof(e->kstack), 0) : 0;
	e->ustack_sz = (fc->flags & FF_USTACK) ?
		bpf_get_stack(ctx, e->ustack, sizeof(e->ustack), BPF_F_USER_STACK) : 0;
	smb2_fill_links(e, f);
}

static __always_inline int on_exit(void *ctx, __u32 id, __u64 ret)
{
	struct func_stats *st;
	struct func_cfg *fc;
	struct frames *fr;
	struct frame *f = NULL;
	struct event *e;
	__u64 now = bpf_ktime_get_ns(), lat;
	__u32 d, i;
	bool slow;

	fr = bpf_task_storage_get(&frames, bpf_get_current_task_btf(), 0, 0);
	if (!fr)
		return 0;
	d = fr->depth;
	/*
	 * The innermost frame is normally ours; a return whose entry was
	 * dropped (kretprobe maxactive, nest overflow) must not eat the frame of
	 * an outer call, so look for the nearest frame with our id.
	 */
	for (i = 0; i < SMBLAT_NEST; i++) {
		if (i >= d)
			break;
		__u32 k = (d - 1 - i) & (SMBLAT_NEST - 1);
		if (fr->f[k].func_id == id) {
			f = &fr->f[k];
			fr->depth = k;
			break;
		}
	}
	if (!f) {
		if (!task_wanted() || smb2_hook_exit(id, fr, NULL, 0))
			return 0;
		st = bpf_map_lookup_elem(&stats, &id);
		if (st && d)
			__sync_fetch_and_add(&st->unmatched, 1);
		return 0;
	}
	fc = bpf_map_lookup_elem(&funcs, &id);
	if (!fc)
		return 0;
	if (smb2_hook_exit(id, fr, f, ret))
		return 0;
	lat = now - f->start_ns;
	slow = lat >= fc->threshold_ns;
	account(id, lat, slow);
	if (!slow && !((fc->flags & FF_ERRORS) && ret_failed(fc->ret_kind, ret)))
		return 0;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		st = bpf_map_lookup_elem(&stats, &id);
		if (st)
			__sync_fetch_and_add(&st->lost, 1);
		return 0;
	}
	fill_event(ctx, e, fc, f, id, now, ret);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* fentry/fexit: cloned by the agent once per target, id in the cookie. */
SEC("fentry")
int BPF_PROG(fentry_entry)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};
	__u64 n = bpf_get_func_arg_cnt(ctx);

	for (int i = 0; i < SMBLAT_MAX_ARGS; i++)
		if (i < n)
			bpf_get_func_arg(ctx, i, &args[i]);
	return on_entry(bpf_get_attach_cookie(ctx), args);
}

SEC("fexit")
int BPF_PROG(fexit_exit)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	return on_exit(ctx, bpf_get_attach_cookie(ctx), ret);
}

static __always_inline void regs_args(struct pt_regs *regs, __u64 *args)
{
	args[0] = PT_REGS_PARM1(regs);
	args[1] = PT_REGS_PARM2(regs);
	args[2] = PT_REGS_PARM3(regs);
	args[3] = PT_REGS_PARM4(regs);
	args[4] = PT_REGS_PARM5(regs);
#ifdef __TARGET_ARCH_x86
	args[5] = regs->r9;
#endif
}

/* kprobe, uprobe, usdt: one program, attached many times with a cookie each. */
SEC("kprobe")
int kprobe_entry(struct pt_regs *regs)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};

	regs_args(regs, args);
	return on_entry(bpf_get_attach_cookie(regs), args);
}

SEC("kretprobe")
int kprobe_exit(struct pt_regs *regs)
{
	return on_exit(regs, bpf_get_attach_cookie(regs), PT_REGS_RC(regs));
}

SEC("kprobe.multi")
int kmulti_entry(struct pt_regs *regs)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};

	regs_args(regs, args);
	return on_entry(bpf_get_attach_cookie(regs), args);
}

SEC("kretprobe.multi")
int kmulti_exit(struct pt_regs *regs)
{
	return on_exit(regs, bpf_get_attach_cookie(regs), PT_REGS_RC(regs));
}

/* Tracepoint layers, sharing the maps and accounting above. */
#include "block.bpf.h"
#include "syscall.bpf.h"
/* ---- usdt layer: [probe NAME] target = usdt:PATH:PROVIDER:START,END ---- */

#include <bpf/usdt.bpf.h>

/* START pushes a frame like a function entry, with the probe's arguments. */
SEC("usdt")
int usdt_entry(struct pt_regs *regs)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};
	int n = bpf_usdt_arg_cnt(regs);
	long v;

	for (int i = 0; i < SMBLAT_MAX_ARGS; i++) {
		if (i >= n || bpf_usdt_arg(regs, i, &v) < 0)
			break;
		args[i] = v;
	}
	return on_entry((__u32)bpf_usdt_cookie(regs), args);
}

/* END pops it on the same thread: the probes have no return value. */
SEC("usdt")
int usdt_exit(struct pt_regs *regs)
{
	return on_exit(regs, (__u32)bpf_usdt_cookie(regs), 0);
}

/* ---- smbd layer: SMB2 requests of Samba's smbd, by request pointer ---- */

/*
 * An SMB2 request may complete on a later turn of smbd's event loop (async
 * I/O, blocking locks, change notify), so the start cannot live on the task's
 * frame stack: it is keyed by process and request. LRU: requests whose
 * connection dies never complete, and must not pin entries for ever.
 */
struct smbd_req_key {
	__u32 tgid;
	__u32 pad;
	__u64 req;
};

struct smbd_req_start {
	__u64 start_ns;
	__u32 func_id;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct smbd_req_key);
	__type(value, struct smbd_req_start);
} smbd_reqs SEC(".maps");

/* smbd_smb2_request_process_<cmd>(req): the id of SMBD_SMB2_<CMD> in the cookie. */
static __always_inline int smbd_request_begin(struct pt_regs *regs)
{
	struct smbd_req_key k = { .tgid = bpf_get_current_pid_tgid() >> 32, .req = PT_REGS_PARM1(regs) };
	struct smbd_req_start s = { .func_id = (__u32)bpf_get_attach_cookie(regs) };
	struct func_cfg *fc;

	if (!task_wanted())
		return 0;
	fc = bpf_map_lookup_elem(&funcs, &s.func_id);
	if (!fc || !(fc->flags & FF_ENABLED))
		return 0;
	s.start_ns = bpf_ktime_get_ns();
	bpf_map_update_elem(&smbd_reqs, &k, &s, BPF_ANY);
	return 0;
}

/* smbd_smb2_request_done_ex / _error_ex(req, NTSTATUS status, ...): the reply goes out. */
static __always_inline int smbd_request_end(struct pt_regs *regs)
{
	struct smbd_req_key k = { .tgid = bpf_get_current_pid_tgid() >> 32, .req = PT_REGS_PARM1(regs) };
	__u64 now = bpf_ktime_get_ns(), status = PT_REGS_PARM2(regs) & 0xffffffffu, lat;
	struct frame f = {};
	struct func_stats *st;
	struct smbd_req_start *s;
	struct func_cfg *fc;
	struct event *e;
	bool slow;

	s = bpf_map_lookup_elem(&smbd_reqs, &k);
	if (!s)
		return 0;
	f.start_ns = s->start_ns;
	f.func_id = s->func_id;
	bpf_map_delete_elem(&smbd_reqs, &k);
	fc = bpf_map_lookup_elem(&funcs, &f.func_id);
	if (!fc)
		return 0;
	lat = now - f.start_ns;
	slow = lat >= fc->threshold_ns;
	account(f.func_id, lat, slow);
	/* NTSTATUS: severity "error" is the top two bits */
	if (!slow && !((fc->flags & FF_ERRORS) && (status >> 30) == 3))
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		st = bpf_map_lookup_elem(&stats, &f.func_id);
		if (st)
			__sync_fetch_and_add(&st->lost, 1);
		return 0;
	}
	fill_event(regs, e, fc, &f, f.func_id, now, status);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("uprobe")
int smbd_req_begin(struct pt_regs *regs)
{
	return smbd_request_begin(regs);
}

SEC("uprobe")
int smbd_req_end(struct pt_regs *regs)
{
	return smbd_request_end(regs);
}

/*
 * uprobe.multi: the agent loads these with expected_attach_type
 * BPF_TRACE_UPROBE_MULTI (libbpf 1.1 has no section name for it) and links
 * many offsets of one file at once.
 */
SEC("kprobe.multi")
int umulti_entry(struct pt_regs *regs)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};

	regs_args(regs, args);
	return on_entry(bpf_get_attach_cookie(regs), args);
}

SEC("kprobe.multi")
int umulti_exit(struct pt_regs *regs)
{
	return on_exit(regs, bpf_get_attach_cookie(regs), PT_REGS_RC(regs));
}

SEC("kprobe.multi")
int umulti_smbd_begin(struct pt_regs *regs)
{
	return smbd_request_begin(regs);
}

SEC("kprobe.multi")
int umulti_smbd_end(struct pt_regs *regs)
{
	return smbd_request_end(regs);
}
