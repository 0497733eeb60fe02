/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Types shared between the BPF programs and the agent. */
#ifndef SMBLAT_BPF_H
#define SMBLAT_BPF_H

#ifdef __bpf__
#include "vmlinux.h"
typedef __u8 uint8_t;
typedef __u16 uint16_t;
typedef __u32 uint32_t;
typedef __u64 uint64_t;
typedef __s32 int32_t;
typedef __s64 int64_t;
#else
#include <stdint.h>
#endif

/*
 * Every struct both sides use has its size (and where it matters, a
 * member's offset) held here at compile time, by the BPF compiler and the
 * agent's alike; tests/test-records.c compares every member with the BTF of
 * the built object.
 */
#define SMBLAT_SIZE(type, size) _Static_assert(sizeof(struct type) == (size), "struct " #type " changed size")
#define SMBLAT_AT(type, member, off)                                                                         \
	_Static_assert(__builtin_offsetof(struct type, member) == (off), "struct " #type "." #member " move" \
									 "d")

#define SMBLAT_MAX_FUNCS 1024    /* function ids, across all layers */
#define SMBLAT_NO_ID 0xffffffffu /* no function: every lookup by it fails */
#define SMBLAT_MAX_ARGS 6
#define SMBLAT_STACK_DEPTH 32 /* frames kept of a stack */
/* One frame more is captured: a stack cut at the depth tells from one that just fits. */
#define SMBLAT_STACK_SLOTS (SMBLAT_STACK_DEPTH + 1)
#define SMBLAT_NAME_LEN 64
#define SMBLAT_COMM_LEN 16
#define SMBLAT_NEST 16          /* nested probed calls tracked per task */
#define SMBLAT_SYSCALL_MAX 1024 /* syscall numbers the syscall: targets can have */
#define SMBLAT_MAX_ERRNO 4095   /* the kernel's MAX_ERRNO: -4095..-1 returned are -errno */

/*
 * A mask for an index already checked against n, for older verifiers that
 * lose the check when the index is spilled: the next power of two above
 * n - 1, less one (n = 19 gives 0x1f), derived from n so that it follows
 * the array it guards.
 */
#define SMBLAT_INDEX_MASK(n) ((1u << (32 - __builtin_clz((unsigned int)(n)-1))) - 1)

/* A kernel return value that is a -errno (a failed syscall, an ERR_PTR()). */
static inline int smblat_is_errno(int64_t v)
{
	return v < 0 && v >= -SMBLAT_MAX_ERRNO;
}

/* The kernel's own dev_t (super_block.s_dev, disk_devt): MINORBITS is 20. */
static inline uint32_t smblat_kdev(uint32_t major, uint32_t minor)
{
	return major << 20 | minor;
}

/*
 * Latency buckets: log2 of nanoseconds with 4 linear sub-buckets per power
 * of two, so percentiles are good to about 19 %. Values 0..3 ns get a bucket
 * each; the last bucket holds everything from 7 * 2^37 ns (~16 min) up.
 */
#define SMBLAT_SUB_BITS 2
#define SMBLAT_SUBS (1u << SMBLAT_SUB_BITS)
#define SMBLAT_MAX_LOG2 39
#define SMBLAT_NBUCKETS (SMBLAT_SUBS * (SMBLAT_MAX_LOG2 - SMBLAT_SUB_BITS + 2))

/* How to find a super_block or a dentry from one argument of a function. */
enum arg_kind {
	AK_NONE = 0,
	AK_INODE,
	AK_DENTRY,
	AK_FILE,
	AK_SB,
	AK_FOLIO,
	AK_PAGE,
	AK_MAPPING,
	AK_KIOCB,
	AK_PATH,
	AK_RAC,
	AK_VMA,
	_AK_MAX,
};

/*
 * What a function returns. Kernel functions by their BTF: a negative int
 * or long or an ERR_PTR() is a -errno. User functions by the type their
 * DWARF or BTF gives, which says how wide the value is and how it reads;
 * RK_USER when it is not known: the 64-bit register as it is.
 */
enum ret_kind {
	RK_VOID = 0, /* no value (void, or one not in the register: float, struct) */
	RK_INT,      /* 32-bit, negative is -errno */
	RK_LONG,     /* 64-bit, negative is -errno */
	RK_PTR,      /* ERR_PTR() encodes -errno */
	RK_UINT,     /* never an error */
	RK_USER,     /* user function, type unknown */
	RK_USER_S8,  /* user function, signed, 1 to 8 bytes */
	RK_USER_S16,
	RK_USER_S32,
	RK_USER_S64,
	RK_USER_U8, /* user function, unsigned (and bool), 1 to 8 bytes */
	RK_USER_U16,
	RK_USER_U32,
	RK_USER_U64,
	RK_USER_PTR, /* user function, a pointer */
};

/*
 * When a call failed, for errors=: by its kind (kernel functions: a
 * -errno), or by a convention, over the width its kind says (a user
 * function of unknown type: a 64-bit long, or a 32-bit int when the upper
 * half is zero, as an int return leaves the register).
 */
enum ret_fail {
	FAIL_BY_KIND = 0,
	FAIL_NEVER,    /* nothing the value says is a failure (a pointer, a count) */
	FAIL_NEGATIVE, /* < 0 */
	FAIL_MINUS1,   /* == -1 */
	FAIL_NULL,     /* == 0 (NULL) */
};

enum func_flags {
	FF_ENABLED = 1u << 0,
	FF_KSTACK = 1u << 1,
	FF_USTACK = 1u << 2,
	FF_SB_CHECK = 1u << 3,      /* generic helper: count only SMB superblocks */
	FF_ERRORS = 1u << 4,        /* report failed calls whatever their latency */
	FF_STACKS_USER = 1u << 5,   /* count calls per distinct user stack (stacks.bpf.h) */
	FF_STACKS_KERNEL = 1u << 6, /* ... and kernel stack */
};

/* Per function id, in the "funcs" array map; the agent may change it live. */
struct func_cfg {
	uint64_t threshold_ns;
	uint32_t flags;
	uint8_t sb_arg;   /* argument index leading to the super_block */
	uint8_t sb_kind;  /* enum arg_kind, AK_NONE when there is none */
	uint8_t name_arg; /* argument index leading to a dentry */
	uint8_t name_kind;
	uint8_t nargs;      /* entry arguments copied into the event */
	uint8_t ret_kind;   /* enum ret_kind */
	uint8_t frame_args; /* leading arguments a call's entry keeps: nargs, sb_arg, name_arg */
	uint8_t ret_fail;   /* enum ret_fail, with FF_ERRORS */
	/*
	 * The operation the function serves (cifs_llseek and the
	 * generic_file_llseek it calls are both FILE_LLSEEK), 0: none. A call
	 * inside a call of the same operation on the thread is not timed:
	 * the outermost one is the operation.
	 */
	uint32_t op;
};
SMBLAT_SIZE(func_cfg, 24);

/*
 * Per function id and CPU: all calls, not only slow ones. The call count is
 * the sum of hist[], so one increment counts a call and places it.
 */
struct func_stats {
	uint64_t total_ns;
	uint64_t slow;      /* calls at or over the threshold */
	uint64_t lost;      /* slow events the ring buffer had no room for */
	uint64_t untimed;   /* requests never timed: no room for their start, or their end unseen */
	uint64_t unmatched; /* returns whose entry was not seen */
	uint64_t min_ns[2]; /* indexed by epoch & 1, see account() in core.bpf.h */
	uint64_t max_ns[2];
	uint64_t mm_epoch[2];
	uint64_t hist[SMBLAT_NBUCKETS];
};
SMBLAT_SIZE(func_stats, 1336);

/* Global counters, one per CPU, in the "totals" array. */
struct global_stats {
	uint64_t nest_overflow; /* entries dropped: nesting deeper than SMBLAT_NEST */
	uint64_t no_storage;    /* entries dropped: no room for the thread's frames */
};
SMBLAT_SIZE(global_stats, 16);

/*
 * Where a kprobe or uprobe fired, for kernels without BPF cookies: the
 * agent maps each place to its function id (probe_ids).
 */
struct probe_place {
	uint64_t addr;   /* kernel function address; uprobe: inode number */
	uint64_t offset; /* uprobe: offset in the file; kprobe: 0 */
};
SMBLAT_SIZE(probe_place, 16);

/*
 * What the programs do instead where the kernel lacks a feature
 * (agent/probes/features.h); the verifier drops the other branch.
 */
enum smblat_compat {
	COMPAT_FRAMES_HASH = 1u << 0,  /* per-thread frames in a hash by thread id, not task storage */
	COMPAT_PLACE_IDS = 1u << 1,    /* function ids by probed place, not BPF cookies */
	COMPAT_TP_REGS = 1u << 2,      /* syscall registers from the tracepoint, no bpf_task_pt_regs() */
	COMPAT_ENTRY_KSTACK = 1u << 3, /* kernel stacks taken at entry: kretprobes cannot unwind */
};

/* The read-only configuration, set between __open() and __load(). */
struct smblat_cfg {
	uint32_t tgid;        /* 0: every process */
	uint32_t self_tgid;   /* the agent: never traced, or its own writes feed back */
	uint32_t filter_comm; /* compare comm below */
	uint32_t compat;      /* enum smblat_compat */
	uint64_t cgroup_id;   /* 0: every cgroup */
	char comm[SMBLAT_COMM_LEN];
};
SMBLAT_SIZE(smblat_cfg, 40);

#include "record.h"

/*
 * The values of the in-flight tables (a request that starts on one hook
 * and ends on another: block, smb2, smbd) begin with the time it started,
 * by which the agent sweeps those it never saw end (probes/inflight.c).
 */
#define INFLIGHT_VALUE(type) \
	_Static_assert(__builtin_offsetof(struct type, start_ns) == 0, "struct " #type ": start_ns first")

#include "block.h"
#include "smb2.h"
#include "vfs.h"
#include "smbd.h"
#include "sysacct.h"
#include "ustack.h"
#include "stacks.h"
#include "offcpu.h"
#include "view.h"
#include "profile.h"

#define SMB_SUPER_MAGIC_CIFS 0xFF534D42u
#define SMB_SUPER_MAGIC_SMB2 0xFE534D42u

/*
 * floor(log2(v)), v > 0, without a branch: the BPF verifier follows each
 * branch of a binary search as its own path with the result a constant,
 * 64 paths per call that every later instruction is verified again for
 * (6.1 verified a VFS exit with two of them 39,178 instructions deep).
 * The top bit smeared down, then counted.
 */
static inline unsigned int smblat_log2(uint64_t v)
{
	v |= v >> 1;
	v |= v >> 2;
	v |= v >> 4;
	v |= v >> 8;
	v |= v >> 16;
	v |= v >> 32;
	v -= (v >> 1) & 0x5555555555555555ull;
	v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned int)((v * 0x0101010101010101ull) >> 56) - 1;
}

/*
 * Bucket of a latency in ns; the agent's hist.c inverts it. Below
 * SMBLAT_SUBS a bucket per ns, above SMBLAT_SUBS buckets per power of two:
 * with p = max(log2(ns), SUB_BITS), SUBS * (p - SUB_BITS) + (ns >> (p -
 * SUB_BITS)) is both, without a branch between them.
 */
static inline unsigned int smblat_bucket(uint64_t ns)
{
	unsigned int p = smblat_log2(ns | SMBLAT_SUBS);

	if (p > SMBLAT_MAX_LOG2)
		return SMBLAT_NBUCKETS - 1;
	return SMBLAT_SUBS * (p - SMBLAT_SUB_BITS) + (unsigned int)(ns >> (p - SMBLAT_SUB_BITS));
}

#endif
