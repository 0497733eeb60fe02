// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The keys of smblat.conf: one setter per key, with the key's limits and
 * its FILE:LINE message, and the table that says which section has which.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#include "config/config-int.h"
#include "config/target.h"
#include "base/syscalls.h"

#define RINGBUF_MIN 4096ULL
#define RINGBUF_MAX (1ULL << 30)
#define PID_MAX 4194304U /* PID_MAX_LIMIT on 64-bit kernels */
#define COMM_MAX (SMBLAT_COMM_LEN - 1)

static int set_duration(struct loader *l, const char *v, uint64_t *ret)
{
	int r = parse_duration_ns(v, ret);

	if (r == -ERANGE)
		return loader_fail(l, -EINVAL, "%s = %s is out of range", l->key, v);
	if (r < 0)
		return loader_fail(l, -EINVAL,
				   "invalid duration \"%s\" for %s, use e.g. 500us, 10ms or 1.5s (a bare "
				   "number is in ms)",
				   v, l->key);
	return 0;
}

/* Empty: the threshold of the enclosing level applies. */
static int set_threshold(struct loader *l, const char *v, bool *set, uint64_t *ns)
{
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

static int set_bool(struct loader *l, const char *v, bool *ret)
{
	if (parse_bool(v, ret) < 0)
		return loader_fail(l, -EINVAL,
				   "invalid boolean \"%s\" for %s, use yes/no, true/false, on/off or 1/0", v,
				   l->key);
	return 0;
}

static int set_uint(struct loader *l, const char *v, uint64_t max, uint64_t *ret)
{
	int r = values_parse_uint(v, max, ret);

	if (r == -ERANGE)
		return loader_fail(l, -EINVAL, "%s = %s is out of range, at most %llu", l->key, v,
				   (unsigned long long)max);
	if (r < 0)
		return loader_fail(l, -EINVAL, "invalid number \"%s\" for %s", v, l->key);
	return 0;
}

static int set_u32(struct loader *l, const char *v, uint32_t *ret)
{
	uint64_t u;
	int r = set_uint(l, v, UINT32_MAX, &u);

	if (r >= 0)
		*ret = (uint32_t)u;
	return r;
}

/* Empty: unset. */
static int set_string(struct loader *l, const char *v, char **ret)
{
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

static int set_enum(struct loader *l, const char *v, const char *const *names, size_t n, int *ret)
{
	int i = values_name_index(v, names, n);
	const char *hint;

	if (i >= 0) {
		*ret = i;
		return 0;
	}
	hint = values_suggest(v, names, n);
	if (hint)
		return loader_fail(l, -EINVAL, "unknown %s \"%s\", did you mean \"%s\"?", l->key, v, hint);
	return loader_fail(l, -EINVAL, "unknown %s \"%s\"", l->key, v);
}

/* FUNCTION names; a new assignment replaces the list, indented lines extend it. */
static int set_functions(struct loader *l, const char *v, bool append, char ***ret)
{
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
					   "invalid function name \"%s\" in %s, expected up to %d of A-Z a-z "
					   "0-9 _ . : -",
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

static int agent_threshold(struct loader *l, const char *v, bool append)
{
	return set_duration(l, v, &l->c->threshold_ns);
}

static int agent_pid(struct loader *l, const char *v, bool append)
{
	uint64_t pid;
	int r = set_uint(l, v, PID_MAX, &pid);

	if (r >= 0)
		l->c->pid = (uint32_t)pid;
	return r;
}

static int agent_comm(struct loader *l, const char *v, bool append)
{
	if (strlen(v) > COMM_MAX)
		return loader_fail(l, -EINVAL,
				   "comm \"%s\" is longer than %d characters and would never match", v,
				   COMM_MAX);
	return set_string(l, v, &l->c->comm);
}

static int agent_cgroup(struct loader *l, const char *v, bool append)
{
	if (*v && v[0] != '/')
		return loader_fail(l, -EINVAL, "cgroup \"%s\" is not an absolute path", v);
	return set_string(l, v, &l->c->cgroup);
}

static int agent_kernel_stack(struct loader *l, const char *v, bool append)
{
	return set_bool(l, v, &l->c->kernel_stack);
}

static int agent_user_stack(struct loader *l, const char *v, bool append)
{
	return set_bool(l, v, &l->c->user_stack);
}

static int agent_ringbuf_size(struct loader *l, const char *v, bool append)
{
	uint64_t b;
	char buf[32];

	if (parse_size(v, &b) < 0)
		return loader_fail(l, -EINVAL, "invalid size \"%s\" for ringbuf_size, use e.g. 4M or 256K",
				   v);
	if (b < RINGBUF_MIN || b > RINGBUF_MAX || (b & (b - 1)) != 0)
		return loader_fail(l, -EINVAL,
				   "ringbuf_size = %s must be a power of two between 4K and 1G (e.g. %s)", v,
				   values_format_size(buf, sizeof(buf),
						      b < RINGBUF_MIN ? RINGBUF_MIN :
						      b > RINGBUF_MAX ? RINGBUF_MAX :
									1ULL << (63 - __builtin_clzll(b))));
	l->c->ringbuf_bytes = b;
	return 0;
}

static int agent_rate_limit(struct loader *l, const char *v, bool append)
{
	return set_u32(l, v, &l->c->rate_limit);
}

static int agent_rate_burst(struct loader *l, const char *v, bool append)
{
	l->c->rate_burst_set = true;
	return set_u32(l, v, &l->c->rate_burst);
}

static int agent_user(struct loader *l, const char *v, bool append)
{
	char *copy = NULL;

	if (*v && !values_user_name_valid(v))
		return loader_fail(l, -EINVAL, "invalid user name \"%s\"", v);
	if (*v) {
		copy = strdup(v);
		if (!copy)
			return loader_oom(l);
	}
	config_user_set(l->c, copy);
	return 0;
}

static int agent_backend(struct loader *l, const char *v, bool append)
{
	int b = CHOICE_AUTO, r;

	r = set_enum(l, v, values_backend_names, ELEMENTSOF(values_backend_names), &b);
	if (r >= 0)
		l->c->backend = (enum backend_choice)b;
	return r;
}

static int agent_thread_state(struct loader *l, const char *v, bool append)
{
	int t = TSTATE_AUTO, r;

	r = set_enum(l, v, values_thread_state_names, ELEMENTSOF(values_thread_state_names), &t);
	if (r >= 0)
		l->c->thread_state = (enum thread_state_choice)t;
	return r;
}

/* Prealloc'd at about 2.4K each: 64 threads to a million (2.4G). */
#define MAX_THREADS_MIN 64
#define MAX_THREADS_MAX (1u << 20)

static int agent_max_threads(struct loader *l, const char *v, bool append)
{
	uint32_t n;
	int r = set_u32(l, v, &n);

	if (r < 0)
		return r;
	if (n < MAX_THREADS_MIN || n > MAX_THREADS_MAX)
		return loader_fail(l, -EINVAL, "max_threads = %s must be between %u and %u", v,
				   MAX_THREADS_MIN, MAX_THREADS_MAX);
	l->c->max_threads = n;
	return 0;
}

/* [journal] */

static int journal_enabled(struct loader *l, const char *v, bool append)
{
	return set_bool(l, v, &l->c->journal);
}

static int set_priority(struct loader *l, const char *v, int *ret)
{
	int p = config_priority_from_name(v);
	const char *hint;

	if (p >= 0) {
		*ret = p;
		return 0;
	}
	hint = values_suggest(v, values_priority_names, ELEMENTSOF(values_priority_names));
	return loader_fail(l, -EINVAL,
			   "invalid syslog priority \"%s\" for %s%s%s%s, use a name "
			   "(emerg alert crit err warning notice info debug) or 0-7",
			   v, l->key, hint ? ", did you mean \"" : "", hint ?: "", hint ? "\"?" : "");
}

static int journal_priority_slow(struct loader *l, const char *v, bool append)
{
	return set_priority(l, v, &l->c->priority_slow);
}

static int journal_priority_summary(struct loader *l, const char *v, bool append)
{
	return set_priority(l, v, &l->c->priority_summary);
}

static int journal_lost_interval(struct loader *l, const char *v, bool append)
{
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

static int histogram_interval(struct loader *l, const char *v, bool append)
{
	uint64_t ns;
	int r = set_duration(l, v, &ns);

	if (r < 0)
		return r;
	if (ns != 0 && ns < NSEC_PER_SEC)
		return loader_fail(l, -EINVAL, "interval = %s is too short: 0 (off) or at least 1s", v);
	l->c->hist_interval_ns = ns;
	return 0;
}

static int histogram_per_share(struct loader *l, const char *v, bool append)
{
	return set_bool(l, v, &l->c->hist_per_share);
}

/* Bounds the labels of the per-share view: a BPF map, sized once. */
static int histogram_per_share_max(struct loader *l, const char *v, bool append)
{
	uint64_t n;
	int r = set_uint(l, v, 65536, &n);

	if (r < 0)
		return r;
	if (n == 0)
		return loader_fail(l, -EINVAL, "per_share_max = 0: use per_share = no");
	l->c->hist_per_share_max = (uint32_t)n;
	return 0;
}

/* [smb] [smb2] [block] [smbd] */

static struct layer_config *loader_layer(struct loader *l)
{
	return &l->c->layer[l->layer];
}

static int layer_enabled(struct loader *l, const char *v, bool append)
{
	struct layer_config *lc = loader_layer(l);

	lc->automatic = strcasecmp(v, "auto") == 0;
	if (lc->automatic) {
		lc->enabled = true;
		return 0;
	}
	if (parse_bool(v, &lc->enabled) < 0)
		return loader_fail(l, -EINVAL, "invalid value \"%s\" for enabled, use auto, yes or no", v);
	return 0;
}

static int layer_threshold(struct loader *l, const char *v, bool append)
{
	struct layer_config *lc = loader_layer(l);

	return set_threshold(l, v, &lc->threshold_set, &lc->threshold_ns);
}

static int layer_include(struct loader *l, const char *v, bool append)
{
	return set_functions(l, v, append, &loader_layer(l)->include);
}

static int layer_exclude(struct loader *l, const char *v, bool append)
{
	return set_functions(l, v, append, &loader_layer(l)->exclude);
}

/* Kernel disk names: sda, nvme0n1, dm-0, cciss!c0d0 (sysfs spells '/' as '!'). */
static bool disk_name_valid(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < BLOCK_DISK_LEN && !strchr(s, '/') && s[0] != '.' && !values_has_control(s);
}

static int block_disks(struct loader *l, const char *v, bool append)
{
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
			return loader_fail(l, -EINVAL,
					   "invalid disk name \"%s\" in disks, expected a name "
					   "of /sys/class/block such as sda or nvme0n1",
					   e);
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

static int block_queue_time(struct loader *l, const char *v, bool append)
{
	return set_bool(l, v, &l->c->block_queue_time);
}

/* [smbd] binary=: the smbd whose libraries are probed. */
static int smbd_binary(struct loader *l, const char *v, bool append)
{
	if (!*v) { /* back to the default: smbd found on PATH */
		free(l->c->smbd_binary);
		l->c->smbd_binary = NULL;
		return 0;
	}
	if (v[0] != '/' || values_has_control(v))
		return loader_fail(l, -EINVAL, "binary = %s must be an absolute path", v);
	return set_string(l, v, &l->c->smbd_binary);
}

static int layer_errors(struct loader *l, const char *v, bool append)
{
	if (l->layer != LAYER_SMB2 && l->layer != LAYER_SYSCALLS)
		return loader_fail(l, -EINVAL, "errors = is a key of [smb2] and [syscalls] only");
	return set_bool(l, v, &loader_layer(l)->errors);
}

static int layer_stacks(struct loader *l, const char *v, bool append)
{
	return set_bool(l, v, &loader_layer(l)->stacks);
}

static int smbd_vfs(struct loader *l, const char *v, bool append)
{
	return set_bool(l, v, &l->c->smbd_vfs);
}

static int smbd_exits(struct loader *l, const char *v, bool append)
{
	return set_bool(l, v, &l->c->smbd_exits);
}

static int smbd_exit_errors(struct loader *l, const char *v, bool append)
{
	return set_bool(l, v, &l->c->smbd_exit_errors);
}

static int smbd_breaks(struct loader *l, const char *v, bool append)
{
	return set_bool(l, v, &l->c->smbd_breaks);
}

static int smbd_split(struct loader *l, const char *v, bool append)
{
	return set_bool(l, v, &l->c->smbd_split);
}

/* [syscalls] select=: one grammar with --syscalls= (config_parse_select). */
static int syscalls_select(struct loader *l, const char *v, bool append)
{
	const char *problem = NULL;
	int r = config_parse_select(v, &l->c->sys_select, &problem);

	if (r == -ENOMEM)
		return loader_oom(l);
	if (r < 0)
		return loader_fail(l, -EINVAL, "select = %s %s", v, problem);
	return 0;
}

static int smb2_connection_events(struct loader *l, const char *v, bool append)
{
	if (l->layer != LAYER_SMB2)
		return loader_fail(l, -EINVAL, "connection_events = is a key of [smb2] only");
	return set_bool(l, v, &l->c->smb2_events);
}

static int smb_groups(struct loader *l, const char *v, bool append)
{
	bool group[ELEMENTSOF(l->c->group)];
	char buf[32];
	const char *p = v, *e;

	memcpy(group, l->c->group, sizeof(group));
	if (!append)
		for (size_t g = GROUP_NONE + 1; g < ELEMENTSOF(group); g++)
			group[g] = false;
	while ((e = values_list_next(&p, buf, sizeof(buf)))) {
		int g = values_name_index(e, op_group_names, _GROUP_MAX);
		const char *hint;

		if (g > GROUP_NONE) {
			group[g] = true;
			continue;
		}
		hint = values_suggest(e, op_group_names, _GROUP_MAX);
		return loader_fail(l, -EINVAL,
				   "unknown group \"%s\"%s%s%s, use inode, file, adspace or super", e,
				   hint ? ", did you mean \"" : "", hint ?: "", hint ? "\"?" : "");
	}
	memcpy(l->c->group, group, sizeof(group));
	return 0;
}

/* [probe NAME] */

static struct probe_config *loader_probe(struct loader *l)
{
	return &l->c->probes[l->probe];
}

static int probe_target(struct loader *l, const char *v, bool append)
{
	const char *problem, *hint;
	struct target t;
	int r;

	if (!*v)
		return loader_fail(l, -EINVAL, "target is empty");
	r = target_parse(v, &t, &problem);
	if (r == -ENOMEM)
		return loader_oom(l);
	if (r < 0)
		return loader_fail(l, -EINVAL, "target \"%s\" %s", v, problem);
	if (t.kind == TARGET_SYSCALL && syscalls_nr(t.symbol) < 0) {
		hint = syscalls_suggest(t.symbol);
		r = loader_fail(l, -EINVAL, "target \"%s\": no syscall \"%s\" on this architecture%s%s%s", v,
				t.symbol, hint ? ", did you mean \"syscall:" : "", hint ?: "",
				hint ? "\"?" : "");
		target_done(&t);
		return r;
	}
	target_done(&t);
	return set_string(l, v, &loader_probe(l)->target);
}

static int probe_threshold(struct loader *l, const char *v, bool append)
{
	struct probe_config *p = loader_probe(l);

	return set_threshold(l, v, &p->threshold_set, &p->threshold_ns);
}

static int probe_kernel_stack(struct loader *l, const char *v, bool append)
{
	l->load->kstack_set[l->probe] = true;
	return set_bool(l, v, &loader_probe(l)->kernel_stack);
}

static int probe_user_stack(struct loader *l, const char *v, bool append)
{
	l->load->ustack_set[l->probe] = true;
	return set_bool(l, v, &loader_probe(l)->user_stack);
}

static int probe_args(struct loader *l, const char *v, bool append)
{
	uint64_t n;
	int r = values_parse_uint(v, UINT32_MAX, &n);

	if (r < 0 || n > SMBLAT_MAX_ARGS)
		return loader_fail(l, -EINVAL, "args = %s must be a number from 0 to %d", v, SMBLAT_MAX_ARGS);
	loader_probe(l)->args = (unsigned)n;
	return 0;
}

static int probe_errors(struct loader *l, const char *v, bool append)
{
	return set_bool(l, v, &loader_probe(l)->errors);
}

static int probe_stacks(struct loader *l, const char *v, bool append)
{
	return set_bool(l, v, &loader_probe(l)->stacks);
}

#define LAYER_SECTIONS \
	(S(SECTION_SMB) | S(SECTION_LAYER) | S(SECTION_BLOCK) | S(SECTION_SMBD) | S(SECTION_SYSCALLS))

const struct key keys[] = {
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
	{ "thread_state", S(SECTION_AGENT), false, agent_thread_state },
	{ "max_threads", S(SECTION_AGENT), false, agent_max_threads },
	{ "enabled", S(SECTION_JOURNAL), false, journal_enabled },
	{ "priority_slow", S(SECTION_JOURNAL), false, journal_priority_slow },
	{ "priority_summary", S(SECTION_JOURNAL), false, journal_priority_summary },
	{ "lost_interval", S(SECTION_JOURNAL), false, journal_lost_interval },
	{ "interval", S(SECTION_HISTOGRAM), false, histogram_interval },
	{ "enabled", LAYER_SECTIONS, false, layer_enabled },
	{ "threshold", LAYER_SECTIONS, false, layer_threshold },
	{ "include", LAYER_SECTIONS, true, layer_include },
	{ "exclude", LAYER_SECTIONS, true, layer_exclude },
	{ "errors", S(SECTION_LAYER) | S(SECTION_SYSCALLS), false, layer_errors },
	{ "stacks", S(SECTION_SMBD) | S(SECTION_SYSCALLS), false, layer_stacks },
	{ "vfs", S(SECTION_SMBD), false, smbd_vfs },
	{ "exits", S(SECTION_SMBD), false, smbd_exits },
	{ "exit_errors", S(SECTION_SMBD), false, smbd_exit_errors },
	{ "breaks", S(SECTION_SMBD), false, smbd_breaks },
	{ "time_split", S(SECTION_SMBD), false, smbd_split },
	{ "select", S(SECTION_SYSCALLS), false, syscalls_select },
	{ "per_share", S(SECTION_HISTOGRAM), false, histogram_per_share },
	{ "per_share_max", S(SECTION_HISTOGRAM), false, histogram_per_share_max },
	{ "servers", S(SECTION_LAYER), true, keys_smb2_servers },
	{ "sessions", S(SECTION_LAYER), true, keys_smb2_sessions },
	{ "connection_events", S(SECTION_LAYER), false, smb2_connection_events },
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
	{ "stacks", S(SECTION_PROBE), false, probe_stacks },
};

const struct key *key_find(const char *name, unsigned sections)
{
	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if ((keys[i].sections & sections) && strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* "[journal], [smb], [smb2], [block], [smbd]": where a key misplaced by the user goes. */
const char *key_homes(const char *name, char *buf, size_t size)
{
	static const char *const titles[_SECTION_MAX] = {
		[SECTION_AGENT] = "[agent]",         [SECTION_JOURNAL] = "[journal]",
		[SECTION_HISTOGRAM] = "[histogram]", [SECTION_SMB] = "[smb]",
		[SECTION_LAYER] = "[smb2]",          [SECTION_BLOCK] = "[block]",
		[SECTION_SMBD] = "[smbd]",           [SECTION_SYSCALLS] = "[syscalls]",
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
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", titles[k]);
	return buf;
}

int key_unknown(struct loader *l, const char *name)
{
	const char *names[ELEMENTSOF(keys)] = {};
	const char *hint, *homes;
	char buf[128];

	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if (keys[i].sections & S(l->kind))
			names[i] = keys[i].name;
	/* an exact key of another section says more than a near one of this */
	homes = key_homes(name, buf, sizeof(buf));
	if (homes)
		return loader_fail(l, -EINVAL, "unknown key \"%s\" in [%s], it belongs in %s", name,
				   l->section, homes);
	hint = values_suggest(name, names, ELEMENTSOF(names));
	if (hint)
		return loader_fail(l, -EINVAL, "unknown key \"%s\" in [%s], did you mean \"%s\"?", name,
				   l->section, hint);
	return loader_fail(l, -EINVAL, "unknown key \"%s\" in [%s]", name, l->section);
}
