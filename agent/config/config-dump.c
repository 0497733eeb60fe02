// SPDX-License-Identifier: LGPL-2.1-or-later
/* The effective configuration written back in smblat.conf syntax (--check-config). */
#include <stdio.h>
#include <string.h>

#include "config/config.h"

static void dump_duration(FILE *f, const char *key, uint64_t ns)
{
	char buf[32];

	fprintf(f, "%s = %s\n", key, format_duration_ns(buf, sizeof(buf), ns));
}

static void dump_threshold(FILE *f, bool set, uint64_t ns)
{
	if (set)
		dump_duration(f, "threshold", ns);
	else
		fputs("threshold =\n", f);
}

static void dump_bool(FILE *f, const char *key, bool b)
{
	fprintf(f, "%s = %s\n", key, b ? "yes" : "no");
}

static void dump_string(FILE *f, const char *key, const char *s)
{
	/* " ;" starts an inline comment: a value beginning with ';' follows '=' directly */
	fprintf(f, "%s =%s%s\n", key, s && *s && *s != ';' ? " " : "", s ?: "");
}

/* Long lists go on over indented lines: the loader takes lines of limited length. */
static void dump_list(FILE *f, const char *key, char **l)
{
	int col = fprintf(f, "%s =", key);

	for (size_t i = 0; l && l[i]; i++) {
		if (i > 0 && col + 1 + strlen(l[i]) > 78)
			col = fprintf(f, "\n ");
		col += fprintf(f, " %s", l[i]);
	}
	fputc('\n', f);
}

void config_dump(const struct config *c, FILE *f)
{
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
	fprintf(f, "rate_burst = %u\n", config_rate_burst(c));
	dump_string(f, "user", c->user);
	dump_string(f, "backend", config_backend_name(c->backend));
	dump_string(f, "thread_state", config_thread_state_name(c->thread_state));
	fprintf(f, "max_threads = %u\n", c->max_threads);

	fputs("\n[journal]\n", f);
	dump_bool(f, "enabled", c->journal);
	dump_string(f, "priority_slow", config_priority_name(c->priority_slow));
	dump_string(f, "priority_summary", config_priority_name(c->priority_summary));
	dump_duration(f, "lost_interval", c->lost_interval_ns);

	fputs("\n[histogram]\n", f);
	dump_duration(f, "interval", c->hist_interval_ns);
	dump_bool(f, "per_share", c->hist_per_share);
	fprintf(f, "per_share_max = %u\n", c->hist_per_share_max);

	for (size_t i = 0; i < _LAYER_MAX; i++) {
		const struct layer_config *lc = &c->layer[i];

		if (i == LAYER_FUNC)
			continue; /* configured by [probe NAME] sections */
		fprintf(f, "\n[%s]\n", layer_name(i));
		if (lc->automatic)
			fputs("enabled = auto\n", f);
		else
			dump_bool(f, "enabled", lc->enabled);
		dump_threshold(f, lc->threshold_set, lc->threshold_ns);
		dump_list(f, "include", lc->include);
		dump_list(f, "exclude", lc->exclude);
		if (i == LAYER_SMB2 || i == LAYER_SYSCALLS)
			dump_bool(f, "errors", lc->errors);
		if (i == LAYER_SMBD || i == LAYER_SYSCALLS)
			dump_bool(f, "stacks", lc->stacks);
		if (i == LAYER_SMB2) {
			dump_list(f, "servers", c->smb2_servers);
			dump_list(f, "sessions", c->smb2_sessions);
			dump_bool(f, "connection_events", c->smb2_events);
		}
		if (i == LAYER_SMB) {
			fputs("groups =", f);
			for (int g = GROUP_NONE + 1; g <= GROUP_SUPER; g++)
				if (c->group[g])
					fprintf(f, " %s", group_name(g));
			fputc('\n', f);
		}
		if (i == LAYER_BLOCK) {
			dump_list(f, "disks", c->block_disks);
			dump_bool(f, "queue_time", c->block_queue_time);
		}
		if (i == LAYER_SMBD) {
			dump_string(f, "binary", c->smbd_binary);
			dump_bool(f, "vfs", c->smbd_vfs);
			dump_bool(f, "exits", c->smbd_exits);
			dump_bool(f, "exit_errors", c->smbd_exit_errors);
			dump_bool(f, "breaks", c->smbd_breaks);
			dump_bool(f, "time_split", c->smbd_split);
		}
		if (i == LAYER_SYSCALLS) {
			char sel[512];

			dump_string(f, "select", config_select_format(&c->sys_select, sel, sizeof(sel)));
		}
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
		dump_bool(f, "stacks", p->stacks);
	}
}
