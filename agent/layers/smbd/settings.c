// SPDX-License-Identifier: LGPL-2.1-or-later
/* [smbd], the section of the smbd layer: binary= and the switches of its views. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "config/section.h"
#include "config/values.h"
#include "layers/smbd/settings.h"
#include "base/macro.h"

static const char *const smbd_paths[] = {
	"/usr/sbin/smbd",
	"/usr/local/samba/sbin/smbd",
	"/usr/local/sbin/smbd",
};

char *smbd_settings_binary(const struct config *c)
{
	const char *path = getenv("PATH"), *binary = smbd_settings(c)->binary;
	char buf[PATH_MAX];

	if (binary)
		return strdup(binary);
	for (const char *p = path; p && *p; p += strcspn(p, ":"), p += *p == ':') {
		size_t n = strcspn(p, ":");

		if (n == 0 || p[0] != '/')
			continue;
		snprintf(buf, sizeof(buf), "%.*s/smbd", (int)n, p);
		if (access(buf, X_OK) == 0)
			return strdup(buf);
	}
	for (size_t i = 0; i < ELEMENTSOF(smbd_paths); i++)
		if (access(smbd_paths[i], X_OK) == 0)
			return strdup(smbd_paths[i]);
	return NULL;
}

/* What pid runs, for saying so: its command name and executable. */
static void pid_describe(pid_t pid, char *comm, size_t ncomm, char *exe, size_t nexe)
{
	char path[64];
	ssize_t k;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f || !fgets(comm, (int)ncomm, f))
		snprintf(comm, ncomm, "?");
	if (f)
		fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	k = readlink(path, exe, nexe - 1);
	exe[k < 0 ? 0 : k] = '\0';
}

int smbd_settings_check_pid(const struct config *c, pid_t pid, char *why, size_t n)
{
	_cleanup_free_ char *binary = smbd_settings_binary(c);
	char path[64], comm[32], exe[PATH_MAX];
	struct stat want, got;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (kill(pid, 0) < 0 && errno == ESRCH) {
		snprintf(why, n, "no such process");
		return -ESRCH;
	}
	if (!binary) {
		snprintf(why, n,
			 "no smbd on this machine to compare it with (PATH, /usr/sbin); set [smbd] binary=");
		return -ENOENT;
	}
	if (stat(binary, &want) < 0) {
		int r = -errno;

		snprintf(why, n, "%s: %s", binary, strerror(-r));
		return r;
	}
	if (stat(path, &got) < 0) {
		int r = -errno;

		pid_describe(pid, comm, sizeof(comm), exe, sizeof(exe));
		if (r == -ENOENT && kill(pid, 0) == 0) {
			/* a kernel thread has no executable */
			snprintf(why, n, "process %d (%s) is not an smbd: it runs no program", (int)pid,
				 comm);
			return -EINVAL;
		}
		snprintf(why, n, "cannot tell what process %d runs: %s", (int)pid,
			 r == -ENOENT ? "no such process" : strerror(-r));
		return r == -ENOENT ? -ESRCH : r;
	}
	if (got.st_dev == want.st_dev && got.st_ino == want.st_ino)
		return 0;
	pid_describe(pid, comm, sizeof(comm), exe, sizeof(exe));
	snprintf(why, n, "process %d (%s) is not an smbd: it runs %s, not %s", (int)pid, comm,
		 *exe ? exe : "?", binary);
	return -EINVAL;
}

/* binary=: the smbd whose libraries are probed; empty: the one found on PATH. */
static int binary_check(struct config_parser *p, const char *v, size_t n)
{
	if (*v && (v[0] != '/' || values_has_control(v)))
		return config_fail(p, "binary = %s must be an absolute path", v);
	return 0;
}

static void init(void *settings)
{
	struct smbd_settings *s = settings;

	s->exits = true;
	s->breaks = true;
}

static const struct config_key keys[] = {
	/* the layer probes the libraries it found at start */
	CONFIG_KEY("binary", struct smbd_settings, binary, config_string, .check = binary_check,
		   .flags = CONFIG_KEY_RESTART),
	CONFIG_KEY("vfs", struct smbd_settings, vfs, config_bool),
	CONFIG_KEY("exits", struct smbd_settings, exits, config_bool),
	CONFIG_KEY("exit_errors", struct smbd_settings, exit_errors, config_bool),
	CONFIG_KEY("breaks", struct smbd_settings, breaks, config_bool),
	CONFIG_KEY("time_split", struct smbd_settings, split, config_bool),
};

const struct config_section smbd_settings_section = CONFIG_SETTINGS(
	"smbd", struct smbd_settings, keys, .init = init, .also = CONFIG_LAYER_STACKS);
