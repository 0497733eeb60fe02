/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mounts: SMB share names by kernel device number, from a synthetic mountinfo. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symbols/mounts.h"

#include "check.h"

#define KDEV(major, minor) ((uint32_t)(major) << 20 | (uint32_t)(minor))

static const char mountinfo[] =
	"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
	"23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
	/* Optional fields of any number before the separator. */
	"100 22 0:55 / /mnt/smb rw,relatime shared:90 master:3 - cifs //srv/share "
	"rw,vers=3.1.1,cache=strict,username=u,addr=10.0.0.1\n"
	"101 22 0:56 / /mnt/s3 rw,relatime - smb3 //files.example.com/Data rw,vers=3.0\n"
	/* A subdirectory of a share mounted on its own: the share is still \\srv\share. */
	"102 22 0:57 / /mnt/sub rw,relatime shared:91 - cifs //srv/share/sub rw,vers=3.1.1\n"
	/* A share with a space in its name: mountinfo escapes it as \040. */
	"103 22 0:58 / /mnt/docs rw,relatime - cifs //srv/My\\040Docs rw,vers=3.1.1\n"
	/* A block device with a major number, to exercise MAJOR << 20. */
	"104 22 259:3 / /home rw,relatime shared:5 - ext4 /dev/nvme0n1p3 rw\n"
	/* SMB on a device with a major number: the encoding is the kernel's, not dev_t's. */
	"106 22 1:5 / /mnt/odd rw - cifs //odd/share rw\n"
	"105 22 0:59 / /mnt/nfs rw,relatime - nfs4 srv:/export rw,vers=4.2\n"
	"not a mountinfo line\n";

static char path[64];

static void write_mountinfo(const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(EXIT_FAILURE);
	}
}

static void check_share(struct mounts *m, uint32_t kdev, const char *want)
{
	const char *s = mounts_share(m, kdev);

	if (!want)
		check(!s, "share of %u:%u = \"%s\", want none", kdev >> 20, kdev & 0xfffff, s);
	else
		check(s && strcmp(s, want) == 0, "share of %u:%u = \"%s\", want \"%s\"", kdev >> 20,
		      kdev & 0xfffff, s ? s : "(null)", want);
}

/*
 * The table is read again on a miss at most once a second: ask (with a
 * miss first, 0:99, to let a re-read happen) until kdev is there or gone
 * as wanted, for 5 s at most.
 */
static void wait_share(struct mounts *m, uint32_t kdev, bool present)
{
	for (int ms = 0; ms < 5000; ms += 10) {
		(void)mounts_share(m, KDEV(0, 99));
		if (!!mounts_share(m, kdev) == present)
			return;
		usleep(10 * 1000);
	}
}

static void test_static(void)
{
	struct mounts *m = NULL;
	int r;

	r = mounts_new(path, &m);
	check(r == 0 && m, "mounts_new = %d", r);
	if (!m)
		return;
	check_share(m, KDEV(0, 55), "\\\\srv\\share");
	check_share(m, KDEV(0, 56), "\\\\files.example.com\\Data");
	check_share(m, KDEV(0, 57), "\\\\srv\\share");
	check_share(m, KDEV(0, 58), "\\\\srv\\My Docs");
	check_share(m, KDEV(1, 5), "\\\\odd\\share");
	check_share(m, 1u << 8 | 5, NULL);
	/* Not SMB. */
	check_share(m, KDEV(8, 1), NULL);
	check_share(m, KDEV(259, 3), NULL);
	check_share(m, KDEV(0, 59), NULL);
	check_share(m, KDEV(0, 21), NULL);
	/* Unknown devices; userspace's MAJOR << 8 encoding of 0:55 is another number. */
	check_share(m, KDEV(0, 99), NULL);
	check_share(m, KDEV(1, 55), NULL);
	check_share(m, 0, NULL);
	/* Asking again gives the same answer after misses and re-reads. */
	check_share(m, KDEV(0, 55), "\\\\srv\\share");
	mounts_free(m);
}

static void test_reread(void)
{
	struct mounts *m = NULL;
	const char *s;
	time_t before, after;
	int r;

	write_mountinfo(mountinfo, "we");
	before = time(NULL);
	r = mounts_new(path, &m);
	check(r == 0 && m, "mounts_new = %d", r);
	if (!m)
		return;
	check_share(m, KDEV(0, 55), "\\\\srv\\share");

	/* Mounted after the agent read the table. */
	write_mountinfo("120 22 0:70 / /mnt/late rw,relatime - smb3 //late/share rw\n", "ae");
	s = mounts_share(m, KDEV(0, 70));
	after = time(NULL);
	/* Within the second of the load, a miss does not re-read the file. */
	if (before == after)
		check(!s, "late mount found within the same second: \"%s\"", s);

	wait_share(m, KDEV(0, 70), true);
	check_share(m, KDEV(0, 70), "\\\\late\\share");
	check_share(m, KDEV(0, 55), "\\\\srv\\share");

	/* Unmounted: gone after the next re-read, which a miss triggers. */
	write_mountinfo("100 22 0:55 / /mnt/smb rw - cifs //srv/share rw\n", "we");
	wait_share(m, KDEV(0, 70), false);
	check_share(m, KDEV(0, 99), NULL);
	check_share(m, KDEV(0, 70), NULL);
	check_share(m, KDEV(0, 55), "\\\\srv\\share");
	mounts_free(m);
}

/* No file yet: an empty table, and shares appear once it exists. */
static void test_missing_file(void)
{
	struct mounts *m = NULL;
	int r;

	unlink(path);
	r = mounts_new(path, &m);
	check(r == 0 && m, "mounts_new(missing file) = %d", r);
	if (!m)
		return;
	check_share(m, KDEV(0, 55), NULL);
	write_mountinfo(mountinfo, "we");
	wait_share(m, KDEV(0, 55), true);
	check_share(m, KDEV(0, 55), "\\\\srv\\share");
	mounts_free(m);
}

/* The host's own table parses; nothing to check but that it does not crash. */
static void test_self(void)
{
	struct mounts *m = NULL;
	int r = mounts_new(NULL, &m);

	check(r == 0 && m, "mounts_new(NULL) = %d", r);
	if (m)
		(void)mounts_share(m, KDEV(0, 1));
	mounts_free(m);
}

int main(void)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/test-mounts.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return EXIT_FAILURE;
	}
	close(fd);
	write_mountinfo(mountinfo, "we");

	test_static();
	test_reread();
	test_missing_file();
	test_self();
	unlink(path);

	return check_done("mounts");
}
