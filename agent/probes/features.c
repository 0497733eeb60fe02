// SPDX-License-Identifier: LGPL-2.1-or-later
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "probes/btfargs.h"
#include "probes/features.h"
#include "probes/probes-int.h"
#include "features.skel.h"

/* A vmlinux function every kernel has, with BTF: where trampolines are tried. */
#define PROBE_FUNC "vfs_read"
/* A tracepoint every kernel has and that seldom fires. */
#define PROBE_TP "task_rename"
/* The kprobe.session kfunc: the kernel has sessions when its BTF has it. */
#define SESSION_KFUNC "bpf_session_cookie"

struct features {
	bool has[_KF_MAX];
	char *why[_KF_MAX];
};

static const struct {
	const char *name;
	const char *since;
} known[_KF_MAX] = {
	[KF_BTF] = { "vmlinux BTF", "CONFIG_DEBUG_INFO_BTF" },
	[KF_MODULE_BTF] = { "module BTF", "CONFIG_DEBUG_INFO_BTF_MODULES, Linux 5.11" },
	[KF_RINGBUF] = { "BPF ring buffer", "Linux 5.8" },
	[KF_TASK_STORAGE] = { "task storage maps", "Linux 5.11" },
	[KF_COOKIE] = { "BPF cookies", "Linux 5.15" },
	[KF_FUNC_IP] = { "bpf_get_func_ip", "Linux 5.15" },
	[KF_TASK_PT_REGS] = { "bpf_task_pt_regs", "Linux 5.15" },
	[KF_KPROBE] = { "kprobes", "CONFIG_KPROBE_EVENTS" },
	[KF_KPROBE_MULTI] = { "kprobe.multi", "CONFIG_FPROBE, Linux 5.18" },
	[KF_KPROBE_SESSION] = { "kprobe.session", "CONFIG_FPROBE, Linux 6.10" },
	[KF_FENTRY] = { "fentry", "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, Linux 5.5" },
	[KF_FENTRY_ARGS] = { "fentry arguments (bpf_get_func_arg)", "Linux 5.17" },
	[KF_FENTRY_COOKIE] = { "fentry BPF cookies", "Linux 5.19" },
	[KF_FENTRY_MODULE] = { "fentry on module functions", "module BTF, Linux 5.11" },
	[KF_TP_BTF] = { "tp_btf", "Linux 5.5" },
	[KF_UPROBE_MULTI] = { "uprobe.multi", "CONFIG_UPROBES, Linux 6.6" },
	[KF_KRETPROBE_STACK] = { "kretprobe stacks", "Linux 5.15" },
	[KF_UPROBE_SLEEP] = { "sleepable uprobes", "Linux 6.0" },
	[KF_FIND_VMA] = { "bpf_find_vma", "Linux 5.17" },
	[KF_LOOP] = { "bpf_loop", "Linux 5.17" },
};

const char *features_name(enum kfeature k)
{
	return k < _KF_MAX ? known[k].name : "?";
}

const char *features_since(enum kfeature k)
{
	return k < _KF_MAX ? known[k].since : "?";
}

bool features_has(const struct features *f, enum kfeature k)
{
	return f && k < _KF_MAX && f->has[k];
}

const char *features_why(const struct features *f, enum kfeature k)
{
	return f && k < _KF_MAX && !f->has[k] ? f->why[k] : NULL;
}

const char *features_missing(enum kfeature k, char *buf, size_t size)
{
	snprintf(buf, size, "%s (%s)", features_name(k), features_since(k));
	return buf;
}

/* Records the answer for k: yes, or no and what the probe saw (err, or a text). */
static void set(struct features *f, enum kfeature k, bool has, int err, const char *text)
{
	f->has[k] = has;
	free(f->why[k]);
	f->why[k] = NULL;
	if (has)
		return;
	if (text)
		f->why[k] = strdup(text);
	else if (err)
		f->why[k] = strdup(strerror(err < 0 ? -err : err));
}

/* Module BTF: any module's next to vmlinux's. */
static bool module_btf(void)
{
	DIR *d = opendir("/sys/kernel/btf");
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while (!found && (de = readdir(d)))
		found = de->d_name[0] != '.' && strcmp(de->d_name, "vmlinux") != 0;
	closedir(d);
	return found;
}

/* libbpf's probes: > 0 yes, 0 no, < 0 could not tell (taken as no). */
static void set_probe(struct features *f, enum kfeature k, int r)
{
	set(f, k, r > 0, r < 0 ? r : 0, r == 0 ? "refused by the kernel" : NULL);
}

/* Loads one program of the probe object as type/attach; its fd or negative errno. */
static int prog_load(const struct bpf_program *prog, enum bpf_prog_type type, enum bpf_attach_type attach,
		     int btf_id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = attach, .attach_btf_id = btf_id);
	int fd = bpf_prog_load(type, "smblat_feature", "GPL", bpf_program__insns(prog),
			       bpf_program__insn_cnt(prog), &o);

	return fd < 0 ? -errno : fd;
}

/*
 * A trampoline program on PROBE_FUNC: loaded, and linked when link is
 * set (some kernels load them and refuse the attach). 0 or negative errno.
 */
static int try_tracing(const struct bpf_program *prog, enum bpf_attach_type type, int btf_id, bool link)
{
	int fd = prog_load(prog, BPF_PROG_TYPE_TRACING, type, btf_id), lfd;

	if (fd < 0 || !link) {
		if (fd >= 0)
			close(fd);
		return fd < 0 ? fd : 0;
	}
	lfd = bpf_link_create(fd, 0, type, NULL);
	lfd = lfd < 0 ? -errno : lfd;
	if (lfd >= 0)
		close(lfd);
	close(fd);
	return lfd < 0 ? lfd : 0;
}

/* Whether enum name of btf has the value called value. */
static bool btf_enum_has(const struct btf *btf, const char *name, const char *value)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_ENUM);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(btf, id);
	const struct btf_enum *e = t ? btf_enum(t) : NULL;

	for (uint16_t i = 0; e && i < btf_vlen(t); i++)
		if (strcmp(btf__name_by_offset(btf, e[i].name_off), value) == 0)
			return true;
	return false;
}

/* Whether struct name of btf has a member called member. */
static bool btf_member_has(const struct btf *btf, const char *name, const char *member)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(btf, id);
	const struct btf_member *m = t ? btf_members(t) : NULL;

	for (uint16_t i = 0; m && i < btf_vlen(t); i++)
		if (strcmp(btf__name_by_offset(btf, m[i].name_off), member) == 0)
			return true;
	return false;
}

static void probe_fentry(struct features *f, const struct features_bpf *skel, const struct btf *vm)
{
	int id = vm ? btf__find_by_name_kind(vm, PROBE_FUNC, BTF_KIND_FUNC) : -ENOENT, r;

	if (id < 0) {
		set(f, KF_FENTRY, false, 0, "no BTF of " PROBE_FUNC);
		set(f, KF_FENTRY_ARGS, false, 0, "no fentry");
		set(f, KF_FENTRY_COOKIE, false, 0, "no fentry");
		return;
	}
	/*
	 * Loaded, not linked: taking a trampoline down costs a grace period,
	 * which a start that attaches no fentry need not pay; the loader tries
	 * the attach when fentry is first wanted.
	 */
	r = try_tracing(skel->progs.feat_fentry, BPF_TRACE_FENTRY, id, false);
	set(f, KF_FENTRY, r == 0, r, NULL);
	if (r < 0) {
		set(f, KF_FENTRY_ARGS, false, 0, "no fentry");
		set(f, KF_FENTRY_COOKIE, false, 0, "no fentry");
		return;
	}
	/*
	 * What trampolines can do, from the kernel's own BTF: the helper's
	 * value in enum bpf_func_id, the cookie in the trampoline's link
	 * (bpf_tramp_link, or bpf_tramp_node where links share one).
	 * (A program calling the helper, loaded on its own, was refused on
	 * kernels that have it.)
	 */
	set(f, KF_FENTRY_ARGS, btf_enum_has(vm, "bpf_func_id", "BPF_FUNC_get_func_arg"), 0,
	    "no BPF_FUNC_get_func_arg in vmlinux BTF");
	set(f, KF_FENTRY_COOKIE,
	    btf_member_has(vm, "bpf_tramp_link", "cookie") || btf_member_has(vm, "bpf_tramp_node", "cookie"),
	    0, "no trampoline link cookie in vmlinux BTF");
}

static void probe_tp_btf(struct features *f, const struct features_bpf *skel, const struct btf *vm)
{
	int id = vm ? btf__find_by_name_kind(vm, "btf_trace_" PROBE_TP, BTF_KIND_TYPEDEF) : -ENOENT;
	int r;

	if (id < 0) {
		set(f, KF_TP_BTF, false, 0, "no BTF of tracepoint " PROBE_TP);
		return;
	}
	r = try_tracing(skel->progs.feat_tp_btf, BPF_TRACE_RAW_TP, id, true);
	set(f, KF_TP_BTF, r == 0, r, NULL);
}

static void probe_kprobe_multi(struct features *f, const struct features_bpf *skel, const struct btf *vm)
{
	const char *syms[] = { PROBE_FUNC };
	LIBBPF_OPTS(bpf_link_create_opts, o, .kprobe_multi.syms = syms, .kprobe_multi.cnt = 1);
	int fd = prog_load(skel->progs.feat_kprobe_multi, BPF_PROG_TYPE_KPROBE, BPF_TRACE_KPROBE_MULTI, 0);
	int lfd = fd;

	if (fd >= 0) {
		lfd = bpf_link_create(fd, 0, BPF_TRACE_KPROBE_MULTI, &o);
		lfd = lfd < 0 ? -errno : lfd;
		if (lfd >= 0)
			close(lfd);
		close(fd);
	}
	set(f, KF_KPROBE_MULTI, lfd >= 0, lfd, NULL);
	/* Sessions are kprobe.multi links of another kind, with kfuncs of their own. */
	if (!f->has[KF_KPROBE_MULTI])
		set(f, KF_KPROBE_SESSION, false, 0, "no kprobe.multi");
	else
		set(f, KF_KPROBE_SESSION, vm && btf__find_by_name_kind(vm, SESSION_KFUNC, BTF_KIND_FUNC) >= 0,
		    0, "no " SESSION_KFUNC " in vmlinux BTF");
}

/*
 * Before 5.15 the unwinder stops at a kretprobe's trampoline: a stack taken
 * at return holds the probed function alone. The kernel that unwinds past it
 * finds the return address with one of these (rethook on x86 from 6.0).
 */
static void probe_kretprobe_stack(struct features *f, const struct btf *vm)
{
	if (!f->has[KF_KPROBE]) {
		set(f, KF_KRETPROBE_STACK, false, 0, "no kprobes");
		return;
	}
	set(f, KF_KRETPROBE_STACK,
	    vm && (btf__find_by_name_kind(vm, "rethook_find_ret_addr", BTF_KIND_FUNC) >= 0 ||
		   btf__find_by_name_kind(vm, "kretprobe_find_ret_addr", BTF_KIND_FUNC) >= 0),
	    0, "no kretprobe_find_ret_addr or rethook_find_ret_addr in vmlinux BTF");
}

/* Never called: where the uprobe.multi probe links, in the agent's own file. */
__attribute__((noinline, used)) int features_uprobe_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

/* The offset in its file of code at addr of this process, from /proc/self/maps. */
static int self_offset(uintptr_t addr, char *path, size_t size, uint64_t *off)
{
	FILE *m = fopen("/proc/self/maps", "re");
	unsigned long start, end, pgoff;
	char line[512], file[256];
	int r = -ENOENT;

	if (!m)
		return -errno;
	while (r < 0 && fgets(line, sizeof(line), m))
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &start, &end, &pgoff, file) == 4 &&
		    addr >= start && addr < end && file[0] == '/') {
			*off = addr - start + pgoff;
			snprintf(path, size, "%s", file);
			r = 0;
		}
	fclose(m);
	return r;
}

static void probe_uprobe_multi(struct features *f, const struct features_bpf *skel)
{
	char path[256];
	uint64_t off;
	int fd, lfd;

	lfd = self_offset((uintptr_t)features_uprobe_target, path, sizeof(path), &off);
	if (lfd < 0) {
		set(f, KF_UPROBE_MULTI, false, lfd, NULL);
		return;
	}
	fd = prog_load(skel->progs.feat_kprobe_multi, BPF_PROG_TYPE_KPROBE, UMULTI_ATTACH_TYPE, 0);
	lfd = fd;
	if (fd >= 0) {
		lfd = umulti_link_create(fd, path, &off, NULL, 1, false);
		if (lfd >= 0)
			close(lfd);
		close(fd);
	}
	set(f, KF_UPROBE_MULTI, lfd >= 0, lfd, NULL);
}

/* Before 6.0 the verifier lets no uprobe program sleep: it refuses the load. */
static void probe_uprobe_sleep(struct features *f, const struct features_bpf *skel)
{
	const struct bpf_program *prog = skel->progs.feat_uprobe_sleep;
	LIBBPF_OPTS(bpf_prog_load_opts, o, .prog_flags = BPF_F_SLEEPABLE);
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "smblat_feature", "GPL", bpf_program__insns(prog),
			       bpf_program__insn_cnt(prog), &o);

	fd = fd < 0 ? -errno : fd;
	if (fd >= 0)
		close(fd);
	set(f, KF_UPROBE_SLEEP, fd >= 0, fd, NULL);
}

static void probe_maps_helpers(struct features *f)
{
	set_probe(f, KF_RINGBUF, libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL));
	set_probe(f, KF_TASK_STORAGE, libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL));
	set_probe(f, KF_COOKIE,
		  libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie, NULL));
	set_probe(f, KF_FUNC_IP, libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_func_ip, NULL));
	set_probe(f, KF_TASK_PT_REGS,
		  libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_task_pt_regs, NULL));
	set_probe(f, KF_FIND_VMA, libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_find_vma, NULL));
	set_probe(f, KF_LOOP, libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_loop, NULL));
}

int features_probe(struct btfs *btfs, struct features **ret)
{
	struct features *f = calloc(1, sizeof(*f));
	const struct btf *vm = btfs_get(btfs, NULL);
	struct features_bpf *skel;

	if (!f)
		return -ENOMEM;
	for (int k = 0; k < _KF_MAX; k++)
		set(f, k, false, 0, "not probed");
	set(f, KF_BTF, vm != NULL, 0, "no /sys/kernel/btf/vmlinux");
	set(f, KF_MODULE_BTF, module_btf(), 0, "no module BTF in /sys/kernel/btf");
	set(f, KF_KPROBE, access("/sys/bus/event_source/devices/kprobe/type", F_OK) == 0, 0,
	    "no kprobe event source");
	probe_maps_helpers(f);
	skel = features_bpf__open();
	if (skel) {
		probe_fentry(f, skel, vm);
		probe_tp_btf(f, skel, vm);
		probe_kprobe_multi(f, skel, vm);
		probe_uprobe_multi(f, skel);
		probe_uprobe_sleep(f, skel);
		features_bpf__destroy(skel);
	}
	probe_kretprobe_stack(f, vm);
	if (f->has[KF_FENTRY] && !f->has[KF_MODULE_BTF])
		set(f, KF_FENTRY_MODULE, false, 0, "no module BTF");
	else
		set(f, KF_FENTRY_MODULE, f->has[KF_FENTRY], 0, "no fentry");
	*ret = f;
	return 0;
}

struct features *features_new(const bool has[_KF_MAX])
{
	struct features *f = calloc(1, sizeof(*f));

	for (int k = 0; f && k < _KF_MAX; k++)
		set(f, k, has[k], 0, "set so");
	return f;
}

void features_free(struct features *f)
{
	if (!f)
		return;
	for (int k = 0; k < _KF_MAX; k++)
		free(f->why[k]);
	free(f);
}

void features_list(const struct features *f, FILE *out)
{
	for (int k = 0; k < _KF_MAX; k++) {
		if (f->has[k])
			fprintf(out, "# feature %-36s yes\n", known[k].name);
		else
			fprintf(out, "# feature %-36s no (%s; %s)\n", known[k].name,
				f->why[k] ? f->why[k] : "?", known[k].since);
	}
}
