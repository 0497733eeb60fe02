/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Syscall accounting (syscalls layer) and what smbd's views want of syscalls. */
#ifndef SMBLAT_SYSACCT_H
#define SMBLAT_SYSACCT_H

/* What a syscall means to smbd's time split and exit entries. */
enum sys_class {
	SC_NONE,
	SC_WAIT,  /* the event loop's wait: epoll_wait, poll, select, ... */
	SC_RECV,  /* recvmsg, recvfrom, recvmmsg, readv */
	SC_SEND,  /* sendmsg, sendto, sendmmsg, writev, sendfile */
	SC_READ,  /* file reads: pread64, preadv, preadv2 */
	SC_WRITE, /* file writes: pwrite64, pwritev, pwritev2, fsync, fdatasync */
	SC_PEER,  /* getpeername: the client's address */
	SC_IDLE,  /* futex: a worker thread waiting for work, no work itself */
};

/* Per syscall number ("sys_info"), set by the agent. */
struct sys_info {
	uint32_t acct_id; /* function id + 1 of its SYSCALL_<NAME>; 0: not accounted */
	uint32_t cls;     /* enum sys_class */
};
SMBLAT_SIZE(sys_info, 8);

/* Failed calls per function id and errno ("acct_errs", per CPU). */
struct acct_err_key {
	uint32_t id;
	uint32_t err;
};
SMBLAT_SIZE(acct_err_key, 8);

#define SMBLAT_ACCT_ERR_KEYS 4096

#endif
