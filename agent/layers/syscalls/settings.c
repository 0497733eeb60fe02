// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * [syscalls], the section of the syscalls layer: select= and --syscalls=,
 * whose syscalls are accounted, one grammar for both.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/section.h"
#include "config/values.h"
#include "layers/syscalls/settings.h"
#include "base/macro.h"

void syscalls_select_free(struct sys_select *s)
{
	free(s->comm);
	free(s->cgroup);
	*s = (struct sys_select) {};
}

static int select_one(const char *w, struct sys_select *s, const char **problem)
{
	const char *v = strchr(w, ':');
	char *end;

	if (strcmp(w, "smbd") == 0) {
		s->smbd = true;
		return 0;
	}
	if (!v || !v[1]) {
		*problem = "wants smbd, pid:PID, comm:NAME or cgroup:PATH";
		return -EINVAL;
	}
	v++;
	if (strncmp(w, "pid:", 4) == 0) {
		unsigned long pid = strtoul(v, &end, 10);

		if (*end || !pid || pid > 4194304 || s->pid) {
			*problem = s->pid ? "names more than one pid" : "has an invalid pid";
			return -EINVAL;
		}
		s->pid = (uint32_t)pid;
		return 0;
	}
	if (strncmp(w, "comm:", 5) == 0) {
		if (strlen(v) >= SMBLAT_COMM_LEN || s->comm) {
			*problem = s->comm ? "names more than one comm" : "has a comm longer than 15 bytes";
			return -EINVAL;
		}
		return (s->comm = strdup(v)) ? 0 : -ENOMEM;
	}
	if (strncmp(w, "cgroup:", 7) == 0) {
		if (v[0] != '/' || s->cgroup) {
			*problem = s->cgroup ? "names more than one cgroup" : "wants an absolute cgroup path";
			return -EINVAL;
		}
		return (s->cgroup = strdup(v)) ? 0 : -ENOMEM;
	}
	*problem = "wants smbd, pid:PID, comm:NAME or cgroup:PATH";
	return -EINVAL;
}

int syscalls_select_parse(const char *v, struct sys_select *s, const char **problem)
{
	struct sys_select n = {};
	char *dup = strdup(v), *save = NULL;
	int r = dup ? 0 : -ENOMEM;

	*problem = NULL;
	for (char *w = dup ? strtok_r(dup, ", \t", &save) : NULL; w && r == 0;
	     w = strtok_r(NULL, ", \t", &save)) {
		if (values_has_control(w)) {
			*problem = "contains control characters";
			r = -EINVAL;
		} else {
			r = select_one(w, &n, problem);
		}
	}
	free(dup);
	if (r < 0) {
		syscalls_select_free(&n);
		return r;
	}
	syscalls_select_free(s);
	*s = n;
	return 0;
}

const char *syscalls_select_format(const struct sys_select *s, char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = '\0';
	if (s->smbd)
		k += (size_t)snprintf(buf + k, n - k, "smbd");
	if (s->pid && k < n)
		k += (size_t)snprintf(buf + k, n - k, "%spid:%u", k ? ", " : "", s->pid);
	if (s->comm && k < n)
		k += (size_t)snprintf(buf + k, n - k, "%scomm:%s", k ? ", " : "", s->comm);
	if (s->cgroup && k < n)
		snprintf(buf + k, n - k, "%scgroup:%s", k ? ", " : "", s->cgroup);
	return buf;
}

static int select_parse(struct config_parser *p, const struct config_key *k, void *base, const char *v,
			bool append)
{
	const char *problem = NULL;
	int r = syscalls_select_parse(v, config_value(k, base), &problem);

	if (r == -ENOMEM)
		return config_oom(p);
	if (r < 0)
		return config_fail(p, "%s = %s %s", k->name, v, problem);
	return 0;
}

static void select_print(FILE *f, const struct config_key *k, const void *base)
{
	char buf[512];

	config_print_value(f, k->name, syscalls_select_format(config_value_const(k, base), buf, sizeof(buf)));
}

static void select_free(const struct config_key *k, void *base)
{
	syscalls_select_free(config_value(k, base));
}

static const struct config_type select_type = {
	.parse = select_parse,
	.print = select_print,
	.free = select_free,
	.examples = (const char *const[]) { "smbd, pid:12", NULL },
};

static const struct config_key keys[] = {
	CONFIG_KEY("select", struct syscalls_settings, select, select_type),
};

const struct config_section syscalls_settings_section = CONFIG_SETTINGS(
	"syscalls", struct syscalls_settings, keys,
	/* a probe on every syscall of the machine: only when asked for, never by auto */
	.also = CONFIG_LAYER_ERRORS | CONFIG_LAYER_STACKS, .off = true);
