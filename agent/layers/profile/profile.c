// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The profile layer: a CPU profile, as DTrace's profile-997 and bcc's
 * profile. A software clock event on every CPU fires frequency= times a
 * second; bpf/profile.bpf.c counts the kernel and user stacks of the task
 * it interrupts (every one, or those [agent]'s pid=, comm=, cgroup= choose,
 * or only smbd) in the counted-stacks maps, under one function, PROFILE.
 * The core writes them as it writes any counted stacks: journal entries,
 * --folded lines, --svg. Samples are taken while a task runs: a process
 * that sleeps is not in it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/macro.h"
#include "layers/layer.h"
#include "layers/procs/procs.h"
#include "layers/profile/settings.h"
#include "layers/smbd/settings.h"

#define NAME "profile"
#define FUNCTION "PROFILE"

struct layer {
	const struct layer_env *env;
	int *fds; /* per possible CPU: its clock event, or -1 */
	struct bpf_link **links;
	int n_cpus;
	int attached; /* CPUs sampled */
	int func_id;  /* PROFILE's, or -1 */
	const char *why;
	bool off; /* why says it is off, not unavailable */
	char why_buf[512];
};

static const struct prog_spec profile_progs[] = {
	PROG(profile_sample, PROG_PLAIN),
};

static const struct prog_unit profile_unit = PROG_UNIT("profile", profile_progs, false);

static int profile_init(struct layer *l)
{
	l->func_id = -1;
	l->n_cpus = libbpf_num_possible_cpus();
	if (l->n_cpus <= 0)
		return l->n_cpus < 0 ? l->n_cpus : -EINVAL;
	l->fds = malloc(l->n_cpus * sizeof(*l->fds));
	l->links = calloc(l->n_cpus, sizeof(*l->links));
	if (!l->fds || !l->links)
		return -ENOMEM;
	for (int i = 0; i < l->n_cpus; i++)
		l->fds[i] = -1;
	return 0;
}

static struct profile_ctl *ctl(struct layer *l)
{
	return &probes_skel(l->env->probes)->bss->profile_ctl;
}

/* The clock event of cpu, the program on it; -errno (-ENODEV: the CPU is offline). */
static int cpu_attach(struct layer *l, int cpu, uint32_t hz)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = hz,
		.freq = 1,
	};
	struct bpf_program *prog = probes_skel(l->env->probes)->progs.profile_sample;
	int fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	l->links[cpu] = bpf_program__attach_perf_event(prog, fd);
	if (!l->links[cpu]) {
		int r = -errno;

		close(fd);
		return r;
	}
	l->fds[cpu] = fd;
	return 0;
}

static unsigned int cpus_detach(struct layer *l)
{
	unsigned int n = 0;

	for (int i = l->n_cpus - 1; i >= 0; i--) {
		if (l->links[i])
			n++;
		bpf_link__destroy(l->links[i]);
		l->links[i] = NULL;
		if (l->fds[i] >= 0)
			close(l->fds[i]);
		l->fds[i] = -1;
	}
	l->attached = 0;
	return n;
}

/* Every CPU's clock event; -errno with why said (nothing left attached). */
static int cpus_attach(struct layer *l, uint32_t hz)
{
	int r = -ENODEV;

	for (int i = 0; i < l->n_cpus; i++) {
		r = cpu_attach(l, i, hz);
		if (r == -ENODEV) /* not online: nothing runs there */
			continue;
		if (r < 0) {
			cpus_detach(l);
			l->why = layer_unavailable(
				NAME, REASON_ATTACH_FAILED, l->why_buf, sizeof(l->why_buf),
				"a %u Hz clock event on CPU %d: %s%s", hz, i, strerror(-r),
				r == -EINVAL ? " (above /proc/sys/kernel/perf_event_max_sample_rate?)" : "");
			return r;
		}
		l->attached++;
	}
	if (!l->attached)
		l->why = layer_unavailable(NAME, REASON_ATTACH_FAILED, l->why_buf, sizeof(l->why_buf),
					   "no CPU online to sample");
	return l->attached ? 0 : -ENODEV;
}

/* Only smbd: the processes of the smbd executable followed from exec and fork; -errno with why said. */
static int smbd_follow(struct layer *l)
{
	char *binary = smbd_settings_binary(l->env->cfg), why[PATH_MAX + 128];
	int r = procs_attach(l->env->probes, PROCS_SYS_NONE, why, sizeof(why));

	if (r >= 0 && binary)
		r = procs_follow_smbd(l->env->probes, binary, why, sizeof(why));
	else if (r >= 0)
		r = -ENOENT,
		snprintf(why, sizeof(why), "no smbd found on PATH or in /usr/sbin; set [smbd] binary=");
	free(binary);
	if (r >= 0)
		r = procs_seed(l->env->probes, &(struct procs_seed) { .count = PROC_SMBD });
	if (r < 0)
		l->why = layer_unavailable(NAME, r == -ENOENT ? REASON_NO_BINARY : REASON_SYSTEM, l->why_buf,
					   sizeof(l->why_buf), "smbd = yes: %s", why);
	return r < 0 ? r : 0;
}

static struct func *function(struct layer *l, uint32_t hz)
{
	char target[64];
	struct func *f;

	snprintf(target, sizeof(target), "cpu-clock:%uHz", hz);
	f = func_table_find_or_add(l->env->funcs, LAYER_PROFILE, FUNCTION, target, NULL);
	if (!f)
		return NULL;
	/* no calls of its own: the samples are only counted stacks */
	f->cfg = (struct func_cfg) { .threshold_ns = UINT64_MAX };
	probes_update(l->env->probes, f);
	return f;
}

/* Whether process pid is one the profile samples: [agent]'s comm=, smbd's executable (exe), or any. */
static bool process_chosen(const char *pid, const char *comm, const char *exe)
{
	char path[64], buf[PATH_MAX];
	ssize_t n;
	FILE *f;

	if (exe) {
		snprintf(path, sizeof(path), "/proc/%s/exe", pid);
		n = readlink(path, buf, sizeof(buf) - 1);
		return n > 0 && (buf[n] = '\0', strcmp(buf, exe) == 0);
	}
	if (!comm)
		return true;
	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fgets(buf, sizeof(buf), f) ? (ssize_t)strcspn(buf, "\n") : 0;
	fclose(f);
	buf[n] = '\0';
	return strcmp(buf, comm) == 0;
}

/*
 * The files the chosen processes run code from, opened while the agent is
 * root (before the drop): a program in a directory only root may enter
 * keeps whole, named stacks. Processes started later are read as their
 * stacks meet their files, as the smblat user.
 */
static void files_open(struct layer *l, bool smbd)
{
	const struct config *c = l->env->cfg;
	char *binary = smbd ? smbd_settings_binary(c) : NULL, *exe = binary ? realpath(binary, NULL) : NULL;
	const char *comm = c->comm && *c->comm ? c->comm : NULL;
	struct dirent *de;
	DIR *d;

	free(binary);
	if (c->pid && !smbd) {
		(void)probes_ufiles_process(l->env->probes, (pid_t)c->pid);
		free(exe);
		return;
	}
	d = opendir("/proc");
	while (d && (de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9' &&
		    (unsigned)atoi(de->d_name) != (unsigned)getpid() && (!smbd || exe) &&
		    process_chosen(de->d_name, comm, exe))
			(void)probes_ufiles_process(l->env->probes, (pid_t)atoi(de->d_name));
	if (d)
		closedir(d);
	free(exe);
}

static void profile_attach(struct layer *l)
{
	const struct profile_settings *s = profile_settings(l->env->cfg);
	struct status st = { .kind = STATUS_LAYER_ATTACHED, .priority = LOG_INFO, .layer = NAME };
	const struct config *c = l->env->cfg;
	struct func *f;

	l->why = NULL;
	l->off = false;
	if (c->layer[LAYER_PROFILE].automatic) {
		l->off = true;
		l->why = layer_off(NAME, REASON_DISABLED, l->why_buf, sizeof(l->why_buf),
				   "enabled = auto does not sample every CPU; enabled = yes does");
		return;
	}
	if (!probes_unit_loaded(l->env->probes, &profile_unit)) {
		l->why = layer_unavailable(NAME, REASON_RESTART_NEEDED, l->why_buf, sizeof(l->why_buf),
					   "enabled by a reload: the profile starts with the agent");
		return;
	}
	f = function(l, s->frequency);
	if (!f) {
		l->why = layer_unavailable(NAME, REASON_SYSTEM, l->why_buf, sizeof(l->why_buf),
					   "no room in the function table");
		return;
	}
	l->func_id = (int)f->id;
	if (s->smbd && smbd_follow(l) < 0)
		return;
	files_open(l, s->smbd);
	ctl(l)->func_id = f->id;
	ctl(l)->smbd = s->smbd;
	if (cpus_attach(l, s->frequency) < 0) {
		func_set_state(f, FUNC_FAILED, "%s", l->why);
		return;
	}
	ctl(l)->on = 1;
	func_set_attached(f, BACKEND_PERF_EVENT);
	status_count_set(&st, COUNT_ATTACHED, 1);
	log_emit(&st, "%s: %u Hz on %d %s, %s", FUNCTION, s->frequency, l->attached,
		 PLURAL(l->attached, "CPU", "CPUs"),
		 s->smbd ? "smbd processes" :
		 c->pid || (c->comm && *c->comm) || (c->cgroup && *c->cgroup) ?
			   "the processes [agent] chooses" :
			   "every process");
}

static void profile_apply(struct layer *l, const struct config *old, struct reload_counts *n)
{
	const struct profile_settings *s = profile_settings(l->env->cfg), *o = profile_settings(old);

	if (s->frequency != o->frequency || s->smbd != o->smbd)
		log_layer(NAME, STATUS_RELOAD_REFUSED, REASON_RESTART_NEEDED, LOG_NOTICE,
			  "frequency = %u, smbd = %s take effect at the next start (still %u, %s)",
			  s->frequency, s->smbd ? "yes" : "no", o->frequency, o->smbd ? "yes" : "no");
}

static unsigned int profile_detach(struct layer *l, enum func_state why)
{
	unsigned int n;

	if (l->env->probes && probes_unit_loaded(l->env->probes, &profile_unit))
		ctl(l)->on = 0;
	n = cpus_detach(l);
	if (l->func_id >= 0 && func_attached(&l->env->funcs->v[l->func_id]))
		func_set_state(&l->env->funcs->v[l->func_id], why, NULL);
	return n ? 1 : 0;
}

static enum layer_state profile_state(struct layer *l, const char **why)
{
	if (l->why) {
		*why = l->why;
		return l->off ? LAYER_OFF : LAYER_UNAVAILABLE;
	}
	if (l->attached)
		return LAYER_ACTIVE;
	*why = "not attached";
	return LAYER_UNAVAILABLE;
}

static int profile_prepare(struct layer *l, struct probes_opts *po)
{
	const struct config *c = l->env->cfg;
	int r;

	if (!c->layer[LAYER_PROFILE].enabled || c->layer[LAYER_PROFILE].automatic)
		return 0;
	po->stacks = true;
	r = probes_opts_want(po, &profile_unit, NULL);
	if (r >= 0 && profile_settings(c)->smbd)
		r = procs_want(po);
	return r;
}

static uint32_t profile_ids_needed(const struct config *c)
{
	return 1;
}

static void profile_free(struct layer *l)
{
	cpus_detach(l);
	free(l->fds);
	free(l->links);
}

const struct layer_ops profile_layer = {
	.id = LAYER_PROFILE,
	.config = &profile_settings_section,
	.traces = "on-CPU stacks, sampled (a CPU profile)",
	.size = sizeof(struct layer),
	/* no histogram of its own: its samples are counted stacks */
	.own_summaries = true,
	.ids_needed = profile_ids_needed,
	.prepare = profile_prepare,
	.unit = &profile_unit,
	.init = profile_init,
	.attach = profile_attach,
	.apply = profile_apply,
	.detach = profile_detach,
	.state = profile_state,
	.free = profile_free,
};
