/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The smbd layer's views beyond its functions, each a function of the
 * table (so --list-probes shows it and a reload can detach it) hooked by
 * uprobes on what Debian's Samba exports: why an smbd exits and its oplock
 * and lease breaks (exits.c), smbd's time split (split.c). The
 * smbd layer (smbd.c) drives them.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "layers/layer.h"
#include "probes/progs.h"

/* Where the views hook: files of smbd, found by what they export. */
struct smbd_places {
	const char *binary;
	const char *lib;     /* defines smb_vfs_call_*, the SMB2 dispatch and exit paths */
	const char *tevent;  /* libtevent: handler invocations; NULL when not found */
	const char *cluster; /* libsamba-cluster-support: ctdbd calls; NULL when not found */
	const char *version; /* "Samba 4.17.12", as lib's exports are tagged; "Samba (version not known)" */
};

/* The view's function (SMBD_EXIT, ...): found, or with target added; NULL when neither. */
struct func *smbd_view_func(const struct layer_env *env, const char *name, const char *target);

/*
 * prog on the functions syms[0..n) of file, cookies[i] each (NULL: 0), as
 * f's links; functions file lacks are left out and named in missing (size
 * msize). Returns how many are hooked, or negative errno.
 */
int smbd_hook(const struct layer_env *env, struct func *f, const struct uprog_pair *prog, const char *file,
	      const char *const *syms, const uint64_t *cookies, size_t n, bool ret, char *missing,
	      size_t msize);

/* Whether smbd's exit strings are read by sleepable programs, which fault their pages in. */
bool smbd_exits_sleep(const struct layer_env *env);
/* SMBD_EXIT, SMBD_OPLOCK_BREAK, SMBD_LEASE_BREAK attached or detached as exits= and breaks= say. */
void smbd_exits_sync(const struct layer_env *env, const struct smbd_places *pl);
/* Detaches them, leaving them in state why; returns how many were attached. */
unsigned int smbd_exits_detach(const struct layer_env *env, enum func_state why);
/* An exit or break record (REC_SMBD_EXIT, REC_SMBD_BREAK) of size bytes at h; -EINVAL. */
int smbd_exits_decode(const struct layer_env *env, const struct rec_head *h, size_t size, struct record *r);

/* One smbd process's interval, as its time split entry tells it. */
struct smbd_split_entry {
	uint32_t pid;
	double interval_s;
	unsigned int threads; /* loop threads */
	uint64_t wall_ns;
	uint64_t phase_ns[_SPLIT_MAX]; /* enum split_phase */
	uint64_t n[_SPLIT_N_MAX];      /* enum split_count */
	uint64_t syscall_ns, syscalls; /* all threads, waits and idle workers left out */
	uint64_t read_ns, reads, write_ns, writes;
	const char *client; /* "ip:port", or "" */
};

/* The entry's MESSAGE and fields: to journald, or as journal_view_fields() gives them. */
int smbd_split_write(struct journal *j, const struct smbd_split_entry *e);
int smbd_split_fields(const struct smbd_split_entry *e, char ***fields);

struct smbd_split;
int smbd_split_new(struct smbd_split **ret);
void smbd_split_free(struct smbd_split *s);
/* SMBD_TIME_SPLIT attached or detached as time_split= says. */
void smbd_split_sync(struct smbd_split *s, const struct layer_env *env, const struct smbd_places *pl);
unsigned int smbd_split_detach(struct smbd_split *s, const struct layer_env *env, enum func_state why);
/* Per smbd process, what the interval's time went to (journal entries or tsmbd's report). */
void smbd_split_summarize(struct smbd_split *s, const struct layer_env *env, const struct summary_out *out);
