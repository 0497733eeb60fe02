/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * smbd layer views beyond its functions: the processes the kernel side
 * follows (every smbd, and those whose syscalls are accounted), smbd's time
 * split per loop thread, and what is known when an smbd exits.
 */
#ifndef SMBLAT_SMBD_H
#define SMBLAT_SMBD_H

#include "smblat.h" /* the records' head, when this header comes first */

#define SMBLAT_PROCS_MAX 32768 /* followed processes */
#define SMBLAT_REASON_LEN 64

/* Why a process is followed ("procs" map value). */
enum proc_flags {
	PROC_SMBD = 1u << 0,      /* runs the followed smbd executable, or forked by one, not exec'd since */
	PROC_ACCT = 1u << 1,      /* its syscalls are accounted (syscalls layer) */
	PROC_ACCT_KEEP = 1u << 2, /* chosen by pid: accounted across exec too, as strace -f */
};

/* What the agent asks of the process and syscall programs ("procs_cfg" in .data). */
struct procs_ctl {
	/*
	 * The smbd executable whose processes are followed (PROC_SMBD): the
	 * kernel's inode of it (its address, which tasks_exe_inode reads into
	 * exe_inode from the agent's descriptor exe_fd, which pins it), so
	 * that an smbd of another installation (a container, a chroot) is not,
	 * whatever its name. 0: none.
	 */
	uint64_t smbd_inode;
	uint64_t exe_inode;
	uint32_t exe_fd;
	uint32_t smbd;        /* follow the smbd processes (PROC_SMBD) */
	uint32_t acct_smbd;   /* account every smbd's syscalls */
	uint32_t acct_cgroup; /* account the tasks of the cgroup in acct_cgroups[0] */
	uint32_t split;       /* smbd time split on */
	uint32_t exit_id;     /* function ids + 1 of SMBD_EXIT, SMBD_OPLOCK_BREAK, */
	uint32_t oplock_id;   /* SMBD_LEASE_BREAK; 0: not written */
	uint32_t lease_id;
	uint32_t seed_pid;   /* tasks_seed: account it and its later children */
	uint32_t str_sleep;  /* exit strings are read by the sleepable programs (which fault pages in) */
	char acct_comm[16];  /* account processes exec'ing with this comm; "" none */
	uint32_t seed_count; /* tasks_seed: the processes followed for any of these (enum proc_flags) */
	uint32_t pad;
	uint64_t split_since_ns; /* the time split's interval began: a thread it meets later counts from there */
};
SMBLAT_SIZE(procs_ctl, 88);

/*
 * Phases of an smbd loop thread: at any moment it is in exactly one, so
 * they add up to its wall time. smblat(8) says which function or syscall
 * marks each.
 */
enum split_phase {
	SPLIT_OTHER,  /* busy outside the phases below */
	SPLIT_WAIT,   /* waiting for events (epoll_wait, poll, ...) */
	SPLIT_RECV,   /* receiving from the client socket */
	SPLIT_PARSE,  /* from a receive to the dispatch of what it brought */
	SPLIT_RUN,    /* running SMB2 requests (smbd_smb2_request_dispatch) */
	SPLIT_SEND,   /* sending to the client socket */
	SPLIT_CTDB,   /* waiting for ctdbd (clustered) */
	SPLIT_RUN_IO, /* waiting while requests' disk I/O runs in worker threads */
	_SPLIT_MAX,
};

enum split_count {
	SPLIT_N_FD, /* tevent events run: fd, timer, immediate, signal handlers */
	SPLIT_N_TIMER,
	SPLIT_N_IMMEDIATE,
	SPLIT_N_SIGNAL,
	SPLIT_N_REQUESTS, /* SMB2 requests dispatched */
	SPLIT_N_CTDB,     /* ctdbd calls */
	SPLIT_N_RECV,     /* client socket receives and sends */
	SPLIT_N_SEND,
	_SPLIT_N_MAX,
};

#define SPLIT_DEPTH 6

/* One loop thread ("split_threads", keyed by tid). Only the thread itself writes it. */
struct split_thread {
	uint32_t tgid;
	uint8_t cur; /* enum split_phase now */
	uint8_t depth;
	uint8_t stack[SPLIT_DEPTH]; /* phases to come back to */
	uint8_t ctdb_nest;          /* ctdbd calls inside the outermost */
	uint8_t pad;
	uint16_t io_pending; /* asynchronous disk I/O sent to worker threads, not received yet */
	uint64_t since_ns;   /* cur began */
	uint64_t first_ns;   /* first seen */
	uint64_t acc_ns[_SPLIT_MAX];
	uint64_t n[_SPLIT_N_MAX];
	uint64_t dead_ns; /* the thread exited: the agent takes the entry after reading it */
};
SMBLAT_SIZE(split_thread, 168);

/* Per smbd process ("smbd_procs", keyed by tgid); worker threads add, so counters are atomic. */
struct smbd_proc {
	uint64_t start_ns; /* fork or exec seen, or found at start */
	uint32_t ppid;
	uint32_t disc_status; /* first NTSTATUS a connection was disconnected with */
	uint32_t exit_how;    /* 1: smbd_exit_server, 2: _cleanly, 0: neither */
	uint32_t last_err_nr; /* the last syscall that failed, +1 (0: none) */
	int32_t last_err;     /* its errno */
	uint32_t peer_len;
	uint64_t last_err_ns;
	uint64_t reason_ptr;              /* reason not readable yet (page not present): tried again later */
	uint64_t location_ptr;            /* location not readable yet: the same */
	uint64_t dead_ns;                 /* exited; kept for the agent's last time split read */
	uint8_t peer[32];                 /* the client's sockaddr, from getpeername(2) */
	char reason[SMBLAT_REASON_LEN];   /* exit_server's explanation, else terminate's reason */
	char location[SMBLAT_REASON_LEN]; /* smbd_server_connection_terminate_ex's location */
	/* time split, all threads of the process */
	uint64_t syscall_ns;
	uint64_t syscalls;
	uint64_t disk_read_ns;
	uint64_t disk_reads;
	uint64_t disk_write_ns;
	uint64_t disk_writes;
	uint32_t breaks_sent; /* oplock breaks sent, and answered */
	uint32_t breaks_done;
	int32_t ustack_sz;    /* bytes, at exit_server */
	uint32_t strs_unread; /* enum smbd_str: strings smbd handed over that could not be read */
	uint64_t ustack[32];
	uint32_t answers; /* BREAK and CLOSE requests of the client begun: what may answer a break */
	uint32_t uflags;  /* how the user stack was walked (ustack.h) */
};
SMBLAT_SIZE(smbd_proc, 552);

/* The strings smbd hands over on its way out (struct smbd_proc). */
enum smbd_str {
	SMBD_STR_REASON = 1u << 0,
	SMBD_STR_LOCATION = 1u << 1,
};

/* An oplock or lease break smbd sent and has not seen answered yet. */
struct smbd_break_key {
	uint32_t tgid;
	uint32_t oplock; /* 1: oplock (answered in order), 0: lease (by key) */
	uint64_t key[2]; /* lease key; oplock: the sequence number */
};
SMBLAT_SIZE(smbd_break_key, 24);

struct smbd_break {
	uint64_t start_ns; /* first: the agent sweeps by it */
	uint32_t from;     /* lease state, or oplock level */
	uint32_t to;
	uint32_t answers; /* smbd_proc's when it was sent: a later one may be its answer */
	uint32_t pad;
};
SMBLAT_SIZE(smbd_break, 24);
INFLIGHT_VALUE(smbd_break);

/* smbd layer: where Samba keeps the inbound SMB2 header of a request. */
/*
 * struct smbd_smb2_request has no BTF or stable layout; the agent reads
 * the offsets of current_idx and in.vector from the library's own code
 * (agent/layers/smbd/reqlayout.c). The header of the request being processed is
 * in.vector[current_idx + 1].iov_base.
 */
struct smbd_hdr_layout {
	uint32_t on;
	uint32_t current_idx; /* offset of int current_idx */
	uint32_t in_vector;   /* offset of struct iovec *in.vector */
	uint32_t pad;
};
SMBLAT_SIZE(smbd_hdr_layout, 16);

/* In flight (smbd_reqs): an SMB2 request of smbd from its handler to its reply. */
struct smbd_req_key {
	uint32_t tgid;
	uint32_t pad;
	uint64_t req;
};
SMBLAT_SIZE(smbd_req_key, 16);

struct smbd_req_start {
	uint64_t start_ns; /* first: the agent sweeps by it */
	uint32_t func_id;
	uint32_t has_ids;
	struct smb2_ids ids; /* of the inbound header, with has_ids */
	uint64_t ustack;     /* the user stack at the handler's entry, in smbd_req_ustacks; 0: none */
};
SMBLAT_SIZE(smbd_req_start, 72);
INFLIGHT_VALUE(smbd_req_start);

/* REC_SMBD_REQ: an SMB2 request of smbd, handler to reply; RETVAL is the NTSTATUS. */
struct rec_smbd_req {
	struct rec_call c;
	struct smb2_ids ids; /* RF_SMB2_IDS: the client's header ids, the two sides join on them */
};

/* REC_SMBD_EXIT: an smbd process exited; latency is its lifetime. */
struct rec_smbd_exit {
	struct rec_head h;
	int32_t exit_code; /* task exit_code: status << 8 | signal */
	uint32_t status;   /* first NTSTATUS a connection was disconnected with, 0: none */
	uint32_t ppid;
	uint32_t exit_how;    /* 1: smbd_exit_server, 2: _cleanly, 0: neither */
	uint32_t last_err_nr; /* the last syscall that failed, + 1 (0: none) */
	int32_t last_err;     /* its errno */
	uint32_t unread;      /* enum smbd_str: strings smbd handed over that could not be read */
	uint32_t pad;
	uint64_t last_err_ago_ns; /* how long before the exit it returned */
	uint8_t peer[32];         /* the client's sockaddr */
	char reason[SMBLAT_REASON_LEN];
	char location[SMBLAT_REASON_LEN];
	struct rec_stacks st; /* user stack: at exit_server, else where it was at the exit */
};

/* REC_SMBD_BREAK: an oplock or lease break answered; latency is break to answer. */
struct rec_smbd_break {
	struct rec_head h;
	uint32_t from; /* lease state, or oplock level */
	uint32_t to;
	uint64_t key[2]; /* lease key; 0 for oplocks */
	uint32_t oplock; /* 1: an oplock break, 0: a lease break */
	uint32_t pad;
};

SMBLAT_AT(rec_smbd_req, ids, sizeof(struct rec_call));
SMBLAT_SIZE(rec_smbd_exit, 56 + 40 + 32 + 2 * SMBLAT_REASON_LEN + sizeof(struct rec_stacks));
SMBLAT_SIZE(rec_smbd_break, 56 + 32);

#endif
