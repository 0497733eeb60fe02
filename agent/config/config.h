/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* smblat.conf: defaults, parsing (inih) and validation. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/func.h"
#include "config/values.h" /* parse_duration_ns() and the other single values */

#define CONFIG_MAX_PROBES 256
/* Characters of one line of the file: a long PATH:C++-symbol target fits (smblat.conf(5), SYNTAX). */
#define CONFIG_LINE_MAX 8192
/* A layer's own section lives inside struct config, in this many bytes at most. */
#define CONFIG_SETTINGS_MAX 64

struct layer_config {
	bool enabled;       /* yes, or auto */
	bool automatic;     /* enabled = auto: only where the machine has what it traces */
	bool threshold_set; /* false: inherit [agent] threshold */
	uint64_t threshold_ns;
	char **include; /* NULL-terminated FUNCTION names, NULL = all */
	char **exclude; /* NULL-terminated FUNCTION names */
	bool errors;    /* CONFIG_LAYER_ERRORS: log failed calls whatever their latency */
	bool stacks;    /* CONFIG_LAYER_STACKS: count calls per distinct stack */
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
	bool kernel_stack_set; /* given in the section; else [agent]'s at the end of the load */
	bool user_stack_set;
	unsigned int args;        /* entry arguments to log, 0..6 */
	enum probe_errors errors; /* log failed calls whatever their latency, and what failed means */
	bool stacks;              /* count calls per distinct stack */
	char *file;               /* FILE:LINE of the section, for messages */
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
	uint64_t ringbuf_bytes; /* power of two; 0 (default): auto, from rate_limit */
	uint32_t rate_limit;    /* events/s written, 0 = unlimited; default 1000 */
	uint32_t rate_burst;    /* 0: same as rate_limit; unset: twice rate_limit */
	bool rate_burst_set;
	char *user; /* drop privileges to this user, default "smblat";
				       NULL or "" keeps root */
	enum backend_choice backend;
	enum thread_state_choice thread_state;
	uint32_t max_threads; /* threads inside traced calls at once, with the hash */
	bool offcpu;          /* off-CPU time of timed calls: hooks sched_switch */
	/* [journal] */
	bool journal;              /* default yes */
	int priority_slow;         /* syslog priority, default LOG_WARNING */
	int priority_summary;      /* default LOG_INFO */
	uint64_t lost_interval_ns; /* default 60s */
	/* [histogram] */
	uint64_t hist_interval_ns;   /* default 60s, 0 disables */
	bool hist_per_share;         /* the FUNCTIONs of the layers with shares also per share, default yes */
	uint32_t hist_per_share_max; /* FUNCTION and share pairs kept, default 1024 */
	/* the keys every layer section has */
	struct layer_config layer[_LAYER_MAX];
	/* the rest of each layer's section, as its config_section lays it out (config_layer_settings()) */
	union {
		max_align_t align;
		unsigned char bytes[CONFIG_SETTINGS_MAX];
	} settings[_LAYER_MAX];
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

/* Prints the effective configuration in the file's own syntax. */
void config_dump(const struct config *c, FILE *f);

/* Whether the configuration selects FUNCTION name of layer l: its section's include= (empty: all) and exclude=. */
bool config_wants(const struct config *c, enum layer_id l, const char *name);

/*
 * The settings of layer l's own section, as the config_section it
 * registered lays them out; the layer casts them to its struct.
 */
void *config_layer_settings(const struct config *c, enum layer_id l);

struct config_section;
/*
 * The section of layer l (NULL: it has none): its keys are known to every
 * configuration initialised after. -E2BIG when its struct does not fit.
 */
int config_layer_register(enum layer_id l, const struct config_section *s);

/* Slow calls written at once above rate_limit: rate_burst=, else twice rate_limit. */
uint32_t config_rate_burst(const struct config *c);

/*
 * A reload: the keys that need a restart (CONFIG_KEY_RESTART) go back to
 * their running values in next, and running gets next's (to be freed with
 * it). Those whose value in next differs from was (the file at start) are
 * listed in changed ("comm, [journal] enabled"; size bytes). Returns how many.
 */
unsigned config_restart_keep(struct config *next, struct config *running, const struct config *was,
			     char *changed, size_t size);

/* The threshold in force: the layer's own, else [agent]'s. */
uint64_t config_layer_threshold_ns(const struct config *c, enum layer_id l);
/* The probe's own, else [agent]'s (the func layer has no section). */
uint64_t config_probe_threshold_ns(const struct config *c, const struct probe_config *p);
