/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * smblat.conf: defaults, sections and keys, drop-ins and the dump. Single
 * values (durations, sizes, names, lists) are parsed in values.c; here they
 * get their FILE:LINE message and the limits of the key they are set to.
 *
 * inih does the ini syntax. The installed libinih is built without
 * line numbers in the handler and without a callback on new sections, so
 * the line reader we hand to ini_parse_stream() counts lines and notices
 * section headers itself: that is what gives every message its FILE:LINE,
 * lets us reject empty or repeated [probe NAME] sections and keeps section
 * names longer than inih's 50 byte buffer intact.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "config.h"
#include "syscalls.h"

#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL

#define RINGBUF_MIN 4096ULL
#define RINGBUF_MAX (1ULL << 30)
#define PID_MAX 4194304U             /* PID_MAX_LIMIT on 64-bit kernels */
#define COMM_MAX (SMBLAT_COMM_LEN - 1)
#define FILE_MAX (1U << 20)          /* a config file is a few KiB; refuse surprises */

#define WHITESPACE " \t\n\r\v\f"

/* Not strdup()ed so that config_init() cannot fail; config_free() knows it. */
static char default_user[] = "smblat";

/* Sections of the layers that have one; LAYER_FUNC is configured by [probe NAME]. */
static const char *const layer_sections[_LAYER_MAX] = {
	[LAYER_SMB] = "smb",
	[LAYER_SMB2] = "smb2",
	[LAYER_BLOCK] = "block",
	[LAYER_SMBD] = "smbd",
};

/* [smb] groups=; GROUP_NONE is not selectable: ops outside any group always count. */
static const char *const group_names[] = {
	[GROUP_INODE] = "inode",
	[GROUP_FILE] = "file",
	[GROUP_ADSPACE] = "adspace",
	[GROUP_SUPER] = "super",
};

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

static void freep(void *p) {
	free(*(void **) p);
}
#define _cleanup_free_ __attribute__((cleanup(freep)))

static void fclosep(FILE **f) {
	if (*f)
		fclose(*f);
}
#define _cleanup_fclose_ __attribute__((cleanup(fclosep)))

/* ---- the configuration ----------------------------------------------------- */

void config_init(struct config *c) {
	*c = (struct config) {
		.threshold_ns = 10 * NSEC_PER_MSEC,
		.kernel_stack = true,
		.user_stack = false,
		.ringbuf_bytes = 4ULL << 20,
		.user = default_user,
		.backend = CHOICE_AUTO,
		.journal = true,
		.priority_slow = LOG_WARNING,
		.priority_summary = LOG_INFO,
		.lost_interval_ns = 60 * NSEC_PER_SEC,
		.hist_interval_ns = 60 * NSEC_PER_SEC,
	};
	c->layer[LAYER_SMB].enabled = true;
	/* function probes are opt-in one [probe NAME] at a time */
	c->layer[LAYER_FUNC].enabled = true;
	for (size_t g = 0; g < ELEMENTSOF(c->group); g++)
		c->group[g] = true;
}

static void user_set(struct config *c, char *user) {
	if (c->user != default_user)
		free(c->user);
	c->user = user;
}

static void probe_done(struct probe_config *p) {
	free(p->label);
	free(p->target);
	free(p->file);
}

void config_free(struct config *c) {
	free(c->comm);
	free(c->cgroup);
	free(c->smbd_binary);
	user_set(c, NULL);
	for (size_t i = 0; i < _LAYER_MAX; i++) {
		values_strv_free(c->layer[i].include);
		values_strv_free(c->layer[i].exclude);
	}
	values_strv_free(c->block_disks);
	for (unsigned i = 0; i < c->n_probes; i++)
		probe_done(&c->probes[i]);
	free(c->probes);
	config_init(c);
}

uint64_t config_layer_threshold_ns(const struct config *c, enum layer l) {
	const struct layer_config *lc = &c->layer[l];

	return lc->threshold_set ? lc->threshold_ns : c->threshold_ns;
}

uint64_t config_probe_threshold_ns(const struct config *c, const struct probe_config *p) {
	return p->threshold_set ? p->threshold_ns : config_layer_threshold_ns(c, LAYER_FUNC);
}

/* ---- loading --------------------------------------------------------------- */

enum section_kind {
	SECTION_NONE,               /* before the first header */
	SECTION_AGENT,
	SECTION_JOURNAL,
	SECTION_HISTOGRAM,
	SECTION_SMB,                /* a layer with groups= */
	SECTION_LAYER,
	SECTION_BLOCK,              /* a layer with disks= and queue_time= */
	SECTION_SMBD,               /* a layer with binary= */
	SECTION_PROBE,
	_SECTION_MAX,
};

#define S(k) (1u << (k))

/* What outlives one file: the main file and its drop-ins form one load. */
struct load {
	struct config *c;
	unsigned first_new_probe;
	/* [probe NAME] that set their stacks; the others follow [agent] */
	bool kstack_set[CONFIG_MAX_PROBES];
	bool ustack_set[CONFIG_MAX_PROBES];
};

/* One file or string being parsed. */
struct loader {
	struct load *load;
	struct config *c;
	const char *name;
	const char *pos;            /* the unread rest of the text */
	unsigned line;
	enum section_kind kind;
	enum layer layer;
	unsigned probe;
	char section[256];          /* whole, inih's copy stops at 49 bytes */
	unsigned probe_line[CONFIG_MAX_PROBES]; /* where this file has [probe NAME], or 0 */
	/* mirrors inih: after a key, indented lines continue its value */
	bool key_in_section;
	bool continuation;
	const char *key;
	int error;                  /* negative errno of the first failure */
	unsigned error_line;
	char message[512];
};

static int loader_fail(struct loader *l, int error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Keeps the first failure only; it is printed once the parse stops. */
static int loader_fail(struct loader *l, int error, const char *fmt, ...) {
	va_list ap;

	if (l->error)
		return l->error;
	va_start(ap, fmt);
	vsnprintf(l->message, sizeof(l->message), fmt, ap);
	va_end(ap);
	l->error = error;
	l->error_line = l->line;
	return error;
}

static int loader_oom(struct loader *l) {
	return loader_fail(l, -ENOMEM, "%s", strerror(ENOMEM));
}

static int set_duration(struct loader *l, const char *v, uint64_t *ret) {
	int r = parse_duration_ns(v, ret);

	if (r == -ERANGE)
		return loader_fail(l, -EINVAL, "%s = %s is out of range", l->key, v);
	if (r < 0)
		return loader_fail(l, -EINVAL,
				   "invalid duration \"%s\" for %s, use e.g. 500us, 10ms or 1.5s (a bare number is in ms)",
				   v, l->key);
	return 0;
}

/* Empty: the threshold of the enclosing level applies. */
static int set_threshold(struct loader *l, const char *v, bool *set, uint64_t *ns) {
	int r;

	if (!*v) {
		*set = false;
		*ns = 0;
		return 0;
	}
	r = set_duration(l, v, ns);
	if (r < 0)
		return r;
	*set = true;
	return 0;
}

static int set_bool(struct loader *l, const char *v, bool *ret) {
	if (parse_bool(v, ret) < 0)
		return loader_fail(l, -EINVAL,
				   "invalid boolean \"%s\" for %s, use yes/no, true/false, on/off or 1/0",
				   v, l->key);
	return 0;
}

static int set_uint(struct loader *l, const char *v, uint64_t max, uint64_t *ret) {
	int r = values_parse_uint(v, max, ret);

	if (r == -ERANGE)
		return loader_fail(l, -EINVAL, "%s = %s is out of range, at most %llu",
				   l->key, v, (unsigned long long) max);
	if (r < 0)
		return loader_fail(l, -EINVAL, "invalid number \"%s\" for %s", v, l->key);
	return 0;
}

static int set_u32(struct loader *l, const char *v, uint32_t *ret) {
	uint64_t u;
	int r = set_uint(l, v, UINT32_MAX, &u);

	if (r >= 0)
		*ret = (uint32_t) u;
	return r;
}

/* Empty: unset. */
static int set_string(struct loader *l, const char *v, char **ret) {
	char *copy = NULL;

	if (values_has_control(v))
		return loader_fail(l, -EINVAL, "%s contains control characters", l->key);
	if (*v) {
		copy = strdup(v);
		if (!copy)
			return loader_oom(l);
	}
	free(*ret);
	*ret = copy;
	return 0;
}

static int set_enum(struct loader *l, const char *v, const char *const *names, size_t n,
		    int *ret) {
	int i = values_name_index(v, names, n);
	const char *hint;

	if (i >= 0) {
		*ret = i;
		return 0;
	}
	hint = values_suggest(v, names, n);
	if (hint)
		return loader_fail(l, -EINVAL, "unknown %s \"%s\", did you mean \"%s\"?",
				   l->key, v, hint);
	return loader_fail(l, -EINVAL, "unknown %s \"%s\"", l->key, v);
}

/* FUNCTION names; a new assignment replaces the list, indented lines extend it. */
static int set_functions(struct loader *l, const char *v, bool append, char ***ret) {
	char buf[SMBLAT_NAME_LEN + 1], **list = NULL;
	const char *p = v, *e;

	if (append) {
		list = *ret;
		*ret = NULL;
	}
	while ((e = values_list_next(&p, buf, sizeof(buf)))) {
		if (!values_label_valid(e)) {
			values_strv_free(list);
			return loader_fail(l, -EINVAL,
					   "invalid function name \"%s\" in %s, expected up to %d of A-Z a-z 0-9 _ . : -",
					   e, l->key, VALUES_LABEL_MAX);
		}
		if (values_strv_contains(list, e))
			continue;
		if (values_strv_push(&list, e) < 0) {
			values_strv_free(list);
			return loader_oom(l);
		}
	}
	values_strv_free(*ret);
	*ret = list;
	return 0;
}

/* [agent] */

static int agent_threshold(struct loader *l, const char *v, bool append) {
	return set_duration(l, v, &l->c->threshold_ns);
}

static int agent_pid(struct loader *l, const char *v, bool append) {
	uint64_t pid;
	int r = set_uint(l, v, PID_MAX, &pid);

	if (r >= 0)
		l->c->pid = (uint32_t) pid;
	return r;
}

static int agent_comm(struct loader *l, const char *v, bool append) {
	if (strlen(v) > COMM_MAX)
		return loader_fail(l, -EINVAL,
				   "comm \"%s\" is longer than %d characters and would never match",
				   v, COMM_MAX);
	return set_string(l, v, &l->c->comm);
}

static int agent_cgroup(struct loader *l, const char *v, bool append) {
	if (*v && v[0] != '/')
		return loader_fail(l, -EINVAL, "cgroup \"%s\" is not an absolute path", v);
	return set_string(l, v, &l->c->cgroup);
}

static int agent_kernel_stack(struct loader *l, const char *v, bool append) {
	return set_bool(l, v, &l->c->kernel_stack);
}

static int agent_user_stack(struct loader *l, const char *v, bool append) {
	return set_bool(l, v, &l->c->user_stack);
}

static int agent_ringbuf_size(struct loader *l, const char *v, bool append) {
	uint64_t b;
	char buf[32];

	if (parse_size(v, &b) < 0)
		return loader_fail(l, -EINVAL, "invalid size \"%s\" for ringbuf_size, use e.g. 4M or 256K", v);
	if (b < RINGBUF_MIN || b > RINGBUF_MAX || (b & (b - 1)) != 0)
		return loader_fail(l, -EINVAL,
				   "ringbuf_size = %s must be a power of two between 4K and 1G (e.g. %s)",
				   v, values_format_size(buf, sizeof(buf),
							 b < RINGBUF_MIN ? RINGBUF_MIN :
							 b > RINGBUF_MAX ? RINGBUF_MAX :
							 1ULL << (63 - __builtin_clzll(b))));
	l->c->ringbuf_bytes = b;
	return 0;
}

static int agent_rate_limit(struct loader *l, const char *v, bool append) {
	return set_u32(l, v, &l->c->rate_limit);
}

static int agent_rate_burst(struct loader *l, const char *v, bool append) {
	return set_u32(l, v, &l->c->rate_burst);
}

static int agent_user(struct loader *l, const char *v, bool append) {
	char *copy = NULL;

	if (*v && !values_user_name_valid(v))
		return loader_fail(l, -EINVAL, "invalid user name \"%s\"", v);
	if (*v) {
		copy = strdup(v);
		if (!copy)
			return loader_oom(l);
	}
	user_set(l->c, copy);
	return 0;
}

static int agent_backend(struct loader *l, const char *v, bool append) {
	int b = CHOICE_AUTO, r;

	r = set_enum(l, v, values_backend_names, ELEMENTSOF(values_backend_names), &b);
	if (r >= 0)
		l->c->backend = (enum backend_choice) b;
	return r;
}

/* [journal] */

static int journal_enabled(struct loader *l, const char *v, bool append) {
	return set_bool(l, v, &l->c->journal);
}

static int set_priority(struct loader *l, const char *v, int *ret) {
	int p = config_priority_from_name(v);
	const char *hint;

	if (p >= 0) {
		*ret = p;
		return 0;
	}
	hint = values_suggest(v, values_priority_names, ELEMENTSOF(values_priority_names));
	return loader_fail(l, -EINVAL, "invalid syslog priority \"%s\" for %s%s%s%s, use a name "
			   "(emerg alert crit err warning notice info debug) or 0-7",
			   v, l->key, hint ? ", did you mean \"" : "", hint ?: "", hint ? "\"?" : "");
}

static int journal_priority_slow(struct loader *l, const char *v, bool append) {
	return set_priority(l, v, &l->c->priority_slow);
}

static int journal_priority_summary(struct loader *l, const char *v, bool append) {
	return set_priority(l, v, &l->c->priority_summary);
}

static int journal_lost_interval(struct loader *l, const char *v, bool append) {
	uint64_t ns;
	int r = set_duration(l, v, &ns);

	if (r < 0)
		return r;
	/* losses must keep being reported, and not more than once a second */
	if (ns < NSEC_PER_SEC)
		return loader_fail(l, -EINVAL, "lost_interval = %s is too short, at least 1s", v);
	l->c->lost_interval_ns = ns;
	return 0;
}

/* [histogram] */

static int histogram_interval(struct loader *l, const char *v, bool append) {
	uint64_t ns;
	int r = set_duration(l, v, &ns);

	if (r < 0)
		return r;
	if (ns != 0 && ns < NSEC_PER_SEC)
		return loader_fail(l, -EINVAL, "interval = %s is too short: 0 (off) or at least 1s", v);
	l->c->hist_interval_ns = ns;
	return 0;
}

/* [smb] [smb2] [block] [smbd] */

static struct layer_config *loader_layer(struct loader *l) {
	return &l->c->layer[l->layer];
}

static int layer_enabled(struct loader *l, const char *v, bool append) {
	return set_bool(l, v, &loader_layer(l)->enabled);
}

static int layer_threshold(struct loader *l, const char *v, bool append) {
	struct layer_config *lc = loader_layer(l);

	return set_threshold(l, v, &lc->threshold_set, &lc->threshold_ns);
}

static int layer_include(struct loader *l, const char *v, bool append) {
	return set_functions(l, v, append, &loader_layer(l)->include);
}

static int layer_exclude(struct loader *l, const char *v, bool append) {
	return set_functions(l, v, append, &loader_layer(l)->exclude);
}

/* Kernel disk names: sda, nvme0n1, dm-0, cciss!c0d0 (sysfs spells '/' as '!'). */
static bool disk_name_valid(const char *s) {
	size_t n = strlen(s);

	return n > 0 && n < BLOCK_DISK_LEN && !strchr(s, '/') && s[0] != '.' &&
	       !values_has_control(s);
}

static int block_disks(struct loader *l, const char *v, bool append) {
	char buf[BLOCK_DISK_LEN + 1], **list = NULL;
	const char *p = v, *e;

	if (append) {
		list = l->c->block_disks;
		l->c->block_disks = NULL;
	}
	while ((e = values_list_next(&p, buf, sizeof(buf)))) {
		size_t n = 0;

		if (!disk_name_valid(e)) {
			values_strv_free(list);
			return loader_fail(l, -EINVAL, "invalid disk name \"%s\" in disks, expected a name "
					   "of /sys/class/block such as sda or nvme0n1", e);
		}
		if (values_strv_contains(list, e))
			continue;
		while (list && list[n])
			n++;
		/* BPF compares against a fixed array of dev_t */
		if (n == BLOCK_MAX_DISKS) {
			values_strv_free(list);
			return loader_fail(l, -EINVAL, "disks lists more than %d disks", BLOCK_MAX_DISKS);
		}
		if (values_strv_push(&list, e) < 0) {
			values_strv_free(list);
			return loader_oom(l);
		}
	}
	values_strv_free(l->c->block_disks);
	l->c->block_disks = list;
	return 0;
}

static int block_queue_time(struct loader *l, const char *v, bool append) {
	return set_bool(l, v, &l->c->block_queue_time);
}

/* [smbd] binary=: the smbd whose libraries are probed. */
static int smbd_binary(struct loader *l, const char *v, bool append) {
	if (!*v) {          /* back to the default: smbd found on PATH */
		free(l->c->smbd_binary);
		l->c->smbd_binary = NULL;
		return 0;
	}
	if (v[0] != '/' || values_has_control(v))
		return loader_fail(l, -EINVAL, "binary = %s must be an absolute path", v);
	return set_string(l, v, &l->c->smbd_binary);
}

static int layer_errors(struct loader *l, const char *v, bool append) {
	if (l->layer != LAYER_SMB2)
		return loader_fail(l, -EINVAL, "errors = is a key of [smb2] only");
	return set_bool(l, v, &loader_layer(l)->errors);
}

static int smb_groups(struct loader *l, const char *v, bool append) {
	bool group[ELEMENTSOF(l->c->group)];
	char buf[32];
	const char *p = v, *e;

	memcpy(group, l->c->group, sizeof(group));
	if (!append)
		for (size_t g = GROUP_NONE + 1; g < ELEMENTSOF(group); g++)
			group[g] = false;
	while ((e = values_list_next(&p, buf, sizeof(buf)))) {
		int g = values_name_index(e, group_names, ELEMENTSOF(group_names));
		const char *hint;

		if (g > GROUP_NONE) {
			group[g] = true;
			continue;
		}
		hint = values_suggest(e, group_names, ELEMENTSOF(group_names));
		return loader_fail(l, -EINVAL, "unknown group \"%s\"%s%s%s, use inode, file, adspace or super",
				   e, hint ? ", did you mean \"" : "", hint ?: "", hint ? "\"?" : "");
	}
	memcpy(l->c->group, group, sizeof(group));
	return 0;
}

/* [probe NAME] */

static struct probe_config *loader_probe(struct loader *l) {
	return &l->c->probes[l->probe];
}

static int probe_target(struct loader *l, const char *v, bool append) {
	const char *problem;

	if (!*v)
		return loader_fail(l, -EINVAL, "target is empty");
	problem = values_target_problem(v);
	if (problem)
		return loader_fail(l, -EINVAL, "target \"%s\" %s", v, problem);
	if (strncmp(v, "syscall:", 8) == 0 && syscalls_nr(v + 8) < 0) {
		const char *hint = syscalls_suggest(v + 8);

		return loader_fail(l, -EINVAL, "target \"%s\": no syscall \"%s\" on this architecture%s%s%s",
				   v, v + 8, hint ? ", did you mean \"syscall:" : "", hint ?: "",
				   hint ? "\"?" : "");
	}
	return set_string(l, v, &loader_probe(l)->target);
}

static int probe_threshold(struct loader *l, const char *v, bool append) {
	struct probe_config *p = loader_probe(l);

	return set_threshold(l, v, &p->threshold_set, &p->threshold_ns);
}

static int probe_kernel_stack(struct loader *l, const char *v, bool append) {
	l->load->kstack_set[l->probe] = true;
	return set_bool(l, v, &loader_probe(l)->kernel_stack);
}

static int probe_user_stack(struct loader *l, const char *v, bool append) {
	l->load->ustack_set[l->probe] = true;
	return set_bool(l, v, &loader_probe(l)->user_stack);
}

static int probe_args(struct loader *l, const char *v, bool append) {
	uint64_t n;
	int r = values_parse_uint(v, UINT32_MAX, &n);

	if (r < 0 || n > SMBLAT_MAX_ARGS)
		return loader_fail(l, -EINVAL, "args = %s must be a number from 0 to %d", v, SMBLAT_MAX_ARGS);
	loader_probe(l)->args = (unsigned) n;
	return 0;
}

static int probe_errors(struct loader *l, const char *v, bool append) {
	return set_bool(l, v, &loader_probe(l)->errors);
}

static const struct key {
	const char *name;
	unsigned sections;
	bool list;                  /* may go on over indented lines */
	int (*set)(struct loader *l, const char *value, bool append);
} keys[] = {
	{ "threshold", S(SECTION_AGENT), false, agent_threshold },
	{ "pid", S(SECTION_AGENT), false, agent_pid },
	{ "comm", S(SECTION_AGENT), false, agent_comm },
	{ "cgroup", S(SECTION_AGENT), false, agent_cgroup },
	{ "kernel_stack", S(SECTION_AGENT), false, agent_kernel_stack },
	{ "user_stack", S(SECTION_AGENT), false, agent_user_stack },
	{ "ringbuf_size", S(SECTION_AGENT), false, agent_ringbuf_size },
	{ "rate_limit", S(SECTION_AGENT), false, agent_rate_limit },
	{ "rate_burst", S(SECTION_AGENT), false, agent_rate_burst },
	{ "user", S(SECTION_AGENT), false, agent_user },
	{ "backend", S(SECTION_AGENT), false, agent_backend },
	{ "enabled", S(SECTION_JOURNAL), false, journal_enabled },
	{ "priority_slow", S(SECTION_JOURNAL), false, journal_priority_slow },
	{ "priority_summary", S(SECTION_JOURNAL), false, journal_priority_summary },
	{ "lost_interval", S(SECTION_JOURNAL), false, journal_lost_interval },
	{ "interval", S(SECTION_HISTOGRAM), false, histogram_interval },
	{ "enabled", S(SECTION_SMB) | S(SECTION_LAYER) | S(SECTION_BLOCK) | S(SECTION_SMBD), false, layer_enabled },
	{ "threshold", S(SECTION_SMB) | S(SECTION_LAYER) | S(SECTION_BLOCK) | S(SECTION_SMBD), false, layer_threshold },
	{ "include", S(SECTION_SMB) | S(SECTION_LAYER) | S(SECTION_BLOCK) | S(SECTION_SMBD), true, layer_include },
	{ "exclude", S(SECTION_SMB) | S(SECTION_LAYER) | S(SECTION_BLOCK) | S(SECTION_SMBD), true, layer_exclude },
	{ "errors", S(SECTION_LAYER), false, layer_errors },
	{ "groups", S(SECTION_SMB), true, smb_groups },
	{ "disks", S(SECTION_BLOCK), true, block_disks },
	{ "queue_time", S(SECTION_BLOCK), false, block_queue_time },
	{ "binary", S(SECTION_SMBD), false, smbd_binary },
	{ "target", S(SECTION_PROBE), false, probe_target },
	{ "threshold", S(SECTION_PROBE), false, probe_threshold },
	{ "kernel_stack", S(SECTION_PROBE), false, probe_kernel_stack },
	{ "user_stack", S(SECTION_PROBE), false, probe_user_stack },
	{ "args", S(SECTION_PROBE), false, probe_args },
	{ "errors", S(SECTION_PROBE), false, probe_errors },
};

static const struct key *key_find(const char *name, unsigned sections) {
	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if ((keys[i].sections & sections) && strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* "[journal], [smb], [smb2], [block], [smbd]": where a key misplaced by the user goes. */
static const char *key_homes(const char *name, char *buf, size_t size) {
	static const char *const titles[_SECTION_MAX] = {
		[SECTION_AGENT] = "[agent]",
		[SECTION_JOURNAL] = "[journal]",
		[SECTION_HISTOGRAM] = "[histogram]",
		[SECTION_SMB] = "[smb]",
		[SECTION_LAYER] = "[smb2]",
		[SECTION_BLOCK] = "[block]",
		[SECTION_SMBD] = "[smbd]",
		[SECTION_PROBE] = "[probe NAME]",
	};
	unsigned sections = 0;
	size_t n = 0;

	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if (strcmp(keys[i].name, name) == 0)
			sections |= keys[i].sections;
	if (!sections)
		return NULL;
	buf[0] = '\0';
	for (unsigned k = 0; k < _SECTION_MAX; k++)
		if ((sections & S(k)) && titles[k] && n < size)
			n += (size_t) snprintf(buf + n, size - n, "%s%s", n ? ", " : "", titles[k]);
	return buf;
}

static int key_unknown(struct loader *l, const char *name) {
	const char *names[ELEMENTSOF(keys)] = {};
	const char *hint, *homes;
	char buf[128];

	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if (keys[i].sections & S(l->kind))
			names[i] = keys[i].name;
	/* an exact key of another section says more than a near one of this */
	homes = key_homes(name, buf, sizeof(buf));
	if (homes)
		return loader_fail(l, -EINVAL, "unknown key \"%s\" in [%s], it belongs in %s",
				   name, l->section, homes);
	hint = values_suggest(name, names, ELEMENTSOF(names));
	if (hint)
		return loader_fail(l, -EINVAL, "unknown key \"%s\" in [%s], did you mean \"%s\"?",
				   name, l->section, hint);
	return loader_fail(l, -EINVAL, "unknown key \"%s\" in [%s]", name, l->section);
}

/* Older inih leaves " ; comment" on continuation lines; cut it as on the first line. */
static int key_continue(struct loader *l, const struct key *k, const char *value) {
	char buf[256];
	size_t n;

	snprintf(buf, sizeof(buf), "%s", value);
	for (n = 1; buf[0] && buf[n]; n++)
		if (buf[n] == ';' && isspace((unsigned char) buf[n - 1])) {
			buf[n] = '\0';
			break;
		}
	return k->set(l, buf, true);
}

static int loader_key(struct loader *l, const char *name, const char *value) {
	const struct key *k;
	const char *homes;
	char buf[128];

	if (l->kind == SECTION_NONE) {
		homes = key_homes(name, buf, sizeof(buf));
		if (homes)
			return loader_fail(l, -EINVAL, "key \"%s\" comes before any section, it belongs in %s",
					   name, homes);
		return loader_fail(l, -EINVAL, "key \"%s\" comes before any section", name);
	}
	k = key_find(name, S(l->kind));
	if (!k)
		return key_unknown(l, name);
	if (l->continuation && !k->list)
		return loader_fail(l, -EINVAL,
				   "indented line continues the value of \"%s\", which takes one value "
				   "(do not indent keys)", name);
	l->key = k->name;
	if (l->continuation)
		return key_continue(l, k, value);
	return k->set(l, value, false);
}

static int ini_handler_cb(void *userdata, const char *section, const char *name, const char *value) {
	struct loader *l = userdata;

	if (l->error)
		return 0;
	l->key_in_section = true;
	return loader_key(l, name, value) >= 0;
}

static int probe_find(const struct config *c, const char *label) {
	for (unsigned i = 0; i < c->n_probes; i++)
		if (strcmp(c->probes[i].label, label) == 0)
			return (int) i;
	return -ENOENT;
}

static int probe_new(struct loader *l, const char *label) {
	struct config *c = l->c;
	struct probe_config *n;

	if (c->n_probes >= CONFIG_MAX_PROBES)
		return loader_fail(l, -EINVAL, "too many [probe] sections, at most %d", CONFIG_MAX_PROBES);
	n = realloc(c->probes, (c->n_probes + 1) * sizeof(*n));
	if (!n)
		return loader_oom(l);
	c->probes = n;
	n = &c->probes[c->n_probes];
	*n = (struct probe_config) {
		.label = strdup(label),
		.file = strdup(l->name),
		.line = l->line,
		/* until the load ends; then [agent] stacks apply unless set here */
		.kernel_stack = c->kernel_stack,
		.user_stack = c->user_stack,
	};
	if (!n->label || !n->file) {
		probe_done(n);
		return loader_oom(l);
	}
	l->load->kstack_set[c->n_probes] = false;
	l->load->ustack_set[c->n_probes] = false;
	return (int) c->n_probes++;
}

/* [probe NAME]: a drop-in may amend a probe of an earlier file, not repeat one. */
static int section_probe(struct loader *l, const char *label) {
	int i;

	if (!*label)
		return loader_fail(l, -EINVAL, "[probe] needs a name: [probe NAME]");
	if (!values_label_valid(label))
		return loader_fail(l, -EINVAL,
				   "invalid probe name \"%s\", expected up to %d of A-Z a-z 0-9 _ . : -",
				   label, VALUES_LABEL_MAX);
	i = probe_find(l->c, label);
	if (i >= 0 && l->probe_line[i])
		return loader_fail(l, -EINVAL, "duplicate section [probe %s], first at line %u",
				   label, l->probe_line[i]);
	if (i < 0)
		i = probe_new(l, label);
	if (i < 0)
		return i;
	l->probe_line[i] = l->line;
	l->probe = (unsigned) i;
	l->kind = SECTION_PROBE;
	return 0;
}

static int section_enter(struct loader *l, char *name) {
	static const char *const fixed[] = {
		"agent", "journal", "histogram", "smb", "smb2", "block", "smbd", "probe",
	};
	const char *hint;
	size_t n;
	int i;

	/* inih keeps blanks inside the brackets; [ agent ] means [agent] */
	name += strspn(name, WHITESPACE);
	n = strlen(name);
	while (n > 0 && isspace((unsigned char) name[n - 1]))
		name[--n] = '\0';
	snprintf(l->section, sizeof(l->section), "%s", name);

	if (strncmp(name, "probe", 5) == 0 && (!name[5] || isspace((unsigned char) name[5])))
		return section_probe(l, name + 5 + strspn(name + 5, WHITESPACE));
	if (strcmp(name, "agent") == 0)
		l->kind = SECTION_AGENT;
	else if (strcmp(name, "journal") == 0)
		l->kind = SECTION_JOURNAL;
	else if (strcmp(name, "histogram") == 0)
		l->kind = SECTION_HISTOGRAM;
	else if ((i = values_name_index(name, layer_sections, ELEMENTSOF(layer_sections))) >= 0) {
		l->layer = (enum layer) i;
		l->kind = i == LAYER_SMB ? SECTION_SMB : i == LAYER_BLOCK ? SECTION_BLOCK :
			  i == LAYER_SMBD ? SECTION_SMBD : SECTION_LAYER;
	} else {
		n = strcspn(name, WHITESPACE);
		if (name[n]) {
			/* [prbe foo] */
			char word[16];

			if (n < sizeof(word)) {
				memcpy(word, name, n);
				word[n] = '\0';
				if (values_distance(word, "probe") <= VALUES_SUGGEST_DISTANCE)
					return loader_fail(l, -EINVAL, "unknown section [%s], did you mean [probe%s]?",
							   name, name + n);
			}
			return loader_fail(l, -EINVAL, "unknown section [%s]", name);
		}
		hint = values_suggest(name, fixed, ELEMENTSOF(fixed));
		if (hint && strcmp(hint, "probe") == 0)
			return loader_fail(l, -EINVAL, "unknown section [%s], did you mean [probe NAME]?", name);
		if (hint)
			return loader_fail(l, -EINVAL, "unknown section [%s], did you mean [%s]?", name, hint);
		return loader_fail(l, -EINVAL, "unknown section [%s]", name);
	}
	return 0;
}

/*
 * Sees each line before inih does: tells key lines that continue a value
 * from the others and enters sections, with the same rules as inih
 * (comments first, then continuations, then "[...]").
 */
static int loader_classify(struct loader *l, char *line) {
	char *s = line + strspn(line, WHITESPACE), *e, *rest;
	bool was_space = false;

	l->continuation = false;
	if (!*s || *s == ';' || *s == '#')
		return 0;
	if (l->key_in_section && s > line) {
		l->continuation = true;
		return 0;
	}
	if (*s != '[')
		return 0;
	for (e = s + 1; *e && *e != ']' && !(was_space && *e == ';'); e++)
		was_space = isspace((unsigned char) *e);
	if (*e != ']')
		return 0;   /* inih reports the missing ']' */
	rest = e + 1 + strspn(e + 1, WHITESPACE);
	if (*rest && *rest != ';' && *rest != '#')
		return loader_fail(l, -EINVAL, "unexpected text after the section header: \"%.*s\"",
				   (int) strcspn(rest, "\r\n"), rest);

	l->key_in_section = false;
	/* a copy: inih still has to see the line as it is */
	char name[256];
	snprintf(name, sizeof(name), "%.*s", (int) (e - s - 1), s + 1);
	return section_enter(l, name);
}

/* An fgets() for ini_parse_stream() over our buffer, one line per call. */
static char *loader_read(char *buf, int size, void *userdata) {
	struct loader *l = userdata;
	const char *eol;
	size_t n;

	if (l->error || !*l->pos)
		return NULL;
	l->line++;
	eol = strchrnul(l->pos, '\n');
	n = (size_t) (eol - l->pos);
	/* inih needs room for "\r\n\0" past the text */
	if (size < 4 || n > (size_t) size - 3) {
		loader_fail(l, -EINVAL, "line longer than %d characters; long lists can go on over indented lines",
			    size < 4 ? 0 : size - 3);
		return NULL;
	}
	memcpy(buf, l->pos, n);
	if (*eol)
		buf[n++] = '\n';
	buf[n] = '\0';
	l->pos = *eol ? eol + 1 : eol;

	/* inih only skips a BOM when it is built to; do it ourselves */
	if (l->line == 1 && strncmp(buf, "\xef\xbb\xbf", 3) == 0)
		memmove(buf, buf + 3, n - 3 + 1);

	if (loader_classify(l, buf) < 0)
		return NULL;
	return buf;
}

static int loader_report(const struct loader *l) {
	fprintf(stderr, "%s:%u: %s\n", l->name, l->error_line, l->message);
	return l->error;
}

static int load_text(struct load *ld, const char *name, const char *text) {
	struct loader *l;
	int r;

	l = calloc(1, sizeof(*l));
	if (!l) {
		fprintf(stderr, "%s: %s\n", name, strerror(ENOMEM));
		return -ENOMEM;
	}
	*l = (struct loader) {
		.load = ld,
		.c = ld->c,
		.name = name,
		.pos = text,
		.kind = SECTION_NONE,
	};
	r = ini_parse_stream(loader_read, l, ini_handler_cb, l);
	if (l->error && (r <= 0 || l->error_line <= (unsigned) r))
		r = loader_report(l);
	else if (r > 0) {
		fprintf(stderr, "%s:%d: syntax error, expected [section] or key = value\n", name, r);
		r = -EINVAL;
	} else if (r < 0) {
		fprintf(stderr, "%s: %s\n", name, strerror(ENOMEM));
		r = -ENOMEM;
	}
	free(l);
	return r;
}

/* Reads all of f; NUL bytes would end the text early without a word. */
static int read_text(FILE *f, const char *name, char **ret) {
	_cleanup_free_ char *buf = NULL;
	size_t n = 0, size = 0;

	for (;;) {
		size_t k;

		if (size - n < 4096) {
			char *nb;

			if (size >= FILE_MAX) {
				fprintf(stderr, "%s: larger than %u bytes, not a configuration file\n",
					name, FILE_MAX);
				return -EFBIG;
			}
			size = size ? size * 2 : 8192;
			nb = realloc(buf, size + 1);
			if (!nb) {
				fprintf(stderr, "%s: %s\n", name, strerror(ENOMEM));
				return -ENOMEM;
			}
			buf = nb;
		}
		k = fread(buf + n, 1, size - n, f);
		n += k;
		if (k == 0)
			break;
	}
	if (ferror(f)) {
		int r = errno ?: EIO;

		fprintf(stderr, "%s: %s\n", name, strerror(r));
		return -r;
	}
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		unsigned line = 1;

		for (const char *p = buf; *p; p++)
			line += *p == '\n';
		fprintf(stderr, "%s:%u: NUL byte, not a text file\n", name, line);
		return -EINVAL;
	}
	*ret = buf;
	buf = NULL;
	return 0;
}

/* 0 when loaded, 1 when missing and missing_ok. */
static int load_file(struct load *ld, const char *path, bool missing_ok) {
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *text = NULL;
	struct stat st;
	int r;

	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		if (r == -ENOENT && missing_ok)
			return 1;
		fprintf(stderr, "%s: %m\n", path);
		return r;
	}
	if (fstat(fileno(f), &st) < 0) {
		r = -errno;
		fprintf(stderr, "%s: %m\n", path);
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: %s\n", path, strerror(EISDIR));
		return -EISDIR;
	}
	r = read_text(f, path, &text);
	if (r < 0)
		return r;
	return load_text(ld, path, text);
}

static int dropin_filter(const struct dirent *de) {
	size_t n = strlen(de->d_name);

	/* dot files are editor and package manager leftovers */
	return de->d_name[0] != '.' && n > 5 && strcmp(de->d_name + n - 5, ".conf") == 0;
}

/* Byte order, not the locale's: the order of drop-ins must not depend on LANG. */
static int dropin_compare(const struct dirent **a, const struct dirent **b) {
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int load_dropins(struct load *ld, const char *path) {
	_cleanup_free_ char *dir = NULL;
	struct dirent **list = NULL;
	int n, r = 0;

	if (asprintf(&dir, "%s.d", path) < 0) {
		dir = NULL;
		fprintf(stderr, "%s: %s\n", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	n = scandir(dir, &list, dropin_filter, dropin_compare);
	if (n < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		r = -errno;
		fprintf(stderr, "%s: %m\n", dir);
		return r;
	}
	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *p = NULL;
		struct stat st;

		if (r >= 0 && asprintf(&p, "%s/%s", dir, list[i]->d_name) < 0) {
			p = NULL;
			fprintf(stderr, "%s: %s\n", dir, strerror(ENOMEM));
			r = -ENOMEM;
		}
		/* a directory that happens to end in .conf is not a drop-in */
		if (r >= 0 && !(stat(p, &st) == 0 && S_ISDIR(st.st_mode)))
			r = load_file(ld, p, false);
		free(list[i]);
	}
	free(list);
	return r < 0 ? r : 0;
}

static void load_start(struct load *ld, struct config *c) {
	ld->c = c;
	ld->first_new_probe = c->n_probes;
}

static int load_finish(struct load *ld) {
	struct config *c = ld->c;

	for (unsigned i = 0; i < c->n_probes; i++) {
		struct probe_config *p = &c->probes[i];

		if (!p->target) {
			fprintf(stderr, "%s:%u: [probe %s] has no target, e.g. target = vfs_read\n",
				p->file, p->line, p->label);
			return -EINVAL;
		}
		if (i < ld->first_new_probe)
			continue;
		if (!ld->kstack_set[i])
			p->kernel_stack = c->kernel_stack;
		if (!ld->ustack_set[i])
			p->user_stack = c->user_stack;
	}
	return 0;
}

int config_load(struct config *c, const char *path, bool missing_ok) {
	_cleanup_free_ struct load *ld = NULL;
	int r;

	ld = calloc(1, sizeof(*ld));
	if (!ld) {
		fprintf(stderr, "%s: %s\n", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	load_start(ld, c);
	r = load_file(ld, path, missing_ok);
	if (r < 0)
		return r;
	/* drop-ins apply even without the main file, as systemd's do */
	r = load_dropins(ld, path);
	if (r < 0)
		return r;
	return load_finish(ld);
}

int config_load_string(struct config *c, const char *name, const char *text) {
	_cleanup_free_ struct load *ld = NULL;
	int r;

	if (!text)
		return -EINVAL;
	if (!name)
		name = "(string)";
	ld = calloc(1, sizeof(*ld));
	if (!ld) {
		fprintf(stderr, "%s: %s\n", name, strerror(ENOMEM));
		return -ENOMEM;
	}
	load_start(ld, c);
	r = load_text(ld, name, text);
	if (r < 0)
		return r;
	return load_finish(ld);
}

/* ---- dump ------------------------------------------------------------------ */

static void dump_duration(FILE *f, const char *key, uint64_t ns) {
	char buf[32];

	fprintf(f, "%s = %s\n", key, format_duration_ns(buf, sizeof(buf), ns));
}

static void dump_threshold(FILE *f, bool set, uint64_t ns) {
	if (set)
		dump_duration(f, "threshold", ns);
	else
		fputs("threshold =\n", f);
}

static void dump_bool(FILE *f, const char *key, bool b) {
	fprintf(f, "%s = %s\n", key, b ? "yes" : "no");
}

static void dump_string(FILE *f, const char *key, const char *s) {
	/* " ;" starts an inline comment: a value beginning with ';' follows '=' directly */
	fprintf(f, "%s =%s%s\n", key, s && *s && *s != ';' ? " " : "", s ?: "");
}

/* Long lists go on over indented lines: the loader takes lines of limited length. */
static void dump_list(FILE *f, const char *key, char **l) {
	int col = fprintf(f, "%s =", key);

	for (size_t i = 0; l && l[i]; i++) {
		if (i > 0 && col + 1 + strlen(l[i]) > 78)
			col = fprintf(f, "\n ");
		col += fprintf(f, " %s", l[i]);
	}
	fputc('\n', f);
}

void config_dump(const struct config *c, FILE *f) {
	char buf[32];

	fputs("# smblat effective configuration\n\n[agent]\n", f);
	dump_duration(f, "threshold", c->threshold_ns);
	fprintf(f, "pid = %u\n", c->pid);
	dump_string(f, "comm", c->comm);
	dump_string(f, "cgroup", c->cgroup);
	dump_bool(f, "kernel_stack", c->kernel_stack);
	dump_bool(f, "user_stack", c->user_stack);
	fprintf(f, "ringbuf_size = %s\n", values_format_size(buf, sizeof(buf), c->ringbuf_bytes));
	fprintf(f, "rate_limit = %u\n", c->rate_limit);
	fprintf(f, "rate_burst = %u\n", c->rate_burst);
	dump_string(f, "user", c->user);
	dump_string(f, "backend", config_backend_name(c->backend));

	fputs("\n[journal]\n", f);
	dump_bool(f, "enabled", c->journal);
	dump_string(f, "priority_slow", config_priority_name(c->priority_slow));
	dump_string(f, "priority_summary", config_priority_name(c->priority_summary));
	dump_duration(f, "lost_interval", c->lost_interval_ns);

	fputs("\n[histogram]\n", f);
	dump_duration(f, "interval", c->hist_interval_ns);

	for (size_t i = 0; i < _LAYER_MAX; i++) {
		const struct layer_config *lc = &c->layer[i];

		if (!layer_sections[i])
			continue;
		fprintf(f, "\n[%s]\n", layer_sections[i]);
		dump_bool(f, "enabled", lc->enabled);
		dump_threshold(f, lc->threshold_set, lc->threshold_ns);
		dump_list(f, "include", lc->include);
		dump_list(f, "exclude", lc->exclude);
		if (i == LAYER_SMB2)
			dump_bool(f, "errors", lc->errors);
		if (i == LAYER_SMB) {
			fputs("groups =", f);
			for (size_t g = GROUP_NONE + 1; g < ELEMENTSOF(group_names); g++)
				if (c->group[g])
					fprintf(f, " %s", group_names[g]);
			fputc('\n', f);
		}
		if (i == LAYER_BLOCK) {
			dump_list(f, "disks", c->block_disks);
			dump_bool(f, "queue_time", c->block_queue_time);
		}
		if (i == LAYER_SMBD)
			dump_string(f, "binary", c->smbd_binary);
	}

	for (unsigned i = 0; i < c->n_probes; i++) {
		const struct probe_config *p = &c->probes[i];

		fprintf(f, "\n[probe %s]\n", p->label);
		dump_string(f, "target", p->target);
		dump_threshold(f, p->threshold_set, p->threshold_ns);
		dump_bool(f, "kernel_stack", p->kernel_stack);
		dump_bool(f, "user_stack", p->user_stack);
		fprintf(f, "args = %u\n", p->args);
		dump_bool(f, "errors", p->errors);
	}
}
