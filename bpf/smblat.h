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
#include "block.h"

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

enum ret_kind {
	RK_VOID = 0,
	RK_INT,  /* 32-bit, negative is -errno */
	RK_LONG, /* 64-bit, negative is -errno */
	RK_PTR,  /* ERR_PTR() encodes -errno */
	RK_UINT, /* never an error */
	RK_USER, /* user-space function: 64 bits as they are; failed when negative as C int */
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
	uint8_t pad[1];
	/*
	 * The operation the function serves (cifs_llseek and the
	 * generic_file_llseek it calls are both FILE_LLSEEK), 0: none. A call
	 * inside a call of the same operation on the thread is not timed:
	 * the outermost one is the operation.
	 */
	uint32_t op;
};

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

/* Global counters, one per CPU, in the "totals" array. */
struct global_stats {
	uint64_t nest_overflow; /* entries dropped: nesting deeper than SMBLAT_NEST */
	uint64_t no_storage;    /* entries dropped: no room for the thread's frames */
};

/*
 * Where a kprobe or uprobe fired, for kernels without BPF cookies: the
 * agent maps each place to its function id (probe_ids).
 */
struct probe_place {
	uint64_t addr;   /* kernel function address; uprobe: inode number */
	uint64_t offset; /* uprobe: offset in the file; kprobe: 0 */
};

enum event_flags {
	EF_HAS_DEV = 1u << 0,
	EF_HAS_NAME = 1u << 1,
	EF_HAS_RET = 1u << 2,
	/* block layer */
	EF_BLOCK = 1u << 3,       /* the blk_* fields are set */
	EF_BLOCK_QUEUE = 1u << 4, /* blk_queue_ns measured from block_rq_insert */
	/* smb2 layer */
	EF_SMB2 = 1u << 6,          /* an SMB2 request: smb_* fields are set */
	EF_SMB2_COMPOUND = 1u << 7, /* the request was part of a compound chain */
	EF_SMB2_STATUS = 1u << 8,   /* smb_status came from the response header */
	EF_WIRE = 1u << 9,          /* wire_* list the SMB2 requests the call waited on */
	/* smbd layer: an smbd process exited (smbd.h), an oplock or lease break answered */
	EF_SMBD_EXIT = 1u << 10,
	EF_SMBD_BREAK = 1u << 11,
	EF_KSTACK_ID = 1u << 12,    /* kstack_sz is the id of the call's entry stack in kstacks */
	EF_SMB2_ASYNC = 1u << 13,   /* smb_async_id came from an async header */
	EF_SMB2_GRANTED = 1u << 14, /* smb_credits_granted came from the response header */
	EF_SMB2_SPLIT = 1u << 15,   /* smb_split: where the request's time went */
	EF_SMB_EVENT = 1u << 16,    /* a connection event (smb_event), no slow call */
};

/*
 * smb2 layer: where an SMB2 request's time went, in ns. Each request:
 * before it was on the wire (credits, the connection's send lock, the send
 * itself), until its response arrived (network and server), until the
 * task waiting for it ran again. A VFS call's event sums those of the
 * requests it waited on.
 */
struct smb2_split {
	uint64_t send_ns;
	uint64_t rtt_ns;
	uint64_t wake_ns;
};

/* smb2 layer: connection events (EF_SMB_EVENT), each its own FUNCTION and MESSAGE_ID. */
enum smb_event {
	SMB_EV_RECONNECT,       /* cifs tracepoint smb3_reconnect */
	SMB_EV_SESSION_SETUP,   /* an SMB2_SESSION_SETUP request succeeded */
	SMB_EV_LOGOFF,          /* an SMB2_LOGOFF request completed */
	SMB_EV_SESSION_EXPIRED, /* cifs tracepoint smb3_ses_expired */
	SMB_EV_TREE_CONNECT,    /* cifs tracepoint smb3_tcon */
	SMB_EV_CREDIT_STALL,    /* cifs tracepoints smb3_credit_timeout, smb3_insufficient_credits */
	SMB_EV_SLOW_RESPONSE,   /* cifs tracepoint smb3_slow_rsp */
	_SMB_EV_MAX,
};

/* smb2 layer: one SMB2 request a traced call waited on. */
#define SMBLAT_WIRE_MAX 8
struct wire_req {
	uint32_t lat_us;
	uint16_t cmd; /* SMB2 command code */
	uint16_t pad;
};

/* One slow call, as sent through the ring buffer. */
struct event {
	uint64_t end_ns; /* CLOCK_BOOTTIME */
	uint64_t latency_ns;
	uint64_t ret;
	uint64_t args[SMBLAT_MAX_ARGS];
	uint32_t func_id;
	uint32_t pid;
	uint32_t tid;
	uint32_t uid;
	uint32_t dev;      /* super_block s_dev (kernel encoding) */
	uint32_t flags;    /* enum event_flags */
	int32_t kstack_sz; /* bytes in kstack, or negative errno */
	int32_t ustack_sz;
	char comm[SMBLAT_COMM_LEN];
	char name[SMBLAT_NAME_LEN];
	/* block layer: the request, as issued */
	uint64_t blk_sector;
	uint64_t blk_queue_ns; /* insert to issue */
	uint32_t blk_bytes;
	uint32_t blk_op; /* cmd_flags & REQ_OP_MASK, the kernel's numbering */
	char blk_disk[BLOCK_DISK_LEN];
	uint64_t kstack[SMBLAT_STACK_SLOTS];
	uint64_t ustack[SMBLAT_STACK_SLOTS];
	/* smb2 layer: the request (EF_SMB2) and the requests a call waited on (EF_WIRE) */
	uint64_t smb_mid;
	uint32_t smb_status; /* NT status of the response */
	uint16_t smb_cmd;
	uint16_t wire_n;  /* requests waited on, also those past wire[] */
	uint64_t wire_ns; /* their total latency */
	struct wire_req wire[SMBLAT_WIRE_MAX];
	char smb_server[SMBLAT_NAME_LEN];
	/* smb2 layer: the rest of the SMB2 header (EF_SMB2), the split (EF_SMB2_SPLIT, EF_WIRE) */
	uint64_t smb_session;
	uint64_t smb_async_id; /* EF_SMB2_ASYNC */
	uint32_t smb_tree;
	uint16_t smb_credit_charge;
	uint16_t smb_credits_requested;
	uint16_t smb_credits_granted; /* EF_SMB2_GRANTED */
	uint16_t smb_event;           /* enum smb_event, with EF_SMB_EVENT */
	int32_t smb_event_val[4]; /* credit stalls: credits, needed, in flight, none in flight; tree connect: rc */
	uint64_t smb_conn_id; /* the kernel's connection id (events) */
	struct smb2_split smb_split;
};

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

#include "smb2.h"
#include "smbd.h"
#include "sysacct.h"
#include "stacks.h"

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
