/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* smblat.conf: defaults, parsing (inih) and validation. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/func.h"
#include "config/values.h" /* parse_duration_ns() and the other single values */

#define EX_CONFIG_ 78 /* sysexits EX_CONFIG */
#define CONFIG_MAX_PROBES 256

struct layer_config {
	bool enabled;       /* yes, or auto */
	bool automatic;     /* enabled = auto: only where the machine has what it traces */
	bool threshold_set; /* false: inherit [agent] threshold */
	uint64_t threshold_ns;
	char **include; /* NULL-terminated FUNCTION names, NULL = all */
	char **exclude; /* NULL-terminated FUNCTION names */
	bool errors;    /* [smb2], [syscalls]: log failed calls whatever their latency */
	bool stacks;    /* count calls per distinct stack ([smbd], [syscalls]) */
};

/* [syscalls] select=: whose syscalls are accounted (one grammar, config_parse_select()). */
struct sys_select {
	bool smbd;    /* every smbd */
	uint32_t pid; /* this process and its later children, 0: none */
	char *comm;   /* processes exec'ing with this name, NULL: none */
	char *cgroup; /* the tasks of this cgroup v2 (and below), NULL: none */
};

/* [probe NAME]: one function probe of the "func" layer (funcslower). */
struct probe_config {
	char *label;  /* FUNCTION field; section name */
	char *target; /* see smblat.conf(5): kernel function,
				       module:function, PATH:symbol, lib:symbol,
				       usdt:PATH:PROVIDER:START,END, syscall:NAME */
	bool threshold_set;
	uint64_t threshold_ns;
	bool kernel_stack;
	bool user_stack;
	unsigned int args; /* entry arguments to log, 0..6 */
	bool errors;       /* log failed calls whatever their latency */
	bool stacks;       /* count calls per distinct stack */
	char *file;        /* FILE:LINE of the section, for messages */
	unsigned int line;
	bool cli; /* given on the command line (-f), not in a file */
};

struct config {
	/* [agent] */
	uint64_t threshold_ns;  /* default 10ms */
	uint32_t pid;           /* 0: all */
	char *comm;             /* NULL: all */
	char *cgroup;           /* cgroup v2 path, NULL: all */
	bool kernel_stack;      /* default yes */
	bool user_stack;        /* default no */
	uint64_t ringbuf_bytes; /* default 4M, power of two */
	uint32_t rate_limit;    /* events/s written, 0 = unlimited; default 1000 */
	uint32_t rate_burst;    /* 0: same as rate_limit; unset: twice rate_limit */
	bool rate_burst_set;
	char *user; /* drop privileges to this user, default "smblat";
				       NULL or "" keeps root */
	enum backend_choice backend;
	enum thread_state_choice thread_state;
	uint32_t max_threads; /* threads inside traced calls at once, with the hash */
	/* [journal] */
	bool journal;              /* default yes */
	int priority_slow;         /* syslog priority, default LOG_WARNING */
	int priority_summary;      /* default LOG_INFO */
	uint64_t lost_interval_ns; /* default 60s */
	/* [histogram] */
	uint64_t hist_interval_ns;   /* default 60s, 0 disables */
	bool hist_per_share;         /* FUNCTIONs of the SMB layers also per share, default yes */
	uint32_t hist_per_share_max; /* FUNCTION and share pairs kept, default 1024 */
	/* [smb] [smb2] [block] [smbd] */
	struct layer_config layer[_LAYER_MAX];
	bool group[_GROUP_MAX]; /* enum op_group enabled for [smb] groups=, all by default */
	/* [block] */
	char **block_disks;    /* NULL-terminated disk names, NULL: every disk */
	bool block_queue_time; /* time from block_rq_insert, default no */
	/* [smb2] */
	char **smb2_servers;  /* NULL-terminated server names, NULL: every server */
	char **smb2_sessions; /* NULL-terminated session ids as given, NULL: every session */
	bool smb2_events;     /* connection events, default yes */
	/* [smbd] */
	char *smbd_binary;     /* smbd executable, NULL: found on PATH (config_smbd_binary) */
	bool smbd_vfs;         /* every smb_vfs_call_*, not only include=d ones; default no */
	bool smbd_exits;       /* SMBD_EXIT entries; default yes */
	bool smbd_exit_errors; /* their last failed syscall (hooks every syscall's exit); default no */
	bool smbd_breaks;      /* SMBD_OPLOCK_BREAK, SMBD_LEASE_BREAK entries; default yes */
	bool smbd_split;       /* time split summaries (SMBD_TIME_SPLIT); default no */
	/* [syscalls] */
	struct sys_select sys_select; /* nothing chosen: every smbd */
	/* [probe NAME] ... */
	struct probe_config *probes;
	unsigned int n_probes;
};

/* Defaults as documented in smblat.conf(5); the embedded default config. */
void config_init(struct config *c);
void config_free(struct config *c);

/*
 * Parses PATH and then PATH.d/ *.conf drop-ins in lexical order on top of c.
 * On error returns -EINVAL (callers exit EX_CONFIG) with *error set to
 * "FILE:LINE: message" (malloc'd; printed to stderr instead when error is
 * NULL). missing_ok: a missing PATH is not an error. Drop-ins apply even
 * when PATH is missing. A file that cannot be read gives "FILE: strerror"
 * and its negative errno (-ENOENT, -EACCES, ...). After a failure c is
 * freeable but only partly loaded.
 */
int config_load(struct config *c, const char *path, bool missing_ok, char **error);

/* Parses one buffer (for tests and the fuzzer); name is used in messages. */
int config_load_string(struct config *c, const char *name, const char *text, char **error);

/*
 * Copies the probes given on the command line from `from` to `to` (a file
 * loaded again for a reload): they are in no file. -ENOMEM.
 */
int config_carry_cli(struct config *to, const struct config *from);

/*
 * select= of [syscalls] and --syscalls=: "smbd", "pid:N", "comm:NAME",
 * "cgroup:PATH", separated by commas or blanks, into s (freed first). On
 * error -EINVAL and *problem says what is wrong (static).
 */
int config_parse_select(const char *v, struct sys_select *s, const char **problem);
void config_select_free(struct sys_select *s);
/* "smbd, pid:12" into buf (size n): the dump's and the messages' spelling. */
const char *config_select_format(const struct sys_select *s, char *buf, size_t n);

/* Prints the effective configuration in the file's own syntax. */
void config_dump(const struct config *c, FILE *f);

/*
 * Whether the configuration selects FUNCTION name of layer l: its section's
 * include= (empty: all) and exclude=, and for smb the op group's groups=.
 */
bool config_wants(const struct config *c, enum layer_id l, const char *name, enum op_group g);

/* The smbd to probe: [smbd] binary=, else smbd on PATH or where Samba installs it; NULL: none. */
char *config_smbd_binary(const struct config *c);

/* Slow calls written at once above rate_limit: rate_burst=, else twice rate_limit. */
uint32_t config_rate_burst(const struct config *c);

/* An SMB session id as [smb2] sessions= takes it (hex 0x..., or decimal); -EINVAL. */
int config_parse_session(const char *s, uint64_t *ret);

/* The threshold in force: the layer's own, else [agent]'s. */
uint64_t config_layer_threshold_ns(const struct config *c, enum layer_id l);
/* The probe's own, else [agent]'s (the func layer has no section). */
uint64_t config_probe_threshold_ns(const struct config *c, const struct probe_config *p);
