/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cap-ng.h>

#include "base/privs.h"
#include "base/macro.h"

static const unsigned int attach_caps[] = { CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN, CAP_SYSLOG };

/* Set once privs_drop() succeeded; capabilities kept in the permitted set; those of them effective throughout. */
static bool dropped;
static uint64_t kept;
static uint64_t resident;

/* capng_change_id(3) says which step failed by its return value. */
static const char *change_id_step(int r)
{
	switch (r) {
	case -2:
	case -7:
		return "PR_SET_KEEPCAPS";
	case -3:
		return "taking CAP_SETUID/CAP_SETGID/CAP_SETPCAP for the switch";
	case -4:
		return "setting the gid";
	case -5:
		return "dropping supplementary groups";
	case -6:
		return "setting the uid";
	case -8:
		return "emptying the bounding set, which needs CAP_SETPCAP";
	case -9:
		return "dropping the capabilities not kept";
	default:
		return "libcap-ng";
	}
}

/* err, with why it happened in why (n bytes, may be NULL): the caller says it. */
static int failed(char *why, size_t n, int err, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int failed(char *why, size_t n, int err, const char *fmt, ...)
{
	va_list ap;

	if (why && n) {
		va_start(ap, fmt);
		vsnprintf(why, n, fmt, ap);
		va_end(ap);
	}
	return err;
}

static int user_lookup(const char *user, uid_t *uid, gid_t *gid, char *why, size_t n)
{
	struct passwd *pw;

	errno = 0;
	pw = getpwnam(user);
	if (!pw) {
		/* NSS modules disagree on how to say "no such user". */
		if (errno == 0 || errno == ENOENT || errno == ESRCH || errno == EBADF || errno == EPERM)
			return failed(why, n, -ESRCH, "no user '%s'", user);
		return failed(why, n, -errno, "cannot look up user '%s': %s", user, strerror(errno));
	}
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

int privs_drop(const char *user, bool keep_attach_caps, char *why, size_t n)
{
	struct privs_state st;
	uint64_t want = 0;
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	int r;

	if (!user || !*user)
		return failed(why, n, -EINVAL, "no user name");

	r = user_lookup(user, &uid, &gid, why, n);
	if (r < 0)
		return r;

	/* Start from nothing: whatever is not asked for below is lost. */
	capng_clear(CAPNG_SELECT_ALL);
	if (keep_attach_caps)
		for (size_t i = 0; i < ELEMENTSOF(attach_caps); i++) {
			if (capng_update(CAPNG_ADD, CAPNG_PERMITTED, attach_caps[i]) < 0)
				return failed(why, n, -EOPNOTSUPP,
					      "this kernel does not know %s (Linux 5.8 or later is needed)",
					      capng_capability_to_name(attach_caps[i]) ?:
											 "CAP_BPF/CAP_PERFMON");
			want |= UINT64_C(1) << attach_caps[i];
		}

	r = capng_change_id(uid, gid, CAPNG_DROP_SUPP_GRP | CAPNG_CLEAR_BOUNDING | CAPNG_CLEAR_AMBIENT);
	/* The process may now be half changed; the caller has to exit. */
	if (r < 0)
		return failed(why, n, -EPERM, "cannot switch to user '%s' (uid %u): %s failed", user,
			      (unsigned int)uid, change_id_step(r));

	/* Without it a setuid or file-capability binary run later could gain back what was dropped. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return failed(why, n, -errno, "cannot set no_new_privs: %s", strerror(errno));

	/* Trust the kernel's word over the library's return code. */
	r = privs_status(0, &st);
	if (r < 0)
		return failed(why, n, r, "cannot verify credentials after switching to '%s': %s", user,
			      strerror(-r));
	for (size_t i = 0; i < 4; i++)
		if (st.uid[i] != uid || st.gid[i] != gid)
			return failed(why, n, -EPERM, "uid/gid of '%s' not fully applied", user);
	if (st.n_groups != 0 || st.cap_eff != 0 || st.cap_prm != want || st.cap_bnd != 0 || st.cap_amb != 0 ||
	    st.cap_inh != 0 || !st.no_new_privs)
		return failed(why, n, -EPERM,
			      "capabilities after switching to '%s' are not the expected ones "
			      "(permitted %#" PRIx64 ", wanted %#" PRIx64 ")",
			      user, st.cap_prm, want);

	dropped = true;
	kept = want;
	return 0;
}

/* The file system ids back to root's, and the groups saved: undoes as_user(). */
static void as_root(const gid_t *groups, int n)
{
	setfsuid(0);
	setfsgid(getegid());
	if (n >= 0)
		(void)setgroups((size_t)n, groups);
}

/* Access checks as uid:gid without groups, as after privs_drop(); -EPERM when refused. */
static int as_user(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL) < 0)
		return -errno;
	setfsgid(gid);
	setfsuid(uid);
	/* setfsuid() reports no failure: ask for the ids in force */
	if ((uid_t)setfsuid((uid_t)-1) != uid || (gid_t)setfsgid((gid_t)-1) != gid)
		return -EPERM;
	return 0;
}

int privs_open_as(const char *user, const char *path, int flags, mode_t mode)
{
	gid_t groups[NGROUPS_MAX];
	uid_t uid;
	gid_t gid;
	int fd, n, r;

	if (geteuid() != 0 || !user || !*user || user_lookup(user, &uid, &gid, NULL, 0) < 0) {
		/* no drop will come: the file is ours */
		fd = open(path, flags | O_CLOEXEC, mode);
		return fd < 0 ? -errno : fd;
	}
	n = getgroups(NGROUPS_MAX, groups);
	if (n < 0)
		return -errno;
	r = as_user(uid, gid);
	fd = r < 0 ? -1 : open(path, flags | O_CLOEXEC, mode);
	if (fd < 0 && r == 0)
		r = -errno;
	as_root(groups, n);
	return fd < 0 ? r : fd;
}

uint64_t privs_missing(uint64_t want)
{
	uint64_t missing = 0;

	if (capng_get_caps_process() < 0)
		return want;
	for (unsigned int c = 0; c < 64; c++)
		if ((want & (UINT64_C(1) << c)) && capng_have_capability(CAPNG_EFFECTIVE, c) != 1)
			missing |= UINT64_C(1) << c;
	return missing;
}

static int effective_set(bool on)
{
	if (!dropped)
		return 0;
	if (kept == 0)
		return -EPERM;

	/* libcap-ng's state is per thread; refresh it from this thread's kernel state. */
	if (capng_get_caps_process() < 0)
		return -EPERM;
	for (size_t i = 0; i < ELEMENTSOF(attach_caps); i++) {
		bool eff = on || (resident & (UINT64_C(1) << attach_caps[i]));

		if (capng_update(eff ? CAPNG_ADD : CAPNG_DROP, CAPNG_EFFECTIVE, attach_caps[i]) < 0)
			return -EINVAL;
	}
	if (capng_apply(CAPNG_SELECT_CAPS) < 0)
		return -EPERM;
	return 0;
}

int privs_raise(void)
{
	return effective_set(true);
}

int privs_lower(void)
{
	return effective_set(false);
}

int privs_keep_effective(uint64_t caps)
{
	if (!dropped)
		return 0;
	if ((caps & kept) != caps)
		return -EPERM;
	resident = caps;
	return effective_set(false);
}

int privs_forget(void)
{
	if (!dropped || kept == 0)
		return 0;
	capng_clear(CAPNG_SELECT_CAPS);
	if (capng_apply(CAPNG_SELECT_CAPS) < 0)
		return -EPERM;
	kept = 0;
	resident = 0;
	return 0;
}

static int parse_ids(const char *s, unsigned int ids[4])
{
	char *end;

	for (size_t i = 0; i < 4; i++) {
		unsigned long v;

		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno != 0 || end == s || v > UINT32_MAX)
			return -EBADMSG;
		ids[i] = (unsigned int)v;
		s = end;
	}
	return 0;
}

static int parse_mask(const char *s, uint64_t *mask)
{
	char *end;

	errno = 0;
	*mask = strtoull(s, &end, 16);
	if (errno != 0 || end == s)
		return -EBADMSG;
	return 0;
}

int privs_status(pid_t pid, struct privs_state *out)
{
	char path[64], *line = NULL;
	size_t size = 0;
	unsigned int seen = 0;
	FILE *f;
	int r = 0;

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/thread-self/status");
	else
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);

	f = fopen(path, "re");
	if (!f)
		return -errno;

	*out = (struct privs_state) {};
	while (r == 0 && getline(&line, &size, f) > 0) {
		char *v = strchr(line, ':');
		unsigned int ids[4];

		if (!v)
			continue;
		*v++ = '\0';

		if (strcmp(line, "Uid") == 0 || strcmp(line, "Gid") == 0) {
			r = parse_ids(v, ids);
			for (size_t i = 0; r == 0 && i < 4; i++) {
				if (line[0] == 'U')
					out->uid[i] = ids[i];
				else
					out->gid[i] = ids[i];
			}
			seen |= line[0] == 'U' ? 1 : 2;
		} else if (strcmp(line, "Groups") == 0) {
			for (char *t = strtok(v, " \t\n"); t; t = strtok(NULL, " \t\n"))
				out->n_groups++;
			seen |= 4;
		} else if (strcmp(line, "CapInh") == 0) {
			r = parse_mask(v, &out->cap_inh);
			seen |= 8;
		} else if (strcmp(line, "CapPrm") == 0) {
			r = parse_mask(v, &out->cap_prm);
			seen |= 16;
		} else if (strcmp(line, "CapEff") == 0) {
			r = parse_mask(v, &out->cap_eff);
			seen |= 32;
		} else if (strcmp(line, "CapBnd") == 0) {
			r = parse_mask(v, &out->cap_bnd);
			seen |= 64;
		} else if (strcmp(line, "CapAmb") == 0) {
			r = parse_mask(v, &out->cap_amb);
			seen |= 128;
		} else if (strcmp(line, "NoNewPrivs") == 0) {
			out->no_new_privs = strtoul(v, NULL, 10) != 0;
			seen |= 256;
		}
	}
	free(line);
	fclose(f);

	if (r < 0)
		return r;
	/* CapAmb and NoNewPrivs exist since 4.3 and 4.10; older kernels are not supported anyway. */
	if (seen != 511)
		return -EBADMSG;
	return 0;
}
