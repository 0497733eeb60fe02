/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests for config/target.c: every form of the target grammar, and what it refuses. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config/target.h"

#include "check.h"

static const char *kind_name(enum target_kind k)
{
	static const char *const names[] = {
		[TARGET_KERNEL] = "kernel", [TARGET_QUALIFIED] = "qualified", [TARGET_USER] = "user",
		[TARGET_USDT] = "usdt",     [TARGET_SYSCALL] = "syscall",
	};

	return k <= TARGET_SYSCALL ? names[k] : "?";
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* s parses as kind with these parts (NULL: none). */
static void ok(const char *s, enum target_kind kind, const char *object, const char *symbol,
	       const char *provider, const char *end)
{
	const char *problem = NULL;
	struct target t;
	int r = target_parse(s, &t, &problem);

	check(r == 0, "\"%s\": %d (%s)", s, r, problem ? problem : "-");
	if (r < 0)
		return;
	check(t.kind == kind, "\"%s\": kind %s, want %s", s, kind_name(t.kind), kind_name(kind));
	check(same(t.object, object), "\"%s\": object \"%s\", want \"%s\"", s, t.object ?: "(null)",
	      object ?: "(null)");
	check(same(t.symbol, symbol), "\"%s\": symbol \"%s\", want \"%s\"", s, t.symbol ?: "(null)",
	      symbol ?: "(null)");
	check(same(t.provider, provider) && same(t.end, end), "\"%s\": provider/end \"%s\"/\"%s\"", s,
	      t.provider ?: "(null)", t.end ?: "(null)");
	target_done(&t);
}

/* s is refused with a problem containing want. */
static void bad(const char *s, const char *want)
{
	const char *problem = NULL;
	struct target t;
	int r = target_parse(s, &t, &problem);

	check(r == -EINVAL, "\"%s\": %d, want -EINVAL", s, r);
	if (r == 0)
		target_done(&t);
	check(problem && strstr(problem, want), "\"%s\": problem \"%s\", want \"%s\"", s, problem ?: "(null)",
	      want);
}

int main(void)
{
	/* kernel functions, with or without a module (or library: decided at attach) */
	ok("vfs_read", TARGET_KERNEL, NULL, "vfs_read", NULL, NULL);
	ok("ext4_sync_file.isra.0", TARGET_KERNEL, NULL, "ext4_sync_file.isra.0", NULL, NULL);
	ok("cifs:cifs_unlink", TARGET_QUALIFIED, "cifs", "cifs_unlink", NULL, NULL);
	/* modules named lib* are modules if the kernel has them, not forced to user space */
	ok("libceph:ceph_osdc_start_request", TARGET_QUALIFIED, "libceph", "ceph_osdc_start_request", NULL,
	   NULL);
	ok("libcrc32c:crc32c", TARGET_QUALIFIED, "libcrc32c", "crc32c", NULL, NULL);
	ok("dm-mod:dm_submit_bio", TARGET_QUALIFIED, "dm-mod", "dm_submit_bio", NULL, NULL);
	/* bcc's library shorthand: c:open is libc's open */
	ok("c:open", TARGET_QUALIFIED, "c", "open", NULL, NULL);
	ok("pthread:pthread_create", TARGET_QUALIFIED, "pthread", "pthread_create", NULL, NULL);
	ok("stdc++:_Znwm", TARGET_QUALIFIED, "stdc++", "_Znwm", NULL, NULL);
	/* a file name with .so, or a path, is user space */
	ok("libc.so.6:malloc", TARGET_USER, "libc.so.6", "malloc", NULL, NULL);
	ok("libfoo.so:bar", TARGET_USER, "libfoo.so", "bar", NULL, NULL);
	ok("/usr/sbin/smbd:main", TARGET_USER, "/usr/sbin/smbd", "main", NULL, NULL);
	ok("./prog:slow_call", TARGET_USER, "./prog", "slow_call", NULL, NULL);
	ok("/usr/lib/x86_64-linux-gnu/libc.so.6:malloc", TARGET_USER, "/usr/lib/x86_64-linux-gnu/libc.so.6",
	   "malloc", NULL, NULL);
	/* usdt:PATH:PROVIDER:START,END, the path may hold colons */
	ok("usdt:/bin/prog:prov:op_start,op_end", TARGET_USDT, "/bin/prog", "op_start", "prov", "op_end");
	ok("usdt:/opt/a:b/prog:prov:s,e", TARGET_USDT, "/opt/a:b/prog", "s", "prov", "e");
	ok("syscall:openat", TARGET_SYSCALL, NULL, "openat", NULL, NULL);

	bad("", "empty");
	bad("vfs read", "blanks");
	bad("cifs:", "empty part");
	bad(":vfs_read", "empty part");
	bad("a::b", "empty part");
	bad("usdt:/bin/x:prov", "usdt:PATH:PROVIDER:START,END");
	bad("usdt:/bin/x:prov:start", "entry and return");
	bad("usdt:/bin/x:prov:start,", "entry and return");
	bad("usdt:/bin/x:prov:a,b,c", "entry and return");
	bad("syscall:Open", "syscall:NAME");
	bad("syscall:", "empty part");
	bad("vfs/read", "function name");
	bad("cifs:cifs-unlink", "OBJECT:FUNCTION");
	bad("a b:c", "blanks");
	return check_done("target");
}
