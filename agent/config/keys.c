// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The key tables of the agent's own sections: [agent], [journal],
 * [histogram], the keys every layer section has, [probe NAME]; and the
 * grammars only they use. The layers' own keys are in their modules.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#include "config/config-int.h"
#include "config/target.h"
#include "base/syscalls.h"
#include "bpf/view.h"

#define RINGBUF_MIN 4096ULL
#define RINGBUF_MAX (1ULL << 30)
#define COMM_MAX (SMBLAT_COMM_LEN - 1)
/* Prealloc'd at about 2.4K each: 64 threads to a million (2.4G). */
#define MAX_THREADS_MIN 64
#define MAX_THREADS_MAX (1u << 20)

/* Not strdup()ed so that config_init() cannot fail; user_free() knows it. */
static char default_user[] = "smblat";

/* ---- [agent] ---- */

static int comm_check(struct config_parser *p, const char *v, size_t n)
{
	if (strlen(v) > COMM_MAX)
		return config_fail(p, "comm \"%s\" is longer than %d characters and would never match", v,
				   COMM_MAX);
	return 0;
}

static int cgroup_check(struct config_parser *p, const char *v, size_t n)
{
	if (*v && v[0] != '/')
		return config_fail(p, "cgroup \"%s\" is not an absolute path", v);
	return 0;
}

/*
 * ringbuf_size=: a size, a power of two from 4K to 1G (the BPF ring buffer's
 * own rule), or auto (0): sized from rate_limit by the core.
 */
static int ringbuf_parse(struct config_parser *p, const struct config_key *k, void *base, const char *v,
			 bool append)
{
	uint64_t b;
	char buf[32];

	if (strcmp(v, "auto") == 0) {
		*(uint64_t *)config_value(k, base) = 0;
		return 0;
	}
	if (parse_size(v, &b) < 0)
		return config_fail(p, "invalid size \"%s\" for ringbuf_size, use e.g. 4M, 256K or auto", v);
	if (b < RINGBUF_MIN || b > RINGBUF_MAX || (b & (b - 1)) != 0)
		return config_fail(p, "ringbuf_size = %s must be a power of two between 4K and 1G (e.g. %s)",
				   v,
				   values_format_size(buf, sizeof(buf),
						      b < RINGBUF_MIN ? RINGBUF_MIN :
						      b > RINGBUF_MAX ? RINGBUF_MAX :
									1ULL << (63 - __builtin_clzll(b))));
	*(uint64_t *)config_value(k, base) = b;
	return 0;
}

static void ringbuf_print(FILE *f, const struct config_key *k, const void *base)
{
	uint64_t b = *(const uint64_t *)config_value_const(k, base);
	char buf[32];

	fprintf(f, "%s = %s\n", k->name, b ? values_format_size(buf, sizeof(buf), b) : "auto");
}

static const struct config_type ringbuf_type = {
	.parse = ringbuf_parse,
	.print = ringbuf_print,
	.examples = (const char *const[]) { "64K", NULL },
};

uint32_t config_rate_burst(const struct config *c)
{
	if (c->rate_burst_set)
		return c->rate_burst ? c->rate_burst : c->rate_limit;
	/* twice the limit: 2000 by default, half the writer's queue of 4096 */
	return c->rate_limit > UINT32_MAX / 2 ? UINT32_MAX : 2 * c->rate_limit;
}

static int burst_parse(struct config_parser *p, const struct config_key *k, void *base, const char *v,
		       bool append)
{
	struct config *c = base;
	uint64_t n;
	int r = config_parse_uint(p, v, UINT32_MAX, &n);

	if (r < 0)
		return r;
	c->rate_burst = (uint32_t)n;
	c->rate_burst_set = true;
	return 0;
}

/* The burst in force, which follows rate_limit unless given. */
static void burst_print(FILE *f, const struct config_key *k, const void *base)
{
	fprintf(f, "%s = %u\n", k->name, config_rate_burst(base));
}

static const struct config_type burst_type = {
	.parse = burst_parse,
	.print = burst_print,
	.examples = (const char *const[]) { "7", NULL },
};

static void user_free(const struct config_key *k, void *base)
{
	char **user = config_value(k, base);

	if (*user != default_user)
		free(*user);
	*user = NULL;
}

/* Empty keeps root. */
static int user_parse(struct config_parser *p, const struct config_key *k, void *base, const char *v,
		      bool append)
{
	char *copy = NULL;

	if (*v && !values_user_name_valid(v))
		return config_fail(p, "invalid user name \"%s\"", v);
	if (*v) {
		copy = strdup(v);
		if (!copy)
			return config_oom(p);
	}
	user_free(k, base);
	*(char **)config_value(k, base) = copy;
	return 0;
}

static const struct config_type user_type = {
	.parse = user_parse,
	.print = config_print_string,
	.free = user_free,
	.examples = (const char *const[]) { "daemon", "", NULL },
};

static int max_threads_check(struct config_parser *p, const char *v, size_t n)
{
	if (n < MAX_THREADS_MIN || n > MAX_THREADS_MAX)
		return config_fail(p, "max_threads = %s must be between %u and %u", v, MAX_THREADS_MIN,
				   MAX_THREADS_MAX);
	return 0;
}

static void agent_init(void *base)
{
	struct config *c = base;

	c->threshold_ns = 10 * NSEC_PER_MSEC;
	c->kernel_stack = true;
	c->ringbuf_bytes = 0; /* auto: from rate_limit */
	/* under what journald takes (about 2,450 a second measured); bursts of twice that */
	c->rate_limit = 1000;
	c->user = default_user;
	c->backend = CHOICE_AUTO;
	c->thread_state = TSTATE_AUTO;
	c->max_threads = 4096;
}

static const struct config_key agent_keys[] = {
	CONFIG_KEY("threshold", struct config, threshold_ns, config_duration),
	CONFIG_KEY("pid", struct config, pid, config_uint, .max = VALUES_PID_MAX,
		   .flags = CONFIG_KEY_RESTART),
	CONFIG_KEY("comm", struct config, comm, config_string, .check = comm_check,
		   .flags = CONFIG_KEY_RESTART),
	CONFIG_KEY("cgroup", struct config, cgroup, config_string, .check = cgroup_check,
		   .flags = CONFIG_KEY_RESTART),
	CONFIG_KEY("kernel_stack", struct config, kernel_stack, config_bool),
	CONFIG_KEY("user_stack", struct config, user_stack, config_bool),
	CONFIG_KEY("ringbuf_size", struct config, ringbuf_bytes, ringbuf_type, .flags = CONFIG_KEY_RESTART),
	CONFIG_KEY("rate_limit", struct config, rate_limit, config_uint),
	CONFIG_KEY("rate_burst", struct config, rate_burst, burst_type),
	CONFIG_KEY("user", struct config, user, user_type, .flags = CONFIG_KEY_RESTART),
	CONFIG_KEY("backend", struct config, backend, config_enum, .names = values_backend_names,
		   .n_names = ELEMENTSOF(values_backend_names), .flags = CONFIG_KEY_RESTART),
	CONFIG_KEY("thread_state", struct config, thread_state, config_enum,
		   .names = values_thread_state_names, .n_names = ELEMENTSOF(values_thread_state_names),
		   .flags = CONFIG_KEY_RESTART),
	CONFIG_KEY("max_threads", struct config, max_threads, config_uint, .check = max_threads_check,
		   .flags = CONFIG_KEY_RESTART),
	CONFIG_KEY("offcpu", struct config, offcpu, config_bool, .flags = CONFIG_KEY_RESTART),
};

const struct config_section config_agent_section = CONFIG_SECTION("agent", agent_keys, .init = agent_init);

/* ---- [journal] ---- */

static int priority_parse(struct config_parser *p, const struct config_key *k, void *base, const char *v,
			  bool append)
{
	int prio = config_priority_from_name(v);
	const char *hint;

	if (prio >= 0) {
		*(int *)config_value(k, base) = prio;
		return 0;
	}
	hint = suggest_name(v, values_priority_names, ELEMENTSOF(values_priority_names));
	return config_fail(p,
			   "invalid syslog priority \"%s\" for %s%s%s%s, use a name "
			   "(emerg alert crit err warning notice info debug) or 0-7",
			   v, k->name, hint ? ", did you mean \"" : "", hint ?: "", hint ? "\"?" : "");
}

static void priority_print(FILE *f, const struct config_key *k, const void *base)
{
	config_print_value(f, k->name, config_priority_name(*(const int *)config_value_const(k, base)));
}

/* A syslog priority by name or number. */
static const struct config_type priority_type = {
	.parse = priority_parse,
	.print = priority_print,
	.examples = (const char *const[]) { "err", "debug", NULL },
};

static void journal_init(void *base)
{
	struct config *c = base;

	c->journal = true;
	c->priority_slow = LOG_WARNING;
	c->priority_summary = LOG_INFO;
	c->lost_interval_ns = 60 * NSEC_PER_SEC;
}

static const struct config_key journal_keys[] = {
	CONFIG_KEY("enabled", struct config, journal, config_bool, .flags = CONFIG_KEY_RESTART),
	CONFIG_KEY("priority_slow", struct config, priority_slow, priority_type, .flags = CONFIG_KEY_RESTART),
	CONFIG_KEY("priority_summary", struct config, priority_summary, priority_type,
		   .flags = CONFIG_KEY_RESTART),
	/* losses must keep being reported, and not more than once a second */
	CONFIG_KEY("lost_interval", struct config, lost_interval_ns, config_duration, .min = NSEC_PER_SEC),
};

const struct config_section config_journal_section = CONFIG_SECTION("journal", journal_keys,
								    .init = journal_init);

/* ---- [histogram] ---- */

/* Bounds the labels of the per-share view: a BPF map, sized once. */
static int per_share_max_check(struct config_parser *p, const char *v, size_t n)
{
	if (n == 0)
		return config_fail(p, "per_share_max = 0: use per_share = no");
	return 0;
}

static void histogram_init(void *base)
{
	struct config *c = base;

	c->hist_interval_ns = 60 * NSEC_PER_SEC;
	c->hist_per_share = true;
	c->hist_per_share_max = SMBLAT_SHARE_VIEW_MAX;
}

static const struct config_key histogram_keys[] = {
	CONFIG_KEY("interval", struct config, hist_interval_ns, config_duration, .min = NSEC_PER_SEC,
		   .zero_off = true, .flags = CONFIG_KEY_RESTART),
	CONFIG_KEY("per_share", struct config, hist_per_share, config_bool),
	/* the view's map is sized at start */
	CONFIG_KEY("per_share_max", struct config, hist_per_share_max, config_uint, .max = 65536,
		   .check = per_share_max_check, .flags = CONFIG_KEY_RESTART),
};

const struct config_section config_histogram_section = CONFIG_SECTION("histogram", histogram_keys,
								      .init = histogram_init);

/* ---- the keys of every layer section ---- */

static int enabled_parse(struct config_parser *p, const struct config_key *k, void *base, const char *v,
			 bool append)
{
	struct layer_config *lc = base;

	lc->automatic = strcasecmp(v, "auto") == 0;
	if (lc->automatic) {
		lc->enabled = true;
		return 0;
	}
	if (parse_bool(v, &lc->enabled) < 0)
		return config_fail(p, "invalid value \"%s\" for enabled, use auto, yes or no", v);
	return 0;
}

static void enabled_print(FILE *f, const struct config_key *k, const void *base)
{
	const struct layer_config *lc = base;

	config_print_value(f, k->name, lc->automatic ? "auto" : lc->enabled ? "yes" : "no");
}

/* auto, or a boolean. */
static const struct config_type enabled_type = {
	.parse = enabled_parse,
	.print = enabled_print,
	.examples = (const char *const[]) { "no", "yes", NULL },
};

/* FUNCTION names. */
static int function_check(struct config_parser *p, const char *v, size_t n)
{
	if (!values_label_valid(v))
		return config_fail(
			p, "invalid function name \"%s\" in %s, expected up to %d of A-Z a-z 0-9 _ . : -", v,
			config_parser_key(p), VALUES_LABEL_MAX);
	return 0;
}

static const struct config_key layer_keys[] = {
	CONFIG_KEY("enabled", struct layer_config, enabled, enabled_type),
	CONFIG_KEY("threshold", struct layer_config, threshold_ns, config_threshold,
		   CONFIG_SET(struct layer_config, threshold_set)),
	CONFIG_KEY("include", struct layer_config, include, config_list, .check = function_check,
		   .item_len = SMBLAT_NAME_LEN + 1),
	CONFIG_KEY("exclude", struct layer_config, exclude, config_list, .check = function_check,
		   .item_len = SMBLAT_NAME_LEN + 1),
	CONFIG_KEY("errors", struct layer_config, errors, config_bool, .only = CONFIG_LAYER_ERRORS),
	CONFIG_KEY("stacks", struct layer_config, stacks, config_bool, .only = CONFIG_LAYER_STACKS),
};

/* Named after each layer that registers a section of its own. */
const struct config_section config_layer_section = CONFIG_SECTION(NULL, layer_keys);

/* ---- [probe NAME] ---- */

static int target_check(struct config_parser *p, const char *v, size_t n)
{
	const char *problem, *hint;
	struct target t;
	int r;

	if (!*v)
		return config_fail(p, "target is empty");
	r = target_parse(v, &t, &problem);
	if (r == -ENOMEM)
		return config_oom(p);
	if (r < 0)
		return config_fail(p, "target \"%s\" %s", v, problem);
	if (t.kind == TARGET_SYSCALL && syscalls_nr(t.symbol) < 0) {
		hint = syscalls_suggest(t.symbol);
		r = config_fail(p, "target \"%s\": no syscall \"%s\" on this architecture%s%s%s", v, t.symbol,
				hint ? ", did you mean \"syscall:" : "", hint ?: "", hint ? "\"?" : "");
	}
	target_done(&t);
	return r < 0 ? r : 0;
}

static int args_parse(struct config_parser *p, const struct config_key *k, void *base, const char *v,
		      bool append)
{
	uint64_t n;
	int r = values_parse_uint(v, UINT32_MAX, &n);

	if (r < 0 || n > SMBLAT_MAX_ARGS)
		return config_fail(p, "args = %s must be a number from 0 to %d", v, SMBLAT_MAX_ARGS);
	*(unsigned *)config_value(k, base) = (unsigned)n;
	return 0;
}

/* 0 to 6 entry arguments. */
static const struct config_type args_type = {
	.parse = args_parse,
	.print = config_print_uint,
	.examples = (const char *const[]) { "3", NULL },
};

/* A boolean, or a failure convention. */
static int errors_parse(struct config_parser *p, const struct config_key *k, void *base, const char *v,
			bool append)
{
	int e = config_errors_from_name(v);

	if (e < 0)
		return config_fail(p,
				   "invalid %s = %s: yes or no, or what a failed call returns: negative, "
				   "minus1 or null",
				   k->name, v);
	*(enum probe_errors *)config_value(k, base) = (enum probe_errors)e;
	return 0;
}

static void errors_print(FILE *f, const struct config_key *k, const void *base)
{
	enum probe_errors e = *(const enum probe_errors *)config_value_const(k, base);

	config_print_value(f, k->name, (unsigned)e < _ERRORS_MAX ? values_errors_names[e] : NULL);
}

static const struct config_type errors_type = {
	.parse = errors_parse,
	.print = errors_print,
	.examples = (const char *const[]) { "yes", "no", "negative", "minus1", "null", NULL },
};

static const struct config_key probe_keys[] = {
	CONFIG_KEY("target", struct probe_config, target, config_string, .check = target_check),
	CONFIG_KEY("threshold", struct probe_config, threshold_ns, config_threshold,
		   CONFIG_SET(struct probe_config, threshold_set)),
	CONFIG_KEY("kernel_stack", struct probe_config, kernel_stack, config_bool,
		   CONFIG_SET(struct probe_config, kernel_stack_set)),
	CONFIG_KEY("user_stack", struct probe_config, user_stack, config_bool,
		   CONFIG_SET(struct probe_config, user_stack_set)),
	CONFIG_KEY("args", struct probe_config, args, args_type),
	CONFIG_KEY("errors", struct probe_config, errors, errors_type),
	CONFIG_KEY("stacks", struct probe_config, stacks, config_bool),
};

const struct config_section config_probe_section = CONFIG_SECTION("probe", probe_keys);
