/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What probes.c (kernel functions, tracepoints) and uprobes.c (user space) share. */
#pragma once

#include <bpf/libbpf.h>

#include "probes/probes.h"
#include "smblat.skel.h"

/* BPF_TRACE_UPROBE_MULTI and BPF_F_UPROBE_MULTI_RETURN, Linux 6.6 (newer than Debian 12's uapi) */
#define UMULTI_ATTACH_TYPE 48
#define UMULTI_RETURN 1u
/* BPF_TRACE_UPROBE_SESSION, Linux 6.13 */
#define USESSION_ATTACH_TYPE 57

struct attachment {
	uint32_t id;
	int prog_fd[2]; /* fentry clones, -1 otherwise */
	int link_fd[2];
	struct bpf_link *link[2]; /* kprobe/uprobe links */
};

/*
 * One kprobe.multi entry/exit pair. A link cannot give up one of its
 * addresses: an id detached stays hooked but dormant (its func_cfg
 * disabled) and is revived in place rather than hooked twice; the links go
 * once no id of theirs is live.
 */
struct multi {
	struct attachment att; /* the kprobe.multi or uprobe.multi links */
	uint32_t *ids;
	bool *live;
	uint32_t n_ids;
	uint32_t n_live;
	enum backend backend; /* what its ids are attached with */
};

struct probes {
	struct smblat_bpf *skel;
	struct smblat_bpf *fskel; /* the fentry templates, loaded when fentry is first wanted */
	struct probes_opts opts;  /* as opened, for fskel */
	const struct ksyms *ks;
	struct btfs *btfs;
	const struct features *features;
	enum backend_choice choice;
	bool place_ids;   /* no BPF cookies: ids by probed place (probe_ids) */
	bool frames_hash; /* per-thread frames in a hash of max_threads */
	uint32_t max_threads;
	uint32_t compat;   /* enum smblat_compat, for every object loaded */
	bool fentry;       /* template loaded: clones may work */
	bool fentry_tried; /* fentry_usable() attached the template once */
	bool kmulti;
	bool umulti;        /* uprobe.multi programs loaded; cleared when links are refused */
	bool usession;      /* the uprobe.session program loaded; cleared when refused */
	bool session_ctx;   /* the object built for session kfuncs that take the context */
	bool walks_ustacks; /* the programs walk user stacks (ustack.bpf.h), not the kernel */
	/* unwind tables (ufiles.c): rows and pages used of their maps */
	uint32_t rows_used;
	uint32_t pages_used;
	bool tables_full_said;
	bool ufiles_base_done; /* the C library's tables loaded */
	bool kprobe;           /* the kernel has a kprobe PMU */
	char *kprobe_why;
	char *why; /* combined reason, owned */
	char *fentry_why;
	char *kmulti_why;
	struct attachment *att;
	uint32_t n_att;
	uint64_t misses_released; /* recursion misses of fentry clones closed since (misses.c) */
	struct multi *multi;      /* kprobe.multi batches */
	uint32_t n_multi;
	struct {
		char *module;
		int fd;
	} btf_fds[8];
	uint32_t n_btf_fds;
	/* block and syscall layers */
	bool tp_btf; /* tp_btf programs loaded and not refused yet */
	char *tp_btf_why;
	struct {
		char *name;
		const struct prog_unit *unit;
		enum backend backend;
		struct bpf_link *link;
	} * tp;
	uint32_t n_tp;
};

/* ufiles.c: binary is a file uprobes go into: it gets its index for user frames now. */
void ufiles_target(struct probes *p, const char *binary);

/* object.c: loads p->skel with the kinds of program the kernel takes (p->ks, p->btfs set); why when not. */
int object_load(struct probes *p, const struct probes_opts *o, char *why, size_t n);
/*
 * The object opened (not loaded): with the session kfuncs taking the
 * context or not, walking user stacks itself or leaving it to the kernel;
 * NULL, errno.
 */
struct smblat_bpf *object_open(bool session_ctx, bool kernel_ustack);
/* Whether the kernel's session kfuncs take the program's context (variant.c). */
bool object_session_ctx(struct btfs *btfs);
/* Whether fentry clones can work: the templates load and attach (tried once). */
bool object_fentry_usable(struct probes *p);

/* "what: strerror(-err)", malloc'd. */
char *errdup(const char *what, int err);
/* A new slot in p->att for id, links empty; NULL without memory. */
struct attachment *attachment_new(struct probes *p, uint32_t id);
void attachment_release(struct attachment *a);
/* attachment_release(), its programs' recursion misses kept in p first. */
void attachment_release_counted(struct probes *p, struct attachment *a);
/* misses.c: one program's recursion misses. */
uint64_t probes_prog_misses(int fd);
/* Keeps a batch's links as serving the ids in cookies; on -ENOMEM the caller releases att. */
int multi_keep(struct probes *p, const struct attachment *att, const uint64_t *cookies, uint32_t n,
	       enum backend be);
/* The backend of the batch that holds id dormant, now revived; BACKEND_NONE: none does. */
enum backend multi_revive(struct probes *p, uint32_t id);
/* id leaves batch m: dormant (its func_cfg disabled), the links gone with the batch's last live id. */
void multi_detach(struct multi *m, uint32_t id);

/*
 * A uprobe.multi link of prog_fd on n offsets of binary (the kernel's own
 * BPF_LINK_CREATE layout: libbpf before 1.3 cannot pass it). Returns the
 * link's fd or negative errno.
 */
int umulti_link_create(int prog_fd, const char *binary, const uint64_t *offsets, const uint64_t *cookies,
		       uint32_t n, bool ret);
/* The same for any attach type (uprobe.session: USESSION_ATTACH_TYPE), with multi_flags, for pid (0: all). */
int umulti_link(int prog_fd, uint32_t attach_type, const char *binary, const uint64_t *offsets,
		const uint64_t *cookies, uint32_t n, uint32_t flags, int pid);

/*
 * Without cookies: the probes at place run for id (probe_ids). A kprobe's
 * place is its function's address; a uprobe's, its file's inode number and
 * the offset.
 */
int place_set(struct probes *p, uint64_t addr, uint64_t offset, uint32_t id);

/* Records in f that backend what refused it with err. */
void set_failed(struct func *f, const char *what, int err);

/* "tp_btf/block_rq_issue" -> "block_rq_issue", or NULL for other programs. */
const char *prog_tracepoint(const struct bpf_program *prog, bool *btf);
