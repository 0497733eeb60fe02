// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/privs.h"
#include "cli/outfile.h"

int outfile_open(struct outfile *o, const char *option, const char *path, const char *user)
{
	/* as privs_open_as() does: only root changes, and only to a user that exists */
	bool as_other = user && *user && geteuid() == 0 && getpwnam(user);
	bool denied;
	int fd;

	*o = (struct outfile) { .option = option, .path = path };
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	/* created, or an existing file replaced: which one says whether to remove it on failure */
	fd = privs_open_as(user, path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	o->created = fd >= 0;
	if (fd == -EEXIST)
		fd = privs_open_as(user, path, O_WRONLY | O_TRUNC, 0644);
	if (fd >= 0)
		o->f = fdopen(fd, "w");
	if (fd >= 0 && !o->f) {
		fd = -errno;
		outfile_abandon(o);
	}
	if (fd < 0) {
		denied = as_other && (fd == -EACCES || fd == -EPERM);
		fprintf(stderr, "smblat: %s %s: %s%s%s%s\n", option, path, strerror(-fd),
			denied ? " (as user " : "", denied ? user : "",
			denied ? ", whom the agent becomes after attaching)" : "");
		return fd;
	}
	return 0;
}

int outfile_close(struct outfile *o)
{
	int r = 0;

	if (!o->f)
		return 0;
	if (o->f == stdout)
		r = fflush(stdout) == 0 ? 0 : -errno;
	else {
		int e = ferror(o->f) ? EIO : 0;

		if (fclose(o->f) != 0)
			e = errno ?: EIO;
		r = -e;
	}
	if (r < 0)
		fprintf(stderr, "smblat: %s %s: %s\n", o->option, o->path, strerror(-r));
	o->f = NULL;
	return r;
}

void outfile_abandon(struct outfile *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	o->f = NULL;
	if (o->created)
		(void)unlink(o->path);
	o->created = false;
}
