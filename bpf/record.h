/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The ring buffer's records, the one contract between the BPF programs and
 * the agent: every record begins with struct rec_head, whose kind says
 * which body follows. A record of a call (REC_CALL and the kinds built on
 * it) begins with struct rec_call; a layer's own kinds are defined in its
 * header (block.h, smb2.h, smbd.h, vfs.h), beside what else its BPF unit
 * and its module share. The agent's decoder takes the head (and the call
 * part of the call kinds); the layer owning a kind decodes the rest.
 * Sizes and offsets are held by _Static_assert here and in those headers,
 * so that both compilers (BPF and the agent's) see the same layout, and a
 * test compares them with the BTF of the built object.
 */
#ifndef SMBLAT_RECORD_H
#define SMBLAT_RECORD_H

/* One name per kind of record: the table the decoder dispatches on. */
enum rec_kind {
	REC_NONE = 0,
	REC_CALL,       /* struct rec_call: a traced function or syscall (func, syscalls layers) */
	REC_VFS_CALL,   /* struct rec_vfs_call (vfs.h): a cifs VFS operation (smb layer) */
	REC_SMB2_REQ,   /* struct rec_smb2 (smb2.h): a cifs SMB2 request (smb2 layer) */
	REC_SMB_EVENT,  /* struct rec_smb2 (smb2.h): a connection event (smb2 layer) */
	REC_BLOCK,      /* struct rec_block (block.h): a block I/O request (block layer) */
	REC_SMBD_REQ,   /* struct rec_smbd_req (smbd.h): an SMB2 request of smbd (smbd layer) */
	REC_SMBD_EXIT,  /* struct rec_smbd_exit (smbd.h): an smbd process exited */
	REC_SMBD_BREAK, /* struct rec_smbd_break (smbd.h): an oplock or lease break answered */
	_REC_KIND_MAX,
};
#define REC_BIT(kind) (1u << (kind))

/* What a record has, in rec_head.flags: one namespace for every kind. */
enum rec_flags {
	RF_HAS_RET = 1u << 0,       /* call: ret is the return value */
	RF_HAS_DEV = 1u << 2,       /* dev is the call's (or the event's) super_block s_dev */
	RF_HAS_NAME = 1u << 3,      /* name is the call's dentry name */
	RF_SMB2_IDS = 1u << 4,      /* ids are an SMB2 header's (smbd requests: found in the request) */
	RF_SMB2_COMPOUND = 1u << 5, /* the request was part of a compound chain */
	RF_SMB2_ASYNC = 1u << 6,    /* ids.async_id came from an async header, ids.tree is 0 */
	RF_SMB2_STATUS = 1u << 7,   /* ids.status came from the response header */
	RF_SMB2_GRANTED = 1u << 8,  /* credits_granted came from the response header */
	RF_BLOCK_QUEUE = 1u << 9,   /* queue_ns measured from block_rq_insert */
	RF_OFFCPU = 1u << 10,       /* call: offcpu_ns measured (off-CPU time on) */
};

/* Who and when: the beginning of every record (56 bytes). */
struct rec_head {
	uint32_t kind; /* enum rec_kind */
	uint32_t func_id;
	uint64_t end_ns; /* CLOCK_BOOTTIME */
	uint64_t latency_ns;
	uint32_t pid; /* process (tgid) */
	uint32_t tid;
	uint32_t uid;
	uint32_t flags; /* enum rec_flags */
	char comm[SMBLAT_COMM_LEN];
};

/*
 * Stacks, innermost frame first: bytes in kstack/ustack, or a negative
 * errno. One frame more than kept is captured, to tell a cut stack from
 * one that fits.
 */
struct rec_stacks {
	int32_t kstack_sz;
	int32_t ustack_sz;
	uint32_t uflags; /* how the user stack was walked and ended (enum ustack_flags, ustack.h) */
	uint32_t pad;
	uint64_t kstack[SMBLAT_STACK_SLOTS];
	uint64_t ustack[SMBLAT_STACK_SLOTS];
};

/* A call of a function: REC_CALL, and the first member of the kinds built on a call. */
struct rec_call {
	struct rec_head h;
	uint64_t ret;                   /* RF_HAS_RET */
	uint64_t args[SMBLAT_MAX_ARGS]; /* the entry's, as many as func_cfg.nargs */
	uint64_t offcpu_ns;             /* RF_OFFCPU: of latency_ns, the time the thread was off a CPU */
	struct rec_stacks st;
};

SMBLAT_SIZE(rec_head, 56);
SMBLAT_AT(rec_head, flags, 36);
SMBLAT_AT(rec_head, comm, 40);
SMBLAT_SIZE(rec_stacks, 16 + 2 * 8 * SMBLAT_STACK_SLOTS);
SMBLAT_SIZE(rec_call, 56 + 8 + 8 * SMBLAT_MAX_ARGS + 8 + 16 + 2 * 8 * SMBLAT_STACK_SLOTS);
SMBLAT_AT(rec_call, st, 120);

#endif
