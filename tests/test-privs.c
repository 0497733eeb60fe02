/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * privs_drop() changes the process for good, so every case runs in a forked
 * child that reports through its exit status. Needs root; skipped otherwise.
 */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <elf.h>

#include "base/privs.h"

#include "check.h"

#define TEST_USER "nobody"
#define EXIT_SKIP 77

/* getpwnam()'s buffer is reused by privs_drop(): keep a copy. */
struct user {
	uid_t pw_uid;
	gid_t pw_gid;
};

/*
 * A copy of this test binary that nobody maps, in a directory the test user
 * can search: the uprobe target, so that no running process gets a breakpoint.
 */
static char uprobe_dir[] = "/tmp/test-privs-XXXXXX";
static char uprobe_path[sizeof(uprobe_dir) + 16];
static int64_t uprobe_offset = -ENOENT;

static long read_sysctl(const char *path)
{
	char buf[32] = {};
	long v = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) > 0)
		v = strtol(buf, NULL, 10);
	close(fd);
	return v;
}

/*
 * Address of the first text symbol in /proc/kallsyms: the kernel prints
 * zeros to openers it does not trust. (Per-CPU symbols lead the file and
 * may really be at 0.)
 */
static int kallsyms_text_address(uint64_t *addr)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char type;
	int r = -ENOENT;

	if (!f)
		return -errno;
	while (fscanf(f, "%" SCNx64 " %c %*[^\n]", addr, &type) == 2)
		if (type == 'T' || type == 't') {
			r = 0;
			break;
		}
	fclose(f);
	return r;
}

static void check_creds(const struct privs_state *st, uid_t uid, gid_t gid, uint64_t prm, uint64_t eff)
{
	for (size_t i = 0; i < 4; i++) {
		check(st->uid[i] == uid, "uid[%zu] is %u, want %u", i, st->uid[i], uid);
		check(st->gid[i] == gid, "gid[%zu] is %u, want %u", i, st->gid[i], gid);
	}
	check(st->n_groups == 0, "%u supplementary groups left", st->n_groups);
	check(st->cap_prm == prm, "CapPrm %#" PRIx64 ", want %#" PRIx64, st->cap_prm, prm);
	check(st->cap_eff == eff, "CapEff %#" PRIx64 ", want %#" PRIx64, st->cap_eff, eff);
	check(st->cap_bnd == 0, "CapBnd %#" PRIx64 ", want empty", st->cap_bnd);
	check(st->cap_amb == 0, "CapAmb %#" PRIx64 ", want empty", st->cap_amb);
	check(st->cap_inh == 0, "CapInh %#" PRIx64 ", want empty", st->cap_inh);
	check(st->no_new_privs, "NoNewPrivs not set");
}

static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

/* A perf event of a dynamic PMU (kprobe, uprobe) with a program on it: a later kprobe/uprobe attach. */
static int attach_perf(const char *pmu, uint64_t config1, uint64_t config2)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .config1 = config1, .config2 = config2 };
	char path[128];
	long type;
	int pfd, prog_fd, r = 0;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	type = read_sysctl(path);
	if (type < 0)
		return -EOPNOTSUPP;
	attr.type = (uint32_t)type;

	prog_fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "privs_test", "GPL", ret0, 2, NULL);
	if (prog_fd < 0)
		return -errno;
	pfd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		r = -errno;
	else if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, prog_fd) < 0)
		r = -errno;
	if (pfd >= 0)
		close(pfd);
	close(prog_fd);
	return r;
}

/* An fentry program on a vmlinux function, linked and unlinked: a later fentry attach. */
static int attach_fentry(const char *func)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY);
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int id, prog_fd, link_fd, r = 0;

	if (!vmlinux)
		return -EOPNOTSUPP;
	id = btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC);
	btf__free(vmlinux);
	if (id < 0)
		return -ENOENT;
	opts.attach_btf_id = (uint32_t)id;

	prog_fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "privs_test", "GPL", ret0, 2, &opts);
	if (prog_fd < 0)
		return -errno;
	link_fd = bpf_link_create(prog_fd, 0, BPF_TRACE_FENTRY, NULL);
	if (link_fd < 0)
		r = -errno;
	else
		close(link_fd);
	close(prog_fd);
	return r;
}

/* A raw tracepoint, as the block layer's probes use. */
static int attach_raw_tp(const char *tp)
{
	int prog_fd, tp_fd, r = 0;

	prog_fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "privs_test", "GPL", ret0, 2, NULL);
	if (prog_fd < 0)
		return -errno;
	tp_fd = bpf_raw_tracepoint_open(tp, prog_fd);
	if (tp_fd < 0)
		r = -errno;
	else
		close(tp_fd);
	close(prog_fd);
	return r;
}

/*
 * A uprobe_multi link (Linux 6.6), made with a raw bpf() call since the
 * libbpf this builds against may predate it. The uapi layout is fixed.
 */
#define ATTACH_TRACE_UPROBE_MULTI 48
struct link_create_uprobe_multi {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t uprobe_flags;
	uint32_t pid;
	uint8_t rest_of_bpf_attr[76];
};

static int attach_uprobe_multi(const char *path, uint64_t offset)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = ATTACH_TRACE_UPROBE_MULTI);
	struct link_create_uprobe_multi attr = {
		.attach_type = ATTACH_TRACE_UPROBE_MULTI,
		.path = (uint64_t)(uintptr_t)path,
		.offsets = (uint64_t)(uintptr_t)&offset,
		.cnt = 1,
	};
	int prog_fd, link_fd, r = 0;

	prog_fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "privs_test", "GPL", ret0, 2, &opts);
	if (prog_fd < 0)
		return -errno;
	attr.prog_fd = (uint32_t)prog_fd;
	link_fd = (int)syscall(SYS_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	if (link_fd < 0)
		r = -errno;
	else
		close(link_fd);
	close(prog_fd);
	return r;
}

/* File offset of the ELF entry point: a real instruction to put a uprobe on. */
static int elf_entry_offset(const char *path, uint64_t *offset)
{
	Elf64_Ehdr eh;
	int fd, r = -ENOEXEC;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64)
		goto out;
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * (uint64_t)eh.e_phentsize)) !=
		    sizeof(ph))
			break;
		if (ph.p_type == PT_LOAD && eh.e_entry >= ph.p_vaddr &&
		    eh.e_entry < ph.p_vaddr + ph.p_filesz) {
			*offset = eh.e_entry - ph.p_vaddr + ph.p_offset;
			r = 0;
			break;
		}
	}
out:
	close(fd);
	return r;
}

static int map_create(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "privs_test", 4, 8, 1, NULL);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

enum attach_kind {
	ATTACH_MAP,
	ATTACH_FENTRY,
	ATTACH_KPROBE,
	ATTACH_RAW_TP,
	ATTACH_UPROBE_MULTI,
	ATTACH_UPROBE_PERF,
	_ATTACH_MAX,
};

static const char *const attach_name[_ATTACH_MAX] = {
	[ATTACH_MAP] = "BPF map",
	[ATTACH_FENTRY] = "fentry on vfs_read",
	[ATTACH_KPROBE] = "kprobe on vfs_read",
	[ATTACH_RAW_TP] = "raw_tp block_rq_issue",
	[ATTACH_UPROBE_MULTI] = "uprobe_multi link",
	[ATTACH_UPROBE_PERF] = "uprobe perf event",
};

/* What root could do on this kernel: the baseline the kept capabilities are held to. */
static int attach_as_root[_ATTACH_MAX];

static int attach_try(enum attach_kind k)
{
	switch (k) {
	case ATTACH_MAP:
		return map_create();
	case ATTACH_FENTRY:
		return attach_fentry("vfs_read");
	case ATTACH_KPROBE:
		return attach_perf("kprobe", (uint64_t)(uintptr_t) "vfs_read", 0);
	case ATTACH_RAW_TP:
		return attach_raw_tp("block_rq_issue");
	case ATTACH_UPROBE_MULTI:
		return uprobe_offset < 0 ? (int)uprobe_offset :
					   attach_uprobe_multi(uprobe_path, (uint64_t)uprobe_offset);
	case ATTACH_UPROBE_PERF:
		return uprobe_offset < 0 ? (int)uprobe_offset :
					   attach_perf("uprobe", (uint64_t)(uintptr_t)uprobe_path,
						       (uint64_t)uprobe_offset);
	default:
		return -EINVAL;
	}
}

static void case_missing_user(void)
{
	int r = privs_drop("smblat-test-no-such-user", true, NULL, 0);

	check(r == -ESRCH, "missing user gave %d, want -ESRCH", r);
	check(getuid() == 0, "a failed drop changed the uid");
	check(privs_drop("", false, NULL, 0) == -EINVAL, "empty user name accepted");
}

static void case_drop_all(const struct user *pw)
{
	struct privs_state st;
	int r;

	check(setgroups(2, (gid_t[]) { 4, 24 }) == 0, "setgroups: %m");
	r = privs_drop(TEST_USER, false, NULL, 0);
	check(r == 0, "privs_drop(%s, false, NULL, 0) = %d", TEST_USER, r);
	if (r < 0)
		return;

	r = privs_status(0, &st);
	check(r == 0, "privs_status: %d", r);
	check_creds(&st, pw->pw_uid, pw->pw_gid, 0, 0);

	check(privs_raise() == -EPERM, "privs_raise() without kept caps did not fail");
	check(setuid(0) < 0, "setuid(0) worked after the drop");
	check(map_create() == -EPERM || read_sysctl("/proc/sys/kernel/unprivileged_bpf_disabled") == 0,
	      "BPF map created without capabilities");
}

static void case_drop_keep(const struct user *pw)
{
	long kptr_restrict = read_sysctl("/proc/sys/kernel/kptr_restrict");
	long paranoid = read_sysctl("/proc/sys/kernel/perf_event_paranoid");
	struct privs_state st;
	uint64_t addr;
	int r;

	check(setgroups(2, (gid_t[]) { 4, 24 }) == 0, "setgroups: %m");
	r = privs_drop(TEST_USER, true, NULL, 0);
	check(r == 0, "privs_drop(%s, true, NULL, 0) = %d", TEST_USER, r);
	if (r < 0)
		return;

	check(privs_status(0, &st) == 0, "privs_status failed");
	check_creds(&st, pw->pw_uid, pw->pw_gid, PRIVS_ATTACH_CAPS, 0);

	r = privs_raise();
	check(r == 0, "privs_raise() = %d", r);
	check(privs_status(0, &st) == 0, "privs_status failed");
	check_creds(&st, pw->pw_uid, pw->pw_gid, PRIVS_ATTACH_CAPS, PRIVS_ATTACH_CAPS);

	/* The kept set must be enough for what later attaches do, wherever root manages. */
	for (enum attach_kind k = 0; k < _ATTACH_MAX; k++) {
		r = attach_try(k);
		printf("  %-22s root: %-25s kept caps: %s\n", attach_name[k],
		       attach_as_root[k] == 0 ? "ok" : strerror(-attach_as_root[k]),
		       r == 0 ? "ok" : strerror(-r));
		check(attach_as_root[k] != 0 || r == 0, "%s works as root but not with the kept caps: %s",
		      attach_name[k], strerror(-r));
	}
	if (kptr_restrict >= 0 && kptr_restrict < 2) {
		check(kallsyms_text_address(&addr) == 0, "cannot read /proc/kallsyms");
		check(addr != 0, "/proc/kallsyms hides addresses with CAP_SYSLOG raised");
	}
	/* How libbpf finds the BTF of a module loaded after start. */
	uint32_t id = 0;
	check(bpf_btf_get_next_id(0, &id) == 0, "BPF_BTF_GET_NEXT_ID refused with raised caps: %m");

	r = privs_lower();
	check(r == 0, "privs_lower() = %d", r);
	check(privs_status(0, &st) == 0, "privs_status failed");
	check_creds(&st, pw->pw_uid, pw->pw_gid, PRIVS_ATTACH_CAPS, 0);

	if (read_sysctl("/proc/sys/kernel/unprivileged_bpf_disabled") != 0)
		check(map_create() == -EPERM, "BPF map created with lowered caps");
	check(bpf_btf_get_next_id(0, &id) < 0 && errno == EPERM,
	      "BPF_BTF_GET_NEXT_ID allowed with lowered caps");
	if (kptr_restrict == 1 || (kptr_restrict == 0 && paranoid > 1)) {
		check(kallsyms_text_address(&addr) == 0, "cannot read /proc/kallsyms");
		check(addr == 0, "/proc/kallsyms shows addresses with caps lowered");
	}

	/* Raising twice and lowering twice are harmless. */
	check(privs_raise() == 0 && privs_raise() == 0, "repeated privs_raise() failed");
	check(privs_lower() == 0 && privs_lower() == 0, "repeated privs_lower() failed");

	/* After the last late attach: nothing left to raise, for good. */
	check(privs_raise() == 0, "privs_raise() before privs_forget() failed");
	r = privs_forget();
	check(r == 0, "privs_forget() = %d", r);
	check(privs_status(0, &st) == 0, "privs_status failed");
	check_creds(&st, pw->pw_uid, pw->pw_gid, 0, 0);
	check(privs_raise() == -EPERM, "privs_raise() after privs_forget() did not fail");
	check(privs_forget() == 0, "repeated privs_forget() failed");
}

static void case_status(void)
{
	struct privs_state self, byid;

	check(privs_status(0, &self) == 0, "privs_status(0) failed");
	check(privs_status(getpid(), &byid) == 0, "privs_status(getpid()) failed");
	check(self.uid[0] == 0 && byid.uid[0] == 0, "not root in /proc/PID/status");
	check(byid.cap_eff == self.cap_eff, "CapEff differs between pid 0 and getpid()");
	check(privs_status(-5, &self) < 0, "privs_status of a bogus pid worked");

	/* Before any drop, raise, lower and forget must not touch a root process. */
	check(privs_raise() == 0 && privs_lower() == 0 && privs_forget() == 0,
	      "raise/lower/forget before drop failed");
	check(privs_status(0, &byid) == 0 && byid.cap_eff == self.cap_eff,
	      "raise/lower before drop changed CapEff");
}

/* Each case in a child of its own: a drop cannot be undone. A failed child is one failure here. */
static void run(const char *name, void (*fn)(const struct user *), const struct user *pw)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		failures++;
		return;
	}
	if (pid == 0) {
		fn(pw);
		fflush(NULL);
		_exit(failures ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "FAIL: %s\n", name);
		failures++;
		return;
	}
	printf("ok: %s\n", name);
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in, out, r = 0;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (out < 0) {
		r = -errno;
		close(in);
		return r;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			r = -EIO;
			break;
		}
	if (n < 0)
		r = -errno;
	close(in);
	if (close(out) < 0 && r == 0)
		r = -errno;
	return r;
}

static void uprobe_target_setup(void)
{
	uint64_t off = 0;
	int r;

	if (!mkdtemp(uprobe_dir) || chmod(uprobe_dir, 0755) < 0) {
		uprobe_dir[0] = '\0';
		uprobe_offset = -errno;
		return;
	}
	snprintf(uprobe_path, sizeof(uprobe_path), "%s/target", uprobe_dir);
	r = copy_file("/proc/self/exe", uprobe_path);
	if (r == 0)
		r = elf_entry_offset(uprobe_path, &off);
	uprobe_offset = r < 0 ? r : (int64_t)off;
}

static void uprobe_target_cleanup(void)
{
	if (!uprobe_dir[0])
		return;
	unlink(uprobe_path);
	rmdir(uprobe_dir);
}

static void wrap_missing(const struct user *pw)
{
	case_missing_user();
}
static void wrap_status(const struct user *pw)
{
	case_status();
}

/*
 * Where the kernel refuses bpf() to unprivileged processes as a whole,
 * CAP_BPF stays effective between attaches: a lower keeps it, a raise
 * adds the rest, and only kept capabilities can stay.
 */
static void case_keep_effective(const struct user *pw)
{
	const uint64_t bpf = UINT64_C(1) << CAP_BPF;
	struct privs_state st;
	int r;

	r = privs_drop(TEST_USER, true, NULL, 0);
	check(r == 0, "privs_drop(%s, true, NULL, 0) = %d", TEST_USER, r);
	if (r < 0)
		return;
	check(privs_keep_effective(UINT64_C(1) << CAP_SETUID) == -EPERM,
	      "a capability not kept stayed effective");
	r = privs_keep_effective(bpf);
	check(r == 0, "privs_keep_effective(CAP_BPF) = %d", r);
	check(privs_status(0, &st) == 0, "privs_status failed");
	check_creds(&st, pw->pw_uid, pw->pw_gid, PRIVS_ATTACH_CAPS, bpf);
	check(privs_raise() == 0, "privs_raise() failed");
	check(privs_status(0, &st) == 0, "privs_status failed");
	check_creds(&st, pw->pw_uid, pw->pw_gid, PRIVS_ATTACH_CAPS, PRIVS_ATTACH_CAPS);
	check(privs_lower() == 0, "privs_lower() failed");
	check(privs_status(0, &st) == 0, "privs_status failed");
	check_creds(&st, pw->pw_uid, pw->pw_gid, PRIVS_ATTACH_CAPS, bpf);
	/* what it is kept for: a bpf() call on an existing object */
	uint32_t id = 0;
	check(bpf_btf_get_next_id(0, &id) < 0 && errno == EPERM,
	      "BPF_BTF_GET_NEXT_ID (CAP_SYS_ADMIN) allowed with CAP_BPF alone");
	check(map_create() == 0, "no BPF map created with CAP_BPF effective");
	check(privs_forget() == 0, "privs_forget() failed");
	check(privs_status(0, &st) == 0, "privs_status failed");
	check_creds(&st, pw->pw_uid, pw->pw_gid, 0, 0);
}

int main(void)
{
	/* What privs_drop() itself needs, and what it keeps. */
	const uint64_t switch_caps = (UINT64_C(1) << CAP_SETUID) | (UINT64_C(1) << CAP_SETGID) |
				     (UINT64_C(1) << CAP_SETPCAP);
	struct privs_state st;
	struct passwd *pw;
	struct user u;

	if (geteuid() != 0) {
		printf("skip: needs root\n");
		return EXIT_SKIP;
	}
	pw = getpwnam(TEST_USER);
	if (!pw) {
		printf("skip: no user %s\n", TEST_USER);
		return EXIT_SKIP;
	}
	u = (struct user) { pw->pw_uid, pw->pw_gid };
	/* Containers often give root a trimmed capability set. */
	if (privs_status(0, &st) < 0) {
		fprintf(stderr, "FAIL: cannot read /proc/thread-self/status\n");
		return 1;
	}
	if ((st.cap_eff & switch_caps) != switch_caps) {
		printf("skip: root here lacks CAP_SETUID, CAP_SETGID or CAP_SETPCAP\n");
		return EXIT_SKIP;
	}

	uprobe_target_setup();
	for (enum attach_kind k = 0; k < _ATTACH_MAX; k++)
		attach_as_root[k] = attach_try(k);

	run("status", wrap_status, &u);
	run("missing user", wrap_missing, &u);
	run("drop everything", case_drop_all, &u);
	if ((st.cap_prm & PRIVS_ATTACH_CAPS) == PRIVS_ATTACH_CAPS) {
		run("drop keeping attach caps", case_drop_keep, &u);
		run("CAP_BPF kept effective", case_keep_effective, &u);
	} else
		printf("skip: drop keeping attach caps: root here lacks CAP_BPF, CAP_PERFMON or "
		       "CAP_SYSLOG\n");

	uprobe_target_cleanup();
	return check_done("privs");
}
