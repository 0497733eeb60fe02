/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * layers_decode: hand-built ring buffer records against a function table, a
 * synthetic kallsyms file and a synthetic mountinfo file.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/event.h"
#include "layers/block/block.h"
#include "layers/layer.h"

#include "check.h"

#define check_str(got, want)                                                                               \
	do {                                                                                               \
		const char *g_ = (got), *w_ = (want);                                                      \
		check((!g_ && !w_) || (g_ && w_ && strcmp(g_, w_) == 0), "\n  got  \"%s\"\n  want \"%s\"", \
		      g_ ? g_ : "(null)", w_ ? w_ : "(null)");                                             \
	} while (0)

static const char kallsyms[] = "ffffffff81000000 T _stext\n"
			       "ffffffff81100000 T vfs_unlink\n"
			       "ffffffff81100800 T do_unlinkat\n"
			       "ffffffff81101000 T __x64_sys_unlinkat\n"
			       "ffffffff81102000 T do_syscall_64\n"
			       "ffffffff81103000 T entry_SYSCALL_64_after_hwframe\n"
			       "ffffffff81104000 T d_alloc\n"
			       "ffffffff81105000 T arch_rethook_trampoline\n"
			       "ffffffff81106000 T bpf_trace_run2\n"
			       "ffffffff81106800 t __bpf_trace_sys_exit\n"
			       "ffffffff81107000 T syscall_exit_work\n"
			       "ffffffff81108000 T user_path_at\n"
			       "ffffffff81200000 D some_data\n"
			       "ffffffffc0a00000 t cifs_lookup\t[cifs]\n"
			       "ffffffffc0a01000 t cifs_unlink\t[cifs]\n"
			       "ffffffffc0c00000 t bpf_prog_6deef7357e7b4530_kretprobe_exit\t[bpf]\n"
			       "ffffffffc0c01000 t bpf_trampoline_6442512345\t[bpf]\n";

#define A_VFS_UNLINK 0xffffffff81100000ull
#define A_DO_UNLINKAT 0xffffffff81100800ull
#define A_SYS_UNLINKAT 0xffffffff81101000ull
#define A_DO_SYSCALL 0xffffffff81102000ull
#define A_ENTRY 0xffffffff81103000ull
#define A_RETHOOK 0xffffffff81105000ull
#define A_BPF_PROG 0xffffffffc0c00000ull
#define A_BPF_TRAMP 0xffffffffc0c01000ull
#define A_TRACE_RUN 0xffffffff81106000ull
#define A_BPF_TRACE 0xffffffff81106800ull
#define A_EXIT_WORK 0xffffffff81107000ull
#define A_USER_PATH 0xffffffff81108000ull
#define A_UNKNOWN 0xffffffff80000000ull /* below every symbol */
#define A_JIT 0xffffffffc0030d31ull     /* past vmlinux: a BPF program kallsyms did not list */

static const char mountinfo[] = "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
				"100 22 0:55 / /mnt/smb rw,relatime - cifs //srv/share rw,vers=3.1.1\n";

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/test-event.XXXXXX");
	int fd = path ? mkstemp(path) : -1;

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd) < 0) {
		perror("temporary file");
		exit(EXIT_FAILURE);
	}
	return path;
}

struct fixture {
	struct func_table funcs;
	struct ksyms *ks;
	struct mounts *mounts;
	struct decoder d;
	int unlink_id, lookup_id, dalloc_id, uprobe_id, read_id, count_id, void_id, sys_id;
};

static int add(struct func_table *t, enum layer_id l, enum op_group g, const char *name, const char *symbol,
	       const char *module, uint8_t ret_kind)
{
	int id = func_table_add(t, l, g, name, symbol, module);

	if (id < 0) {
		fprintf(stderr, "func_table_add(%s): %s\n", name, strerror(-id));
		exit(EXIT_FAILURE);
	}
	/* as the layers say it: a kernel function, else a target (a user path, a syscall) */
	t->v[id].kernel = symbol && !strchr(symbol, '/') && strncmp(symbol, "syscall:", 8) != 0;
	t->v[id].cfg.ret_kind = ret_kind;
	t->v[id].cfg.threshold_ns = 10000000;
	t->v[id].cfg.flags = FF_ENABLED | FF_KSTACK;
	return id;
}

static void fixture_init(struct fixture *f)
{
	char *ks_path = write_tmp(kallsyms), *mi_path = write_tmp(mountinfo);
	int r;

	memset(f, 0, sizeof(*f));
	f->unlink_id = add(&f->funcs, LAYER_SMB, GROUP_INODE, "INODE_OP_UNLINK", "cifs_unlink", "cifs",
			   RK_INT);
	f->lookup_id = add(&f->funcs, LAYER_SMB, GROUP_INODE, "INODE_OP_LOOKUP", "cifs_lookup", "cifs",
			   RK_PTR);
	f->dalloc_id = add(&f->funcs, LAYER_FUNC, GROUP_NONE, "DALLOC", "d_alloc", NULL, RK_PTR);
	f->uprobe_id = add(&f->funcs, LAYER_FUNC, GROUP_NONE, "SLOWCALL", "/usr/bin/prog:slow_call", NULL,
			   RK_INT);
	f->read_id = add(&f->funcs, LAYER_FUNC, GROUP_NONE, "READ", "vfs_unlink", NULL, RK_LONG);
	f->count_id = add(&f->funcs, LAYER_FUNC, GROUP_NONE, "COUNT", "do_unlinkat", NULL, RK_UINT);
	f->void_id = add(&f->funcs, LAYER_FUNC, GROUP_NONE, "NOTHING", "do_syscall_64", NULL, RK_VOID);
	f->sys_id = add(&f->funcs, LAYER_FUNC, GROUP_NONE, "UNLINKAT", "syscall:unlinkat", NULL, RK_LONG);
	f->funcs.v[f->unlink_id].cfg.threshold_ns = 20000000;
	f->funcs.v[f->unlink_id].cfg.nargs = 2;

	r = ksyms_load_file(ks_path, &f->ks);
	if (r < 0) {
		fprintf(stderr, "ksyms_load_file: %s\n", strerror(-r));
		exit(EXIT_FAILURE);
	}
	r = mounts_new(mi_path, &f->mounts);
	if (r < 0) {
		fprintf(stderr, "mounts_new: %s\n", strerror(-r));
		exit(EXIT_FAILURE);
	}
	unlink(ks_path);
	unlink(mi_path);
	free(ks_path);
	free(mi_path);

	f->d = (struct decoder) {
		.funcs = &f->funcs,
		.ks = f->ks,
		.mounts = f->mounts,
		.boot_to_realtime_ns = 1700000000000000000ll,
	};
}

static void fixture_done(struct fixture *f)
{
	func_table_free(&f->funcs);
	ksyms_free(f->ks);
	mounts_free(f->mounts);
}

/* A record through the agent's decoding (layers_decode()) with decoder d. */
static int decode(const struct decoder *d, const void *rec, size_t size, struct record *r)
{
	struct layer_env env = { .dec = d, .mounts = d->mounts };

	return layers_decode(&env, rec, size, r);
}

/* A slow cifs_unlink by rm, as the exit probe would send it. */
static struct rec_vfs_call unlink_event(const struct fixture *f)
{
	struct rec_vfs_call e;

	memset(&e, 0, sizeof(e));
	e.c.h.kind = REC_VFS_CALL;
	e.c.h.end_ns = 5000000000ull + 123456;
	e.c.h.latency_ns = 45210000;
	e.c.h.func_id = f->unlink_id;
	e.c.h.pid = 48782;
	e.c.h.tid = 48783;
	e.c.h.uid = 1000;
	e.dev = 55;
	e.c.h.flags = RF_HAS_DEV | RF_HAS_NAME | RF_HAS_RET;
	e.c.ret = 0xfffffffe; /* int -ENOENT, as a 32-bit value in a 64-bit slot */
	e.c.args[0] = 0xffff888001234500ull;
	e.c.args[1] = 0xffff888005678900ull;
	e.c.args[2] = 0x77; /* beyond nargs: still copied, not counted */
	memcpy(e.c.h.comm, "rm", 3);
	memcpy(e.name, "a.txt", 6);
	e.c.st.kstack[0] = A_BPF_PROG + 0x4c;
	e.c.st.kstack[1] = A_BPF_TRAMP + 0x60;
	e.c.st.kstack[2] = A_RETHOOK;
	e.c.st.kstack[3] = A_VFS_UNLINK + 0x12f;
	e.c.st.kstack[4] = A_DO_UNLINKAT + 0x1a0;
	e.c.st.kstack[5] = A_SYS_UNLINKAT + 0x20;
	e.c.st.kstack[6] = A_DO_SYSCALL + 0x40;
	e.c.st.kstack[7] = A_ENTRY + 0x76;
	e.c.st.kstack_sz = 8 * 8;
	e.c.st.kstack[8] = A_DO_SYSCALL; /* beyond kstack_sz: ignored */
	return e;
}

static void test_unlink(struct fixture *f)
{
	struct rec_vfs_call e = unlink_event(f);
	struct record r;
	int ret;

	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0, "decode = %d", ret);
	check(r.func == &f->funcs.v[f->unlink_id], "func %p", (const void *)r.func);
	check(r.latency_ns == 45210000, "latency %llu", (unsigned long long)r.latency_ns);
	check(r.threshold_ns == 20000000, "threshold %llu", (unsigned long long)r.threshold_ns);
	check(r.end_realtime_us == (1700000000000000000ull + 5000000000ull + 123456) / 1000,
	      "end_realtime_us %llu", (unsigned long long)r.end_realtime_us);
	check(r.pid == 48782 && r.tid == 48783 && r.uid == 1000, "pid %u tid %u uid %u", r.pid, r.tid, r.uid);
	check_str(r.comm, "rm");
	check_str(r.file, "a.txt");
	check_str(r.share, "\\\\srv\\share");
	check(r.has_ret, "no return value");
	check(r.ret == -2, "ret %lld, want -2", (long long)r.ret);
	check(r.err == ENOENT, "err %d, want ENOENT", r.err);
	check(r.nargs == 2, "nargs %u", r.nargs);
	check(r.args[0] == 0xffff888001234500ull && r.args[1] == 0xffff888005678900ull, "args %llx %llx",
	      (unsigned long long)r.args[0], (unsigned long long)r.args[1]);
	check_str(r.stack, "cifs_unlink+0x0 [cifs]\n"
			   "vfs_unlink+0x12f\n"
			   "do_unlinkat+0x1a0\n"
			   "__x64_sys_unlinkat+0x20\n"
			   "do_syscall_64+0x40\n"
			   "entry_SYSCALL_64_after_hwframe+0x76");
	check_str(r.stack_folded,
		  "entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_unlinkat;do_unlinkat;"
		  "vfs_unlink;cifs_unlink");
	event_record_clear(&r);
	check(!r.stack && !r.file && !r.func, "event_record_clear left fields set");
}

/* What the event says it has, and nothing more. */
static void test_flags(struct fixture *f)
{
	struct rec_vfs_call e = unlink_event(f);
	struct record r;
	int ret;

	e.c.h.flags = 0;
	e.dev = 55;
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0, "decode = %d", ret);
	check(!r.file, "FILE without RF_HAS_NAME: \"%s\"", r.file);
	check(!r.share, "share without RF_HAS_DEV: \"%s\"", r.share);
	check(!r.has_ret && r.err == 0, "return without RF_HAS_RET: has %d err %d", r.has_ret, r.err);
	event_record_clear(&r);

	/* A device that is no SMB mount, and a comm and name with no NUL at all. */
	e = unlink_event(f);
	e.dev = 8u << 20 | 1;
	memset(e.c.h.comm, 'c', sizeof(e.c.h.comm));
	memset(e.name, 'n', sizeof(e.name));
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0, "decode = %d", ret);
	check(!r.share, "share of an ext4 device: \"%s\"", r.share);
	check(strlen(r.comm) == SMBLAT_COMM_LEN, "comm of %zu characters", strlen(r.comm));
	check(r.file && strlen(r.file) == SMBLAT_NAME_LEN, "file of %zu characters",
	      r.file ? strlen(r.file) : 0);
	event_record_clear(&r);

	/* A successful int call: a positive value is no error. */
	e = unlink_event(f);
	e.c.ret = 7;
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0 && r.ret == 7 && r.err == 0, "int 7: ret %lld err %d", (long long)r.ret, r.err);
	event_record_clear(&r);

	/* More arguments configured than the event carries. */
	f->funcs.v[f->unlink_id].cfg.nargs = 9;
	e = unlink_event(f);
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0 && r.nargs == SMBLAT_MAX_ARGS && r.args[2] == 0x77, "nargs %u args[2] %llx", r.nargs,
	      (unsigned long long)r.args[2]);
	event_record_clear(&r);
	f->funcs.v[f->unlink_id].cfg.nargs = 2;
}

static void check_ret(struct fixture *f, int id, uint64_t raw, int64_t want_ret, int want_err)
{
	struct rec_vfs_call e = unlink_event(f);
	struct record r;
	int ret;

	e.c.h.func_id = id;
	e.c.ret = raw;
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0, "decode = %d", ret);
	check(r.ret == want_ret && r.err == want_err, "%s raw 0x%llx: ret %lld err %d, want %lld err %d",
	      f->funcs.v[id].name, (unsigned long long)raw, (long long)r.ret, r.err, (long long)want_ret,
	      want_err);
	event_record_clear(&r);
}

static void test_returns(struct fixture *f)
{
	/* RK_INT: the low 32 bits, sign extended, whatever the upper half holds. */
	check_ret(f, f->unlink_id, 0xfffffffeull, -2, ENOENT);
	check_ret(f, f->unlink_id, 0xfffffffffffffff3ull, -13, EACCES);
	check_ret(f, f->unlink_id, 0x12345678fffffffbull, -5, EIO);
	check_ret(f, f->unlink_id, 0x80000000ull, INT32_MIN, 0); /* below -4095: no errno */
	/* RK_PTR: ERR_PTR(-ENOMEM), a real pointer, NULL. */
	check_ret(f, f->dalloc_id, (uint64_t)-12, -12, ENOMEM);
	check_ret(f, f->lookup_id, (uint64_t)-4095, -4095, 4095);
	check_ret(f, f->dalloc_id, 0xffff888001234500ull, (int64_t)0xffff888001234500ull, 0);
	check_ret(f, f->dalloc_id, 0, 0, 0);
	/* RK_LONG: 64-bit; 0xfffffffe is a large positive count, not -2. */
	check_ret(f, f->read_id, (uint64_t)-4, -4, EINTR);
	check_ret(f, f->read_id, 0xfffffffeull, 0xfffffffell, 0);
	check_ret(f, f->read_id, 4096, 4096, 0);
	/* RK_UINT: never an error. */
	check_ret(f, f->count_id, (uint64_t)-2, -2, 0);
	check_ret(f, f->void_id, (uint64_t)-2, -2, 0);
}

static size_t lines(const char *s)
{
	size_t n = s && *s ? 1 : 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

static const char *last_line(const char *s)
{
	const char *nl = s ? strrchr(s, '\n') : NULL;

	return nl ? nl + 1 : s;
}

/*
 * A syscall probe's stack, taken at sys_exit: the tracepoint's machinery on
 * top (a JITed program kallsyms did not list, bpf_trace_run2,
 * __bpf_trace_sys_exit, syscall_exit_work) goes; the syscall's own function,
 * returned by then, is named first.
 */
static void test_syscall_stack(struct fixture *f)
{
	struct rec_vfs_call e = unlink_event(f);
	struct record r;
	int ret;

	e.c.h.func_id = f->sys_id;
	e.c.h.flags = RF_HAS_RET;
	e.c.ret = 0;
	e.c.st.kstack[0] = A_JIT;
	e.c.st.kstack[1] = A_TRACE_RUN + 0x6a;
	e.c.st.kstack[2] = A_BPF_TRACE + 0x22;
	e.c.st.kstack[3] = A_EXIT_WORK + 0xd8;
	e.c.st.kstack[4] = A_DO_SYSCALL + 0x40;
	e.c.st.kstack[5] = A_ENTRY + 0x76;
	e.c.st.kstack_sz = 6 * 8;
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0, "decode = %d", ret);
#if defined(__x86_64__)
	check_str(r.stack, "__x64_sys_unlinkat+0x0\ndo_syscall_64+0x40\nentry_SYSCALL_64_after_hwframe+0x76");
	check_str(r.stack_folded, "entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_unlinkat");
#endif
	check(r.stack && !strstr(r.stack, "bpf_trace") && !strstr(r.stack, "0xffffffffc0030d31") &&
		      !strstr(r.stack, "syscall_exit_work") && !strstr(r.stack, "+0x3"),
	      "tracing machinery left in:\n%s", r.stack);
	event_record_clear(&r);

	/* Below the first real frame, frames no symbol covers stay: only the top goes. */
	e.c.st.kstack[5] = A_UNKNOWN;
	e.c.st.kstack[6] = A_ENTRY + 0x76;
	e.c.st.kstack_sz = 7 * 8;
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0 && r.stack && strstr(r.stack, "\n0xffffffff80000000\n"),
	      "unknown frame under the syscall's own dropped:\n%s", r.stack);
	event_record_clear(&r);
}

/* A stack that filled every slot ends with a marker saying it was cut; one that fits, not. */
static void test_stack_cut(struct fixture *f)
{
	struct rec_vfs_call e = unlink_event(f);
	struct record r;
	char marker[64];
	int ret;

	e.c.h.func_id = f->dalloc_id;
	for (int i = 0; i < SMBLAT_STACK_SLOTS; i++)
		e.c.st.kstack[i] = A_USER_PATH + 0x10 + i;
	e.c.st.kstack_sz = SMBLAT_STACK_DEPTH * 8;
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0 && lines(r.stack) == 1 + SMBLAT_STACK_DEPTH && !strstr(r.stack, "cut"),
	      "%d frames that fit: %zu lines:\n%s", SMBLAT_STACK_DEPTH, lines(r.stack), r.stack);
	event_record_clear(&r);

	e.c.st.kstack_sz = SMBLAT_STACK_SLOTS * 8;
	ret = decode(&f->d, &e, sizeof(e), &r);
	snprintf(marker, sizeof(marker), "[kernel stack cut at %d frames]", SMBLAT_STACK_DEPTH);
	check(ret == 0 && lines(r.stack) == 1 + SMBLAT_STACK_DEPTH + 1, "%zu lines", lines(r.stack));
	check_str(last_line(r.stack), marker);
	check(r.stack_folded && strncmp(r.stack_folded, marker, strlen(marker)) == 0 &&
		      r.stack_folded[strlen(marker)] == ';',
	      "folded stack does not start with the marker: %s", r.stack_folded);
	event_record_clear(&r);

	/* A deep user stack under a short kernel one: each says for itself. */
	e.c.st.kstack_sz = 2 * 8;
	for (int i = 0; i < SMBLAT_STACK_SLOTS; i++)
		e.c.st.ustack[i] = 0x401000 + 0x10 * i;
	e.c.st.ustack_sz = SMBLAT_STACK_SLOTS * 8;
	ret = decode(&f->d, &e, sizeof(e), &r);
	snprintf(marker, sizeof(marker), "[user stack cut at %d frames]", SMBLAT_STACK_DEPTH);
	check(ret == 0 && lines(r.stack) == 1 + 2 + SMBLAT_STACK_DEPTH + 1, "%zu lines", lines(r.stack));
	check_str(last_line(r.stack), marker);
	check(r.stack && !strstr(r.stack, "kernel stack cut"), "short kernel stack marked cut:\n%s", r.stack);
	check(r.stack_folded && strncmp(r.stack_folded, marker, strlen(marker)) == 0, "folded: %s",
	      r.stack_folded);
	event_record_clear(&r);
}

static void test_stacks(struct fixture *f)
{
	struct rec_vfs_call e = unlink_event(f);
	struct decoder raw = f->d;
	struct record r;
	int ret;

	/* A kernel function probed outside the smb layer is named first too. */
	e.c.h.func_id = f->dalloc_id;
	e.c.st.kstack[4] = A_UNKNOWN;
	e.c.st.kstack_sz = 6 * 8;
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0, "decode = %d", ret);
	check_str(r.stack, "d_alloc+0x0\nvfs_unlink+0x12f\n0xffffffff80000000\n__x64_sys_unlinkat+0x20");
	check_str(r.stack_folded, "__x64_sys_unlinkat;0xffffffff80000000;vfs_unlink;d_alloc");
	event_record_clear(&r);

	/* User frames follow the kernel ones, and come first (outermost) when folded. */
	e = unlink_event(f);
	e.c.st.kstack_sz = 5 * 8;
	e.c.st.ustack[0] = 0x401136;
	e.c.st.ustack[1] = 0x7f0000001234;
	e.c.st.ustack_sz = 2 * 8;
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0, "decode = %d", ret);
	check_str(r.stack, "cifs_unlink+0x0 [cifs]\nvfs_unlink+0x12f\ndo_unlinkat+0x1a0\n"
			   "0x401136\n0x7f0000001234");
	check_str(r.stack_folded, "0x7f0000001234;0x401136;do_unlinkat;vfs_unlink;cifs_unlink");
	event_record_clear(&r);

	/* A user function has no kernel symbol of its own to put first. */
	e = unlink_event(f);
	e.c.h.func_id = f->uprobe_id;
	e.c.st.kstack_sz = 0;
	e.c.st.ustack[0] = 0x401136;
	e.c.st.ustack_sz = 8;
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0, "decode = %d", ret);
	check_str(r.stack, "0x401136");
	check_str(r.stack_folded, "0x401136");
	event_record_clear(&r);

	/* No stack recorded (kernel_stack = no, or bpf_get_stack failed): no STACK. */
	e = unlink_event(f);
	e.c.st.kstack_sz = 0;
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0, "decode = %d", ret);
	check_str(r.stack, NULL);
	check_str(r.stack_folded, NULL);
	event_record_clear(&r);
	e.c.st.kstack_sz = -EFAULT;
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0, "decode = %d", ret);
	check_str(r.stack, NULL);
	event_record_clear(&r);

	/* A full stack is read to SMBLAT_STACK_DEPTH, never past it. */
	e = unlink_event(f);
	for (int i = 0; i < SMBLAT_STACK_SLOTS; i++)
		e.c.st.kstack[i] = A_DO_SYSCALL + i;
	e.c.st.kstack_sz = 4 * SMBLAT_STACK_DEPTH * 8; /* a bogus size */
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0, "decode = %d", ret);
	check(lines(r.stack) == 1 + SMBLAT_STACK_DEPTH + 1, "%zu lines, want %d frames and the marker",
	      lines(r.stack), 1 + SMBLAT_STACK_DEPTH);
	event_record_clear(&r);

	/* Without symbols: raw addresses, and no probed-function frame to name. */
	raw.ks = NULL;
	e = unlink_event(f);
	e.c.st.kstack_sz = 5 * 8;
	ret = decode(&raw, &e, sizeof(e), &r);
	check(ret == 0, "decode = %d", ret);
	check_str(r.stack, "0xffffffffc0c0004c\n0xffffffffc0c01060\n0xffffffff81105000\n"
			   "0xffffffff8110012f\n0xffffffff811009a0");
	check_str(r.stack_folded, "0xffffffff811009a0;0xffffffff8110012f;0xffffffff81105000;"
				  "0xffffffffc0c01060;0xffffffffc0c0004c");
	check_str(r.share, "\\\\srv\\share");
	event_record_clear(&r);

	/* No mount table: no share, the rest as usual. */
	raw = f->d;
	raw.mounts = NULL;
	e = unlink_event(f);
	ret = decode(&raw, &e, sizeof(e), &r);
	check(ret == 0 && !r.share && r.file, "decode without mounts = %d share %s", ret,
	      r.share ? r.share : "(null)");
	event_record_clear(&r);
}

static void test_invalid(struct fixture *f)
{
	struct rec_vfs_call e = unlink_event(f);
	struct record r;
	int ret;

	ret = decode(&f->d, &e, sizeof(e) - 1, &r);
	check(ret == -EINVAL, "short event: %d", ret);
	event_record_clear(&r);
	ret = decode(&f->d, &e, 0, &r);
	check(ret == -EINVAL, "empty event: %d", ret);
	event_record_clear(&r);
	ret = decode(&f->d, &e, offsetof(struct rec_vfs_call, wire), &r);
	check(ret == -EINVAL, "record without its wire part: %d", ret);
	event_record_clear(&r);

	e.c.h.func_id = f->funcs.n;
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == -EINVAL, "func_id %u of %u: %d", e.c.h.func_id, f->funcs.n, ret);
	check(!r.func && !r.stack && !r.file, "record filled for an invalid event");
	event_record_clear(&r);
	e.c.h.func_id = UINT32_MAX;
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == -EINVAL, "func_id %u: %d", e.c.h.func_id, ret);
	event_record_clear(&r);

	/* A garbled end time wraps rather than overflowing (found by fuzz-event). */
	e = unlink_event(f);
	e.c.h.end_ns = 0x7300000000000000ull;
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0 && r.end_realtime_us == (0x7300000000000000ull + 1700000000000000000ull) / 1000,
	      "end_ns near INT64_MAX: %d, %llu", ret, (unsigned long long)r.end_realtime_us);
	event_record_clear(&r);

	/* A longer buffer (a future event with more fields) still decodes. */
	{
		char big[sizeof(struct rec_vfs_call) + 64];

		memset(big, 0, sizeof(big));
		e = unlink_event(f);
		memcpy(big, &e, sizeof(e));
		ret = decode(&f->d, big, sizeof(big), &r);
		check(ret == 0 && r.latency_ns == 45210000, "longer buffer: %d", ret);
		event_record_clear(&r);
	}
}

static void test_clock(void)
{
	int64_t a = event_clock_offset(), b = event_clock_offset();

	/* Realtime is after boot time; the two readings agree within a second. */
	check(a > 0, "clock offset %lld", (long long)a);
	check(llabs(a - b) < 1000000000ll, "clock offsets %lld and %lld", (long long)a, (long long)b);
}

/* Block requests: no frame, no stack; the block layer's fields and place instead. */
static int decode_block(struct fixture *f, const void *rec, size_t size, struct record *r)
{
	return decode(&f->d, rec, size, r);
}

static void test_block(struct fixture *f)
{
	int write_id = add(&f->funcs, LAYER_BLOCK, GROUP_NONE, "BLOCK_WRITE", NULL, NULL, RK_VOID);
	int flush_id = add(&f->funcs, LAYER_BLOCK, GROUP_NONE, "BLOCK_FLUSH", NULL, NULL, RK_VOID);
	int other_id = add(&f->funcs, LAYER_BLOCK, GROUP_NONE, "BLOCK_OTHER", NULL, NULL, RK_VOID);
	struct rec_block e;
	struct rec_call c;
	struct record r;
	int ret;

	memset(&e, 0, sizeof(e));
	e.h.func_id = write_id;
	e.h.latency_ns = 1500000;
	e.h.pid = e.h.tid = 77;
	memcpy(e.h.comm, "dd", 3);
	e.h.kind = REC_BLOCK;
	e.h.flags = RF_BLOCK_QUEUE;
	e.sector = 2048;
	e.bytes = 65536;
	e.queue_ns = 250000;
	e.op = 1;
	memcpy(e.disk, "nvme0n1", 8);
	ret = decode_block(f, &e, sizeof(e), &r);
	check(ret == 0, "decode = %d", ret);
	check_str(record_field(&r, "DISK"), "nvme0n1");
	check_str(record_field(&r, "OP"), "WRITE");
	check_str(record_field(&r, "BYTES"), "65536");
	check_str(record_field(&r, "SECTOR"), "2048");
	check_str(record_field(&r, "QUEUE_US"), "250");
	check_str(r.place, "nvme0n1, 65536 bytes at sector 2048, queued 0.250 ms");
	check(!r.has_ret && !r.err && !r.stack && !r.share && !r.file, "non-block fields set");
	event_record_clear(&r);

	/* a flush has no sector (-1 in the request); without queue_time no queue */
	e.h.func_id = flush_id;
	e.h.flags = 0;
	e.sector = UINT64_MAX;
	e.bytes = 0;
	ret = decode_block(f, &e, sizeof(e), &r);
	check(ret == 0, "decode = %d", ret);
	check(!record_field(&r, "SECTOR") && !record_field(&r, "QUEUE_US"), "flush: sector or queue");
	check_str(record_field(&r, "OP"), "FLUSH");
	check_str(r.place, "nvme0n1, 0 bytes");
	event_record_clear(&r);

	/* ops without a name keep the kernel's number */
	e.h.func_id = other_id;
	e.op = 44;
	ret = decode_block(f, &e, sizeof(e), &r);
	check(ret == 0, "decode = %d", ret);
	check_str(record_field(&r, "OP"), "44");
	event_record_clear(&r);

	/* a record of another kind carries no block fields, whatever its function */
	memset(&c, 0, sizeof(c));
	c.h.kind = REC_CALL;
	c.h.func_id = write_id;
	ret = decode_block(f, &c, sizeof(c), &r);
	check(ret == 0 && !r.n_fields && !r.place, "a call decoded as block");
	event_record_clear(&r);
}

/*
 * A stack taken at the call's entry (a kprobe where kretprobes cannot
 * unwind) or inside it (fexit's trampoline) starts in the probed function
 * itself: it is named once, not as cifs_unlink+0x0 and cifs_unlink+0x1.
 */
static void test_entry_stack(struct fixture *f)
{
	struct rec_vfs_call e = unlink_event(f);
	struct record r;
	int ret;

	e.c.st.kstack[0] = A_BPF_PROG + 0x4c;
	e.c.st.kstack[1] = 0xffffffffc0a01000ull + 0x1; /* cifs_unlink+0x1: the kprobe's address */
	e.c.st.kstack[2] = A_VFS_UNLINK + 0x12f;
	e.c.st.kstack[3] = A_DO_UNLINKAT + 0x1a0;
	e.c.st.kstack_sz = 4 * 8;
	ret = decode(&f->d, &e, sizeof(e), &r);
	check(ret == 0, "decode = %d", ret);
	check_str(r.stack, "cifs_unlink+0x0 [cifs]\nvfs_unlink+0x12f\ndo_unlinkat+0x1a0");
	check_str(r.stack_folded, "do_unlinkat;vfs_unlink;cifs_unlink");
	event_record_clear(&r);
}

int main(void)
{
	struct fixture f;

	fixture_init(&f);
	test_unlink(&f);
	test_flags(&f);
	test_returns(&f);
	test_stacks(&f);
	test_syscall_stack(&f);
	test_stack_cut(&f);
	test_entry_stack(&f);
	test_invalid(&f);
	test_block(&f);
	test_clock();
	fixture_done(&f);

	return check_done("event");
}
